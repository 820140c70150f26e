//! Step time of one training iteration: per-layer compute and exposed TP/CP/EP communication
//! per micro-batch, the pipeline schedule (bubble and point-to-point), data-parallel gradient
//! and parameter traffic with the part hidden behind compute removed, and the optimizer.
//!
//! The model is split by what each piece depends on, so a search can reuse work:
//! [`Layout`] (TP, CP, EP, PP, DP and the rank order: group spans, communicators, per-step DP
//! collectives), [`Micro`] (+ micro-batch size: per-layer kernel times and per-layer
//! collectives), and [`Evaluator::assemble`] (+ interleave, recompute, ZeRO stage: pure
//! arithmetic, no allocation). [`Evaluator::evaluate`] runs the same three steps for one layout.

use super::comm::{CommCache, FastMap};
use super::efficiency::{Gpu, MathPrecision};
use super::framework::Framework;
use super::mapping::{span, Generators, Group, GroupSpan, Parallel, Recompute, SpanTier};
use super::memory::{memory, StageShape};
pub use super::memory::{padded_vocab, StageParams};
pub use super::step_report::{Breakdown, GroupReport, LayerCompute, Layout, Micro, StageCompute, StepReport, Summary};
use super::workload::{Mlp, Positions, Precision, Workload};
use crate::collective::Collective;
use crate::error::{ModelError, Result};
use crate::topology::{Placement, Topology};
use crate::units::Micros;

/// Bytes per element of activations and of communicated activations (BF16).
const ACT: f64 = 2.0;
/// Multi-tensor-apply kernels of one optimizer step (copy, unscale, norm, Adam, copy, zero).
const OPT_KERNELS: f64 = 10.0;
/// Backward of an elementwise kernel moves about twice the bytes of its forward (reads the
/// saved input and the incoming gradient, writes the outgoing gradient; two kernels where
/// the forward was fused).
const ELEMENTWISE_BWD_FACTOR: f64 = 2.0;
/// FlashAttention's backward does 2.5x the forward's matmul FLOPs (it recomputes the scores:
/// five matmuls against two; Dao 2023, §3.2).
const FLASH_BWD_FLOPS: f64 = 2.5;

/// Eager PyTorch moves about twice the bytes (and launches about twice the kernels) of the
/// fused elementwise kernels around a layer: RMSNorm as pow/mean/rsqrt/mul/mul, SiLU and the
/// gate product as separate kernels, rotary as slices, multiplies and a concatenation (each
/// reading and writing the full tensor), against one fused kernel each in Transformer Engine
/// or a torch.compile graph.
const UNFUSED_ELEMENTWISE_FACTOR: f64 = 2.0;
/// Kernels of an MoE layer's token permutation per pass: the routing map's index sort, the
/// gather into expert order, the scatter back and the weighted sum of the top-k outputs
/// (Megatron-Core `moe_utils.permute`/`unpermute`).
const MOE_PERMUTE_KERNELS: f64 = 6.0;
/// Least time of one expert's GEMM in a grouped linear layer, µs. Transformer Engine runs
/// the grouped GEMM of an MoE layer as a loop of one cuBLASLt GEMM per expert spread over
/// several CUDA streams (TE PR #853; TE issue #1386: cuBLAS's grouped GEMM was slower and
/// lacked FP8); each expert's GEMM costs its launch, setup and stream synchronisation however
/// small it is. TE PR #3134 measured that loop: 8 experts of 128 tokens (2048 x 2048) take
/// 0.267 ms against 0.069 ms as one grouped kernel, i.e. ~33 µs per expert GEMM.
const EXPERT_GEMM_FLOOR_US: f64 = 33.0;
/// FP8 grouped linear layers pay that per-expert cost twice: each expert's slice is cast and
/// transposed into its own FP8 tensors before its GEMM, with its own allocations and launches
/// (TE issue #1499: the host cost of `torch.split` and 2 x num_gemms `torch.empty` calls under
/// `fused_multi_cast_transpose` is what makes GroupedLinear slower than its GEMMs).
const FP8_EXPERT_FLOOR_FACTOR: f64 = 2.0;

/// SMs a DeepEP-class dispatcher's dispatch and combine kernels occupy while they run, whatever
/// NCCL would use: Megatron-Core's `moe_deepep_num_sms`, "historical default 20"
/// (megatron/core/transformer/transformer_config.py), the 20 of 132 H100 SMs DeepSeek-V3 gives
/// its all-to-all (§3.2.2). Megatron-Bridge's HybridEP recipes set 32; 20 is the floor.
const DEEPEP_SMS: f64 = 20.0;

/// Evaluates layouts of one job on one cluster, caching what layouts share.
pub struct Evaluator<'a> {
    pub topo: &'a Topology,
    pub work: &'a Workload,
    pub fw: Framework,
    pub gpu: Gpu,
    pub(crate) comms: CommCache,
    spans: FastMap<(Generators, u64, u32), GroupSpan>,
    compute: FastMap<(u32, u32, u32, u32, bool), StageCompute>,
}

/// What an [`Evaluator`] has cached, carried from one evaluator to the next of the same job,
/// cluster and framework (a search run in slices builds one per slice).
#[derive(Default)]
pub struct EvaluatorCaches {
    comms: CommCache,
    spans: FastMap<(Generators, u64, u32), GroupSpan>,
    compute: FastMap<(u32, u32, u32, u32, bool), StageCompute>,
}

impl<'a> Evaluator<'a> {
    /// Gives up the caches (see [`EvaluatorCaches`]).
    pub fn into_caches(self) -> EvaluatorCaches {
        EvaluatorCaches { comms: self.comms, spans: self.spans, compute: self.compute }
    }
    /// Takes over the caches of an earlier evaluator of the same job, cluster and framework.
    pub fn with_caches(mut self, c: EvaluatorCaches) -> Self {
        (self.comms, self.spans, self.compute) = (c.comms, c.spans, c.compute);
        self
    }
}

fn g(i: Group) -> usize {
    match i {
        Group::Tp => 0,
        Group::Cp => 1,
        Group::Dp => 2,
        Group::Ep => 3,
        Group::ExpertDp => 4,
        Group::Pp => 5,
    }
}

/// A group of the layout that cannot be placed on the cluster: the groups are derived, so the
/// error names the layout size that shapes the group (DP is what the node count leaves).
fn placement_error(par: &Parallel, grp: Group, e: ModelError) -> ModelError {
    let (field, size) = match grp {
        Group::Tp => ("tp", par.tp),
        Group::Cp => ("cp", par.cp),
        Group::Dp => ("dp", par.dp),
        Group::Ep | Group::ExpertDp => ("ep", par.ep),
        Group::Pp => ("pp", par.pp),
    };
    ModelError::new(field, format!("the {} groups of {field} {size} cannot be placed on this cluster: {}", grp.name(), e.message))
}

