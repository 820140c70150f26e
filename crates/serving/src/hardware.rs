//! Calibrated parameters of the serving step, one set per hardware class (never per row),
//! fitted on validation/serving.csv by crates/serving/tests/serving_accuracy.rs, which prints
//! every row against them (docs/serving-accuracy.md).

use fabricscope_model::catalog::{Arch, GpuSpec};
use serde::Serialize;

/// The GPU generations the parameters are fitted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HwClass {
    /// H100, H200, H800, H20, GH200.
    Hopper,
    /// B200, GB200, B300, GB300.
    Blackwell,
    /// Every other GPU: Hopper's parameters, no band ("not validated").
    Other,
}

impl HwClass {
    pub fn of(gpu: &GpuSpec) -> HwClass {
        match gpu.arch {
            Arch::Hopper => HwClass::Hopper,
            Arch::Blackwell => HwClass::Blackwell,
            _ => HwClass::Other,
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            HwClass::Hopper => "hopper",
            HwClass::Blackwell => "blackwell",
            HwClass::Other => "other",
        }
    }
}

/// One class's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Efficiency {
    /// Fraction of the datasheet HBM bandwidth that streaming the weights reaches
    /// (dimensionless).
    pub hbm: f64,
    /// Fraction of the datasheet HBM bandwidth that an FP8 weight GEMM outside the experts
    /// reaches streaming its weights at decode sizes (dimensionless); `hbm` applies to every
    /// other weight read (BF16 and FP4 GEMMs, the experts' grouped GEMMs).
    pub hbm_fp8: f64,
    /// Fraction of the datasheet HBM bandwidth the routed experts' grouped GEMMs reach
    /// streaming FP8 weights at decode sizes, their fixed cost included (dimensionless); other
    /// precisions take `hbm`. An engine whose MoE kernels are decomposed from measured tables
    /// (TensorRT-LLM: [`crate::engine::Engine::moe_kernels`]) takes its own share and fixed
    /// cost per MoE layer instead.
    pub hbm_fp8_experts: f64,
    /// Fraction of the dense tensor-core peak that serving matmuls reach (dimensionless).
    pub compute: f64,
    /// Fixed cost per layer per step, µs: kernel launches and the small kernels (norms, RoPE,
    /// sampling) that neither roofline term covers.
    pub layer_overhead_us: f64,
    /// Fraction of the HBM bandwidth that decode attention reaches reading a paged KV cache
    /// (blocks of 16-64 tokens per sequence, scattered; dimensionless).
    pub kv_hbm: f64,
    /// Host cost per sequence per step, µs: the engine's per-request work (scheduling,
    /// sampling, block tables; Python in the PyTorch-based engines) that grows with the batch.
    pub seq_overhead_us: f64,
}

/// Hopper: fitted on the 85 Hopper rows of validation/serving.csv the accuracy test expresses
/// whose engine is TensorRT-LLM or not stated (TensorRT-LLM perf-overview throughput on
/// H100/H200, the Qwen2.5-72B batch-1 decode of tenstorrent issue 143, DeepSeek's Day-6
/// decode): the grid point of least median |log error| with the per-operation roofline
/// (`FABRICSCOPE_FIT=1 cargo test -p fabricscope-serving --release --test serving_accuracy`),
/// then the per-layer cost refitted on the small-batch decode rows alone (the only ones that
/// can tell it). Units: shares dimensionless, costs µs. The per-sequence cost is the engine's
/// host work at the large batches of the max-load tables.
///
/// `hbm_fp8` is measured, not fitted: TensorRT-LLM's FP8 (per-tensor) GEMMs at decode sizes on
/// Hopper stream their weights at about half the HBM bandwidth, against about three quarters for
/// BF16 GEMMs of the same shapes. Source: NVIDIA aiconfigurator 0.12.0's GEMM tables, measured
/// with TensorRT-LLM 1.3.0rc20 (systems/data/{h100_sxm,h200_sxm}/gemm/trtllm/1.3.0rc20/
/// gemm_perf.parquet): the median over its 168 weight shapes of at least 2 x 10^7 elements of
/// weight bytes / time / datasheet bandwidth, M = 1 to 64 tokens: H100 FP8 0.49-0.53 (BF16
/// 0.76-0.79), H200 FP8 0.42-0.47 (BF16 0.71-0.75); 0.5 taken for the class. The experts'
/// block-FP8 grouped GEMMs reach about `hbm` in the same database's MoE tables
/// (systems/data/{h100_sxm,h200_sxm}/moe/trtllm/1.3.0rc20/moe_perf.parquet, DeepSeek-V3's shape,
/// balanced load, EP 8, 256-1,024 tokens: H100 0.71-0.82, H200 0.66-0.78), so
/// `hbm_fp8_experts` = `hbm` (for engines other than TensorRT-LLM, whose decomposition of the
/// same tables into a fixed cost and a streaming share is [`crate::engine::TRTLLM_MOE_HOPPER`]).
pub const HOPPER: Efficiency = Efficiency { hbm: 0.7, hbm_fp8: 0.5, hbm_fp8_experts: 0.7, kv_hbm: 0.9, compute: 0.55, layer_overhead_us: 5.0, seq_overhead_us: 8.0 };

