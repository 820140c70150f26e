//! Max-min fair rates on directed links by progressive filling (water-filling): every
//! unfrozen flow's rate rises together until a link fills; the flows crossing it freeze at
//! that rate (it is their bottleneck), and the rest keep rising (Bertsekas and Gallager,
//! "Data Networks", 2nd ed., section 6.5.2). A flow may cross a link with a share below 1
//! (an even split over equal-cost paths); the link then carries that share of its rate.
//!
//! Flows between one pair of leaves split identically over the fabric, so a split is stored
//! once as a shared pattern and each flow refers to it with its weight: an all-to-all over
//! 1,024 GPUs is 130,000 flows but only 1,024 patterns, and a link's load from patterns is
//! updated once per pattern per step, not once per flow.

/// The links of every flow: its own (link, share) list, and optionally a shared pattern
/// crossed with a weight.
#[derive(Clone, Debug)]
pub struct Paths {
    start: Vec<u32>,
    entries: Vec<(u32, f64)>,
    /// Per flow: (pattern, weight), or `None`.
    uses: Vec<Option<(u32, f64)>>,
    pat_start: Vec<u32>,
    pat_entries: Vec<(u32, f64)>,
}

impl Default for Paths {
    fn default() -> Self {
        Self::new()
    }
}

impl Paths {
    pub fn new() -> Self {
        Paths { start: vec![0], entries: Vec::new(), uses: Vec::new(), pat_start: vec![0], pat_entries: Vec::new() }
    }

    /// Adds one flow crossing `links`; returns its index.
    pub fn push(&mut self, links: &[(u32, f64)]) -> usize {
        self.entries.extend_from_slice(links);
        self.start.push(self.entries.len() as u32);
        self.uses.push(None);
        self.start.len() - 2
    }

    /// Adds a flow crossing `links` and, `weight` times, the pattern `pattern`.
    pub fn push_with(&mut self, links: &[(u32, f64)], pattern: u32, weight: f64) -> usize {
        let f = self.push(links);
        self.uses[f] = Some((pattern, weight));
        f
    }

    /// Stores a shared (link, share) pattern; returns its id.
    pub fn pattern(&mut self, links: &[(u32, f64)]) -> u32 {
        self.pat_entries.extend_from_slice(links);
        self.pat_start.push(self.pat_entries.len() as u32);
        self.pat_start.len() as u32 - 2
    }

    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A flow's own links.
    pub fn get(&self, f: usize) -> &[(u32, f64)] {
        &self.entries[self.start[f] as usize..self.start[f + 1] as usize]
    }

    /// A flow's pattern and weight.
    pub fn uses(&self, f: usize) -> Option<(u32, f64)> {
        self.uses[f]
    }

    pub fn patterns(&self) -> usize {
        self.pat_start.len() - 1
    }

    pub fn pattern_links(&self, p: u32) -> &[(u32, f64)] {
        &self.pat_entries[self.pat_start[p as usize] as usize..self.pat_start[p as usize + 1] as usize]
    }
}

/// What progressive filling reads of a set of flows: each flow's own (link, share) list and
/// the shared pattern it crosses, if any.
pub trait Incidence {
    fn flows(&self) -> usize;
    fn patterns(&self) -> usize;
    /// Calls `g(link, share)` for each of flow `f`'s own links.
    fn each_link(&self, f: usize, g: impl FnMut(u32, f64));
    fn pattern_of(&self, f: usize) -> Option<(u32, f64)>;
    fn pattern_entries(&self, p: u32) -> &[(u32, f64)];
}

impl Incidence for Paths {
    fn flows(&self) -> usize {
        self.len()
    }
    fn patterns(&self) -> usize {
        Paths::patterns(self)
    }
    fn each_link(&self, f: usize, mut g: impl FnMut(u32, f64)) {
        for &(l, s) in self.get(f) {
            g(l, s);
        }
    }
    fn pattern_of(&self, f: usize) -> Option<(u32, f64)> {
        self.uses(f)
    }
    fn pattern_entries(&self, p: u32) -> &[(u32, f64)] {
        self.pattern_links(p)
    }
}

/// Flows that load every link they cross by one weight (ECMP's hashed paths, each standing
/// for its connections): link ids only, about a third of [`Paths`]' memory per flow, which is
/// what a million hashed connections are bound by.
#[derive(Clone, Debug, Default)]
pub struct Uniform {
    start: Vec<u32>,
    links: Vec<u32>,
    weight: Vec<f64>,
}

