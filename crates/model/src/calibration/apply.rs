//! A prediction's interval from the shipped calibration tables (see the module above).

use super::{collective_keys, collectives_table, lookup, training_keys, training_table, ClassCalibration};
use crate::interval::Interval;
use crate::training::bands::ErrorClass;
use crate::trust::Trust;
use serde::Serialize;

/// What every interval's basis says about in-sample and held-out.
pub const HELD_OUT: &str = "constants fitted on all sources; interval left-one-source-out";

/// A prediction's calibration in a few numbers (`Copy`, so a collective `Prediction` stays
/// `Copy` inside the sweeps every chart draws): the ratio bounds measured / predicted and what
/// they rest on. [`Calibrated::throughput`] and [`Calibrated::time`] turn it into an
/// [`Interval`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Calibrated {
    /// Lower and upper ratio measured / predicted (dimensionless), after any widening.
    pub lo: f64,
    pub hi: f64,
    /// Share of the level's rows inside their leave-one-source-out interval (dimensionless).
    pub coverage: f64,
    pub sources: u32,
    pub rows: u32,
    /// Which level the interval comes from: 0 the class, 1 its parent, 2 the whole family.
    pub level: u8,
    pub extrapolated: bool,
    /// Widening for scale beyond the measurements, percent: today's band rule
    /// (`trust::scale_band_pct`, a successor generation's floor) applied to both ends.
    pub widened_pct: f64,
}

impl Calibrated {
    fn new(row: &ClassCalibration, level: usize, extrapolated: bool, widened_pct: f64) -> Option<Calibrated> {
        let (lo, hi) = row.bounds?;
        let g = 1.0 + widened_pct.max(0.0) / 100.0;
        Some(Calibrated {
            lo: lo / g,
            hi: hi * g,
            coverage: row.coverage,
            sources: row.sources,
            rows: row.rows,
            level: level as u8,
            extrapolated,
            widened_pct: widened_pct.max(0.0),
        })
    }

    /// The interval of a throughput (busbw, tokens/s, TFLOP/s, MFU) predicted as `value`.
    pub fn throughput(&self, value: f64, basis: &str) -> Interval {
        self.interval(value * self.lo, value * self.hi, basis)
    }

    /// The interval of a time predicted as `value` (a throughput's reciprocal: time = bytes /
    /// algbw, step time = tokens / tokens per second).
    pub fn time(&self, value: f64, basis: &str) -> Interval {
        self.interval(value / self.hi, value / self.lo, basis)
    }

    fn interval(&self, lo: f64, hi: f64, basis: &str) -> Interval {
        Interval { lo, hi, coverage: self.coverage, sources: self.sources, rows: self.rows, basis: basis.to_string(), extrapolated: self.extrapolated }
    }
}

/// The calibration of a collective prediction of `trust`'s class: its class's interval, or its
/// tier's, or all collectives' when the class has too few rows or sources; extrapolated where
/// the trust is (beyond the measured scale, a composed class, a successor generation, or a class
/// no measurement backs), widened by as much as the trust's band is.
pub fn for_collective(trust: &Trust) -> Option<Calibrated> {
    let keys = collective_keys(trust.tier, trust.family, trust.size);
    let (row, level) = lookup(collectives_table(), &keys)?;
    let widened = match (trust.error_band_pct, trust.measured_band_pct) {
        (Some(b), Some(m)) => b - m,
        _ => 0.0,
    };
    let extrapolated = trust.extrapolated || trust.composed || trust.successor || trust.validated_cases == 0;
    Calibrated::new(row, level, extrapolated, widened)
}

/// The words of a collective interval's basis.
pub fn collective_basis(trust: &Trust, c: &Calibrated) -> String {
    let class = format!("{} / {} / {}", trust.tier.name(), trust.family.name(), trust.size.name());
    let keys = collective_keys(trust.tier, trust.family, trust.size);
    let level = match c.level {
        0 => format!("class {class}"),
        1 => format!("tier {} ({})", trust.tier.name(), too_few(collectives_table(), &keys[0], &class)),
        _ => format!("all collectives ({})", too_few(collectives_table(), &keys[0], &class)),
    };
    basis(&level, c, "beyond the measured scale of its class")
}

/// The calibration of a training step of `class` and its basis in words: the class's interval,
/// or its kind's (dense or MoE), or all runs'; `extrapolated` as the band says (GPU count
/// outside the class's runs), or when the class has no run at all. Not widened: the training
/// band rule keeps the class's band beyond its measured GPU counts and says so.
pub fn for_training(class: &ErrorClass, extrapolated: bool) -> Option<(Calibrated, String)> {
    let keys = training_keys(class);
    let (row, level) = lookup(training_table(), &keys)?;
    let measured = training_table().iter().any(|r| r.key == keys[0]);
    let c = Calibrated::new(row, level, extrapolated || !measured, 0.0)?;
    let id = class.id();
    let words = match c.level {
        0 => format!("class {id}"),
        1 => format!("{} runs ({})", keys[1], too_few(training_table(), &keys[0], &id)),
        _ => format!("all training runs ({})", too_few(training_table(), &keys[0], &id)),
    };
    let b = basis(&words, &c, "outside the GPU counts of its class's runs");
    Some((c, b))
}

/// "class X has 4 rows from 1 source, too few for its own" or "class X is not measured".
fn too_few(table: &[ClassCalibration], key: &str, name: &str) -> String {
    match table.iter().find(|r| r.key == key) {
        Some(r) => format!("class {name} has {} rows from {} source{}, too few for its own", r.rows, r.sources, if r.sources == 1 { "" } else { "s" }),
        None => format!("class {name} is not measured"),
    }
}

fn basis(level: &str, c: &Calibrated, beyond: &str) -> String {
    let mut s = format!(
        "90% interval of {level}: {} rows from {} sources, {:.0}% of them inside when each source is left out; {HELD_OUT}",
        c.rows,
        c.sources,
        100.0 * c.coverage
    );
    if c.widened_pct > 0.5 {
        s.push_str(&format!("; widened by {:.0}% at each end, {beyond}", c.widened_pct));
    } else if c.extrapolated {
        s.push_str(&format!("; extrapolated: {beyond}, or no run of its own"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Arch;
    use crate::trust::{AlgoFamily, SizeRange, TierClass};

    /// Every interval brackets its prediction; times are the reciprocal of throughputs.
    #[test]
    fn intervals_bracket_the_value_and_time_is_consistent_with_throughput() {
        let t = Trust::at(TierClass::InfiniBand, AlgoFamily::Ring, SizeRange::Large, 4, 32);
        let c = for_collective(&t).unwrap();
        let b = c.throughput(400.0, "x");
        let time = c.time(1000.0, "x");
        assert!(b.contains(400.0) && time.contains(1000.0), "{b:?} {time:?}");
        // time x busbw is constant at both ends.
        assert!((b.lo * time.hi - 400.0 * 1000.0).abs() < 1e-6 && (b.hi * time.lo - 400.0 * 1000.0).abs() < 1e-6);
        let unmeasured = ErrorClass { family: "fsdp", moe: true, arch: Arch::Blackwell };
        let (c, basis) = for_training(&unmeasured, false).unwrap();
        assert!(c.extrapolated && c.level > 0 && basis.contains("not measured"), "{basis}");
    }
}
