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

/// Each flow's max-min fair rate (in the capacities' unit) and the link that froze it.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub rates: Vec<f64>,
    /// The link that limited each flow (`u32::MAX` for a flow crossing no link).
    pub bottleneck: Vec<u32>,
}

/// A link counts as full within this fraction of its capacity (dimensionless; float slack
/// for sums of split shares, far below any effect the model reports).
const FULL: f64 = 1e-9;

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

/// Progressive filling over links of capacities `caps`.
pub fn max_min(caps: &[f64], paths: &Paths) -> Allocation {
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
    Allocation { rates, bottleneck }
}

#[cfg(test)]
mod tests {
    use super::*;

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
