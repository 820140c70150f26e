//! RCCL's collective model for AMD Instinct GPUs, as data: ROCm's fork of NCCL keeps NCCL's
//! cost formulas but reads its own tables (base and hardware latencies, bandwidth ratios,
//! protocol size ranges). They fill the same [`Tuning`] table NCCL's model fills, so choosing
//! and timing read one table whichever library the platform runs.
//!
//! Sources (no code copied; facts and constants with their commits, validation/README-hardware.md
//! "RCCL's collective model"): ROCm/rccl @0cbce2a7 (2024-10-24) and the RCCL inside
//! ROCm/rocm-systems `projects/rccl` @03a89144 (2026): `src/graph/tuning.cc`
//! (`rcclGetTuningIndexForArch`, `rcclApplyTuningOverrides`, `rcclUpdateCollectiveProtocol`),
//! `src/graph/topo.h` (48 GB/s per xGMI link), `connect.cc`/`init.cc` (channels).
//!
//! Not modelled: RCCL's 27-entry per-size bandwidth correction table (applied to Tree, and to
//! Ring across nodes), MSCCL/MSCCL++ small-message kernels (removed from RCCL in ROCm 7.13),
//! reduce-copy pipelining, and the per-size channel overrides of model 6.

pub mod timing;

use crate::catalog::Arch;
use crate::nccl::search::{Graph, Graphs};
use crate::nccl::tuning::{Algorithm, Func, FuncTable, Protocol, Tuning};

/// One of RCCL's tuning models (the tables it copies over NCCL's tuner constants).
#[derive(Debug)]
pub struct RcclModel {
    /// RCCL's name for it and the GPUs it serves.
    pub name: &'static str,
    /// `baseLat[Tree, Ring][LL, LL128, Simple]`, us: 12 / 12 / 17 for both (all models).
    pub base_lat: [[f64; 3]; 2],
    /// `hwLat[xGMI, PCI, NET][Tree, Ring][LL, LL128, Simple]`, us. Models 5, 6 and 8: xGMI Tree
    /// 0.9/0.9/2.3, Ring 0.8/0.8/2.1; PCI 2.2/2.2/5.7; network Tree 10.5/10.5/25.0, Ring
    /// 9.5/9.5/320.0 ("NVLINK" in RCCL's tables is the xGMI link class).
    pub hw_lat: [[[f64; 3]; 2]; 3],
    /// `bwRatio[up to 2 nodes, more][Tree, Ring][LL, LL128, Simple]`: the fraction of
    /// channels x per-channel bandwidth each entry reaches (no NCCL caps applied after it).
    pub bw_ratio: [[[f64; 3]; 2]; 2],
    /// Multi-node protocol choice (`rcclUpdateCollectiveProtocol`), per-rank bytes, in
    /// [`Func`] order (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce): LL up to
    /// `ll_max`, LL128 within `ll128_range` when LL128 runs, else Simple.
    pub ll_max: [u64; 5],
    pub ll128_range: [(u64, u64); 5],
    /// LL128 runs by default. RCCL allows it on gfx942/gfx950 only when built with
    /// ENABLE_LL128 and the topology sets `ll128Enabled`; the 2024 snapshot had it off on
    /// gfx942 and whether 2026 RCCL sets it by default was not verified: off here.
    pub ll128: bool,
}

const BASE_LAT: [[f64; 3]; 2] = [[12.0, 12.0, 17.0], [12.0, 12.0, 17.0]];
const HW_LAT: [[[f64; 3]; 2]; 3] = [
    [[0.9, 0.9, 2.3], [0.8, 0.8, 2.1]],
    [[2.2, 2.2, 5.7], [2.2, 2.2, 5.7]],
    [[10.5, 10.5, 25.0], [9.5, 9.5, 320.0]],
];
const BW_RATIO: [[[f64; 3]; 2]; 2] = [
    [[0.06, 0.06, 0.11], [0.08, 0.08, 1.00]],
    [[0.06, 0.06, 0.59], [0.08, 0.08, 1.00]],
];
const MIB: u64 = 1 << 20;

/// `tuning_model_5`: gfx942 (MI300X, MI325X).
pub const MODEL_5_GFX942: RcclModel = RcclModel {
    name: "RCCL tuning model 5 (gfx942)",
    base_lat: BASE_LAT,
    hw_lat: HW_LAT,
    bw_ratio: BW_RATIO,
    ll_max: [8192, 4096, 98304, 655360, 524288],
    ll128_range: [(8192, 32 * MIB), (4096, 16 * MIB), (98304, 5046272), (131072, 3211264), (524288, 4415057)],
    ll128: false,
};

