//! Each link's load in one seed's solve, for drawing the fabric with its loaded links: the
//! same demands, failures, routing and max-min rates as a study's seed, every neighbour
//! active (the worst sharing case), summed per directed link.

use crate::graph::Fabric;
use crate::maxmin::{max_min, Paths};
use crate::rng::Rng;
use crate::route::{Router, Routing};
use crate::sim::Options;
use crate::traffic::{demands, node_order, Demand, Shape};
use fabricscope_model::error::{ModelError, Result};
use std::collections::HashMap;

/// The fabric as the seed saw it (failures applied) and each directed link's utilisation.
#[derive(Clone, Debug)]
pub struct Loads {
    pub fabric: Fabric,
    /// Per link of `fabric`: carried rate over capacity (0 to 1; 0 on a failed link).
    pub utilisation: Vec<f64>,
    /// The seed drawn.
    pub seed: u64,
}

/// `healthy` with the study's failures applied: the fabric [`link_loads`] loads (the page
/// rebuilds it around loads its worker solved).
pub fn failed_fabric(healthy: &Fabric, o: &Options) -> Result<Fabric> {
    let Some(&first) = node_order(healthy, o.placement).first() else {
        return Err(ModelError::new("nodes", "the fabric has no node"));
    };
    o.failures.check(healthy, first)?;
    let mut fab = healthy.clone();
    o.failures.apply(&mut fab, first);
    Ok(fab)
}

