//! A distribution over seeds: mean and percentiles.

use serde::{Deserialize, Serialize};

/// Mean and percentiles of one figure over seeds (linear interpolation between order
/// statistics, the usual "type 7" definition).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    pub mean: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Dist {
    /// `v` must not be empty; an empty slice gives zeros.
    pub fn of(v: &[f64]) -> Dist {
        if v.is_empty() {
            return Dist { mean: 0.0, p10: 0.0, p50: 0.0, p90: 0.0, min: 0.0, max: 0.0 };
        }
        let mut s = v.to_vec();
        s.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| {
            let x = p * (s.len() - 1) as f64;
            let (i, f) = (x.floor() as usize, x - x.floor());
            let hi = s[(i + 1).min(s.len() - 1)];
            s[i] + (hi - s[i]) * f
        };
        Dist { mean: s.iter().sum::<f64>() / s.len() as f64, p10: q(0.1), p50: q(0.5), p90: q(0.9), min: s[0], max: s[s.len() - 1] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_eleven() {
        let v: Vec<f64> = (1..=11).map(f64::from).collect();
        let d = Dist::of(&v);
        assert_eq!((d.mean, d.p10, d.p50, d.p90, d.min, d.max), (6.0, 2.0, 6.0, 10.0, 1.0, 11.0));
    }
}
