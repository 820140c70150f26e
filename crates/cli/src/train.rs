//! `fabricscope train`: one training step of a transformer job on a cluster, for a given
//! parallel layout: step time and its breakdown, tokens/s, TFLOP/s per GPU, MFU and HFU,
//! memory per GPU against HBM, where each parallel group's traffic goes, and the bottleneck.
//! The workload and layout flags are shared with `fabricscope search`.

use crate::cluster_args::{bool_parser, count_parser, unknown, ClusterArgs};
use fabricscope_model::limits;
use crate::error::CliError;
use crate::flow_args::FlowArgs;
use crate::output;
use crate::train_flow::StragglerArgs;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Args, Command};
use std::ffi::OsStr;
use fabricscope_model::training::{
    preset, preset_ids, Evaluator, Framework, Mlp, Moe, NemoRelease, Parallel, Positions, Precision, RankOrder, Recompute, SpanTier, StepReport, Workload,
};
use fabricscope_model::units::Bytes;
use fabricscope_model::Topology;
use serde::Serialize;

/// The transformer's size, shared by `train`, `search` and `serve` (flattened into each
/// command's workload or model flags, under that heading).
#[derive(Args, Clone, Debug, Default)]
pub struct ShapeArgs {
    /// Transformer layers
    #[arg(long, value_name = "N", value_parser = count_parser(limits::LAYERS))]
    pub layers: Option<u32>,
    /// Hidden size
    #[arg(long, value_name = "N", value_parser = count_parser(limits::HIDDEN))]
    pub hidden: Option<u32>,
    /// Attention (query) heads
    #[arg(long, value_name = "N", value_parser = count_parser(limits::HEADS))]
    pub heads: Option<u32>,
    /// Key/value heads (grouped-query attention) [default: --heads]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::KV_HEADS))]
    pub kv_heads: Option<u32>,
}

/// The mixture of experts, shared by `train`, `search` and `serve` like [`ShapeArgs`].
#[derive(Args, Clone, Debug, Default)]
pub struct ExpertArgs {
    /// Routed experts per MoE layer (makes the model a mixture of experts)
    #[arg(long, value_name = "N", value_parser = count_parser(limits::EXPERTS))]
    pub experts: Option<u32>,
    /// Experts each token is routed to [default: 2]
    #[arg(long, value_name = "K", value_parser = count_parser(limits::TOP_K))]
    pub top_k: Option<u32>,
    /// Intermediate size of one expert [default: --ffn]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::EXPERT_FFN))]
    pub expert_ffn: Option<u32>,
    /// Intermediate size of the always-active shared expert(s) [default: 0, or the preset's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::SHARED_EXPERT_FFN))]
    pub shared_expert_ffn: Option<u32>,
    /// Leading layers with a dense MLP instead of experts [default: 0, or the preset's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::MOE_DENSE_LAYERS))]
    pub moe_dense_layers: Option<u32>,
}

impl ExpertArgs {
    /// Whether any expert flag is given.
    fn any(&self) -> bool {
        self.experts.is_some() || self.top_k.is_some() || self.expert_ffn.is_some() || self.shared_expert_ffn.is_some() || self.moe_dense_layers.is_some()
    }
}

/// The model, one struct for `train`, `search` and `serve` (flattened into each): a catalog
/// entry by id or alias (`fabricscope_model::training::MODELS`), and its shape flag by flag;
/// explicit flags override the entry.
#[derive(Args, Clone, Debug, Default)]
pub struct ModelFlags {
    /// Named model from the catalog whose shape the other model flags override
    #[arg(long, value_name = "MODEL", value_parser = model_id_parser())]
    pub model: Option<&'static str>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Dimension of one head (Qwen3 sets it apart from hidden / heads) [default: hidden / heads,
    /// or the model's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::HEAD_DIM))]
    pub head_dim: Option<u32>,
    /// Feed-forward (MLP) intermediate size [default: the model's; 4 x hidden for a custom one]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::FFN))]
    pub ffn: Option<u32>,
    /// Feed-forward kind [default: the model's; for a custom model gelu when trained, swiglu
    /// when served]
    #[arg(long, value_name = "KIND", value_parser = mlp_parser())]
    pub mlp: Option<Mlp>,
    /// Vocabulary size
    #[arg(long, value_name = "N", value_parser = count_parser(limits::VOCAB))]
    pub vocab: Option<u32>,
    #[command(flatten)]
    pub experts: ExpertArgs,
}

