//! How to read a headline busbw: what bounds it, what nccl-tests' busbw means for the
//! algorithm NCCL chose, and why busbw can rise from one domain to two. Words computed from
//! the Report and the Formula, as data: the page renders it, the CLI prints the same.

use crate::collective::{Bottleneck, Collective, Prediction};
use crate::report::{Formula, Report, Scope};
use crate::topology::TierKind;
use serde::Serialize;

/// One headline result, read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reading {
    /// What sets the bandwidth, as it completes "limited by …" (e.g. "the NICs", "the
    /// NVSwitches (NVLS)", "latency").
    pub limited_by: String,
    /// What busbw is for this collective and algorithm, and why the number is what it is.
    pub busbw: String,
    /// How the chosen algorithm moves data (NVLS, NVLSTree, SHARP, Tree, Ring), when it
    /// changes what busbw means.
    pub algorithm: Option<String>,
    /// Why busbw inside one domain and across the cluster differ the way they do (when the
    /// cluster spans domains).
    pub scaling: Option<String>,
}

/// What binds where ECMP, the NIC's default routing, hashes rings' flows onto one leaf uplink
/// (`Bottleneck::Tier(Leaf)`, `network::NetPath::ring_routing_fraction`).
pub const ECMP_LEAF: &str = "ECMP collisions on leaf uplinks (the NIC's default routing)";

/// Words for what limits a prediction, given the algorithm that ran.
pub fn limited_by(b: Bottleneck, algorithm: &str) -> String {
    let nvls = matches!(algorithm, "NVLS" | "NVLSTree");
    match b {
        Bottleneck::Latency => "latency (the fixed cost per operation)".into(),
        Bottleneck::Tier(TierKind::ScaleUp) if nvls => "the NVSwitch reduction (NVLS), not the NICs".into(),
        Bottleneck::Tier(TierKind::ScaleUp) => "the scale-up fabric (NVLink or xGMI links)".into(),
        Bottleneck::Tier(TierKind::Hbm) => "HBM".into(),
        Bottleneck::Tier(TierKind::Pcie) => "PCIe between GPU and NIC".into(),
        Bottleneck::Tier(TierKind::Nic) => "the NICs".into(),
        Bottleneck::Tier(TierKind::Leaf) => ECMP_LEAF.into(),
        Bottleneck::Tier(TierKind::Spine) => "the spine switches (oversubscribed)".into(),
        Bottleneck::Tier(TierKind::Core) => "the core switches (oversubscribed)".into(),
    }
}

