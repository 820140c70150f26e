//! A prediction's interval from the shipped calibration tables (see the module above).

use super::levels::{bounds_of, collective_index, level_of, training_index, Level};
use super::levels_table::{COLLECTIVE_BOUNDS, COLLECTIVE_ROWS, EP_BOUNDS, TRAINING_BOUNDS, TRAINING_ROWS};
use super::{collective_keys, collectives_table, ep_keys, ep_table, interval_for, training_keys, training_table, ClassCalibration};
use crate::interval::Interval;
use crate::training::bands::ErrorClass;
use crate::trust::Trust;
use serde::{Deserialize, Serialize};

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
    /// Share of the level's rows inside the interval the same rule gives without their source
    /// (borrowing included), dimensionless: measured, not the nominal 90%.
    pub coverage: f64,
    /// Rows whose held-out interval was this level's own, and how many fell inside it.
    pub judged_here: [u32; 2],
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
    fn new((lo, hi): (f64, f64), row: &ClassCalibration, level: usize, extrapolated: bool, widened_pct: f64) -> Option<Calibrated> {
        let g = 1.0 + widened_pct.max(0.0) / 100.0;
        (lo > 0.0 && hi.is_finite()).then_some(Calibrated {
            lo: lo / g,
            hi: hi * g,
            coverage: row.coverage,
            judged_here: row.judged_here,
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
    let l = collective_level(trust)?;
    let row = collectives_table().get(usize::from(l.row))?;
    let extrapolated = trust.extrapolated || trust.composed || trust.successor || trust.validated_cases == 0;
    let c = Calibrated::new(l.ratios()?, row, usize::from(l.level), extrapolated, widening_pct(trust))?;
    // On a cluster as measured, the fit's uncertainty joins the class's (`fitted`).
    #[cfg(not(any(test, feature = "calibrate")))]
    return Some(c);
    #[cfg(any(test, feature = "calibrate"))]
    Some(match trust.fit_u90 {
        Some(u) => {
            let (lo, hi) = crate::fitted::with_fit((c.lo, c.hi), u);
            Calibrated { lo, hi, ..c }
        }
        None => c,
    })
}

fn collective_level(trust: &Trust) -> Option<Level> {
    let i = collective_index(trust.tier, trust.family, trust.size);
    level_of(COLLECTIVE_BOUNDS.get(i), COLLECTIVE_ROWS.get(i))
}

/// How far beyond its measured scale a collective's interval widens, percent at each end: as
/// far as its band widens ([`Trust::error_band_pct`] over [`Trust::measured_band_pct`]).
fn widening_pct(trust: &Trust) -> f64 {
    match (trust.error_band_pct, trust.measured_band_pct) {
        (Some(b), Some(m)) => (b - m).max(0.0),
        _ => 0.0,
    }
}

/// A collective prediction's 90% interval as ratios measured / predicted `(lo, hi)` of its
/// busbw (algbw alike; the time's are `1 / hi` and `1 / lo`): what the pages shade and print,
/// the same bounds as [`collective_intervals`].
pub fn collective_ratios(trust: &Trust) -> Option<(f64, f64)> {
    let (lo, hi) = collective_bounds(trust)?;
    let g = 1.0 + widening_pct(trust) / 100.0;
    let r = (lo / g, hi * g);
    #[cfg(any(test, feature = "calibrate"))]
    let r = trust.fit_u90.map_or(r, |u| crate::fitted::with_fit(r, u));
    Some(r)
}

/// [`collective_ratios`] before any widening for scale: the spread of the class's own
/// measurements.
pub fn collective_bounds(trust: &Trust) -> Option<(f64, f64)> {
    bounds_of(COLLECTIVE_BOUNDS.get(collective_index(trust.tier, trust.family, trust.size)))
}

/// A collective prediction's intervals, keyed as the CLI's JSON prints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollectiveIntervals {
    /// Bus bandwidth, GB/s per direction.
    #[serde(rename = "busbw_GBps")]
    pub busbw_gbps: Interval,
    /// Time of one operation, µs: bytes / algbw at each end of the busbw interval.
    pub time_us: Interval,
}

/// The intervals of a collective predicted at `busbw_gbps` (GB/s per direction) and `time_us`.
pub fn collective_intervals(busbw_gbps: f64, time_us: f64, trust: &Trust, c: &Calibrated) -> CollectiveIntervals {
    let basis = collective_basis(trust, c);
    CollectiveIntervals { busbw_gbps: c.throughput(busbw_gbps, &basis), time_us: c.time(time_us, &basis) }
}

/// A training step's intervals, keyed by the `StepReport` fields they bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepIntervals {
    pub step_time_s: Interval,
    pub tokens_per_s: Interval,
    pub mfu: Interval,
    pub model_tflops_per_gpu: Interval,
    pub hardware_tflops_per_gpu: Interval,
}

