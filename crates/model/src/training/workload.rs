//! The training job: a decoder-only transformer (dense or mixture-of-experts), its batch and its
//! numeric precision, with parameter and FLOP counts in the conventions of the papers the
//! calibration data comes from.
//!
//! FLOP convention (Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022, §6): a forward pass
//! costs `2 x` every weight matmul plus `4 s x (heads x head_dim)` per token per layer for the
//! attention score and value products over the **whole** sequence (no causal halving); a
//! backward pass costs twice the forward. *Model FLOPs* are forward + backward; *hardware
//! FLOPs* add whatever the framework recomputes (the full forward of each layer, or only the
//! attention core for selective recompute). For GPT with `ffn = 4h` and full recompute this is
//! exactly `96 B s l h^2 (1 + s/(6h) + V/(16 l h))` per step.

use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

/// Arithmetic precision of the linear layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// BF16 (or FP16) tensor-core matmuls, FP32 master weights: mixed precision.
    #[default]
    Bf16,
    /// FP8 linear layers (Transformer Engine style); attention, norms and communication stay
    /// in BF16, master weights and optimizer states in FP32.
    Fp8,
    /// NVFP4 linear layers (Transformer Engine's NVFP4 recipe: E2M1 elements with an FP8 scale
    /// per 16, forward and both backward GEMMs in FP4): NVIDIA Blackwell only. A software input
    /// the pages do not offer yet (`train --precision nvfp4`).
    #[cfg(feature = "software")]
    Nvfp4,
}

impl Precision {
    pub fn id(self) -> &'static str {
        match self {
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            #[cfg(feature = "software")]
            Precision::Nvfp4 => "nvfp4",
        }
    }
    /// Bytes per parameter of the low-precision weight copy kept beside the BF16 weights: none
    /// in BF16, one in FP8, [`crate::catalog::gpu::NVFP4_BYTES`] in NVFP4.
    pub fn weight_copy_bytes(self) -> f64 {
        match self {
            Precision::Bf16 => 0.0,
            Precision::Fp8 => 1.0,
            #[cfg(feature = "software")]
            Precision::Nvfp4 => crate::catalog::gpu::NVFP4_BYTES,
        }
    }
    pub fn from_id(id: &str) -> Option<Self> {
        match id.to_ascii_lowercase().as_str() {
            "bf16" | "fp16" => Some(Precision::Bf16),
            "fp8" => Some(Precision::Fp8),
            #[cfg(feature = "software")]
            "nvfp4" | "fp4" => Some(Precision::Nvfp4),
            _ => None,
        }
    }
}

/// Feed-forward block shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mlp {
    /// Two matrices, `h -> ffn -> h`, GeLU in between (GPT).
    #[default]
    Gelu,
    /// Three matrices, gate and up `h -> ffn` then down `ffn -> h`, SiLU-gated (Llama, Mixtral).
    Swiglu,
}

impl Mlp {
    /// Weight matrices of size `h x ffn` in one feed-forward block.
    pub fn matrices(self) -> u64 {
        match self {
            Mlp::Gelu => 2,
            Mlp::Swiglu => 3,
        }
    }
}

/// How positions enter the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Positions {
    /// A learned `seq x h` table added to the token embedding (GPT-2/3).
    #[default]
    Learned,
    /// Rotary embeddings applied to queries and keys in every layer (Llama and later).
    Rope,
}

