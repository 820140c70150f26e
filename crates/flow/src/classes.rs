//! Flow classes: demands that max-min fairness cannot tell apart, solved once with their
//! count (an all-to-all over 1,024 GPUs is 130,000 demands but 1,024 classes).
//!
//! Exactness. Partition the demands into classes and the NIC links into groups so that
//! (1) every demand of a class has the same job, connections, source leaf and destination
//! leaf (so the same even split over the fabric), its NIC-to-leaf link in one group and its
//! leaf-to-NIC link in one group; (2) the links of a group have one capacity and each carries
//! the same number of each class's demands (an equitable partition). Progressive filling then
//! keeps every member of a class at one rate: by induction over levels, equal rates load a
//! group's links equally, so they fill at the same level and freeze whole classes. One flow per
//! class, whose NIC links are its groups' first links carrying the class's load divided by the
//! group's size, therefore gets that common rate exactly (the rates, not an approximation).
//!
//! Checked, not assumed: groups start as (direction, leaf, capacity) and are refined by the
//! classes each link carries (colour refinement) until the counts check holds; if it does not
//! within [`ROUNDS`], every demand is its own class (the per-demand problem).

use crate::graph::Fabric;
use crate::rng::{mix, FastMap};
use crate::traffic::Demand;

/// Refinement rounds before giving up on aggregation (count; symmetric traffic needs one,
/// a random permutation a few).
const ROUNDS: u32 = 12;

/// The classes of some demands and the NIC link groups they cross.
#[derive(Clone, Debug, PartialEq)]
pub struct Classes {
    /// Per demand: its class.
    pub of: Vec<u32>,
    /// Per class: its first demand.
    pub rep: Vec<u32>,
    /// Per class: how many demands it stands for.
    pub members: Vec<u32>,
    /// Per class: the NIC-to-leaf link standing for its source group, and the group's size.
    pub src: Vec<(u32, u32)>,
    /// Per class: the leaf-to-NIC link standing for its destination group, and its size.
    pub dst: Vec<(u32, u32)>,
}

impl Classes {
    pub fn len(&self) -> usize {
        self.rep.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rep.is_empty()
    }

    /// Class `c`'s NIC links as one flow of `conns` connections per demand: each group's
    /// standing link with the share of one of its links.
    pub fn nic_links(&self, c: usize, conns: u32) -> [(u32, f64); 2] {
        let n = self.members[c] as f64 * conns as f64;
        [(self.src[c].0, n / self.src[c].1 as f64), (self.dst[c].0, n / self.dst[c].1 as f64)]
    }

    /// Connections class `c` puts on each link of its source (and destination) group.
    pub fn conns_per_nic_link(&self, c: usize, conns: u32) -> (u32, u32) {
        (self.members[c] / self.src[c].1 * conns, self.members[c] / self.dst[c].1 * conns)
    }

    /// Every demand its own class (always exact).
    pub fn singletons(fab: &Fabric, ds: &[Demand]) -> Classes {
        Classes {
            of: (0..ds.len() as u32).collect(),
            rep: (0..ds.len() as u32).collect(),
            members: vec![1; ds.len()],
            src: ds.iter().map(|d| (fab.nic_up[d.src as usize], 1)).collect(),
            dst: ds.iter().map(|d| (fab.nic_down[d.dst as usize], 1)).collect(),
        }
    }

    /// The coarsest classes the refinement finds that pass the counts check.
    pub fn find(fab: &Fabric, ds: &[Demand]) -> Classes {
        let nics = fab.nics() as usize;
        // Slot of a NIC link: n for NIC n's uplink, nics + n for its downlink.
        let link_of = |slot: usize| if slot < nics { fab.nic_up[slot] } else { fab.nic_down[slot - nics] };
        let mut colour = vec![0u32; 2 * nics];
        let mut first: FastMap<(u64, u64), u32> = FastMap::default();
        for (slot, c) in colour.iter_mut().enumerate() {
            let link = &fab.links[link_of(slot) as usize];
            let leaf = if slot < nics { link.to } else { link.from };
            let key = (((slot >= nics) as u64) << 32 | leaf as u64, link.cap.0.to_bits() ^ (link.alive as u64));
            let next = first.len() as u32;
            *c = *first.entry(key).or_insert(next);
        }
        let mut colours = first.len();
        for _ in 0..ROUNDS {
            let (of, count) = assign(ds, &colour, nics);
            let order = by_class(&of, count);
            let of = match check(ds, of, &order, count, &colour, nics, link_of) {
                Ok(c) => return c,
                Err(of) => of,
            };
            // Refine: a link's new colour is its old one and the multiset of classes it carries.
            let mut sig = vec![0u64; 2 * nics];
            for (d, &c) in ds.iter().zip(&of) {
                let h = mix(c as u64 + 1);
                sig[d.src as usize] = sig[d.src as usize].wrapping_add(h);
                sig[nics + d.dst as usize] = sig[nics + d.dst as usize].wrapping_add(h);
            }
            let mut next: FastMap<(u64, u64), u32> = FastMap::default();
            for (slot, c) in colour.iter_mut().enumerate() {
                let n = next.len() as u32;
                *c = *next.entry((*c as u64, sig[slot])).or_insert(n);
            }
            if next.len() == colours {
                break;
            }
            colours = next.len();
        }
        Classes::singletons(fab, ds)
    }
}

