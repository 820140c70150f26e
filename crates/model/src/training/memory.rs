//! Memory per GPU: weights, gradients and optimizer states by ZeRO stage; activations with no,
//! selective or full recompute (Korthikanti et al. 2022, §4, generalised to grouped-query
//! attention, gated MLPs, MoE and fused attention); the micro-batches the pipeline schedule
//! keeps in flight; a fixed runtime reserve. Compared with the GPU's HBM.
//!
//! Activation bytes per token of one layer, 16-bit, TP size `t`, no sequence parallelism
//! (with it, the first term is divided by `t` as well):
//! `(8 + 2d) h + (4 q + 4 kv + m(f)) / t + scores / t`, where `d` is 1 with dropout, `m(f)` is
//! `4f` for GeLU and `6f` for SwiGLU, and `scores` is `5 a s` (softmax output, dropout mask and
//! output; `2 a s` without dropout; none with fused attention). For GPT (`q = kv = h`,
//! `f = 4h`, dropout) this is Korthikanti's `34 + 5 a s / h` per `s b h`.

use super::framework::Framework;
use super::mapping::{Parallel, Recompute};
use super::workload::{Mlp, Workload};
use crate::catalog::GpuSpec;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// CUDA context, cuBLAS workspace, NCCL buffers of the step's communicators and allocator
/// slack, per GPU: a representative 2 GiB (context ~0.5 GiB; NCCL's default 4 MiB buffers
/// per channel and protocol over several communicators ~1 GiB).
pub const RUNTIME_RESERVE: u64 = 2 << 30;

/// Memory of one GPU (the fullest stage), bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryBreakdown {
    pub weights: Bytes,
    pub gradients: Bytes,
    pub optimizer: Bytes,
    pub activations: Bytes,
    pub reserved: Bytes,
    pub total: Bytes,
    /// HBM of the GPU (datasheet "GB" are GiB as `nvidia-smi` reports them).
    pub capacity: Bytes,
    pub fits: bool,
    /// Pipeline stage the figures are for (the fullest).
    pub stage: u32,
}

impl MemoryBreakdown {
    pub fn total_gib(&self) -> f64 {
        self.total.0 as f64 / (1u64 << 30) as f64
    }
    /// Bytes over capacity (0 when it fits).
    pub fn over(&self) -> Bytes {
        Bytes(self.total.0.saturating_sub(self.capacity.0))
    }
    /// Bytes left (0 when it does not fit).
    pub fn free(&self) -> Bytes {
        Bytes(self.capacity.0.saturating_sub(self.total.0))
    }
}

/// What memory needs to know about a stage.
#[derive(Clone, Copy, Debug)]
pub struct StageShape {
    pub params: StageParams,
    pub rank: u32,
}

impl StageShape {
    pub fn of(params: &StageParams, rank: u32, _pp: u32) -> StageShape {
        StageShape { params: *params, rank }
    }
}

/// Activation bytes of one layer for one micro-batch on one GPU.
pub fn layer_activation_bytes(w: &Workload, par: &Parallel, flash: bool, moe: bool, recompute: Recompute) -> f64 {
    let t = par.tp as f64;
    let tokens = par.micro_batch as f64 * w.seq as f64 / par.cp as f64;
    let sp = par.sp(w);
    let h = w.hidden as f64;
    let q = w.q_dim() as f64;
    let kv = w.kv_dim() as f64;
    let d = if w.dropout { 1.0 } else { 0.0 };
    let mlp_act = |f: f64| match w.mlp {
        Mlp::Gelu => 4.0 * f,
        Mlp::Swiglu => 6.0 * f,
    };
    if recompute == Recompute::Full {
        return tokens * 2.0 * h / if sp { t } else { 1.0 };
    }
    let non_tp = (8.0 + 2.0 * d) * h / if sp { t } else { 1.0 };
    let mlp = if moe {
        let m = w.moe.unwrap_or_default();
        let k = m.top_k as f64;
        // Dispatched copies (gathered over TP), expert intermediates (split over TP),
        // shared expert, router probabilities (FP32).
        k * 2.0 * h + k * mlp_act(m.expert_ffn as f64) / t + mlp_act(m.shared_ffn as f64) / t + 4.0 * m.experts as f64
    } else {
        mlp_act(w.ffn as f64) / t
    };
    // Q, K, V and the core's output (the output projection's input); selective recompute of
    // a fused core keeps only Q, K, V.
    let attn = if flash && recompute == Recompute::Selective { (2.0 * q + 4.0 * kv) / t } else { (4.0 * q + 4.0 * kv) / t };
    let a = w.heads as f64;
    let s = w.seq as f64;
    let scores = if flash {
        4.0 * a / t
    } else if recompute == Recompute::Selective {
        0.0
    } else {
        (2.0 + 3.0 * d) * a * s / t
    };
    tokens * (non_tp + attn + mlp + scores)
}

