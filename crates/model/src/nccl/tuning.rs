//! NCCL's cost model: `ncclTopoTuneModel` fills a latency and a bandwidth per (collective,
//! algorithm, protocol); `ncclTopoGetAlgoTime` turns them into a time for a message size; the
//! enqueue code runs the cheapest. Source: NVIDIA/nccl v2.27.5-1 src/graph/tuning.cc and
//! src/enqueue.cc (`updateCollCostTable`, `topoGetAlgoInfo`); formula variants of later
//! releases are selected by [`NvlsFormula`].

use super::constants::{NcclConstants, NvlsFormula};
use super::search::{Graph, Graphs};
use crate::catalog::Arch;
use serde::{Deserialize, Serialize};

/// NCCL's collective functions (`ncclFunc_t` order) that its tuning model covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Func {
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllReduce,
}

/// NCCL's algorithms, in NCCL's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Tree,
    Ring,
    CollNetDirect,
    CollNetChain,
    Nvls,
    NvlsTree,
    Pat,
}

/// NCCL's protocols, in NCCL's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    #[serde(rename = "LL")]
    Ll,
    #[serde(rename = "LL128")]
    Ll128,
    #[serde(rename = "Simple")]
    Simple,
}

impl Algorithm {
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Tree,
        Algorithm::Ring,
        Algorithm::CollNetDirect,
        Algorithm::CollNetChain,
        Algorithm::Nvls,
        Algorithm::NvlsTree,
        Algorithm::Pat,
    ];
    /// NCCL's own spelling (NCCL_ALGO).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Tree => "Tree",
            Algorithm::Ring => "Ring",
            Algorithm::CollNetDirect => "CollNetDirect",
            Algorithm::CollNetChain => "CollNetChain",
            Algorithm::Nvls => "NVLS",
            Algorithm::NvlsTree => "NVLSTree",
            Algorithm::Pat => "PAT",
        }
    }
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Ll => "LL",
            Protocol::Ll128 => "LL128",
            Protocol::Simple => "Simple",
        }
    }
}

/// Facts about a communicator that the tuning model reads besides its graphs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CommFacts {
    pub arch: Arch,
    pub n_ranks: u32,
    /// NCCL nodes: NVLink domains.
    pub n_nodes: u32,
    /// AMD host CPUs (selects llMaxBws row and the 2 us network overhead).
    pub amd_cpu: bool,
    /// Intra-node links are NVLink (`typeIntra == LINK_NVL`), else PCIe.
    pub intra_nvlink: bool,
    /// NVLink SHARP is usable (Hopper or later with NVSwitch).
    pub nvls_support: bool,
    /// A CollNet plugin (InfiniBand SHARP) is enabled and the communicator spans nodes.
    pub collnet: bool,
    pub nvswitch: bool,
    /// Network latency the net plugin reports (`graph->latencyInter`), us. 0 for NCCL's IB and
    /// socket plugins.
    pub latency_inter: f64,
    /// The net plugin set `NCCL_PROTO=simple` for the process (aws-ofi-nccl on A100 and V100
    /// instances: `NicKind::forces_simple_protocol`): LL and LL128 are off.
    pub simple_only: bool,
}

/// The filled-in tables of one communicator.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Algorithm bandwidth, GB/s; 0 where the combination is disabled.
    bw: [[[f64; 3]; 7]; 5],
    /// Latency, us.
    lat: [[[f64; 3]; 7]; 5],
    n_ranks: u32,
    n_nodes: u32,
    /// `comm->nChannels` after ncclTopoPostset duplication (used by the ring plateau rule).
    comm_channels: u32,
    cc: u32,
    tree_correction: &'static [[f64; 23]; 3],
    /// NCCL's "plateau effect of ring" latency factor applies (not in RCCL's model).
    ring_plateau: bool,
}

/// A tree correction table that corrects nothing (libraries without NCCL's table).
const NO_TREE_CORRECTION: [[f64; 23]; 3] = [[1.0; 23]; 3];

/// Tables `[func][algorithm][protocol]` in [`Func`], [`Algorithm`], [`Protocol`] order.
pub type FuncTable = [[[f64; 3]; 7]; 5];