/// Mixture-of-experts feed-forward layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Moe {
    /// Routed experts per MoE layer.
    pub experts: u32,
    /// Experts each token is sent to.
    pub top_k: u32,
    /// Intermediate size of one routed expert.
    pub expert_ffn: u32,
    /// Intermediate size of the always-on shared expert(s) together; 0 for none.
    pub shared_ffn: u32,
    /// The first `dense_layers` layers use the dense `ffn` instead (DeepSeek-V3: 3).
    pub dense_layers: u32,
    /// Node-limited routing: each token's experts lie on at most this many nodes (scale-up
    /// domains), and a token crosses the network once per destination node, then fans out
    /// over NVLink (DeepSeek-V3 technical report §2.1.2 "Node-Limited Routing" and §3.2.2:
    /// M = 4 of 8 nodes; DeepSeek-V2 §2.2.2 "Device-Limited Routing", M = 3). 0: no limit,
    /// every routed copy travels on its own.
    #[serde(skip_serializing_if = "is_zero")]
    pub max_nodes_per_token: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Moe {
    /// Share of a token's routed copies that cross the network, against unlimited routing, for
    /// an EP group spread over `domains` nodes. Unlimited, each of the k copies travels on its
    /// own and lands off-node with probability (D-1)/D; limited to M < D nodes, one copy per
    /// destination node crosses (M (D-1)/D off-node in expectation), then fans out over NVLink:
    /// the ratio is min(M, k) / k. 1 when there is no limit or the group has no more than M
    /// nodes.
    pub fn network_copy_share(&self, domains: u32) -> f64 {
        let m = self.max_nodes_per_token;
        if m == 0 || m >= domains || self.top_k == 0 {
            1.0
        } else {
            m.min(self.top_k) as f64 / self.top_k as f64
        }
    }
}

impl Default for Moe {
    fn default() -> Self {
        Moe { experts: 8, top_k: 2, expert_ffn: 14336, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 }
    }
}

/// A transformer training job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    pub layers: u32,
    pub hidden: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads (grouped-query attention); equal to `heads` for multi-head attention.
    pub kv_heads: u32,
    /// Dimension of one head; 0 means `hidden / heads`.
    pub head_dim: u32,
    /// Intermediate size of the dense feed-forward block.
    pub ffn: u32,
    pub mlp: Mlp,
    pub vocab: u32,
    /// Sequence length in tokens.
    pub seq: u32,
    /// Sequences per optimizer step.
    pub global_batch: u32,
    pub positions: Positions,
    /// Input and output embeddings share one matrix (GPT); untied (Llama) has two.
    pub tied_embeddings: bool,
    /// Dropout after attention and MLP and on attention probabilities (GPT-3 era); modern
    /// models train without, which saves the masks' memory and traffic.
    pub dropout: bool,
    pub moe: Option<Moe>,
    pub precision: Precision,
}

impl Default for Workload {
    /// GPT-3 175B as trained by Narayanan et al. 2021.
    fn default() -> Self {
        gpt(
            "gpt3-175b",
            96,
            12288,
            96,
            1536,
        )
    }
}

/// Largest dimension accepted, to keep every product inside u64 and f64 exactness
/// ([`crate::limits::MAX_DIM`]).
pub const MAX_DIM: u32 = crate::limits::MAX_DIM as u32;
/// Largest layer count accepted ([`crate::limits::LAYERS`]).
pub const MAX_LAYERS: u32 = crate::limits::LAYERS.max as u32;

/// Divisors of `n` in increasing order (n >= 1).
pub fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1u32;
    while (d as u64) * (d as u64) <= n as u64 {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.reverse();
    small.extend(large);
    small
}

/// "1, 2, 4, 8" (at most 12 values, then an ellipsis).
pub fn list(values: &[u32]) -> String {
    let mut s: Vec<String> = values.iter().take(12).map(|v| v.to_string()).collect();
    if values.len() > 12 {
        s.push("...".into());
    }
    s.join(", ")
}

impl Workload {
    pub fn head_dim(&self) -> u64 {
        if self.head_dim > 0 {
            self.head_dim as u64
        } else {
            (self.hidden / self.heads.max(1)) as u64
        }
    }
    /// Width of all query heads together.
    pub fn q_dim(&self) -> u64 {
        self.heads as u64 * self.head_dim()
    }
    /// Width of all key (or value) heads together.
    pub fn kv_dim(&self) -> u64 {
        self.kv_heads as u64 * self.head_dim()
    }
    pub fn tokens_per_step(&self) -> u64 {
        self.global_batch as u64 * self.seq as u64
    }
    /// Dense (non-MoE) layers.
    pub fn dense_layer_count(&self) -> u32 {
        match self.moe {
            Some(m) => m.dense_layers.min(self.layers),
            None => self.layers,
        }
    }
    pub fn moe_layer_count(&self) -> u32 {
        self.layers - self.dense_layer_count()
    }

