//! Traffic as demands between NICs: ring edges per channel and queue pair, double-binary-tree
//! edges, all-to-all pairs with and without PXN, random permutations; and where a job's nodes
//! sit (contiguous or scattered over leaves).
//!
//! Collectives follow NCCL on rail-optimized nodes: a ring or tree channel enters and leaves a
//! node through the same rail, and PXN (PCIe x NVLink, NCCL's default since 2.12) moves
//! all-to-all data over NVLink to the GPU on the destination's rail first, so all three stay
//! rail-matched. Without PXN each GPU sends from its own NIC to the destination GPU's NIC, so
//! most all-to-all flows cross rails (on a rail-optimized fabric, through the spine). Traffic
//! inside a node (NVLink) is not a demand on the fabric.

use crate::graph::Fabric;
use crate::rng::{FastMap, Rng};
use serde::{Deserialize, Serialize};

/// What the job sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traffic {
    /// Ring AllReduce / AllGather: each node sends to the next, per rail, channel and QP.
    Ring,
    /// Tree AllReduce: NCCL's double binary tree over the nodes (the second tree the mirror
    /// of the first, or the first shifted by one rank for an odd count, as NCCL's trees.cc),
    /// each tree edge carrying the reduction up and the broadcast down, per rail and channel.
    Tree,
    /// AllToAll: every GPU to every GPU of another node, rail-matched by PXN.
    #[serde(rename = "alltoall")]
    AllToAll,
    /// AllToAll without PXN: each GPU's own NIC to each remote GPU's own NIC, across rails.
    #[serde(rename = "alltoall-no-pxn")]
    AllToAllNoPxn,
    /// Every NIC sends to one other NIC on another node (a random permutation per seed).
    RandomPermutation,
}

impl Traffic {
    pub const ALL: [(&'static str, Traffic); 5] = [
        ("ring", Traffic::Ring),
        ("tree", Traffic::Tree),
        ("alltoall", Traffic::AllToAll),
        ("alltoall-no-pxn", Traffic::AllToAllNoPxn),
        ("random-permutation", Traffic::RandomPermutation),
    ];

    pub fn id(self) -> &'static str {
        match self {
            Traffic::Ring => "ring",
            Traffic::Tree => "tree",
            Traffic::AllToAll => "alltoall",
            Traffic::AllToAllNoPxn => "alltoall-no-pxn",
            Traffic::RandomPermutation => "random-permutation",
        }
    }

    /// A collective (its speed is its slowest flow's), not a permutation (mean over flows).
    pub fn is_collective(self) -> bool {
        !matches!(self, Traffic::RandomPermutation)
    }

    /// Demands of one job of `m` nodes on `spec` (at most), and their connections in all (each
    /// one hashed path under ECMP): what bounds a study's work (`sim` refuses past its bounds).
    pub fn size(self, spec: &crate::graph::ClosSpec, m: u64, shape: &Shape) -> (u64, u64) {
        let r = spec.nics_per_node as u64;
        let per_rail = shape.gpus_per_node.div_ceil(spec.nics_per_node).max(1) as u64;
        let (qps, channels) = (shape.qps as u64, shape.channels as u64);
        let pairs = m * m.saturating_sub(1);
        match self {
            Traffic::Ring => (m * r, m * r * channels * qps),
            // Two trees of m - 1 edges, each both ways.
            Traffic::Tree => (4 * m.saturating_sub(1) * r, 4 * m.saturating_sub(1) * r * channels * qps),
            Traffic::AllToAll => (pairs * r, pairs * r * shape.gpus_per_node as u64 * per_rail * qps),
            Traffic::AllToAllNoPxn => (pairs * r * (spec.rails_per_plane.max(1) as u64).min(r), pairs * r * r * per_rail * per_rail * qps),
            Traffic::RandomPermutation => (m * r, m * r * qps),
        }
    }
}

/// Where jobs' nodes sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Consecutive nodes: a job fills leaves one after another.
    Contiguous,
    /// Consecutive ranks on different leaves (round-robin over leaf blocks), as a
    /// fragmented scheduler leaves them.
    Scattered,
}

impl Placement {
    pub const ALL: [(&'static str, Placement); 2] = [("contiguous", Placement::Contiguous), ("scattered", Placement::Scattered)];

    pub fn id(self) -> &'static str {
        match self {
            Placement::Contiguous => "contiguous",
            Placement::Scattered => "scattered",
        }
    }
}

/// `conns` identical connections (channels x QPs, or GPU pairs) from one NIC to another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Demand {
    pub job: u32,
    pub src: u32,
    pub dst: u32,
    pub conns: u32,
    /// Tells this demand's connections apart for hashing (stable across seeds).
    pub key: u64,
}

