//! A served model: the training workload's shape ([`Workload`]: layers, hidden, heads, KV heads,
//! head dimension, FFN, experts, top-k) plus how its attention keeps keys and values, which
//! decides the KV cache: multi-head, grouped-query, or multi-head latent attention (MLA).

use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::training::Workload;
use serde::{Deserialize, Serialize};

/// How attention stores keys and values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Attention {
    /// Multi-head: one K and one V head per query head (`kv_heads` = `heads`).
    Mha,
    /// Grouped-query: `kv_heads` K/V heads shared by groups of query heads.
    Gqa,
    /// Multi-head latent attention (DeepSeek-V2 §2.1): one compressed latent of `kv_latent`
    /// plus a decoupled RoPE key of `rope_dim` per token and layer, shared by all heads;
    /// queries through a `q_latent` low-rank projection (0: a full projection).
    Mla { kv_latent: u32, rope_dim: u32, q_latent: u32 },
}

impl Attention {
    pub fn id(self) -> &'static str {
        match self {
            Attention::Mha => "mha",
            Attention::Gqa => "gqa",
            Attention::Mla { .. } => "mla",
        }
    }
    pub fn ids() -> Vec<&'static str> {
        vec!["mha", "gqa", "mla"]
    }
}

/// DeepSeek-V3's MLA sizes (DeepSeek-V3 Technical Report §4.2: d_c = 512, d_h^R = 64,
/// d_c' = 1536): the defaults for `--attention mla`.
pub const DEEPSEEK_MLA: Attention = Attention::Mla { kv_latent: 512, rope_dim: 64, q_latent: 1536 };

/// A model as served: its shape and its attention kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServingModel {
    pub work: Workload,
    pub attention: Attention,
}

impl ServingModel {
    pub fn name(&self) -> &str {
        &self.work.name
    }
    /// Checks the shape (the workload's own checks) and the attention kind against it.
    pub fn validate(&self) -> Result<()> {
        self.work.validate()?;
        match self.attention {
            Attention::Mha if self.work.kv_heads != self.work.heads => Err(ModelError::new(
                "kv_heads",
                format!("multi-head attention has one K/V head per query head: use --kv-heads {} or --attention gqa", self.work.heads),
            )),
            Attention::Mla { kv_latent, rope_dim, .. } if kv_latent == 0 || kv_latent > 65_536 || rope_dim > 4096 => Err(ModelError::new(
                "kv_latent",
                format!("an MLA latent of 1 to 65536 and RoPE dimensions of 0 to 4096; got {kv_latent} and {rope_dim}"),
            )),
            _ => Ok(()),
        }
    }
    pub fn is_moe(&self) -> bool {
        self.work.moe.is_some()
    }

    /// K/V heads the cache keeps (MHA: every query head).
    pub fn kv_heads(&self) -> u64 {
        match self.attention {
            Attention::Mha => self.work.heads as u64,
            _ => self.work.kv_heads as u64,
        }
    }

    /// KV cache elements per token per layer: MHA/GQA `2 x kv_heads x head_dim` (a key and a
    /// value per K/V head); MLA `kv_latent + rope_dim` (DeepSeek-V2 §2.1.4, Table 1).
    pub fn kv_elements_per_token_layer(&self) -> u64 {
        match self.attention {
            Attention::Mla { kv_latent, rope_dim, .. } => kv_latent as u64 + rope_dim as u64,
            _ => 2 * self.kv_heads() * self.work.head_dim(),
        }
    }

    /// KV cache bytes of one token over all layers at `bytes_per_element`.
    pub fn kv_bytes_per_token(&self, bytes_per_element: f64) -> f64 {
        self.work.layers as f64 * self.kv_elements_per_token_layer() as f64 * bytes_per_element
    }

    /// Ways one layer's KV cache splits over `tp` ranks: by K/V head up to their count (more
    /// ranks replicate); MLA's latent is shared by every head and replicated on every rank.
    pub fn kv_shards(&self, tp: u32) -> u64 {
        match self.attention {
            Attention::Mla { .. } => 1,
            _ => (tp as u64).min(self.kv_heads()).max(1),
        }
    }