    /// Checks the shape is a transformer the model can cost.
    pub fn validate(&self) -> Result<()> {
        use crate::limits::{EXPERTS, EXPERT_FFN, FFN, MAX_NODES_PER_TOKEN, MOE_DENSE_LAYERS, SHARED_EXPERT_FFN, GLOBAL_BATCH, HEADS, HEAD_DIM, HIDDEN, KV_HEADS, LAYERS, SEQ, VOCAB};
        for (limit, v) in [(LAYERS, self.layers), (HIDDEN, self.hidden), (HEADS, self.heads), (KV_HEADS, self.kv_heads), (FFN, self.ffn), (VOCAB, self.vocab), (SEQ, self.seq), (GLOBAL_BATCH, self.global_batch)] {
            limit.check_u32(v)?;
        }
        if self.head_dim == 0 && !self.hidden.is_multiple_of(self.heads) {
            let ok: Vec<u32> = divisors(self.hidden).into_iter().filter(|d| *d <= 1024).collect();
            return Err(ModelError::new(
                "heads",
                format!(
                    "{} heads do not divide the hidden size {}; use one of {} or set the head dimension",
                    self.heads,
                    self.hidden,
                    list(&ok)
                ),
            ));
        }
        HEAD_DIM.check_u32(self.head_dim)?;
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(ModelError::new(
                "kv_heads",
                format!(
                    "{} key/value heads do not divide {} query heads; valid: {}",
                    self.kv_heads,
                    self.heads,
                    list(&divisors(self.heads))
                ),
            ));
        }
        if let Some(m) = self.moe {
            EXPERTS.check_u32(m.experts)?;
            EXPERT_FFN.check_u32(m.expert_ffn)?;
            SHARED_EXPERT_FFN.check_u32(m.shared_ffn)?;
            MOE_DENSE_LAYERS.check_u32(m.dense_layers)?;
            MAX_NODES_PER_TOKEN.check_u32(m.max_nodes_per_token)?;
            if m.top_k == 0 || m.top_k > m.experts {
                return Err(ModelError::new(
                    "top_k",
                    format!("top-k must be between 1 and the {} experts; got {}", m.experts, m.top_k),
                ));
            }
            if m.dense_layers >= self.layers {
                return Err(ModelError::new(
                    "moe_dense_layers",
                    format!("{} leading dense layers leave no MoE layer of {}; use at most {}", m.dense_layers, self.layers, self.layers - 1),
                ));
            }
        }
        Ok(())
    }

    // ---- parameter counts (whole model) ----

    /// Weights of one attention block (Q, K, V, output projection), no biases.
    pub fn attn_params(&self) -> u64 {
        let h = self.hidden as u64;
        h * (self.q_dim() + 2 * self.kv_dim()) + self.q_dim() * h
    }
    /// Weights of one dense feed-forward block.
    pub fn dense_mlp_params(&self) -> u64 {
        self.mlp.matrices() * self.hidden as u64 * self.ffn as u64
    }
    /// Weights of one routed expert.
    pub fn expert_params(&self) -> u64 {
        self.moe.map_or(0, |m| self.mlp.matrices() * self.hidden as u64 * m.expert_ffn as u64)
    }
    /// Weights of an MoE layer that every GPU of an expert-parallel group replicates: the
    /// router and the shared expert.
    pub fn moe_shared_params(&self) -> u64 {
        self.moe.map_or(0, |m| {
            self.hidden as u64 * m.experts as u64 + self.mlp.matrices() * self.hidden as u64 * m.shared_ffn as u64
        })
    }
    /// Norm weights of one layer (two norms, weight and bias).
    pub fn norm_params(&self) -> u64 {
        4 * self.hidden as u64
    }
    /// Embedding table(s) and learned positions.
    pub fn embedding_params(&self) -> u64 {
        let h = self.hidden as u64;
        let table = self.vocab as u64 * h;
        let pos = if self.positions == Positions::Learned { self.seq as u64 * h } else { 0 };
        table * if self.tied_embeddings { 1 } else { 2 } + pos
    }
    /// All parameters.
    pub fn params(&self) -> u64 {
        let l = self.layers as u64;
        let dense = self.dense_layer_count() as u64;
        let moe = self.moe_layer_count() as u64;
        let experts = self.moe.map_or(0, |m| m.experts as u64);
        l * (self.attn_params() + self.norm_params())
            + dense * self.dense_mlp_params()
            + moe * (experts * self.expert_params() + self.moe_shared_params())
            + self.embedding_params()
            + 2 * self.hidden as u64
    }
    /// Parameters one token passes through (MoE: only its top-k experts).
    pub fn active_params(&self) -> u64 {
        let l = self.layers as u64;
        let dense = self.dense_layer_count() as u64;
        let moe = self.moe_layer_count() as u64;
        let k = self.moe.map_or(0, |m| m.top_k as u64);
        l * (self.attn_params() + self.norm_params())
            + dense * self.dense_mlp_params()
            + moe * (k * self.expert_params() + self.moe_shared_params())
            + self.embedding_params()
            + 2 * self.hidden as u64
    }

    // ---- FLOPs (Megatron convention, see the module docs) ----

    /// Forward FLOPs of the attention core (scores and values) per token per layer.
    pub fn attn_core_flops_per_token(&self) -> f64 {
        4.0 * self.seq as f64 * self.q_dim() as f64
    }
    /// Forward FLOPs of one dense layer per token.
    pub fn dense_layer_flops_per_token(&self) -> f64 {
        2.0 * (self.attn_params() + self.dense_mlp_params()) as f64 + self.attn_core_flops_per_token()
    }
    /// Forward FLOPs of one MoE layer per token (router, top-k experts, shared expert).
    pub fn moe_layer_flops_per_token(&self) -> f64 {
        let k = self.moe.map_or(0, |m| m.top_k) as f64;
        2.0 * (self.attn_params() + self.moe_shared_params()) as f64
            + 2.0 * k * self.expert_params() as f64
            + self.attn_core_flops_per_token()
    }
    /// Forward FLOPs of the output (logit) layer per token.
    pub fn logit_flops_per_token(&self) -> f64 {
        2.0 * self.hidden as f64 * self.vocab as f64
    }
    /// Forward FLOPs of all layers (not the logits) per token.
    pub fn layers_fwd_flops_per_token(&self) -> f64 {
        self.dense_layer_count() as f64 * self.dense_layer_flops_per_token()
            + self.moe_layer_count() as f64 * self.moe_layer_flops_per_token()
    }
    /// Model FLOPs per step: forward and backward (3x forward), no recompute.
    pub fn model_flops_per_step(&self) -> f64 {
        3.0 * (self.layers_fwd_flops_per_token() + self.logit_flops_per_token()) * self.tokens_per_step() as f64
    }
    /// Extra FLOPs per step that `recompute` re-executes.
    pub fn recompute_flops_per_step(&self, recompute: super::Recompute) -> f64 {
        let per_token = match recompute {
            super::Recompute::None => 0.0,
            // The attention core's forward, rerun (with fused attention too, where it saves
            // the core's output; the scores FlashAttention recomputes inside its own backward
            // are not counted, by the convention of MFU/HFU reports).
            super::Recompute::Selective => self.layers as f64 * self.attn_core_flops_per_token(),
            super::Recompute::Full => self.layers_fwd_flops_per_token(),
        };
        per_token * self.tokens_per_step() as f64
    }
    /// FLOPs the kernels execute per step: hardware FLOPs, with the attention core's score and
    /// value products halved when a fused kernel skips the causally masked blocks (`flash`);
    /// materialised attention computes the full score matrix and masks it.
    pub fn executed_flops_per_step(&self, recompute: super::Recompute, flash: bool) -> f64 {
        let hw = self.hardware_flops_per_step(recompute);
        if !flash {
            return hw;
        }
        let core_passes = 3.0
            + match recompute {
                super::Recompute::None => 0.0,
                super::Recompute::Selective | super::Recompute::Full => 1.0,
            };
        hw - 0.5 * core_passes * self.layers as f64 * self.attn_core_flops_per_token() * self.tokens_per_step() as f64
    }
    /// Hardware FLOPs per step: model FLOPs plus recompute.
    pub fn hardware_flops_per_step(&self, recompute: super::Recompute) -> f64 {
        self.model_flops_per_step() + self.recompute_flops_per_step(recompute)
    }
}

