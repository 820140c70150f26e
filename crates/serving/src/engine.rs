//! The serving engine a deployment runs on (TensorRT-LLM, vLLM, SGLang) as a model input: the
//! physical parameters that differ between engines on the same hardware. The roofline's
//! efficiencies and the per-layer and per-sequence costs of a hardware class
//! ([`crate::hardware::Efficiency`]) are TensorRT-LLM's (the rows they were fitted on are its
//! max-load tables); another engine scales the two host-side costs by its own factors, fitted by
//! [`fit_scale`] on its rows of validation/serving.csv (tests/serving_accuracy.rs calls it and
//! fails when the constants below differ from what it gives). The all-reduce and the KV
//! transfer are the engines' libraries: inside one NVLink domain every engine runs its own
//! custom all-reduce kernel or NCCL, modelled by the collective model alike; across nodes all
//! three run NCCL ([`crate::step`]'s cross-node floor); a disaggregated KV handoff goes through
//! the engine's transfer connector ([`EngineParams::kv_request_us`],
//! [`EngineParams::kv_post_per_block_us`], [`EngineParams::kv_block_tokens`]).

use serde::{Deserialize, Serialize};

/// The engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// NVIDIA TensorRT-LLM (C++ runtime, CUDA graphs, overlap scheduler): the default, since
    /// 149 of the 193 published rows the model is checked on are TensorRT-LLM runs.
    #[default]
    Trtllm,
    /// vLLM (V1 engine, CUDA graphs, NIXL connector for disaggregation).
    Vllm,
    /// SGLang 0.5 and later (CUDA graphs, Mooncake or NIXL for disaggregation).
    Sglang,
    /// SGLang's 0.4 releases (to August 2025): the same engine with the per-layer kernel costs
    /// it had then at small batch, about three times today's on DeepSeek's MoE layers.
    #[serde(rename = "sglang-0.4")]
    Sglang04,
}

/// Every engine, in the order the CLI lists them.
pub const ENGINES: [Engine; 4] = [Engine::Trtllm, Engine::Vllm, Engine::Sglang, Engine::Sglang04];

impl Engine {
    pub fn id(self) -> &'static str {
        match self {
            Engine::Trtllm => "trtllm",
            Engine::Vllm => "vllm",
            Engine::Sglang => "sglang",
            Engine::Sglang04 => "sglang-0.4",
        }
    }
    pub fn ids() -> Vec<&'static str> {
        ENGINES.iter().map(|e| e.id()).collect()
    }
    /// Exact spelling (case-insensitive): trtllm, vllm, sglang, sglang-0.4.
    pub fn from_id(s: &str) -> Option<Engine> {
        ENGINES.iter().copied().find(|e| e.id().eq_ignore_ascii_case(s.trim()))
    }
    pub fn params(self) -> EngineParams {
        match self {
            Engine::Trtllm => TRTLLM,
            Engine::Vllm => VLLM,
            Engine::Sglang => SGLANG,
            Engine::Sglang04 => SGLANG_0_4,
        }
    }
}

/// One engine's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EngineParams {
    /// Cost per MoE layer per step added to the hardware class's per-layer cost, µs: the
    /// routing, top-k, permutation and grouped-expert kernels beyond TensorRT-LLM's. Only MoE
    /// layers: the one engine with a fitted value has it from an MoE model's rows alone.
    pub moe_layer_us: f64,
    /// Factor on the hardware class's per-sequence host cost per step (dimensionless):
    /// scheduling, sampling and block tables.
    pub seq_scale: f64,
    /// Fixed host cost of one KV handoff through the engine's connector, µs (request
    /// metadata, registration lookup, the completion notification).
    pub kv_request_us: f64,
    /// Host cost of posting one block descriptor of a paged KV handoff, µs.
    pub kv_post_per_block_us: f64,
    /// Tokens per KV cache block the engine's paged cache uses by default (count).
    pub kv_block_tokens: u32,
    /// Whether the engine, by default, splits a wide-EP decode batch into two micro-batches
    /// whose EP dispatch and combine hide behind each other's compute (DeepSeek's "dual
    /// micro-batch overlap"). `--overlap` overrides it.
    pub micro_batch_overlap: bool,
}

