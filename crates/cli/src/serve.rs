//! `fabricscope serve` and `fabricscope kv-transfer`: an LLM deployed for inference on the
//! cluster (decode, prefill or the max-load mix): time per output token, time to first token,
//! tokens/s per GPU, node and user, the step's breakdown and the network's share; and the KV
//! cache's transfer between prefill and decode nodes. The workload flags are `train`'s, plus
//! the attention kind and the head dimension.

use crate::cluster_args::{bool_parser, count_parser, unknown, ClusterArgs, FlagParser};
use crate::error::CliError;
use crate::output;
use crate::train::{ModelFlags, WorkloadArgs};
use clap::Args;
use fabricscope_model::limits;
use fabricscope_model::training::Mlp;
use fabricscope_model::Topology;
use fabricscope_serving::kv::{kv_transfer, KvPath, KvTransferInput};
use fabricscope_serving::model::DEEPSEEK_MLA;
use fabricscope_serving::step::{Server, ServeReport};
use fabricscope_serving::planner::Mode;
use fabricscope_serving::{serving_preset, serving_preset_ids, Attention, Deployment, Engine, Phase, Precision, ServingModel};
use fabricscope_model::interval::Interval;
use fabricscope_serving::calibration::ServeIntervals;
use fabricscope_serving::{ServingDefaults, DEFAULTS};
use serde::Serialize;

/// `--batch-steps`: 1 to 1,024 batches an octave (1,024: every batch up to 2,048).
const BATCH_STEPS_MAX: limits::Limit = limits::Limit { field: "batch_steps", what: "batches per octave", min: 1, max: 1024, unit: limits::Unit::Count };

/// The served model: the model flags `train` and `search` take (one struct), plus the attention.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Model")]
pub struct ServeModelArgs {
    #[command(flatten)]
    pub dims: ModelFlags,
    /// Attention kind: mha, gqa, or mla (multi-head latent attention, DeepSeek-V2/V3) [default:
    /// the preset's; gqa when --kv-heads is below --heads, else mha]
    #[arg(long, value_name = "KIND", value_parser = attention_parser())]
    pub attention: Option<&'static str>,
    /// MLA: the compressed KV latent per token and layer [default: 512, DeepSeek-V3's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::HEAD_DIM))]
    pub kv_latent: Option<u32>,
    /// MLA: the decoupled RoPE key dimensions per token and layer [default: 64]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::HEAD_DIM))]
    pub rope_dim: Option<u32>,
}

fn attention_parser() -> FlagParser<&'static str> {
    FlagParser {
        parse: |s| {
            let ids = Attention::ids();
            ids.iter().find(|id| id.eq_ignore_ascii_case(s)).copied().ok_or_else(|| unknown("attention kind", s, &ids))
        },
        ids: Some(Attention::ids),
    }
}
fn phase_parser() -> FlagParser<Phase> {
    FlagParser { parse: |s| Phase::from_id(s).ok_or_else(|| unknown("phase", s, &Phase::ids())), ids: Some(Phase::ids) }
}
fn precision_parser() -> FlagParser<Precision> {
    FlagParser { parse: |s| Precision::from_id(s).ok_or_else(|| unknown("precision", s, &Precision::ids())), ids: Some(Precision::ids) }
}
fn engine_parser() -> FlagParser<Engine> {
    FlagParser { parse: |s| Engine::from_id(s).ok_or_else(|| unknown("engine", s, &Engine::ids())), ids: Some(Engine::ids) }
}
fn mode_parser() -> FlagParser<Mode> {
    FlagParser {
        parse: |s| Mode::from_id(s).ok_or_else(|| unknown("--disaggregated value", s, &["true", "false", "auto"])),
        ids: Some(|| vec!["true", "false", "auto"]),
    }
}
fn kv_path_parser() -> FlagParser<KvPath> {
    FlagParser { parse: |s| KvPath::from_id(s).ok_or_else(|| unknown("KV transfer path", s, &KvPath::ids())), ids: Some(KvPath::ids) }
}
fn fraction_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && (0.1..=1.0).contains(&f) => Ok(f),
            _ => Err(format!("invalid memory fraction '{}'; allowed: a number from 0.1 to 1", fabricscope_model::error::printable(s, fabricscope_model::error::MAX_QUOTED_CHARS))),
        },
        ids: None,
    }
}

fn reserve_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(g) if g.is_finite() && (0.0..=fabricscope_serving::hardware::MAX_RESERVE_GIB).contains(&g) => Ok(g),
            _ => Err(format!(
                "invalid reserve '{}'; allowed: GiB per GPU from 0 to {}",
                fabricscope_model::error::printable(s, fabricscope_model::error::MAX_QUOTED_CHARS),
                fabricscope_serving::hardware::MAX_RESERVE_GIB
            )),
        },
        ids: None,
    }
}