/// The job: the model (shared with `serve`), then what only training has.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Workload")]
pub struct WorkloadArgs {
    #[command(flatten)]
    pub dims: ModelFlags,
    /// Sequence length in tokens
    #[arg(long, value_name = "N", value_parser = count_parser(limits::SEQ))]
    pub seq: Option<u32>,
    /// Sequences per optimizer step
    #[arg(long, value_name = "N", value_parser = count_parser(limits::GLOBAL_BATCH))]
    pub global_batch: Option<u32>,
    /// Node-limited routing: each token's experts on at most N nodes, one network copy per
    /// node then NVLink fan-out (DeepSeek-V3: 4) [default: 0, no limit, or the preset's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::MAX_NODES_PER_TOKEN))]
    pub max_nodes_per_token: Option<u32>,
    /// Position encoding: learned (GPT) or rope [default: learned, or the preset's]
    #[arg(long, value_name = "KIND", value_parser = positions_parser())]
    pub positions: Option<Positions>,
    /// Input and output embeddings share one matrix [default: true, or the preset's]
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, value_parser = bool_parser())]
    pub tied_embeddings: Option<bool>,
    /// Dropout in attention and MLP [default: true, or the preset's]
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, value_parser = bool_parser())]
    pub dropout: Option<bool>,
    /// Linear-layer precision: bf16, fp8, or nvfp4 (Transformer Engine's NVFP4 recipe, NVIDIA Blackwell only: b200, gb200, b300, gb300) [default: bf16, or the preset's]
    #[arg(long, value_name = "PRECISION", value_parser = precision_parser())]
    pub precision: Option<Precision>,
    /// Training software whose overlap and fusion behaviour to assume
    #[arg(long, value_name = "NAME", value_parser = framework_parser(), default_value = "megatron-core")]
    pub framework: Framework,
    /// EP library whose normal kernels run an MoE's dispatch and combine (deepep, pplx-garden,
    /// nccl-ep, uccl-ep, mori, trtllm; as `fabricscope ep --ep-library` times them for the
    /// layout's EP group) [default: the framework's own exchange, NCCL all-to-all or its
    /// hierarchical dispatcher, as the training calibration was fitted]
    #[arg(long, value_name = "LIBRARY", value_parser = crate::cluster_args::library_parser())]
    pub ep_library: Option<fabricscope_model::ep::Library>,
    /// NeMo container release whose MoE recipes to assume, with `--framework nemo`: 25.04, and
    /// 25.07 off GB200, ran MoE layers without CUDA graphs or the MoE kernel fusions (reported
    /// as framework nemo-25.07; 25.07 on GB200 graphed whole layers, dropping tokens:
    /// nemo-25.07-graphed), 25.09 without CUDA graphs (nemo-25.09), 25.11 and later as the
    /// calibration (nemo-25.11) [default: left open: today's prediction, an MoE interval
    /// spanning the releases]
    #[arg(long, value_name = "RELEASE", value_parser = release_parser())]
    pub release: Option<NemoRelease>,
}

/// The parallel layout.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Parallel layout")]
pub struct ParallelArgs {
    /// Tensor parallelism [train default: 1]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::TP))]
    pub tp: Option<u32>,
    /// Pipeline parallelism [train default: 1]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::PP))]
    pub pp: Option<u32>,
    /// Data parallelism [train default: GPUs / (tp x pp x cp)]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::DP))]
    pub dp: Option<u32>,
    /// Context parallelism [train default: 1]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::CP))]
    pub cp: Option<u32>,
    /// Expert parallelism, folded over each stage's TP x CP x DP GPUs with the expert TP
    /// (Megatron-Core parallel folding) [train default: 1]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::EP))]
    pub ep: Option<u32>,
    /// Tensor parallelism of the expert layers (MoE parallel folding: expert-TP x EP x
    /// expert-DP re-partition each stage's TP x CP x DP GPUs) [default: with EP 1, as NVIDIA's
    /// MoE recipes set it (Megatron-Bridge, NeMo); without EP --tp, Megatron-Core's own
    /// default]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::EXPERT_TP))]
    pub expert_tp: Option<u32>,
    /// Sequences per micro-batch [train default: 1]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::MICRO_BATCH))]
    pub micro_batch: Option<u32>,
    /// Virtual pipeline stages per GPU (interleaved 1F1B) [train default: 1]
    #[arg(long, value_name = "V", value_parser = count_parser(limits::INTERLEAVE))]
    pub interleave: Option<u32>,
    /// Activation recomputation [train default: selective]
    #[arg(long, value_name = "MODE", value_parser = recompute_parser())]
    pub recompute: Option<Recompute>,
    /// ZeRO stage: 0, 1 (distributed optimizer), 2, 3 (FSDP) [train default: 1]
    #[arg(long, value_name = "STAGE", value_parser = zero_parser())]
    pub zero: Option<u8>,
    /// Sequence parallelism inside TP groups
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, value_parser = bool_parser(), default_value = "true")]
    pub sequence_parallel: bool,
    /// Rank order, innermost first (Megatron's is tp-cp-dp-pp; EP folds over each stage's TP x CP x DP)
    #[arg(long, value_name = "ORDER", value_parser = order_parser(), default_value = "tp-cp-dp-pp")]
    pub order: RankOrder,
}

