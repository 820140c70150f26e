//! A prediction's interval as the JSON of every command prints it: `{lo, hi, coverage, sources,
//! rows, basis, extrapolated}` beside the predicted field, in an `intervals` object keyed by the
//! field's name (../shared/ARCHITECTURE.md, "Intervals are a type").

use serde::{Deserialize, Serialize};

/// The range a prediction is expected to fall in, and what that expectation rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    /// Share of the held-out cases (each source predicted without its own data) that fell
    /// inside an interval built this way: measured, not the nominal target.
    pub coverage: f64,
    /// Independent sources (publications, traces) behind the interval.
    pub sources: u32,
    /// Cases those sources gave (a site's whole-cluster figure counts once).
    pub rows: u32,
    /// What the interval rests on, in words.
    pub basis: String,
    /// The question lies outside what the sources measured (hardware or scale).
    pub extrapolated: bool,
}

impl Interval {
    /// The same interval mapped through a monotone function (increasing or decreasing): the
    /// ends are mapped and put back in order.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Interval {
        let (a, b) = (f(self.lo), f(self.hi));
        Interval { lo: a.min(b), hi: a.max(b), ..self.clone() }
    }

    /// A point: nothing uncertain in it (every input given).
    pub fn exact(value: f64, basis: impl Into<String>) -> Interval {
        Interval { lo: value, hi: value, coverage: 1.0, sources: 0, rows: 0, basis: basis.into(), extrapolated: false }
    }

    pub fn contains(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_brackets_its_value_and_maps_in_order() {
        let i = Interval { lo: 5.0, hi: 20.0, coverage: 0.67, sources: 3, rows: 3, basis: "test".into(), extrapolated: false };
        assert_eq!((i.lo, i.hi), (5.0, 20.0));
        assert!(i.contains(10.0) && !i.contains(21.0));
        let inv = i.map(|x| 1.0 / x);
        assert_eq!((inv.lo, inv.hi), (0.05, 0.2));
    }
}