impl Uniform {
    /// Room for `flows` flows crossing `links` links in all.
    pub fn with_capacity(flows: usize, links: usize) -> Self {
        let mut start = Vec::with_capacity(flows + 1);
        start.push(0);
        Uniform { start, links: Vec::with_capacity(links), weight: Vec::with_capacity(flows) }
    }

    /// Adds a flow crossing `links`, loading each by `weight`; returns its index.
    pub fn push(&mut self, links: &[u32], weight: f64) -> usize {
        self.links.extend_from_slice(links);
        self.start.push(self.links.len() as u32);
        self.weight.push(weight);
        self.weight.len() - 1
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// A flow's links.
    pub fn links(&self, f: usize) -> &[u32] {
        if self.start.is_empty() {
            return &[];
        }
        &self.links[self.start[f] as usize..self.start[f + 1] as usize]
    }
}

impl Incidence for Uniform {
    fn flows(&self) -> usize {
        self.len()
    }
    fn patterns(&self) -> usize {
        0
    }
    fn each_link(&self, f: usize, mut g: impl FnMut(u32, f64)) {
        let w = self.weight[f];
        for &l in self.links(f) {
            g(l, w);
        }
    }
    fn pattern_of(&self, _: usize) -> Option<(u32, f64)> {
        None
    }
    fn pattern_entries(&self, _: u32) -> &[(u32, f64)] {
        &[]
    }
}

/// Each flow's max-min fair rate (in the capacities' unit) and the link that froze it.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub rates: Vec<f64>,
    /// The link that limited each flow (`u32::MAX` for a flow crossing no link).
    pub bottleneck: Vec<u32>,
    /// When the filling stopped early: the level it stopped at (the flows left rising, rate
    /// `f64::INFINITY`, have at least this rate, and some have exactly this); else infinite.
    pub floor: f64,
}

/// Levels solved by scanning the unfrozen flows before indexing flows by link (count): a scan
/// reads every flow's links once, the index about three times as much.
const SCANS: u32 = 2;

/// Full links at one level above which the index is built rather than a scan's pairs sorted
/// (count; a scan's pairs are sorted, which costs more than indexing once they are many).
const SCAN_LINKS: usize = 64;

/// A link counts as full within this fraction of its capacity (dimensionless; float slack
/// for sums of split shares, far below any effect the model reports).
pub(crate) const FULL: f64 = 1e-9;

/// Compressed incidence: for each of `n` rows, the items listed with it.
fn csr(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (r, _) in pairs.clone() {
        start[r as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; start[n] as usize];
    for (r, x) in pairs {
        items[fill[r as usize] as usize] = x;
        fill[r as usize] += 1;
    }
    (start, items)
}

/// A link's level at which it fills, ordered for a min-heap (ties: lower link id first).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fill {
    level: f64,
    link: u32,
}

impl Eq for Fill {}

impl Ord for Fill {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Reversed: `BinaryHeap` is a max-heap.
        o.level.total_cmp(&self.level).then(o.link.cmp(&self.link))
    }
}

impl PartialOrd for Fill {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// Per-link state of the filling: unfrozen load, residual capacity as of `at`.
struct Links<'c> {
    caps: &'c [f64],
    load: Vec<f64>,
    resid: Vec<f64>,
    at: Vec<f64>,
    active: Vec<u32>,
}

impl Links<'_> {
    /// Brings link `l`'s residual to `level` and takes `s` off its load.
    fn unload(&mut self, l: u32, s: f64, level: f64, gone: bool) {
        let li = l as usize;
        self.resid[li] -= self.load[li] * (level - self.at[li]);
        self.at[li] = level;
        // Float residue of shares removed: a load is never below zero.
        self.load[li] = (self.load[li] - s).max(0.0);
        if gone {
            self.active[li] -= 1;
        }
    }

    /// The level at which `l` fills, if it still carries load.
    fn fill(&self, l: u32) -> Option<Fill> {
        let li = l as usize;
        (self.active[li] > 0 && self.load[li] > 0.0).then(|| Fill { level: self.at[li] + self.resid[li].max(0.0) / self.load[li], link: l })
    }

    /// Is `l` full at `level` (within [`FULL`] of its capacity)?
    fn full_at(&self, l: u32, level: f64) -> bool {
        let li = l as usize;
        self.resid[li] - self.load[li] * (level - self.at[li]) <= FULL * self.caps[li].max(1e-300)
    }
}