#[derive(Args, Clone, Debug)]
pub struct TrainArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub workload: WorkloadArgs,

    #[command(flatten)]
    pub parallel: ParallelArgs,

    /// Queue pairs per network connection, as NCCL_IB_QPS_PER_CONNECTION, for every collective
    /// of the step and the flow model's flows (as `collective` takes it) [default: 1, NCCL's]
    #[arg(long, value_name = "Q", allow_negative_numbers = true, value_parser = count_parser(limits::QPS_PER_CONNECTION))]
    pub qps_per_connection: Option<u32>,

    #[command(flatten)]
    pub flow: FlowArgs,

    #[command(flatten)]
    pub stragglers: StragglerArgs,

    #[command(flatten)]
    pub failures: crate::failure_args::PolicyArgs,

    #[command(flatten)]
    pub calibration: crate::calibration_arg::CalibrationArg,
}

impl WorkloadArgs {
    /// The framework (the `--release` of NeMo where given, as its recipes ran on `gpu`) with
    /// `--ep-library` applied.
    pub fn framework(&self, gpu: fabricscope_model::catalog::GpuKind) -> Framework {
        let fw = self.release.map_or(self.framework, |r| Framework::nemo_on(r, gpu));
        Framework { ep_library: self.ep_library.or(fw.ep_library), ..fw }
    }

    /// The workload: the preset (if any) with every explicit flag applied on top.
    pub fn workload(&self) -> Result<Workload, CliError> {
        let base = match self.dims.model {
            Some(id) => Some(preset(id).ok_or_else(|| CliError::new("--model", unknown("model", id, &preset_ids())))?),
            None => None,
        };
        self.workload_from(base)
    }

