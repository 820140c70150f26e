//! One solve: demands routed by policy over the (failed) fabric, max-min rates, and what a
//! study reads from them (the job's fraction, collisions, the bottleneck tier).
//!
//! Adaptive routing and spraying solve flow classes ([`crate::classes`]: exact, one flow per
//! class of interchangeable demands). ECMP hashes every connection on its own, so it solves
//! one flow per distinct path of each demand; its rates on an ideal fabric (NIC links only)
//! do not depend on the hash and are solved once per set of demands, by classes.

use crate::classes::Classes;
use crate::graph::{Fabric, LinkTier};
use crate::maxmin::{max_min, max_min_until, Allocation, Incidence, Paths, Uniform};
use crate::early::first_level;
use crate::solved::{cut, each_path, path_key, unpack, Need, Owner, PathKey, Solved, MAX_HOPS};
use crate::rng::{salt, FastMap};
use crate::route::{Router, Routing};
use crate::traffic::{Demand, Traffic};
use fabricscope_model::error::Result;

/// Capacities of `fab`'s links (0 on a failed one).
pub(crate) fn caps(fab: &Fabric) -> Vec<f64> {
    fab.links.iter().map(|l| if l.alive { l.cap.0 } else { 0.0 }).collect()
}

/// The demands' classes, or every demand its own (`per_demand`: the reference the classes are
/// tested against).
fn classes(fab: &Fabric, ds: &[Demand], per_demand: bool) -> Classes {
    if per_demand { Classes::singletons(fab, ds) } else { Classes::find(fab, ds) }
}

/// Each demand's per-connection rate when only NIC links limit (exact, by classes).
pub(crate) fn nic_only_rates(fab: &Fabric, caps: &[f64], ds: &[Demand], per_demand: bool) -> Vec<f64> {
    let cl = classes(fab, ds, per_demand);
    let mut p = Paths::new();
    for c in 0..cl.len() {
        p.push(&cl.nic_links(c, ds[cl.rep[c] as usize].conns));
    }
    let r = max_min(caps, &p).rates;
    cl.of.iter().map(|&c| r[c as usize]).collect()
}

/// Solves `ds` on `fab` under `routing` with hash seed `seed`. `nic_only` is each demand's
/// rate from [`nic_only_rates`] on `fab`, when the caller has it (ECMP reuses it over seeds).
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(fab: &Fabric, router: &mut Router, routing: Routing, seed: u64, ds: &[Demand], nic_only: Option<&[f64]>, per_demand: bool, need: Need) -> Result<Solved> {
    let caps = caps(fab);
    match routing {
        Routing::Ecmp => {
            let own;
            let per_demand = match nic_only {
                Some(r) => r,
                None => {
                    own = nic_only_rates(fab, &caps, ds, per_demand);
                    &own
                }
            };
            ecmp(fab, router, &caps, seed, ds, per_demand, need)
        }
        Routing::Adaptive | Routing::Spray => split(fab, router, &caps, ds, per_demand, need),
    }
}

