//! Placement that uses the NVLink domain: on rack-scale domains (NVL72) a job's trays are taken
//! in whole segments per rack so that its EP groups (then TP, then CP) never straddle two racks.
//!
//! Ranks fill the racks in order ([`crate::topology::nvl72_rack_gpus`]); when a group's block of
//! consecutive ranks does not divide the rack (EP 16 or 64 on 72 GPUs), some groups straddle two
//! racks and their all-to-all crosses the network, and every step waits for them. A block
//! scheduler avoids that the way Slurm's topology/block plugin does with `--segment`: the job
//! takes `k` trays in each rack, `k` the most trays whose GPUs hold whole blocks (16 of 18 trays
//! = 64 GPUs for EP 16, 32 or 64), and spans as many racks as that needs (576 GPUs at 64 per
//! rack: 9 racks). Source for the mechanism: SchedMD/NVIDIA, Slurm topology/block ("jobs can
//! request segments, the smallest set of nodes that must stay inside one block"), as CoreWeave
//! documents it for GB200 NVL72 (docs.coreweave.com, "Topology/Block Scheduling in Slurm").

use super::mapping::{Group, Parallel};
use crate::topology::{Topology, NVL72_GPUS};

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        a.max(b)
    } else {
        a / gcd(a, b) * b
    }
}

/// Ranks one group of `g` spans from its first member to its last, plus one: the block of
/// consecutive ranks that holds it whole (its generators are digits of the rank order).
fn extent(par: &Parallel, g: Group) -> u64 {
    let gens = par.generators(g);
    gens.g[..gens.n as usize].iter().map(|(s, c)| s * *c as u64).max().unwrap_or(1)
}

/// GPUs per rack the job should use on `topo`, when that differs from filling the racks:
/// `Some(fill)` for a rack-scale domain (several trays) where the EP, TP or CP block (in that
/// order of priority) does not divide the rack fill the topology has. `None` when the racks
/// already hold whole blocks, the job fits in one rack, or the domain is one node.
pub fn segment_fill(topo: &Topology, par: &Parallel) -> Option<u32> {
    let gpn = topo.cluster.gpus_per_node.max(1) as u64;
    let d = topo.domain_gpus as u64;
    if d <= gpn || topo.domains <= 1 {
        return None;
    }
    // The largest a rack holds: whole trays of the physical rack.
    let rack = (NVL72_GPUS as u64 / gpn) * gpn;
    let mut block = 1u64;
    for g in [Group::Ep, Group::Tp, Group::Cp] {
        let e = extent(par, g);
        let b = lcm(block, e);
        if e > 1 && lcm(b, gpn) <= rack {
            block = b;
        }
    }
    if block <= 1 || d.is_multiple_of(block) {
        return None;
    }
    let unit = lcm(block, gpn);
    let fill = (rack / unit) * unit;
    (fill >= unit && fill != d).then_some(fill as u32)
}

/// `topo` with the job's GPUs placed `fill` to a rack: the same trays, NICs and switches, in
/// more (partly used) racks.
pub fn segmented(topo: &Topology, fill: u32) -> Topology {
    let mut t = topo.clone();
    t.domain_gpus = fill;
    t.domains = topo.total_gpus.div_ceil(fill.max(1));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuKind, NicKind, ScaleUp};
    use crate::topology::Cluster;
    use crate::training::mapping::{span, SpanTier};

    fn nvl72(nodes: u32) -> Topology {
        Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }
            .topology()
            .unwrap()
    }

    #[test]
    fn ep_blocks_that_do_not_divide_the_rack_take_segments() {
        let t = nvl72(144);
        assert_eq!((t.domain_gpus, t.domains), (72, 8));
        for ep in [16u32, 32, 64] {
            let p = Parallel { tp: 1, pp: 9, dp: 64, ep, ..Parallel::default() };
            // Filling racks of 72, some EP group straddles two racks.
            assert!(span(&t, p.generators(Group::Ep), 576).domains > 1, "ep {ep}");
            let fill = segment_fill(&t, &p).unwrap();
            assert_eq!(fill, 64, "16 of 18 trays hold whole EP {ep} groups");
            let s = segmented(&t, fill);
            assert_eq!(s.domains, 9);
            let ep_span = span(&s, p.generators(Group::Ep), 576);
            assert_eq!((ep_span.domains, ep_span.tier), (1, SpanTier::ScaleUp), "ep {ep}");
        }
        // EP 8 and TP 4 x EP 2 divide 72: the racks stay full.
        assert_eq!(segment_fill(&t, &Parallel { tp: 1, pp: 9, dp: 64, ep: 8, ..Parallel::default() }), None);
        assert_eq!(segment_fill(&t, &Parallel { tp: 4, pp: 9, dp: 16, ep: 2, ..Parallel::default() }), None);
        // TP 16 without EP: the TP block decides.
        assert_eq!(segment_fill(&t, &Parallel { tp: 16, pp: 1, dp: 36, ..Parallel::default() }), Some(64));
    }

    #[test]
    fn eight_gpu_nodes_and_single_racks_are_left_alone() {
        let t = Cluster { nodes: 72, gpu: GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, ..Cluster::default() }.topology().unwrap();
        assert_eq!(segment_fill(&t, &Parallel { tp: 1, pp: 9, dp: 64, ep: 64, ..Parallel::default() }), None);
        let one = nvl72(18);
        assert_eq!(segment_fill(&one, &Parallel { tp: 1, pp: 1, dp: 72, ep: 8, ..Parallel::default() }), None);
    }
}