/// `tuning_model_6`: gfx950 (MI350X, MI355X).
pub const MODEL_6_GFX950: RcclModel = RcclModel {
    name: "RCCL tuning model 6 (gfx950)",
    base_lat: BASE_LAT,
    hw_lat: HW_LAT,
    bw_ratio: BW_RATIO,
    ll_max: [2048, 16383, 65536, 65536, 262144],
    ll128_range: [(2048, 16 * MIB), (16383, 16 * MIB), (65536, 8 * MIB), (65536, 8 * MIB), (262144, 70640910)],
    ll128: false,
};

/// The tuning model RCCL picks for a GPU architecture; `None` for NVIDIA GPUs.
pub fn model_for(arch: Arch) -> Option<&'static RcclModel> {
    match arch {
        Arch::Cdna3 => Some(&MODEL_5_GFX942),
        Arch::Cdna4 => Some(&MODEL_6_GFX950),
        _ => None,
    }
}

/// What RCCL's tables need to know about a communicator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcclFacts {
    pub n_ranks: u32,
    pub n_nodes: u32,
    /// Ranks per node.
    pub per_node: u32,
    /// Intra-node links are xGMI (else PCIe).
    pub intra_xgmi: bool,
    /// AMD host CPUs: 2 us network post overhead per step, else 1 (`getNetOverhead`).
    pub amd_cpu: bool,
    /// Channels x per-channel bandwidth RCCL plans with, GB/s per direction: inside one node
    /// the GPU's links to its peers; across nodes also the NICs.
    pub bus_bw: f64,
    /// Channels (rings) behind `bus_bw`: one per xGMI peer link inside a node, one per NIC
    /// across nodes. RCCL splits them further (e.g. 32 channels for 2 ranks on MI300X); it
    /// applies no per-channel caps, so only the product enters its model.
    pub channels: u32,
}

fn log2i(n: u32) -> f64 {
    if n == 0 { 0.0 } else { (31 - n.leading_zeros()) as f64 }
}

/// The entries a model fills: Ring for every collective, Tree for AllReduce; LL128 only when
/// it runs; Tree with Simple removed inside one node (gfx942, gfx950); no NVLS, NVLSTree or
/// CollNet (zero bandwidth ratio in every RCCL model: no in-network reduction), no PAT (off
/// by default, `NCCL_PAT_ENABLE=0`).
pub fn enabled(m: &RcclModel, f: &RcclFacts, func: Func, a: Algorithm, p: Protocol) -> bool {
    let algo_ok = match a {
        Algorithm::Ring => true,
        Algorithm::Tree => func == Func::AllReduce && !(f.n_nodes == 1 && p == Protocol::Simple),
        _ => false,
    };
    algo_ok && (p != Protocol::Ll128 || m.ll128) && f.n_ranks > 1
}