impl ServeModelArgs {
    /// The model: the preset (if any) with every explicit flag applied on top, checked.
    pub fn model(&self) -> Result<ServingModel, CliError> {
        let preset = match self.dims.model {
            Some(id) => Some(serving_preset(id).ok_or_else(|| CliError::new("--model", unknown("model preset", id, &serving_preset_ids())))?),
            None => None,
        };
        if preset.is_none() {
            let missing: Vec<&str> = [("--layers", self.dims.shape.layers.is_none()), ("--hidden", self.dims.shape.hidden.is_none()), ("--heads", self.dims.shape.heads.is_none()), ("--vocab", self.dims.vocab.is_none())]
                .iter()
                .filter(|x| x.1)
                .map(|x| x.0)
                .collect();
            if let Some(first) = missing.first() {
                return Err(CliError::new(*first, format!("the model needs {} (or --model with one of: {})", missing.join(", "), serving_preset_ids().join(", "))));
            }
        }
        // The training workload flags' rules (train.rs) build the shape; serving has no
        // sequence length or global batch of its own.
        let mut base = preset.as_ref().map(|p| p.work.clone());
        let d = &self.dims;
        if let Some(w) = base.as_mut() {
            if d.mlp.is_none() && d.ffn.is_none() && d.shape.hidden.is_some() {
                w.mlp = Mlp::Swiglu;
            }
        }
        let wa = WorkloadArgs {
            dims: ModelFlags {
                model: None,
                ffn: d.ffn.or(if preset.is_none() { d.shape.hidden.map(|h| h.saturating_mul(4)) } else { None }),
                mlp: d.mlp.or(if preset.is_none() { Some(Mlp::Swiglu) } else { None }),
                ..d.clone()
            },
            seq: Some(4096),
            global_batch: Some(1),
            positions: if preset.is_none() { Some(fabricscope_model::training::Positions::Rope) } else { None },
            tied_embeddings: if preset.is_none() { Some(false) } else { None },
            dropout: Some(false),
            ..WorkloadArgs::default()
        };
        let mut work = wa.workload_from(base)?;
        if preset.is_none() {
            work.name = "custom".into();
        }
        let latent_given = self.kv_latent.is_some() || self.rope_dim.is_some();
        let kind = self.attention.or(if latent_given { Some("mla") } else { None });
        let attention = match (kind, preset.as_ref()) {
            (Some("mla"), p) => {
                let (l, r, q) = match p.map(|p| p.attention) {
                    Some(Attention::Mla { kv_latent, rope_dim, q_latent }) => (kv_latent, rope_dim, q_latent),
                    _ => match DEEPSEEK_MLA {
                        Attention::Mla { kv_latent, rope_dim, q_latent } => (kv_latent, rope_dim, q_latent),
                        _ => (512, 64, 1536),
                    },
                };
                if self.kv_latent == Some(0) {
                    return Err(CliError::new("--kv-latent", "an MLA latent of 1 to 4096"));
                }
                Attention::Mla { kv_latent: self.kv_latent.unwrap_or(l), rope_dim: self.rope_dim.unwrap_or(r), q_latent: q }
            }
            (Some("mha"), _) => {
                if self.dims.shape.kv_heads.is_none() {
                    work.kv_heads = work.heads;
                }
                Attention::Mha
            }
            (Some(_), _) => Attention::Gqa,
            (None, Some(p)) if self.dims.shape.kv_heads.is_none() && self.dims.shape.heads.is_none() => p.attention,
            (None, _) => {
                if work.kv_heads < work.heads {
                    Attention::Gqa
                } else {
                    Attention::Mha
                }
            }
        };
        let m = ServingModel { work, attention };
        m.validate()?;
        Ok(m)
    }
}

