//! Routing a flow from its source leaf to its destination leaf over the live links: only
//! shortest (equal-cost) paths, chosen hop by hop as switches do. ECMP hashes each flow onto
//! one next-hop link at each switch; adaptive routing and packet spraying split it evenly over
//! the next-hop links at each switch (a flow's share of every link on its equal-cost paths).
//! Traffic between NICs on one leaf never leaves it (rail-local when placement allows).

use crate::graph::Fabric;
use crate::rng::{hash_salted, salt, FastMap, FastMod};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How switches spread flows over equal-cost paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Static hashing: each flow (queue pair) sticks to one next hop per switch.
    Ecmp,
    /// Adaptive routing (InfiniBand, Spectrum-X): modelled as an even split over next hops.
    Adaptive,
    /// Per-packet spraying: an even split over next hops, like adaptive.
    Spray,
}

impl Routing {
    pub const ALL: [(&'static str, Routing); 3] = [("ecmp", Routing::Ecmp), ("adaptive", Routing::Adaptive), ("spray", Routing::Spray)];

    pub fn id(self) -> &'static str {
        match self {
            Routing::Ecmp => "ecmp",
            Routing::Adaptive => "adaptive",
            Routing::Spray => "spray",
        }
    }
}

/// Unreachable (a failed tree cut in two).
const FAR: u16 = u16::MAX;

/// Shortest-path distances to each destination leaf, computed once per leaf, and even splits
/// per leaf pair, computed once per pair.
pub struct Router<'a> {
    fab: &'a Fabric,
    dist: HashMap<u32, Vec<u16>>,
    splits: HashMap<(u32, u32), Vec<(u32, f64)>>,
    /// Per switch: its slot in the next frontier, or `u32::MAX` (kept clear between uses).
    scratch: Vec<u32>,
    /// (switch, destination leaf) -> its next-hop links, a range of `hop_links`.
    hops: FastMap<u64, (u32, u32)>,
    hop_links: Vec<u32>,
    /// Per switch: (destination leaf, start, count) of its last looked-up next hops, so the
    /// connections of one demand (one destination) skip the map.
    memo: Vec<(u32, u32, u32)>,
    /// (switch x switch) -> next hops (start, count), `(u32::MAX, 0)` until looked up: a
    /// dense table replacing the map on fabrics of up to [`DENSE`] switch pairs, where the
    /// hashed connections of an all-to-all change destination leaf from one demand to the next.
    dense: Vec<(u32, u32)>,
    /// Remainder by `n` for every next-hop count `n` a switch can have (its out-degree).
    mods: Vec<FastMod>,
}

/// Most switch pairs the dense next-hop table holds (count; 8 bytes each, so 8 MB; a 1,024-GPU
/// two-tier tree has about 100 switches, 10,000 pairs).
const DENSE: usize = 1 << 20;

impl<'a> Router<'a> {
    pub fn new(fab: &'a Fabric) -> Self {
        Router { fab, dist: HashMap::new(), splits: HashMap::new(), scratch: vec![u32::MAX; fab.switches.len()], hops: FastMap::default(), hop_links: Vec::new(), memo: vec![(u32::MAX, 0, 0); fab.switches.len()], dense: Vec::new(), mods: (0..=fab.out.iter().map(Vec::len).max().unwrap_or(0)).map(|n| FastMod::new(n as u32)).collect() }
    }

