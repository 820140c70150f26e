//! The failure-policy flags `goodput` and `train` share: checkpoint interval and mode, restart,
//! recovery, spares, a given MTTF, storage bandwidth, NIC failover.

use crate::cluster_args::{bool_parser, unknown, FlagParser};
use clap::Args;
use fabricscope_model::error::printable;
use fabricscope_model::goodput::{CheckpointMode, Policy, Recovery};

/// Largest value of the time and bandwidth flags (a year in minutes or hours; 1 PB/s): beyond
/// them the answer would say nothing about a real job.
const MAX_MINUTES: f64 = 525_960.0;
const MAX_HOURS: f64 = 8_766.0;
const MAX_GBPS: f64 = 1.0e6;
/// Spare nodes at most (the largest cluster's node count).
const MAX_SPARES: u64 = 1_000_000;

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
    FlagParser {
        parse: |s| match s {
            "job" => Ok(Recovery::Job),
            "replica" => Ok(Recovery::Replica),
            _ => Err(unknown("recovery", s, &["job", "replica"])),
        },
        ids: Some(|| vec!["job", "replica"]),
    }
}

fn checkpoint_parser() -> FlagParser<CheckpointMode> {
    FlagParser {
        parse: |s| match s {
            "async" => Ok(CheckpointMode::Async),
            "sync" => Ok(CheckpointMode::Sync),
            _ => Err(unknown("checkpoint mode", s, &["async", "sync"])),
        },
        ids: Some(|| vec!["async", "sync"]),
    }
}