#[derive(Args, Clone, Debug)]
pub struct ServeArgs {
    /// What the step does: decode (one token per sequence), prefill (the prompts), or offline
    /// (maximum load, prefill and decode mixed, the batch as large as memory allows)
    #[arg(long, value_name = "PHASE", default_value = "decode", value_parser = phase_parser())]
    pub phase: Phase,
    /// Tensor parallelism of the attention (and of the dense layers)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count_parser(limits::TP))]
    pub tp: u32,
    /// Pipeline stages
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count_parser(limits::PP))]
    pub pp: u32,
    /// Expert parallelism: the routed experts split over this many of the tp x dp GPUs
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count_parser(limits::EP))]
    pub ep: u32,
    /// Attention data parallelism (wide EP: --dp with --ep)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count_parser(limits::DP))]
    pub dp: u32,
    /// Sequences per attention data-parallel rank in one step
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count_parser(limits::GLOBAL_BATCH))]
    pub batch: u32,
    /// Tokens in each sequence's KV cache at decode [default: input-len + output-len / 2, the
    /// mean over a request's decode; serving.html's default too]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::SEQ))]
    pub context: Option<u32>,
    /// Prompt tokens per request (the planner: their mean)
    #[arg(long, value_name = "N", default_value_t = DEFAULTS.input_len, value_parser = count_parser(limits::SEQ), alias = "input-tokens")]
    pub input_len: u32,
    /// Output tokens per request (the planner: their mean)
    #[arg(long, value_name = "N", default_value_t = DEFAULTS.output_len, value_parser = count_parser(limits::SEQ), alias = "output-tokens")]
    pub output_len: u32,
    /// Weight and matmul precision: bf16, fp8, fp4 (Blackwell, CDNA4)
    #[arg(long, value_name = "P", default_value = "bf16", value_parser = precision_parser())]
    pub precision: Precision,
    /// KV cache precision [default: bf16, the activations']
    #[arg(long, value_name = "P", value_parser = precision_parser())]
    pub kv_precision: Option<Precision>,
    /// Two micro-batches hide EP dispatch/combine behind compute [default: the engine's: false
    /// for trtllm, vllm and sglang (either release), none of which overlaps by default]
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, value_parser = bool_parser())]
    pub overlap: Option<bool>,
    /// Prefill on other nodes: the KV cache moves to the decode nodes (in time to first token).
    /// With --search --rate: true (prefill and decode pools), false (aggregated replicas) or
    /// auto (both, ranked together) [default: false; auto for the planner]
    #[arg(long, value_name = "BOOL", value_parser = mode_parser())]
    pub disaggregated: Option<Mode>,
    /// NICs a KV transfer stripes over (to another domain; implies it) [default: all of a
    /// node's NICs]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::NICS_PER_NODE))]
    pub kv_rails: Option<u32>,
    /// Where the decode GPUs are: same-domain (the prefill GPUs' NVL72 rack or NVLink node: the
    /// KV cache crosses NVLink) or other-domain (another node or rack: the NICs) [default:
    /// same-domain on an NVL72 rack when twice the deployment's GPUs fit in it and --kv-rails
    /// is not given; other-domain otherwise, e.g. on 8-GPU servers]
    #[arg(long, value_name = "WHERE", value_parser = kv_path_parser())]
    pub kv_path: Option<KvPath>,
    /// Share of the card's memory (GiB) the engine may use for weights and KV cache, 0.1 to 1
    /// (vLLM's --gpu-memory-utilization) [default: 0.9, vLLM's default]
    #[arg(long, value_name = "F", value_parser = fraction_parser())]
    pub memory_fraction: Option<f64>,
    /// Memory per GPU held back beside --memory-fraction, GiB, 0 to 1024 [default: 0]
    #[arg(long, value_name = "GIB", value_parser = reserve_parser())]
    pub reserve_gib: Option<f64>,
    /// Serving engine: trtllm, vllm, sglang (0.5 and later) or sglang-0.4 (its per-layer and per-sequence host costs and KV
    /// connector; docs/serving.md) [default: trtllm's figures, with the 90% intervals spanning
    /// every engine]
    #[arg(long, value_name = "ENGINE", value_parser = engine_parser())]
    pub engine: Option<Engine>,
    /// Search TP x EP x DP x batch (decode, pipeline 1) for the most tokens/s per GPU at
    /// --min-tokens-per-user; --tp, --ep, --dp and --batch are then ignored
    #[arg(long)]
    pub search: bool,
    /// The search's per-user speed target, output tokens/s (serving.html's default too)
    #[arg(long, value_name = "TPS", default_value_t = DEFAULTS.min_tokens_per_s_per_user, value_parser = speed_parser())]
    pub min_tokens_per_user: f64,
    /// The search's largest batch per DP rank (--batch-steps an octave up to it); the planner's
    /// cap on sequences a DP rank runs at once (also at most 2048, TensorRT-LLM's max_batch_size)
    #[arg(long, value_name = "N", default_value_t = DEFAULTS.max_batch, value_parser = count_parser(limits::GLOBAL_BATCH))]
    pub max_batch: u32,
    /// Batches the search (without --rate) tries per octave, rounded up to a power of two: 1
    /// tries powers of two only; 16 every batch below 32, then 16 evenly spaced per doubling,
    /// as serving.html's search does [default: 16]
    #[arg(long, value_name = "N", value_parser = count_parser(BATCH_STEPS_MAX))]
    pub batch_steps: Option<u32>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Also write the serving curve (tokens/s per GPU against per user as batch grows, the
    /// deployment and its counterpart across the NVLink boundary) as SVG to this file; with the
    /// planner (--search --rate), the deployments meeting the targets and their Pareto front
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// Palette of the --svg chart
    #[arg(long, value_enum, default_value = "light")]
    pub theme: crate::render::ThemeArg,
    #[command(flatten)]
    pub plan: crate::serve_plan::PlanArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub model: ServeModelArgs,
    #[command(flatten)]
    pub calibration: crate::calibration_arg::CalibrationArg,
}

