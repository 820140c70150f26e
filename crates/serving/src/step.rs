//! One serving step of a deployment on a cluster: a roofline of weights plus KV cache read
//! (HBM bandwidth x calibrated efficiency) against FLOPs (peak x calibrated efficiency) per
//! GPU, plus the communication the layout puts on the fabric: TP all-reduces (the collective
//! model, on the tiers the TP group spans), EP dispatch and combine (the EP model, optionally
//! hidden behind compute by two micro-batches), pipeline hops, and the KV transfer of a
//! disaggregated deployment. Decode, prefill and the offline (max-load) mix.

use crate::deploy::{Deployment, Phase};
use crate::engine::{Engine, EngineParams};
use crate::bands::band_pct;
use crate::hardware::{self, AccuracyClass, Efficiency, HwClass, ACTIVATION_BYTES, DEFAULT_RESERVE_GIB, GIB, HBM_USABLE, MAX_RUNTIME_BATCH};
use crate::kv::{balance_ratio, default_path, kv_transfer, KvTransferInput};
use crate::model::ServingModel;
use crate::precision::Precision;
use fabricscope_model::ep::{self, Dtype, EpInput, Imbalance, Kernel};
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Collective, Comm, Placement, ProtoChoice, Topology};
use serde::Serialize;
use std::collections::HashMap;

/// Tokens one prefill iteration batches at maximum load (count): TensorRT-LLM's default
/// `max_num_tokens` of 8192 (TensorRT-LLM docs, "Tuning Max Batch Size and Max Num Tokens").
pub const PREFILL_CHUNK_TOKENS: u32 = 8192;

/// Where the time of one step goes, ms. The step is the roofline (per operation the larger of
/// its HBM read and its compute, summed over the operations) plus the fixed per-layer and
/// per-sequence cost and the communication terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    /// HBM time of all operations (weights and KV cache), summed.
    pub weights_kv_read: f64,
    /// Tensor-core time of all operations, summed.
    pub compute: f64,
    /// Sum over operations of max(read, compute): what the two cost together.
    pub roofline: f64,
    pub layer_overhead: f64,
    pub tp_allreduce: f64,
    /// Exposed part (after the two-micro-batch overlap, when on).
    pub ep_dispatch_combine: f64,
    pub pipeline: f64,
    /// In the time to first token of a disaggregated deployment.
    pub kv_transfer: f64,
}

/// What a deployment achieves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServeReport {
    pub phase: Phase,
    pub gpus: u64,
    pub nodes: u64,
    /// Time per output token (decode and offline); `None` for prefill.
    pub tpot_ms: Option<f64>,
    /// Time to first token: a prefill of `input_len` on this layout, plus the KV transfer
    /// when disaggregated; `None` for the offline mix (requests queue).
    pub ttft_ms: Option<f64>,
    /// Output tokens/s (decode, offline) or prompt tokens/s (prefill), per GPU used.
    pub tokens_per_s_per_gpu: f64,
    pub tokens_per_s_per_node: f64,
    /// Output tokens/s one sequence sees (decode, offline); prompt tokens/s (prefill).
    pub tokens_per_s_per_user: f64,
    /// Sequences per attention DP rank in the step (the offline mix: the batch it settles at).
    pub batch: u32,
    /// Largest batch per attention DP rank that fits HBM at this context.
    pub max_batch: u32,
    /// The step, ms: roofline + overhead + communication.
    pub step_ms: f64,
    pub breakdown: Breakdown,
    /// The term that sets the step: "memory" (the operations whose HBM read exceeds their
    /// compute), "compute" (the others), "overhead" (per-layer and per-sequence costs) or
    /// "network" (exposed TP, EP and pipeline communication), whichever takes the most of it.
    pub bound: &'static str,
    /// The serving engine the figures are for.
    pub engine: crate::engine::Engine,
    /// Communication (TP, EP, pipeline, KV transfer) over the step (or over TTFT for prefill).
    pub network_share: f64,
    /// Weights and KV cache per GPU, GiB (2^30 bytes): `weights_gib + kv_cache_gib`, against
    /// `hbm_usable_gib`.
    pub memory_gib: f64,
    /// Weights per GPU, GiB.
    pub weights_gib: f64,
    /// KV cache of the step's batch per GPU, GiB.
    pub kv_cache_gib: f64,
    /// What the engine may use per GPU, GiB: `memory_fraction x hbm_capacity_gib - reserve_gib`.
    pub hbm_usable_gib: f64,
    /// The card's memory, GiB (the catalog's figure, read as the training memory model reads it).
    pub hbm_capacity_gib: f64,
    /// The engine's share of the card in effect (vLLM's `gpu_memory_utilization`).
    pub memory_fraction: f64,
    /// Memory per GPU held back beside the fraction, GiB.
    pub reserve_gib: f64,
    pub kv_bytes_per_token: f64,
    pub tp_spans_domains: bool,
    pub overlap: bool,
    /// Prefill GPUs per decode GPU that balance a disaggregated deployment (decode only).
    pub prefill_decode_ratio: Option<f64>,
    pub accuracy_class: AccuracyClass,
    pub hardware_class: HwClass,
    /// Median error of `accuracy_class` on this hardware class, percent; `None`: no published
    /// measurement covers it.
    pub error_band_pct: Option<f64>,
}

