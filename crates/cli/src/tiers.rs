//! `fabricscope tiers`: the per-GPU bandwidth/latency hierarchy from HBM to the spine, the fat
//! tree as built, and the bisection bandwidth.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::topology::{FatTree, TierKind};
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
struct FatTreeJson {
    leaves: u32,
    spines: u32,
    radix: u32,
    down_per_leaf: u32,
    up_per_leaf: u32,
    /// down:up at a leaf; 1 is non-blocking.
    oversubscription: f64,
    nodes_per_leaf: u32,
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
    fat_tree: Option<FatTreeJson>,
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

fn fat_tree_json(f: &FatTree) -> FatTreeJson {
    FatTreeJson {
        leaves: f.leaves,
        spines: f.spines,
        radix: f.radix,
        down_per_leaf: f.down_per_leaf,
        up_per_leaf: f.up_per_leaf,
        oversubscription: f.oversubscription,
        nodes_per_leaf: f.nodes_per_leaf,
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
        Ok(text(&topo))
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
        Some(f) => {
            s.push_str(&format!(
                "fat tree: {} leaf and {} spine switches ({}), radix {} ports at the NIC rate\n",
                f.leaves, f.spines, f.switch, f.radix
            ));
            let blocking = if f.oversubscription <= 1.0 {
                "non-blocking"
            } else {
                "oversubscribed"
            };
            s.push_str(&format!(
                "  per leaf: {} ports down to NICs, {} up to spines; oversubscription {:.2}:1 ({blocking}); {} node{} per leaf; {} per hop\n",
                f.down_per_leaf,
                f.up_per_leaf,
                f.oversubscription,
                f.nodes_per_leaf,
                if f.nodes_per_leaf == 1 { "" } else { "s" },
                Micros(f.hop_latency.0)
            ));
        }
        None => s.push_str("fat tree: none (one scale-up domain, no scale-out NICs)\n"),
    }
    s.push_str(&format!(
        "bisection bandwidth: {} ({})\n",
        topo.bisection,
        topo.bisection.bidirectional()
    ));
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