    /// The workload built on `base` (a model the caller resolved) with every explicit flag
    /// applied on top, checked.
    pub fn workload_from(&self, base: Option<Workload>) -> Result<Workload, CliError> {
        if self.release.is_some() && self.framework.name != "nemo" {
            return Err(CliError::new(
                "--release",
                format!("a NeMo release needs --framework nemo (got --framework {}); allowed releases: {}", self.framework.name, NemoRelease::IDS.join(", ")),
            ));
        }
        let (sh, ex) = (&self.dims.shape, &self.dims.experts);
        let had_preset = base.is_some();
        let mut w = match base {
            Some(p) => p,
            None => {
                let missing: Vec<&str> = [
                    ("--layers", sh.layers.is_none()),
                    ("--hidden", sh.hidden.is_none()),
                    ("--heads", sh.heads.is_none()),
                    ("--seq", self.seq.is_none()),
                    ("--vocab", self.dims.vocab.is_none()),
                    ("--global-batch", self.global_batch.is_none()),
                ]
                .iter()
                .filter(|x| x.1)
                .map(|x| x.0)
                .collect();
                if let Some(first) = missing.first() {
                    return Err(CliError::new(
                        *first,
                        format!(
                            "the workload needs {} (or --model with one of: {})",
                            missing.join(", "),
                            preset_ids().join(", ")
                        ),
                    ));
                }
                Workload { name: "custom".into(), ..Workload::default() }
            }
        };
        if let Some(v) = sh.layers {
            w.layers = v;
        }
        if let Some(v) = sh.hidden {
            w.hidden = v;
            if !had_preset || self.dims.ffn.is_none() && w.mlp == Mlp::Gelu {
                w.ffn = v.saturating_mul(4);
            }
            w.head_dim = 0;
        }
        if let Some(v) = sh.heads {
            w.heads = v;
            if sh.kv_heads.is_none() && (!had_preset || w.kv_heads == 0 || w.kv_heads > v || v % w.kv_heads != 0) {
                w.kv_heads = v;
            }
        }
        if let Some(v) = sh.kv_heads {
            w.kv_heads = v;
        }
        if let Some(v) = self.dims.head_dim {
            w.head_dim = v;
        }
        if let Some(v) = self.dims.ffn {
            w.ffn = v;
        }
        if let Some(v) = self.dims.mlp {
            w.mlp = v;
        }
        if let Some(v) = self.dims.vocab {
            w.vocab = v;
        }
        if let Some(v) = self.seq {
            w.seq = v;
        }
        if let Some(v) = self.global_batch {
            w.global_batch = v;
        }
        if let Some(v) = self.positions {
            w.positions = v;
        }
        if let Some(v) = self.tied_embeddings {
            w.tied_embeddings = v;
        }
        if let Some(v) = self.dropout {
            w.dropout = v;
        }
        if ex.any() || self.max_nodes_per_token.is_some() {
            let base = w.moe.unwrap_or(Moe { experts: 8, top_k: 2, expert_ffn: w.ffn, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 });
            let m = Moe {
                experts: ex.experts.unwrap_or(base.experts),
                top_k: ex.top_k.unwrap_or(base.top_k),
                expert_ffn: ex.expert_ffn.unwrap_or(base.expert_ffn),
                shared_ffn: ex.shared_expert_ffn.unwrap_or(base.shared_ffn),
                dense_layers: ex.moe_dense_layers.unwrap_or(base.dense_layers),
                max_nodes_per_token: self.max_nodes_per_token.unwrap_or(base.max_nodes_per_token),
            };
            w.moe = Some(m);
        }
        if let Some(p) = self.precision {
            w.precision = p;
        }
        w.validate()?;
        Ok(w)
    }
}

impl ParallelArgs {
    /// The layout for `train`: unset sizes default to 1 and DP fills the cluster.
    pub fn parallel(&self, gpus: u32) -> Parallel {
        let tp = self.tp.unwrap_or(1);
        let pp = self.pp.unwrap_or(1);
        let cp = self.cp.unwrap_or(1);
        let others = tp.max(1) as u64 * pp.max(1) as u64 * cp.max(1) as u64;
        let dp = self.dp.unwrap_or(if (gpus as u64).is_multiple_of(others) { (gpus as u64 / others) as u32 } else { 1 });
        Parallel {
            tp,
            pp,
            dp,
            cp,
            ep: self.ep.unwrap_or(1),
            micro_batch: self.micro_batch.unwrap_or(1),
            interleave: self.interleave.unwrap_or(1),
            recompute: self.recompute.unwrap_or(Recompute::Selective),
            zero: self.zero.unwrap_or(1),
            sequence_parallel: self.sequence_parallel,
            order: self.order,
            expert_tp: self.expert_tp.unwrap_or(0),
        }
    }
}

/// `train --json`: the report, plus the job and cluster it is for.
#[derive(Serialize)]
struct TrainJson<'a> {
    workload: &'a Workload,
    gpus: u32,
    gpu: &'static str,
    #[serde(flatten)]
    report: &'a StepReport,
    /// 90% intervals of step_time_s, tokens_per_s, mfu, model_tflops_per_gpu and
    /// hardware_tflops_per_gpu, held out by source (docs/calibration.md).
    intervals: Option<fabricscope_model::calibration::apply::StepIntervals>,
    /// The job under failures: MTTF, ETTR, goodput tokens/s with their intervals.
    goodput: &'a fabricscope_model::goodput::GoodputReport,
    /// `--ep-library`: the library whose normal kernels timed the MoE dispatch and combine.
    #[serde(skip_serializing_if = "Option::is_none")]
    ep_library: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<crate::calibration_arg::TrainCalibration>,
}