/// Raw costs of one step, µs.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    /// HBM time of every operation of the step (weights, KV cache), summed.
    mem: f64,
    /// Tensor-core time of every operation, summed.
    compute: f64,
    /// The per-operation roofline: `sum over operations of max(memory, compute)`.
    roofline: f64,
    /// Time of the operations memory sets (their max is the memory term), summed.
    memory_bound: f64,
    overhead: f64,
    tp: f64,
    ep: f64,
    pipeline: f64,
}

impl Cost {
    fn total(&self) -> f64 {
        self.roofline + self.overhead + self.tp + self.ep + self.pipeline
    }
    fn comm(&self) -> f64 {
        self.tp + self.ep + self.pipeline
    }
    /// Adds one operation reading `mem` µs of HBM and computing `compute` µs: inside an
    /// operation the two overlap (its max), operations run one after another (summed).
    fn op(&mut self, mem: f64, compute: f64) {
        self.mem += mem;
        self.compute += compute;
        self.roofline += mem.max(compute);
        if mem >= compute {
            self.memory_bound += mem;
        }
    }
    /// The term that sets the step, the largest of: the operations whose HBM read exceeds their
    /// compute ("memory"), the others ("compute"), the per-layer and per-sequence costs
    /// ("overhead"), and the exposed communication ("network"); ties go in that order.
    fn bound(&self) -> &'static str {
        let terms = [("memory", self.memory_bound), ("compute", self.roofline - self.memory_bound), ("overhead", self.overhead), ("network", self.comm())];
        terms.iter().fold(terms[0], |best, t| if t.1 > best.1 { *t } else { best }).0
    }
}

/// A model on a cluster, with the communicators it has built (NCCL's topology search runs
/// once per group shape).
pub struct Server<'a> {
    pub topo: &'a Topology,
    pub model: &'a ServingModel,
    class: HwClass,
    eff: Efficiency,
    /// Engine parameters in place of the deployment's engine's (fitting).
    engine_params: Option<EngineParams>,
    /// On a cluster as measured (`Topology::fitted`) every communicator, and the EP exchange,
    /// is timed with the fit.
    comms: HashMap<(u32, u32), Comm>,
}

impl<'a> Server<'a> {
    pub fn new(topo: &'a Topology, model: &'a ServingModel) -> Result<Self> {
        model.validate()?;
        let class = HwClass::of(topo.gpu);
        Ok(Server { topo, model, class, eff: hardware::efficiency(class), engine_params: None, comms: HashMap::new() })
    }

    /// The same server with other efficiencies (fitting and what-if questions).
    pub fn with_efficiency(mut self, eff: Efficiency) -> Self {
        self.eff = eff;
        self
    }

    /// The same server with other engine parameters, whatever engine a deployment names
    /// (fitting an engine's factors).
    pub fn with_engine_params(mut self, p: EngineParams) -> Self {
        self.engine_params = Some(p);
        self
    }

    fn collective_us(&mut self, op: Collective, ranks: u32, per_domain: u32, bytes: f64) -> Result<f64> {
        if ranks <= 1 {
            return Ok(0.0);
        }
        let key = (ranks, per_domain);
        if !self.comms.contains_key(&key) {
            let c = Comm::new(self.topo, Placement { ranks, per_domain })?;
            self.comms.insert(key, c);
        }
        let Some(c) = self.comms.get(&key) else { return Ok(0.0) };
        let b = Bytes(bytes.max(1.0).round() as u64);
        let t = c.predict(op, b, AlgoChoice::Auto, ProtoChoice::Auto)?.time.0;
        // An all-reduce across nodes takes at least what small ones measure there (NCCL's
        // proxy and network per-step costs its tuning model leaves out).
        Ok(if op == Collective::AllReduce { t.max(hardware::allreduce_floor_us(self.topo, ranks, per_domain)) } else { t })
    }

