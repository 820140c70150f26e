//! `fabricscope tiers`: the per-GPU bandwidth/latency hierarchy from HBM to the top switch
//! tier, the fat tree as built (its switch tiers bottom-up), and the bisection bandwidth.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::topology::{FatTree, SwitchTier, TierKind};
use fabricscope_model::units::Micros;
use fabricscope_model::{Tier, Topology};
use serde::Serialize;

#[derive(Args, Clone, Debug)]
pub struct TiersArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// One tier as JSON. HBM has one figure shared by reads and writes, so it has no direction.
#[derive(Serialize)]
struct TierJson<'a> {
    kind: TierKind,
    name: &'a str,
    #[serde(rename = "GBps_per_direction")]
    per_direction: Option<f64>,
    #[serde(rename = "GBps_bidirectional")]
    bidirectional: Option<f64>,
    /// HBM only: reads and writes together.
    #[serde(rename = "GBps_read_write")]
    read_write: Option<f64>,
    latency_us: f64,
    domain: &'static str,
    congestion_control: &'static str,
    best_fit: &'static str,
}

#[derive(Serialize)]
struct FatTreeJson<'a> {
    /// Bottom-up: leaf, spine, core.
    switch_tiers: &'a [SwitchTier],
    /// Separate trees (rail groups); 1 = every NIC in one tree.
    planes: u32,
    rails_per_plane: u32,
    leaves: u32,
    spines: u32,
    cores: u32,
    radix: u32,
    down_per_leaf: u32,
    up_per_leaf: u32,
    /// down:up at a leaf; 1 is non-blocking.
    oversubscription: f64,
    nodes_per_leaf: u32,
    /// Nodes whose traffic on their rail stays below the core.
    nodes_per_pod: u32,
    switch: &'static str,
    hop_latency_us: f64,
}

#[derive(Serialize)]
struct TiersJson<'a> {
    gpus: u32,
    nodes: u32,
    gpus_per_node: u32,
    domain_gpus: u32,
    domains: u32,
    gpu: &'static str,
    scale_up: &'static str,
    nic: &'static str,
    nics_per_node: u32,
    nccl: &'static str,
    tiers: Vec<TierJson<'a>>,
    fat_tree: Option<FatTreeJson<'a>>,
    #[serde(rename = "bisection_GBps_per_direction")]
    bisection: f64,
    #[serde(rename = "bisection_GBps_bidirectional")]
    bisection_bidir: f64,
}

fn tier_json(t: &Tier) -> TierJson<'_> {
    let hbm = t.kind == TierKind::Hbm;
    TierJson {
        kind: t.kind,
        name: &t.name,
        per_direction: (!hbm).then_some(t.bw_per_gpu.0),
        bidirectional: (!hbm).then_some(t.bw_per_gpu.bidirectional().0),
        read_write: hbm.then_some(t.bw_per_gpu.0),
        latency_us: t.latency.0,
        domain: t.facts.domain,
        congestion_control: t.facts.congestion_control,
        best_fit: t.facts.best_fit,
    }
}

fn fat_tree_json(f: &FatTree) -> FatTreeJson<'_> {
    FatTreeJson {
        switch_tiers: &f.switch_tiers,
        planes: f.planes,
        rails_per_plane: f.rails_per_plane,
        leaves: f.leaves,
        spines: f.spines,
        cores: f.cores,
        radix: f.radix,
        down_per_leaf: f.down_per_leaf,
        up_per_leaf: f.up_per_leaf,
        oversubscription: f.oversubscription,
        nodes_per_leaf: f.nodes_per_leaf,
        nodes_per_pod: f.nodes_per_pod,
        switch: f.switch,
        hop_latency_us: f.hop_latency.0,
    }
}

pub fn run(a: &TiersArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    if a.json {
        let c = &topo.cluster;
        output::json(&TiersJson {
            gpus: topo.total_gpus,
            nodes: c.nodes,
            gpus_per_node: c.gpus_per_node,
            domain_gpus: topo.domain_gpus,
            domains: topo.domains,
            gpu: topo.gpu.id,
            scale_up: c.scale_up.id(),
            nic: topo.nic.id,
            nics_per_node: c.nics_per_node,
            nccl: c.nccl.id(),
            tiers: topo.tiers.iter().map(tier_json).collect(),
            fat_tree: topo.fabric.as_ref().map(fat_tree_json),
            bisection: topo.bisection.0,
            bisection_bidir: topo.bisection.bidirectional().0,
        })
    } else {
        let mut s = text(&topo);
        if let Some(p) = a.cluster.preset.and_then(fabricscope_model::cluster_preset) {
            s.push_str(&format!("\npreset {}: {}\n", p.id, p.describe()));
        }
        Ok(s)
    }
}