/// `log2i`: floor(log2(n)), -1 for 0 (NVIDIA/nccl src/include/bitops.h log2Down).
fn log2i(n: u64) -> i32 {
    if n == 0 {
        -1
    } else {
        63 - n.leading_zeros() as i32
    }
}

impl Tuning {
    /// NCCL's `comm->nChannels`: the channels a ring or tree collective runs on at once.
    pub fn comm_channels(&self) -> u32 {
        self.comm_channels
    }

    /// `ncclTopoTuneModel` plus the algorithm/protocol enable rules.
    pub fn new(k: &'static NcclConstants, f: &CommFacts, g: &Graphs) -> Tuning {
        let n_ranks = f.n_ranks.max(1);
        let n_nodes = f.n_nodes.max(1);
        let cc = f.arch.compute_capability();
        let arch_i = f.arch as usize;
        let idx2 = if n_nodes <= 2 { n_nodes as usize - 1 } else { 2 };
        let idx1 = if n_nodes == 1 { arch_i } else if f.amd_cpu { 1 } else { 0 };
        let ll_max_bw = k.ll_max_bws[idx1][idx2];
        let per_ch_tree = k.per_ch_max_tree_bws[arch_i][idx2];
        let per_ch_ring_ll128 = k.per_ch_max_ring_ll128_bws[arch_i][idx2];
        let per_ch_tree_ll128 = k.per_ch_max_tree_ll128_bws[arch_i][idx2];
        let per_ch_nvls_tree = k.per_ch_max_nvls_tree_bws[arch_i][idx2];
        let ppn = n_ranks as f64 / n_nodes as f64;
        let local_ranks = n_ranks / n_nodes;
        let net_overhead = if f.amd_cpu { 2.0 } else { 1.0 };
        let pat_enabled = n_nodes == n_ranks;
        // LL128 only on NVLink-connected GPUs of one architecture, Volta or later (tuning.cc,
        // "Enable LL128 by default only on Hopper/Blackwell ... up to P2C and PXN", PXB before).
        let ll128_enabled = f.intra_nvlink && cc >= 70;

        let mut t = Tuning {
            bw: [[[0.0; 3]; 7]; 5],
            lat: [[[0.0; 3]; 7]; 5],
            n_ranks,
            n_nodes,
            comm_channels: 0,
            cc,
            tree_correction: &k.tree_correction,
            ring_plateau: true,
        };
        let mut comm_channels = (g.ring.n_channels * 2).min(k.max_channels);
        if cc >= 90 && n_nodes > 1 && g.ring.bw_intra > 45.0 && comm_channels < 16 {
            comm_channels = (comm_channels * 2).min(k.max_channels);
        }
        // With NVLS on, ncclTopoPostset copies the rings and trees up to NVLS's channel count
        // (src/graph/connect.cc:493-494, 2.26.2 and 2.27.5); with it off that count is 0
        // (src/transport/nvls.cc). Across nodes only: one node's count differs by release
        // (24 on Blackwell from 2.27) and times nothing here. `nvls_support` implies the NVLS
        // graph (both need an NVSwitch, Hopper or later and two GPUs).
        if f.nvls_support && n_nodes > 1 {
            comm_channels = comm_channels.max(super::constants::nvls_channels(cc));
        }
        t.comm_channels = comm_channels;
        if n_ranks <= 1 {
            return t;
        }

        let empty = Graph::default();
        for (fi, func) in [Func::Broadcast, Func::Reduce, Func::AllGather, Func::ReduceScatter, Func::AllReduce]
            .into_iter()
            .enumerate()
        {
            let ag_rs = matches!(func, Func::AllGather | Func::ReduceScatter);
            let nsteps = match func {
                Func::AllReduce => 2 * (n_ranks - 1),
                Func::AllGather | Func::ReduceScatter => n_ranks - 1,
                _ => n_ranks,
            } as f64;
            for (ai, a) in Algorithm::ALL.into_iter().enumerate() {
                if matches!(func, Func::Broadcast | Func::Reduce) && a != Algorithm::Ring {
                    continue;
                }
                if ag_rs && !matches!(a, Algorithm::Pat | Algorithm::Ring | Algorithm::Nvls | Algorithm::CollNetDirect) {
                    continue;
                }
                if func == Func::AllReduce && a == Algorithm::Pat {
                    continue;
                }
                // Algorithm availability: graphs that exist, plugins that are loaded
                // (tuning.cc algoEnable and enqueue.cc updateCollCostTable). NVLS support implies
                // its graph; without one its bandwidth is 0 and it is never chosen.
                let graph = match a {
                    Algorithm::Ring | Algorithm::Pat => g.ring,
                    Algorithm::Tree => g.tree,
                    Algorithm::CollNetDirect => g.collnet_direct,
                    Algorithm::CollNetChain => g.collnet_chain,
                    Algorithm::Nvls | Algorithm::NvlsTree => g.nvls.unwrap_or(empty),
                };
                let enabled = match a {
                    Algorithm::Nvls => {
                        f.nvls_support
                            && (n_nodes == 1 || f.collnet)
                            && (func == Func::AllReduce || local_ranks <= 32)
                    }
                    Algorithm::NvlsTree => f.nvls_support && n_nodes > 1,
                    Algorithm::CollNetDirect => f.collnet && f.nvswitch && local_ranks <= 8,
                    Algorithm::CollNetChain => f.collnet,
                    _ => true,
                };
                if !enabled {
                    continue;
                }
                for (pi, p) in Protocol::ALL.into_iter().enumerate() {
                    if matches!(a, Algorithm::Nvls | Algorithm::NvlsTree) && p != Protocol::Simple {
                        continue;
                    }
                    if ag_rs && a == Algorithm::Pat && (p != Protocol::Simple || !pat_enabled) {
                        continue;
                    }
                    let collnet = matches!(a, Algorithm::CollNetDirect | Algorithm::CollNetChain);
                    let nch = graph.n_channels as f64;
                    let mut bw = if n_nodes <= 2 || collnet { graph.bw_intra } else { graph.bw_inter };
                    let mut skip = false;
                    match (k.nvls_formula, a) {
                        (NvlsFormula::V2_27, Algorithm::Nvls) => {
                            bw = if func == Func::AllReduce {
                                graph.bw_intra.min(graph.bw_inter)
                            } else {
                                (graph.bw_intra * (ppn - 1.0) / ppn).min(graph.bw_inter * 0.9)
                            };
                        }
                        (NvlsFormula::V2_27, Algorithm::NvlsTree) => {
                            let inter = if n_nodes <= 2 { graph.bw_inter } else { graph.bw_inter / 2.0 };
                            bw = graph.bw_intra.min(inter);
                        }
                        (NvlsFormula::V2_30, Algorithm::Nvls | Algorithm::NvlsTree) => {
                            if graph.n_channels < 2 {
                                skip = true;
                            } else {
                                let mut intra = graph.bw_intra * k.nvls_efficiency[arch_i] * (nch - 1.0) / nch;
                                intra *= if func == Func::AllReduce { 2.0 } else { (ppn - 1.0) / ppn };
                                let two = n_nodes <= 2 && a == Algorithm::NvlsTree;
                                let inter = graph.bw_inter * if two { 2.0 } else { 1.0 };
                                let cap = if a == Algorithm::NvlsTree { per_ch_nvls_tree } else { f64::INFINITY };
                                bw = intra.min(inter).min(cap);
                            }
                        }
                        _ => {}
                    }
                    if skip {
                        continue;
                    }
                    let mut bus = nch * bw;
                    if a == Algorithm::Ring && p == Protocol::Ll {
                        bus = ll_max_bw.min(bus * 0.5);
                    }
                    if a == Algorithm::Ring && p == Protocol::Ll128 {
                        bus = (bus * 0.92).min(nch * per_ch_ring_ll128);
                    }
                    if a == Algorithm::Tree && func == Func::AllReduce {
                        bus = (bus * 0.92).min(nch * per_ch_tree);
                    }
                    if a == Algorithm::Tree && p == Protocol::Ll {
                        bus = (bus / 3.8).min(ll_max_bw);
                    }
                    if a == Algorithm::Tree && p == Protocol::Ll128 {
                        let eff = if n_nodes == 1 { 7.0 / 9.0 } else { 120.0 / 128.0 };
                        bus = (bus * eff).min(nch * per_ch_tree_ll128);
                    }
                    if a == Algorithm::Tree && g.simple_tree {
                        bus *= 0.85;
                    }
                    if a == Algorithm::Pat {
                        bus *= 0.75;
                    }
                    if collnet && p != Protocol::Simple {
                        bus = 0.0;
                    }
                    if a == Algorithm::CollNetDirect && p == Protocol::Simple {
                        if ag_rs {
                            bus = ppn * graph.bw_intra.min(graph.bw_inter * 0.9);
                        } else {
                            // "Collnet+Direct requires all GPUs to have a local NIC".
                            let mut factor = ppn / nch;
                            factor -= (factor - 1.0) / 2.0;
                            bus /= factor;
                            if cc >= 90 {
                                bus *= 0.85;
                            }
                        }
                    }
                    // Multi-node NVLS / CollNetDirect AllGather and ReduceScatter need the CollNet
                    // plugin and at least as many heads as local ranks.
                    if matches!(a, Algorithm::Nvls | Algorithm::CollNetDirect) && ag_rs && n_nodes > 1 {
                        let heads = graph.n_channels;
                        if !f.collnet || local_ranks > heads {
                            bus = 0.0;
                        }
                    }
                    if !(a != Algorithm::Ring && ag_rs) {
                        let ratio = match (a, k.nvls_formula) {
                            (Algorithm::Ring, _) => n_ranks as f64 / nsteps,
                            (Algorithm::Nvls | Algorithm::NvlsTree, NvlsFormula::V2_27) => 5.0 / 6.0,
                            (Algorithm::Nvls | Algorithm::NvlsTree, NvlsFormula::V2_30) => n_ranks as f64 / nsteps,
                            _ => 0.5,
                        };
                        bus *= ratio;
                    }
                    if (p == Protocol::Ll128 && !ll128_enabled) || (p != Protocol::Simple && f.simple_only) {
                        bus = 0.0;
                    }
                    t.bw[fi][ai][pi] = bus;

                    // Latency.
                    let hw_intra = if f.intra_nvlink { 0 } else { 1 };
                    let hw = if n_nodes == 1 { hw_intra } else { 2 };
                    let mut lat = k.base_lat[ai][pi];
                    let mut intra_lat = k.hw_lat[hw_intra][ai][pi];
                    let mut inter_lat = if local_ranks == 1 {
                        k.hw_lat[2][Algorithm::Tree as usize][pi]
                    } else {
                        k.hw_lat[2][ai][pi]
                    };
                    inter_lat += f.latency_inter;
                    if p == Protocol::Simple {
                        inter_lat += f.latency_inter; // the flush
                    }
                    let log_nodes = log2i(n_nodes as u64) as f64;
                    let lr = local_ranks as f64;
                    match a {
                        Algorithm::Ring => {
                            if matches!(func, Func::Broadcast | Func::Reduce) {
                                // NCCL's ring graphs use the same channels (sameChannels = 1).
                                lat += k.hw_lat[hw][ai][pi];
                            } else {
                                let mut overhead = 0.0;
                                if n_nodes > 1 {
                                    overhead = net_overhead;
                                    if p == Protocol::Simple {
                                        overhead *= 3.0;
                                    }
                                }
                                intra_lat = intra_lat.max(overhead);
                                let inter_steps = if n_nodes == 1 {
                                    0.0
                                } else if func == Func::AllReduce {
                                    2.0 * (n_nodes - 1) as f64
                                } else {
                                    (n_nodes - 1) as f64
                                };
                                lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
                            }
                        }
                        Algorithm::Tree => {
                            if func == Func::AllReduce {
                                lat += 2.0 * ((lr - 1.0) * intra_lat + log_nodes * inter_lat);
                            }
                        }
                        Algorithm::CollNetDirect => {
                            lat += 2.0 * ((lr - 1.0).min(1.0) * intra_lat + (lr - 1.0) * 0.4) + inter_lat;
                        }
                        Algorithm::CollNetChain => {
                            lat += 2.0 * (lr - 1.0) * intra_lat + inter_lat;
                        }
                        Algorithm::Nvls => {
                            lat = intra_lat;
                            if n_nodes > 1 {
                                lat += inter_lat;
                            }
                        }
                        Algorithm::NvlsTree => {
                            lat += intra_lat + 2.0 * log_nodes * inter_lat;
                        }
                        Algorithm::Pat => {
                            lat = 8.0 + log_nodes * (inter_lat / 3.5) + n_ranks as f64 * 2.8;
                        }
                    }
                    t.lat[fi][ai][pi] = lat;
                }
            }
        }
        t
    }