    /// GPUs of a TP group in each scale-up domain.
    fn tp_per_domain(&self, tp: u32) -> u32 {
        tp.min(self.topo.domain_gpus)
    }

    /// Weights per GPU, bytes: dense parts split over TP, routed experts over the stage's
    /// `tp x dp` GPUs, embeddings (BF16) over TP; each stage holds `1 / pp` of it all.
    fn weight_bytes_per_gpu(&self, d: &Deployment) -> f64 {
        let m = self.model;
        let wb = d.precision.bytes();
        let tables = if m.work.tied_embeddings { 1.0 } else { 2.0 };
        let stage = (m.dense_params() as f64 / d.tp as f64 + m.routed_params() as f64 / (d.tp as f64 * d.dp as f64)) * wb
            + tables * m.lm_head_params() as f64 * ACTIVATION_BYTES / d.tp as f64;
        stage / d.pp as f64
    }

    /// KV cache bytes of one sequence of `context` tokens on one GPU.
    fn kv_bytes_per_seq_gpu(&self, d: &Deployment, context: f64) -> f64 {
        self.model.kv_bytes_per_token(d.kv().bytes()) * context / self.model.kv_shards(d.tp) as f64 / d.pp as f64
    }

    /// The memory the engine may use on one GPU: (capacity, fraction, reserve, usable), bytes
    /// but the fraction.
    fn budget(&self, d: &Deployment) -> (f64, f64, f64, f64) {
        let capacity = hardware::hbm_capacity_bytes(self.topo.gpu);
        let fraction = d.memory_fraction.unwrap_or(HBM_USABLE);
        let reserve = d.reserve_gib.unwrap_or(DEFAULT_RESERVE_GIB) * GIB;
        (capacity, fraction, reserve, capacity * fraction - reserve)
    }

    /// "the Y GiB the engine may use (fraction F of Z GiB[, less R GiB reserved])".
    fn budget_words(&self, d: &Deployment) -> String {
        let (capacity, fraction, reserve, usable) = self.budget(d);
        format!(
            "the {:.1} GiB the engine may use (fraction {fraction} of {:.1} GiB{})",
            usable / GIB,
            capacity / GIB,
            if reserve > 0.0 { format!(", less {:.1} GiB reserved", reserve / GIB) } else { String::new() }
        )
    }

    /// Largest batch per DP rank whose KV cache fits beside the weights at `context`.
    fn max_batch(&self, d: &Deployment, context: f64) -> Result<u32> {
        let (_, _, _, usable) = self.budget(d);
        if usable <= 0.0 {
            let (capacity, fraction, reserve, _) = self.budget(d);
            return Err(ModelError::new(
                "reserve_gib",
                format!(
                    "a reserve of {:.1} GiB leaves nothing of the {:.1} GiB the engine may use (fraction {fraction} of {:.1} GiB): lower the reserve or raise the memory fraction",
                    reserve / GIB,
                    capacity * fraction / GIB,
                    capacity / GIB
                ),
            ));
        }
        let w = self.weight_bytes_per_gpu(d);
        if w >= usable {
            return Err(ModelError::new(
                "tp",
                format!(
                    "the weights need {:.1} GiB per GPU at tp {} x pp {}{}, more than {}: raise tp, pp or ep, lower the precision, or raise the memory fraction",
                    w / GIB,
                    d.tp,
                    d.pp,
                    if d.ep > 1 { format!(" x ep {}", d.ep) } else { String::new() },
                    self.budget_words(d)
                ),
            ));
        }
        let per_seq = self.kv_bytes_per_seq_gpu(d, context).max(1.0);
        Ok(((usable - w) / per_seq).floor().min(crate::deploy::MAX_BATCH as f64) as u32)
    }

