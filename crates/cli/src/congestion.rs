//! `fabricscope congestion`: the flow-level model (crates/flow) on the cluster's Clos: a
//! traffic pattern routed by policy over seeds, with neighbours and failures; the throughput
//! fraction's distribution, the collision probability and the bottleneck tier.

use crate::cluster_args::{count_parser, ClusterArgs};
use crate::error::CliError;
use crate::flow_args::{traffic_parser, FlowArgs};
use crate::output;
use clap::Args;
use fabricscope_charts::{fabric_loads_chart, LoadsOptions, Theme};
use fabricscope_flow::sim::MAX_QPS;
use fabricscope_flow::{link_loads, ClosSpec, Dist, Fabric, Options, Outcome, Seeds, Traffic};
use fabricscope_model::limits::{Limit, Unit};
use serde::Serialize;

/// Queue pairs per connection (count; as the model's `limits::QPS_PER_CONNECTION`).
const QPS: Limit = Limit { field: "qps_per_connection", what: "queue pairs per connection", min: 1, max: MAX_QPS as u64, unit: Unit::Count };

#[derive(Args, Clone, Debug)]
pub struct CongestionArgs {
    /// Traffic pattern: ring (NCCL ring channels, rail-matched), tree (NCCL's double binary tree
    /// across nodes, both trees' edges both ways on each channel's rail), alltoall (with PXN,
    /// NCCL's default: a cross-node send first crosses NVLink to the local GPU whose NIC is on
    /// the destination's rail, so the flow stays on one rail), alltoall-no-pxn (each GPU's own
    /// NIC to each remote GPU's NIC, across rails: through the spine on a rail-optimized tree),
    /// random-permutation (every NIC to one NIC of another node, drawn per seed)
    #[arg(long, value_name = "PATTERN", value_parser = traffic_parser(), default_value = "ring")]
    pub traffic: Traffic,

    /// Queue pairs per connection, as NCCL_IB_QPS_PER_CONNECTION (each hashed on its own)
    #[arg(long, value_name = "Q", allow_negative_numbers = true, value_parser = count_parser(QPS), default_value = "1")]
    pub qps_per_connection: u32,

    #[command(flatten)]
    pub flow: FlowArgs,

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
    if a.svg {
        let fab = Fabric::build(ClosSpec::from_topology(&topo)?)?;
        return svg(a, &fab, a.flow.options(&topo, a.traffic, a.qps_per_connection));
    }
    let (fab, out) = a.flow.study(&topo, a.traffic, a.qps_per_connection)?;
    if a.json {
        return output::json(&CongestionJson {
            cluster: output::cluster_line(&topo),
            gpus: topo.total_gpus,
            nic: topo.nic.id,
            routing_from_nic: a.flow.routing.is_none(),
            fabric: &fab.spec,
            outcome: &out,
        });
    }
    Ok(text(&topo, &fab, &out, a.flow.routing.is_none()))
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
            "failures: {} NIC(s) down on the job's first node, {} leaf-spine link(s) down, {} spine(s) down{}\n",
            o.failures.nics_down,
            o.failures.links_down,
            o.failures.spines_down,
            if o.failures.degraded() { format!(", {} leaf-spine link(s) at {:.0}% of their rate", o.failures.degraded_links, 100.0 * o.failures.degraded_factor) } else { String::new() }
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