pub fn run(a: &TrainArgs) -> Result<String, CliError> {
    let (mut topo, cal) = a.calibration.topology(&a.cluster)?;
    if let Some(q) = a.qps_per_connection {
        topo.qps_per_connection = q;
    }
    let w = a.workload.workload()?;
    let par = a.parallel.parallel(topo.total_gpus);
    // On the cluster as measured every collective and EP exchange of the step is timed with the
    // fit (it rides in the topology), as the pages time a calibrated link.
    let measured = cal.as_ref().map(|f| crate::calibration_arg::measured_topology(&topo, f)).transpose()?;
    let mut ev = Evaluator::new(&topo, &w, a.workload.framework(topo.gpu.kind))?;
    let catalog = match (&cal, &measured) {
        (Some(f), Some(m)) => {
            let r0 = ev.evaluate(&par)?;
            ev = Evaluator::new(m, &w, a.workload.framework(topo.gpu.kind))?;
            let domains = topo.domains;
            Some(crate::calibration_arg::TrainCalibration {
                logs: f.calibration.logs,
                measured_nodes: f.calibration.measured_nodes.clone(),
                predicted_nodes: domains,
                note: f.calibration.scale_note(domains),
                calibrated: f.calibration.covers(domains),
                catalog_step_time_s: r0.step_time_s,
                catalog_tokens_per_s: r0.tokens_per_s,
            })
        }
        _ => None,
    };
    let r = ev.evaluate(&par)?;
    if a.flow.requested() || a.stragglers.slow_gpus > 0 {
        // As measured, the flows and the slow GPUs act on the calibrated cluster (its step and
        // interval are the ones the pages compute for it).
        let on = measured.as_ref().unwrap_or(&topo);
        let text = match (a.json, &catalog) {
            (true, _) => String::new(),
            (false, Some(c)) => format!("{}{}", report_text(on, &w, &r), calibrated_line(c)),
            (false, None) => report_text(&topo, &w, &r),
        };
        return crate::train_flow::run(crate::train_flow::Job {
            flow: &a.flow,
            stragglers: &a.stragglers,
            json: a.json,
            framework: a.workload.framework(on.gpu.kind),
            topo: on,
            w: &w,
            par: &par,
            r: &r,
            text,
            calibration: catalog.as_ref(),
        });
    }
    let g = fabricscope_model::goodput::goodput(&topo, &fabricscope_model::goodput::job_of(w.params(), &r), &a.failures.policy());
    if a.json {
        let intervals = match &cal {
            Some(f) => calibrated_step_intervals(&topo, &w, &r, &f.calibration),
            None => step_intervals_of(&topo, &w, &r),
        };
        return output::json(&TrainJson { workload: &w, gpus: topo.total_gpus, gpu: topo.gpu.id, report: &r, intervals, goodput: &g, ep_library: a.workload.ep_library.map(|l| l.id()), calibration: catalog });
    }
    let ep_line = a.workload.ep_library.map_or(String::new(), |l| format!("EP library: {}'s normal kernels run dispatch and combine, as fabricscope ep --ep-library {} times them for the EP group\n", l.name(), l.id()));
    if let Some(c) = &catalog {
        return Ok(format!(
            "{}{ep_line}Under failures: {}; goodput {:.0} tokens/s (fabricscope goodput for the breakdown)\n{}",
            report_text_with(&topo, &w, &r, cal.as_ref().and_then(|f| calibrated_step_intervals(&topo, &w, &r, &f.calibration))),
            g.sentence(),
            g.goodput_tokens_per_s,
            calibrated_line(c)
        ));
    }
    Ok(format!("{}{ep_line}Under failures: {}; goodput {:.0} tokens/s (fabricscope goodput for the breakdown)\n", report_text(&topo, &w, &r), g.sentence(), g.goodput_tokens_per_s))
}

/// "Calibrated from N logs: measured at 2 nodes, predicted at 64. Catalog (as designed): ...".
fn calibrated_line(c: &crate::calibration_arg::TrainCalibration) -> String {
    format!(
        "Calibrated from {} log{}: {}. Catalog (as designed): step {:.3} s, {:.0} tokens/s.\n",
        c.logs,
        if c.logs == 1 { "" } else { "s" },
        c.note,
        c.catalog_step_time_s,
        c.catalog_tokens_per_s
    )
}

fn gib(b: Bytes) -> f64 {
    b.0 as f64 / (1u64 << 30) as f64
}