/// Every node in placement order; jobs take consecutive runs of it.
pub fn node_order(fab: &Fabric, placement: Placement) -> Vec<u32> {
    let n = fab.spec.nodes;
    match placement {
        Placement::Contiguous => (0..n).collect(),
        Placement::Scattered => {
            let per = fab.spec.nodes_per_leaf.clamp(1, n);
            let blocks = n.div_ceil(per);
            let mut v = Vec::with_capacity(n as usize);
            for i in 0..per {
                for b in 0..blocks {
                    let node = b * per + i;
                    if node < n {
                        v.push(node);
                    }
                }
            }
            v
        }
    }
}

/// What shapes a job's demands.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub traffic: Traffic,
    /// Ring channels per NIC.
    pub channels: u32,
    /// Queue pairs per connection (each hashed on its own).
    pub qps: u32,
    pub gpus_per_node: u32,
}

/// The demands of one job on `nodes` (in rank order); `rng` draws the permutation.
pub fn demands(fab: &Fabric, job: u32, nodes: &[u32], shape: Shape, rng: &mut Rng) -> Vec<Demand> {
    let r = fab.spec.nics_per_node;
    let m = nodes.len();
    let (count, _) = shape.traffic.size(&fab.spec, m as u64, &shape);
    let mut out = Vec::with_capacity(count as usize);
    let mut push = |src: u32, dst: u32, conns: u32| {
        let key = ((job as u64) << 48) ^ ((src as u64) << 24) ^ dst as u64;
        out.push(Demand { job, src, dst, conns, key });
    };
    match shape.traffic {
        Traffic::Ring if m > 1 => {
            for i in 0..m {
                let (a, b) = (nodes[i], nodes[(i + 1) % m]);
                for rail in 0..r {
                    push(fab.nic(a, rail), fab.nic(b, rail), shape.channels * shape.qps);
                }
            }
        }
        Traffic::AllToAll => {
            // GPUs behind each rail at the destination, times every source GPU.
            let per_rail = shape.gpus_per_node.div_ceil(r).max(1);
            for &a in nodes {
                for &b in nodes {
                    if a != b {
                        for rail in 0..r {
                            push(fab.nic(a, rail), fab.nic(b, rail), shape.gpus_per_node * per_rail * shape.qps);
                        }
                    }
                }
            }
        }
        Traffic::Tree if m > 1 => {
            // Both trees' edges, both ways; an edge both trees share is one demand with both
            // trees' connections (one demand per NIC pair keeps every connection's hash its own).
            let mut at: FastMap<(u32, u32), usize> = FastMap::default();
            let mut edges: Vec<(u32, u32, u32)> = Vec::new();
            for (child, parent) in double_tree_edges(m as u32) {
                let (a, b) = (nodes[child as usize], nodes[parent as usize]);
                for rail in 0..r {
                    for (s, d) in [(fab.nic(a, rail), fab.nic(b, rail)), (fab.nic(b, rail), fab.nic(a, rail))] {
                        let i = *at.entry((s, d)).or_insert_with(|| {
                            edges.push((s, d, 0));
                            edges.len() - 1
                        });
                        edges[i].2 += shape.channels * shape.qps;
                    }
                }
            }
            for (s, d, c) in edges {
                push(s, d, c);
            }
        }
        Traffic::AllToAllNoPxn => {
            // GPUs behind each rail at either end; a NIC pair in two planes has no path over
            // the fabric, so that data still crosses NVLink to the destination's rail (PXN).
            let per_rail = shape.gpus_per_node.div_ceil(r).max(1);
            for &a in nodes {
                for &b in nodes {
                    if a != b {
                        for ra in 0..r {
                            let plane = fab.plane_of_rail(ra);
                            for rb in (0..r).filter(|&rb| fab.plane_of_rail(rb) == plane) {
                                // The rail-matched pair also carries what other planes' GPUs
                                // send to this rail's GPUs (one demand, so no hash repeats).
                                let across = if ra == rb { (0..r).filter(|&x| fab.plane_of_rail(x) != plane).count() as u32 } else { 0 };
                                push(fab.nic(a, ra), fab.nic(b, rb), (1 + across) * per_rail * per_rail * shape.qps);
                            }
                        }
                    }
                }
            }
        }
        Traffic::RandomPermutation if m > 1 => {
            // One permutation per plane (planes are not joined), none within a node.
            for plane in 0..fab.spec.planes {
                let rails: Vec<u32> = (0..r).filter(|&x| fab.plane_of_rail(x) == plane).collect();
                let nics: Vec<(u32, u32)> = nodes.iter().flat_map(|&n| rails.iter().map(move |&x| (n, x))).collect();
                let mut to = nics.clone();
                rng.shuffle(&mut to);
                // Repair same-node pairs by swapping with a random partner (few tries each).
                for i in 0..to.len() {
                    let mut tries = 0;
                    while to[i].0 == nics[i].0 && tries < 64 {
                        let j = rng.below(to.len() as u32) as usize;
                        if to[j].0 != nics[i].0 && to[i].0 != nics[j].0 {
                            to.swap(i, j);
                        }
                        tries += 1;
                    }
                }
                for (s, d) in nics.iter().zip(&to) {
                    if s.0 != d.0 {
                        push(fab.nic(s.0, s.1), fab.nic(d.0, d.1), shape.qps);
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The parent of `rank` in NCCL's binary tree over `n` ranks rooted at 0 (trees.cc's
/// `ncclGetBtree`): clear the lowest set bit `b` and set `2b`, or only clear it when that
/// overshoots `n`. Root (0): none.
fn btree_parent(n: u32, rank: u32) -> Option<u32> {
    if rank == 0 || rank >= n {
        return None;
    }
    let b = rank & rank.wrapping_neg();
    let up = (rank ^ b) | (b << 1);
    Some(if up < n { up } else { rank ^ b })
}

/// The parent of `rank` in the second tree: the first tree mirrored (rank `n - 1 - r`) for
/// an even `n`, shifted by one rank for an odd `n` (trees.cc's `ncclGetDtree`).
fn mirror_parent(n: u32, rank: u32) -> Option<u32> {
    if n.is_multiple_of(2) {
        btree_parent(n, n - 1 - rank).map(|p| n - 1 - p)
    } else {
        btree_parent(n, (rank + n - 1) % n).map(|p| (p + 1) % n)
    }
}

/// Every (child, parent) edge of NCCL's double binary tree over `n` ranks: the first tree's
/// then the second's.
pub fn double_tree_edges(n: u32) -> Vec<(u32, u32)> {
    let first = (0..n).filter_map(|r| btree_parent(n, r).map(|p| (r, p)));
    let second = (0..n).filter_map(|r| mirror_parent(n, r).map(|p| (r, p)));
    first.chain(second).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drawings in NCCL's trees.cc: 14 ranks (0-8, 8-4, 8-12, 4-2, 4-6, 12-10, 12-13, ...),
    /// the mirror for 12 ranks (root 11, then 3, then 1 and 7) and the shift for 13 (root 1, then 9).
    #[test]
    fn trees_are_nccls() {
        let parent = |n, r| btree_parent(n, r);
        assert_eq!(parent(14, 8), Some(0));
        assert_eq!([parent(14, 4), parent(14, 12)], [Some(8), Some(8)]);
        assert_eq!([parent(14, 2), parent(14, 6), parent(14, 10)], [Some(4), Some(4), Some(12)]);
        assert_eq!([parent(14, 1), parent(14, 3), parent(14, 11), parent(14, 13)], [Some(2), Some(2), Some(10), Some(12)]);
        assert_eq!(parent(14, 0), None);
        // 12 ranks, mirrored: root 11, then 3 and 7 below it, 1 and 5, 9 below those.
        let m = |r| mirror_parent(12, r);
        assert_eq!(m(11), None);
        assert_eq!([m(3), m(7)], [Some(11), Some(3)]);
        assert_eq!([m(1), m(5), m(9)], [Some(3), Some(7), Some(7)]);
        assert_eq!([m(0), m(2), m(4), m(10)], [Some(1), Some(1), Some(5), Some(9)]);
        // 13 ranks, shifted: root 1, 9 below it, 5 and 0 below 9.
        let s = |r| mirror_parent(13, r);
        assert_eq!(s(1), None);
        assert_eq!([s(9), s(5), s(0)], [Some(1), Some(9), Some(9)]);
        // Each tree spans: n - 1 edges each, every rank but the root has one parent.
        for n in 2..40 {
            let e = double_tree_edges(n);
            assert_eq!(e.len() as u32, 2 * (n - 1), "{n}");
        }
    }
}
