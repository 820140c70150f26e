//! `fabricscope serve --search --rate R --ttft-ms T --tpot-ms P`: the serving planner
//! (`fabricscope_serving::planner`): the deployments meeting both targets at the rate, fewest
//! GPUs first, aggregated and disaggregated, with the Pareto front and, when none does, why.

use crate::cluster_args::{count_parser, FlagParser};
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::error::{printable, MAX_QUOTED_CHARS};
use fabricscope_model::interval::Interval;
use fabricscope_model::limits;
use fabricscope_model::Topology;
use fabricscope_serving::planner::input::{MAX_MTP_ACCEPTANCE, MAX_RATE};
use fabricscope_serving::planner::{plan, Mode, PlanDeployment, PlanInput, PlanResult};
use fabricscope_serving::{Engine, Precision, ServingModel};

/// The planner's flags (with `serve --search`).
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Planner (serve --search --rate R --ttft-ms T --tpot-ms P)")]
pub struct PlanArgs {
    /// Requests per second arriving (Poisson): with --ttft-ms and --tpot-ms, --search finds the
    /// deployments meeting both targets at this rate on the fewest GPUs
    #[arg(long, value_name = "REQ_PER_S", value_parser = rate_parser(), allow_hyphen_values = true)]
    pub rate: Option<f64>,
    /// Time-to-first-token target, ms
    #[arg(long, value_name = "MS", value_parser = ms_parser(), allow_hyphen_values = true)]
    pub ttft_ms: Option<f64>,
    /// Time-per-output-token target, ms
    #[arg(long, value_name = "MS", value_parser = ms_parser(), allow_hyphen_values = true)]
    pub tpot_ms: Option<f64>,
    /// Fraction of prompt tokens found in the prefix cache and not recomputed, 0 to below 1
    /// [default: 0]
    #[arg(long, value_name = "F", value_parser = fraction_parser(), allow_hyphen_values = true)]
    pub prefix_cache_hit: Option<f64>,
    /// Prefill chunk: prompt tokens one iteration carries beside the decode tokens
    /// (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens) [default: 8192]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::SEQ))]
    pub chunk_tokens: Option<u32>,
    /// MTP / speculative decoding: mean tokens a sequence gains per decode step, 1 (off) to 16
    /// [default: 1]
    #[arg(long, value_name = "X", value_parser = acceptance_parser(), allow_hyphen_values = true)]
    pub mtp_acceptance: Option<f64>,
    /// Percentile of the TTFT target: mean, p50, p90, p99 or a fraction below 1 (TPOT is a
    /// mean) [default: mean]
    #[arg(long, value_name = "P", value_parser = percentile_parser(), allow_hyphen_values = true)]
    pub percentile: Option<Pct>,
    /// Coefficient of variation of the prompt lengths, 0 (all the mean: M/D/1) to 10 [default: 0]
    #[arg(long, value_name = "CV", value_parser = cv_parser(), allow_hyphen_values = true)]
    pub input_cv: Option<f64>,
    /// Most GPUs a deployment may use [default: the cluster's]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::TOTAL_GPUS))]
    pub max_gpus: Option<u32>,
    /// Deployments listed, fewest GPUs first [default: 20]
    #[arg(long, value_name = "N", value_parser = count_parser(limits::TOTAL_GPUS))]
    pub top: Option<u32>,
}

/// A percentile (`None` inside: the mean).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pct(pub Option<f64>);

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn rate_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| number(s).filter(|v| *v > 0.0 && *v <= MAX_RATE).ok_or_else(|| format!("invalid rate '{}'; allowed: requests/s above 0, at most {MAX_RATE}", printable(s, MAX_QUOTED_CHARS))),
        ids: None,
    }
}

fn ms_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| number(s).filter(|v| *v > 0.0 && *v <= 1e9).ok_or_else(|| format!("invalid target '{}'; allowed: ms above 0, at most 1000000000", printable(s, MAX_QUOTED_CHARS))),
        ids: None,
    }
}

fn fraction_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| number(s).filter(|v| (0.0..1.0).contains(v)).ok_or_else(|| format!("invalid prefix-cache hit rate '{}'; allowed: a fraction from 0 to below 1", printable(s, MAX_QUOTED_CHARS))),
        ids: None,
    }
}

fn acceptance_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| {
            number(s)
                .filter(|v| (1.0..=MAX_MTP_ACCEPTANCE).contains(v))
                .ok_or_else(|| format!("invalid MTP acceptance '{}'; allowed: tokens per decode step from 1 (off) to {MAX_MTP_ACCEPTANCE}", printable(s, MAX_QUOTED_CHARS)))
        },
        ids: None,
    }
}

