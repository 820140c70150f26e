//! `fabricscope congestion`: the flow-level model (crates/flow) on the cluster's Clos: a
//! traffic pattern routed by policy over seeds, with neighbours and failures; the throughput
//! fraction's distribution, the collision probability and the bottleneck tier.

use crate::cluster_args::{count_parser, unknown, ClusterArgs, FlagParser};
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_flow::sim::{DEFAULT_CHANNELS, DEFAULT_DUTY_CYCLE, MAX_CHANNELS, MAX_OTHER_JOBS, MAX_QPS, MAX_SEEDS};
use fabricscope_charts::{fabric_loads_chart, LoadsOptions, Theme};
use fabricscope_flow::{link_loads, Seeds};
use fabricscope_flow::{run as study, ClosSpec, Dist, Fabric, Failures, Options, Outcome, Placement, Routing, Traffic};
use fabricscope_model::catalog::Routing as NicRouting;
use fabricscope_model::limits::{Limit, Unit};
use serde::Serialize;

const fn limit(field: &'static str, what: &'static str, min: u64, max: u64) -> Limit {
    Limit { field, what, min, max, unit: Unit::Count }
}

/// Seeds per study (count; [`MAX_SEEDS`] bounds a request's time).
const SEEDS: Limit = limit("seeds", "the seed count", 1, MAX_SEEDS as u64);
/// Ring channels per NIC (count; NCCL's MAXCHANNELS, see [`MAX_CHANNELS`]).
const CHANNELS: Limit = limit("channels", "ring channels per NIC", 1, MAX_CHANNELS as u64);
/// Queue pairs per connection (count; as the model's `limits::QPS_PER_CONNECTION`).
const QPS: Limit = limit("qps_per_connection", "queue pairs per connection", 1, MAX_QPS as u64);
/// Other jobs (count; [`MAX_OTHER_JOBS`]).
const OTHER_JOBS: Limit = limit("other_jobs", "the number of other jobs", 0, MAX_OTHER_JOBS as u64);
/// NICs, links or spines down (count; the fabric check bounds them further).
const DOWN: Limit = limit("down", "the number of failed parts", 0, 1_024);

fn traffic_ids() -> Vec<&'static str> {
    Traffic::ALL.iter().map(|t| t.0).collect()
}
fn routing_ids() -> Vec<&'static str> {
    Routing::ALL.iter().map(|t| t.0).collect()
}
fn placement_ids() -> Vec<&'static str> {
    Placement::ALL.iter().map(|t| t.0).collect()
}

fn traffic_parser() -> FlagParser<Traffic> {
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
fn fraction_parser() -> FlagParser<f64> {
    FlagParser {
        parse: |s| match s.trim().parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
            _ => Err(format!("'{}' is not a share of time: use a number from 0 to 1", fabricscope_model::error::printable(s, 40))),
        },
        ids: None,
    }
}

#[derive(Args, Clone, Debug)]
pub struct CongestionArgs {
    /// Traffic pattern
    #[arg(long, value_name = "PATTERN", value_parser = traffic_parser(), default_value = "ring")]
    pub traffic: Traffic,

    /// Routing over equal-cost paths [default: the NIC's fabric: adaptive on InfiniBand, ecmp on Ethernet]
    #[arg(long, value_name = "POLICY", value_parser = routing_parser())]
    pub routing: Option<Routing>,