/// ECMP: one flow per distinct hashed path of each demand's connections (a collective's
/// figures from the filling's first level when that settles them, [`first_level`]).
fn ecmp(fab: &Fabric, router: &mut Router, caps: &[f64], seed: u64, ds: &[Demand], per_demand: &[f64], need: Need) -> Result<Solved> {
    let salt = salt(seed);
    if need != Need::Every {
        if let Some(s) = first_level(fab, router, caps, salt, ds, per_demand, need)? {
            return Ok(s);
        }
    }
    let conns: usize = ds.iter().map(|d| d.conns as usize).sum();
    // Room for one flow per connection crossing NIC, leaf and spine links (two tiers).
    let mut paths = Uniform::with_capacity(conns, conns * 4);
    let mut owner = Vec::with_capacity(conns);
    let mut nic_only = Vec::with_capacity(conns);
    let mut conns_on = vec![0u32; fab.links.len()];
    let mut buf: Vec<u32> = Vec::new();
    let mut hops: Vec<u32> = Vec::new();
    let mut keys: Vec<PathKey> = Vec::new();
    // One flow of `w` connections of demand `i` over `links`.
    let mut push = |paths: &mut Uniform, links: &[u32], w: u32, i: usize| {
        paths.push(links, w as f64);
        for &l in links {
            conns_on[l as usize] += w;
        }
        owner.push(Owner { demand: i, conns: w, members: 1 });
        nic_only.push(per_demand[i]);
    };
    for (i, d) in ds.iter().enumerate() {
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        let ends = [fab.nic_up[d.src as usize], fab.nic_down[d.dst as usize]];
        hops.clear();
        keys.clear();
        for c in 0..d.conns {
            let s = hops.len();
            if !router.ecmp_walk(sl, dl, salt, d.key ^ ((c as u64) << 40), |l| hops.push(l)) {
                return Err(cut());
            }
            if hops.len() - s > MAX_HOPS {
                // A detour longer than a key holds: its own flow, unmerged (merging only saves work).
                buf.clear();
                buf.extend(ends.iter().chain(&hops[s..]));
                push(&mut paths, &buf, 1, i);
                hops.truncate(s);
            } else {
                keys.push(path_key(&hops[s..]));
            }
        }
        each_path(&mut keys, |key, n| {
            buf.clear();
            buf.extend_from_slice(&ends);
            buf.extend(unpack(key));
            push(&mut paths, &buf, n, i);
        });
    }
    let alloc = rates(fab, caps, &paths, ds, &owner, &nic_only, &conns_on, need);
    let ideal = nic_only.iter().fold(f64::INFINITY, |m, &x| m.min(x));
    Ok(Solved { alloc, owner, nic_only, conns_on, ideal })
}

/// Adaptive routing or spraying: one flow per class, its fabric links the leaf pair's even
/// split (stored once per pair and shared), its NIC links its groups' standing links.
fn split(fab: &Fabric, router: &mut Router, caps: &[f64], ds: &[Demand], per_demand: bool, need: Need) -> Result<Solved> {
    let cl = classes(fab, ds, per_demand);
    let mut paths = Paths::new();
    let mut nic_paths = Paths::new();
    let mut owner = Vec::with_capacity(cl.len());
    let mut conns_on = vec![0u32; fab.links.len()];
    // Leaf pair -> (pattern id, connections using it).
    let mut patterns: FastMap<(u32, u32), (u32, u32)> = FastMap::default();
    let mut buf = Vec::new();
    for c in 0..cl.len() {
        let i = cl.rep[c] as usize;
        let d = &ds[i];
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        let pat = match patterns.get(&(sl, dl)) {
            Some(&(p, _)) => p,
            None => {
                buf.clear();
                if !router.split(sl, dl, &mut buf) {
                    return Err(cut());
                }
                let id = paths.pattern(&buf);
                patterns.insert((sl, dl), (id, 0));
                id
            }
        };
        let ends = cl.nic_links(c, d.conns);
        let total = cl.members[c] * d.conns;
        paths.push_with(&ends, pat, total as f64);
        nic_paths.push(&ends);
        let (up, down) = cl.conns_per_nic_link(c, d.conns);
        conns_on[ends[0].0 as usize] += up;
        conns_on[ends[1].0 as usize] += down;
        if let Some(e) = patterns.get_mut(&(sl, dl)) {
            e.1 += total;
        }
        owner.push(Owner { demand: i, conns: d.conns, members: cl.members[c] });
    }
    for &(p, conns) in patterns.values() {
        for &(l, _) in paths.pattern_links(p) {
            conns_on[l as usize] += conns;
        }
    }
    let nic_only = max_min(caps, &nic_paths).rates;
    let alloc = rates(fab, caps, &paths, ds, &owner, &nic_only, &conns_on, need);
    let ideal = nic_only.iter().fold(f64::INFINITY, |m, &x| m.min(x));
    Ok(Solved { alloc, owner, nic_only, conns_on, ideal })
}

