//! What a step evaluation produces, as plain data: per-layer and per-stage compute, a
//! layout's group spans and communicators, per-micro-batch costs, the step's breakdown and
//! the report the explorer and CLI show. The arithmetic that fills them is in step.rs; the
//! sentence that explains them is in explain.rs.

use super::comm::CommId;
use super::mapping::{Group, GroupSpan, Parallel, SpanTier};
use super::memory::{MemoryBreakdown, StageParams};
use crate::units::{Micros, Tflops};
use serde::{Deserialize, Serialize};

/// Kernel times of one transformer layer, per micro-batch, per GPU, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerCompute {
    pub fwd: f64,
    pub bwd: f64,
    /// Forward of the attention core (what selective recompute reruns).
    pub core_fwd: f64,
    /// Attention-core forward and backward time (what CP's ring exchange overlaps).
    pub attn_fwd: f64,
    pub attn_bwd: f64,
    /// Weights of this layer on one GPU (after TP and EP).
    pub params: f64,
    /// Matmul time of the forward and backward (what TP communication overlap hides behind).
    pub gemm_fwd: f64,
    pub gemm_bwd: f64,
    /// Routed-expert part of an MoE layer (grouped GEMMs and their activation), forward and
    /// backward: the `mlp` node of Megatron-Core's 1F1B all-to-all overlap, the rest of the
    /// layer being its attention/router (`pre_dispatch`) node. Zero in a dense layer.
    pub expert_fwd: f64,
    pub expert_bwd: f64,
}

/// Kernel times of everything a stage may hold, per micro-batch, per GPU, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageCompute {
    pub dense: LayerCompute,
    pub moe: LayerCompute,
    pub embed_fwd: f64,
    pub embed_bwd: f64,
    pub head_fwd: f64,
    pub head_bwd: f64,
    /// Output-layer weights on one GPU.
    pub head_params: f64,
}

/// What depends on the sizes of TP, CP, EP, PP, DP and the rank order.
#[derive(Clone, Debug)]
pub struct Layout {
    pub par: Parallel,
    pub spans: [GroupSpan; 6],
    pub ids: [Option<CommId>; 6],
    /// First, middle (typical) and last stage.
    pub stages: [StageParams; 3],
    /// Per-step DP collectives of stage 0 in µs, without overlap: gradient all-reduce (ZeRO
    /// 0), gradient reduce-scatter (ZeRO 1), parameter all-gather (ZeRO 1 and 2).
    pub grad_allreduce: f64,
    pub grad_reduce_scatter: f64,
    pub param_all_gather: f64,
    /// Tied-embedding gradient all-reduce between first and last stage (PP > 1).
    pub embed_sync: f64,
    /// SMs the DP collectives occupy while they overlap compute.
    pub dp_sm_fraction: f64,
    /// Per-layer parameters (per GPU after TP/EP) gathered by ZeRO-3: dense layer; MoE layer
    /// non-expert part; MoE layer experts.
    pub z3_dense: f64,
    pub z3_moe_shared: f64,
    pub z3_moe_experts: f64,
}

/// What additionally depends on the micro-batch size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Micro {
    pub micro_batch: u32,
    /// Micro-batches per step per pipeline.
    pub m: u32,
    pub compute: StageCompute,
    /// Exposed collectives per layer per micro-batch, µs (forward; backward).
    pub tp_dense: (f64, f64),
    pub tp_moe: (f64, f64),
    pub cp: (f64, f64),
    pub ep: (f64, f64),
    /// One pipeline send/receive of activations, µs.
    pub p2p: f64,
    /// ZeRO-3 per-layer collectives, µs: (all-gather, reduce-scatter) for a dense layer and
    /// for an MoE layer.
    pub z3_dense: (f64, f64),
    pub z3_moe: (f64, f64),
}

/// Step time by component, µs. The components add up to the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Kernels of the slowest stage (matmuls, attention, elementwise, recompute), all
    /// micro-batches.
    #[serde(rename = "compute_us")]
    pub compute: Micros,
    /// Exposed tensor-parallel collectives.
    #[serde(rename = "tp_us")]
    pub tp: Micros,
    /// Pipeline fill and drain.
    #[serde(rename = "bubble_us")]
    pub bubble: Micros,
    /// Exposed pipeline sends and receives.
    #[serde(rename = "pp_p2p_us")]
    pub pp_p2p: Micros,
    /// Exposed data-parallel (and ZeRO/FSDP) traffic, incl. SMs lost to overlapped traffic.
    #[serde(rename = "dp_us")]
    pub dp: Micros,
    /// Exposed context-parallel K/V ring.
    #[serde(rename = "cp_us")]
    pub cp: Micros,
    /// Expert-parallel all-to-all dispatch and combine.
    #[serde(rename = "ep_us")]
    pub ep: Micros,
    #[serde(rename = "optimizer_us")]
    pub optimizer: Micros,
}

impl Breakdown {
    pub fn total(&self) -> Micros {
        self.compute + self.tp + self.bubble + self.pp_p2p + self.dp + self.cp + self.ep + self.optimizer
    }
    /// (id, label, value) of every component.
    pub fn parts(&self) -> [(&'static str, &'static str, Micros); 8] {
        [
            ("compute", "compute", self.compute),
            ("tp", "TP collectives", self.tp),
            ("bubble", "pipeline bubble", self.bubble),
            ("pp_p2p", "pipeline send/receive", self.pp_p2p),
            ("dp", "DP traffic", self.dp),
            ("cp", "CP K/V ring", self.cp),
            ("ep", "EP all-to-all", self.ep),
            ("optimizer", "optimizer step", self.optimizer),
        ]
    }
}