fn cv_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| number(s).filter(|v| (0.0..=10.0).contains(v)).ok_or_else(|| format!("invalid coefficient of variation '{}'; allowed: 0 to 10", printable(s, MAX_QUOTED_CHARS))),
        ids: None,
    }
}

fn percentile_parser() -> FlagParser<Pct> {
    FlagParser {
        parse: |s| {
            let t = s.trim().to_ascii_lowercase();
            let v = match t.as_str() {
                "mean" => return Ok(Pct(None)),
                _ => t.strip_prefix('p').and_then(|n| number(n).map(|v| v / 100.0)).or_else(|| number(&t)),
            };
            v.filter(|v| (0.0..1.0).contains(v) && *v > 0.0)
                .map(|v| Pct(Some(v)))
                .ok_or_else(|| format!("invalid percentile '{}'; allowed: mean, p50, p90, p99, or a fraction from 0 to below 1", printable(s, MAX_QUOTED_CHARS)))
        },
        ids: None,
    }
}

/// What the planner takes from `serve`'s own flags.
#[derive(Clone, Copy, Debug)]
pub struct ServeFlags {
    pub search: bool,
    pub input_len: u32,
    pub output_len: u32,
    pub mode: Option<Mode>,
    pub engine: Option<Engine>,
    pub precision: Precision,
    pub kv_precision: Option<Precision>,
    pub memory_fraction: Option<f64>,
    pub reserve_gib: Option<f64>,
    /// `--max-batch`: the planner's cap on sequences per DP rank (the engine's max batch size).
    pub max_batch: u32,
}

impl PlanArgs {
    /// The planner's question when --rate, --ttft-ms or --tpot-ms is given (all three and
    /// --search are then needed); `None`: not a planner run (the planner-only flags refused).
    pub fn input(&self, a: &ServeFlags) -> Result<Option<PlanInput>, CliError> {
        let given = [("--rate", self.rate.is_some()), ("--ttft-ms", self.ttft_ms.is_some()), ("--tpot-ms", self.tpot_ms.is_some())];
        let extra = [
            ("--prefix-cache-hit", self.prefix_cache_hit.is_some()),
            ("--chunk-tokens", self.chunk_tokens.is_some()),
            ("--mtp-acceptance", self.mtp_acceptance.is_some()),
            ("--percentile", self.percentile.is_some()),
            ("--input-cv", self.input_cv.is_some()),
            ("--max-gpus", self.max_gpus.is_some()),
            ("--top", self.top.is_some()),
        ];
        if !given.iter().any(|g| g.1) {
            if let Some((flag, _)) = extra.iter().find(|e| e.1) {
                return Err(CliError::new(*flag, "applies to the planner: serve --search --rate R --ttft-ms T --tpot-ms P"));
            }
            return Ok(None);
        }
        if let Some((flag, _)) = given.iter().find(|g| !g.1) {
            return Err(CliError::new(*flag, "the planner needs --rate, --ttft-ms and --tpot-ms together (with --search)"));
        }
        if !a.search {
            return Err(CliError::new("--search", "--rate, --ttft-ms and --tpot-ms ask the planner: add --search"));
        }
        // The page's planner starts from the same question (one design, one answer).
        let d = fabricscope_serving::DEFAULTS.plan_input(self.rate.unwrap_or(1.0), self.ttft_ms.unwrap_or(1.0), self.tpot_ms.unwrap_or(1.0));
        let input = PlanInput {
            input_tokens: a.input_len,
            output_tokens: a.output_len,
            input_cv: self.input_cv.unwrap_or(d.input_cv),
            mode: a.mode.unwrap_or(Mode::Auto),
            engine: a.engine,
            prefix_cache_hit: self.prefix_cache_hit.unwrap_or(d.prefix_cache_hit),
            chunk_tokens: self.chunk_tokens.unwrap_or(d.chunk_tokens),
            mtp_acceptance: self.mtp_acceptance.unwrap_or(d.mtp_acceptance),
            percentile: self.percentile.and_then(|p| p.0),
            precision: a.precision,
            kv_precision: a.kv_precision,
            memory_fraction: a.memory_fraction,
            reserve_gib: a.reserve_gib,
            max_gpus: self.max_gpus,
            max_batch: a.max_batch.min(fabricscope_serving::deploy::MAX_BATCH),
            max_results: self.top.map_or(d.max_results, |t| t as usize),
            ..d
        };
        input.check().map_err(|e| CliError::new(planner_flag(e.field), e.message))?;
        Ok(Some(input))
    }
}

/// The flag of a planner input field.
fn planner_flag(field: &str) -> String {
    match field {
        "input_tokens" => "--input-len".into(),
        "output_tokens" => "--output-len".into(),
        "max_results" => "--top".into(),
        f => format!("--{}", f.replace('_', "-")),
    }
}

