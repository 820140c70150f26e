//! What the training software does that changes cost: fused attention, which communication
//! it overlaps with compute, the precision of gradients. Facts about a framework release, not
//! tuning knobs: the calibration rows use the release their paper used.

use serde::{Deserialize, Serialize};

/// Training-software behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Framework {
    /// Short name shown in reports.
    #[serde(skip_deserializing)]
    pub name: &'static str,
    /// Fused (Flash) attention: scores are never written to HBM, causal blocks are skipped,
    /// and attention memory is linear in the sequence.
    pub flash_attention: bool,
    /// DP gradient reduction overlaps the last micro-batch's backward (bucketed).
    pub overlap_grad_reduce: bool,
    /// The parameter all-gather of a sharded optimizer overlaps the next forward (ZeRO 1/2),
    /// and ZeRO-3 prefetches each layer's parameters during the previous layer.
    pub overlap_param_gather: bool,
    /// Interleaved-pipeline sends and receives overlap steady-state compute.
    pub overlap_p2p: bool,
    /// Pipeline activations cross the network split over the TP ranks and are re-gathered
    /// over NVLink (Narayanan et al. 2021, §4.1 "scatter/gather").
    pub pp_scatter_gather: bool,
    /// Gradients are accumulated and reduced in FP32 (Megatron's main_grad); else in 16 bits.
    pub fp32_grads: bool,
    /// Parameters per gradient bucket: the last bucket's reduction cannot overlap compute.
    pub grad_bucket_params: u64,
    /// With sequence parallelism, the backward re-gather of each block's input (for the
    /// weight gradient) and the reduce-scatter of its input gradient run asynchronously under
    /// the matmuls (Megatron-Core's `LinearWithGradAccumulationAndAsyncCommunication`);
    /// else they are exposed.
    pub overlap_sp_backward: bool,
    /// Weight-gradient matmuls accumulate straight into the gradient buffer in their epilogue
    /// (Megatron's gradient-accumulation fusion); else autograd writes a fresh gradient and a
    /// separate kernel adds it to the accumulated one every micro-batch.
    pub fused_grad_accumulation: bool,
    /// ZeRO-3 gathers this fraction of a layer's weights at a time, and holds two such units
    /// (the one in use and the one prefetched): FSDP-style per-layer units are 1; DeepSpeed
    /// gathers per module, the largest of a GPT layer being the `h x 4h` MLP matrix, 1/3.
    pub zero3_unit: f64,
    /// The fused attention is a Hopper-generation kernel (FlashAttention-3, cuDNN/Transformer
    /// Engine fused attention); else a FlashAttention-2-generation kernel, which reaches only
    /// ~35% of H100's peak against FA3's up to 75% (Shah et al. 2024, FlashAttention-3,
    /// abstract). No difference on Ampere, where FA2 is the native kernel.
    pub hopper_attention: bool,
    /// Tensor-parallel all-gathers and reduce-scatters are pipelined with the GEMMs they feed
    /// (Transformer Engine userbuffers, Megatron-Core/NeMo `tp_comm_overlap`; Wang et al. 2023,
    /// "Overlap communication with dependent computation"); only what the GEMMs cannot cover,
    /// and the SMs the copies take, is exposed.
    pub overlap_tp_comm: bool,
    /// MoE dispatch and combine all-to-alls run under another micro-batch's compute
    /// (Megatron-Core's 1F1B all-to-all overlap, `--overlap-moe-expert-parallel-comm`;
    /// DeepSeek-V3's DualPipe, §3.2.1); else they are exposed.
    pub overlap_moe_a2a: bool,
    /// An EP group across nodes dispatches each token once per destination node, then fans it
    /// out over NVLink (DeepEP / HybridEP normal kernels behind Megatron-Core's `flex` token
    /// dispatcher, which the Megatron-Bridge MoE recipes select: perf_recipes/deepseek/
    /// common.py sets `moe_token_dispatcher_type = "flex"` with backend "deepep" or
    /// "hybridep"); else every routed copy crosses the network on its own (NCCL all-to-all,
    /// Megatron-Core's `alltoall` dispatcher, the default here).
    pub ep_node_dispatch: bool,
    /// The EP library whose normal (high-throughput) kernels run dispatch and combine, timed as
    /// `fabricscope ep --ep-library` times them for the layout's EP span (DeepEP, pplx-kernels,
    /// ...: `crate::ep::Library`); `None`: the exchange the training calibration was fitted
    /// with (NCCL all-to-all, or the hierarchical exchange with `ep_node_dispatch`). A CLI
    /// input (`--ep-library`), not part of a page's link: skipped by serde.
    #[serde(skip)]
    pub ep_library: Option<crate::ep::Library>,
    /// Share of the FP4/FP8 tensor-core peak ratio an NVFP4 GEMM keeps over the FP8 GEMM of
    /// the same shape (dimensionless, [`NVFP4_SHARE`]); a CLI input's parameter, not part of a
    /// page's link.
    #[cfg(feature = "software")]
    #[serde(skip, default = "nvfp4_share")]
    pub nvfp4_share: f64,
    /// FSDP/ZeRO-3 frees gathered parameters after the forward and gathers them again for the
    /// backward (`reshard_after_forward=True`, PyTorch FSDP2 default; ZeRO-3); with ZeRO stage
    /// 2 semantics the parameters stay gathered until the backward.
    pub reshard_after_forward: bool,
    /// Context parallelism all-gathers K and V before the attention (Llama 3 §3.3.2;
    /// torchtitan's default `context_parallel_rotate_method = "allgather"`), exposed; else
    /// ring attention passes K/V blocks around the CP ring under the attention they feed
    /// (Megatron-Core/Transformer Engine `cp_comm_type = "p2p"`; Liu et al. 2023, Ring
    /// Attention).
    pub cp_all_gather: bool,
    /// Fraction of the NCCL collective model's bandwidth the ZeRO-3 parameter gathers and
    /// gradient scatters reach (1 for bucketed, flat-buffer implementations). DeepSpeed's 2021
    /// ZeRO-3 gathered parameter by parameter: Narayanan et al. 2021 Table 2 shows flat step
    /// times from 768 to 1536 GPUs, i.e. a per-GPU rate ~1/8 of what NCCL's rings reach on
    /// DGX A100 (0.17 of the expected, measured-like collective time of `collective::network`,
    /// fitted on those 6 rows, the only ones of the class).
    pub zero3_collective_efficiency: f64,
    /// Elementwise kernels are fused by a compiler (torch.compile: norm, activation, residual
    /// and rotary in fewer kernels moving fewer bytes); Megatron-Core's hand-fused kernels (TE)
    /// count as fused too.
    pub fused_elementwise: bool,
    /// Host time per layer per micro-batch that the GPU waits for, µs: Python dispatch of the
    /// layer and, for FSDP, its pre/post forward and backward hooks (eager PyTorch issues
    /// each of ~100 kernels of a layer from Python; CUDA graphs or a compiled graph remove
    /// most of it).
    pub layer_overhead_us: f64,
    /// Host time per MoE layer per micro-batch (forward and backward together), µs, added to
    /// `layer_overhead_us` for MoE layers: the router, permutation and per-expert kernels that
    /// a release launches one by one from Python, outside CUDA graphs, around the
    /// device-to-host sync that reads the tokens per expert. 0 for a release whose partial
    /// CUDA graphs capture attention, router and EP preprocessing (what the calibration rows
    /// of 25.11 and later ran); see [`NemoRelease`]. A property of the release the framework
    /// id names, not part of a page's link: skipped by serde.
    #[serde(skip)]
    pub moe_layer_host_us: f64,
    /// Host time per optimizer step outside the layers, µs: data loading, loss and gradient-
    /// norm reductions, logging (all sources report end-to-end iteration times).
    pub step_overhead_us: f64,
    /// The interleaved pipeline schedule runs any number of micro-batches, not only multiples
    /// of PP (Llama 3 §3.3.2, "Batch size constraint": the modified schedule "can run an
    /// arbitrary number of micro-batches in each batch"; bubble (PP-1)/(V M) as for Megatron's).
    pub flexible_interleave: bool,
    /// With ZeRO-2 sharding, gradients accumulate unsharded in FP32 over the micro-batches and
    /// are reduce-scattered once, after the last backward, instead of after every micro-batch
    /// (Llama 3 §3.3.2: "FP32 gradient accumulation during backward computation over multiple
    /// micro-batches and also reduce-scatter gradients in FP32"; PyTorch's pipelining syncs
    /// FSDP gradients only on the last micro-batch's backward). Costs the full FP32 gradient
    /// buffer in memory, saves (m - 1) reduce-scatters per step.
    pub grad_sync_once: bool,
    /// The pipeline engine has an interleaved (virtual-stage) schedule; DeepSpeed's
    /// PipelineEngine runs plain 1F1B only (DeepSpeed docs, "Pipeline Parallelism": one
    /// `TrainSchedule`, the synchronous 1F1B of PipeDream-Flush).
    pub pipeline_interleave: bool,
}