/// The numbers of one evaluated candidate: small, `Copy`, no strings (the search's currency).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub par: Parallel,
    pub m: u32,
    pub step: Micros,
    pub breakdown: Breakdown,
    pub memory: MemoryBreakdown,
}

/// One evaluated training step, as shown to users and serialized by the CLI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    pub mapping: Parallel,
    pub framework: String,
    pub micro_batches: u32,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    pub model_tflops_per_gpu: f64,
    pub hardware_tflops_per_gpu: f64,
    /// Model FLOPs utilisation against `peak_tflops`.
    pub mfu: f64,
    /// Hardware FLOPs utilisation against `peak_tflops`: MFU's FLOPs (the papers' model-FLOPs
    /// convention, full attention) plus what activation recompute reruns (Korthikanti et al.
    /// 2022, §6), so `hfu >= mfu` always and the two differ only by the recompute. Both count
    /// the causally masked attention blocks that fused kernels skip, so at long sequences
    /// either can pass the GPU's measured matmul ceiling.
    pub hfu: f64,
    /// The dense tensor-core peak of the job's precision.
    pub peak_tflops: Tflops,
    pub memory_gib_per_gpu: f64,
    pub fits: bool,
    pub breakdown: Breakdown,
    pub memory: MemoryBreakdown,
    pub groups: Vec<GroupReport>,
    /// The largest cost other than useful math, in one sentence.
    pub bottleneck: String,
    /// Median absolute error of the model on published runs of this prediction's class
    /// (framework family, dense or MoE, GPU generation), percent; `None` when none was
    /// validated (see `training/bands.csv`, docs/training-accuracy.md).
    #[serde(default)]
    pub error_band_pct: Option<f64>,
    /// Published runs of this class the band comes from (0 = not validated).
    #[serde(default)]
    pub validated_cases: u32,
    /// Fewest and most GPUs those runs used (`None` when not validated).
    #[serde(default)]
    pub band_measured_gpus: Option<[u32; 2]>,
    /// This job's GPU count lies outside them: the band is the class's, extrapolated.
    #[serde(default)]
    pub band_extrapolated: bool,
    /// The 90% interval held out by source (docs/calibration.md) as ratios measured /
    /// predicted `[lo, hi]` of the throughputs (tokens/s, MFU, TFLOP/s per GPU); the step
    /// time's interval is `[step / hi, step / lo]` ([`StepReport::step_time_interval`]).
    /// `None` where the shipped table has no level for the class.
    #[serde(default)]
    pub interval: Option<[f64; 2]>,
    /// An MoE step whose release is left open (`megatron-core`, `nemo`): its step time under
    /// the oldest NeMo release's MoE software (25.04, no CUDA graphs), s, which
    /// `interval` reaches down to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oldest_release_step_s: Option<f64>,
    /// Where the NIC's default routing is ECMP, the fraction of the network the data-parallel
    /// rings keep after hash collisions (`network::NetPath::ring_routing_fraction`, or the flow
    /// model's when it ran); `None` under adaptive routing.
    #[serde(default)]
    pub ecmp_ring_fraction: Option<f64>,
}

impl StepReport {
    /// The step's exposed communication, µs: TP, pipeline sends, DP, CP and EP's dispatch and
    /// combine (all of it timed on the fabric a calibration moves, `crate::fitted`).
    pub fn exposed_comm_us(&self) -> f64 {
        let b = &self.breakdown;
        b.tp.0 + b.pp_p2p.0 + b.dp.0 + b.cp.0 + b.ep.0
    }

    /// The step time's 90% interval, seconds (`[lo, hi]`).
    pub fn step_time_interval(&self) -> Option<[f64; 2]> {
        self.interval.map(|[lo, hi]| [self.step_time_s / hi, self.step_time_s / lo])
    }

    /// MFU's 90% interval (fractions of peak, `[lo, hi]`).
    pub fn mfu_interval(&self) -> Option<[f64; 2]> {
        self.interval.map(|[lo, hi]| [self.mfu * lo, self.mfu * hi])
    }

    /// How far to trust the step time and MFU, in words: "±5.4% (27 published runs at
    /// 8-6144 GPUs)", "extrapolated: ..." or "not validated against published runs".
    pub fn band_text(&self) -> String {
        match (self.error_band_pct, self.band_measured_gpus) {
            (Some(p), Some([lo, hi])) if self.band_extrapolated => {
                format!("extrapolated: ±{p:.1}% over {} published runs at {lo}-{hi} GPUs, this job is outside them", self.validated_cases)
            }
            (Some(p), Some([lo, hi])) => format!("±{p:.1}% ({} published runs at {lo}-{hi} GPUs)", self.validated_cases),
            _ => "not validated against published runs".to_string(),
        }
    }
}

/// Where one communication group sits and what it costs per step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupReport {
    pub group: Group,
    pub ranks: u32,
    pub per_domain: u32,
    pub domains: u32,
    pub tier: SpanTier,
    /// Groups sharing each NIC the collective model gives one group.
    pub net_share: f64,
    /// Exposed time of this group's traffic in the step, µs.
    pub exposed_us: f64,
}

