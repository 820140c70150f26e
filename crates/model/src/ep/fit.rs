//! The fit of one library's parameters on measured dispatch/combine rows: per library and
//! kernel kind, never per row. crates/model/tests/ep_accuracy.rs calls [`fit`] on
//! validation/ep-dispatch.csv to check the shipped constants ([`super::params`]) and again with
//! each source left out, so a held-out source is judged by a fit that never saw it.
//!
//! The objective is the mean |ln(predicted / measured)| over the library's rows (each figure a
//! row gives is one term: least absolute deviations, so the two user reports far below the rest
//! do not pull the fit), minimized by coordinate descent on a grid: each parameter in turn is set
//! to the best of [`GRID`] values across its range, then the range narrows to a quarter of its
//! width around it; [`ROUNDS`] rounds. A parameter no row is sensitive to (the objective is the same at both
//! ends of its range) keeps the library's prior ([`Library::prior`]). Results are rounded to
//! [`EFFICIENCY_STEP`] and [`LATENCY_STEP_US`], the precision the constants are written in.

use super::library::{Library, LibraryParams};
use super::{evaluate_with, EpInput, EpPlacement, Phase};
use crate::topology::Topology;

/// Grid points per parameter per round (dimensionless).
pub const GRID: usize = 31;
/// Coordinate-descent rounds (dimensionless).
pub const ROUNDS: usize = 8;
/// Precision of a fitted efficiency (fraction of a link's rate).
pub const EFFICIENCY_STEP: f64 = 0.01;
/// Least fixed cost of a phase, µs: a kernel launch (~3 µs) and one signal round trip between
/// GPUs (~2 µs over NVLink or an RDMA NIC); a physical floor, not fitted.
pub const MIN_LATENCY_US: f64 = 5.0;
/// Precision of a fitted fixed cost, µs.
pub const LATENCY_STEP_US: f64 = 1.0;

/// Which phase a measured figure is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Dispatch,
    Combine,
    /// Dispatch and combine together (a time).
    Both,
}

/// What the figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Kernel time, µs.
    TimeUs,
    /// The bottleneck link's bytes per GPU over the time, GB/s ([`Phase::bottleneck_gbps`]).
    BottleneckGbps,
    /// DeepEP's RDMA figure, GB/s ([`Phase::rdma_gbps`]).
    RdmaGbps,
}

/// One measured figure of one row, with the scenario it was measured on.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub topo: Topology,
    pub input: EpInput,
    pub placement: EpPlacement,
    pub which: Which,
    pub measure: Measure,
    /// The published figure, in the unit of `measure`.
    pub measured: f64,
}

impl Observation {
    /// The model's figure with `p` as `lib`'s parameters; `None` where the model refuses the
    /// scenario.
    pub fn predicted(&self, lib: Library, p: &LibraryParams) -> Option<f64> {
        let r = evaluate_with(&self.topo, &self.input, self.placement, lib, p).ok()?;
        let of = |ph: &Phase| match self.measure {
            Measure::TimeUs => ph.time_us,
            Measure::BottleneckGbps => ph.bottleneck_gbps,
            Measure::RdmaGbps => ph.rdma_gbps,
        };
        Some(match self.which {
            Which::Dispatch => of(&r.dispatch),
            Which::Combine => of(&r.combine),
            Which::Both => of(&r.dispatch) + of(&r.combine),
        })
    }

    /// measured / predicted of a rate (a time's inverted: predicted / measured), dimensionless.
    pub fn rate_ratio(&self, lib: Library, p: &LibraryParams) -> Option<f64> {
        let pred = self.predicted(lib, p)?;
        let r = if self.measure == Measure::TimeUs { pred / self.measured } else { self.measured / pred };
        (r.is_finite() && r > 0.0).then_some(r)
    }
}

/// One fitted parameter: where it lives in [`LibraryParams`], its range, its rounding step.
struct Knob {
    get: fn(&LibraryParams) -> Option<f64>,
    set: fn(&mut LibraryParams, f64),
    range: (f64, f64),
    step: f64,
}

/// The parameters a fit may move (the booleans and limits come from the library's source).
fn knobs() -> Vec<Knob> {
    vec![
        Knob { get: |p| p.normal.map(|n| n.nvlink_efficiency), set: |p, v| if let Some(n) = p.normal.as_mut() { n.nvlink_efficiency = v }, range: (0.2, 1.0), step: EFFICIENCY_STEP },
        Knob { get: |p| p.normal.map(|n| n.rdma_efficiency), set: |p, v| if let Some(n) = p.normal.as_mut() { n.rdma_efficiency = v }, range: (0.2, 1.0), step: EFFICIENCY_STEP },
        Knob { get: |p| p.low_latency.map(|l| l.dispatch_latency_us), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.dispatch_latency_us = v }, range: (MIN_LATENCY_US, 300.0), step: LATENCY_STEP_US },
        Knob { get: |p| p.low_latency.map(|l| l.combine_latency_us), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.combine_latency_us = v }, range: (MIN_LATENCY_US, 300.0), step: LATENCY_STEP_US },
        Knob { get: |p| p.low_latency.map(|l| l.per_doubling_us), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.per_doubling_us = v }, range: (0.0, 40.0), step: LATENCY_STEP_US },
        Knob { get: |p| p.low_latency.map(|l| l.rdma_efficiency), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.rdma_efficiency = v }, range: (0.2, 1.0), step: EFFICIENCY_STEP },
        Knob { get: |p| p.low_latency.map(|l| l.nvlink_latency_us), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.nvlink_latency_us = v }, range: (MIN_LATENCY_US, 150.0), step: LATENCY_STEP_US },
        Knob { get: |p| p.low_latency.map(|l| l.nvlink_efficiency), set: |p, v| if let Some(l) = p.low_latency.as_mut() { l.nvlink_efficiency = v }, range: (0.1, 1.0), step: EFFICIENCY_STEP },
    ]
}

