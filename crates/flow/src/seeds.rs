//! A study run one seed at a time, for callers that must share the thread between seeds (the
//! page runs a few seeds per slice between frames) or want to know which seed is typical (the
//! loaded-links drawing shows the median seed). Each seed is [`run`] with one seed, so the
//! merged figures are those of one `run` over all the seeds.

use crate::graph::Fabric;
use crate::sim::{run, Options, Outcome, Sharing};
use crate::stats::Dist;
use fabricscope_model::error::Result;

/// Seeds solved so far and what each found.
#[derive(Clone, Debug)]
pub struct Seeds {
    o: Options,
    /// (seed, its one-seed outcome), in seed order.
    runs: Vec<(u64, Outcome)>,
    /// Seeds the study takes (1 once the first outcome says nothing is random).
    total: u32,
}

impl Seeds {
    pub fn new(o: Options) -> Seeds {
        Seeds { o, runs: Vec::new(), total: o.seeds.max(1) }
    }

    pub fn options(&self) -> &Options {
        &self.o
    }

    /// (seeds solved, seeds the study takes).
    pub fn progress(&self) -> (u32, u32) {
        (self.runs.len() as u32, self.total)
    }

    pub fn finished(&self) -> bool {
        self.runs.len() as u32 >= self.total
    }

    /// Solves the next seed; true once every seed is solved.
    pub fn step(&mut self, fab: &Fabric) -> Result<bool> {
        if self.finished() {
            return Ok(true);
        }
        let seed = self.o.first_seed.wrapping_add(self.runs.len() as u64);
        let out = run(fab, &Options { seeds: 1, first_seed: seed, ..self.o })?;
        if out.deterministic {
            self.total = 1;
        }
        self.runs.push((seed, out));
        Ok(self.finished())
    }

    /// The seed whose fraction is the median of those solved (the lower middle one of an even
    /// count), for drawing a typical seed's loads.
    pub fn median_seed(&self) -> Option<u64> {
        let mut v: Vec<(f64, u64)> = self.runs.iter().map(|(s, o)| (o.throughput_fraction.mean, *s)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        v.get(v.len().saturating_sub(1) / 2).map(|x| x.1)
    }

    /// Each solved seed's throughput fraction, in seed order.
    pub fn fractions(&self) -> Vec<f64> {
        self.runs.iter().map(|(_, o)| o.throughput_fraction.mean).collect()
    }

    /// The figures over the seeds solved so far (None before the first).
    pub fn outcome(&self) -> Option<Outcome> {
        let (_, first) = self.runs.first()?;
        let each = |f: &dyn Fn(&Outcome) -> f64| Dist::of(&self.runs.iter().map(|(_, o)| f(o)).collect::<Vec<_>>());
        let n = self.runs.len() as f64;
        // The tier seen most often; ties go to the later-seen label, as `run` counts them.
        let mut labels: Vec<(&'static str, usize)> = Vec::new();
        for (_, o) in &self.runs {
            match labels.iter_mut().find(|(l, _)| *l == o.bottleneck_tier) {
                Some(e) => e.1 += 1,
                None => labels.push((o.bottleneck_tier, 1)),
            }
        }
        let sharing = first.sharing.as_ref().map(|s| Sharing {
            best: each(&|o| o.sharing.as_ref().map_or(1.0, |x| x.best.mean)),
            worst: each(&|o| o.sharing.as_ref().map_or(1.0, |x| x.worst.mean)),
            expected: each(&|o| o.sharing.as_ref().map_or(1.0, |x| x.expected.mean)),
            ..s.clone()
        });
        Some(Outcome {
            seeds: self.runs.len() as u32,
            throughput_fraction: each(&|o| o.throughput_fraction.mean),
            per_seed: self.fractions(),
            collision_probability: self.runs.iter().map(|(_, o)| o.collision_probability).sum::<f64>() / n,
            bottleneck_tier: labels.iter().max_by_key(|(_, c)| *c).map_or("nic", |(l, _)| *l),
            ideal_connection_rate: self.runs.last().map_or(first.ideal_connection_rate, |(_, o)| o.ideal_connection_rate),
            sharing,
            ..first.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ClosSpec;
    use crate::route::Routing;
    use crate::traffic::Traffic;
    use fabricscope_model::units::GBps;

    /// 16 nodes of 8 NICs on 4 leaves with 16 uplinks each to one spine (2:1), not
    /// rail-optimized: ECMP hashes eight ring flows per leaf onto 16 uplinks.
    fn two_to_one() -> Fabric {
        let spec = ClosSpec::two_tier(4, 4, 8, 1, 16, GBps(50.0));
        Fabric::build(spec).unwrap()
    }

    #[test]
    fn seed_by_seed_equals_one_run_over_all_seeds() {
        let fab = two_to_one();
        for (traffic, other_jobs) in [(Traffic::Ring, 0), (Traffic::RandomPermutation, 1)] {
            let o = Options { traffic, routing: Routing::Ecmp, seeds: 12, placement: crate::Placement::Scattered, other_jobs, ..Options::default() };
            let whole = run(&fab, &o).unwrap();
            let mut s = Seeds::new(o);
            while !s.step(&fab).unwrap() {}
            assert_eq!(s.progress(), (12, 12));
            let merged = s.outcome().unwrap();
            assert_eq!(merged, whole, "{traffic:?}");
            // The median seed's fraction is the median of the per-seed fractions.
            let m = s.median_seed().unwrap();
            let at = s.fractions()[(m - o.first_seed) as usize];
            let mut f = s.fractions();
            f.sort_by(f64::total_cmp);
            assert_eq!(at, f[5]);
        }
    }

    #[test]
    fn a_deterministic_study_takes_one_seed() {
        let fab = two_to_one();
        let mut s = Seeds::new(Options { routing: Routing::Adaptive, seeds: 32, ..Options::default() });
        assert!(s.step(&fab).unwrap());
        assert_eq!(s.progress(), (1, 1));
        assert!(s.outcome().unwrap().deterministic);
    }
}