/// `serve --calibration`: what the deployment's collectives were timed on.
#[derive(Serialize)]
struct ServeCalibration {
    logs: u32,
    measured_nodes: Vec<u32>,
    predicted_nodes: u32,
    /// "measured at 2 nodes, predicted at 4" (and what is the catalog's).
    note: String,
    calibrated: bool,
    /// The same deployment on the catalog's parameters: TPOT (ms; none for prefill) and
    /// tokens/s per GPU. The `intervals` stay the serving class's (the fit's uncertainty is
    /// not combined into them), and EP dispatch/combine keeps its own model.
    catalog_tpot_ms: Option<f64>,
    catalog_tokens_per_s_per_gpu: f64,
}

fn speed_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && (0.0..=1e6).contains(&f) => Ok(f),
            _ => Err(format!("invalid speed '{}'; allowed: output tokens/s per user from 0 to 1000000", fabricscope_model::error::printable(s, fabricscope_model::error::MAX_QUOTED_CHARS))),
        },
        ids: None,
    }
}

/// `serve --search --json`: the best point and how many were tried.
#[derive(Serialize)]
struct SearchJson<'a> {
    model: &'a str,
    engine: &'static str,
    min_tokens_per_s_per_user: f64,
    best: Option<&'a fabricscope_serving::SearchPoint>,
    evaluated: usize,
    refused: u32,
    /// 90% intervals of the best point's figures (as `serve --json` gives them for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    intervals: Option<ServeIntervals>,
    /// The best point's memory per GPU, GiB of the card (as `serve --json` gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<MemoryJson>,
}

/// Memory per GPU in GiB of the card: what a deployment holds, what the engine may use, and
/// the share of the card that is (`serve --json`'s fields of the same names).
#[derive(Serialize)]
struct MemoryJson {
    memory_gib: f64,
    hbm_usable_gib: f64,
    hbm_capacity_gib: f64,
    memory_fraction: f64,
    reserve_gib: f64,
}

impl MemoryJson {
    fn of(r: &ServeReport) -> MemoryJson {
        MemoryJson { memory_gib: r.memory_gib, hbm_usable_gib: r.hbm_usable_gib, hbm_capacity_gib: r.hbm_capacity_gib, memory_fraction: r.memory_fraction, reserve_gib: r.reserve_gib }
    }
    /// "memory 60.1 GiB per GPU of the 72.0 GiB the engine may use (fraction 0.9 of 80.0 GiB)".
    fn text(&self) -> String {
        format!(
            "memory {:.1} GiB per GPU of the {:.1} GiB the engine may use (fraction {} of {:.1} GiB{})",
            self.memory_gib,
            self.hbm_usable_gib,
            self.memory_fraction,
            self.hbm_capacity_gib,
            if self.reserve_gib > 0.0 { format!(", less {:.1} GiB reserved", self.reserve_gib) } else { String::new() }
        )
    }
}

/// The best point's memory and intervals: its deployment evaluated as `serve` would (decode,
/// one stage), the intervals spanning the engines when none is given.
fn best_report(topo: &Topology, m: &ServingModel, base: &Deployment, b: &fabricscope_serving::SearchPoint) -> Option<(MemoryJson, Option<ServeIntervals>)> {
    let d = Deployment { phase: Phase::Decode, pp: 1, tp: b.tp, ep: b.ep, dp: b.dp, batch: b.batch, ..*base };
    let r = Server::new(topo, m).and_then(|mut s| s.evaluate(&d)).ok()?;
    Some((MemoryJson::of(&r), fabricscope_serving::calibration::intervals_of(topo, m, &d, &r)))
}