/// One line naming the layout.
pub fn layout_line(p: &Parallel) -> String {
    format!(
        "TP {} x PP {} x DP {} x CP {}{}, micro-batch {}{}, {}, ZeRO {}{}{}",
        p.tp,
        p.pp,
        p.dp,
        p.cp,
        if p.ep > 1 && p.folded() {
            format!(" (EP {} x expert TP {} folded over TP x CP x DP)", p.ep, p.etp())
        } else if p.ep > 1 {
            format!(" (EP {} inside DP)", p.ep)
        } else {
            String::new()
        },
        p.micro_batch,
        if p.interleave > 1 { format!(", {} virtual stages", p.interleave) } else { String::new() },
        match p.recompute {
            Recompute::None => "no recompute",
            Recompute::Selective => "selective recompute",
            Recompute::Full => "full recompute",
        },
        p.zero,
        if p.tp > 1 && p.sequence_parallel { ", sequence parallel" } else { "" },
        if p.order != RankOrder::default() { format!(", order {}", p.order.id()) } else { String::new() }
    )
}

/// One line describing the job.
pub fn workload_line(w: &Workload) -> String {
    let moe = match w.moe {
        Some(m) => format!(", MoE {} experts top-{} (FFN {})", m.experts, m.top_k, m.expert_ffn),
        None => String::new(),
    };
    format!(
        "{}: {} layers x {} hidden, {} heads ({} KV), FFN {} {}{}, vocab {}, seq {}, batch {} ({:.2}M tokens), {:.1}B parameters, {}",
        w.name,
        w.layers,
        w.hidden,
        w.heads,
        w.kv_heads,
        w.ffn,
        match w.mlp {
            Mlp::Gelu => "GeLU",
            Mlp::Swiglu => "SwiGLU",
        },
        moe,
        w.vocab,
        w.seq,
        w.global_batch,
        w.tokens_per_step() as f64 / 1e6,
        w.params() as f64 / 1e9,
        w.precision.id()
    )
}

fn tier_text(t: SpanTier) -> &'static str {
    match t {
        SpanTier::Local => "no traffic",
        SpanTier::ScaleUp => "scale-up domain",
        SpanTier::Leaf => "leaf switches",
        SpanTier::Spine => "spine",
    }
}

/// The 90% intervals of a step report of `w` on `topo` (its class: the report's framework
/// family, dense or MoE, the GPU's generation), held out by source (docs/calibration.md).
/// [`step_intervals_of`] on a calibrated cluster (`Calibration::step_intervals`).
fn calibrated_step_intervals(topo: &Topology, w: &Workload, r: &StepReport, cal: &fabricscope_model::fitted::Calibration) -> Option<fabricscope_model::calibration::apply::StepIntervals> {
    let fw = Framework::from_id(&r.framework).unwrap_or_default();
    let class = fabricscope_model::training::bands::ErrorClass::of(&fw, w.moe.is_some(), topo.gpu.arch);
    let (c, basis) = fabricscope_model::calibration::apply::for_training(&class, r.band_extrapolated)?;
    Some(cal.step_intervals(&c, &basis, r, topo.domains).spanning_releases(r.step_time_s, r.oldest_release_step_s))
}

pub fn step_intervals_of(topo: &Topology, w: &Workload, r: &StepReport) -> Option<fabricscope_model::calibration::apply::StepIntervals> {
    let fw = Framework::from_id(&r.framework).unwrap_or_default();
    let class = fabricscope_model::training::bands::ErrorClass::of(&fw, w.moe.is_some(), topo.gpu.arch);
    use fabricscope_model::calibration::apply::{for_training, step_intervals};
    let (c, basis) = for_training(&class, r.band_extrapolated)?;
    Some(step_intervals(&c, &basis, r.step_time_s, r.tokens_per_s, r.mfu, r.model_tflops_per_gpu, r.hardware_tflops_per_gpu).spanning_releases(r.step_time_s, r.oldest_release_step_s))
}

/// The step report, human-readable.
pub fn report_text(topo: &Topology, w: &Workload, r: &StepReport) -> String {
    report_text_with(topo, w, r, step_intervals_of(topo, w, r))
}