    /// Weights of one attention block. MLA (DeepSeek-V2 §2.1): query down/up projections,
    /// the joint KV down projection with the RoPE key, the KV up projection to `heads x
    /// (head_dim + head_dim)` and the output projection.
    pub fn attn_params(&self) -> u64 {
        let w = &self.work;
        match self.attention {
            Attention::Mla { kv_latent, rope_dim, q_latent } => {
                let (h, n, d, r, c) = (w.hidden as u64, w.heads as u64, w.head_dim(), rope_dim as u64, kv_latent as u64);
                let q = if q_latent > 0 { h * q_latent as u64 + q_latent as u64 * n * (d + r) } else { h * n * (d + r) };
                q + h * (c + r) + c * n * (2 * d) + n * d * h
            }
            _ => w.attn_params(),
        }
    }

    /// Parameters of one routed expert (0 for a dense model).
    pub fn expert_params(&self) -> u64 {
        self.work.expert_params()
    }
    /// All routed experts' weights over the whole model.
    pub fn routed_params(&self) -> u64 {
        let e = self.work.moe.map_or(0, |m| m.experts as u64);
        self.work.moe_layer_count() as u64 * e * self.expert_params()
    }
    /// Weights every token passes through except the routed experts and the embeddings:
    /// attention, dense FFNs, shared experts and routers, norms.
    pub fn dense_params(&self) -> u64 {
        let w = &self.work;
        w.layers as u64 * (self.attn_params() + w.norm_params())
            + w.dense_layer_count() as u64 * w.dense_mlp_params()
            + w.moe_layer_count() as u64 * w.moe_shared_params()
    }
    /// The output projection (LM head), read once per step.
    pub fn lm_head_params(&self) -> u64 {
        self.work.vocab as u64 * self.work.hidden as u64
    }
    /// Every parameter: dense, routed experts, input embedding and LM head (untied: two tables).
    pub fn params(&self) -> u64 {
        let tables = if self.work.tied_embeddings { 1 } else { 2 };
        self.dense_params() + self.routed_params() + tables * self.lm_head_params()
    }
    /// Parameters one token passes through (top-k routed experts only), embeddings included.
    pub fn active_params(&self) -> u64 {
        let k = self.work.moe.map_or(0, |m| m.top_k as u64);
        let tables = if self.work.tied_embeddings { 1 } else { 2 };
        self.dense_params() + self.work.moe_layer_count() as u64 * k * self.expert_params() + tables * self.lm_head_params()
    }

    /// Attention-core FLOPs (scores and values) of one query token against `context` keys in
    /// one layer. MHA/GQA: `4 x heads x head_dim` per key. MLA with the up projections
    /// absorbed (decode, DeepSeek-V2 §2.1.3): scores over `kv_latent + rope_dim`, values over
    /// `kv_latent`, i.e. `2 x heads x (2 kv_latent + rope_dim)`; without absorption (prefill)
    /// `2 x heads x (2 head_dim + rope_dim)`.
    pub fn attn_core_flops(&self, context: f64, absorbed: bool) -> f64 {
        let w = &self.work;
        let per_key = match self.attention {
            Attention::Mla { kv_latent, rope_dim, .. } if absorbed => 2.0 * w.heads as f64 * (2.0 * kv_latent as f64 + rope_dim as f64),
            Attention::Mla { rope_dim, .. } => 2.0 * w.heads as f64 * (2.0 * w.head_dim() as f64 + rope_dim as f64),
            _ => 4.0 * w.heads as f64 * w.head_dim() as f64,
        };
        per_key * context
    }
}

#[cfg(test)]
mod tests {
    use crate::presets::serving_preset;

    #[test]
    fn deepseek_v3_counts_match_the_report() {
        // DeepSeek-V3 Technical Report, abstract: 671B total, 37B activated per token (the
        // 14B MTP module not included).
        let m = serving_preset("deepseek-v3").unwrap();
        let p = m.params() as f64 / 1e9;
        let a = m.active_params() as f64 / 1e9;
        assert!((p / 671.0 - 1.0).abs() < 0.01, "{p}");
        assert!((a / 37.0 - 1.0).abs() < 0.05, "{a}");
        // KV cache: (512 + 64) x 61 layers = 35,136 elements per token; BF16 70,272 bytes.
        assert_eq!(m.kv_bytes_per_token(2.0), 70_272.0);
    }

    #[test]
    fn llama_kv_bytes_are_the_textbook_figure() {
        // Llama 3 70B, GQA 8 x 128, 80 layers, BF16: 2 x 80 x 8 x 128 x 2 = 327,680 bytes.
        let m = serving_preset("llama3-70b").unwrap();
        assert_eq!(m.kv_bytes_per_token(2.0), 327_680.0);
        let p = m.params() as f64 / 1e9;
        assert!((p / 70.6 - 1.0).abs() < 0.01, "{p}");
    }
}