    /// One step of `batch` sequences per DP rank, each adding `new_tokens` tokens against
    /// `context` cached ones (decode: 1 new token; prefill: the prompt, context its causal
    /// mean), whole model (all pipeline stages in turn).
    fn step(&mut self, d: &Deployment, batch: f64, new_tokens: f64, context: f64, decode: bool) -> Result<Cost> {
        let m = self.model;
        let w = &m.work;
        let (tp, dp) = (d.tp as f64, d.dp as f64);
        let wb = d.precision.bytes();
        let tokens_rank = batch * new_tokens;
        let tokens_stage = tokens_rank * dp;
        let moe_layers = w.moe_layer_count() as f64;
        let layers = w.layers as f64;
        // Operations of the step, each a roofline of its own (memory and compute overlap inside
        // an operation, operations follow one another): the dense layers' matmuls, the routed
        // experts some token touches, the LM head, attention over the KV cache.
        let peak = d.precision.peak(self.topo.gpu)?.0;
        let bf16 = self.topo.gpu.tflops_bf16.0;
        let hbm = self.topo.gpu.hbm_bw.0;
        let (e, eng) = (self.eff, self.engine_params.unwrap_or(d.engine().params()));
        let weights_us = |bytes: f64| bytes / (hbm * e.hbm * 1e3);
        // FP8 weight GEMMs outside the experts stream at their own measured share.
        let dense_hbm = if d.precision == Precision::Fp8 { e.hbm_fp8 } else { e.hbm };
        let matmul_us = |flops: f64| flops / (peak * e.compute * 1e6);
        // The engine's MoE kernels as its measured tables decompose them (TensorRT-LLM's,
        // `Engine::moe_kernels`): a cost per MoE layer whatever the experts per rank, and the
        // FP8 experts' streaming share beyond it. Measured for block-FP8 experts only; other
        // precisions and engines keep the class's share (fitted with their fixed cost inside).
        let kernels = if w.moe.is_some() && d.precision == Precision::Fp8 { d.engine().moe_kernels(self.class) } else { None };
        let moe_fixed_us = kernels.map_or(0.0, |k| k.fixed_us);
        let mut c = Cost { overhead: layers * e.layer_overhead_us + moe_layers * (eng.moe_layer_us + moe_fixed_us) + batch * e.seq_overhead_us * eng.seq_scale, ..Cost::default() };
        c.op(m.dense_params() as f64 / tp * wb / (hbm * dense_hbm * 1e3), matmul_us(2.0 * tokens_rank * m.dense_params() as f64 / tp));
        if let Some(moe) = w.moe {
            let (ex, k) = (moe.experts as f64, moe.top_k as f64);
            let touched = ex * (1.0 - (1.0 - k / ex).powf(tokens_stage));
            let experts_hbm = if d.precision == Precision::Fp8 { kernels.map_or(e.hbm_fp8_experts, |k| k.fp8_stream_share) } else { e.hbm };
            c.op(
                moe_layers * touched * m.expert_params() as f64 * wb / (tp * dp) / (hbm * experts_hbm * 1e3),
                matmul_us(2.0 * tokens_stage * k * moe_layers * m.expert_params() as f64 / (tp * dp)),
            );
        }
        // Logits: every decode token; the last prompt token of each prefill sequence.
        let logit_tokens = if decode { tokens_rank } else { batch };
        c.op(weights_us(m.lm_head_params() as f64 * ACTIVATION_BYTES / tp), matmul_us(2.0 * logit_tokens * m.lm_head_params() as f64 / tp));
        let kv_per_seq = self.kv_bytes_per_seq_gpu(d, context) * d.pp as f64;
        // Decode reads every sequence's cache; prefill writes the new tokens' cache (its
        // reads stay in on-chip tiles of a fused attention kernel).
        let kv_bytes = if decode { batch * kv_per_seq } else { batch * kv_per_seq * new_tokens / context.max(1.0) };
        let core = tokens_rank * m.attn_core_flops(context, decode) * layers / tp;
        c.op(kv_bytes / (hbm * e.kv_hbm * 1e3), core / (bf16 * e.compute * 1e6));
        // Tensor-parallel all-reduces: after attention and after the MLP of every layer; an
        // MoE layer with EP combines its experts' output in the EP exchange instead.
        let ar_bytes = tokens_rank * w.hidden as f64 * ACTIVATION_BYTES;
        let moe_tp_stage = w.moe.is_some() && d.ep == 1 && d.dp > 1;
        if d.tp > 1 {
            let per_layer = if d.ep > 1 || moe_tp_stage { 2.0 * (layers - moe_layers) + moe_layers } else { 2.0 * layers };
            c.tp = per_layer * self.collective_us(Collective::AllReduce, d.tp, self.tp_per_domain(d.tp), ar_bytes)?;
        }
        // Experts tensor parallel over the whole stage (attention DP, MoE TP): the stage's
        // tokens gathered before and reduced after every MoE layer, an all-reduce's traffic.
        if moe_tp_stage {
            let stage = d.tp * d.dp;
            c.tp += moe_layers * self.collective_us(Collective::AllReduce, stage, self.tp_per_domain(stage), ar_bytes * dp)?;
        }
        if d.ep > 1 {
            if let Some(moe) = w.moe {
                let dispatch = match d.precision {
                    Precision::Bf16 => Dtype::Bf16,
                    Precision::Fp8 => Dtype::Fp8,
                    Precision::Fp4 => Dtype::Fp4,
                };
                // The engines' own EP paths below are for wide EP (attention DP); EP under
                // attention TP keeps the earlier model (pplx-kernels' low-latency parameters),
                // on whose two batch-1 TensorRT-LLM rows Blackwell's per-layer cost was fitted.
                let trtllm_decode = decode && d.engine() == Engine::Trtllm && d.wide_ep();
                // No all-to-all: every rank all-gathers the stage's tokens (quantized
                // activations) and reduce-scatters the experts' BF16 output after them,
                // collectives over the EP group. TensorRT-LLM does so when EP is at most top-k
                // (`select_alltoall_method_type` in tensorrt_llm/_torch/modules/fused_moe:
                // `moe_ep_size <= top_k` gives `NotEnabled`); vLLM by default in both phases
                // (`ParallelConfig.all2all_backend = "allgather_reducescatter"` in
                // vllm/config/parallel.py, `--all2all-backend`'s default; its GB200 post of
                // 2026-02-03 names these NCCL all_gather and reduce_scatter as its prefill's EP
                // communication, and ai-dynamo/dynamo pull request 6274's GB200 DEP8 vLLM
                // recipe runs this backend in decode).
                let gather_scatter = match d.engine() {
                    Engine::Trtllm => trtllm_decode && d.ep <= moe.top_k,
                    Engine::Vllm => d.wide_ep(),
                    Engine::Sglang | Engine::Sglang04 => false,
                };
                let raw = if gather_scatter {
                    let tokens = tokens_stage.max(1.0);
                    let per_domain = self.tp_per_domain(d.ep);
                    let gather = self.collective_us(Collective::AllGather, d.ep, per_domain, tokens * w.hidden as f64 * dispatch.bytes_per_element())?;
                    let scatter = self.collective_us(Collective::ReduceScatter, d.ep, per_domain, tokens * w.hidden as f64 * ACTIVATION_BYTES)?;
                    moe_layers * (gather + scatter)
                } else {
                    let input = EpInput {
                        ep: d.ep,
                        tokens: (tokens_stage / d.ep as f64).ceil().clamp(1.0, (1u32 << 20) as f64) as u32,
                        hidden: w.hidden,
                        top_k: moe.top_k,
                        // Redundant expert copies pad the count to a multiple of EP (DeepSeek's
                        // Day-6 deployment runs 256 + 32 experts on EP 144); padded here, not by
                        // `ep`, so an EP above the expert count (Mixtral's 8 on EP 16) gets one
                        // slot per rank.
                        experts: ep::expert_slots(moe.experts, d.ep),
                        dispatch_dtype: dispatch,
                        combine_dtype: Dtype::Bf16,
                        kernel: if decode { Kernel::LowLatency } else { Kernel::Normal },
                        max_nodes_per_token: Some(moe.max_nodes_per_token).filter(|v| *v > 0 && !decode),
                        imbalance: Imbalance::Uniform,
                        // TensorRT-LLM's decode runs its own kernels: the one-sided NVLink
                        // AlltoAll inside a multi-node NVLink domain (MNNVL, an NVL72 rack),
                        // DeepEP's low-latency kernels across the network
                        // (`select_alltoall_method_type`), which `ep::Library::Trtllm` models.
                        // SGLang's decode keeps pplx-kernels' parameters: the wide-EP serving
                        // class was calibrated (bands.rs, calibration.csv) when the EP model
                        // had one low-latency class, fitted on pplx-kernels.
                        library: Some(if trtllm_decode {
                            ep::Library::Trtllm
                        } else if decode {
                            ep::Library::Pplx
                        } else {
                            ep::Library::Deepep
                        }),
                    };
                    let r = ep::evaluate(self.topo, &input)?;
                    moe_layers * (r.dispatch.time_us + r.combine.time_us)
                };
                let hidden_behind = if d.overlapped() { c.roofline + c.overhead } else { 0.0 };
                c.ep = (raw - hidden_behind).max(0.0);
            }
        }
        if d.pp > 1 {
            let stage_gpus = d.tp * d.dp;
            let per_domain = if stage_gpus >= self.topo.domain_gpus { 1 } else { 2 };
            let hop = self.collective_us(Collective::SendRecv, 2, per_domain, tokens_rank * w.hidden as f64 * ACTIVATION_BYTES)?;
            c.pipeline = (d.pp - 1) as f64 * hop;
        }
        Ok(c)
    }