/// The search; `note`: the calibration it ran on, in the JSON (the caller says it in text).
fn run_search(a: &ServeArgs, topo: &Topology, m: &ServingModel, note: Option<&str>) -> Result<String, CliError> {
    let steps = a.batch_steps.unwrap_or(DEFAULTS.batch_steps);
    let opts = ServingDefaults::search_options(a.deployment(), a.min_tokens_per_user, a.max_batch, steps);
    let r = fabricscope_serving::search(topo, m, &opts)?;
    let (memory, iv) = r.best.as_ref().and_then(|b| best_report(topo, m, &opts.base, b)).map_or((None, None), |(mem, iv)| (Some(mem), iv));
    if a.json {
        let found = SearchJson { model: m.name(), engine: opts.base.engine().id(), min_tokens_per_s_per_user: a.min_tokens_per_user, best: r.best.as_ref(), evaluated: r.points.len(), refused: r.refused, intervals: iv, memory };
        return output::json(&output::Noted { inner: &found, calibration: note });
    }
    let mut s = output::cluster_line(topo);
    s.push('\n');
    match &r.best {
        Some(b) => s.push_str(&format!(
            "Best for {} on {} at >= {} tokens/s per user: TP {} x EP {} x DP {}, batch {} per DP rank: {:.0}{} tokens/s per GPU, {:.1}{} per user (TPOT {:.2} ms{})\n",
            m.name(),
            opts.base.engine().id(),
            a.min_tokens_per_user,
            b.tp,
            b.ep,
            b.dp,
            b.batch,
            b.tokens_per_s_per_gpu,
            ninety(iv.as_ref().map(|i| &i.tokens_per_s_per_gpu), 0),
            b.tokens_per_s_per_user,
            ninety(iv.as_ref().map(|i| &i.tokens_per_s_per_user), 1),
            b.tpot_ms,
            ninety(iv.as_ref().and_then(|i| i.tpot_ms.as_ref()), 2)
        )),
        None => s.push_str(&format!("No deployment of {} reaches {} tokens/s per user on this cluster\n", m.name(), a.min_tokens_per_user)),
    }
    if let Some(mem) = &memory {
        s.push_str(&format!("Its {}\n", mem.text()));
    }
    s.push_str(&format!("{} deployments evaluated, batches {} an octave up to {} (--batch-steps, --max-batch), {} refused (do not fit or do not split)\n", r.points.len(), steps.clamp(1, 1 << 16).next_power_of_two(), a.max_batch, r.refused));
    Ok(s)
}

impl ServeArgs {
    pub fn deployment(&self) -> Deployment {
        Deployment {
            phase: self.phase,
            tp: self.tp,
            pp: self.pp,
            ep: self.ep,
            dp: self.dp,
            batch: self.batch,
            context: self.context.unwrap_or(ServingDefaults::context(self.input_len, self.output_len)),
            input_len: self.input_len,
            output_len: self.output_len,
            precision: self.precision,
            kv_precision: self.kv_precision,
            overlap: self.overlap,
            disaggregated: self.disaggregated == Some(Mode::Disaggregated),
            kv_rails: self.kv_rails,
            memory_fraction: self.memory_fraction,
            reserve_gib: self.reserve_gib,
            kv_path: self.kv_path,
            engine: self.engine,
        }
    }
}

/// `serve --json`: the fields first, then the model and deployment they are for.
#[derive(Serialize)]
struct ServeJson<'a> {
    model: &'a str,
    attention: Attention,
    gpu: &'static str,
    deployment: &'a Deployment,
    #[serde(flatten)]
    report: &'a ServeReport,
    /// 90% intervals of tpot_ms, ttft_ms and tokens/s per GPU, user and node (`{lo, hi,
    /// coverage, sources, rows, basis, extrapolated}`; docs/calibration.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    intervals: Option<fabricscope_serving::calibration::ServeIntervals>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<ServeCalibration>,
}

fn ms(v: Option<f64>, i: Option<&Interval>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2} ms{}", ninety(i, 2)))
}

/// " (90%: lo-hi)" after a predicted figure, at `digits` decimals; empty without an interval.
fn ninety(i: Option<&Interval>, digits: usize) -> String {
    i.map_or(String::new(), |i| format!(" (90%: {:.digits$}-{:.digits$})", i.lo, i.hi))
}