/// The loads of seed `seed` of the study `o` on `healthy` (failures are applied here).
pub fn link_loads(healthy: &Fabric, o: &Options, seed: u64) -> Result<Loads> {
    let jobs = o.other_jobs + 1;
    let order = node_order(healthy, o.placement);
    let per_job = (healthy.spec.nodes / jobs) as usize;
    if per_job < 2 {
        return Err(ModelError::new("nodes", "a job needs at least 2 nodes to use the fabric"));
    }
    let first = order[0];
    let fab = failed_fabric(healthy, o)?;
    let shape = Shape { traffic: o.traffic, channels: o.channels, qps: o.qps, gpus_per_node: o.gpus_per_node };
    let mut rng = Rng::new(seed);
    let ds: Vec<Demand> = (0..jobs).flat_map(|j| demands(&fab, j, &order[j as usize * per_job..(j as usize + 1) * per_job], shape, &mut rng)).collect();
    let ds = o.failures.reroute(&fab, first, ds);
    let cut = || ModelError::new("links_down", "the failures cut the fabric in two: a flow has no path left");
    let mut router = Router::new(&fab);
    let mut paths = Paths::new();
    let mut patterns: HashMap<(u32, u32), u32> = HashMap::new();
    let mut buf = Vec::new();
    for d in &ds {
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        let ends = [(fab.nic_up[d.src as usize], 1.0), (fab.nic_down[d.dst as usize], 1.0)];
        match o.routing {
            Routing::Ecmp => {
                for c in 0..d.conns {
                    buf.clear();
                    buf.extend_from_slice(&ends);
                    if !router.ecmp(sl, dl, seed, d.key ^ ((c as u64) << 40), &mut buf) {
                        return Err(cut());
                    }
                    paths.push(&buf);
                }
            }
            Routing::Adaptive | Routing::Spray => {
                let pat = match patterns.get(&(sl, dl)) {
                    Some(&p) => p,
                    None => {
                        buf.clear();
                        if !router.split(sl, dl, &mut buf) {
                            return Err(cut());
                        }
                        let p = paths.pattern(&buf);
                        patterns.insert((sl, dl), p);
                        p
                    }
                };
                let w = d.conns as f64;
                paths.push_with(&[(ends[0].0, w), (ends[1].0, w)], pat, w);
            }
        }
    }
    let caps: Vec<f64> = fab.links.iter().map(|l| if l.alive { l.cap.0 } else { 0.0 }).collect();
    let alloc = max_min(&caps, &paths);
    let mut load = vec![0.0; fab.links.len()];
    for (f, &r) in alloc.rates.iter().enumerate() {
        for &(l, share) in paths.get(f) {
            load[l as usize] += r * share;
        }
        if let Some((p, w)) = paths.uses(f) {
            for &(l, share) in paths.pattern_links(p) {
                load[l as usize] += r * w * share;
            }
        }
    }
    let utilisation = load.iter().zip(&caps).map(|(&x, &c)| if c > 0.0 { (x / c).clamp(0.0, 1.0) } else { 0.0 }).collect();
    Ok(Loads { fabric: fab, utilisation, seed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{ClosSpec, LinkTier};
    use crate::traffic::{Placement, Traffic};
    use crate::Failures;
    use fabricscope_model::units::GBps;

    fn spec(rail_optimized: bool) -> ClosSpec {
        ClosSpec { rail_optimized, ..ClosSpec::two_tier(4, 4, 8, 1, 16, GBps(50.0)) }
    }

    /// Two uplinks down on a 2:1 leaf: its NICs get 14/32 of the line, its surviving uplinks
    /// fill evenly, a failed link carries nothing, every utilisation lies in [0, 1].
    #[test]
    fn loads_follow_the_rates() {
        let fab = Fabric::build(spec(false)).unwrap();
        let o = Options { routing: Routing::Adaptive, placement: Placement::Scattered, failures: Failures { links_down: 2, ..Failures::default() }, ..Options::default() };
        let l = link_loads(&fab, &o, 1).unwrap();
        assert!(l.utilisation.iter().all(|u| (0.0..=1.0).contains(u)));
        let dead: Vec<usize> = (0..l.fabric.links.len()).filter(|&i| !l.fabric.links[i].alive).collect();
        assert_eq!(dead.len(), 4, "two links, both directions");
        assert!(dead.iter().all(|&i| l.utilisation[i] == 0.0));
        // 32 NICs per leaf over 16 uplinks (2:1); leaf 0 keeps 14: its flows get 14/32 of
        // the line, the rest at most 16/32.
        let nic: Vec<f64> = l.fabric.links.iter().zip(&l.utilisation).filter(|(x, _)| x.tier == LinkTier::NicToLeaf).map(|(_, &u)| u).collect();
        assert!(nic.iter().all(|&u| (14.0 / 32.0 - 1e-9..=0.5 + 1e-9).contains(&u)), "{nic:?}");
        assert!(nic.iter().any(|&u| (u - 14.0 / 32.0).abs() < 1e-9));
        // Leaf 0's surviving uplinks split its traffic evenly and are full.
        let up0: Vec<f64> = l.fabric.uplinks[0].iter().filter(|&&x| l.fabric.links[x as usize].alive).map(|&x| l.utilisation[x as usize]).collect();
        assert_eq!(up0.len(), 14);
        assert!(up0.iter().all(|&u| u > 0.999), "{up0:?}");
    }

    /// Under ECMP the sum of the leaf's uplink loads is the traffic leaving the leaf, whatever
    /// the hash did: each flow's rate counted once on its one uplink.
    #[test]
    fn ecmp_loads_conserve_the_traffic_leaving_a_leaf() {
        let fab = Fabric::build(spec(false)).unwrap();
        let o = Options { traffic: Traffic::Ring, routing: Routing::Ecmp, placement: Placement::Scattered, ..Options::default() };
        let l = link_loads(&fab, &o, 3).unwrap();
        let f = &l.fabric;
        let leaf0_nics: Vec<usize> = (0..f.nics() as usize).filter(|&n| f.nic_leaf[n] == 0).collect();
        let sent: f64 = leaf0_nics.iter().map(|&n| l.utilisation[f.nic_up[n] as usize]).sum();
        let up: f64 = f.uplinks[0].iter().map(|&x| l.utilisation[x as usize]).sum();
        // Scattered: every ring neighbour is on another leaf, so all of it goes up.
        assert!((sent - up).abs() < 1e-6, "sent {sent} up {up}");
    }
}
