//! ECMP's early answer for a collective: the first level of the max-min filling found from
//! link loads alone (each hashed connection counted on its links, no flow stored), then only
//! the connections crossing the links that fill there made into flows. A collective's figures
//! (its slowest connection, whether a collision limits it, the tier that does) are known at
//! that level in the usual case; when the filling would go on past it, the caller runs the
//! full solve instead. Exact either way: the same figures, flow for flow, as the full solve
//! (`sim`'s proptest checks it against the per-demand reference).
//!
//! Why it pays: an all-to-all over 1,024 GPUs is a million hashed connections a seed; storing
//! each as a flow (and indexing them) cost most of a seed's time, counting them costs little.

use crate::graph::{Fabric, LinkTier};
use crate::maxmin::{Allocation, FULL};
use crate::route::Router;
use crate::solved::{cut, each_path, path_key, unpack, Need, Owner, PathKey, Solved, MAX_HOPS};
use crate::traffic::Demand;
use fabricscope_model::error::Result;

/// The collective's solve when the filling's first level settles what `need` asks (`None`:
/// run the full solve). `salt` is the seed's [`crate::rng::salt`], `per_demand` each demand's
/// rate on NIC links only.
pub(crate) fn first_level(fab: &Fabric, router: &mut Router, caps: &[f64], salt: u64, ds: &[Demand], per_demand: &[f64], need: Need) -> Result<Option<Solved>> {
    let nl = fab.links.len();
    let mut conns_on = vec![0u32; nl];
    let (mut top, mut ideal, mut all_job0) = (0.0f64, f64::INFINITY, true);
    for (i, d) in ds.iter().enumerate().filter(|(_, d)| d.conns > 0) {
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        conns_on[fab.nic_up[d.src as usize] as usize] += d.conns;
        conns_on[fab.nic_down[d.dst as usize] as usize] += d.conns;
        for c in 0..d.conns {
            if !router.ecmp_walk(sl, dl, salt, d.key ^ ((c as u64) << 40), |l| conns_on[l as usize] += 1) {
                return Err(cut());
            }
        }
        top = top.max(per_demand[i]);
        ideal = ideal.min(per_demand[i]);
        all_job0 &= d.job == 0;
    }
    let top = top * (1.0 - 1e-6);
    // The filling's first level and the links full there, in the order its heap pops them:
    // by level, then link id, while each is full at the first one's level.
    let fill = |l: usize| caps[l].max(0.0) / conns_on[l] as f64;
    let Some(first) = (0..nl).filter(|&l| conns_on[l] > 0).min_by(|&a, &b| fill(a).total_cmp(&fill(b)).then(a.cmp(&b))) else {
        return Ok(None);
    };
    let level = fill(first);
    let mut near: Vec<usize> = (0..nl).filter(|&l| conns_on[l] > 0 && fill(l) <= level * (1.0 + 1e-6)).collect();
    near.sort_by(|&a, &b| fill(a).total_cmp(&fill(b)).then(a.cmp(&b)));
    let full_at = |l: usize| caps[l] - conns_on[l] as f64 * level <= FULL * caps[l].max(1e-300);
    let mut is_full = vec![false; nl];
    for (k, &l) in near.iter().enumerate() {
        if k > 0 && !full_at(l) {
            break;
        }
        is_full[l] = true;
    }
    // On a whole tree a path climbs from its source leaf and descends to its destination leaf,
    // so a full leaf uplink is crossed only by demands from its leaf and a full leaf downlink
    // only by demands to its leaf (a failed link may send a path through a third leaf).
    let whole = fab.links.iter().all(|l| l.alive);
    let (mut from_leaf, mut to_leaf, mut anywhere) = (vec![false; fab.switches.len()], vec![false; fab.switches.len()], !whole);
    for l in (0..nl).filter(|&l| is_full[l]) {
        let link = &fab.links[l];
        match link.tier {
            LinkTier::LeafToSpine => from_leaf[link.from as usize] = true,
            LinkTier::SpineToLeaf => to_leaf[link.to as usize] = true,
            LinkTier::SpineToCore | LinkTier::CoreToSpine => anywhere = true,
            LinkTier::NicToLeaf | LinkTier::LeafToNic => {}
        }
    }
    let done = |job0: bool, hit: bool| job0 && (need == Need::Slowest || hit || level >= top);
    let mut out = Solved { alloc: Allocation { rates: Vec::new(), bottleneck: Vec::new(), floor: level }, owner: Vec::new(), nic_only: Vec::new(), conns_on, ideal };
    // Before anything freezes (the job's every flow rises together): settled at the NICs' rate.
    if done(all_job0, false) {
        return Ok(Some(out));
    }
    // The flows that freeze at `level`, each frozen by its lowest-numbered full link, in the
    // full solve's order (demand by demand: detours, then distinct paths in key order).
    let (mut job0, mut hit) = (false, false);
    let mut hops: Vec<u32> = Vec::new();
    let mut keys: Vec<PathKey> = Vec::new();
    let mut push = |out: &mut Solved, links: &mut dyn Iterator<Item = u32>, w: u32, i: usize| {
        let b = links.filter(|&l| is_full[l as usize]).min();
        if let Some(b) = b {
            out.alloc.rates.push(level);
            out.alloc.bottleneck.push(b);
            out.owner.push(Owner { demand: i, conns: w, members: 1 });
            out.nic_only.push(per_demand[i]);
            job0 |= ds[i].job == 0;
            hit |= fab.links[b as usize].tier.is_fabric() && out.conns_on[b as usize] >= 2 && level < per_demand[i] * (1.0 - 1e-6);
        }
    };
    for (i, d) in ds.iter().enumerate().filter(|(_, d)| d.conns > 0) {
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        let ends = [fab.nic_up[d.src as usize], fab.nic_down[d.dst as usize]];
        // Most demands have no connection on a full link: a walk without storing tells.
        let near = anywhere || from_leaf[sl as usize] || to_leaf[dl as usize];
        let any = is_full[ends[0] as usize] || is_full[ends[1] as usize] || near && (0..d.conns).any(|c| {
            let mut on = false;
            router.ecmp_walk(sl, dl, salt, d.key ^ ((c as u64) << 40), |l| on |= is_full[l as usize]);
            on
        });
        if !any {
            continue;
        }
        hops.clear();
        keys.clear();
        for c in 0..d.conns {
            let s = hops.len();
            router.ecmp_walk(sl, dl, salt, d.key ^ ((c as u64) << 40), |l| hops.push(l));
            if hops.len() - s > MAX_HOPS {
                push(&mut out, &mut ends.iter().copied().chain(hops[s..].iter().copied()), 1, i);
                hops.truncate(s);
            } else {
                keys.push(path_key(&hops[s..]));
            }
        }
        each_path(&mut keys, |key, n| push(&mut out, &mut ends.iter().copied().chain(unpack(key)), n, i));
    }
    Ok(done(job0, hit).then_some(out))
}