impl StepIntervals {
    /// Widened to span the software releases where the step's release is left open: an MoE
    /// step of today's Megatron-Core that the oldest NeMo release (no CUDA graphs in MoE
    /// layers) would run in `oldest_step_s` instead of `step_time_s`; the lower ends of the
    /// throughputs (the upper end of the step time) reach that release's own interval, as
    /// `StepReport::interval` does.
    pub fn spanning_releases(mut self, step_time_s: f64, oldest_step_s: Option<f64>) -> StepIntervals {
        let Some(early) = oldest_step_s.filter(|e| *e > step_time_s) else { return self };
        let f = step_time_s / early;
        for i in [&mut self.tokens_per_s, &mut self.mfu, &mut self.model_tflops_per_gpu, &mut self.hardware_tflops_per_gpu] {
            i.lo *= f;
        }
        self.step_time_s.hi /= f;
        let words = format!(
            "; release left open, so it spans NeMo's releases down to 25.04, whose MoE layers ran without CUDA graphs ({early:.3} s per step; --framework nemo --release picks one)"
        );
        for i in [&mut self.step_time_s, &mut self.tokens_per_s, &mut self.mfu, &mut self.model_tflops_per_gpu, &mut self.hardware_tflops_per_gpu] {
            i.basis.push_str(&words);
        }
        self
    }
}

/// The intervals of a step predicted at `step_time_s` seconds; the throughputs (tokens/s, MFU,
/// TFLOP/s per GPU) are each proportional to 1 / step time, so one ratio interval bounds all.
pub fn step_intervals(c: &Calibrated, basis: &str, step_time_s: f64, tokens_per_s: f64, mfu: f64, model_tflops: f64, hardware_tflops: f64) -> StepIntervals {
    StepIntervals {
        step_time_s: c.time(step_time_s, basis),
        tokens_per_s: c.throughput(tokens_per_s, basis),
        mfu: c.throughput(mfu, basis),
        model_tflops_per_gpu: c.throughput(model_tflops, basis),
        hardware_tflops_per_gpu: c.throughput(hardware_tflops, basis),
    }
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
    let l = training_level(class)?;
    let row = training_table().get(usize::from(l.row))?;
    let c = Calibrated::new(l.ratios()?, row, usize::from(l.level), extrapolated || !l.measured, 0.0)?;
    let id = class.id();
    let words = match c.level {
        0 => format!("class {id}"),
        1 => format!("{} runs ({})", keys[1], too_few(training_table(), &keys[0], &id)),
        _ => format!("all training runs ({})", too_few(training_table(), &keys[0], &id)),
    };
    let b = basis(&words, &c, "outside the GPU counts of its class's runs");
    Some((c, b))
}

/// The calibration of a prediction of the class `keys[0]` (named `name` in words) from `table`,
/// whose parents are described as `parent` ("all EP dispatch/combine rows"), and its basis in
/// words; `extrapolated` as the caller knows it (hardware or scale outside the sources), or when
/// the class has no row at all. Not widened. For families whose keys are class then "all" (EP,
/// serving): the rule of [`for_training`] without its middle level.
pub fn for_class(table: &[ClassCalibration], keys: &[String], name: &str, parent: &str, extrapolated: bool, beyond: &str) -> Option<(Calibrated, String)> {
    let (bounds, row, level) = interval_for(table, keys)?;
    let measured = table.iter().any(|r| r.key == keys[0]);
    let c = Calibrated::new(bounds, row, level, extrapolated || !measured, 0.0)?;
    let words = match c.level {
        0 => format!("class {name}"),
        _ => format!("{parent} ({})", too_few(table, &keys[0], name)),
    };
    let b = basis(&words, &c, beyond);
    Some((c, b))
}