    /// Seeds (hash draws and permutations) to sample
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(SEEDS), default_value = "32")]
    pub seeds: u32,

    /// First seed (seeds run from it upwards)
    #[arg(long, value_name = "S", default_value = "1")]
    pub seed: u64,

    /// Where the job's nodes sit
    #[arg(long, value_name = "PLACEMENT", value_parser = placement_parser(), default_value = "contiguous")]
    pub placement: Placement,

    /// NICs down on the job's first node (NCCL moves their traffic to the surviving NICs)
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub nics_down: u32,

    /// Leaf-to-spine links down, on the leaf of the job's first NIC
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub links_down: u32,

    /// Spine switches down, in the job's pod
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(DOWN), default_value = "0")]
    pub spines_down: u32,

    /// Ring channels per NIC [default: 1, as NCCL's 8 channels on 8 NICs]
    #[arg(long, value_name = "C", allow_negative_numbers = true, value_parser = count_parser(CHANNELS))]
    pub channels: Option<u32>,

    /// Queue pairs per connection, as NCCL_IB_QPS_PER_CONNECTION (each hashed on its own)
    #[arg(long, value_name = "Q", allow_negative_numbers = true, value_parser = count_parser(QPS), default_value = "1")]
    pub qps_per_connection: u32,

    /// Other jobs of the same size on the fabric (the nodes are split evenly among all jobs)
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(OTHER_JOBS), default_value = "0")]
    pub other_jobs: u32,

    /// Share of time each other job communicates while this one does (an assumption) [default: 0.5]
    #[arg(long, value_name = "SHARE", allow_negative_numbers = true, value_parser = fraction_parser())]
    pub duty_cycle: Option<f64>,

    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    /// Print the fat tree with its loaded links as SVG instead of text (the median seed's
    /// loads; the web page draws the same)
    #[arg(long, conflicts_with = "json")]
    pub svg: bool,

    /// Palette of --svg
    #[arg(long, value_enum, default_value = "light", requires = "svg")]
    pub theme: crate::render::ThemeArg,

    /// Width of --svg in pixels
    #[arg(long, default_value_t = 720, requires = "svg", value_parser = clap::value_parser!(u32).range(300..=2000))]
    pub width: u32,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Serialize)]
struct CongestionJson<'a> {
    cluster: String,
    gpus: u32,
    nic: &'static str,
    /// The routing was not given and follows the NIC's fabric.
    routing_from_nic: bool,
    fabric: &'a ClosSpec,
    #[serde(flatten)]
    outcome: &'a Outcome,
}

pub fn run(a: &CongestionArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let fab = Fabric::build(ClosSpec::from_topology(&topo)?)?;
    let routing = a.routing.unwrap_or(match topo.nic.routing {
        NicRouting::Adaptive => Routing::Adaptive,
        NicRouting::Ecmp => Routing::Ecmp,
    });
    let o = Options {
        traffic: a.traffic,
        routing,
        seeds: a.seeds,
        first_seed: a.seed,
        placement: a.placement,
        channels: a.channels.unwrap_or(DEFAULT_CHANNELS),
        qps: a.qps_per_connection,
        gpus_per_node: topo.cluster.gpus_per_node,
        failures: Failures { nics_down: a.nics_down, links_down: a.links_down, spines_down: a.spines_down },
        other_jobs: a.other_jobs,
        duty_cycle: a.duty_cycle.unwrap_or(DEFAULT_DUTY_CYCLE),
    };
    if a.svg {
        return svg(a, &fab, o);
    }
    let out = study(&fab, &o)?;
    if a.json {
        return output::json(&CongestionJson {
            cluster: output::cluster_line(&topo),
            gpus: topo.total_gpus,
            nic: topo.nic.id,
            routing_from_nic: a.routing.is_none(),
            fabric: &fab.spec,
            outcome: &out,
        });
    }
    Ok(text(&topo, &fab, &out, a.routing.is_none()))
}