    fn kv_transfer_us(&self, d: &Deployment) -> Result<f64> {
        if !d.disaggregated {
            return Ok(0.0);
        }
        let path = d.kv_path.unwrap_or_else(|| default_path(self.topo, d.gpus(), d.kv_rails.is_some()));
        let t = kv_transfer(self.topo, self.model, &KvTransferInput { tokens: d.input_len, kv_precision: d.kv(), rails: d.kv_rails, block_tokens: None, decode_tp: None, path: Some(path), engine: d.engine })
            .map_err(|e| if e.field == "rails" { ModelError::new("kv_rails", e.message) } else { e })?;
        Ok(t.time.0)
    }

    fn accuracy_class(&self, d: &Deployment) -> AccuracyClass {
        if d.wide_ep() {
            AccuracyClass::WideEp
        } else if d.tp > self.topo.domain_gpus {
            AccuracyClass::DenseTpCross
        } else {
            AccuracyClass::DenseTpNvlink
        }
    }

    /// Evaluates one deployment.
    pub fn evaluate(&mut self, d: &Deployment) -> Result<ServeReport> {
        d.check(self.topo, self.model)?;
        let gpus = d.gpus();
        let gpn = self.topo.cluster.gpus_per_node.max(1) as u64;
        let nodes = gpus.div_ceil(gpn);
        let seqs = d.batch as f64 * d.dp as f64;
        let kv_us = self.kv_transfer_us(d)?;
        let (context, batch) = match d.phase {
            Phase::Decode => (d.context as f64, d.batch),
            Phase::Prefill => (d.input_len as f64, d.batch),
            Phase::Offline => (d.input_len as f64 + d.output_len as f64, 0),
        };
        let max_batch = self.max_batch(d, context)?;
        if max_batch == 0 {
            return Err(ModelError::new(
                if d.phase == Phase::Decode { "context" } else { "input_len" },
                format!(
                    "one sequence of {} tokens needs {:.1} GiB of KV cache per GPU beside {:.1} GiB of weights, more than {}: shorten it, or raise tp or pp",
                    context as u64,
                    self.kv_bytes_per_seq_gpu(d, context) / GIB,
                    self.weight_bytes_per_gpu(d) / GIB,
                    self.budget_words(d)
                ),
            ));
        }
        if d.phase != Phase::Offline && batch > max_batch {
            return Err(ModelError::new(
                "batch",
                format!(
                    "{batch} sequences of {} tokens need {:.1} GiB per GPU ({:.1} GiB of weights, {:.1} GiB of KV cache), more than {}; at most {max_batch} per DP rank",
                    context as u64,
                    (self.weight_bytes_per_gpu(d) + batch as f64 * self.kv_bytes_per_seq_gpu(d, context)) / GIB,
                    self.weight_bytes_per_gpu(d) / GIB,
                    batch as f64 * self.kv_bytes_per_seq_gpu(d, context) / GIB,
                    self.budget_words(d)
                ),
            ));
        }
        // Time to first token: one prompt on this layout.
        let prefill_one = self.step(d, 1.0, d.input_len as f64, d.input_len as f64 / 2.0, false)?;
        let ttft_us = prefill_one.total() + kv_us;
        let (cost, settled_batch, tpot, ttft, per_gpu, per_user, share) = match d.phase {
            Phase::Decode => {
                let c = self.step(d, d.batch as f64, 1.0, context, true)?;
                let t = c.total();
                (c, d.batch, Some(t / 1e3), Some(ttft_us / 1e3), seqs * 1e6 / t / gpus as f64, 1e6 / t, c.comm() / t)
            }
            Phase::Prefill => {
                let c = self.step(d, d.batch as f64, d.input_len as f64, d.input_len as f64 / 2.0, false)?;
                let t = c.total() + kv_us;
                let tokens = seqs * d.input_len as f64;
                (c, d.batch, None, Some(t / 1e3), tokens * 1e6 / t / gpus as f64, d.input_len as f64 * 1e6 / t, (c.comm() + kv_us) / t)
            }
            Phase::Offline => {
                let b = max_batch.clamp(1, MAX_RUNTIME_BATCH);
                let dec = self.step(d, b as f64, 1.0, d.input_len as f64 + d.output_len as f64 / 2.0, true)?;
                let chunk = (PREFILL_CHUNK_TOKENS / d.input_len).max(1) as f64;
                let pre = self.step(d, chunk, d.input_len as f64, d.input_len as f64 / 2.0, false)?;
                // GPU time of the deployment per output token: its share of a decode step and
                // of its request's prefill (each request: input_len in, output_len out).
                // Attention DP ranks coupled by the EP exchange (wide EP) in one engine: a
                // rank's prefill chunk holds every rank of the stage, since each iteration
                // lasts as long as its slowest rank (TensorRT-LLM tech blog 10, "ADP Balance
                // Strategy": with in-flight batching some ranks run context while others
                // generate and wait). A chunk then costs the stage its whole time, not
                // 1/dp of it, and every rank's decode waits for every rank's prefills.
                let coupled = if d.wide_ep() { d.dp as f64 } else { 1.0 };
                let per_token = dec.total() / (b as f64 * d.dp as f64) + pre.total() * coupled / (chunk * d.dp as f64) / d.output_len as f64;
                let t = dec.total();
                (dec, b, Some(t / 1e3), None, 1e6 / per_token / gpus as f64, 1e6 / (t + pre.total() * coupled * b as f64 / (chunk * d.output_len as f64)), dec.comm() / t)
            }
        };
        let step_us = cost.total();
        let prefill_decode_ratio = if d.phase == Phase::Decode && d.disaggregated {
            let pre_tokens = (PREFILL_CHUNK_TOKENS / d.input_len).max(1) as f64;
            let pre = self.step(d, pre_tokens, d.input_len as f64, d.input_len as f64 / 2.0, false)?;
            let prefill_per_gpu = pre_tokens * d.dp as f64 * d.input_len as f64 * 1e6 / pre.total() / gpus as f64;
            balance_ratio(d.input_len, d.output_len, prefill_per_gpu, per_gpu)
        } else {
            None
        };
        let class = self.accuracy_class(d);
        let (capacity, fraction, reserve, usable) = self.budget(d);
        let (weights, kv_cache) = (self.weight_bytes_per_gpu(d), settled_batch as f64 * self.kv_bytes_per_seq_gpu(d, context));
        Ok(ServeReport {
            phase: d.phase,
            gpus,
            nodes,
            tpot_ms: tpot,
            ttft_ms: ttft,
            tokens_per_s_per_gpu: per_gpu,
            tokens_per_s_per_node: per_gpu * gpus as f64 / nodes as f64,
            tokens_per_s_per_user: per_user,
            batch: settled_batch,
            max_batch,
            step_ms: step_us / 1e3,
            breakdown: Breakdown {
                weights_kv_read: cost.mem / 1e3,
                compute: cost.compute / 1e3,
                roofline: cost.roofline / 1e3,
                layer_overhead: cost.overhead / 1e3,
                tp_allreduce: cost.tp / 1e3,
                ep_dispatch_combine: cost.ep / 1e3,
                pipeline: cost.pipeline / 1e3,
                kv_transfer: kv_us / 1e3,
            },
            bound: cost.bound(),
            engine: d.engine(),
            network_share: share.clamp(0.0, 1.0),
            memory_gib: (weights + kv_cache) / GIB,
            weights_gib: weights / GIB,
            kv_cache_gib: kv_cache / GIB,
            hbm_usable_gib: usable / GIB,
            hbm_capacity_gib: capacity / GIB,
            memory_fraction: fraction,
            reserve_gib: reserve / GIB,
            kv_bytes_per_token: self.model.kv_bytes_per_token(d.kv().bytes()),
            tp_spans_domains: d.tp > self.topo.domain_gpus,
            overlap: d.overlapped(),
            prefill_decode_ratio,
            accuracy_class: class,
            hardware_class: self.class,
            error_band_pct: band_pct(class, self.class),
        })
    }
}