/// The next heap entry that is current, re-filing stale ones. Freezing flows only lowers
/// loads, so a link's filling level only rises: an entry is at or below its link's true level,
/// and one found stale at the top is pushed again at its true level (lazy increase-key).
fn current(heap: &mut std::collections::BinaryHeap<Fill>, st: &Links) -> Option<Fill> {
    while let Some(&top) = heap.peek() {
        match st.fill(top.link) {
            None => {
                heap.pop();
            }
            Some(now) if now.level > top.level => {
                heap.pop();
                heap.push(now);
            }
            Some(_) => return Some(top),
        }
    }
    None
}

/// Link -> flows crossing it by their own links, compressed.
fn link_flows(nl: usize, paths: &impl Incidence) -> (Vec<u32>, Vec<u32>) {
    let n = paths.flows();
    let mut start = vec![0u32; nl + 1];
    for f in 0..n {
        paths.each_link(f, |l, _| start[l as usize + 1] += 1);
    }
    for i in 0..nl {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; start[nl] as usize];
    for f in 0..n {
        paths.each_link(f, |l, _| {
            items[fill[l as usize] as usize] = f as u32;
            fill[l as usize] += 1;
        });
    }
    (start, items)
}

/// Progressive filling over links of capacities `caps`.
pub fn max_min(caps: &[f64], paths: &impl Incidence) -> Allocation {
    max_min_until(caps, paths, |_, _| false)
}

/// Sets the flows still rising to `f64::INFINITY` when the filling stops at `level`.
fn stopped(rates: &mut [f64], frozen: &[bool], level: f64) -> f64 {
    for (r, &f) in rates.iter_mut().zip(frozen) {
        if !f {
            *r = f64::INFINITY;
        }
    }
    level
}