/// GPT-style model as in Narayanan et al. 2021 / Korthikanti et al. 2022: `ffn = 4h`, GeLU,
/// learned positions, tied embeddings, dropout, vocabulary 51,200, sequence 2,048.
pub fn gpt(name: &str, layers: u32, hidden: u32, heads: u32, global_batch: u32) -> Workload {
    Workload {
        name: name.to_string(),
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: 0,
        ffn: 4 * hidden,
        mlp: Mlp::Gelu,
        vocab: 51200,
        seq: 2048,
        global_batch,
        positions: Positions::Learned,
        tied_embeddings: true,
        dropout: true,
        moe: None,
        precision: Precision::Bf16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::presets;
    use crate::training::Recompute;

    /// Narayanan et al. 2021, eq. 3: FLOPs per iteration with full activation recompute.
    fn narayanan_eq3(b: f64, s: f64, l: f64, h: f64, v: f64) -> f64 {
        96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h))
    }
    /// Korthikanti et al. 2022, §6: model FLOPs per iteration (no recompute).
    fn korthikanti_model(b: f64, s: f64, l: f64, h: f64, v: f64) -> f64 {
        72.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h))
    }

    #[test]
    fn flops_match_the_papers_formulas() {
        for w in [presets::preset("gpt3-175b").unwrap(), presets::preset("gpt-1t").unwrap(), presets::preset("gpt-1.7b").unwrap()] {
            let (b, s, l, h, v) = (w.global_batch as f64, w.seq as f64, w.layers as f64, w.hidden as f64, w.vocab as f64);
            let hw = w.hardware_flops_per_step(Recompute::Full);
            let want = narayanan_eq3(b, s, l, h, v);
            assert!((hw / want - 1.0).abs() < 1e-12, "{}: {hw} vs {want}", w.name);
            let model = w.model_flops_per_step();
            let want = korthikanti_model(b, s, l, h, v);
            assert!((model / want - 1.0).abs() < 1e-12, "{}: {model} vs {want}", w.name);
        }
    }

    #[test]
    fn gpt3_has_175b_parameters() {
        let w = presets::preset("gpt3-175b").unwrap();
        // Narayanan et al. Table 2 calls it 174.6B; 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h))
        // = 174.6B with biases, which this count leaves out (0.1%).
        let p = w.params() as f64 / 1e9;
        assert!((p - 174.6).abs() < 0.5, "{p}");
        let w = presets::preset("llama3-405b").unwrap();
        let p = w.params() as f64 / 1e9;
        assert!((p - 405.0).abs() < 6.0, "{p}");
        let w = presets::preset("llama3-8b").unwrap();
        let p = w.params() as f64 / 1e9;
        assert!((p - 8.03).abs() < 0.1, "{p}");
        let w = presets::preset("mixtral-8x7b").unwrap();
        // Mistral AI: 46.7B total, 12.9B active.
        assert!((w.params() as f64 / 1e9 - 46.7).abs() < 0.3, "{}", w.params());
        assert!((w.active_params() as f64 / 1e9 - 12.9).abs() < 0.2, "{}", w.active_params());
    }

    #[test]
    fn bad_shapes_name_the_field() {
        let w = Workload { heads: 7, ..Workload::default() };
        let e = w.validate().unwrap_err();
        assert_eq!(e.field, "heads");
        let w = Workload { kv_heads: 5, ..Workload::default() };
        let e = w.validate().unwrap_err();
        assert_eq!(e.field, "kv_heads");
        assert!(e.message.contains("1, 2, 3, 4, 6, 8"), "{}", e.message);
        let w = Workload { moe: Some(Moe { top_k: 9, ..Moe::default() }), ..Workload::default() };
        assert_eq!(w.validate().unwrap_err().field, "top_k");
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
    }
}