/// Host time per layer per micro-batch with fused kernels or a compiled graph, µs: the
/// launches of a few dozen kernels at ~3 µs each that the GPU does not fully hide (PyTorch
/// eager launch latency ~5-10 µs per op; CUDA-graph-free Megatron layers issue ~30 kernels).
const LAYER_OVERHEAD_FUSED_US: f64 = 30.0;
/// Host time per layer per micro-batch in eager PyTorch with FSDP hooks, µs: ~100 ops at
/// ~5 µs of Python and dispatcher each, plus FSDP2's pre/post forward and backward hooks
/// (copy-in/copy-out of the all-gather buffers).
const LAYER_OVERHEAD_EAGER_US: f64 = 300.0;
/// Host time per optimizer step outside the layers (data loader, loss and grad-norm
/// reductions, logging), µs.
const STEP_OVERHEAD_US: f64 = 20_000.0;

/// Share of the FP4/FP8 peak ratio ([`super::efficiency::fp4_over_fp8`]: 2 on Blackwell, 3 on
/// Blackwell Ultra) that Transformer Engine's NVFP4 recipe keeps in Megatron-Core's linear
/// layers, over the FP8 GEMM of the same shape (dimensionless): what the quantization (E2M1
/// with a scale per 16 elements, 16x16 blocks for the weights), the random Hadamard transform
/// of the weight-gradient inputs and stochastic rounding of the gradients leave of the faster
/// tensor cores. Fitted on the NVFP4 rows of validation/training-blackwell.csv the model
/// expresses (Megatron-Bridge performance summary, NeMo 26.02.01-26.06: Llama 3 70B and 3.1
/// 405B on GB200 and GB300 racks, 5 rows) by tests/training_accuracy.rs
/// `nvfp4_share_is_fitted`, which fails when this differs from the fit by more than 0.01.
#[cfg(feature = "software")]
pub const NVFP4_SHARE: f64 = 0.7;