/// Max-min rates of `paths`, filled only as far as `need` asks. The slowest connection is the
/// job's first to freeze; a collision is a connection frozen on a shared switch link below its
/// ideal rate, so none can follow once the level passes every ideal rate.
#[allow(clippy::too_many_arguments)]
fn rates(fab: &Fabric, caps: &[f64], paths: &impl Incidence, ds: &[Demand], owner: &[Owner], nic_only: &[f64], conns_on: &[u32], need: Need) -> Allocation {
    if need == Need::Every {
        return max_min(caps, paths);
    }
    let top = nic_only.iter().fold(0.0f64, |m, &x| m.max(x)) * (1.0 - 1e-6);
    // Every flow the job's: the first level to fill freezes one of the job's connections.
    let all_job0 = owner.iter().all(|o| ds[o.demand].job == 0);
    let (mut job0, mut hit) = (false, false);
    max_min_until(caps, paths, |level, now| match now {
        // Before freezing a level at or past every ideal rate: nothing can collide any more,
        // and the job's slowest connection is known (frozen, or exactly this level).
        None => (job0 || all_job0) && (need == Need::Slowest || hit || level >= top),
        Some(now) => {
            for &(f, l) in now {
                let f = f as usize;
                job0 |= ds[owner[f].demand].job == 0;
                hit |= fab.links[l as usize].tier.is_fabric() && conns_on[l as usize] >= 2 && level < nic_only[f] * (1.0 - 1e-6);
            }
            job0 && (need == Need::Slowest || hit || level >= top)
        }
    })
}

/// The job's fraction from one solve: `ideal` is its slowest connection on an ideal fabric.
pub(crate) fn fraction(s: &Solved, ds: &[Demand], traffic: Traffic, ideal: f64, line: f64) -> f64 {
    if traffic.is_collective() {
        // Connections left rising by an early stop run at the floor or faster (`rates`).
        let frozen = s.owner.iter().zip(&s.alloc.rates).filter(|(o, _)| ds[o.demand].job == 0).map(|(_, &r)| r).fold(f64::INFINITY, f64::min);
        let slowest = frozen.min(s.alloc.floor);
        return if slowest.is_finite() && ideal > 0.0 { (slowest / ideal).clamp(0.0, 1.0) } else { 1.0 };
    }
    // Per demand: its rate (summed over its flows) and how many demands it stands for.
    let mut per = vec![(0.0, 0u32); ds.len()];
    for (o, &r) in s.owner.iter().zip(&s.alloc.rates) {
        per[o.demand].0 += r * o.conns as f64;
        per[o.demand].1 = o.members;
    }
    let (mut sum, mut n) = (0.0, 0u64);
    for (d, &(r, m)) in ds.iter().zip(&per) {
        if d.job == 0 {
            sum += m as f64 * (r / line).min(1.0);
            n += m as u64;
        }
    }
    if n == 0 { 1.0 } else { sum / n as f64 }
}

/// Did two or more connections share a switch link that limited them below their ideal rate?
pub(crate) fn collided(fab: &Fabric, s: &Solved) -> bool {
    s.alloc.bottleneck.iter().zip(&s.alloc.rates).zip(&s.nic_only).any(|((&b, &r), &ideal)| {
        b != u32::MAX && fab.links[b as usize].tier.is_fabric() && s.conns_on[b as usize] >= 2 && r < ideal * (1.0 - 1e-6)
    })
}

/// The tier limiting the job's slowest connection (the NIC when it runs at its ideal rate).
pub(crate) fn slowest_tier(fab: &Fabric, s: &Solved, ds: &[Demand]) -> LinkTier {
    let mut best: Option<(f64, u32, f64)> = None;
    for ((o, &r), (&b, &ideal)) in s.owner.iter().zip(&s.alloc.rates).zip(s.alloc.bottleneck.iter().zip(&s.nic_only)) {
        if ds[o.demand].job == 0 && b != u32::MAX && best.is_none_or(|(x, _, _)| r < x * (1.0 - 1e-9)) {
            best = Some((r, b, ideal));
        }
    }
    match best {
        // At its NICs' rate: whatever link froze it first, the NIC is what limits it.
        Some((r, b, ideal)) if r < ideal * (1.0 - 1e-6) => fab.links[b as usize].tier,
        _ => LinkTier::NicToLeaf,
    }
}

/// The slowest connection's rate when only NICs limit (an ideal non-blocking fabric).
pub(crate) fn ideal_slowest(fab: &Fabric, ds: &[Demand], per_demand: bool) -> Option<f64> {
    let caps: Vec<f64> = fab.links.iter().map(|l| l.cap.0).collect();
    let r = nic_only_rates(fab, &caps, ds, per_demand).into_iter().fold(f64::INFINITY, f64::min);
    r.is_finite().then_some(r)
}