fn text(topo: &Topology, m: &ServingModel, d: &Deployment, r: &ServeReport, iv: Option<&ServeIntervals>) -> String {
    // GB200/GB300 NVL72: trays, as the cluster line above says.
    let (node, nodes) = topo.cluster.node_word();
    let mut s = output::cluster_line(topo);
    s.push('\n');
    s.push_str(&format!(
        "{} ({} attention, KV {:.0} bytes per token) | {} | TP {} x PP {} x DP {}{} = {} GPUs on {} {} | batch {} per DP rank\n\n",
        m.name(),
        m.attention.id().to_uppercase(),
        r.kv_bytes_per_token,
        d.phase.id(),
        d.tp,
        d.pp,
        d.dp,
        if d.ep > 1 { format!(", EP {}{}", d.ep, if r.overlap { " (two-micro-batch overlap)" } else { "" }) } else { String::new() },
        r.gpus,
        r.nodes,
        if r.nodes == 1 { node } else { nodes },
        r.batch
    ));
    s.push_str(&format!(
        "Engine                 {}{}\n",
        r.engine.id(),
        if d.engine.is_none() { " (default; --engine trtllm|vllm|sglang|sglang-0.4; the 90% intervals span all four)" } else { "" }
    ));
    s.push_str(&format!(
        "Time per output token  {}\nTime to first token    {}\n",
        ms(r.tpot_ms, iv.and_then(|i| i.tpot_ms.as_ref())),
        ms(r.ttft_ms, iv.and_then(|i| i.ttft_ms.as_ref()))
    ));
    s.push_str(&format!(
        "Tokens/s               {:.0}{} per GPU, {:.0}{} per {node}, {:.1}{} per user\n",
        r.tokens_per_s_per_gpu,
        ninety(iv.map(|i| &i.tokens_per_s_per_gpu), 0),
        r.tokens_per_s_per_node,
        ninety(iv.map(|i| &i.tokens_per_s_per_node), 0),
        r.tokens_per_s_per_user,
        ninety(iv.map(|i| &i.tokens_per_s_per_user), 1)
    ));
    let b = &r.breakdown;
    s.push_str(&format!(
        "\nStep {:.3} ms ({}-bound): roofline {:.3} (per operation the larger of read and compute; weights+KV read {:.3}, compute {:.3}), per-layer cost {:.3}, TP all-reduce {:.3}{}, EP dispatch/combine {:.3}, pipeline {:.3}, KV transfer {:.3} ms\n",
        r.step_ms,
        r.bound,
        b.roofline,
        b.weights_kv_read,
        b.compute,
        b.layer_overhead,
        b.tp_allreduce,
        if r.tp_spans_domains { " (TP crosses the NVLink boundary)" } else { "" },
        b.ep_dispatch_combine,
        b.pipeline,
        b.kv_transfer
    ));
    s.push_str(&format!(
        "Network share {:.0}%; memory {:.1} GiB per GPU (weights {:.1}, KV cache {:.1}) of the {:.1} GiB the engine may use (fraction {} of {:.1} GiB{}; at most {} sequences per DP rank)\n",
        r.network_share * 100.0,
        r.memory_gib,
        r.weights_gib,
        r.kv_cache_gib,
        r.hbm_usable_gib,
        r.memory_fraction,
        r.hbm_capacity_gib,
        if r.reserve_gib > 0.0 { format!(", less {:.1} GiB reserved", r.reserve_gib) } else { String::new() },
        r.max_batch
    ));
    if let Some(ratio) = r.prefill_decode_ratio {
        s.push_str(&format!("Balanced disaggregation: {ratio:.2} prefill GPUs per decode GPU\n"));
    }
    match r.error_band_pct {
        Some(p) => s.push_str(&format!("Band: ±{p:.0}% (median error of {} on published {} runs, docs/serving-accuracy.md)\n", r.accuracy_class.id(), r.hardware_class.id())),
        None => s.push_str(&format!("Band: none: no published measurement of {} on {} hardware (not validated)\n", r.accuracy_class.id(), r.hardware_class.id())),
    }
    s
}

