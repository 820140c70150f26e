//! The flow model's flags (routing, seeds, placement, neighbours, failures), shared by
//! `congestion`, `collective` and `train`, and the study they ask for on the cluster's Clos.

use crate::cluster_args::{count_parser, unknown, FlagParser};
use crate::error::CliError;
use clap::Args;
use fabricscope_flow::sim::{DEFAULT_CHANNELS, DEFAULT_DUTY_CYCLE, MAX_CHANNELS, MAX_OTHER_JOBS, MAX_SEEDS};
use fabricscope_flow::{run as study, ClosSpec, Dist, Fabric, Failures, Options, Outcome, Placement, Routing, Traffic};
use fabricscope_model::catalog::Routing as NicRouting;
use fabricscope_model::limits::{Limit, Unit};
use fabricscope_model::Topology;
use serde::Serialize;

const fn limit(field: &'static str, what: &'static str, min: u64, max: u64) -> Limit {
    Limit { field, what, min, max, unit: Unit::Count }
}

/// Seeds per study (count; [`MAX_SEEDS`] bounds a request's time).
const SEEDS: Limit = limit("seeds", "the seed count", 1, MAX_SEEDS as u64);
/// Ring channels per NIC (count; NCCL's MAXCHANNELS, see [`MAX_CHANNELS`]).
const CHANNELS: Limit = limit("channels", "ring channels per NIC", 1, MAX_CHANNELS as u64);
/// Other jobs (count; [`MAX_OTHER_JOBS`]).
const OTHER_JOBS: Limit = limit("other_jobs", "the number of other jobs", 0, MAX_OTHER_JOBS as u64);
/// NICs, links or spines down, links degraded (count; the fabric check bounds them further).
const DOWN: Limit = limit("down", "the number of failed parts", 0, 1_024);
/// Seeds when a study is asked for without `--seeds` (count; the 32).
pub const DEFAULT_SEEDS: u32 = 32;

fn traffic_ids() -> Vec<&'static str> {
    Traffic::ALL.iter().map(|t| t.0).collect()
}
fn routing_ids() -> Vec<&'static str> {
    Routing::ALL.iter().map(|t| t.0).collect()
}
fn placement_ids() -> Vec<&'static str> {
    Placement::ALL.iter().map(|t| t.0).collect()
}

pub fn traffic_parser() -> FlagParser<Traffic> {
    FlagParser {
        parse: |s| Traffic::ALL.iter().find(|t| t.0 == s).map(|t| t.1).ok_or_else(|| unknown("traffic", s, &traffic_ids())),
        ids: Some(traffic_ids),
    }
}
fn routing_parser() -> FlagParser<Routing> {
    FlagParser {
        parse: |s| Routing::ALL.iter().find(|t| t.0 == s).map(|t| t.1).ok_or_else(|| unknown("routing", s, &routing_ids())),
        ids: Some(routing_ids),
    }
}
fn placement_parser() -> FlagParser<Placement> {
    FlagParser {
        parse: |s| Placement::ALL.iter().find(|t| t.0 == s).map(|t| t.1).ok_or_else(|| unknown("placement", s, &placement_ids())),
        ids: Some(placement_ids),
    }
}
/// A share from 0 to 1 (`--duty-cycle`).
fn fraction_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
            _ => Err(format!("'{}' is not a share of time: use a number from 0 to 1", fabricscope_model::error::printable(s, 40))),
        },
        ids: None,
    }
}
/// A factor from [`MIN_FACTOR`] to 1 (`--degraded-factor`, `--slow-factor`): smaller ones would
/// make the times printed infinite.
pub fn factor_parser() -> FlagParser<f64> {
    use fabricscope_flow::failures::MIN_FACTOR;
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(v) if (MIN_FACTOR..=1.0).contains(&v) => Ok(v),
            _ => Err(format!("'{}' is not a factor: use a number from {MIN_FACTOR} to 1 (1 = full speed)", fabricscope_model::error::printable(s, 40))),
        },
        ids: None,
    }
}

/// Routing, seeds, placement, neighbours and failures on the actual fabric (crates/flow).
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Flow model (routing, sharing, failures)")]
pub struct FlowArgs {
    /// Routing over equal-cost paths [default: the NIC's fabric: adaptive on InfiniBand, ecmp on Ethernet]
    #[arg(long, value_name = "POLICY", value_parser = routing_parser())]
    pub routing: Option<Routing>,

    /// Seeds (hash draws and permutations) to sample [default: 32]
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(SEEDS))]
    pub seeds: Option<u32>,

    /// First seed (seeds run from it upwards)
    #[arg(long, value_name = "S", default_value = "1")]
    pub seed: u64,

    /// Where the job's nodes sit [default: contiguous]
    #[arg(long, value_name = "PLACEMENT", value_parser = placement_parser())]
    pub placement: Option<Placement>,

    /// NICs down on the job's first node (NCCL moves their traffic to the surviving NICs)
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub nics_down: u32,

    /// Leaf-to-spine links down, on the leaf of the job's first NIC
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub links_down: u32,

    /// Spine switches down, in the job's pod
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub spines_down: u32,

    /// Leaf-to-spine links running degraded (capacity x --degraded-factor), on the job's first leaf
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub degraded_links: u32,

    /// Capacity a degraded link keeps, from 0.001 to 1 [default: 0.5]
    #[arg(long, value_name = "F", allow_negative_numbers = true, value_parser = factor_parser())]
    pub degraded_factor: Option<f64>,

    /// Ring channels per NIC [default: 1, as NCCL's 8 channels on 8 NICs]
    #[arg(long, value_name = "C", allow_negative_numbers = true, value_parser = count_parser(CHANNELS))]
    pub channels: Option<u32>,

    /// Other jobs of the same size on the fabric (the nodes are split evenly among all jobs)
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(OTHER_JOBS), default_value = "0")]
    pub other_jobs: u32,

    /// Share of time each other job communicates while this one does (an assumption) [default: 0.5]
    #[arg(long, value_name = "SHARE", allow_negative_numbers = true, value_parser = fraction_parser())]
    pub duty_cycle: Option<f64>,
}

