//! `fabricscope goodput`: how often a job spanning the cluster stops, what each stop costs, and
//! the share of the month it trains (ETTR) and its goodput tokens/s, each with its interval.
//! The job flags are `train`'s workload and layout flags; the step comes from the same model.

use crate::cluster_args::{bool_parser, unknown, ClusterArgs};
use crate::error::CliError;
use crate::output;
use crate::train::{FlagParser, ParallelArgs, WorkloadArgs};
use clap::Args;
use fabricscope_model::error::printable;
use fabricscope_model::goodput::{self, hours_with_interval, CheckpointMode, Effect, GoodputReport, Policy, Recovery};
use fabricscope_model::training::Evaluator;
use fabricscope_model::Topology;
use serde::Serialize;

/// Largest value of the time and bandwidth flags (a year in minutes or hours; 1 PB/s): beyond
/// them the answer would say nothing about a real job.
const MAX_MINUTES: f64 = 525_960.0;
const MAX_HOURS: f64 = 8_766.0;
const MAX_GBPS: f64 = 1.0e6;
/// Spare nodes at most (the largest cluster's node count).
const MAX_SPARES: u64 = 1_000_000;

#[derive(Args, Clone, Debug)]
pub struct GoodputArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub workload: WorkloadArgs,

    #[command(flatten)]
    pub parallel: ParallelArgs,

    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// How the operator runs the job through failures.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Failures and checkpoints")]
pub struct PolicyArgs {
    /// Minutes between checkpoints, or auto (Daly's optimum for the predicted MTTF) [default: auto]
    #[arg(long, value_name = "auto|MIN", value_parser = interval_parser())]
    pub checkpoint_interval: Option<Interval>,
    /// Stall per interruption in minutes, failure to training again (detect, reschedule,
    /// reload), not counting the work lost since the checkpoint [default: 10]
    #[arg(long, value_name = "M", value_parser = number_parser("--restart-min", 0.0, MAX_MINUTES))]
    pub restart_min: Option<f64>,
    /// job: every stop restarts the job from its checkpoint; replica: a failure inside one node
    /// replaces that data-parallel replica from a peer's memory [default: job]
    #[arg(long, value_name = "job|replica", value_parser = recovery_parser())]
    pub recovery: Option<Recovery>,
    /// Hot spare nodes beyond the cluster, or auto (the fewest that keep waiting for one under 0.1% of the time) [default: auto]
    #[arg(long, value_name = "auto|K", value_parser = spares_parser())]
    pub spares: Option<Spares>,
    /// Job mean time to interruption in hours, replacing the prediction (a site's own rate)
    #[arg(long, value_name = "H", value_parser = number_parser("--mttf-hours", 0.01, MAX_HOURS))]
    pub mttf_hours: Option<f64>,
    /// Checkpoint write bandwidth of the storage, GB/s in all [default: 1 GB/s per node, Llama 3's]
    #[arg(long = "storage-gbps", value_name = "GB/s", value_parser = number_parser("--storage-gbps", 0.001, MAX_GBPS))]
    pub storage_gbps: Option<f64>,
    /// async: copy to host memory, persist in the background; sync: training waits for the
    /// write [default: async]
    #[arg(long, value_name = "async|sync", value_parser = checkpoint_parser())]
    pub checkpoint: Option<CheckpointMode>,
    /// A NIC or its link down moves the node's traffic to its other NICs (slows the job)
    /// instead of aborting it [default: false]
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, value_parser = bool_parser())]
    pub nic_failover: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Interval {
    Auto,
    Minutes(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spares {
    Auto,
    Nodes(u64),
}

impl PolicyArgs {
    pub fn policy(&self) -> Policy {
        let d = Policy::default();
        Policy {
            checkpoint_interval_min: match self.checkpoint_interval {
                Some(Interval::Minutes(m)) => Some(m),
                _ => None,
            },
            restart_min: self.restart_min.unwrap_or(d.restart_min),
            recovery: self.recovery.unwrap_or(d.recovery),
            spares: match self.spares {
                Some(Spares::Nodes(k)) => Some(k),
                _ => None,
            },
            mttf_hours: self.mttf_hours,
            storage_gbps: self.storage_gbps,
            checkpoint: self.checkpoint.unwrap_or(d.checkpoint),
            nic_failover: self.nic_failover.unwrap_or(d.nic_failover),
        }
    }
}

/// A number from `lo` to `hi` (both allowed): the lower ends keep every derived time finite.
fn number(flag: &str, s: &str, lo: f64, hi: f64) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("{flag}: '{}' is not allowed: use a number from {lo} to {hi}", printable(s, 40))),
    }
}

fn number_parser(flag: &'static str, lo: f64, hi: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| number(flag, s, lo, hi)
}

fn interval_parser() -> impl Fn(&str) -> Result<Interval, String> + Clone + Send + Sync + 'static {
    |s: &str| {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(Interval::Auto);
        }
        number("--checkpoint-interval", s, 0.01, MAX_MINUTES).map(Interval::Minutes).map_err(|e| format!("{e}, or auto"))
    }
}