#[cfg(test)]
mod tests {
    use crate::graph::{ClosSpec, Fabric};
    use crate::sim::{run_with, Options};
    use crate::{Placement, Routing, Traffic};
    use fabricscope_model::units::GBps;

    /// The early answer against the full filling of every flow (the per-demand reference) on
    /// studies where it stops at the first level (a 2:1 tree's collisions, a non-blocking
    /// tree's NICs) and where it hands over (neighbours freezing first, a NIC down).
    #[test]
    fn the_early_answer_is_the_full_solves() {
        for (up, traffic, other_jobs, nics_down) in [
            (16, Traffic::AllToAll, 0, 0),
            (32, Traffic::AllToAll, 0, 0),
            (16, Traffic::Ring, 0, 0),
            (32, Traffic::Ring, 2, 0),
            (16, Traffic::AllToAll, 1, 1),
            (32, Traffic::Ring, 0, 1),
        ] {
            let fab = Fabric::build(ClosSpec::two_tier(4, 4, 8, 4, up, GBps(50.0))).expect("a graph");
            let o = Options { traffic, routing: Routing::Ecmp, seeds: 6, placement: Placement::Scattered, other_jobs, failures: crate::Failures { nics_down, ..Default::default() }, ..Options::default() };
            let (a, b) = (run_with(&fab, &o, false).expect("a study"), run_with(&fab, &o, true).expect("a study"));
            for (x, y) in a.per_seed.iter().zip(&b.per_seed) {
                assert!((x - y).abs() <= 1e-9, "{traffic:?} up {up}: {:?} vs {:?}", a.per_seed, b.per_seed);
            }
            assert_eq!((a.collision_probability, a.bottleneck_tier), (b.collision_probability, b.bottleneck_tier), "{traffic:?} up {up}");
        }
    }
}