pub fn run(a: &ServeArgs) -> Result<String, CliError> {
    let (topo, cal) = a.calibration.topology(&a.cluster)?;
    let m = a.model.model()?;
    // The search and the planner run on the cluster as measured (the fit rides in the
    // topology, so every deployment's collectives are timed with it), as serving.html's do.
    let searched = match (&cal, a.search) {
        (Some(f), true) => Some(crate::calibration_arg::measured_topology(&topo, f)?),
        _ => None,
    };
    let words = cal.as_ref().map(|f| format!("from {} log{}: {}; searched on the cluster as measured", f.calibration.logs, if f.calibration.logs == 1 { "" } else { "s" }, f.calibration.scale_note(topo.domains)));
    let note = words.as_ref().map(|w| format!("calibrated {w}"));
    // The text says it in a last line; the JSON carries `note` beside its fields.
    let said = |out: String| match (&words, a.json) {
        (Some(w), false) => format!("{out}Calibrated {w}.\n"),
        _ => out,
    };
    let flags = crate::serve_plan::ServeFlags {
        search: a.search,
        input_len: a.input_len,
        output_len: a.output_len,
        mode: a.disaggregated,
        engine: a.engine,
        precision: a.precision,
        kv_precision: a.kv_precision,
        memory_fraction: a.memory_fraction,
        reserve_gib: a.reserve_gib,
        max_batch: a.max_batch,
    };
    if let Some(input) = a.plan.input(&flags)? {
        if a.batch_steps.is_some() {
            return Err(CliError::new("--batch-steps", "applies to the search without --rate (the planner tries its own batches)"));
        }
        let svg = a.svg.as_deref().map(|p| (p, a.theme == crate::render::ThemeArg::Dark));
        return crate::serve_plan::run(a.json, &input, searched.as_ref().unwrap_or(&topo), &m, svg, note.as_deref()).map(said);
    }
    if a.search {
        return run_search(a, searched.as_ref().unwrap_or(&topo), &m, note.as_deref()).map(said);
    }
    if a.batch_steps.is_some() {
        return Err(CliError::new("--batch-steps", "applies to --search"));
    }
    if a.disaggregated == Some(Mode::Auto) {
        return Err(CliError::new("--disaggregated", "auto applies to the planner (serve --search --rate R --ttft-ms T --tpot-ms P); a single deployment is true or false"));
    }
    let d = a.deployment();
    let r = match &cal {
        Some(f) => Server::new(&crate::calibration_arg::measured_topology(&topo, f)?, &m)?.evaluate(&d)?,
        None => Server::new(&topo, &m)?.evaluate(&d)?,
    };
    let calibration = match &cal {
        Some(f) => {
            let r0 = Server::new(&topo, &m)?.evaluate(&d)?;
            Some(ServeCalibration {
                logs: f.calibration.logs,
                measured_nodes: f.calibration.measured_nodes.clone(),
                predicted_nodes: topo.domains,
                note: f.calibration.scale_note(topo.domains),
                calibrated: f.calibration.covers(topo.domains),
                catalog_tpot_ms: r0.tpot_ms,
                catalog_tokens_per_s_per_gpu: r0.tokens_per_s_per_gpu,
            })
        }
        None => None,
    };
    if let Some(path) = &a.svg {
        crate::serve_chart::write(path, &topo, &m, &d, a.theme == crate::render::ThemeArg::Dark)?;
    }
    let intervals = fabricscope_serving::calibration::intervals_of(&topo, &m, &d, &r);
    if a.json {
        return output::json(&ServeJson { model: m.name(), attention: m.attention, gpu: topo.gpu.id, deployment: &d, report: &r, intervals, calibration });
    }
    let mut s = text(&topo, &m, &d, &r, intervals.as_ref());
    if let Some(c) = &calibration {
        s.push_str(&format!("Calibrated from {} log{}: {}. Catalog (as designed): {:.1} tokens/s per GPU.\n", c.logs, if c.logs == 1 { "" } else { "s" }, c.note, c.catalog_tokens_per_s_per_gpu));
    }
    Ok(s)
}

#[derive(Args, Clone, Debug)]
pub struct KvTransferArgs {
    /// Tokens whose KV cache moves (one request's prompt)
    #[arg(long, value_name = "N", value_parser = count_parser(limits::SEQ))]
    pub tokens: u32,
    /// KV cache precision [default: bf16]
    #[arg(long, value_name = "P", default_value = "bf16", value_parser = precision_parser())]
    pub kv_precision: Precision,
    /// NICs the transfer stripes over (to another domain; implies it) [default: all of a
    /// node's NICs, or one per --tp rank]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::NICS_PER_NODE))]
    pub rails: Option<u32>,
    /// Where the decode GPUs are: same-domain (the prefill GPUs' NVL72 rack or NVLink node:
    /// over NVLink, each decode rank over its own links) or other-domain (another node or rack:
    /// over the NICs) [default: same-domain on an NVL72 rack when the decode ranks and as many
    /// prefill peers fit in it and --rails is not given; other-domain otherwise, e.g. on 8-GPU
    /// servers]
    #[arg(long, value_name = "WHERE", value_parser = kv_path_parser())]
    pub kv_path: Option<KvPath>,
    /// Tokens per block of a paged KV cache (vLLM --block-size, 16 by default; SGLang
    /// --page-size): adds the posting of one descriptor per layer, block and K/V region
    /// [default: a contiguous buffer]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::BLOCK_TOKENS))]
    pub block_tokens: Option<u32>,
    /// Serving engine whose KV connector moves the cache: trtllm, vllm, sglang or sglang-0.4 (its
    /// per-request cost, per-block posting cost and block size) [default: a transfer engine's
    /// own contiguous transfer, the 90% intervals spanning the three engines' connectors]
    #[arg(long, value_name = "ENGINE", value_parser = engine_parser())]
    pub engine: Option<Engine>,
    /// Decode tensor-parallel ranks, each receiving its shard over its own NIC (MLA: the whole
    /// latent to every rank; GQA: replicas beyond the K/V heads) [default: the cache once]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::TP))]
    pub tp: Option<u32>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub model: ServeModelArgs,
}