    /// Hops from every switch to `leaf` over live links (reverse breadth-first search).
    fn dist_to<'m>(fab: &Fabric, dist: &'m mut HashMap<u32, Vec<u16>>, leaf: u32) -> &'m Vec<u16> {
        dist.entry(leaf).or_insert_with(|| {
            let mut d = vec![FAR; fab.switches.len()];
            d[leaf as usize] = 0;
            let mut queue = vec![leaf];
            let mut head = 0;
            while head < queue.len() {
                let x = queue[head];
                head += 1;
                for &l in &fab.inn[x as usize] {
                    let link = &fab.links[l as usize];
                    if link.alive && d[link.from as usize] == FAR {
                        d[link.from as usize] = d[x as usize] + 1;
                        queue.push(link.from);
                    }
                }
            }
            d
        })
    }

    /// Next-hop links from `x` one hop closer to the leaf whose distances are `d`.
    fn next_hops<'b>(fab: &'b Fabric, d: &'b [u16], x: u32) -> impl Iterator<Item = u32> + 'b {
        let want = d[x as usize].wrapping_sub(1);
        fab.out[x as usize].iter().copied().filter(move |&l| {
            let link = &fab.links[l as usize];
            link.alive && d[link.to as usize] == want
        })
    }

    /// The next-hop links from `x` towards leaf `dst` (none when `x` cannot reach it), found
    /// once per (switch, leaf) and kept: (start, count) in `hop_links`.
    #[inline]
    fn hop_range(&mut self, x: u32, dst: u32) -> (u32, u32) {
        let at = x as usize * self.fab.switches.len() + dst as usize;
        match self.dense.get(at) {
            Some(&r) if r.0 != u32::MAX => r,
            _ => self.hop_range_slow(x, dst),
        }
    }

    /// [`Self::hop_range`] when the dense table does not have it (yet, or at all).
    #[inline(never)]
    fn hop_range_slow(&mut self, x: u32, dst: u32) -> (u32, u32) {
        let ns = self.fab.switches.len();
        if ns * ns <= DENSE {
            if self.dense.is_empty() {
                self.dense = vec![(u32::MAX, 0); ns * ns];
            }
            let r = self.hop_range_kept(x, dst);
            self.dense[x as usize * ns + dst as usize] = r;
            return r;
        }
        let m = self.memo[x as usize];
        if m.0 == dst {
            return (m.1, m.2);
        }
        let r = self.hop_range_kept(x, dst);
        self.memo[x as usize] = (dst, r.0, r.1);
        r
    }

    fn hop_range_kept(&mut self, x: u32, dst: u32) -> (u32, u32) {
        let key = (x as u64) << 32 | dst as u64;
        match self.hops.get(&key) {
            Some(&r) => r,
            None => {
                let fab = self.fab;
                let d = Self::dist_to(fab, &mut self.dist, dst);
                let s = self.hop_links.len() as u32;
                if d[x as usize] != FAR {
                    self.hop_links.extend(Self::next_hops(fab, d, x));
                }
                let r = (s, self.hop_links.len() as u32 - s);
                self.hops.insert(key, r);
                r
            }
        }
    }

    /// One hashed path from leaf `src` to leaf `dst`, link by link, appended to `out`. False
    /// when the leaves are not connected.
    pub fn ecmp_links(&mut self, src: u32, dst: u32, seed: u64, flow: u64, out: &mut Vec<u32>) -> bool {
        self.ecmp_walk(src, dst, salt(seed), flow, |l| out.push(l))
    }

    /// [`Self::ecmp_links`] with the seed's [`salt`] computed once by the caller, calling `f`
    /// on each link instead of storing it: the same draws (a switch with one next hop draws
    /// nothing, as any hash modulo 1 picks it).
    #[inline]
    pub fn ecmp_walk(&mut self, src: u32, dst: u32, salt: u64, flow: u64, mut f: impl FnMut(u32)) -> bool {
        let mut x = src;
        while x != dst {
            let (s, n) = self.hop_range(x, dst);
            let l = match n {
                0 => return false,
                1 => self.hop_links[s as usize],
                _ => self.hop_links[(s as u64 + self.mods[n as usize].of(hash_salted(salt, flow, x as u64))) as usize],
            };
            f(l);
            x = self.fab.links[l as usize].to;
        }
        true
    }

    /// One hashed path, link by link, appended to `out` (each with share 1). False when the
    /// leaves are not connected.
    pub fn ecmp(&mut self, src: u32, dst: u32, seed: u64, flow: u64, out: &mut Vec<(u32, f64)>) -> bool {
        let mut links = Vec::with_capacity(4);
        let ok = self.ecmp_links(src, dst, seed, flow, &mut links);
        out.extend(links.into_iter().map(|l| (l, 1.0)));
        ok
    }

    /// The even split of one flow over every equal-cost path, appended to `out` as (link,
    /// share of the flow). False when the leaves are not connected.
    pub fn split(&mut self, src: u32, dst: u32, out: &mut Vec<(u32, f64)>) -> bool {
        if let Some(s) = self.splits.get(&(src, dst)) {
            out.extend_from_slice(s);
            return !s.is_empty() || src == dst;
        }
        let fab = self.fab;
        let mut shares = Vec::new();
        let mut frontier: Vec<(u32, f64)> = vec![(src, 1.0)];
        let mut next: Vec<(u32, f64)> = Vec::new();
        while frontier.first().is_some_and(|&(x, _)| x != dst) {
            next.clear();
            for &(x, w) in &frontier {
                let (s, n) = self.hop_range(x, dst);
                let each = w / n.max(1) as f64;
                for &l in &self.hop_links[s as usize..(s + n) as usize] {
                    shares.push((l, each));
                    let to = fab.links[l as usize].to;
                    let slot = self.scratch[to as usize];
                    if slot == u32::MAX {
                        self.scratch[to as usize] = next.len() as u32;
                        next.push((to, each));
                    } else {
                        next[slot as usize].1 += each;
                    }
                }
            }
            for &(x, _) in &next {
                self.scratch[x as usize] = u32::MAX;
            }
            std::mem::swap(&mut frontier, &mut next);
        }
        let ok = !shares.is_empty() || src == dst;
        out.extend_from_slice(&shares);
        self.splits.insert((src, dst), shares);
        ok
    }
}
