//! A training step over the flow model's seeds: each seed's fractions (the data-parallel ring's
//! and, when the job's experts cross nodes, the all-to-all's) replace the network's routing
//! factor and the step is evaluated again; slow GPUs then stretch the stage that holds them.
//! One copy for the CLI's `train --routing ... --slow-gpus K` and the congestion page.
//!
//! Slow GPUs. A training step is synchronous: every data-parallel replica waits for the
//! slowest rank at the gradient reduction, and a pipeline runs at its slowest stage's pace.
//! So one GPU at `F` of its speed makes the stage holding it take 1/F as long for its kernels:
//! the step's compute (the slowest stage's kernels, all micro-batches) and the pipeline's fill
//! and drain (made of the same stage times) grow by 1/F; communication and the optimizer step
//! do not. More slow GPUs at the same factor cost the same as one (the slowest sets the pace).

use crate::stats::Dist;
use fabricscope_model::error::Result;
use fabricscope_model::network::FlowFractions;
use fabricscope_model::training::{Evaluator, Framework, Parallel, StepReport, Workload};
use fabricscope_model::Topology;

/// The speed a slow GPU keeps when none is given (dimensionless; an example, a GPU throttled
/// to 80% of its clock by power or heat, not a measurement).
pub const DEFAULT_SLOW_FACTOR: f64 = 0.8;

/// What the step model says of slow GPUs, for reports.
pub const STRAGGLER_MODEL: &str = "synchronous step: the stage holding the slowest GPU sets the pace; compute and pipeline bubble scale by 1/F, communication and optimizer unchanged";

/// GPUs running below their speed on the step's critical path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stragglers {
    /// How many (count); 0 for none.
    pub gpus: u32,
    /// The speed each keeps, from [`crate::failures::MIN_FACTOR`] to 1 (dimensionless).
    pub factor: f64,
}

impl Default for Stragglers {
    fn default() -> Self {
        Stragglers { gpus: 0, factor: DEFAULT_SLOW_FACTOR }
    }
}

impl Stragglers {
    /// The step time (s) of `r` with these slow GPUs: compute and bubble at 1/F (module doc).
    pub fn step_s(&self, r: &StepReport) -> f64 {
        if self.gpus == 0 || !(self.factor > 0.0) {
            return r.step_time_s;
        }
        // Clamped to the factors the flags take, so the time stays finite whatever a caller passes.
        let f = self.factor.clamp(crate::failures::MIN_FACTOR, 1.0);
        let stage_us = r.breakdown.compute.0 + r.breakdown.bubble.0;
        r.step_time_s + stage_us * (1.0 / f - 1.0) / 1e6
    }
}

/// Whether the job's expert-parallel groups leave the NVLink domain, putting its all-to-all
/// on the fabric (the step then depends on the all-to-all's fraction too).
pub fn experts_cross(topo: &Topology, w: &Workload, par: &Parallel) -> bool {
    w.moe.is_some() && par.ep > 1 && par.ep * par.etp() > topo.domain_gpus
}

/// The step over seeds: each seed's time (s) and their spread, the step alone on the fabric.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSpread {
    pub per_seed_s: Vec<f64>,
    pub step_s: Dist,
    pub tokens_per_s: Dist,
    /// The healthy step, alone on the fabric, no slow GPU (s).
    pub alone_s: f64,
    /// Its 90% interval (s), the one `train` states for it (docs/calibration.md).
    pub alone_interval_s: Option<[f64; 2]>,
    /// The data-parallel ring's throughput fraction over the seeds, as the step took it (`None`:
    /// the analytical model's own routing factor).
    pub ring_fraction: Option<Dist>,
    /// The same of the all-to-all, when the experts cross nodes.
    pub a2a_fraction: Option<Dist>,
}