/// Each demand's class: (job, connections, source link colour, destination link colour).
fn assign(ds: &[Demand], colour: &[u32], nics: usize) -> (Vec<u32>, usize) {
    let mut ids: FastMap<(u64, u64), u32> = FastMap::default();
    let mut of = Vec::with_capacity(ds.len());
    let mut last: Option<((u64, u64), u32)> = None;
    for d in ds {
        let key = ((d.job as u64) << 32 | d.conns as u64, (colour[d.src as usize] as u64) << 32 | colour[nics + d.dst as usize] as u64);
        let c = match last {
            Some((k, c)) if k == key => c,
            _ => {
                let n = ids.len() as u32;
                *ids.entry(key).or_insert(n)
            }
        };
        last = Some((key, c));
        of.push(c);
    }
    (of, ids.len())
}

/// Demand indices sorted by class (counting sort), as `count + 1` offsets then indices.
fn by_class(of: &[u32], count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; count + 1];
    for &c in of {
        start[c as usize + 1] += 1;
    }
    for i in 0..count {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut idx = vec![0u32; of.len()];
    for (d, &c) in of.iter().enumerate() {
        idx[fill[c as usize] as usize] = d as u32;
        fill[c as usize] += 1;
    }
    (start, idx)
}

/// The counts check: every link of a class's source (destination) group carries the same
/// number of its demands. Returns the classes when it holds (and `of` back when it does not).
fn check(ds: &[Demand], of: Vec<u32>, order: &(Vec<u32>, Vec<u32>), count: usize, colour: &[u32], nics: usize, link_of: impl Fn(usize) -> u32) -> Result<Classes, Vec<u32>> {
    let mut size = vec![0u32; colour.iter().max().map_or(0, |&m| m as usize + 1)];
    let mut standing = vec![u32::MAX; size.len()];
    for (slot, &c) in colour.iter().enumerate() {
        size[c as usize] += 1;
        if standing[c as usize] == u32::MAX {
            standing[c as usize] = link_of(slot);
        }
    }
    let (start, idx) = order;
    // Each demand's two link slots, in class order (read three times each below).
    let (src, dst): (Vec<u32>, Vec<u32>) = ds.iter().map(|d| (d.src, nics as u32 + d.dst)).unzip();
    let slots: [Vec<u32>; 2] = [idx.iter().map(|&d| src[d as usize]).collect(), idx.iter().map(|&d| dst[d as usize]).collect()];
    let mut cnt = vec![0u32; 2 * nics];
    let mut out = Classes { of: Vec::new(), rep: Vec::with_capacity(count), members: Vec::with_capacity(count), src: Vec::new(), dst: Vec::new() };
    for c in 0..count {
        let range = start[c] as usize..start[c + 1] as usize;
        let n = range.len() as u32;
        let mut group = [(0, 0); 2];
        for (end, slots) in slots.iter().enumerate() {
            let m = &slots[range.clone()];
            let g = colour[m[0] as usize] as usize;
            if !n.is_multiple_of(size[g]) {
                return Err(of);
            }
            let each = n / size[g];
            for &x in m {
                cnt[x as usize] += 1;
            }
            let ok = m.iter().all(|&x| cnt[x as usize] == each);
            for &x in m {
                cnt[x as usize] = 0;
            }
            if !ok {
                return Err(of);
            }
            group[end] = (standing[g], size[g]);
        }
        out.rep.push(idx[range.start]);
        out.members.push(n);
        out.src.push(group[0]);
        out.dst.push(group[1]);
    }
    out.of = of;
    Ok(out)
}