/// Runs the planner and prints its answer; with `svg` (a path and whether dark), also writes the
/// planner's chart (serving.html's renderer: the deployments meeting the targets and the front).
/// The plan; `note`: the calibration it ran on, in the JSON (the caller says it in text).
pub fn run(json: bool, input: &PlanInput, topo: &Topology, m: &ServingModel, svg: Option<(&std::path::Path, bool)>, note: Option<&str>) -> Result<String, CliError> {
    let r = plan(topo, m, input).map_err(|e| CliError::new(planner_flag(e.field), e.message))?;
    if let Some((path, dark)) = svg {
        let chart = fabricscope_charts::plan_chart(&[fabricscope_charts::PlanSeries { label: String::new(), plan: &r }], 760, 440, &fabricscope_charts::Theme::for_dark(dark));
        std::fs::write(path, chart).map_err(|e| CliError::new("--svg", format!("cannot write {}: {e}", path.display())))?;
    }
    if json {
        return output::json(&output::Noted { inner: &r, calibration: note });
    }
    Ok(text(topo, &r))
}

fn range(i: Option<&Interval>, digits: usize) -> String {
    i.map_or(String::new(), |i| format!(" ({:.digits$}-{:.digits$})", i.lo, i.hi))
}

fn row(d: &PlanDeployment) -> String {
    let iv = d.intervals.as_ref();
    format!(
        "{:>5}  {:<13}  {:<46}  {:>20}  {:>18}  {:>9.0}  {:>10.1}  {:>9.1}\n",
        d.gpus,
        d.mode.id(),
        d.label(),
        format!("{:.0}{}", d.ttft_ms, range(iv.map(|i| &i.ttft_ms), 0)),
        format!("{:.1}{}", d.tpot_ms, range(iv.map(|i| &i.tpot_ms), 1)),
        d.tokens_per_s_per_gpu,
        d.tokens_per_s_per_user,
        d.max_rate
    )
}

fn header() -> String {
    format!(
        "{:>5}  {:<13}  {:<46}  {:>20}  {:>18}  {:>9}  {:>10}  {:>9}\n",
        "GPUs", "mode", "layout (replicas x layout)", "TTFT ms (90%)", "TPOT ms (90%)", "tok/s/GPU", "tok/s/user", "max req/s"
    )
}

fn text(topo: &Topology, r: &PlanResult) -> String {
    let i = &r.input;
    let mut s = output::cluster_line(topo);
    s.push('\n');
    s.push_str(&format!(
        "Planner: {} at {} requests/s, {} tokens in ({}), {} out; TTFT <= {} ms ({}), TPOT <= {} ms (mean); {} mode; engine {}; prefix-cache hit {}, chunk {} tokens, MTP acceptance {}\n",
        r.model,
        i.rate,
        i.input_tokens,
        if i.input_cv > 0.0 { format!("cv {}", i.input_cv) } else { "all the mean".to_string() },
        i.output_tokens,
        i.ttft_ms,
        i.percentile.map_or("mean".to_string(), |p| format!("p{}", p * 100.0)),
        i.tpot_ms,
        i.mode.id(),
        i.engine.map_or("trtllm (default; the 90% intervals span trtllm, vllm, sglang and sglang-0.4)".to_string(), |e| e.id().to_string()),
        i.prefix_cache_hit,
        i.chunk_tokens,
        i.mtp_acceptance
    ));
    if r.deployments.is_empty() {
        s.push_str(&format!("\nNo deployment on the {} GPUs meets both targets: {}\n", r.gpus_available, r.reason.as_deref().unwrap_or("none fits")));
    } else {
        s.push_str(&format!(
            "\n{} deployments meet both targets (of {} evaluated over {} layouts); the smallest of each layout{}, fewest GPUs first (tok/s/GPU: the rate's output tokens over the GPUs; max req/s: the most it sustains within the targets):\n\n",
            r.meeting,
            r.evaluated,
            r.layouts - r.layouts_refused,
            if r.deployments.len() < r.meeting_layouts { format!(" ({} of {}; --top N for more)", r.deployments.len(), r.meeting_layouts) } else { String::new() }
        ));
        s.push_str(&header());
        for d in &r.deployments {
            s.push_str(&row(d));
        }
        s.push_str("\nPareto front, tokens/s per GPU against tokens/s per user (every pool size tried):\n\n");
        s.push_str(&header());
        for d in &r.pareto {
            s.push_str(&row(d));
        }
    }
    if let Some(n) = &r.fabric_note {
        s.push_str(&format!("\n{n}.\n"));
    }
    s.push_str("\nQueueing: M/G/1 per DP rank's prefill server; prefill chunks add to the decode step; intervals hold the step's calibrated error only (docs/serving.md, \"Planner\").\n");
    s
}
