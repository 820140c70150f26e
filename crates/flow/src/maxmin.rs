//! Max-min fair rates on directed links by progressive filling (water-filling): every
//! unfrozen flow's rate rises together until a link fills; the flows crossing it freeze at
//! that rate (it is their bottleneck), and the rest keep rising (Bertsekas and Gallager,
//! "Data Networks", 2nd ed., section 6.5.2). A flow may cross a link with a share below 1
//! (an even split over equal-cost paths); the link then carries that share of its rate.

/// The links of every flow, as (link, share) lists stored back to back.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    start: Vec<u32>,
    entries: Vec<(u32, f64)>,
}

impl Paths {
    pub fn new() -> Self {
        Paths { start: vec![0], entries: Vec::new() }
    }

    /// Adds one flow crossing `links`; returns its index.
    pub fn push(&mut self, links: &[(u32, f64)]) -> usize {
        self.entries.extend_from_slice(links);
        self.start.push(self.entries.len() as u32);
        self.start.len() - 2
    }

    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, f: usize) -> &[(u32, f64)] {
        &self.entries[self.start[f] as usize..self.start[f + 1] as usize]
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

/// Progressive filling over links of capacities `caps`.
pub fn max_min(caps: &[f64], paths: &Paths) -> Allocation {
    let n = paths.len();
    let nl = caps.len();
    // Link -> flows incidence, and each link's summed share of the unfrozen flows.
    let mut count = vec![0u32; nl + 1];
    let mut load = vec![0.0f64; nl];
    for f in 0..n {
        for &(l, s) in paths.get(f) {
            count[l as usize + 1] += 1;
            load[l as usize] += s;
        }
    }
    for i in 0..nl {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut by_link = vec![0u32; count[nl] as usize];
    for f in 0..n {
        for &(l, _) in paths.get(f) {
            by_link[fill[l as usize] as usize] = f as u32;
            fill[l as usize] += 1;
        }
    }
    let mut active_on = vec![0u32; nl];
    for l in 0..nl {
        active_on[l] = count[l + 1] - count[l];
    }
    let mut rates = vec![0.0; n];
    let mut bottleneck = vec![u32::MAX; n];
    let mut frozen = vec![false; n];
    let mut resid: Vec<f64> = caps.to_vec();
    let mut live: Vec<u32> = (0..nl as u32).filter(|&l| active_on[l as usize] > 0).collect();
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
        for l in full {
            let li = l as usize;
            for &f in &by_link[count[li] as usize..count[li + 1] as usize] {
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
            }
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
}