impl<'a> Evaluator<'a> {
    pub fn new(topo: &'a Topology, work: &'a Workload, fw: Framework) -> Result<Evaluator<'a>> {
        work.validate()?;
        if work.precision == Precision::Fp8 && !topo.gpu.has_fp8() {
            return Err(ModelError::new(
                "precision",
                format!("{} has no FP8 tensor cores; use bf16 (FP8 needs Hopper or Blackwell: h100, h200, h800, h100-pcie, b200, gb200)", topo.gpu.name),
            ));
        }
        let gpu = Gpu::capped(topo.gpu, topo.cluster.power_cap_w).with_nvfp4(topo.gpu, work.precision, &fw)?;
        Ok(Evaluator {
            topo,
            work,
            fw,
            gpu,
            comms: CommCache::default(),
            spans: FastMap::default(),
            compute: FastMap::default(),
        })
    }

    fn flash(&self) -> bool {
        self.fw.flash_attention && self.gpu.class.flash.is_some()
    }

    /// Kernel times for (TP, CP, EP, micro-batch, SP), cached.
    /// `ep` packs EP and the expert TP as `ep | etp << 16` (expert TP 0 = TP).
    pub fn stage_compute(&mut self, tp: u32, cp: u32, ep: u32, mb: u32, sp: bool) -> StageCompute {
        let key = (tp, cp, ep, mb, sp);
        if let Some(c) = self.compute.get(&key) {
            return *c;
        }
        let c = self.compute_uncached(tp, cp, ep, mb, sp);
        self.compute.insert(key, c);
        c
    }

    fn compute_uncached(&self, tp: u32, cp: u32, ep_etp: u32, mb: u32, sp: bool) -> StageCompute {
        let ep = (ep_etp & 0xffff).max(1);
        let etp = match ep_etp >> 16 {
            0 => tp,
            e => e,
        };
        let w = self.work;
        let gpu = &self.gpu;
        let t = tp as f64;
        let seq = w.seq as f64;
        let s_loc = seq / cp as f64;
        let tok = mb as f64 * s_loc;
        let tok_sp = if sp { tok / t } else { tok };
        let h = w.hidden as f64;
        let q = w.q_dim() as f64;
        let kv = w.kv_dim() as f64;
        let hd = w.head_dim() as f64;
        let f = w.ffn as f64;
        let heads_loc = w.heads as f64 / t;
        let d = if w.dropout { 1.0 } else { 0.0 };
        let lin = MathPrecision::of(w.precision);
        let gb = self.fw.grad_bytes();
        let up = match w.mlp {
            Mlp::Gelu => 1.0,
            Mlp::Swiglu => 2.0,
        };
        // A linear layer y[m x n] = x[m x k] W[k x n]: forward, and backward (input gradient
        // plus weight gradient accumulated into the main-grad buffer).
        let lin_f = |m: f64, k: f64, n: f64, batch: f64| gpu.gemm_us(m, n, k, batch, lin, ACT, false);
        let lin_b = |m: f64, k: f64, n: f64, batch: f64| {
            gpu.gemm_us(m, k, n, batch, lin, ACT, false) + gpu.gemm_us(k, n, m, batch, lin, gb, true)
        };
        // Quantizing the inputs of low-precision GEMMs (NVFP4's Hadamard transform included).
        let fp8_cast = |elems: f64| if lin != MathPrecision::Bf16 { 3.0 * elems } else { 0.0 };

        // ---- attention block (same in dense and MoE layers) ----
        let qkv_n = (q + 2.0 * kv) / t;
        let mut att_f = lin_f(tok, h, qkv_n, 1.0) + lin_f(tok, q / t, h, 1.0);
        let mut att_b = lin_b(tok, h, qkv_n, 1.0) + lin_b(tok, q / t, h, 1.0);
        // Attention core.
        let (core_f, core_b, core_rc) = if self.flash() {
            // Causal: half the score blocks are skipped.
            let flops = 4.0 * mb as f64 * heads_loc * s_loc * seq * hd * 0.5;
            let fwd = gpu.flash_us(flops, s_loc, false, self.fw.hopper_attention).unwrap_or(0.0);
            let bwd = gpu.flash_us(FLASH_BWD_FLOPS * flops, s_loc, true, self.fw.hopper_attention).unwrap_or(0.0);
            // Selective recompute of the fused core reruns its forward so that its output
            // need not be kept (Megatron-Core's "core_attn" recompute module).
            (fwd, bwd, fwd)
        } else {
            let batch = mb as f64 * heads_loc;
            let scores = batch * s_loc * seq;
            let qk = gpu.gemm_us(s_loc, seq, hd, batch, MathPrecision::Bf16, ACT, false);
            let av = gpu.gemm_us(s_loc, hd, seq, batch, MathPrecision::Bf16, ACT, false);
            // Fused scale-mask-softmax reads and writes the scores; dropout reads them and
            // writes the result and a one-byte mask.
            let soft = gpu.stream_us(2.0 * ACT * scores, 1.0);
            let drop = if w.dropout { gpu.stream_us((2.0 * ACT + 1.0) * scores, 1.0) } else { 0.0 };
            // The context [b, a, s, d] is permuted back to [s, b, h] with a copy.
            let permute = gpu.stream_us(2.0 * ACT * tok * q / t, 1.0);
            let fwd = qk + av + soft + drop + permute;
            let qk_b = gpu.gemm_us(s_loc, hd, seq, batch, MathPrecision::Bf16, ACT, false)
                + gpu.gemm_us(seq, hd, s_loc, batch, MathPrecision::Bf16, ACT, false);
            let av_b = gpu.gemm_us(s_loc, seq, hd, batch, MathPrecision::Bf16, ACT, false)
                + gpu.gemm_us(seq, hd, s_loc, batch, MathPrecision::Bf16, ACT, false);
            let soft_b = gpu.stream_us(3.0 * ACT * scores, 1.0);
            let drop_b = if w.dropout { gpu.stream_us((2.0 * ACT + 1.0) * scores, 1.0) } else { 0.0 };
            (fwd, qk_b + av_b + soft_b + drop_b + permute, fwd)
        };
        att_f += core_f;
        att_b += core_b;
        // Elementwise around attention: norm, rotary, residual (+ bias and dropout).
        let rope = if w.positions == Positions::Rope { 2.0 * ACT * tok * (q + kv) / t } else { 0.0 };
        let att_elem = 2.0 * ACT * tok_sp * h + rope + (3.0 * ACT + d) * tok_sp * h + fp8_cast(tok * h + tok * q / t);
        let att_kernels = 3.0 + if rope > 0.0 { 1.0 } else { 0.0 };

        // ---- dense MLP ----
        let mlp_f = lin_f(tok, h, up * f / t, 1.0) + lin_f(tok, f / t, h, 1.0);
        let mlp_b = lin_b(tok, h, up * f / t, 1.0) + lin_b(tok, f / t, h, 1.0);
        let act_bytes = |rows: f64, width: f64| match w.mlp {
            Mlp::Gelu => 2.0 * ACT * rows * width,
            Mlp::Swiglu => 3.0 * ACT * rows * width,
        };
        let mlp_elem = 2.0 * ACT * tok_sp * h + act_bytes(tok, f / t) + (3.0 * ACT + d) * tok_sp * h + fp8_cast(tok * h + tok * f / t);
        let mlp_kernels = 3.0;

        let attn_params = w.attn_params() as f64 / t;
        let unfused = if self.fw.fused_elementwise { 1.0 } else { UNFUSED_ELEMENTWISE_FACTOR };
        // The host must issue every kernel; when it is slower than the GPU the GPU waits
        // (one third of the layer's host time in the forward, two thirds in the backward).
        let host = self.fw.layer_overhead_us;
        let layer = |mlp_fw: f64, mlp_bw: f64, mlp_el: f64, mlp_k: f64, mlp_params: f64, host: f64| {
            let elem = unfused * (att_elem + mlp_el);
            let kernels = unfused * (att_kernels + mlp_k);
            let fwd = (att_f + mlp_fw + gpu.stream_us(elem, kernels)).max(host / 3.0);
            let bwd = (att_b + mlp_bw + gpu.stream_us(ELEMENTWISE_BWD_FACTOR * elem, ELEMENTWISE_BWD_FACTOR * kernels)).max(2.0 * host / 3.0);
            let gemm_fwd = (att_f - core_f + mlp_fw).max(0.0);
            let gemm_bwd = (att_b - core_b + mlp_bw).max(0.0);
            LayerCompute {
                fwd,
                bwd,
                core_fwd: core_rc,
                attn_fwd: core_f,
                attn_bwd: core_b,
                params: attn_params + mlp_params,
                gemm_fwd,
                gemm_bwd,
                expert_fwd: 0.0,
                expert_bwd: 0.0,
            }
        };
        let dense = layer(mlp_f, mlp_b, mlp_elem, mlp_kernels, w.dense_mlp_params() as f64 / t, host);

        // ---- MoE MLP (experts sharded over EP, each split over the expert TP) ----
        let moe = match w.moe {
            None => LayerCompute::default(),
            Some(m) => {
                let e = m.experts as f64;
                let k = m.top_k as f64;
                let fe = m.expert_ffn as f64;
                let local = e / ep as f64;
                let et = etp as f64;
                // Rows each local expert sees: the stage's tokens, top-k each, over the EP
                // group's experts and shared by the expert-TP ranks (Megatron-Core's parallel
                // folding re-partitions TP x CP x DP into expert-TP x EP x expert-DP).
                let rows = tok * k * ep as f64 * et / (t * e);
                // The busiest EP rank sets the pace: with routing balanced in expectation, each
                // rank's load is multinomial; the maximum of `ep` such loads is about
                // mean + sqrt(2 ln(ep) mean) (Gaussian extreme value).
                let per_rank = rows * local;
                let imbalance = if ep > 1 && per_rank > 0.0 { 1.0 + (2.0 * (ep as f64).ln() / per_rank).sqrt() } else { 1.0 };
                let router_f = gpu.gemm_us(tok_sp, e, h, 1.0, MathPrecision::Bf16, 4.0, false);
                let router_b = 2.0 * router_f;
                // Grouped GEMMs: one problem per local expert of `rows` rows (cuBLAS/CUTLASS
                // grouped GEMM: the tile model sees the batch of small problems).
                let exp_f = imbalance * (lin_f(rows, h, up * fe / et, local) + lin_f(rows, fe / et, h, local));
                let exp_b = imbalance * (lin_b(rows, h, up * fe / et, local) + lin_b(rows, fe / et, h, local));
                // Small experts hit the per-expert floor of the GEMM loop: two GEMMs per expert
                // forward, four backward (data and weight gradients).
                let per = local * EXPERT_GEMM_FLOOR_US * if lin != MathPrecision::Bf16 { FP8_EXPERT_FLOOR_FACTOR } else { 1.0 };
                let (exp_f, exp_b) = (exp_f.max(2.0 * per), exp_b.max(4.0 * per));
                let fs = m.shared_ffn as f64;
                let (sh_f, sh_b) = if fs > 0.0 {
                    (
                        lin_f(tok, h, up * fs / t, 1.0) + lin_f(tok, fs / t, h, 1.0),
                        lin_b(tok, h, up * fs / t, 1.0) + lin_b(tok, fs / t, h, 1.0),
                    )
                } else {
                    (0.0, 0.0)
                };
                let routed = rows * local;
                // Router softmax/top-k in FP32 (3 passes over tokens x experts); permutation
                // into expert order and back: read and write every routed row twice, plus the
                // weighted sum of the k outputs.
                let elem = 2.0 * ACT * tok_sp * h
                    + 3.0 * 4.0 * tok_sp * e
                    + 4.0 * ACT * routed * h
                    + 2.0 * ACT * tok_sp * k * h
                    + imbalance * act_bytes(routed, fe / et)
                    + if fs > 0.0 { act_bytes(tok, fs / t) } else { 0.0 }
                    + (3.0 * ACT + d) * tok_sp * h
                    + fp8_cast(routed * h + routed * fe / et);
                let params = w.moe_shared_params() as f64 / t + local * w.expert_params() as f64 / et;
                // The routed experts alone (grouped GEMMs and their activation): what the 1F1B
                // all-to-all overlap runs between dispatch and combine.
                let act = unfused * imbalance * act_bytes(routed, fe / et);
                let expert_fwd = exp_f + gpu.stream_us(act, unfused);
                let expert_bwd = exp_b + gpu.stream_us(ELEMENTWISE_BWD_FACTOR * act, ELEMENTWISE_BWD_FACTOR * unfused);
                let lc = layer(router_f + exp_f + sh_f, router_b + exp_b + sh_b, elem, 4.0 + MOE_PERMUTE_KERNELS, params, host + self.fw.moe_layer_host_us);
                LayerCompute { expert_fwd: expert_fwd.min(lc.fwd), expert_bwd: expert_bwd.min(lc.bwd), ..lc }
            }
        };

        // ---- embedding (first stage) and head (last stage) ----
        let embed_fwd = gpu.stream_us((2.0 * ACT + d) * tok_sp * h + if w.positions == Positions::Learned { ACT * tok_sp * h } else { 0.0 }, 2.0);
        let embed_bwd = gpu.stream_us((ACT + 2.0 * 4.0) * tok_sp * h, 2.0);
        let vp = padded_vocab(w.vocab, tp) as f64 / t;
        let head_fwd = gpu.stream_us(2.0 * ACT * tok_sp * h, 1.0)
            + gpu.gemm_us(tok, vp, h, 1.0, MathPrecision::Bf16, ACT, false)
            // Vocab-parallel cross-entropy in FP32: read logits, write and re-read exp, sums.
            + gpu.stream_us(14.0 * tok * vp, 4.0);
        let head_bwd = gpu.gemm_us(tok, h, vp, 1.0, MathPrecision::Bf16, ACT, false)
            + gpu.gemm_us(h, vp, tok, 1.0, MathPrecision::Bf16, gb, true)
            + gpu.stream_us(6.0 * tok * vp + 4.0 * ACT * tok_sp * h, 2.0);
        StageCompute { dense, moe, embed_fwd, embed_bwd, head_fwd, head_bwd, head_params: vp * h }
    }

    /// Where every group of `par` sits, cached by (generators, GPU count, GPUs per rack used),
    /// on `seg`, the racks filled in segments ([`super::placement`]), or on the cluster.
    fn span_on(&mut self, seg: Option<&Topology>, par: &Parallel, group: Group) -> GroupSpan {
        let gens = par.generators(group);
        let total = par.gpus();
        let topo = seg.unwrap_or(self.topo);
        let key = (gens, total, topo.domain_gpus);
        if let Some(s) = self.spans.get(&key) {
            return *s;
        }
        let s = span(topo, gens, total);
        self.spans.insert(key, s);
        s
    }

    /// Where every group of `par` sits (with the placement [`Evaluator::layout`] uses).
    pub fn span(&mut self, par: &Parallel, group: Group) -> GroupSpan {
        let seg = super::placement::segment_fill(self.topo, par).map(|f| super::placement::segmented(self.topo, f));
        self.span_on(seg.as_ref(), par, group)
    }

    /// Everything that depends on TP, CP, EP, PP, DP and the order (validate `par` first).
    pub fn layout(&mut self, par: &Parallel) -> Result<Layout> {
        let w = self.work;
        let mut spans = [GroupSpan {
            ranks: 1,
            domains: 1,
            placement: Placement { ranks: 1, per_domain: 1 },
            tier: SpanTier::Local,
            net_share: 1.0,
        }; 6];
        let mut ids = [None; 6];
        // On NVL72 racks, EP (then TP, CP) blocks that do not divide the rack take segments.
        let seg = super::placement::segment_fill(self.topo, par).map(|f| super::placement::segmented(self.topo, f));
        for grp in Group::ALL {
            let s = self.span_on(seg.as_ref(), par, grp);
            spans[g(grp)] = s;
            ids[g(grp)] = self.comms.comm(seg.as_ref().unwrap_or(self.topo), &s).map_err(|e| placement_error(par, grp, e))?;
        }
        let t = par.tp as f64;
        let ep = par.ep as f64;
        let dense_total = w.dense_layer_count();
        let attn = (w.attn_params() + w.norm_params()) as f64;
        let dense_layer = attn + w.dense_mlp_params() as f64;
        let moe_shared = attn + w.moe_shared_params() as f64;
        let experts = w.moe.map_or(0.0, |m| m.experts as f64) * w.expert_params() as f64;
        let embed_table = w.vocab as f64 * w.hidden as f64;
        let pos = if w.positions == Positions::Learned { (w.seq as f64) * w.hidden as f64 } else { 0.0 };
        let stage = |s: u32| {
            let lp = par.stage_layers(w.layers, s);
            let first = par.stage_first_layer(w.layers, s);
            let dense = dense_total.saturating_sub(first).min(lp);
            let moe = lp - dense;
            let embedding = s == 0;
            let head = s + 1 == par.pp;
            let mut dp = (dense as f64 * dense_layer + moe as f64 * moe_shared) / t;
            if embedding {
                dp += embed_table / t + pos;
            }
            if head {
                // Untied models hold a separate output matrix; tied ones a copy when PP > 1.
                if !w.tied_embeddings || par.pp > 1 {
                    dp += embed_table / t;
                }
                dp += 2.0 * w.hidden as f64;
            }
            StageParams { dense_layers: dense, moe_layers: moe, embedding, head, dense_params: dp, expert_params: moe as f64 * experts / (par.etp() as f64 * ep) }
        };
        let mid = if par.pp > 2 { par.pp / 2 } else { par.pp - 1 };
        let stages = [stage(0), stage(mid), stage(par.pp - 1)];
        let gb = self.fw.grad_bytes();
        let s0 = stages[0];
        let dp_id = ids[g(Group::Dp)];
        let edp_id = ids[g(Group::ExpertDp)];
        let grad_allreduce = self.comms.time(dp_id, Collective::AllReduce, s0.dense_params * gb)?
            + self.comms.time(edp_id, Collective::AllReduce, s0.expert_params * gb)?;
        let grad_reduce_scatter = self.comms.time(dp_id, Collective::ReduceScatter, s0.dense_params * gb)?
            + self.comms.time(edp_id, Collective::ReduceScatter, s0.expert_params * gb)?;
        let param_all_gather = self.comms.time(dp_id, Collective::AllGather, s0.dense_params * ACT)?
            + self.comms.time(edp_id, Collective::AllGather, s0.expert_params * ACT)?;
        let embed_sync = if par.pp > 1 && w.tied_embeddings {
            let pp_span = spans[g(Group::Pp)];
            let per = if pp_span.domains <= 1 { 2 } else { 1 };
            let id = self.comms.comm_for(self.topo, Placement { ranks: 2, per_domain: per }).map_err(|e| placement_error(par, Group::Pp, e))?;
            self.comms.time(Some(id), Collective::AllReduce, embed_table / t * gb)?
        } else {
            0.0
        };
        let channels = self.comms.channels(dp_id).max(self.comms.channels(edp_id)) as f64;
        Ok(Layout {
            par: *par,
            spans,
            ids,
            stages,
            grad_allreduce,
            grad_reduce_scatter,
            param_all_gather,
            embed_sync,
            dp_sm_fraction: (channels / self.gpu.class.sms as f64).min(1.0),
            z3_dense: dense_layer / t,
            z3_moe_shared: moe_shared / t,
            z3_moe_experts: experts / (par.etp() as f64 * ep),
        })
    }

    /// Everything that depends on the micro-batch size, for `layout`.
    pub fn micro(&mut self, layout: &Layout, micro_batch: u32) -> Result<Micro> {
        let w = self.work;
        let par = &layout.par;
        let with_mb = Parallel { micro_batch, ..*par };
        let sp = with_mb.sp(w);
        let compute = self.stage_compute(par.tp, par.cp, par.ep | (par.etp() << 16), micro_batch, sp);
        let t = par.tp as f64;
        let s_loc = w.seq as f64 / par.cp as f64;
        let tok = micro_batch as f64 * s_loc;
        let tok_sp = if sp { tok / t } else { tok };
        let h = w.hidden as f64;
        let act = tok * h * ACT;
        let tp_id = layout.ids[g(Group::Tp)];
        let (ag, rs, ar) = (
            self.comms.time(tp_id, Collective::AllGather, act)?,
            self.comms.time(tp_id, Collective::ReduceScatter, act)?,
            self.comms.time(tp_id, Collective::AllReduce, act)?,
        );
        // Forward: two all-reduces (Megatron's g operators) or, with SP, all-gather before and
        // reduce-scatter after each block. Backward: the conjugates; SP's re-gather of the
        // input for the weight gradient overlaps the input-gradient matmul and is not counted.
        // With SP, backward per block: all-gather of the output gradient (exposed), re-gather
        // of the input for the weight gradient and reduce-scatter of the input gradient (both
        // under the matmuls when the framework overlaps them: then they cost the SMs their
        // NCCL channels take; else exposed).
        let tp_steal = (self.comms.channels(tp_id) as f64 / self.gpu.class.sms as f64).min(1.0);
        // With TP communication overlap the all-gathers and reduce-scatters are pipelined with
        // the GEMMs that consume or produce them: exposed is what the GEMMs cannot cover plus
        // the SMs the copies occupy meanwhile.
        // That pipelining (Transformer Engine's userbuffers) reads and writes the peers' memory
        // directly over NVLink/NVSwitch, so it only runs when the TP group sits inside one
        // scale-up domain (NeMo's `tp_comm_overlap` needs TP within the NVLink domain); a TP
        // group that crosses the network runs its collectives through NCCL, exposed.
        let tp_in_domain = matches!(layout.spans[g(Group::Tp)].tier, SpanTier::Local | SpanTier::ScaleUp);
        let tp_overlap = self.fw.overlap_tp_comm && sp && tp_in_domain;
        let hide = |comm: f64, window: f64| (comm - window).max(0.0) + tp_steal * comm.min(window);
        let under = |comm: f64, gemm: f64| if tp_overlap { hide(comm, gemm) } else { comm };
        let tp_dense = if par.tp <= 1 {
            (0.0, 0.0)
        } else if sp && tp_in_domain {
            let hidden = if self.fw.overlap_sp_backward { tp_steal } else { 1.0 };
            (under(2.0 * (ag + rs), compute.dense.gemm_fwd), under(2.0 * ag + 2.0 * hidden * (ag + rs), compute.dense.gemm_bwd))
        } else if sp {
            // Across domains: the forward's gathers and scatters and the backward's gather of
            // the output gradient are exposed; the asynchronous re-gather and reduce-scatter
            // of the backward (NCCL on a side stream) hide only behind the backward GEMMs, and
            // take their channels' SMs meanwhile.
            let bwd_async = if self.fw.overlap_sp_backward { hide(2.0 * (ag + rs), compute.dense.gemm_bwd) } else { 2.0 * (ag + rs) };
            (2.0 * (ag + rs), 2.0 * ag + bwd_async)
        } else {
            (2.0 * ar, 2.0 * ar)
        };
        let tp_moe = match w.moe {
            Some(m) if par.tp > 1 => {
                // Routed tokens are gathered and scattered over the expert-TP ranks (the first
                // `etp` of each TP group when folded; none with expert-TP 1).
                let etp = par.etp();
                let routed = act * m.top_k as f64 * etp as f64 / par.tp as f64;
                let (ag_r, rs_r) = if etp == par.tp {
                    (self.comms.time(tp_id, Collective::AllGather, routed)?, self.comms.time(tp_id, Collective::ReduceScatter, routed)?)
                } else if etp > 1 {
                    let per = etp.min(layout.spans[g(Group::Tp)].placement.per_domain.max(1));
                    let id = Some(self.comms.comm_for(self.topo, Placement { ranks: etp, per_domain: per })?);
                    (self.comms.time(id, Collective::AllGather, routed)?, self.comms.time(id, Collective::ReduceScatter, routed)?)
                } else {
                    (0.0, 0.0)
                };
                let shared = if m.shared_ffn > 0 { ag + rs } else { 0.0 };
                let one = ag + rs + ag_r + rs_r + shared;
                (under(one, compute.moe.gemm_fwd), under(one, compute.moe.gemm_bwd))
            }
            _ => (0.0, 0.0),
        };
        // CP: ring exchange of this rank's K and V chunk, cp - 1 steps, overlapped with the
        // attention of the chunk in hand; backward also returns dK and dV.
        // The transfers that do overlap still take the SMs of their NCCL channels; a ring that
        // crosses the network is slower per step and shows once it outruns the attention.
        let cp = if par.cp > 1 {
            let cp_id = layout.ids[g(Group::Cp)];
            let kv_bytes = tok * 2.0 * w.kv_dim() as f64 / t * ACT;
            let attn_f = compute.dense.attn_fwd.max(compute.moe.attn_fwd);
            let attn_b = compute.dense.attn_bwd.max(compute.moe.attn_bwd);
            let cp_steal = (self.comms.channels(cp_id) as f64 / self.gpu.class.sms as f64).min(1.0);
            if self.fw.cp_all_gather {
                // All-gather CP (Llama 3 §3.3.2, torchtitan's default rotate method): K and V of
                // the whole sequence gathered before the attention, exposed; the backward
                // reduce-scatters dK and dV.
                let full = kv_bytes * par.cp as f64;
                (self.comms.time(cp_id, Collective::AllGather, full)?, self.comms.time(cp_id, Collective::ReduceScatter, full)?)
            } else {
                // Ring attention: cp - 1 steps, each passing a K/V block to the next rank while
                // the attention of the block in hand runs (backward also returns dK and dV).
                let sr = self.comms.time(cp_id, Collective::SendRecv, kv_bytes)?;
                let sr2 = self.comms.time(cp_id, Collective::SendRecv, 2.0 * kv_bytes)?;
                let steps = (par.cp - 1) as f64;
                let per_f = attn_f / par.cp as f64;
                let per_b = attn_b / par.cp as f64;
                let exposed = |comm: f64, window: f64| steps * ((comm - window).max(0.0) + cp_steal * comm.min(window));
                (exposed(sr, per_f), exposed(sr2, per_b))
            }
        } else {
            (0.0, 0.0)
        };
        // EP: all-to-all dispatch and combine of each token's top-k copies.
        let ep = match w.moe {
            Some(m) if par.ep > 1 => {
                let bytes = tok_sp * m.top_k as f64 * h * ACT;
                let ep_id = layout.ids[g(Group::Ep)];
                let full = self.comms.time(ep_id, Collective::AllToAll, bytes)?;
                let span = layout.spans[g(Group::Ep)];
                let share = m.network_copy_share(span.domains);
                #[cfg(any(test, feature = "software"))]
                let library = self.fw.ep_library;
                #[cfg(not(any(test, feature = "software")))]
                let library: Option<crate::ep::Library> = {
                    debug_assert!(self.fw.ep_library.is_none(), "an EP library given to a build without the model's `software` feature");
                    None
                };
                let a2a = if let Some(lib) = library {
                    library_exchange_us(self.topo, lib, span.placement.per_domain, span.placement.domains(), tok_sp, w.hidden, &m)?
                } else if share < 1.0 || (self.fw.ep_node_dispatch && span.domains > 1) {
                    // Node-limited routing, or a dispatcher that sends per node (DeepEP,
                    // HybridEP): hierarchical dispatch and combine (one network copy per
                    // destination node, NVLink fan-out alongside; DeepSeek-V3 §3.2.2), timed by
                    // the EP module; never slower than sending every copy.
                    let x = crate::ep::LayerExchange {
                        per_domain: span.placement.per_domain,
                        domains: span.placement.domains(),
                        tokens: tok_sp,
                        hidden: w.hidden,
                        top_k: m.top_k,
                        experts: m.experts,
                        max_nodes_per_token: m.max_nodes_per_token,
                        bytes_per_element: ACT,
                    };
                    let (d, c) = crate::ep::layer_exchange_us(self.topo, &x);
                    ((d + c) / 2.0).min(full)
                } else {
                    full
                };
                if self.fw.overlap_moe_a2a {
                    // The SMs the all-to-all holds meanwhile: its NCCL channels, or at least a
                    // DeepEP-class dispatcher's own kernels.
                    let nccl = self.comms.channels(layout.ids[g(Group::Ep)]) as f64;
                    let sms = if self.fw.ep_node_dispatch { nccl.max(DEEPEP_SMS) } else { nccl };
                    let steal = (sms / self.gpu.class.sms as f64).min(1.0);
                    // The pair's exposure, split evenly between the forward and the backward.
                    let exposed = a2a_overlap_exposed(a2a, &compute.moe, steal);
                    (exposed / 2.0, exposed / 2.0)
                } else {
                    (2.0 * a2a, 2.0 * a2a)
                }
            }
            _ => (0.0, 0.0),
        };
        // PP: activations of one micro-batch to the next stage; split over TP ranks (SP, or
        // scatter/gather) and re-gathered over the scale-up fabric when not SP.
        let p2p = if par.pp > 1 {
            let split = sp || (self.fw.pp_scatter_gather && par.tp > 1);
            let bytes = if split { act / t } else { act };
            let regather = if split && !sp { ag } else { 0.0 };
            self.comms.time(layout.ids[g(Group::Pp)], Collective::SendRecv, bytes)? + regather
        } else {
            0.0
        };
        // ZeRO-3: gather each layer's weights (BF16), reduce-scatter its gradients.
        let dp_id = layout.ids[g(Group::Dp)];
        let edp_id = layout.ids[g(Group::ExpertDp)];
        let gb = self.fw.grad_bytes();
        let eff = self.fw.zero3_collective_efficiency.clamp(1e-3, 1.0);
        let z3_dense = (
            self.comms.time(dp_id, Collective::AllGather, layout.z3_dense * ACT)? / eff,
            self.comms.time(dp_id, Collective::ReduceScatter, layout.z3_dense * gb)? / eff,
        );
        let z3_moe = if w.moe.is_some() {
            (
                (self.comms.time(dp_id, Collective::AllGather, layout.z3_moe_shared * ACT)?
                    + self.comms.time(edp_id, Collective::AllGather, layout.z3_moe_experts * ACT)?)
                    / eff,
                (self.comms.time(dp_id, Collective::ReduceScatter, layout.z3_moe_shared * gb)?
                    + self.comms.time(edp_id, Collective::ReduceScatter, layout.z3_moe_experts * gb)?)
                    / eff,
            )
        } else {
            (0.0, 0.0)
        };
        Ok(Micro {
            micro_batch,
            m: with_mb.micro_batches(w),
            compute,
            tp_dense,
            tp_moe,
            cp,
            ep,
            p2p,
            z3_dense,
            z3_moe,
        })
    }

    /// Step time and memory of `layout` + `micro` with this interleave, recompute and ZeRO
    /// stage: arithmetic only.
    pub fn assemble(&self, layout: &Layout, micro: &Micro, interleave: u32, recompute: Recompute, zero: u8) -> Summary {
        let par = Parallel { micro_batch: micro.micro_batch, interleave, recompute, zero, ..layout.par };
        let w = self.work;
        let c = &micro.compute;
        let full = recompute == Recompute::Full;
        let steal = layout.dp_sm_fraction;
        let acc_bytes = self.fw.grad_accumulation_bytes(micro.m);
        let acc = |params: f64| if acc_bytes > 0.0 { self.gpu.stream_us(params * acc_bytes, 1.0) } else { 0.0 };
        let overlap = self.fw.overlap_param_gather;
        // Per-layer work, split by component: (fwd total, bwd total, compute, tp, cp, ep, dp).
        let layer = |lc: &LayerCompute, tp: (f64, f64), z3: (f64, f64), is_moe: bool| {
            let rc = match recompute {
                Recompute::None => 0.0,
                Recompute::Selective => lc.core_fwd,
                Recompute::Full => lc.fwd,
            };
            let rc_c = if full { 1.0 } else { 0.0 };
            let tp_t = tp.0 + tp.1 + rc_c * tp.0;
            let cp_t = micro.cp.0 + micro.cp.1 + rc_c * micro.cp.0;
            let ep_t = if is_moe { micro.ep.0 + micro.ep.1 + rc_c * micro.ep.0 } else { 0.0 };
            let compute = lc.fwd + lc.bwd + rc + acc(lc.params);
            // ZeRO-3: the gather for this layer overlaps all of the previous layer (prefetched, own stream), exchanges
            // too (else faster GEMMs expose one time twice); what does not fit, and the SMs it takes, is exposed.
            let (ep_f, ep_b) = if is_moe { micro.ep } else { (0.0, 0.0) };
            let (fwd_window, bwd_window) = (lc.fwd + tp.0 + micro.cp.0 + ep_f, lc.bwd + tp.1 + micro.cp.1 + ep_b);
            let dpz = if zero == 3 {
                let (ag, rs) = z3;
                let hide = |comm: f64, window: f64| {
                    if overlap {
                        (comm - window).max(0.0) + steal * comm.min(window)
                    } else {
                        comm
                    }
                };
                // Without resharding after the forward the backward needs no second gather.
                let bwd_ag = if self.fw.reshard_after_forward { ag } else { 0.0 };
                hide(ag, fwd_window) + hide(bwd_ag + rs, bwd_window) + if full { hide(ag, fwd_window) } else { 0.0 }
            } else if zero == 2 && !self.fw.grad_sync_once {
                let rs = z3.1;
                (rs - bwd_window).max(0.0) + steal * rs.min(bwd_window)
            } else {
                0.0
            };
            (compute, tp_t, cp_t, ep_t, dpz)
        };
        let dense = layer(&c.dense, micro.tp_dense, micro.z3_dense, false);
        let moe = layer(&c.moe, micro.tp_moe, micro.z3_moe, true);
        let fwd_of = |lc: &LayerCompute, tp: (f64, f64), ep: bool| lc.fwd + tp.0 + micro.cp.0 + if ep { micro.ep.0 } else { 0.0 };
        let dense_fwd = fwd_of(&c.dense, micro.tp_dense, false);
        let moe_fwd = fwd_of(&c.moe, micro.tp_moe, true);
        #[derive(Clone, Copy, Default)]
        struct Work {
            compute: f64,
            tp: f64,
            cp: f64,
            ep: f64,
            dp: f64,
            fwd: f64,
        }
        impl Work {
            fn total(&self) -> f64 {
                self.compute + self.tp + self.cp + self.ep + self.dp
            }
        }
        let stage_work = |sp: &StageParams, with_ends: bool| {
            let (nd, nm) = (sp.dense_layers as f64, sp.moe_layers as f64);
            let mut wk = Work {
                compute: nd * dense.0 + nm * moe.0,
                tp: nd * dense.1 + nm * moe.1,
                cp: nd * dense.2 + nm * moe.2,
                ep: nd * dense.3 + nm * moe.3,
                dp: nd * dense.4 + nm * moe.4,
                fwd: nd * dense_fwd + nm * moe_fwd,
            };
            if with_ends && sp.embedding {
                wk.compute += c.embed_fwd + c.embed_bwd;
                wk.fwd += c.embed_fwd;
            }
            if with_ends && sp.head {
                wk.compute += c.head_fwd + c.head_bwd + acc(c.head_params);
                wk.fwd += c.head_fwd;
            }
            if zero == 3 && overlap && with_ends {
                // The first layer's gather of each micro-batch cannot be prefetched.
                wk.dp += if nd > 0.0 { micro.z3_dense.0 } else { micro.z3_moe.0 };
            }
            wk
        };
        let works = [stage_work(&layout.stages[0], true), stage_work(&layout.stages[1], true), stage_work(&layout.stages[2], true)];
        let mut crit = works[0];
        for wk in &works[1..] {
            if wk.total() > crit.total() {
                crit = *wk;
            }
        }
        let typical = stage_work(&layout.stages[2], false);
        let m = micro.m as f64;
        let p = par.pp as f64;
        let v = interleave as f64;
        let bubble = if par.pp > 1 { (p - 1.0) / v * typical.total().min(crit.total()) } else { 0.0 };
        // Blocking sends and receives are all exposed: 2 (m v + p - 1) per stage. Overlapped,
        // the interleaved schedule still waits on its transfers in the fill and drain, p - 1
        // each, and at every wrap from the last stage back to the first: Megatron runs the
        // micro-batches of each virtual stage in groups of p, so the first stage finishes a
        // group p transfers before the group's output has come round the ring (v - 1 wraps
        // forward, v - 1 backward). More virtual stages shrink the bubble as (p-1)/(v m) and
        // add those waits, so v has an optimum rather than "as many as there are layers".
        // Llama 3's schedule sizes its rounds freely (§3.3.2, "Batch size constraint"), so a
        // round's compute covers the trip around the ring: only the fill and drain wait.
        let p2p = if par.pp > 1 {
            let blocking = 2.0 * (m * v + p - 1.0);
            let wraps = if self.fw.flexible_interleave { 0.0 } else { (v - 1.0) * p };
            let transfers = if self.fw.overlap_p2p && interleave > 1 { (2.0 * ((p - 1.0) + wraps)).min(blocking) } else { blocking };
            transfers * micro.p2p
        } else {
            0.0
        };
        // Data-parallel traffic once per step, from the stage that finishes last (stage 0).
        let s0 = &layout.stages[0];
        let w0 = works[0];
        let bwd_window = (w0.total() - w0.fwd).max(0.0);
        let tail = (self.fw.grad_bucket_params as f64 / s0.total().max(1.0)).min(1.0);
        let hide = |comm: f64, window: f64, enabled: bool| {
            if enabled {
                (comm - window).max(comm * tail) + steal * comm.min(window)
            } else {
                comm
            }
        };
        let dp_step = match zero {
            0 => hide(layout.grad_allreduce, bwd_window, self.fw.overlap_grad_reduce),
            1 => hide(layout.grad_reduce_scatter, bwd_window, self.fw.overlap_grad_reduce) + hide(layout.param_all_gather, w0.fwd, overlap),
            // Gradients accumulated unsharded and reduce-scattered once (see the framework).
            2 if self.fw.grad_sync_once => hide(layout.grad_reduce_scatter, bwd_window, self.fw.overlap_grad_reduce) + hide(layout.param_all_gather, w0.fwd, overlap),
            2 => hide(layout.param_all_gather, w0.fwd, overlap),
            _ => 0.0,
        } + layout.embed_sync;
        // Optimizer on the largest shard.
        let shard = |sp: &StageParams| {
            let dpcp = (par.dp * par.cp) as f64;
            let edp = par.expert_dp();
            if zero >= 1 {
                sp.dense_params / dpcp + sp.expert_params / edp
            } else {
                sp.total()
            }
        };
        let opt_params = shard(&layout.stages[0]).max(shard(&layout.stages[2])).max(shard(&layout.stages[1]));
        // The optimizer and the step's host work outside the layers (data, loss and norm
        // reductions, logging).
        let optimizer = self.gpu.stream_us(opt_params * self.fw.optimizer_bytes_per_param(), OPT_KERNELS) + self.fw.step_overhead_us;
        let breakdown = Breakdown {
            compute: Micros(m * crit.compute),
            tp: Micros(m * crit.tp),
            bubble: Micros(bubble),
            pp_p2p: Micros(p2p),
            dp: Micros(m * crit.dp + dp_step),
            cp: Micros(m * crit.cp),
            ep: Micros(m * crit.ep),
            optimizer: Micros(optimizer),
        };
        let step = breakdown.total();
        let mem = memory(w, &par, &self.fw, self.flash(), micro.m, self.topo.gpu, &[
            StageShape::of(&layout.stages[0], 0, par.pp),
            StageShape::of(&layout.stages[2], par.pp - 1, par.pp),
        ]);
        Summary { par, m: micro.m, step, breakdown, memory: mem }
    }

    /// A lower bound on the step time of every candidate sharing `layout`, `micro` and
    /// `recompute`: the kernels of the slowest stage, all micro-batches, nothing else.
    pub fn compute_bound(&self, layout: &Layout, micro: &Micro, recompute: Recompute) -> f64 {
        let c = &micro.compute;
        let rerun = |lc: &LayerCompute| match recompute {
            Recompute::None => 0.0,
            Recompute::Selective => lc.core_fwd,
            Recompute::Full => lc.fwd,
        };
        let per = |lc: &LayerCompute| lc.fwd + lc.bwd + rerun(lc);
        let (pd, pm) = (per(&c.dense), per(&c.moe));
        let stage = |sp: &StageParams| {
            sp.dense_layers as f64 * pd
                + sp.moe_layers as f64 * pm
                + if sp.embedding { c.embed_fwd + c.embed_bwd } else { 0.0 }
                + if sp.head { c.head_fwd + c.head_bwd } else { 0.0 }
        };
        let worst = layout.stages.iter().map(stage).fold(0.0, f64::max);
        micro.m as f64 * worst
    }

    /// Evaluates one layout.
    pub fn summary(&mut self, par: &Parallel) -> Result<Summary> {
        par.validate_for(self.work, self.topo.total_gpus, &self.fw)?;
        let layout = self.layout(par)?;
        let micro = self.micro(&layout, par.micro_batch)?;
        Ok(self.assemble(&layout, &micro, par.interleave, par.recompute, par.zero))
    }

    /// Evaluates one layout into a full report.
    pub fn evaluate(&mut self, par: &Parallel) -> Result<StepReport> {
        par.validate_for(self.work, self.topo.total_gpus, &self.fw)?;
        let layout = self.layout(par)?;
        let micro = self.micro(&layout, par.micro_batch)?;
        Ok(self.report(&layout, &self.assemble(&layout, &micro, par.interleave, par.recompute, par.zero)))
    }

    /// The step time of `par` under [`Framework::oldest_release`], s (own per-stage compute).
    fn oldest_release_step_s(&mut self, layout: &Layout, par: &Parallel) -> Option<f64> {
        let early = self.fw.oldest_release(self.work.moe.is_some())?;
        let (today, compute) = (std::mem::replace(&mut self.fw, early), std::mem::take(&mut self.compute));
        let step = self.micro(layout, par.micro_batch).map(|m| self.assemble(layout, &m, par.interleave, par.recompute, par.zero).step.seconds());
        (self.fw, self.compute) = (today, compute);
        step.ok()
    }

    /// Turns a summary into the user-facing report.
    pub fn report(&mut self, layout: &Layout, s: &Summary) -> StepReport {
        let w = self.work;
        let n = self.topo.total_gpus as f64;
        let secs = s.step.seconds().max(1e-12);
        let model = w.model_flops_per_step();
        // HFU counts as MFU does (the papers' full-attention convention) plus the recompute,
        // so HFU >= MFU always; what fused kernels actually execute (the causally masked
        // half skipped) is `Workload::executed_flops_per_step`.
        let hw = w.hardware_flops_per_step(s.par.recompute);
        let peak = super::efficiency::dense_peak(self.topo.gpu, w.precision);
        let model_tflops = model / secs / n / 1e12;
        let hw_tflops = hw / secs / n / 1e12;
        let b = &s.breakdown;
        let exposed = |grp: Group| match grp {
            Group::Tp => b.tp.0,
            Group::Cp => b.cp.0,
            Group::Dp | Group::ExpertDp => b.dp.0,
            Group::Ep => b.ep.0,
            Group::Pp => b.pp_p2p.0,
        };
        let class = super::bands::ErrorClass::of(&self.fw, w.moe.is_some(), self.topo.gpu.arch);
        let band = super::bands::band(&class);
        let band_extrapolated = super::bands::extrapolated(&class, self.topo.total_gpus);
        let tokens_per_s = w.tokens_per_step() as f64 / secs;
        let oldest = self.oldest_release_step_s(layout, &s.par);
        let groups = Group::ALL
            .iter()
            .filter(|grp| w.moe.is_some() || !matches!(grp, Group::Ep | Group::ExpertDp))
            .map(|grp| {
                let sp = layout.spans[g(*grp)];
                GroupReport {
                    group: *grp,
                    ranks: sp.ranks,
                    per_domain: sp.placement.per_domain,
                    domains: sp.domains,
                    tier: sp.tier,
                    net_share: sp.net_share,
                    exposed_us: if sp.ranks > 1 { exposed(*grp) } else { 0.0 },
                }
            })
            .collect();
        #[cfg_attr(not(any(test, feature = "calibrate")), allow(unused_mut))]
        let mut r = StepReport {
            mapping: s.par,
            framework: self.fw.name.to_string(),
            micro_batches: s.m,
            step_time_s: secs,
            tokens_per_s,
            model_tflops_per_gpu: model_tflops,
            hardware_tflops_per_gpu: hw_tflops,
            mfu: model_tflops / peak.0,
            hfu: hw_tflops / peak.0,
            peak_tflops: peak,
            memory_gib_per_gpu: s.memory.total_gib(),
            fits: s.memory.fits,
            breakdown: s.breakdown,
            memory: s.memory,
            groups,
            bottleneck: super::explain::bottleneck(self.topo, self.work, layout, s),
            error_band_pct: band.0,
            validated_cases: band.1,
            band_measured_gpus: super::bands::measured_gpus(&class),
            band_extrapolated,
            // With the release left open the interval spans the releases: its lower end reaches
            // the oldest release's own interval (its throughput is `secs / early` of this one).
            interval: crate::calibration::apply::training_ratios(&class).map(|(lo, hi)| [lo * oldest.map_or(1.0, |early| (secs / early).min(1.0)), hi]),
            oldest_release_step_s: oldest,
            ecmp_ring_fraction: (self.topo.nic.routing == crate::catalog::Routing::Ecmp).then(|| self.comms.ring_routing(layout.ids[g(Group::Dp)])),
        };
        // On a cluster as measured, the fit's uncertainty on the step's exposed collectives
        // joins the class's interval (`Calibration::step_u90`), as `train --calibration` states it.
        #[cfg(any(test, feature = "calibrate"))]
        if let (Some(f), Some([lo, hi])) = (&self.topo.fitted, r.interval) {
            if let Some(u) = f.step_u90(r.exposed_comm_us(), r.step_time_s * 1e6, self.topo.domains) {
                let (lo, hi) = crate::fitted::with_fit((lo, hi), u);
                r.interval = Some([lo, hi]);
            }
        }
        r
    }
}