/// Blackwell: fitted the same way on its 65 rows (TensorRT-LLM perf-overview on B200/GB200,
/// Azure ND GB200 v6's TensorRT-LLM runs, TensorRT-LLM tech blogs 1 and 3); the per-layer cost
/// on tech blog 1's two batch-1 DeepSeek-R1 decodes. FP4 matmuls reach a smaller share of their
/// (doubled) peak.
/// `hbm_fp8` is left at `hbm`: the same tables give B200 FP8 GEMMs about 0.31 of HBM at decode
/// sizes, but Blackwell's per-layer cost (50 µs) was fitted with the FP8 weights streamed at
/// `hbm`, and no Blackwell FP8 decode measurement at moderate batch is in validation/ to refit
/// the two apart. `hbm_fp8_experts` is measured: DeepSeek-V3's block-FP8 grouped expert GEMMs
/// (DeepGEMM) stream at 0.61-0.65 of HBM on B200 and 0.64-0.68 on GB200 (aiconfigurator
/// 0.12.0's TensorRT-LLM 1.3.0rc20 tables, systems/data/{b200_sxm,gb200}/moe/trtllm/1.3.0rc20/
/// moe_perf.parquet, balanced load, EP 8, 256-1,024 tokens: weight bytes per rank / time /
/// datasheet bandwidth); 0.65 taken. (At EP 16 and 32 the same tables fall to 0.41-0.59 as a
/// fixed cost of some 40 µs per MoE layer takes over: TensorRT-LLM's decomposition,
/// [`crate::engine::TRTLLM_MOE_BLACKWELL`], carries it; this share stays for the other engines.)
pub const BLACKWELL: Efficiency = Efficiency { hbm: 0.85, hbm_fp8: 0.85, hbm_fp8_experts: 0.65, kv_hbm: 0.6, compute: 0.4, layer_overhead_us: 50.0, seq_overhead_us: 8.0 };

/// The parameters of a class (Other takes Hopper's).
pub fn efficiency(class: HwClass) -> Efficiency {
    match class {
        HwClass::Blackwell => BLACKWELL,
        HwClass::Hopper | HwClass::Other => HOPPER,
    }
}

/// Share of the card's memory a serving engine may use for weights and KV cache
/// (dimensionless), the default of `--memory-fraction`: vLLM's default
/// `gpu_memory_utilization` = 0.9 (vLLM engine arguments), a fraction of the GPU's total
/// memory; the rest is activations, CUDA graphs and the allocator's slack.
pub const HBM_USABLE: f64 = 0.9;

/// Bytes in one GiB (2^30): serving counts memory in bytes and reports it in GiB, as the
/// training memory model does.
pub const GIB: f64 = (1u64 << 30) as f64;

/// Fixed memory per GPU held back beside the fraction, GiB, the default of `--reserve-gib`:
/// none (vLLM's fraction already leaves activations, CUDA graphs and the allocator's slack
/// outside it).
pub const DEFAULT_RESERVE_GIB: f64 = 0.0;