/// Latency (us) of one entry by RCCL's formula (NCCL's structure with RCCL's tables and
/// step counts, ROCm/rccl src/graph/tuning.cc `ncclTopoTuneModel` @0cbce2a7). For timing,
/// `phys` scales the base and intra-node terms by `intra_scale` and replaces the network
/// hardware latency of Ring/Simple by `ring_simple_net` (RCCL's 320 us steers its own choice
/// away from it; it is not a time).
fn latency(m: &RcclModel, f: &RcclFacts, func: Func, a: Algorithm, p: Protocol, phys: Option<Physical>) -> f64 {
    let ai = if a == Algorithm::Tree { 0 } else { 1 };
    let pi = p as usize;
    let intra_hw = if f.intra_xgmi { 0 } else { 1 };
    let multi = f.n_nodes > 1;
    // Network hardware latency per step (the plugin reports none for RCCL's IB transport).
    let net = |ai: usize| match (ai, p, phys) {
        (1, Protocol::Simple, Some(ph)) => ph.ring_simple_net,
        _ => m.hw_lat[2][ai][pi],
    };
    let scale = phys.map_or(1.0, |ph| ph.intra_scale);
    let (n, nodes) = (f.n_ranks as f64, f.n_nodes as f64);
    let base = m.base_lat[ai][pi];
    let nsteps = match func {
        Func::AllReduce => 2.0 * (n - 1.0),
        Func::AllGather | Func::ReduceScatter => n - 1.0,
        Func::Broadcast | Func::Reduce => n,
    };
    match (a, func) {
        (Algorithm::Tree, _) => {
            scale * (base + 2.0 * (f.per_node as f64 - 1.0) * m.hw_lat[intra_hw][0][pi]) + 2.0 * log2i(f.n_nodes) * net(0)
        }
        // Broadcast and Reduce rings: every step at the link class of the whole ring (the
        // network's once the ring leaves the node), Simple at Tree's chunk latency.
        (_, Func::Broadcast | Func::Reduce) => {
            let hw_ai = if p == Protocol::Simple { 0 } else { 1 };
            if multi {
                scale * base + nsteps * net(hw_ai)
            } else {
                scale * (base + nsteps * m.hw_lat[intra_hw][hw_ai][pi])
            }
        }
        _ => {
            // Steps that cross the network: 2 x nodes for AllReduce, nodes - 1 for the rest.
            let inter_steps = match func {
                Func::AllReduce if multi => 2.0 * nodes,
                Func::AllReduce => 0.0,
                _ => nodes - 1.0,
            };
            // Inter-node rings still launch every step through the network proxy: its post
            // overhead (1 us on Intel hosts, 2 on AMD; x3 for Simple) bounds each intra step.
            let per_post = if f.amd_cpu { 2.0 } else { 1.0 };
            let simple = if p == Protocol::Simple { 3.0 } else { 1.0 };
            let overhead = if multi { per_post * simple } else { 0.0 };
            let intra = m.hw_lat[intra_hw][ai][pi].max(overhead);
            scale * (base + (nsteps - inter_steps) * intra) + inter_steps * net(1)
        }
    }
}

/// Algorithm bandwidth (GB/s) of one entry: channels x per-channel bandwidth x `bwRatio`, as
/// algorithm bandwidth (Ring: nRanks / nsteps; Tree: 1/2).
fn bandwidth(m: &RcclModel, f: &RcclFacts, func: Func, a: Algorithm, p: Protocol) -> f64 {
    let class = if f.n_nodes <= 2 { 0 } else { 1 };
    let ai = if a == Algorithm::Tree { 0 } else { 1 };
    let mut bus = f.bus_bw * m.bw_ratio[class][ai][p as usize];
    // Ring LL for Broadcast/Reduce inside one gfx942/gfx950 node: x1.65.
    if a == Algorithm::Ring && p == Protocol::Ll && f.n_nodes == 1 && matches!(func, Func::Broadcast | Func::Reduce) {
        bus *= 1.65;
    }
    let n = f.n_ranks as f64;
    let ratio = match (a, func) {
        (Algorithm::Tree, _) => 0.5,
        (_, Func::AllReduce) => n / (2.0 * (n - 1.0)),
        (_, Func::AllGather | Func::ReduceScatter) => n / (n - 1.0),
        (_, Func::Broadcast | Func::Reduce) => 1.0,
    };
    bus * ratio
}

/// RCCL's filled-in tables for one communicator: what it chooses with.
pub fn tuning(m: &RcclModel, f: &RcclFacts) -> Tuning {
    let (bw, lat) = tables(m, f, None);
    Tuning::from_tables(bw, lat, f.n_ranks, f.n_nodes, f.channels)
}

/// Physical corrections the timing applies to RCCL's latency formula ([`timing`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Physical {
    /// Factor on the base and intra-node terms.
    pub intra_scale: f64,
    /// Network hardware latency of one Ring/Simple step, us.
    pub ring_simple_net: f64,
}

/// The same latency table with the timing's physical corrections.
pub fn timing_latency(m: &RcclModel, f: &RcclFacts, phys: Physical) -> FuncTable {
    tables(m, f, Some(phys)).1
}

fn tables(m: &RcclModel, f: &RcclFacts, phys: Option<Physical>) -> (FuncTable, FuncTable) {
    let mut bw = [[[0.0; 3]; 7]; 5];
    let mut lat = [[[0.0; 3]; 7]; 5];
    for func in [Func::Broadcast, Func::Reduce, Func::AllGather, Func::ReduceScatter, Func::AllReduce] {
        for a in [Algorithm::Tree, Algorithm::Ring] {
            for p in Protocol::ALL {
                if enabled(m, f, func, a, p) {
                    bw[func as usize][a as usize][p as usize] = bandwidth(m, f, func, a, p);
                    lat[func as usize][a as usize][p as usize] = latency(m, f, func, a, p, phys);
                }
            }
        }
    }
    (bw, lat)
}