/// A GB/s figure: whole numbers from 100, else one decimal, no trailing ".0".
fn gb(v: f64) -> String {
    let s = if v >= 100.0 { format!("{v:.0}") } else { format!("{v:.1}") };
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Reads the headline `key` (a prediction of `f.op` at `f.bytes` on the whole cluster, as in
/// `f`) against the report's curves and tiers.
pub fn read(r: &Report, f: &Formula, key: &Prediction) -> Reading {
    let algo = key.algorithm;
    let n = f.ranks;
    let factor = format!("{:.4}", f.busbw_factor).trim_end_matches('0').trim_end_matches('.').to_string();
    let link = r.tiers.iter().find(|t| t.kind == TierKind::ScaleUp).map(|t| t.bw_per_gpu.0);
    let node_nics = f.nic_line.0 * f.nics_per_node as f64;
    let ring_like = matches!(algo, "Ring" | "PAT");
    let lib = r.summary.library;
    let what = match f.op {
        Collective::AllReduce => format!("algbw × 2(n−1)/n = algbw × {factor} for n = {n}"),
        Collective::AllGather | Collective::ReduceScatter => format!("algbw × (n−1)/n = algbw × {factor} for n = {n}"),
        _ => format!("algbw × {factor}"),
    };
    let mut busbw = format!(
        "busbw is nccl-tests' normalisation, {what}: the rate at which each GPU's link would have to run if the data went round a ring. It equals the bandwidth a link carries only for ring-like algorithms{}.",
        if ring_like { " (as here)".to_string() } else { format!("; {lib} chose ") } + if ring_like { "" } else { algo }
    );
    if ring_like && f.domains > 1 && key.bottleneck == Bottleneck::Tier(TierKind::Nic) && f.nics_per_node > 0 {
        busbw.push_str(&format!(
            " A ring crosses the network once per node boundary, through one NIC per ring, and {lib} spreads its {} rings over the node's {} NICs: so busbw is bounded by a node's NICs together ({} × {} = {} GB/s), not by one GPU's share of them ({} GB/s).",
            f.channels,
            f.nics_per_node,
            f.nics_per_node,
            gb(f.nic_line.0),
            gb(node_nics),
            gb(f.nic_per_gpu.0)
        ));
    }
    let above_link = link.is_some_and(|l| key.busbw.0 > l);
    let link_txt = link.map(gb).unwrap_or_default();
    let algorithm = match algo {
        "NVLS" => Some(format!(
            "NVLS (NVLink SHARP): the NVSwitch itself adds the GPUs' buffers (multimem loads and stores), so each GPU sends its data into the switch once and reads the sum once, instead of passing 2(n−1)/n of it from GPU to GPU. Less data crosses each GPU's link than busbw assumes, so busbw{} exceed the link rate ({link_txt} GB/s per direction).",
            if above_link { format!(" ({} GB/s) can", gb(key.busbw.0)) } else { " can".into() }
        )),
        "NVLSTree" => Some(format!(
            "NVLSTree: inside each NVLink domain the NVSwitch reduces (NVLS), and a tree between domains sends one reduced copy per domain over the network, so neither the NVLink links nor the NICs carry what busbw assumes; busbw{} exceed the NVLink rate ({link_txt} GB/s per direction).",
            if above_link { format!(" ({} GB/s) can", gb(key.busbw.0)) } else { " can".into() }
        )),
        "CollNetDirect" | "CollNetChain" => Some(
            "CollNet (InfiniBand SHARP): the network switches reduce, so each node sends its data up once and receives the result once; less data crosses each NIC than busbw assumes, so busbw can exceed the NICs' rate.".into(),
        ),
        "Tree" => Some(
            "Tree: data goes up a tree and comes back down (a reduce then a broadcast); each GPU sends and receives about the buffer once each way, so busbw, which assumes a ring's 2(n−1)/n, is not what a link carries.".into(),
        ),
        _ => None,
    };
    let scaling = scaling(r, f, key);
    Reading { limited_by: limited_by(key.bottleneck, algo), busbw, algorithm, scaling }
}

/// Why the whole cluster's busbw at this size is above (or below) one domain's.
fn scaling(r: &Report, f: &Formula, key: &Prediction) -> Option<String> {
    if f.domains < 2 {
        return None;
    }
    let one = r
        .curves
        .iter()
        .find(|c| c.op == f.op && c.scope == Scope::Domain)?
        .points
        .iter()
        .find(|p| p.bytes == f.bytes)?;
    let (a, b) = (one.busbw.0, key.busbw.0);
    let same_algo = one.algorithm == key.algorithm;
    let n1 = one.ranks;
    let rel = if b > a * 1.005 { "higher than" } else if b < a * 0.995 { "lower than" } else { "the same as" };
    let mut t = format!(
        "Across the cluster busbw is {rel} inside one domain ({} vs {} GB/s at this size).",
        gb(b),
        gb(a)
    );
    if !same_algo {
        t.push_str(&format!(
            " {} switches algorithm: {} inside one domain of {n1} GPUs, {} across {} domains{}.",
            r.summary.library,
            one.algorithm,
            key.algorithm,
            f.domains,
            if b > a * 1.005 { ", whose bus bandwidth is higher" } else { "" }
        ));
    } else if b > a * 1.005 {
        let f1 = f.op.busbw_factor(n1);
        t.push_str(&format!(
            " The same algorithm ({}) runs, and busbw's factor grows with the GPU count ({:.3} for {n1} GPUs, {:.3} for {}): the same time per byte reads as more busbw.",
            key.algorithm, f1, f.busbw_factor, f.ranks
        ));
    }
    if b < a * 0.995 {
        t.push_str(&format!(" Across domains it is limited by {}.", limited_by(key.bottleneck, key.algorithm)));
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{evaluate, explain};
    use crate::scenario::Scenario;
    use crate::topology::Cluster;
    use crate::units::Bytes;

    fn reading(c: Cluster) -> (Reading, Prediction) {
        let s = Scenario::new(c);
        let r = evaluate(&s).unwrap();
        let t = s.cluster.topology().unwrap();
        let f = explain(&t, t.whole(), Collective::AllReduce, Bytes(1 << 30)).unwrap();
        let key = r
            .curves
            .iter()
            .find(|c| c.op == Collective::AllReduce && c.scope == if t.domains > 1 { Scope::Cluster } else { Scope::Domain })
            .and_then(|c| c.points.iter().find(|p| p.bytes == f.bytes))
            .copied()
            .unwrap();
        (read(&r, &f, &key), key)
    }

    #[test]
    fn a_ring_over_nics_is_bounded_by_the_node_total_not_the_gpu_share() {
        // 4 x 8 H100, 8 x NDR (50 GB/s each): busbw above one GPU's 50 GB/s share, below the
        // node's 400 GB/s.
        let (rd, key) = reading(Cluster::default());
        assert_eq!(key.algorithm, "Ring");
        assert!(key.busbw.0 > 50.0 && key.busbw.0 < 400.0, "{}", key.busbw.0);
        assert_eq!(rd.limited_by, "the NICs");
        assert!(rd.busbw.contains("8 × 50 = 400 GB/s") && rd.busbw.contains("(50 GB/s)"), "{}", rd.busbw);
        assert!(rd.busbw.contains("ring-like algorithms (as here)"), "{}", rd.busbw);
    }

    #[test]
    fn nvls_is_never_called_nic_limited_when_the_switch_bounds_it() {
        // One DGX H100: NVLS, above NVLink4's 450 GB/s per direction.
        let (rd, key) = reading(Cluster { nodes: 1, ..Cluster::default() });
        assert_eq!(key.algorithm, "NVLS");
        assert!(key.busbw.0 > 450.0, "{}", key.busbw.0);
        assert!(rd.limited_by.contains("NVLS") && !rd.limited_by.contains("the NICs") || rd.limited_by.contains("not the NICs"), "{}", rd.limited_by);
        assert!(rd.algorithm.as_deref().is_some_and(|a| a.contains("can exceed the link rate (450 GB/s")), "{:?}", rd.algorithm);
        assert!(rd.scaling.is_none());
        // GB200 NVL72 racks: NVLSTree across racks; what it is called limited by is what the
        // model says binds, and the words about exceeding NVLink follow the number.
        let rack = crate::presets::cluster_preset("gb200-nvl72").unwrap().cluster();
        let (rd, key) = reading(Cluster { nodes: rack.nodes * 4, ..rack });
        assert_eq!(key.algorithm, "NVLSTree");
        let a = rd.algorithm.expect("NVLSTree is explained");
        assert!(a.starts_with("NVLSTree") && a.contains("NVLink rate (900"), "{a}");
        assert_eq!(a.contains(&format!("({} GB/s) can", gb(key.busbw.0))), key.busbw.0 > 900.0, "{a}");
        match key.bottleneck {
            Bottleneck::Tier(TierKind::ScaleUp) => assert!(rd.limited_by.contains("(NVLS), not the NICs"), "{}", rd.limited_by),
            Bottleneck::Tier(TierKind::Nic) => assert_eq!(rd.limited_by, "the NICs"),
            b => assert_eq!(rd.limited_by, limited_by(b, "NVLSTree")),
        }
    }

    #[test]
    fn busbw_rising_from_one_node_to_two_is_explained() {
        // 2 x 8 H100: NVLSTree across the two nodes has a higher busbw than NVLS in one.
        let (rd, key) = reading(Cluster { nodes: 2, ..Cluster::default() });
        let s = rd.scaling.expect("two domains");
        assert!(s.contains("higher"), "{s}");
        assert!(s.contains("NCCL switches algorithm: NVLS inside one domain of 8 GPUs, NVLSTree across 2 domains, whose bus bandwidth is higher"), "{s}");
        assert_eq!(key.algorithm, "NVLSTree");
    }
}