/// TensorRT-LLM: the reference (no added per-MoE-layer cost, per-sequence factor 1: the hardware
/// classes' costs were fitted on its tables). KV: `tokens_per_block` 32 (TensorRT-LLM `KvCacheConfig` default); the handoff's
/// per-block and per-request costs are NIXL's over UCX (LMCache pull request 4161, see
/// [`crate::kv::NIXL_POST_PER_DESCRIPTOR`]: 0.83 µs per descriptor, about 10 µs per request),
/// TensorRT-LLM's default transceiver backend being NIXL or UCX. No two-micro-batch overlap:
/// its PyTorch DeepSeek-V3 model (tensorrt_llm/_torch/models/modeling_deepseekv3.py,
/// `DeepseekV3Model.forward`) runs every decoder layer over the whole batch, and a MoE layer
/// runs routing, dispatch, the grouped expert GEMMs and combine in turn; only the shared expert
/// runs beside them on an auxiliary stream (`maybe_execute_in_parallel`, `AuxStreamType.MoeShared`).
pub const TRTLLM: EngineParams = EngineParams { moe_layer_us: 0.0, seq_scale: 1.0, kv_request_us: 10.0, kv_post_per_block_us: 0.83, kv_block_tokens: 32, micro_batch_overlap: false };

/// vLLM: the per-sequence factor fitted by [`fit_scale`] on its two large-batch rows (vLLM's
/// GB200 wide-EP decode and GB300 EP2 max-load posts); no small-batch row, so no added
/// per-layer cost. Refitted (from 2.8) when its wide-EP rows took vLLM's own EP path (all-gather
/// and reduce-scatter, no two-micro-batch overlap, [`crate::step`]): the GB200 post runs vLLM's
/// async scheduling, which hides host work behind the GPU's. KV: `--block-size` 16 (vLLM's
/// default on CUDA); the NIXL connector's posting 3.75 µs per descriptor (vLLM RFC 50913: NIXL
/// telemetry inside vLLM, 1,785 descriptors posted in 6.7 ms), per request the same ~10 µs as
/// NIXL's (LMCache pull request 4161). Dual batch overlap off by default (vLLM
/// `ParallelConfig.enable_dbo = False`; its GB200 wide-EP post of 2026-02-03 lists
/// compute-communication overlap as future work).
pub const VLLM: EngineParams = EngineParams { moe_layer_us: 0.0, seq_scale: 0.5, kv_request_us: 10.0, kv_post_per_block_us: 3.75, kv_block_tokens: 16, micro_batch_overlap: false };

/// SGLang 0.5 and later: both host-side costs fitted by [`fit_scale`] on its rows,
/// DeepSeek-R1-0528 FP8 at TP 8 (one at TP 4) inside one node (SGLang's DeepSeek-R1 cookbook, 8
/// B200, v0.5.6.post1, concurrency 1; SemiAnalysis InferenceX's published baselines, v0.5.12 on
/// 8 B200 at concurrency 1-4 and 8 H200 at 4-64). The per-MoE-layer cost from the rows of batch
/// 8 or less: 60 µs, a fifth of what the 0.4 releases cost ([`SGLANG_0_4`]). The per-sequence
/// factor from the larger batches: 0.25, the grid's lowest value (a wider grid goes to 0.06):
/// SGLang's overlap scheduler prepares the next batch on the CPU while the GPU runs this one, so
/// little of the per-sequence host cost stays on the step. KV: `--page-size` 1 by default, but
/// the Mooncake/NIXL backends send per-layer contiguous spans of a request's pages: taken as
/// vLLM's 16-token blocks and NIXL's posting cost (0.83 µs, LMCache pull request 4161), ~10 µs
/// per request. Two-batch overlap off by default (SGLang server argument
/// `--enable-two-batch-overlap`, default false).
pub const SGLANG: EngineParams = EngineParams { moe_layer_us: 60.0, seq_scale: 0.25, kv_request_us: 10.0, kv_post_per_block_us: 0.83, kv_block_tokens: 16, micro_batch_overlap: false };

/// SGLang's 0.4 releases: the added per-MoE-layer cost fitted by [`fit_scale`] on its rows, all
/// batch 1 (tenstorrent issue 356, 2025-07-09, before 0.5: DeepSeek-R1-0528 at concurrency 1 on
/// 16 H100, one source), its MLA and MoE layers' small kernels at batch 1 then; no large-batch
/// row, so the per-sequence factor is 1. Those rows cross two nodes, but the network is not what
/// makes them slow: SGLang issue 3956 (March 2025, about v0.4.3) reports 33.6 tokens/s at batch
/// 1 on one node (8 H200 by its author's later comment) and 37 on two H20 nodes at TP 16, one
/// and two nodes alike, at the level of these runs (23 ms per token), where 0.5 releases take
/// 7-10 ms on one node. The
/// KV connector as [`SGLANG`].
pub const SGLANG_0_4: EngineParams = EngineParams { moe_layer_us: 300.0, seq_scale: 1.0, ..SGLANG };