    /// A table filled by another library's model (RCCL: [`crate::rccl`]): algorithm bandwidth
    /// (GB/s, 0 = disabled) and latency (us) per entry. Times and choices follow the same rules,
    /// without NCCL's tree correction table or ring plateau factor.
    pub fn from_tables(bw: FuncTable, lat: FuncTable, n_ranks: u32, n_nodes: u32, comm_channels: u32) -> Tuning {
        Tuning {
            bw,
            lat,
            n_ranks: n_ranks.max(1),
            n_nodes: n_nodes.max(1),
            comm_channels: comm_channels.max(1),
            cc: 0,
            tree_correction: &NO_TREE_CORRECTION,
            ring_plateau: false,
        }
    }

    /// The table entries `(latency us, algorithm bandwidth GB/s)`; `None` where disabled.
    pub fn entry(&self, func: Func, a: Algorithm, p: Protocol) -> Option<(f64, f64)> {
        let bw = self.bw[func as usize][a as usize][p as usize];
        (bw > 0.0).then(|| (self.lat[func as usize][a as usize][p as usize], bw))
    }

    /// `ncclTopoGetAlgoTime` for one operation (numPipeOps = 1), in microseconds.
    pub fn time(&self, func: Func, a: Algorithm, p: Protocol, bytes: u64) -> Option<f64> {
        let (lat, bw) = self.terms(func, a, p, bytes)?;
        Some(lat + bytes as f64 / (1000.0 * bw))
    }