#[derive(Serialize)]
struct KvJson<'a> {
    bytes: u64,
    time_ms: f64,
    #[serde(rename = "effective_GBps")]
    effective_gbps: f64,
    path: KvPath,
    fabric: &'a str,
    #[serde(rename = "bandwidth_GBps")]
    bandwidth_gbps: f64,
    rails: u32,
    latency_us: f64,
    decode_tp: Option<u32>,
    block_tokens: Option<u32>,
    descriptors: u64,
    posting_us: f64,
    /// The connector's fixed cost of the request, µs (0 without an engine).
    request_us: f64,
    /// The engine whose connector was modelled; "none": a transfer engine's own transfer.
    engine: &'static str,
    model: &'a str,
    tokens: u32,
    error_band_pct: Option<f64>,
    /// 90% intervals of time_ms and effective_GBps (docs/calibration.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    intervals: Option<fabricscope_serving::calibration::KvIntervals>,
}

pub fn run_kv(a: &KvTransferArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let m = a.model.model()?;
    let input = KvTransferInput { tokens: a.tokens, kv_precision: a.kv_precision, rails: a.rails, block_tokens: a.block_tokens, decode_tp: a.tp, path: a.kv_path, engine: a.engine };
    let t = kv_transfer(&topo, &m, &input)?;
    // Without an engine the intervals also hold each engine's connector on the same transfer.
    let others: Vec<(f64, f64, bool)> = if a.engine.is_none() {
        fabricscope_serving::engine::ENGINES
            .iter()
            .filter_map(|e| kv_transfer(&topo, &m, &KvTransferInput { engine: Some(*e), ..input }).ok())
            .map(|o| (o.time.0 / 1e3, o.effective.0, o.error_band_pct.is_some()))
            .collect()
    } else {
        Vec::new()
    };
    let j = KvJson {
        bytes: t.bytes.0,
        time_ms: t.time.0 / 1e3,
        effective_gbps: t.effective.0,
        path: t.path,
        fabric: &t.fabric,
        bandwidth_gbps: t.bandwidth.0,
        rails: t.rails,
        latency_us: t.latency.0,
        decode_tp: a.tp,
        block_tokens: a.block_tokens,
        descriptors: t.descriptors,
        posting_us: t.posting.0,
        request_us: t.request.0,
        engine: t.engine.map_or("none", |e| e.id()),
        model: m.name(),
        tokens: a.tokens,
        error_band_pct: t.error_band_pct,
        intervals: fabricscope_serving::calibration::kv_intervals_across_engines(t.time.0 / 1e3, t.effective.0, t.error_band_pct.is_some(), &others),
    };
    if a.json {
        return output::json(&j);
    }
    let layout = match (a.block_tokens, t.engine) {
        (None, None) => "one contiguous buffer (--block-tokens N for a paged cache, --engine for a serving engine's connector)".to_string(),
        _ => format!(
            "paged: {} descriptors per rank, {:.3} ms to post (overlapped with the wire){}",
            j.descriptors,
            j.posting_us / 1e3,
            t.engine.map_or(String::new(), |e| format!("; through {}'s connector ({:.0} µs per request)", e.id(), j.request_us))
        ),
    };
    let over = match t.path {
        KvPath::SameDomain => format!("over {} ({} receiving GPU(s), same scale-up domain)", t.fabric, j.rails),
        KvPath::OtherDomain => format!("over {} NIC(s) of {} (another domain)", j.rails, t.fabric),
    };
    let ranks = match a.tp {
        Some(t) => format!("to {t} decode TP rank(s), each its shard"),
        None => "once (--tp N: to N decode ranks)".to_string(),
    };
    Ok(format!(
        "{}\nKV cache of {} tokens of {} ({}): {} bytes {}: {:.3} ms{} ({:.1} GB/s{} effective of {:.1} GB/s, {:.1} µs latency)\nLayout: {}; sent {}\n{}\n",
        output::cluster_line(&topo),
        a.tokens,
        m.name(),
        a.kv_precision.id(),
        fabricscope_model::figures::thousands(j.bytes as f64),
        over,
        j.time_ms,
        ninety(j.intervals.as_ref().map(|i| &i.time_ms), 3),
        j.effective_gbps,
        ninety(j.intervals.as_ref().map(|i| &i.effective_gbps), 1),
        j.bandwidth_gbps,
        j.latency_us,
        layout,
        ranks,
        match j.error_band_pct {
            Some(p) => format!("Band: ±{p:.0}% (median error on published KV transfers)"),
            None if a.block_tokens.is_some() => {
                "Band: none: descriptor posting is not validated on a published paged handoff (published NIXL posting costs: 0.83-3.75 µs per descriptor)".to_string()
            }
            None if t.path == KvPath::SameDomain => "Band: none: no published KV transfer inside a scale-up domain (not validated)".to_string(),
            None => "Band: none: no published KV transfer on this hardware class (not validated)".to_string(),
        }
    ))
}