#[cfg(feature = "software")]
fn nvfp4_share() -> f64 {
    NVFP4_SHARE
}

/// DeepSpeed 2021 ZeRO-3 gathers at this fraction of NCCL's ring bandwidth (see the field).
const DEEPSPEED_2021_ZERO3_EFFICIENCY: f64 = 0.17;

/// Host time per MoE layer per micro-batch of the NeMo releases whose MoE recipes ran
/// without CUDA graphs and before Transformer Engine's MoE fusions (NeMo 25.04, and 25.07
/// off GB200: NVIDIA/NeMo v2.3.0 and v2.4.0 `scripts/performance/recommended_model_configs`,
/// DeepSeek-V3 `cuda_graphs` 0 on H100 and B200, and on GB200 in 25.04), µs. Fitted by `fit_moe_host` in
/// `tests/training_accuracy.rs` on the three steps of Megatron-LM's DeepSeek-V3 GB200 guide
/// before CUDA graphs (494, 540 and 566 TFLOP/s on one layout; the guide finds the GPU idle
/// between kernels, "host boundedness").
pub const MOE_HOST_EARLY_US: f64 = 28_250.0;
/// The same for NeMo 25.09 (Megatron-Bridge v0.1.0rc4 `deepseek_v3_llm_pretrain.yaml`:
/// `cuda_graphs: false` on every system), whose stack has the permute, router and MXFP8
/// allocation fusions (TE PRs 1927, 1883, 1793) and DeepEP, µs. Fitted the same way on
/// Megatron-Bridge 25.09's DeepSeek-V3 runs (256 GB200, 256 B200, 1024 H100).
pub const MOE_HOST_FUSED_US: f64 = 14_500.0;