/// A training step's interval as ratios measured / predicted `(lo, hi)` of its throughput
/// (tokens/s, MFU, TFLOP/s per GPU; the step time's are `1 / hi` and `1 / lo`): the bounds of
/// [`for_training`] without its words, cheap enough for every layout a search costs.
pub fn training_ratios(class: &ErrorClass) -> Option<(f64, f64)> {
    bounds_of(TRAINING_BOUNDS.get(training_index(class)?))
}

fn training_level(class: &ErrorClass) -> Option<Level> {
    let i = training_index(class)?;
    level_of(TRAINING_BOUNDS.get(i), TRAINING_ROWS.get(i))
}

/// One EP phase's intervals (dispatch or combine), keyed by the `ep::Phase` fields they bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpPhaseIntervals {
    pub time_us: Interval,
    /// Bytes over the bottleneck link per GPU / kernel time, GB/s: a throughput.
    #[serde(rename = "bottleneck_GBps")]
    pub bottleneck_gbps: Interval,
}

/// The calibration of an EP dispatch/combine of `kernel` kind by `library` (`None`: not named
/// by the user, the platform's default predicts and the interval spans every library's rows),
/// inside one scale-up domain or across the network; `validated` false (no band: a library,
/// GPU or domain no source measured) makes it extrapolated.
pub fn for_ep(library: Option<crate::ep::Library>, kernel: crate::ep::Kernel, scale_up_only: bool, validated: bool) -> Option<(Calibrated, String)> {
    let keys = ep_keys(library, kernel, scale_up_only);
    let lib = library.map_or("any library (the default predicts)".to_string(), |l| l.name().to_string());
    let name = format!("{lib}, {} kernels {}", kernel.id(), if scale_up_only { "inside NVLink" } else { "across the network" });
    let parent = if library.is_some() { "its kernel kind and placement, or all EP dispatch/combine rows" } else { "all libraries' rows against the default library" };
    let (c, b) = for_class(ep_table(), &keys, &name, parent, !validated, "a library, hardware or domain no source measured")?;
    Some((c, b.replace(HELD_OUT, EP_HELD_OUT)))
}

/// An EP dispatch/combine's 90% interval as ratios measured / predicted `(lo, hi)` of its
/// bottleneck GB/s (the time's are `1 / hi` and `1 / lo`): the bounds of [`for_ep`] without
/// its words, what the explorer's MoE view shows.
pub fn ep_ratios(library: Option<crate::ep::Library>, kernel: crate::ep::Kernel, scale_up_only: bool) -> Option<(f64, f64)> {
    bounds_of(EP_BOUNDS.get(super::levels::ep_index(library, kernel, scale_up_only)))
}

/// What an EP interval's basis says about in-sample and held-out: the fitted libraries are
/// refitted without each held-out source (crates/model/tests/ep_accuracy.rs).
pub const EP_HELD_OUT: &str = "DeepEP's and pplx-kernels' parameters refitted with each source left out, interval left-one-source-out";

/// The intervals of one EP phase predicted at `time_us` and `bottleneck_gbps`.
pub fn ep_phase_intervals(c: &Calibrated, basis: &str, time_us: f64, bottleneck_gbps: f64) -> EpPhaseIntervals {
    EpPhaseIntervals { time_us: c.time(time_us, basis), bottleneck_gbps: c.throughput(bottleneck_gbps, basis) }
}

/// "class X has 4 rows from 1 source, too few for its own" or "class X is not measured".
fn too_few(table: &[ClassCalibration], key: &str, name: &str) -> String {
    match table.iter().find(|r| r.key == key) {
        Some(r) => format!("class {name} has {} rows from {} source{}, too few for its own; stretched to hold their spread", r.rows, r.sources, if r.sources == 1 { "" } else { "s" }),
        None => format!("class {name} is not measured"),
    }
}

fn basis(level: &str, c: &Calibrated, beyond: &str) -> String {
    let [n, k] = c.judged_here;
    let mut s = format!(
        "90% interval of {level}: {} rows from {} sources; with each source left out, the same rule put {:.0}% of them inside ({k} of the {n} rows judged by this level's own interval); {HELD_OUT}",
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