/// An engine's fused MoE layer on a hardware class, as its measured kernel tables decompose it:
/// a cost per MoE layer per step that does not depend on how many experts a rank holds
/// (routing and top-k, permuting the tokens to their experts and back, the grouped GEMM's
/// launch, the finalize that weights and sums the experts' outputs), plus the experts' FP8
/// weights streamed at a share of the HBM bandwidth. Beside the roofline of the touched
/// experts ([`crate::step`]): the fixed cost is added per MoE layer, the share replaces the
/// class's `hbm_fp8_experts` (bytes over time with the fixed cost inside, from the same
/// tables). The two are fitted together and apply together, to FP8 experts only (the tables
/// decomposed are block FP8; other precisions keep the class's share, fitted on published rows
/// that hold their fixed cost).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MoeKernels {
    /// Cost per MoE layer per step independent of the experts per rank, µs.
    pub fixed_us: f64,
    /// Share of the datasheet HBM bandwidth at which the grouped GEMMs stream FP8 expert
    /// weights beyond the fixed cost (dimensionless).
    pub fp8_stream_share: f64,
}

/// TensorRT-LLM's fused MoE on Hopper (H100, H200; other GPUs take Hopper's values as for
/// [`crate::hardware::efficiency`]): CUTLASS block-FP8 grouped GEMMs (`moe_torch_flow_cutlass`).
/// The mean over H100 and H200 of [`fit_moe_kernels`] over their rows of
/// validation/trtllm-moe-kernels.csv (NVIDIA aiconfigurator 0.12.0's TensorRT-LLM 1.3.0rc20
/// tables, systems/data/{h100_sxm,h200_sxm}/moe/trtllm/1.3.0rc20/moe_perf.parquet: DeepSeek-V3's
/// expert shape, block FP8, balanced load, MoE TP 1, EP 8-256, 32-4,096 tokens over the EP group,
/// 108 rows per GPU), rounded to 1 µs and 0.01; tests/moe_kernels.rs fails when these differ
/// from what the fit gives. Per GPU: H100 38.3 µs at 0.80, H200 37.1 µs at 0.75.
pub const TRTLLM_MOE_HOPPER: MoeKernels = MoeKernels { fixed_us: 38.0, fp8_stream_share: 0.78 };

/// TensorRT-LLM's fused MoE on Blackwell (B200, GB200): DeepGEMM block-FP8 grouped GEMMs
/// (`deepgemm`), fitted as [`TRTLLM_MOE_HOPPER`] over the B200 and GB200 rows of the same file
/// (systems/data/{b200_sxm,gb200}/moe/trtllm/1.3.0rc20/moe_perf.parquet). Per GPU: B200 40.4 µs
/// at 0.71, GB200 39.2 µs at 0.75.
pub const TRTLLM_MOE_BLACKWELL: MoeKernels = MoeKernels { fixed_us: 40.0, fp8_stream_share: 0.73 };

impl Engine {
    /// The engine's MoE kernels as measured on `class`; `None` where no measured table
    /// decomposes them (vLLM and SGLang: their MoE layers keep the class's share and the
    /// engine's fitted [`EngineParams::moe_layer_us`]).
    pub fn moe_kernels(self, class: crate::hardware::HwClass) -> Option<MoeKernels> {
        use crate::hardware::HwClass;
        match (self, class) {
            (Engine::Trtllm, HwClass::Blackwell) => Some(TRTLLM_MOE_BLACKWELL),
            (Engine::Trtllm, HwClass::Hopper | HwClass::Other) => Some(TRTLLM_MOE_HOPPER),
            _ => None,
        }
    }
}

/// One row of a measured MoE kernel table: one rank's MoE layer (its `experts / ep` experts,
/// every one touched) at `tokens` tokens over the EP group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoeKernelRow {
    /// Tokens entering the layer over the EP group (count).
    pub tokens: u32,
    /// Expert-parallel ranks (count).
    pub ep: u32,
    /// Routed experts of the layer (count).
    pub experts: u32,
    /// Experts each token is routed to (count).
    pub top_k: u32,
    /// Weight bytes of one expert (bytes).
    pub expert_bytes: f64,
    /// Measured latency of the layer on one rank, µs.
    pub latency_us: f64,
}

/// Most tokens per expert (`tokens x top_k / experts`) of the table rows [`fit_moe_kernels`]
/// fits (count): 128, DeepSeek-V3's 4,096 tokens over the EP group, the largest decode step of
/// the side-by-side set (validation/serving-peer.csv: 256-4,096 tokens per step over the
/// stage). Narrower (8, 256 tokens) gives a purer intercept (29-31 µs) but, with no term for the
/// work that grows with tokens, misses the table by 8-50% at 512-4,096 tokens
/// (tests/moe_kernels.rs compares the two on the table's own rows).
pub const MOE_FIT_MAX_TOKENS_PER_EXPERT: u32 = 128;