fn text(topo: &Topology) -> String {
    let mut s = format!("cluster: {}\n\n", output::cluster_line(topo));
    s.push_str(
        "Per-GPU bandwidth and latency by tier (what one GPU can drive through each tier):\n",
    );
    let rows: Vec<[String; 4]> = topo
        .tiers
        .iter()
        .map(|t| {
            let (one, both) = if t.kind == TierKind::Hbm {
                (
                    format!("{} reads+writes", trim_unit(t.bw_per_gpu.0)),
                    "-".to_string(),
                )
            } else {
                (
                    t.bw_per_gpu.to_string(),
                    t.bw_per_gpu.bidirectional().to_string(),
                )
            };
            [t.name.clone(), one, both, t.latency.to_string()]
        })
        .collect();
    let head = ["tier", "bandwidth", "bidirectional", "latency"].map(String::from);
    let mut w = [0usize; 4];
    for r in std::iter::once(&head).chain(&rows) {
        for (i, cell) in r.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count());
        }
    }
    for r in std::iter::once(&head).chain(&rows) {
        s.push_str(&format!(
            "  {:<w0$}  {:<w1$}  {:<w2$}  {}\n",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2]
        ));
    }
    if let (Some(su), Some(nic)) = (
        topo.tiers.iter().find(|t| t.kind == TierKind::ScaleUp),
        topo.tiers.iter().find(|t| t.kind == TierKind::Nic),
    ) {
        if nic.bw_per_gpu.0 > 0.0 {
            s.push_str(&format!(
                "  scale-up / network per GPU, per direction: {:.1}x\n",
                su.bw_per_gpu.0 / nic.bw_per_gpu.0
            ));
        }
    }
    s.push('\n');
    match &topo.fabric {
        Some(f) => s.push_str(&fat_tree_text(f, topo.cluster.rail_optimized)),
        None => s.push_str("fat tree: none (one scale-up domain, no scale-out NICs)\n"),
    }
    s.push_str(&format!(
        "bisection bandwidth: {} ({})\n",
        topo.bisection,
        topo.bisection.bidirectional()
    ));
    s
}

/// The fat tree: its switch tiers bottom-up, how the rails are joined, where traffic stays.
fn fat_tree_text(f: &FatTree, rail_optimized: bool) -> String {
    let levels = ["one switch", "two tiers", "three tiers"][f.switch_tiers.len().clamp(1, 3) - 1];
    let mut s = format!(
        "fat tree: {levels} of {} ({} ports at the NIC rate, {} per hop)\n",
        f.switch,
        f.radix,
        Micros(f.hop_latency.0)
    );
    for t in &f.switch_tiers {
        let name = serde_json::to_value(t.tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let up = if t.ports_up > 0 {
            format!(", {} up ({:.2}:1{})", t.ports_up, t.oversubscription, if t.oversubscription <= 1.0 { ", non-blocking" } else { ", oversubscribed" })
        } else {
            String::new()
        };
        s.push_str(&format!(
            "  {name:<5}  {:>6} switch{}  {} ports down{up}\n",
            t.switches,
            if t.switches == 1 { "" } else { "es" },
            t.ports_down
        ));
    }
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    if f.planes > 1 {
        s.push_str(&format!(
            "  {} rail planes of {} rails, each its own tree; traffic changes rail over NVLink inside the node (PXN)\n",
            f.planes, f.rails_per_plane
        ));
    }
    s.push_str(&format!(
        "  traffic of {} node{}{} stays under one leaf",
        f.nodes_per_leaf,
        plural(f.nodes_per_leaf),
        if rail_optimized { " on a rail" } else { "" }
    ));
    if f.cores > 0 {
        s.push_str(&format!(
            ", of {} node{} under one pod's spines; across pods it crosses the core at {:.2}:1",
            f.nodes_per_pod,
            plural(f.nodes_per_pod),
            f.core_path_oversubscription()
        ));
    }
    s.push('\n');
    s
}

/// `3350 GB/s` without a direction (for HBM, whose figure is reads and writes together).
fn trim_unit(v: f64) -> String {
    let s = fabricscope_model::units::GBps(v).to_string();
    match s.strip_suffix(" per direction") {
        Some(x) => x.to_string(),
        None => s,
    }
}