    /// The two terms of [`Tuning::time`] at this size: latency (us) and algorithm bandwidth
    /// (GB/s) after NCCL's size corrections (tree correction table, ring plateau factor).
    pub fn terms(&self, func: Func, a: Algorithm, p: Protocol, bytes: u64) -> Option<(f64, f64)> {
        let (mut lat, mut bw) = self.entry(func, a, p)?;
        let log_size = log2i(bytes >> 6);
        if a == Algorithm::Tree && func == Func::AllReduce && (0..23).contains(&log_size) {
            bw *= self.tree_correction[p as usize][log_size as usize];
        }
        if a == Algorithm::Ring
            && p == Protocol::Simple
            && self.ring_plateau
            && self.n_nodes > 1
            && func == Func::AllReduce
            && bytes / (self.comm_channels as u64 * self.n_ranks as u64).max(1) >= 64
        {
            // "Plateau effect of ring".
            lat *= if self.cc < 80 { 1.9 } else { 1.4 };
        }
        Some((lat, bw))
    }

    /// NCCL's choice: the enabled (algorithm, protocol) with the least predicted time, among
    /// those `allow` admits. Returns `(algorithm, protocol, time us)`.
    pub fn best(
        &self,
        func: Func,
        bytes: u64,
        allow: impl Fn(Algorithm, Protocol) -> bool,
    ) -> Option<(Algorithm, Protocol, f64)> {
        let mut best: Option<(Algorithm, Protocol, f64)> = None;
        for a in Algorithm::ALL {
            for p in Protocol::ALL {
                if !allow(a, p) {
                    continue;
                }
                if let Some(t) = self.time(func, a, p, bytes) {
                    if best.is_none_or(|b| t < b.2) {
                        best = Some((a, p, t));
                    }
                }
            }
        }
        best
    }

    pub fn n_ranks(&self) -> u32 {
        self.n_ranks
    }
    pub fn n_nodes(&self) -> u32 {
        self.n_nodes
    }
}