/// Decomposes a measured MoE kernel table into [`MoeKernels`] over decode token counts:
/// [`fit_moe_kernels_upto`] at [`MOE_FIT_MAX_TOKENS_PER_EXPERT`].
pub fn fit_moe_kernels(rows: &[MoeKernelRow], hbm_gbs: f64) -> Option<MoeKernels> {
    fit_moe_kernels_upto(rows, hbm_gbs, MOE_FIT_MAX_TOKENS_PER_EXPERT)
}

/// The least-squares line of the latency against the expert weight bytes a rank holds
/// (`experts / ep x expert_bytes`) over the rows where every expert is touched
/// (`tokens x top_k >= experts`), at most `max_per_expert` tokens per expert, EP 8 and more.
/// Its intercept is what the layer costs whatever its experts (µs), its slope the streaming
/// rate, given as a share of `hbm_gbs` (GB/s). `None` with fewer than 3 such rows or no spread
/// in bytes.
pub fn fit_moe_kernels_upto(rows: &[MoeKernelRow], hbm_gbs: f64, max_per_expert: u32) -> Option<MoeKernels> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.ep >= 8 && r.tokens * r.top_k >= r.experts && r.tokens * r.top_k <= max_per_expert * r.experts)
        .map(|r| (r.experts as f64 / r.ep as f64 * r.expert_bytes, r.latency_us))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx; // µs per byte
    Some(MoeKernels { fixed_us: my - slope * mx, fp8_stream_share: 1.0 / (slope * hbm_gbs * 1e3) })
}

/// Candidate per-sequence factors [`fit_scale`] tries (dimensionless): 0.25 to 16 in steps of
/// 2^(1/4) rounded to two significant figures, so a fitted constant reads as a round number.
pub fn scale_grid() -> Vec<f64> {
    (-8..=16)
        .map(|i| {
            let v = 2f64.powf(i as f64 / 4.0);
            let mag = 10f64.powf(v.log10().floor() - 1.0);
            // Two significant figures, exactly as written (0.59, 1.2, 14).
            format!("{:.2}", (v / mag).round() * mag).parse().unwrap_or(v)
        })
        .collect()
}

/// Candidate added per-MoE-layer costs [`fit_scale`] tries, µs: 0 to 400.
pub fn layer_us_grid() -> Vec<f64> {
    vec![0.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 80.0, 100.0, 120.0, 150.0, 200.0, 250.0, 300.0, 400.0]
}

/// The value of `grid` with the least median |log(predicted / measured)| over an engine's
/// rows, `err(s)` giving those log errors at value `s` (one value for the engine, never per
/// row); ties go to the value nearest `neutral` (the reference engine's). `None` without rows.
pub fn fit_scale(grid: &[f64], neutral: f64, err: impl Fn(f64) -> Vec<f64>) -> Option<f64> {
    let mut best: Option<(f64, f64)> = None;
    for &s in grid {
        let mut e: Vec<f64> = err(s).into_iter().map(f64::abs).filter(|v| v.is_finite()).collect();
        if e.is_empty() {
            return None;
        }
        e.sort_by(|a, b| a.total_cmp(b));
        let n = e.len();
        let m = if n % 2 == 1 { e[n / 2] } else { (e[n / 2 - 1] + e[n / 2]) / 2.0 };
        let better = match best {
            None => true,
            Some((bm, bs)) => m < bm - 1e-12 || ((m - bm).abs() <= 1e-12 && (s - neutral).abs() < (bs - neutral).abs()),
        };
        if better {
            best = Some((m, s));
        }
    }
    best.map(|b| b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_the_default_is_trtllm() {
        for e in ENGINES {
            assert_eq!(Engine::from_id(e.id()), Some(e));
        }
        assert_eq!(Engine::from_id("TRTLLM"), Some(Engine::Trtllm));
        assert_eq!(Engine::from_id("tensorrt"), None);
        assert_eq!(Engine::default(), Engine::Trtllm);
        assert_eq!(Engine::ids(), vec!["trtllm", "vllm", "sglang", "sglang-0.4"]);
        assert_eq!(Engine::from_id("SGLang-0.4"), Some(Engine::Sglang04));
    }

    #[test]
    fn the_fit_takes_the_least_median_error() {
        let g = scale_grid();
        assert!(g.contains(&1.0) && g.contains(&2.0) && g.contains(&16.0) && g.contains(&0.25), "{g:?}");
        // Errors ln(s / 4) on three rows: the fit lands on 4.
        assert_eq!(fit_scale(&g, 1.0, |s| vec![(s / 4.0).ln(); 3]), Some(4.0));
        assert_eq!(fit_scale(&g, 1.0, |_| vec![]), None);
        // Flat errors: the neutral value.
        assert_eq!(fit_scale(&layer_us_grid(), 0.0, |_| vec![0.1]), Some(0.0));
    }
}