/// A NeMo container release, for `--framework nemo --release`: what its MoE performance
/// recipes lacked against today's. Dense layers are unaffected (their recipes changed little).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NemoRelease {
    /// 25.04 (NeMo 2.0 on Megatron-Core 0.12): no CUDA graphs in dropless MoE layers, NCCL
    /// all-to-all token dispatcher, no all-to-all overlap.
    Early,
    /// 25.07 (Megatron-Core 0.13): 25.04's software on H100 and B200, whose DeepSeek-V3
    /// recipes still ran without CUDA graphs; on GB200 its MoE recipes captured whole layers
    /// in CUDA graphs, their shapes made static by dropping tokens over an expert's capacity
    /// (NVIDIA/NeMo v2.4.0 `model_configs_gb200.csv`: `cuda_graphs` 1 for DeepSeek-V3 and
    /// Qwen3; `pretrain_deepseek_v3.py` adds `MegatronTokenDropCallback` off H100). See
    /// [`NemoRelease::on`].
    Jul25,
    /// 25.09 (Megatron-Bridge 0.1): the MoE kernel fusions and DeepEP, still no CUDA graphs.
    Fused,
    /// 25.11 and later (Megatron-Bridge 0.2+): partial CUDA graphs (attention, router, EP
    /// preprocessing; v0.2.0 `workload_base_configs.py` `cuda_graph_scope`), as calibrated.
    Graphs,
}