/// One dispatch-or-combine of a layer (their mean, µs) with `lib`'s normal kernels for an EP
/// group of `per_domain` GPUs in each of `domains` scale-up domains, `tokens` per rank, BF16
/// activations, uniform routing (the step's compute carries the experts' load imbalance): the
/// time `fabricscope ep --ep-library` gives the same group. A library that cannot run it (no
/// normal kernels, a group past its size) is an error naming `ep_library`.
#[cfg_attr(not(any(test, feature = "software")), allow(dead_code))]
fn library_exchange_us(topo: &Topology, lib: crate::ep::Library, per_domain: u32, domains: u32, tokens: f64, hidden: u32, m: &super::workload::Moe) -> Result<f64> {
    use crate::ep::{EpInput, EpPlacement};
    let ranks = per_domain * domains;
    let input = EpInput::training(ranks, tokens, hidden, m.top_k, m.experts, m.max_nodes_per_token, Some(lib));
    let params = lib.params();
    if params.normal.is_none() {
        let normal: Vec<&str> = crate::ep::Library::ALL.iter().filter(|l| l.params().normal.is_some()).map(|l| l.id()).collect();
        return Err(ModelError::new("ep_library", format!("{} has only low-latency (decode) kernels; training dispatches with normal kernels: use one of {}", lib.name(), normal.join(", "))));
    }
    let pl = EpPlacement { ranks, per_domain, domains, scale_up_only: domains <= 1 };
    let r = crate::ep::evaluate_with(topo, &input, pl, lib, &params).map_err(|e| ModelError::new("ep_library", format!("{} cannot run this layout's EP group: {}", lib.name(), e.message)))?;
    Ok((r.dispatch.time_us + r.combine.time_us) / 2.0)
}