/// [`report_text`] with the step's `intervals` given (a calibrated step's).
fn report_text_with(topo: &Topology, w: &Workload, r: &StepReport, intervals: Option<fabricscope_model::calibration::apply::StepIntervals>) -> String {
    let mut s = String::new();
    s.push_str(&format!("Cluster: {}\n", output::cluster_line(topo)));
    s.push_str(&format!("Job: {}\n", workload_line(w)));
    s.push_str(&format!("Layout: {} ({} micro-batches per step; framework {})\n\n", layout_line(&r.mapping), r.micro_batches, r.framework));
    // "(90%: lo-hi)" after each headline number, from the report's held-out intervals.
    let iv = intervals.as_ref();
    let range = |f: fn(&fabricscope_model::calibration::apply::StepIntervals) -> &fabricscope_model::interval::Interval, scale: f64| {
        iv.map_or(String::new(), |i| format!(" {}", output::range_text(scale * f(i).lo, scale * f(i).hi)))
    };
    s.push_str(&format!("Step time       {:.3} s{}\n", r.step_time_s, range(|i| &i.step_time_s, 1.0)));
    s.push_str(&format!("Tokens/s        {:.0}{} ({:.0} per GPU)\n", r.tokens_per_s, range(|i| &i.tokens_per_s, 1.0), r.tokens_per_s / topo.total_gpus as f64));
    s.push_str(&format!(
        "Model TFLOP/s   {:.1}{} per GPU, MFU {:.1}%{} of {:.0} TFLOP/s ({} dense peak)\n",
        r.model_tflops_per_gpu,
        range(|i| &i.model_tflops_per_gpu, 1.0),
        100.0 * r.mfu,
        range(|i| &i.mfu, 100.0),
        r.peak_tflops.0,
        w.precision.id()
    ));
    s.push_str(&format!("Hardware TFLOP/s {:.1} per GPU, HFU {:.1}% (MFU's FLOPs plus recompute)\n", r.hardware_tflops_per_gpu, 100.0 * r.hfu));
    s.push_str(&format!("Error band      {}\n", r.band_text()));
    if let Some(i) = iv {
        s.push_str(&format!("Interval        {}\n", i.step_time_s.basis));
    }
    s.push('\n');
    s.push_str("Assumptions\n");
    for (label, text) in fabricscope_model::training::assumptions::assumptions(r) {
        s.push_str(&format!("  {:<14} {}\n", label, text));
    }
    s.push('\n');
    s.push_str("Step breakdown\n");
    let step_us = r.step_time_s * 1e6;
    for (_, label, v) in r.breakdown.parts() {
        if v.0 > 0.0 || label == "compute" {
            s.push_str(&format!("  {:<24} {:>10.1} ms  {:>5.1}%\n", label, v.0 / 1e3, 100.0 * v.0 / step_us));
        }
    }
    let m = &r.memory;
    s.push_str(&format!(
        "\nMemory per GPU (pipeline stage {})  {:.1} GiB of {:.0} GiB: {}\n",
        m.stage,
        gib(m.total),
        gib(m.capacity),
        if m.fits { format!("fits, {:.1} GiB free", gib(m.free())) } else { format!("DOES NOT FIT, {:.1} GiB over", gib(m.over())) }
    ));
    for (label, b) in [("weights", m.weights), ("gradients", m.gradients), ("optimizer states", m.optimizer), ("activations", m.activations), ("runtime reserve", m.reserved)] {
        s.push_str(&format!("  {:<24} {:>8.2} GiB\n", label, gib(b)));
    }
    s.push_str("\nGroups (GPUs per domain x domains; tier crossed; exposed time)\n");
    for g in r.groups.iter().filter(|g| g.ranks > 1) {
        s.push_str(&format!(
            "  {:<10} {:>5} GPUs = {} x {}  {:<16}{}  {:.1} ms\n",
            g.group.name(),
            g.ranks,
            g.per_domain,
            g.ranks / g.per_domain.max(1),
            tier_text(g.tier),
            if g.net_share > 1.0 + 1e-9 { format!(" (NIC shared by {:.0})", g.net_share) } else { String::new() },
            g.exposed_us / 1e3
        ));
    }
    s.push_str(&format!("\nBottleneck: {}\n", r.bottleneck));
    s
}

/// Parses a flag's text with a plain function; failures print as one line naming the flag
/// (`--flag: message`), like the cluster flags.
#[derive(Clone)]
pub struct FlagParser<T> {
    parse: fn(&str) -> Result<T, String>,
    ids: Option<fn() -> Vec<&'static str>>,
}

