//! Traffic as demands between NICs: ring edges per channel and queue pair, all-to-all pairs,
//! random permutations; and where a job's nodes sit (contiguous or scattered over leaves).
//!
//! Collectives follow NCCL on rail-optimized nodes: a ring channel enters and leaves a node
//! through the same rail, and PXN moves all-to-all data over NVLink to the GPU on the
//! destination's rail first, so both stay rail-matched. Traffic inside a node (NVLink) is not
//! a demand on the fabric.

use crate::graph::Fabric;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// What the job sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traffic {
    /// Ring AllReduce / AllGather: each node sends to the next, per rail, channel and QP.
    Ring,
    /// AllToAll: every GPU to every GPU of another node, rail-matched by PXN.
    #[serde(rename = "alltoall")]
    AllToAll,
    /// Every NIC sends to one other NIC on another node (a random permutation per seed).
    RandomPermutation,
}

impl Traffic {
    pub const ALL: [(&'static str, Traffic); 3] =
        [("ring", Traffic::Ring), ("alltoall", Traffic::AllToAll), ("random-permutation", Traffic::RandomPermutation)];

    pub fn id(self) -> &'static str {
        match self {
            Traffic::Ring => "ring",
            Traffic::AllToAll => "alltoall",
            Traffic::RandomPermutation => "random-permutation",
        }
    }

    /// A collective (its speed is its slowest flow's), not a permutation (mean over flows).
    pub fn is_collective(self) -> bool {
        !matches!(self, Traffic::RandomPermutation)
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
    let pairs = match shape.traffic {
        Traffic::AllToAll => m * m.saturating_sub(1),
        Traffic::Ring | Traffic::RandomPermutation => m,
    };
    let mut out = Vec::with_capacity(pairs * r as usize);
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