/// Exposed all-to-all time, µs, of one MoE layer's forward paired with another micro-batch's
/// backward of that layer under Megatron-Core's 1F1B all-to-all overlap
/// (`--overlap-moe-expert-parallel-comm`), each of the four all-to-alls taking `a2a` µs.
/// The pair runs in three phases, the communication stream against the compute stream
/// (Megatron-LM `megatron/core/models/common/model_chunk_schedule_plan.py`,
/// `TransformerLayerSchedulePlan.run`; the same pairing as DeepSeek-V3's DualPipe, Fig. 4):
/// 1. backward combine | forward attention and router (`pre_dispatch`);
/// 2. forward dispatch, then backward dispatch | expert backward (data gradient, then weight
///    gradient, delayed; half of the backward each, the same GEMM FLOPs), then expert forward,
///    which waits for the forward dispatch, while the backward dispatch waits for the data
///    gradient;
/// 3. forward combine | backward attention and router.
///
/// A communication can hide only under the compute of its own phase, so an all-to-all longer
/// than the attention beside it shows even when the experts would have had room. What is
/// hidden still takes the SMs of its channels (`steal`, DeepSeek-V3 §3.2.2: 20 of 132 SMs).
pub(crate) fn a2a_overlap_exposed(a2a: f64, lc: &LayerCompute, steal: f64) -> f64 {
    let (ef, eb) = (lc.expert_fwd, lc.expert_bwd);
    let (pre_f, pre_b) = ((lc.fwd - ef).max(0.0), (lc.bwd - eb).max(0.0));
    let dgrad = eb / 2.0;
    let p1 = a2a.max(pre_f);
    let p2 = (a2a.max(dgrad) + a2a).max(a2a.max(eb) + ef);
    let p3 = a2a.max(pre_b);
    let compute = lc.fwd + lc.bwd;
    let exposed = (p1 + p2 + p3 - compute).max(0.0);
    exposed + steal * (4.0 * a2a - exposed).max(0.0)
}

#[cfg(test)]
#[path = "step_tests.rs"]
mod tests;