/// The study seed by seed (the same figures as one run), then the median seed's link loads drawn.
fn svg(a: &CongestionArgs, fab: &Fabric, o: Options) -> Result<String, CliError> {
    let mut seeds = Seeds::new(o);
    while !seeds.step(fab)? {}
    let (Some(out), Some(seed)) = (seeds.outcome(), seeds.median_seed()) else {
        return Err(CliError::new("seeds", "no seed was solved".to_string()));
    };
    let loads = link_loads(fab, &o, seed)?;
    let what = if out.deterministic {
        format!("{} {}", out.traffic.id(), out.routing.id())
    } else {
        format!("{} {}, the median of {} seeds: seed {seed}", out.traffic.id(), out.routing.id(), out.seeds)
    };
    let opts = LoadsOptions { width: a.width, bottleneck_tier: out.bottleneck_tier.to_string(), what };
    let theme = Theme::for_dark(a.theme == crate::render::ThemeArg::Dark);
    Ok(format!("{}\n", fabric_loads_chart(&loads, &opts, &theme)))
}

fn dist(d: &Dist) -> String {
    format!("mean {:.3}  p10 {:.3}  p50 {:.3}  p90 {:.3}", d.mean, d.p10, d.p50, d.p90)
}

fn text(topo: &fabricscope_model::Topology, fab: &Fabric, o: &Outcome, from_nic: bool) -> String {
    let s = &fab.spec;
    let mut t = format!("cluster: {}\n", output::cluster_line(topo));
    t.push_str(&format!(
        "fabric: {} plane(s) of {} leaves ({} NIC ports, {} uplinks each), {} spines, {} cores per plane; {}\n",
        s.planes,
        s.leaves_per_plane,
        s.down_per_leaf,
        s.up_per_leaf,
        s.spines_per_plane,
        s.cores_per_plane,
        if s.rail_optimized { "rail-optimized" } else { "not rail-optimized" }
    ));
    t.push_str(&format!(
        "traffic: {} over {} nodes, {} placement; routing {}{}; {} seed(s){}\n",
        o.traffic.id(),
        o.nodes_in_job,
        o.placement.id(),
        o.routing.id(),
        if from_nic { " (the NIC's fabric default)" } else { "" },
        o.seeds,
        if o.deterministic { " (deterministic: nothing to sample)" } else { "" }
    ));
    if o.failures.any() {
        t.push_str(&format!(
            "failures: {} NIC(s) down on the job's first node, {} leaf-spine link(s) down, {} spine(s) down\n",
            o.failures.nics_down, o.failures.links_down, o.failures.spines_down
        ));
    }
    t.push_str(&format!("\nthroughput fraction (of an ideal non-blocking fabric): {}\n", dist(&o.throughput_fraction)));
    if let Some(sh) = &o.sharing {
        t.push_str(&format!(
            "  with {} other job(s) of {} nodes, each communicating {:.0}% of the time (assumed):\n    best (interleaved)  {}\n    worst (overlapping) {}\n    expected            {}\n",
            sh.other_jobs,
            sh.nodes_per_job,
            sh.duty_cycle * 100.0,
            dist(&sh.best),
            dist(&sh.worst),
            dist(&sh.expected)
        ));
    }
    t.push_str(&format!("collision probability: {:.3}\n", o.collision_probability));
    t.push_str(&format!("bottleneck tier: {}\n", o.bottleneck_tier));
    t.push_str(&format!(
        "ideal connection rate: {:.1} GB/s per direction (line {:.1} GB/s per direction)\n",
        o.ideal_connection_rate.0, o.line_rate.0
    ));
    let (banded, unbanded): (Vec<_>, Vec<_>) = o.transport.iter().partition(|d| d.kept_low.is_some() && d.kept_high.is_some());
    for d in banded {
        t.push_str(&format!(
            "not applied: {} keeps {:.2}-{:.2} ({})\n",
            d.effect,
            d.kept_low.unwrap_or(1.0),
            d.kept_high.unwrap_or(1.0),
            d.source
        ));
    }
    if !unbanded.is_empty() {
        let names: Vec<&str> = unbanded.iter().map(|d| d.effect).collect();
        t.push_str(&format!("not modelled, no published band: {} (--json says what is assumed instead)\n", names.join(", ")));
    }
    t.push_str(&format!("evidence: {}\n", o.evidence));
    t
}