/// Largest reserve accepted, GiB (more than any card holds).
pub const MAX_RESERVE_GIB: f64 = 1024.0;

/// The card's memory, bytes: the catalog's `hbm_gb` read as GiB, as the training memory model
/// reads it (crates/model/src/training/memory.rs), so training and serving see one capacity
/// (an H100's 80 is 80 GiB, the 81,559 MiB `nvidia-smi` reports rounded).
pub fn hbm_capacity_bytes(gpu: &GpuSpec) -> f64 {
    gpu.hbm_gb * GIB
}

/// Largest batch (sequences per attention DP rank) an engine schedules at once at maximum
/// load (count): TensorRT-LLM's default `max_batch_size` of 2048 (TensorRT-LLM docs,
/// "Tuning Max Batch Size and Max Num Tokens").
pub const MAX_RUNTIME_BATCH: u32 = 2048;

/// Time of one small (decode-size, up to a few KiB) NCCL all-reduce across two 8-GPU nodes
/// over InfiniBand, µs: the floor under the collective model's prediction for a TP group that
/// spans nodes. Source: NVIDIA/nccl issue 1244 (raw nccl-tests, 2 nodes x 8 H20, 8x CX-7 NDR
/// per node, NCCL 2.21.5: 4 B to 1 KiB all ~46-48 µs, 47.6 µs at 8 B; validation/collectives-2.csv),
/// where NCCL's own tuning model, as `fabricscope_model::collective` reproduces it, gives
/// about 26 µs: the proxy thread's and the network's per-step costs it does not count.
pub const CROSS_NODE_SMALL_ALLREDUCE_IB_US: f64 = 47.6;

/// The same floor over AWS EFA, µs. Source: aws/aws-k8s-tester pull request 585 (p5.48xlarge,
/// 2 nodes x 8 H100, nccl-tests all_reduce 16-128 B: 68.4-69.3 µs;
/// validation/collectives-amd-efa.csv).
pub const CROSS_NODE_SMALL_ALLREDUCE_EFA_US: f64 = 68.4;

/// The floor of a small all-reduce across nodes on `nic`'s network, µs: EFA's measured figure
/// on EFA, InfiniBand's on every other RDMA or socket network (no published small-message
/// figure of its own in validation/).
pub fn cross_node_small_allreduce_us(nic: &fabricscope_model::catalog::NicSpec) -> f64 {
    match nic.family {
        fabricscope_model::catalog::NetFamily::Efa => CROSS_NODE_SMALL_ALLREDUCE_EFA_US,
        _ => CROSS_NODE_SMALL_ALLREDUCE_IB_US,
    }
}

/// The least time of an all-reduce over `ranks` GPUs placed `per_domain` to a scale-up domain,
/// µs: [`cross_node_small_allreduce_us`] when the group spans domains (its all-reduce crosses
/// the NICs), none inside one domain.
pub fn allreduce_floor_us(topo: &fabricscope_model::Topology, ranks: u32, per_domain: u32) -> f64 {
    if ranks > per_domain { cross_node_small_allreduce_us(topo.nic) } else { 0.0 }
}

/// Bytes per activation element on the TP all-reduce and the pipeline hops: BF16 (bytes).
pub const ACTIVATION_BYTES: f64 = 2.0;

/// What a prediction is compared against: the accuracy classes of the issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccuracyClass {
    /// Dense model, TP inside one NVLink domain.
    DenseTpNvlink,
    /// Dense model, TP across scale-up domains.
    DenseTpCross,
    /// MoE decode with expert parallelism over attention data parallelism.
    WideEp,
    /// KV cache moved between nodes.
    KvTransfer,
}

impl AccuracyClass {
    pub fn id(self) -> &'static str {
        match self {
            AccuracyClass::DenseTpNvlink => "dense TP inside NVLink",
            AccuracyClass::DenseTpCross => "dense TP across nodes",
            AccuracyClass::WideEp => "wide EP",
            AccuracyClass::KvTransfer => "KV transfer",
        }
    }
}