/// Evaluates one deployment of `model` on `topo`.
pub fn evaluate(topo: &Topology, model: &ServingModel, d: &Deployment) -> Result<ServeReport> {
    Server::new(topo, model)?.evaluate(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::serving_preset;
    use fabricscope_model::Cluster;

    #[test]
    fn batch_one_decode_is_the_weight_read_by_hand() {
        // Llama 3 8B, BF16, one H100 (3,350 GB/s), batch 1, 1,000 tokens of KV cache.
        // Per layer: attention 4096 x (4096 + 2 x 1024) + 4096 x 4096 = 41,943,040; norms
        // 16,384; SwiGLU 3 x 4096 x 14336 = 176,160,768. 32 layers: 6,979,846,144 parameters;
        // LM head 128,256 x 4096 = 525,336,576 (BF16 both).
        let weights = 2.0 * (6_979_846_144.0 + 525_336_576.0);
        let kv = 2.0 * 32.0 * 8.0 * 128.0 * 2.0 * 1000.0;
        let e = hardware::HOPPER;
        let want_us = weights / (3350.0 * e.hbm * 1e3) + kv / (3350.0 * e.kv_hbm * 1e3) + 32.0 * e.layer_overhead_us + e.seq_overhead_us;
        let topo = Cluster::default().topology().unwrap();
        let m = serving_preset("llama3-8b").unwrap();
        let r = evaluate(&topo, &m, &Deployment { batch: 1, context: 1000, ..Deployment::default() }).unwrap();
        assert_eq!(r.bound, "memory");
        assert!((r.tpot_ms.unwrap() * 1e3 / want_us - 1.0).abs() < 1e-9, "{} vs {want_us}", r.tpot_ms.unwrap());
        assert_eq!(r.breakdown.tp_allreduce, 0.0);
        assert_eq!(r.gpus, 1);
    }

    /// Issue 39's case: Qwen3-32B FP8 at batch 64 on one H100. Weights 31.96 GiB; KV cache
    /// 64 layers x 8 K/V heads x 128 x 2 (K, V) x 2 bytes = 262,144 bytes = 0.25 MiB per token,
    /// so 64 sequences of 2,560 tokens hold 64 x 2,560 x 0.25 MiB = 40.0 GiB: 71.96 GiB against
    /// the 0.9 x 80 GiB = 72.0 GiB the engine may use. Counted as before in decimal GB of a
    /// decimal card (0.9 x 80 x 10^9 bytes = 67.06 GiB), it was refused.
    #[test]
    fn memory_counts_gib_of_the_card_under_the_engine_fraction() {
        let topo = Cluster::default().topology().unwrap();
        let m = serving_preset("qwen3-32b").unwrap();
        let d = Deployment { batch: 64, context: 2560, precision: Precision::Fp8, ..Deployment::default() };
        let r = evaluate(&topo, &m, &d).unwrap();
        assert_eq!((r.hbm_capacity_gib, r.memory_fraction, r.reserve_gib, r.hbm_usable_gib), (80.0, 0.9, 0.0, 72.0));
        assert_eq!(r.kv_bytes_per_token, 262_144.0);
        assert!((r.kv_cache_gib - 40.0).abs() < 1e-9, "{}", r.kv_cache_gib);
        assert!((r.weights_gib - 31.96).abs() < 0.01, "{}", r.weights_gib);
        assert!((r.memory_gib - (r.weights_gib + 40.0)).abs() < 1e-9);
        assert!(r.memory_gib <= r.hbm_usable_gib && r.memory_gib > 0.9 * 80e9 / GIB);
        assert_eq!(r.max_batch, 64);
        // The capacity is the training memory model's: the catalog's figure as GiB.
        assert_eq!(hardware::hbm_capacity_bytes(topo.gpu), 80.0 * (1u64 << 30) as f64);
        // A 2 GiB reserve leaves 70 GiB: refused, with the numbers and the budget named.
        let e = evaluate(&topo, &m, &Deployment { reserve_gib: Some(2.0), ..d }).unwrap_err();
        assert_eq!(e.field, "batch");
        assert!(e.message.contains("need 72.0 GiB per GPU (32.0 GiB of weights, 40.0 GiB of KV cache), more than the 70.0 GiB the engine may use (fraction 0.9 of 80.0 GiB, less 2.0 GiB reserved); at most 60"), "{}", e.message);
        // A fraction of 0.95 (76 GiB) fits 70 sequences: floor((76 - 31.96) / 0.625).
        assert_eq!(evaluate(&topo, &m, &Deployment { memory_fraction: Some(0.95), ..d }).unwrap().max_batch, 70);
        // A reserve larger than the fraction's share is refused by name.
        let e = evaluate(&topo, &m, &Deployment { reserve_gib: Some(80.0), ..d }).unwrap_err();
        assert_eq!(e.field, "reserve_gib");
        assert!(e.message.contains("a reserve of 80.0 GiB leaves nothing of the 72.0 GiB the engine may use (fraction 0.9 of 80.0 GiB)"), "{}", e.message);
    }
}