/// The protocol RCCL runs across nodes (`rcclUpdateCollectiveProtocol`), by per-rank bytes:
/// `None` inside one node, where its cost model chooses.
pub fn multi_node_protocol(m: &RcclModel, f: &RcclFacts, func: Func, bytes: u64) -> Option<Protocol> {
    if f.n_nodes < 2 {
        return None;
    }
    let per_rank = match func {
        Func::AllGather | Func::ReduceScatter => bytes / f.n_ranks.max(1) as u64,
        _ => bytes,
    };
    let i = func as usize;
    let (lo, mut hi) = m.ll128_range[i];
    // The AllReduce LL128 upper bound is x3.8 above 2 nodes.
    if func == Func::AllReduce && f.n_nodes > 2 {
        hi = (hi as f64 * 3.8) as u64;
    }
    Some(if per_rank <= m.ll_max[i] {
        Protocol::Ll
    } else if m.ll128 && per_rank >= lo && per_rank <= hi {
        Protocol::Ll128
    } else {
        Protocol::Simple
    })
}

/// The graphs a report shows for an RCCL communicator: `channels` rings (and trees) sharing
/// `bus_bw`; no NVLS.
pub fn graphs(f: &RcclFacts) -> Graphs {
    let c = f.channels.max(1);
    let g = Graph { n_channels: c, bw_intra: f.bus_bw / c as f64, bw_inter: f.bus_bw / c as f64 };
    Graphs { ring: g, tree: g, collnet_direct: g, collnet_chain: g, nvls: None, simple_tree: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mi300x_node() -> RcclFacts {
        RcclFacts { n_ranks: 8, n_nodes: 1, per_node: 8, intra_xgmi: true, amd_cpu: false, bus_bw: 336.0, channels: 7 }
    }

    #[test]
    fn single_node_tables_follow_rccl_formulas() {
        let t = tuning(&MODEL_5_GFX942, &mi300x_node());
        // Ring LL AllReduce: 12 + 14 x 0.8 us; bus 336 x 0.08, algbw x 8/14.
        let (lat, bw) = t.entry(Func::AllReduce, Algorithm::Ring, Protocol::Ll).unwrap();
        assert!((lat - 23.2).abs() < 1e-9 && (bw - 336.0 * 0.08 * 8.0 / 14.0).abs() < 1e-9);
        // Tree Simple is removed inside one node; no NVLS, no CollNet, no LL128.
        assert!(t.entry(Func::AllReduce, Algorithm::Tree, Protocol::Simple).is_none());
        assert!(t.entry(Func::AllReduce, Algorithm::Tree, Protocol::Ll).is_some());
        for a in [Algorithm::Nvls, Algorithm::NvlsTree, Algorithm::CollNetDirect, Algorithm::Pat] {
            for p in Protocol::ALL {
                assert!(t.entry(Func::AllReduce, a, p).is_none());
            }
        }
        assert!(t.entry(Func::AllReduce, Algorithm::Ring, Protocol::Ll128).is_none());
        // Small messages LL, large Simple, by RCCL's own cost.
        assert_eq!(t.best(Func::AllReduce, 1024, |_, _| true).map(|b| b.1), Some(Protocol::Ll));
        assert_eq!(t.best(Func::AllReduce, 1 << 30, |_, _| true).map(|b| (b.0, b.1)), Some((Algorithm::Ring, Protocol::Simple)));
    }

    #[test]
    fn multi_node_protocol_is_a_size_table() {
        let f = RcclFacts { n_ranks: 16, n_nodes: 2, ..mi300x_node() };
        let m = &MODEL_5_GFX942;
        assert_eq!(multi_node_protocol(m, &f, Func::AllReduce, 524288), Some(Protocol::Ll));
        assert_eq!(multi_node_protocol(m, &f, Func::AllReduce, 524289), Some(Protocol::Simple));
        assert_eq!(multi_node_protocol(m, &mi300x_node(), Func::AllReduce, 8), None);
        // gfx950's AllReduce LL range ends lower.
        assert_eq!(multi_node_protocol(&MODEL_6_GFX950, &f, Func::AllReduce, 300_000), Some(Protocol::Simple));
    }
}