/// The memory of the fullest of `stages`.
pub fn memory(w: &Workload, par: &Parallel, fw: &Framework, flash: bool, m: u32, gpu: &GpuSpec, stages: &[StageShape]) -> MemoryBreakdown {
    let mut best = MemoryBreakdown::default();
    for st in stages {
        let mb = stage_memory(w, par, fw, flash, m, gpu, st);
        if mb.total >= best.total {
            best = mb;
        }
    }
    best
}

fn stage_memory(w: &Workload, par: &Parallel, fw: &Framework, flash: bool, m: u32, gpu: &GpuSpec, st: &StageShape) -> MemoryBreakdown {
    let p = &st.params;
    let dpcp = (par.dp * par.cp) as f64;
    let edp = par.expert_dp();
    let t = par.tp as f64;
    let z = par.zero;
    let weight_bytes = 2.0 + w.precision.weight_copy_bytes();
    let shard = |dense: f64, expert: f64| dense / dpcp + expert / edp;
    let (dense, expert) = (p.dense_params, p.expert_params);
    let mut weights = if z >= 3 { shard(dense, expert) } else { dense + expert } * weight_bytes;
    if z >= 3 {
        // The unit in use and the one being prefetched, gathered in full (BF16).
        let layer = (dense + expert) / (p.dense_layers + p.moe_layers).max(1) as f64;
        weights += 2.0 * fw.zero3_unit * layer * 2.0;
    }
    // ZeRO-2 with one gradient sync per step accumulates the full gradients first.
    let sharded_grads = z >= 3 || (z == 2 && !fw.grad_sync_once);
    let gradients = if sharded_grads { shard(dense, expert) } else { dense + expert } * fw.grad_bytes();
    let optimizer = if z >= 1 { shard(dense, expert) } else { dense + expert } * 12.0;

    // Activations: the micro-batches in flight on this rank (Megatron's schedules: warm-up
    // micro-batches + 1; interleaved counts chunks of L / (pp v) layers).
    let v = par.interleave.max(1);
    let pp = par.pp.max(1);
    let rank = st.rank.min(pp - 1);
    let layers = (p.dense_layers + p.moe_layers) as f64;
    // Chunks (of L / (pp v) layers) in flight on this rank, in u64: counts can be large.
    let chunks_in_flight = |m: u32| {
        let (pp, rank, v) = (pp as u64, rank as u64, v as u64);
        (2 * (pp - rank - 1) + (v - 1) * pp + 1).min(m as u64 * v)
    };
    let in_flight_layers = if v == 1 { (m.min(pp - rank)) as f64 * layers } else { chunks_in_flight(m) as f64 * layers / v as f64 };
    let per_dense = layer_activation_bytes(w, par, flash, false, par.recompute);
    let per_moe = layer_activation_bytes(w, par, flash, true, par.recompute);
    let per_layer = if layers > 0.0 { (p.dense_layers as f64 * per_dense + p.moe_layers as f64 * per_moe) / layers } else { 0.0 };
    let mut activations = in_flight_layers * per_layer;
    if par.recompute == Recompute::Full && layers > 0.0 {
        // The layer being recomputed holds its full activations during its backward.
        let moe_layer = p.moe_layers > 0;
        activations += layer_activation_bytes(w, par, flash, moe_layer, Recompute::None);
    }
    let sp = par.sp(w);
    let tokens = par.micro_batch as f64 * w.seq as f64 / par.cp as f64;
    if p.embedding {
        let d = if w.dropout { 1.0 } else { 0.0 };
        let flights = if v == 1 { m.min(pp - rank) as u64 } else { chunks_in_flight(m).div_ceil(v as u64) };
        activations += flights as f64 * tokens * (2.0 + d) * w.hidden as f64 / if sp { t } else { 1.0 };
    }
    if p.head {
        // BF16 logits and their FP32 copy for the loss, one micro-batch.
        activations += tokens * padded_vocab(w.vocab, par.tp) as f64 / t * 6.0;
    }
    let b = |x: f64| Bytes(x.max(0.0).round() as u64);
    let (weights, gradients, optimizer, activations) = (b(weights), b(gradients), b(optimizer), b(activations));
    let reserved = Bytes(RUNTIME_RESERVE);
    let total = Bytes([weights, gradients, optimizer, activations, reserved].iter().fold(0u64, |a, b| a.saturating_add(b.0)));
    let capacity = Bytes((gpu.hbm_gb * (1u64 << 30) as f64) as u64);
    MemoryBreakdown { weights, gradients, optimizer, activations, reserved, total, capacity, fits: total.0 <= capacity.0, stage: rank }
}