/// Mean |ln ratio| of `obs` under `p` (a refused scenario counts as a factor e^3 off).
pub fn objective(lib: Library, obs: &[&Observation], p: &LibraryParams) -> f64 {
    if obs.is_empty() {
        return 0.0;
    }
    obs.iter().map(|o| o.rate_ratio(lib, p).map_or(3.0, |r| r.ln().abs())).sum::<f64>() / obs.len() as f64
}

/// `v` to the nearest multiple of `step` (a divisor of 1 or a whole number), without binary
/// noise (0.94, not 0.9400000000000001).
fn round_to(v: f64, step: f64) -> f64 {
    if step >= 1.0 {
        (v / step).round() * step
    } else {
        let k = (1.0 / step).round();
        (v * k).round() / k
    }
}

/// `lib`'s parameters fitted on `obs` (its rows only: the caller filters), starting from its
/// prior; with no rows, the prior itself.
pub fn fit(lib: Library, obs: &[&Observation]) -> LibraryParams {
    let mut p = lib.prior();
    if obs.is_empty() {
        return p;
    }
    let knobs = knobs();
    let mut ranges: Vec<(f64, f64)> = knobs.iter().map(|k| k.range).collect();
    // Only parameters some row responds to are fitted.
    let active: Vec<bool> = knobs
        .iter()
        .map(|k| {
            if (k.get)(&p).is_none() {
                return false;
            }
            let (mut a, mut b) = (p, p);
            (k.set)(&mut a, k.range.0);
            (k.set)(&mut b, k.range.1);
            (objective(lib, obs, &a) - objective(lib, obs, &b)).abs() > 1e-12
        })
        .collect();
    let mut best = objective(lib, obs, &p);
    for _ in 0..ROUNDS {
        for (i, k) in knobs.iter().enumerate() {
            if !active[i] {
                continue;
            }
            let (lo, hi) = ranges[i];
            for g in 0..GRID {
                let v = lo + (hi - lo) * g as f64 / (GRID - 1) as f64;
                let mut trial = p;
                (k.set)(&mut trial, v);
                let f = objective(lib, obs, &trial);
                if f < best - 1e-12 {
                    best = f;
                    p = trial;
                }
            }
            let v = (k.get)(&p).unwrap_or(lo);
            let w = (hi - lo) / 8.0;
            ranges[i] = ((v - w).max(k.range.0), (v + w).min(k.range.1));
        }
    }
    for k in &knobs {
        if let Some(v) = (k.get)(&p) {
            (k.set)(&mut p, round_to(v, k.step));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ep::{place, Dtype, Imbalance, Kernel};
    use crate::topology::Cluster;

    /// Rows made by the model itself with known parameters are fitted back to them (within the
    /// grid's rounding), and a fit with no rows is the prior.
    #[test]
    fn the_fit_recovers_parameters_it_generated_rows_with() {
        let lib = Library::UcclEp;
        let mut truth = lib.prior();
        if let Some(n) = truth.normal.as_mut() {
            n.rdma_efficiency = 0.62;
            n.nvlink_efficiency = 0.71;
        }
        let mut obs = Vec::new();
        for (nodes, ep) in [(1, 8), (2, 16), (4, 32), (8, 64)] {
            let topo = Cluster { nodes, ..Cluster::default() }.topology().unwrap();
            let input = EpInput {
                ep,
                tokens: 4096,
                hidden: 7168,
                top_k: 8,
                experts: 256,
                dispatch_dtype: Dtype::Fp8,
                combine_dtype: Dtype::Bf16,
                kernel: Kernel::Normal,
                max_nodes_per_token: None,
                imbalance: Imbalance::Uniform,
                library: Some(lib),
            };
            let placement = place(&topo, ep);
            let mut o = Observation { topo, input, placement, which: Which::Dispatch, measure: Measure::BottleneckGbps, measured: 0.0 };
            o.measured = o.predicted(lib, &truth).unwrap();
            obs.push(o);
        }
        let refs: Vec<&Observation> = obs.iter().collect();
        let got = fit(lib, &refs);
        let (g, t) = (got.normal.unwrap(), truth.normal.unwrap());
        assert!((g.rdma_efficiency - t.rdma_efficiency).abs() <= 0.011 && (g.nvlink_efficiency - t.nvlink_efficiency).abs() <= 0.011, "{g:?}");
        assert!(objective(lib, &refs, &got) < 0.01);
        assert_eq!(fit(lib, &[]), lib.prior());
    }
}
