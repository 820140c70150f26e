//! `train` with the flow model and stragglers: the step time over the flow model's seeds
//! (routing, neighbours, failures on the actual fabric) and with slow GPUs on the critical path,
//! as crates/flow's `step` composes them (the page's congestion panel uses the same).

use crate::error::CliError;
use crate::flow_args::{factor_parser, study_line, FlowJson, Spread};
use crate::cluster_args::count_parser;
use crate::output;
use crate::flow_args::FlowArgs;
use clap::Args;
use fabricscope_flow::{Outcome, Traffic};
use fabricscope_model::limits::{Limit, Unit};
use fabricscope_flow::step::{experts_cross, step_over_seeds, Stragglers, STRAGGLER_MODEL};
use fabricscope_model::training::{Framework, Parallel, StepReport, Workload};
use fabricscope_model::Topology;
use serde::Serialize;

/// Slow GPUs (count; at most the largest cluster's GPUs).
const SLOW_GPUS: Limit = Limit { field: "slow_gpus", what: "the number of slow GPUs", min: 0, max: 1 << 20, unit: Unit::Count };
pub use fabricscope_flow::step::DEFAULT_SLOW_FACTOR;

/// GPUs running below their speed on the step's critical path.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Stragglers")]
pub struct StragglerArgs {
    /// GPUs running slow (thermal or power throttling, a bad HBM stack); the step waits for them
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(SLOW_GPUS), default_value = "0")]
    pub slow_gpus: u32,

    /// Speed a slow GPU keeps, from 0.001 to 1 [default: 0.8]
    #[arg(long, value_name = "F", allow_negative_numbers = true, value_parser = factor_parser())]
    pub slow_factor: Option<f64>,
}

impl StragglerArgs {
    /// The slow GPUs as the step model takes them.
    pub fn stragglers(&self) -> Stragglers {
        Stragglers { gpus: self.slow_gpus, factor: self.slow_factor.unwrap_or(DEFAULT_SLOW_FACTOR) }
    }
}

/// `train --json` with the flow model or stragglers.
#[derive(Serialize)]
struct TrainFlowJson<'a> {
    workload: &'a Workload,
    gpus: u32,
    gpu: &'static str,
    #[serde(flatten)]
    report: &'a StepReport,
    /// The step time over seeds (with slow GPUs when asked), seconds.
    step_time_s_over_seeds: Spread,
    tokens_per_s_over_seeds: Spread,
    slow_gpus: u32,
    slow_factor: Option<f64>,
    /// The data-parallel (ring) study; `alltoall` when the job's experts cross nodes.
    flow: Option<FlowJson<'a>>,
    flow_alltoall: Option<FlowJson<'a>>,
    straggler_model: &'static str,
    /// With `--calibration`: the step was timed on the cluster as measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<&'a crate::calibration_arg::TrainCalibration>,
}


/// What `train` hands over: its flags for the study and the job it evaluated.
pub struct Job<'a> {
    pub flow: &'a FlowArgs,
    pub stragglers: &'a StragglerArgs,
    pub json: bool,
    pub framework: Framework,
    pub topo: &'a Topology,
    pub w: &'a Workload,
    pub par: &'a Parallel,
    pub r: &'a StepReport,
    /// `train`'s own text for the healthy step, printed first.
    pub text: String,
    /// With `--calibration`: what the step was timed on (the topology carries the fit).
    pub calibration: Option<&'a crate::calibration_arg::TrainCalibration>,
}

pub fn run(j: Job) -> Result<String, CliError> {
    let Job { flow, stragglers, json, framework, topo, w, par, r, text, calibration } = j;
    let (ring, a2a): (Option<Outcome>, Option<Outcome>) = if flow.requested() {
        // Each connection's queue pairs are flows of their own, as the step's collectives run.
        let qps = topo.qps_per_connection.max(1);
        let ring = flow.study(topo, Traffic::Ring, qps)?.1;
        // Experts across nodes put all-to-all on the fabric: its own study.
        let a2a = if experts_cross(topo, w, par) { Some(flow.study(topo, Traffic::AllToAll, qps)?.1) } else { None };
        (Some(ring), a2a)
    } else {
        (None, None)
    };
    let per_seed = |o: &Option<Outcome>| o.as_ref().map(|o| o.per_seed.clone());
    let (fr, fa) = (per_seed(&ring), per_seed(&a2a));
    let spread = step_over_seeds(topo, w, framework, par, fr.as_deref(), fa.as_deref(), &stragglers.stragglers())?;
    let seeds = spread.per_seed_s.len();
    let tokens: Vec<f64> = spread.per_seed_s.iter().map(|s| w.tokens_per_step() as f64 / s).collect();
    let steps = spread.per_seed_s;
    let (step, tok) = (Spread::of(&steps), Spread::of(&tokens));
    let composition = crate::collective::COMPOSITION;
    if json {
        return output::json(&TrainFlowJson {
            workload: w,
            gpus: topo.total_gpus,
            gpu: topo.gpu.id,
            report: r,
            step_time_s_over_seeds: step,
            tokens_per_s_over_seeds: tok,
            slow_gpus: stragglers.slow_gpus,
            slow_factor: (stragglers.slow_gpus > 0).then(|| stragglers.slow_factor.unwrap_or(DEFAULT_SLOW_FACTOR)),
            flow: ring.as_ref().map(|o| FlowJson::of(o, composition)),
            flow_alltoall: a2a.as_ref().map(|o| FlowJson::of(o, composition)),
            straggler_model: STRAGGLER_MODEL,
            calibration,
        });
    }
    let mut s = text;
    s.push_str(&format!(
        "\nWith routing, sharing, failures and stragglers: step time mean {:.3} s, p10 {:.3}, p50 {:.3}, p90 {:.3} over {} seed(s) (healthy, alone: {:.3} s); tokens/s mean {:.0}\n",
        step.mean, step.p10, step.p50, step.p90, seeds, r.step_time_s, tok.mean
    ));
    for o in ring.iter().chain(a2a.iter()) {
        s.push_str(&format!("  {}\n", study_line(o)));
    }
    if ring.is_some() {
        s.push_str(&format!("  composition: {composition}\n"));
    }
    if stragglers.slow_gpus > 0 {
        s.push_str(&format!(
            "  {} slow GPU(s) at {:.0}% speed: {STRAGGLER_MODEL}\n",
            stragglers.slow_gpus,
            100.0 * stragglers.slow_factor.unwrap_or(DEFAULT_SLOW_FACTOR)
        ));
    }
    Ok(s)
}