impl<T> FlagParser<T> {
    pub fn new(parse: fn(&str) -> Result<T, String>, ids: Option<fn() -> Vec<&'static str>>) -> Self {
        FlagParser { parse, ids }
    }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for FlagParser<T> {
    type Value = T;

    fn parse_ref(&self, _cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        let flag = arg.and_then(|a| a.get_long()).map(|l| format!("--{l}: ")).unwrap_or_default();
        let Some(text) = value.to_str() else {
            return Err(clap::Error::raw(ErrorKind::InvalidUtf8, format!("{flag}the value is not valid UTF-8\n")));
        };
        (self.parse)(text).map_err(|m| clap::Error::raw(ErrorKind::ValueValidation, format!("{flag}{m}\n")))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let ids = self.ids?;
        Some(Box::new(ids().into_iter().map(PossibleValue::new)))
    }
}

fn preset_list() -> Vec<&'static str> {
    fabricscope_model::training::model_ids()
}
fn mlp_ids() -> Vec<&'static str> {
    vec!["gelu", "swiglu"]
}
fn precision_ids() -> Vec<&'static str> {
    vec!["bf16", "fp8", "nvfp4"]
}
fn recompute_ids() -> Vec<&'static str> {
    Recompute::ALL.iter().map(|r| r.id()).collect()
}
fn zero_ids() -> Vec<&'static str> {
    vec!["0", "1", "2", "3"]
}
fn positions_ids() -> Vec<&'static str> {
    vec!["learned", "rope"]
}
pub fn positions_parser() -> FlagParser<Positions> {
    FlagParser::new(
        |s| match s.to_ascii_lowercase().as_str() {
            "learned" => Ok(Positions::Learned),
            "rope" | "rotary" => Ok(Positions::Rope),
            _ => Err(unknown("position encoding", s, &positions_ids())),
        },
        Some(positions_ids),
    )
}
/// A count that may be 0.
fn framework_ids() -> Vec<&'static str> {
    // `nemo` (today's release, with `--release` any) is the CLI's spelling; pickers list the
    // releases themselves.
    let mut ids = Framework::ids().to_vec();
    ids.insert(1, "nemo");
    ids
}

/// A catalog model's id or alias, as the catalog spells it.
pub fn model_id_parser() -> FlagParser<&'static str> {
    FlagParser::new(
        |s| fabricscope_model::training::model_ids().into_iter().find(|id| id.eq_ignore_ascii_case(s)).ok_or_else(|| unknown("model", s, &preset_ids())),
        Some(preset_list),
    )
}
pub fn mlp_parser() -> FlagParser<Mlp> {
    FlagParser::new(
        |s| match s.to_ascii_lowercase().as_str() {
            "gelu" => Ok(Mlp::Gelu),
            "swiglu" => Ok(Mlp::Swiglu),
            _ => Err(unknown("MLP kind", s, &mlp_ids())),
        },
        Some(mlp_ids),
    )
}
pub fn precision_parser() -> FlagParser<Precision> {
    FlagParser::new(|s| Precision::from_id(s).ok_or_else(|| unknown("precision", s, &precision_ids())), Some(precision_ids))
}
pub fn recompute_parser() -> FlagParser<Recompute> {
    FlagParser::new(|s| Recompute::from_id(s).ok_or_else(|| unknown("recompute mode", s, &recompute_ids())), Some(recompute_ids))
}
pub fn zero_parser() -> FlagParser<u8> {
    FlagParser::new(
        |s| match s.trim() {
            "0" => Ok(0),
            "1" => Ok(1),
            "2" => Ok(2),
            "3" => Ok(3),
            _ => Err(unknown("ZeRO stage", s, &zero_ids())),
        },
        Some(zero_ids),
    )
}
fn release_ids() -> Vec<&'static str> {
    NemoRelease::IDS.to_vec()
}
pub fn release_parser() -> FlagParser<NemoRelease> {
    FlagParser::new(|s| NemoRelease::from_id(s).ok_or_else(|| unknown("NeMo release", s, &release_ids())), Some(release_ids))
}
pub fn framework_parser() -> FlagParser<Framework> {
    // `nemo`: today's release under NeMo's name, whose `--release` the CLI alone takes.
    FlagParser::new(
        |s| match s.trim().eq_ignore_ascii_case("nemo") {
            true => Ok(Framework::nemo_release("nemo", 0.0)),
            false => Framework::from_id_or_alias(s).ok_or_else(|| unknown("framework", s, &framework_ids())),
        },
        Some(framework_ids),
    )
}
pub fn order_parser() -> FlagParser<RankOrder> {
    FlagParser::new(|s| RankOrder::parse(s).map_err(|e| e.message), None)
}