/// The step of layout `par` per seed. `ring` and `a2a` are the studies' per-seed throughput
/// fractions (the shorter is read at its last seed); `None` leaves that traffic at the
/// analytical model's own. Seeds with the same fractions are evaluated once.
pub fn step_over_seeds(topo: &Topology, w: &Workload, fw: Framework, par: &Parallel, ring: Option<&[f64]>, a2a: Option<&[f64]>, slow: &Stragglers) -> Result<StepSpread> {
    let healthy = Evaluator::new(topo, w, fw)?.evaluate(par)?;
    let at = |v: Option<&[f64]>, i: usize| v.and_then(|v| v.get(i.min(v.len().saturating_sub(1))).copied());
    let seeds = ring.map_or(1, <[f64]>::len).max(a2a.map_or(1, <[f64]>::len)).max(1);
    let mut seen: Vec<((Option<f64>, Option<f64>), f64)> = Vec::new();
    let mut steps = Vec::with_capacity(seeds);
    for i in 0..seeds {
        let key = (at(ring, i), at(a2a, i));
        let step = match seen.iter().find(|(k, _)| *k == key) {
            Some(&(_, s)) => s,
            None => {
                let s = match key {
                    (None, None) => slow.step_s(&healthy),
                    (fr, fa) => {
                        let flow = FlowFractions { ring: fr.map(|x| x.max(1e-9)), all_to_all: fa.map(|x| x.max(1e-9)) };
                        let t = Topology { flow: Some(flow), ..topo.clone() };
                        slow.step_s(&Evaluator::new(&t, w, fw)?.evaluate(par)?)
                    }
                };
                seen.push((key, s));
                s
            }
        };
        steps.push(step);
    }
    let tokens: Vec<f64> = steps.iter().map(|s| w.tokens_per_step() as f64 / s).collect();
    let dist = |v: Option<&[f64]>| v.filter(|v| !v.is_empty()).map(Dist::of);
    Ok(StepSpread {
        step_s: Dist::of(&steps),
        tokens_per_s: Dist::of(&tokens),
        per_seed_s: steps,
        alone_s: healthy.step_time_s,
        alone_interval_s: healthy.step_time_interval(),
        ring_fraction: dist(ring),
        a2a_fraction: dist(a2a),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::training::explore::workload;
    use fabricscope_model::Cluster;

    fn job() -> (Topology, Workload, Parallel) {
        let topo = Cluster { nodes: 16, ..Cluster::default() }.topology().unwrap();
        let w = workload("llama3-70b").unwrap();
        let view = fabricscope_model::training::explore::Staged::new_for(&topo, "llama3-70b", Default::default(), Framework::default()).unwrap();
        let mut staged = view;
        while !staged.run(&topo, &mut || true).unwrap() {}
        let (v, _) = staged.finish_keeping_caches(&topo).unwrap();
        (topo, w, v.chosen.unwrap().mapping)
    }

    /// A fraction of 1 everywhere is the healthy step; less bandwidth never makes the step
    /// faster; seeds keep their order's spread (p10 <= p50 <= p90) and tokens/s is its inverse.
    #[test]
    fn fractions_only_slow_the_step_and_one_is_the_healthy_step() {
        let (topo, w, par) = job();
        let none = Stragglers::default();
        let ideal = step_over_seeds(&topo, &w, Framework::default(), &par, Some(&[1.0, 1.0]), None, &none).unwrap();
        assert!((ideal.step_s.p50 - ideal.alone_s).abs() <= 1e-9 * ideal.alone_s, "{ideal:?}");
        let fr = [1.0, 0.9, 0.5, 0.25, 0.1];
        let s = step_over_seeds(&topo, &w, Framework::default(), &par, Some(&fr), None, &none).unwrap();
        for pair in s.per_seed_s.windows(2) {
            assert!(pair[1] >= pair[0] - 1e-12, "{:?}", s.per_seed_s);
        }
        assert!(s.step_s.max > s.alone_s, "a tenth of the ring's bandwidth must show in a 128-GPU step: {s:?}");
        assert!(s.step_s.p10 <= s.step_s.p50 && s.step_s.p50 <= s.step_s.p90);
        let tokens = w.tokens_per_step() as f64;
        assert!((s.tokens_per_s.min - tokens / s.step_s.max).abs() < 1e-6 * s.tokens_per_s.min);
    }

    /// One slow GPU at F stretches compute and bubble by 1/F and leaves the rest: a GPU at
    /// half speed makes the step at least (compute + bubble) longer and at most twice as long.
    #[test]
    fn a_slow_gpu_stretches_the_stage_it_is_in() {
        let (topo, w, par) = job();
        let r = Evaluator::new(&topo, &w, Framework::default()).unwrap().evaluate(&par).unwrap();
        let half = Stragglers { gpus: 1, factor: 0.5 };
        let stage = (r.breakdown.compute.0 + r.breakdown.bubble.0) / 1e6;
        assert!((half.step_s(&r) - (r.step_time_s + stage)).abs() < 1e-12);
        assert!(half.step_s(&r) <= 2.0 * r.step_time_s && stage > 0.0);
        assert_eq!(Stragglers { gpus: 3, factor: 0.5 }.step_s(&r), half.step_s(&r), "the slowest sets the pace");
        assert_eq!(Stragglers { gpus: 0, factor: 0.5 }.step_s(&r), r.step_time_s);
        let s = step_over_seeds(&topo, &w, Framework::default(), &par, None, None, &half).unwrap();
        assert_eq!(s.per_seed_s, vec![half.step_s(&r)]);
        assert_eq!(s.alone_s, r.step_time_s);
    }
}