/// Progressive filling that stops once `stop(level, frozen)` says so, called before each
/// level is frozen (`None`) and after it with the flows that froze there and their bottleneck
/// links. Flows still rising when it stops keep rate `f64::INFINITY` and no bottleneck
/// (`u32::MAX`): their rates are at least [`Allocation::floor`]. [`max_min`] never stops.
///
/// Event-driven: each link's filling level sits in a min-heap; the next level is the heap's
/// top, and only the links of flows that froze are updated (no rescan of every link per
/// level). Links that fill at one level (within [`FULL`] of capacity) freeze together, in link
/// order, so a flow's bottleneck is the lowest-numbered link among those that filled when it
/// froze. Cost: O(entries + heap operations x log links) against the rescan's
/// O(levels x links).
pub fn max_min_until(caps: &[f64], paths: &impl Incidence, mut stop: impl FnMut(f64, Option<&[(u32, u32)]>) -> bool) -> Allocation {
    let n = paths.flows();
    let nl = caps.len();
    let np = paths.patterns();
    // Link -> flows (own links), built once more than SCANS levels are needed; and link ->
    // patterns.
    let mut own: Option<(Vec<u32>, Vec<u32>)> = None;
    let mut scans = 0;
    let mut is_full = vec![false; nl];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let pats = (0..np as u32).flat_map(|p| paths.pattern_entries(p).iter().map(move |&(l, _)| (l, p)));
    let (pat_start, pat_of_link) = csr(nl, pats);
    let (pf_start, pat_flows) = csr(np, (0..n).filter_map(|f| paths.pattern_of(f).map(|(p, _)| (p, f as u32))));
    // Unfrozen weight and flows per pattern.
    let mut w_pat = vec![0.0f64; np];
    let mut n_pat = vec![0u32; np];
    let mut st = Links { caps, load: vec![0.0; nl], resid: caps.to_vec(), at: vec![0.0; nl], active: vec![0; nl] };
    for f in 0..n {
        paths.each_link(f, |l, s| {
            st.load[l as usize] += s;
            st.active[l as usize] += 1;
        });
        if let Some((p, w)) = paths.pattern_of(f) {
            w_pat[p as usize] += w;
            n_pat[p as usize] += 1;
        }
    }
    for p in 0..np {
        if n_pat[p] > 0 {
            for &(l, s) in paths.pattern_entries(p as u32) {
                st.load[l as usize] += s * w_pat[p];
                st.active[l as usize] += 1;
            }
        }
    }
    let mut heap: std::collections::BinaryHeap<Fill> = (0..nl as u32).filter_map(|l| st.fill(l)).collect();
    let mut rates = vec![0.0; n];
    let mut bottleneck = vec![u32::MAX; n];
    let mut frozen = vec![false; n];
    let mut dw = vec![0.0f64; np];
    let mut dirty_pats: Vec<u32> = Vec::new();
    let mut full: Vec<u32> = Vec::new();
    let mut hit: Vec<(u32, u32)> = Vec::new();
    let mut now: Vec<(u32, u32)> = Vec::new();
    let mut floor = f64::INFINITY;
    while let Some(top) = current(&mut heap, &st) {
        let level = top.level;
        if stop(level, None) {
            floor = stopped(&mut rates, &frozen, level);
            break;
        }
        // Every link full at this level fills now (float slack: within FULL of capacity).
        full.clear();
        while let Some(next) = current(&mut heap, &st) {
            if !full.is_empty() && !st.full_at(next.link, level) {
                break;
            }
            full.push(next.link);
            heap.pop();
        }
        full.sort_unstable();
        // The unfrozen flows crossing a full link, by own links or by pattern: (link, flow)
        // pairs of own links from the index, or from a scan of the unfrozen flows while few
        // levels have been needed (an early stop then never pays for the index).
        // Many links full at once (a symmetric job's NICs) freeze most flows: index them.
        if own.is_none() && (scans == SCANS || full.len() > SCAN_LINKS) {
            own = Some(link_flows(nl, paths));
        }
        pairs.clear();
        if let Some((own_start, own_flows)) = &own {
            for &l in &full {
                let li = l as usize;
                pairs.extend(own_flows[own_start[li] as usize..own_start[li + 1] as usize].iter().map(|&f| (l, f)));
            }
        } else {
            scans += 1;
            for &l in &full {
                is_full[l as usize] = true;
            }
            for f in (0..n).filter(|&f| !frozen[f]) {
                paths.each_link(f, |l, _| {
                    if is_full[l as usize] {
                        pairs.push((l, f as u32));
                    }
                });
            }
            for &l in &full {
                is_full[l as usize] = false;
            }
            pairs.sort_unstable();
        }
        hit.clear();
        let mut at = 0;
        for &l in &full {
            while at < pairs.len() && pairs[at].0 == l {
                hit.push((pairs[at].1, l));
                at += 1;
            }
            let li = l as usize;
            for &p in &pat_of_link[pat_start[li] as usize..pat_start[li + 1] as usize] {
                if n_pat[p as usize] > 0 {
                    hit.extend(pat_flows[pf_start[p as usize] as usize..pf_start[p as usize + 1] as usize].iter().map(|&f| (f, l)));
                }
            }
        }
        now.clear();
        for &(f, l) in &hit {
            let f = f as usize;
            if frozen[f] {
                continue;
            }
            now.push((f as u32, l));
            frozen[f] = true;
            rates[f] = level;
            bottleneck[f] = l;
            paths.each_link(f, |l2, s| st.unload(l2, s, level, true));
            if let Some((p, w)) = paths.pattern_of(f) {
                if dw[p as usize] == 0.0 {
                    dirty_pats.push(p);
                }
                dw[p as usize] += w;
                n_pat[p as usize] -= 1;
            }
        }
        // Patterns whose flows froze: their links lose that weight, once per pattern.
        for p in dirty_pats.drain(..) {
            let pi = p as usize;
            let gone = n_pat[pi] == 0;
            for &(l, s) in paths.pattern_entries(p) {
                st.unload(l, s * dw[pi], level, gone);
            }
            w_pat[pi] -= dw[pi];
            dw[pi] = 0.0;
        }
        if stop(level, Some(&now)) {
            floor = stopped(&mut rates, &frozen, level);
            break;
        }
    }
    Allocation { rates, bottleneck, floor }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The filling as first written (every live link rescanned at every level): the reference
        /// the event-driven filling must match.
    fn rescan(caps: &[f64], paths: &Paths) -> Allocation {
        let n = paths.len();
        let nl = caps.len();
        let np = paths.patterns();
        // Link -> flows (own links) and link -> patterns.
        let own = (0..n).flat_map(|f| paths.get(f).iter().map(move |&(l, _)| (l, f as u32)));
        let (own_start, own_flows) = csr(nl, own);
        let pats = (0..np as u32).flat_map(|p| paths.pattern_links(p).iter().map(move |&(l, _)| (l, p)));
        let (pat_start, pat_of_link) = csr(nl, pats);
        let (pf_start, pat_flows) = csr(np, (0..n).filter_map(|f| paths.uses(f).map(|(p, _)| (p, f as u32))));
        // Unfrozen weight and flows per pattern.
        let mut w_pat = vec![0.0f64; np];
        let mut n_pat = vec![0u32; np];
        let mut load = vec![0.0f64; nl];
        let mut active_on = vec![0u32; nl];
        for f in 0..n {
            for &(l, s) in paths.get(f) {
                load[l as usize] += s;
                active_on[l as usize] += 1;
            }
            if let Some((p, w)) = paths.uses(f) {
                w_pat[p as usize] += w;
                n_pat[p as usize] += 1;
            }
        }
        for p in 0..np {
            if n_pat[p] > 0 {
                for &(l, s) in paths.pattern_links(p as u32) {
                    load[l as usize] += s * w_pat[p];
                    active_on[l as usize] += 1;
                }
            }
        }
        let mut rates = vec![0.0; n];
        let mut bottleneck = vec![u32::MAX; n];
        let mut frozen = vec![false; n];
        let mut resid: Vec<f64> = caps.to_vec();
        let mut live: Vec<u32> = (0..nl as u32).filter(|&l| active_on[l as usize] > 0).collect();
        let mut dw = vec![0.0f64; np];
        let mut dirty: Vec<u32> = Vec::new();
        let mut level = 0.0;
        while !live.is_empty() {
            let mut delta = f64::INFINITY;
            for &l in &live {
                let l = l as usize;
                if load[l] > 0.0 {
                    delta = delta.min(resid[l].max(0.0) / load[l]);
                }
            }
            if !delta.is_finite() {
                break;
            }
            level += delta;
            let mut full = Vec::new();
            for &l in &live {
                let li = l as usize;
                resid[li] -= load[li] * delta;
                if resid[li] <= FULL * caps[li].max(1e-300) {
                    full.push(l);
                }
            }
            // The unfrozen flows crossing a full link, by own links or by pattern.
            let mut hit: Vec<(u32, u32)> = Vec::new();
            for &l in &full {
                let li = l as usize;
                for &f in &own_flows[own_start[li] as usize..own_start[li + 1] as usize] {
                    hit.push((f, l));
                }
                for &p in &pat_of_link[pat_start[li] as usize..pat_start[li + 1] as usize] {
                    if n_pat[p as usize] > 0 {
                        hit.extend(pat_flows[pf_start[p as usize] as usize..pf_start[p as usize + 1] as usize].iter().map(|&f| (f, l)));
                    }
                }
            }
            for (f, l) in hit {
                let f = f as usize;
                if frozen[f] {
                    continue;
                }
                frozen[f] = true;
                rates[f] = level;
                bottleneck[f] = l;
                for &(l2, s) in paths.get(f) {
                    load[l2 as usize] -= s;
                    active_on[l2 as usize] -= 1;
                }
                if let Some((p, w)) = paths.uses(f) {
                    if dw[p as usize] == 0.0 {
                        dirty.push(p);
                    }
                    dw[p as usize] += w;
                    n_pat[p as usize] -= 1;
                }
            }
            // Patterns whose flows froze: their links lose that weight, once per pattern.
            for p in dirty.drain(..) {
                let pi = p as usize;
                let gone = n_pat[pi] == 0;
                for &(l, s) in paths.pattern_links(p) {
                    load[l as usize] -= s * dw[pi];
                    if gone {
                        active_on[l as usize] -= 1;
                    }
                }
                w_pat[pi] -= dw[pi];
                dw[pi] = 0.0;
            }
            live.retain(|&l| active_on[l as usize] > 0);
            for &l in &live {
                // Float residue of shares removed: a link with no unfrozen flow has no load.
                if load[l as usize] < 0.0 {
                    load[l as usize] = 0.0;
                }
            }
        }
        Allocation { rates, bottleneck, floor: f64::INFINITY }
    }

    /// Random flows over `nl` links: own links with shares, and some through shared patterns.
    /// A flow's own (link, share) draws and its (pattern, weight) draw.
    type FlowDraw = (Vec<(u32, u8)>, Option<(u8, u8)>);

    fn random_paths(nl: u32, flows: &[FlowDraw], pats: &[Vec<(u32, u8)>]) -> Paths {
        let mut p = Paths::new();
        for links in pats {
            let v: Vec<(u32, f64)> = links.iter().map(|&(l, s)| (l % nl, f64::from(s % 4 + 1) / 4.0)).collect();
            p.pattern(&v);
        }
        for (links, uses) in flows {
            let v: Vec<(u32, f64)> = links.iter().map(|&(l, s)| (l % nl, f64::from(s % 3 + 1))).collect();
            match uses {
                Some((pat, w)) if !pats.is_empty() => {
                    p.push_with(&v, u32::from(*pat) % pats.len() as u32, f64::from(w % 5 + 1));
                }
                _ => {
                    p.push(&v);
                }
            }
        }
        p
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The event-driven filling gives the rescan's rates (to 1e-9) and bottlenecks.
        #[test]
        fn event_driven_filling_matches_the_rescan(
            caps in prop::collection::vec(1u8..20, 1..12),
            flows in prop::collection::vec((prop::collection::vec((0u32..64, any::<u8>()), 0..4), prop::option::of((any::<u8>(), any::<u8>()))), 0..24),
            pats in prop::collection::vec(prop::collection::vec((0u32..64, any::<u8>()), 1..4), 0..3),
        ) {
            let caps: Vec<f64> = caps.iter().map(|&c| f64::from(c) * 12.5).collect();
            let p = random_paths(caps.len() as u32, &flows, &pats);
            let (a, b) = (max_min(&caps, &p), rescan(&caps, &p));
            for (x, y) in a.rates.iter().zip(&b.rates) {
                prop_assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{:?} vs {:?}", a.rates, b.rates);
            }
            prop_assert_eq!(a.bottleneck, b.bottleneck);
        }
    }

    #[test]
    fn textbook_example_shares_the_tight_link_and_gives_the_rest_to_the_other() {
        // Links 0 (cap 1) and 1 (cap 2). Flows A: 0; B: 0, 1; C: 1.
        // Max-min: A = B = 0.5 on link 0; C takes the rest of link 1: 1.5.
        let mut p = Paths::new();
        p.push(&[(0, 1.0)]);
        p.push(&[(0, 1.0), (1, 1.0)]);
        p.push(&[(1, 1.0)]);
        let a = max_min(&[1.0, 2.0], &p);
        assert!((a.rates[0] - 0.5).abs() < 1e-12 && (a.rates[1] - 0.5).abs() < 1e-12);
        assert!((a.rates[2] - 1.5).abs() < 1e-12, "{:?}", a.rates);
        assert_eq!(a.bottleneck, vec![0, 0, 1]);
    }

    #[test]
    fn a_split_flow_loads_each_path_by_its_share() {
        // One flow split half and half over links 0 and 1 (cap 1 each): rate 2.
        let mut p = Paths::new();
        p.push(&[(0, 0.5), (1, 0.5)]);
        let a = max_min(&[1.0, 1.0], &p);
        assert!((a.rates[0] - 2.0).abs() < 1e-12, "{:?}", a.rates);
    }

    #[test]
    fn a_shared_pattern_gives_the_same_rates_as_copies() {
        // Links 0, 1 (cap 1) split half/half by a pattern; link 2 (cap 0.3) and 3 (cap 4)
        // private. Flow A: pattern x2 + link 2; flow B: pattern x1 + link 3.
        // A freezes at 0.3/2 = 0.15 on link 2 (weight 2); B then fills links 0/1:
        // 0.5*(2*0.15) + 0.5*b = 1 -> b = 1.7.
        let mut shared = Paths::new();
        let pat = shared.pattern(&[(0, 0.5), (1, 0.5)]);
        shared.push_with(&[(2, 2.0)], pat, 2.0);
        shared.push_with(&[(3, 1.0)], pat, 1.0);
        let mut copies = Paths::new();
        copies.push(&[(2, 2.0), (0, 1.0), (1, 1.0)]);
        copies.push(&[(3, 1.0), (0, 0.5), (1, 0.5)]);
        let caps = [1.0, 1.0, 0.3, 4.0];
        let (a, b) = (max_min(&caps, &shared), max_min(&caps, &copies));
        for (x, y) in a.rates.iter().zip(&b.rates) {
            assert!((x - y).abs() < 1e-12, "{:?} vs {:?}", a.rates, b.rates);
        }
        assert!((a.rates[0] - 0.15).abs() < 1e-12 && (a.rates[1] - 1.7).abs() < 1e-12, "{:?}", a.rates);
    }
}