fn spares_parser() -> impl Fn(&str) -> Result<Spares, String> + Clone + Send + Sync + 'static {
    |s: &str| {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(Spares::Auto);
        }
        match s.trim().parse::<u64>() {
            Ok(k) if k <= MAX_SPARES => Ok(Spares::Nodes(k)),
            _ => Err(format!("--spares: '{}' is not allowed: use a whole number from 0 to {MAX_SPARES}, or auto", printable(s, 40))),
        }
    }
}

fn recovery_parser() -> FlagParser<Recovery> {
    FlagParser::new(
        |s| match s {
            "job" => Ok(Recovery::Job),
            "replica" => Ok(Recovery::Replica),
            _ => Err(unknown("recovery", s, &["job", "replica"])),
        },
        Some(|| vec!["job", "replica"]),
    )
}

fn checkpoint_parser() -> FlagParser<CheckpointMode> {
    FlagParser::new(
        |s| match s {
            "async" => Ok(CheckpointMode::Async),
            "sync" => Ok(CheckpointMode::Sync),
            _ => Err(unknown("checkpoint mode", s, &["async", "sync"])),
        },
        Some(|| vec!["async", "sync"]),
    )
}

pub use fabricscope_model::goodput::job_of;

#[derive(Serialize)]
struct GoodputJson<'a> {
    gpus: u32,
    gpu: &'static str,
    model: &'a str,
    step_time_s: f64,
    #[serde(flatten)]
    report: &'a GoodputReport,
}

pub fn run(a: &GoodputArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let w = a.workload.workload()?;
    let par = a.parallel.parallel(topo.total_gpus);
    let mut ev = Evaluator::new(&topo, &w, a.workload.framework)?;
    let step = ev.evaluate(&par)?;
    let r = goodput::goodput(&topo, &job_of(w.params(), &step), &a.policy.policy());
    if a.json {
        return output::json(&GoodputJson { gpus: topo.total_gpus, gpu: topo.gpu.id, model: &w.name, step_time_s: step.step_time_s, report: &r });
    }
    Ok(text(&topo, &w.name, step.step_time_s, &r))
}

/// The report in words, as `goodput` prints it and `train` appends.
pub fn text(topo: &Topology, model: &str, step_s: f64, r: &GoodputReport) -> String {
    let iv = &r.intervals;
    let mut s = String::new();
    s.push_str(&format!("{}\n", output::cluster_line(topo)));
    s.push_str(&format!("Job: {model} on all {} GPUs, {:.2} s a step\n\n", topo.total_gpus, step_s));
    s.push_str(&format!("Job MTTF           {}, {}\n", hours_with_interval(r.mttf_hours, &iv.mttf_hours), r.mttf_basis));
    s.push_str(&format!(
        "Interruptions/day  {:.2} (90%: {:.2}-{:.2})\n",
        r.interruptions_per_day, iv.interruptions_per_day.lo, iv.interruptions_per_day.hi
    ));
    s.push_str(&format!(
        "Checkpoint         every {:.1} min ({}); {:.0} GB, stall {:.1} s, saved in {:.1} s at {:.0} GB/s\n",
        r.checkpoint_interval_min, r.checkpoint_interval_basis, r.checkpoint_gb, r.checkpoint_stall_s, r.checkpoint_save_s, r.storage_gbps
    ));
    s.push_str(&format!(
        "Recovery           {} restart, {:.0} min a stop; {} hot spare nodes ({})\n",
        match r.recovery {
            Recovery::Job => "job",
            Recovery::Replica => "replica",
        },
        r.restart_min,
        r.spares,
        r.spares_basis
    ));
    s.push_str(&format!("ETTR               {:.1}% (90%: {:.1}-{:.1}%)\n", r.ettr * 100.0, iv.ettr.lo * 100.0, iv.ettr.hi * 100.0));
    s.push_str(&format!(
        "Goodput            {:.0} tokens/s of {:.0} (90%: {:.0}-{:.0})\n",
        r.goodput_tokens_per_s, r.tokens_per_s, iv.goodput_tokens_per_s.lo, iv.goodput_tokens_per_s.hi
    ));
    s.push_str(&format!(
        "Time lost          checkpoints {:.1}%, restarts {:.1}%, rolled-back work {:.1}%, waiting for spares {:.1}%, slowdowns {:.2}%\n\n",
        r.lost_to_checkpoints * 100.0,
        r.lost_to_restarts * 100.0,
        r.lost_to_rollback * 100.0,
        r.lost_to_waiting_for_spares * 100.0,
        r.lost_to_slowdowns * 100.0
    ));
    s.push_str("Component                     units  per unit-year  per day  share of stops  effect\n");
    for l in &r.components {
        let effect = match l.effect {
            Effect::Stop { nodes_out, .. } if nodes_out > 1 => format!("stops the job, {nodes_out} nodes out"),
            Effect::Stop { .. } => "stops the job".to_string(),
            Effect::Slow { throughput } => format!("slows the job to {:.1}%", throughput * 100.0),
        };
        s.push_str(&format!(
            "{:<28} {:>6}  {:>13.4}  {:>7.3}  {:>13.1}%  {}\n",
            l.label,
            l.count,
            l.failures_per_unit_year,
            l.failures_per_day,
            l.share_of_stops * 100.0,
            effect
        ));
    }
    for n in &r.notes {
        s.push_str(&format!("\n{n}"));
    }
    s.push('\n');
    s
}