/// Parameters a GPU of one pipeline stage holds (after TP and EP, before ZeRO).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageParams {
    pub dense_layers: u32,
    pub moe_layers: u32,
    pub embedding: bool,
    pub head: bool,
    /// Parameters replicated over the DP x CP group (attention, dense MLP, router, shared
    /// experts, norms, embeddings), per GPU.
    pub dense_params: f64,
    /// Routed-expert parameters, per GPU (reduced over the expert-DP group).
    pub expert_params: f64,
}

impl StageParams {
    pub fn total(&self) -> f64 {
        self.dense_params + self.expert_params
    }
}

/// Megatron pads the vocabulary to a multiple of 128 x TP (`--make-vocab-size-divisible-by`).
pub fn padded_vocab(vocab: u32, tp: u32) -> u64 {
    let q = 128 * tp.max(1) as u64;
    (vocab as u64).div_ceil(q) * q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::presets::preset;

    /// Korthikanti et al. 2022, Table 2: activation bytes per layer.
    #[test]
    fn korthikanti_activation_formulas() {
        let w = preset("gpt3-175b").unwrap();
        let (s, h, a) = (w.seq as f64, w.hidden as f64, w.heads as f64);
        for (b, t) in [(1u32, 8u32), (4, 1), (2, 4)] {
            let base = Parallel { tp: t, micro_batch: b, sequence_parallel: false, ..Parallel::default() };
            let sbh = s * b as f64 * h;
            let tf = t as f64;
            let none = layer_activation_bytes(&w, &Parallel { recompute: Recompute::None, ..base }, false, false, Recompute::None);
            let want = sbh * (10.0 + 24.0 / tf + 5.0 * a * s / (h * tf));
            assert!((none / want - 1.0).abs() < 1e-12, "no recompute, t={t}: {none} vs {want}");
            if t > 1 {
                let sp = Parallel { sequence_parallel: true, ..base };
                let none_sp = layer_activation_bytes(&w, &sp, false, false, Recompute::None);
                let want = sbh / tf * (34.0 + 5.0 * a * s / h);
                assert!((none_sp / want - 1.0).abs() < 1e-12, "SP: {none_sp} vs {want}");
                let sel_sp = layer_activation_bytes(&w, &sp, false, false, Recompute::Selective);
                assert!((sel_sp / (sbh * 34.0 / tf) - 1.0).abs() < 1e-12, "SP + selective");
                let full_sp = layer_activation_bytes(&w, &sp, false, false, Recompute::Full);
                assert!((full_sp / (2.0 * sbh / tf) - 1.0).abs() < 1e-12, "SP + full");
            }
            let sel = layer_activation_bytes(&w, &base, false, false, Recompute::Selective);
            assert!((sel / (sbh * (10.0 + 24.0 / tf)) - 1.0).abs() < 1e-12, "selective");
            let full = layer_activation_bytes(&w, &base, false, false, Recompute::Full);
            assert!((full / (2.0 * sbh) - 1.0).abs() < 1e-12, "full");
        }
    }
}