impl NemoRelease {
    /// Release names the CLI takes.
    pub const IDS: [&'static str; 8] = ["25.04", "25.07", "25.09", "25.11", "26.02", "26.04", "26.06", "26.08"];
    pub fn from_id(id: &str) -> Option<NemoRelease> {
        match id.trim() {
            "25.04" => Some(NemoRelease::Early),
            "25.07" => Some(NemoRelease::Jul25),
            "25.09" => Some(NemoRelease::Fused),
            r if Self::IDS.contains(&r) => Some(NemoRelease::Graphs),
            _ => None,
        }
    }
    /// The release's MoE software on `gpu`: 25.07 graphed its MoE layers on GB200 only.
    pub fn on(self, gpu: crate::catalog::GpuKind) -> NemoRelease {
        match self {
            NemoRelease::Jul25 if gpu == crate::catalog::GpuKind::Gb200 => NemoRelease::Graphs,
            NemoRelease::Jul25 => NemoRelease::Early,
            r => r,
        }
    }
}

/// Every framework id, in the order pickers list them, with its preset.
const PRESETS: [(&str, fn() -> Framework); 13] = [
    ("megatron-core", Framework::megatron_core),
    ("nemo-25.09", Framework::nemo_fused),
    ("nemo-25.07", Framework::nemo_early),
    ("megatron-core-a2a-overlap", Framework::megatron_core_a2a_overlap),
    ("megatron-lm-2022", Framework::megatron_2022),
    ("megatron-lm-2021", Framework::megatron_2021),
    ("pytorch-fsdp2", Framework::fsdp2),
    ("pytorch-fsdp2-compiled", Framework::fsdp2_compiled),
    ("composer-fsdp", Framework::composer),
    ("meta-llama3", Framework::meta_llama3),
    ("deepspeed", Framework::deepspeed),
    ("deepspeed-2021", Framework::deepspeed_2021),
    ("megatron-deepspeed", Framework::megatron_deepspeed),
];

/// Other spellings of the ids in [`PRESETS`] that the CLI takes.
const ALIASES: [(&str, &str); 13] = [
    ("mcore", "megatron-core"),
    ("megatron-2021", "megatron-lm-2021"),
    ("megatron-2022", "megatron-lm-2022"),
    ("mcore-a2a-overlap", "megatron-core-a2a-overlap"),
    ("dualpipe", "megatron-core-a2a-overlap"),
    ("deepspeed-zero", "deepspeed"),
    ("fsdp2", "pytorch-fsdp2"),
    ("torchtitan", "pytorch-fsdp2"),
    ("fsdp2-compiled", "pytorch-fsdp2-compiled"),
    ("torchtitan-compiled", "pytorch-fsdp2-compiled"),
    ("composer", "composer-fsdp"),
    ("llm-foundry", "composer-fsdp"),
    ("llama3-4d", "meta-llama3"),
];

impl Default for Framework {
    fn default() -> Self {
        Framework::megatron_core()
    }
}

impl Framework {
    /// Megatron-Core (2024-): FlashAttention, overlapped grad reduce and param gather,
    /// overlapped interleaved p2p, FP32 main grads, 40M-parameter buckets
    /// (megatron/core/distributed/distributed_data_parallel_config.py).
    pub fn megatron_core() -> Framework {
        Framework {
            name: "megatron-core",
            flash_attention: true,
            overlap_grad_reduce: true,
            overlap_param_gather: true,
            overlap_p2p: true,
            pp_scatter_gather: true,
            fp32_grads: true,
            grad_bucket_params: 40_000_000,
            overlap_sp_backward: true,
            fused_grad_accumulation: true,
            zero3_unit: 1.0,
            hopper_attention: true,
            overlap_tp_comm: true,
            overlap_moe_a2a: false,
            ep_node_dispatch: false,
            ep_library: None,
            #[cfg(feature = "software")]
            nvfp4_share: NVFP4_SHARE,
            reshard_after_forward: true,
            cp_all_gather: false,
            zero3_collective_efficiency: 1.0,
            fused_elementwise: true,
            layer_overhead_us: LAYER_OVERHEAD_FUSED_US,
            moe_layer_host_us: 0.0,
            step_overhead_us: STEP_OVERHEAD_US,
            flexible_interleave: false,
            grad_sync_once: false,
            pipeline_interleave: true,
        }
    }
    /// Whether this is today's Megatron-Core with its release left open (`megatron-core`, or
    /// `nemo` without `--release`): an MoE step's interval then spans the releases
    /// ([`NemoRelease`]), down to the oldest's.
    pub fn release_open(&self) -> bool {
        matches!(self.name, "megatron-core" | "nemo")
    }
    /// The oldest release's software an MoE step (`moe`) whose release is left open spans,
    /// with this framework's EP library; `None` where the release is stated or the job dense.
    pub fn oldest_release(&self, moe: bool) -> Option<Framework> {
        (moe && self.release_open()).then(|| Framework { ep_library: self.ep_library, ..Self::nemo_early() })
    }
    /// Megatron-Core as a NeMo release's performance recipes ran it ([`NemoRelease`]).
    /// 25.07 is taken as 25.04 here; [`Framework::nemo_on`] tells its GPUs apart.
    pub fn nemo(release: NemoRelease) -> Framework {
        match release {
            NemoRelease::Early | NemoRelease::Jul25 => Self::nemo_early(),
            NemoRelease::Fused => Self::nemo_fused(),
            NemoRelease::Graphs => Self::nemo_release("nemo-25.11", 0.0),
        }
    }
    /// [`Framework::nemo`] for the release's recipes on `gpu` ([`NemoRelease::on`]): 25.07 on
    /// GB200 runs graphed MoE layers, reported under its own name.
    pub fn nemo_on(release: NemoRelease, gpu: crate::catalog::GpuKind) -> Framework {
        match (release, release.on(gpu)) {
            (NemoRelease::Jul25, NemoRelease::Graphs) => Self::nemo_release("nemo-25.07-graphed", 0.0),
            (_, r) => Self::nemo(r),
        }
    }
    fn nemo_early() -> Framework {
        Self::nemo_release("nemo-25.07", MOE_HOST_EARLY_US)
    }
    fn nemo_fused() -> Framework {
        Self::nemo_release("nemo-25.09", MOE_HOST_FUSED_US)
    }
    /// Megatron-Core under a NeMo name, its MoE layers bounded by `moe_layer_host_us`.
    pub fn nemo_release(name: &'static str, moe_layer_host_us: f64) -> Framework {
        Framework { name, moe_layer_host_us, ..Self::megatron_core() }
    }
    /// Megatron-LM as used by Narayanan et al. 2021 and Korthikanti et al. 2022 (and its 2020
    /// README): attention scores materialised (fused scale-mask-softmax), gradients all-reduced
    /// after the pipeline flush without overlap, blocking p2p with scatter/gather, 16-bit
    /// gradient all-reduce.
    pub fn megatron_2021() -> Framework {
        Framework {
            name: "megatron-lm-2021",
            flash_attention: false,
            overlap_grad_reduce: false,
            overlap_param_gather: false,
            overlap_p2p: false,
            fp32_grads: false,
            overlap_sp_backward: false,
            fused_grad_accumulation: false,
            hopper_attention: false,
            overlap_tp_comm: false,
            ..Self::megatron_core()
        }
    }
    /// Megatron-LM as used by Korthikanti et al. 2022: the 2021 release plus gradient-
    /// accumulation fusion (weight-gradient matmuls accumulate into the main-grad buffer).
    pub fn megatron_2022() -> Framework {
        Framework { name: "megatron-lm-2022", fused_grad_accumulation: true, ..Self::megatron_2021() }
    }
    /// DeepSpeed ZeRO as compared by Narayanan et al. 2021 (Table 2): materialised attention,
    /// `overlap_comm` (bucketed reduce-scatter during backward, parameter prefetch),
    /// 16-bit gradients, 500M-element reduce buckets.
    pub fn deepspeed_2021() -> Framework {
        Framework {
            name: "deepspeed-2021",
            overlap_grad_reduce: true,
            overlap_param_gather: true,
            pp_scatter_gather: false,
            grad_bucket_params: 500_000_000,
            zero3_unit: 1.0 / 3.0,
            zero3_collective_efficiency: DEEPSPEED_2021_ZERO3_EFFICIENCY,
            pipeline_interleave: false,
            ..Self::megatron_2021()
        }
    }
    /// Megatron-Core with MoE dispatch/combine overlapped with the other micro-batch's
    /// compute (1F1B all-to-all overlap, Megatron-Core 0.14 `--overlap-moe-expert-parallel-comm`;
    /// DeepSeek-V3's DualPipe overlaps the same pair of chunks, §3.2.1 of its report).
    pub fn megatron_core_a2a_overlap() -> Framework {
        Framework { name: "megatron-core-a2a-overlap", overlap_moe_a2a: true, ..Self::megatron_core() }
    }
    /// Megatron-DeepSpeed as BigScience trained BLOOM-176B (bigscience-workshop/bigscience,
    /// tr11-176B-ml README): Megatron-LM 2021 kernels (fused softmax, materialised scores),
    /// DeepSpeed's pipeline engine (1F1B, no interleaving, blocking p2p without
    /// scatter/gather), ZeRO-1 in BF16 with FP32 gradient accumulation.
    pub fn megatron_deepspeed() -> Framework {
        Framework { name: "megatron-deepspeed", pp_scatter_gather: false, fp32_grads: true, pipeline_interleave: false, ..Self::megatron_2021() }
    }
    /// DeepSpeed ZeRO 1/2/3 (the stage is the layout's `zero`) as used today with Hugging Face
    /// models: FlashAttention-2 through the model code, `overlap_comm` (bucketed reduce-scatter
    /// during backward, parameter prefetch), 500M-element buckets, ZeRO-3 fetching per module
    /// (DeepSpeed docs, "ZeRO" configuration: `overlap_comm`, `reduce_bucket_size`,
    /// `stage3_prefetch_bucket_size`), eager elementwise kernels.
    pub fn deepspeed() -> Framework {
        Framework {
            name: "deepspeed",
            flash_attention: true,
            fp32_grads: true,
            zero3_collective_efficiency: 1.0,
            fused_elementwise: false,
            layer_overhead_us: LAYER_OVERHEAD_EAGER_US,
            ..Self::deepspeed_2021()
        }
    }
    /// PyTorch FSDP2 (`fully_shard`) as torchtitan runs it, eager: per-layer units,
    /// parameters all-gathered in BF16 before each layer and resharded after the forward,
    /// implicit forward prefetch and backward prefetch of the next layer, gradients reduce-
    /// scattered in FP32 per layer (torchtitan's default `reduce_dtype`), SDPA's
    /// FlashAttention-2 kernel, unfused elementwise kernels, autograd accumulating gradients
    /// (PyTorch docs, "torch.distributed.fsdp.fully_shard"; torchtitan docs/fsdp.md).
    pub fn fsdp2() -> Framework {
        Framework {
            name: "pytorch-fsdp2",
            flash_attention: true,
            overlap_grad_reduce: true,
            overlap_param_gather: true,
            pp_scatter_gather: false,
            fp32_grads: true,
            grad_bucket_params: 0,
            cp_all_gather: true,
            fused_elementwise: false,
            layer_overhead_us: LAYER_OVERHEAD_EAGER_US,
            ..Self::megatron_2021()
        }
    }
    /// FSDP2 with `torch.compile` per transformer block (torchtitan `--compile`): elementwise
    /// kernels fused by Inductor, host overhead of a compiled graph per layer.
    pub fn fsdp2_compiled() -> Framework {
        Framework { name: "pytorch-fsdp2-compiled", fused_elementwise: true, layer_overhead_us: LAYER_OVERHEAD_FUSED_US, ..Self::fsdp2() }
    }
    /// Meta's Llama 3 405B stack (Llama 3 §3.3.2): FSDP sharding optimizer states and
    /// gradients with parameters kept after the forward (ZeRO-2 semantics), FP32 gradient
    /// accumulation and one FP32 reduce-scatter per step, an interleaved schedule taking any
    /// number of micro-batches, asynchronous pipeline point-to-point, all-gather context
    /// parallelism; kernels as compiled FSDP2 (the paper names no kernel library).
    pub fn meta_llama3() -> Framework {
        Framework {
            name: "meta-llama3",
            overlap_p2p: true,
            reshard_after_forward: false,
            flexible_interleave: true,
            grad_sync_once: true,
            ..Self::fsdp2_compiled()
        }
    }
    /// Composer / LLM-Foundry FSDP (FSDP1 `FULL_SHARD` with flat parameters per block,
    /// `BACKWARD_PRE` prefetch, `limit_all_gathers`, FlashAttention-2, activation
    /// checkpointing configurable; mixed precision DEFAULT: BF16 compute, FP32 reduction)
    /// (Composer docs, "FSDP"; PyTorch docs, "FullyShardedDataParallel").
    pub fn composer() -> Framework {
        Framework { name: "composer-fsdp", ..Self::fsdp2() }
    }
    /// Framework families the error bands are kept for.
    pub const FAMILIES: [&'static str; 3] = ["megatron", "fsdp", "deepspeed"];
    /// The family this release belongs to (for error bands).
    pub fn family(&self) -> &'static str {
        if self.name.starts_with("deepspeed") || self.name.starts_with("megatron-deepspeed") {
            "deepspeed"
        } else if self.name.contains("fsdp") || self.name.starts_with("composer") || self.name.starts_with("torchtitan") || self.name.starts_with("meta-") {
            "fsdp"
        } else {
            "megatron"
        }
    }
    /// The framework an id names (case-insensitive).
    pub fn from_id(id: &str) -> Option<Framework> {
        PRESETS.iter().find(|(k, _)| k.eq_ignore_ascii_case(id)).map(|(_, make)| make())
    }
    /// [`Framework::from_id`] that also takes the other spellings the CLI accepts ([`ALIASES`]).
    pub fn from_id_or_alias(id: &str) -> Option<Framework> {
        Self::from_id(ALIASES.iter().find(|(a, _)| a.eq_ignore_ascii_case(id)).map_or(id, |(_, to)| to))
    }
    /// The ids a picker offers, in its order. (The CLI's `nemo`, and `nemo-25.11` of its
    /// `--release`, are today's Megatron-Core under NeMo's names: [`Framework::nemo`].)
    pub fn ids() -> [&'static str; 13] {
        PRESETS.map(|(id, _)| id)
    }
    /// Bytes the optimizer step streams per parameter of its shard. With FP32 main grads:
    /// global norm (read grad, 4), Adam (read grad, master, m, v: 16; write master, m, v: 12),
    /// copy master to the BF16 weights (read 4, write 2), zero the grad buffer (write 4): 42.
    /// With 16-bit grads (2021 mixed precision with loss scaling): copy grads to FP32 (read 2,
    /// write 4), unscale and check for inf/nan (read 4, write 4), norm (4), Adam (28), copy to
    /// FP16 weights (6), zero the FP16 grads (2): 54.
    pub fn optimizer_bytes_per_param(&self) -> f64 {
        if self.fp32_grads {
            42.0
        } else {
            54.0
        }
    }

    /// Bytes moved per parameter per micro-batch to accumulate gradients outside the matmul,
    /// averaged over `m` micro-batches: 0 when fused; with FP32 main grads a hook adds every
    /// micro-batch's 16-bit gradient into the FP32 buffer (read 2 + 4, write 4); with 16-bit
    /// grads autograd adds micro-batches 2..m into `.grad` (read 2 + 2, write 2).
    pub fn grad_accumulation_bytes(&self, m: u32) -> f64 {
        if self.fused_grad_accumulation {
            0.0
        } else if self.fp32_grads {
            10.0
        } else {
            6.0 * (m.max(1) - 1) as f64 / m.max(1) as f64
        }
    }

    /// Bytes per gradient element.
    pub fn grad_bytes(&self) -> f64 {
        if self.fp32_grads {
            4.0
        } else {
            2.0
        }
    }
}