/// A degraded link's capacity when `--degraded-factor` is not given (dimensionless; an
/// example, not a measurement: a 400G port negotiated down to 200G).
pub const DEFAULT_DEGRADED_FACTOR: f64 = 0.5;

impl FlowArgs {
    /// Did the user ask for the flow model (any of its flags)? Without, `collective` and
    /// `train` print the analytical model alone, unchanged.
    pub fn requested(&self) -> bool {
        self.routing.is_some()
            || self.seeds.is_some()
            || self.placement.is_some()
            || self.nics_down + self.links_down + self.spines_down + self.degraded_links + self.other_jobs > 0
            || self.degraded_factor.is_some()
            || self.channels.is_some()
            || self.duty_cycle.is_some()
    }

    /// The routing: the flag, or the NIC's fabric default.
    pub fn routing(&self, topo: &Topology) -> Routing {
        self.routing.unwrap_or(match topo.nic.routing {
            NicRouting::Adaptive => Routing::Adaptive,
            NicRouting::Ecmp => Routing::Ecmp,
        })
    }

    /// The study's options for `traffic` with `qps` queue pairs per connection.
    pub fn options(&self, topo: &Topology, traffic: Traffic, qps: u32) -> Options {
        Options {
            traffic,
            routing: self.routing(topo),
            seeds: self.seeds.unwrap_or(DEFAULT_SEEDS),
            first_seed: self.seed,
            placement: self.placement.unwrap_or(Placement::Contiguous),
            channels: self.channels.unwrap_or(DEFAULT_CHANNELS),
            qps,
            gpus_per_node: topo.cluster.gpus_per_node,
            failures: Failures {
                nics_down: self.nics_down,
                links_down: self.links_down,
                spines_down: self.spines_down,
                degraded_links: self.degraded_links,
                degraded_factor: self.degraded_factor.unwrap_or(DEFAULT_DEGRADED_FACTOR),
            },
            other_jobs: self.other_jobs,
            duty_cycle: self.duty_cycle.unwrap_or(DEFAULT_DUTY_CYCLE),
        }
    }

    /// Runs the study of `traffic` on the cluster's fabric.
    pub fn study(&self, topo: &Topology, traffic: Traffic, qps: u32) -> Result<(Fabric, Outcome), CliError> {
        let fab = Fabric::build(ClosSpec::from_topology(topo)?)?;
        let out = study(&fab, &self.options(topo, traffic, qps))?;
        Ok((fab, out))
    }
}

/// A figure over seeds: mean and percentiles (as the flow model's fraction is reported).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
}

impl Spread {
    pub fn of(v: &[f64]) -> Spread {
        let d = Dist::of(v);
        Spread { mean: d.mean, p10: d.p10, p50: d.p50, p90: d.p90 }
    }
}

/// What `collective` and `train` add to their JSON when the flow model ran.
#[derive(Serialize)]
pub struct FlowJson<'a> {
    pub traffic: &'static str,
    pub routing: &'static str,
    pub seeds: u32,
    pub deterministic: bool,
    pub throughput_fraction: Dist,
    pub collision_probability: f64,
    pub bottleneck_tier: &'static str,
    pub failures: &'a Failures,
    pub other_jobs: u32,
    pub composition: &'static str,
    pub evidence: &'static str,
}

impl<'a> FlowJson<'a> {
    pub fn of(o: &'a Outcome, composition: &'static str) -> Self {
        FlowJson {
            traffic: o.traffic.id(),
            routing: o.routing.id(),
            seeds: o.seeds,
            deterministic: o.deterministic,
            throughput_fraction: o.throughput_fraction,
            collision_probability: o.collision_probability,
            bottleneck_tier: o.bottleneck_tier,
            failures: &o.failures,
            other_jobs: o.sharing.as_ref().map_or(0, |s| s.other_jobs),
            composition,
            evidence: o.evidence,
        }
    }
}

/// One text line naming the study behind a spread.
pub fn study_line(o: &Outcome) -> String {
    format!(
        "flow model: {} routed by {} over {} seed(s){}; fraction of the network kept: mean {:.3}, p10 {:.3}, p90 {:.3}; collision probability {:.3}; bottleneck tier {}",
        o.traffic.id(),
        o.routing.id(),
        o.seeds,
        if o.deterministic { " (deterministic)" } else { "" },
        o.throughput_fraction.mean,
        o.throughput_fraction.p10,
        o.throughput_fraction.p90,
        o.collision_probability,
        o.bottleneck_tier
    )
}
