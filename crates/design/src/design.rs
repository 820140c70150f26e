//! The key numbers of a design (a scenario) for comparing designs side by side: whole-cluster
//! AllReduce busbw at 1 GiB, the chosen job's step time, MFU and tokens/s, power and cost, and
//! the efficiency they give; and the delta table that marks the better design per row.

use crate::bom::{scenario_bom, Bom};
use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::Result;
use crate::goodput::Summary;
use crate::scenario::Scenario;
use crate::training::explore::{constraints, start, workload};
use crate::training::StepReport;
use crate::units::Bytes;
use serde::Serialize;

/// Message size of the headline busbw: 1 GiB, where nccl-tests' busbw has reached its plateau.
pub const BUSBW_BYTES: Bytes = Bytes(1 << 30);

/// One design's numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DesignNumbers {
    pub name: String,
    pub gpus: u32,
    /// A GPU count that forces an odd layout, in words ("576 GPUs do not divide the batch of
    /// 512: PP 9"): data parallelism splits the batch, so the GPU count's odd factor lands on
    /// TP, PP or CP, and the design's step is that layout's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout_note: Option<String>,
    /// AllReduce over every GPU at [`BUSBW_BYTES`], GB/s per direction.
    #[serde(rename = "allreduce_busbw_GBps")]
    pub allreduce_busbw_gbps: f64,
    /// How far to trust that busbw: its class's median error against published measurements,
    /// percent (`None`: the class is not validated).
    #[serde(rename = "allreduce_busbw_error_pct")]
    pub busbw_error_pct: Option<f64>,
    /// The same for the job's step time, tokens/s and MFU (its framework class's band).
    pub step_error_pct: Option<f64>,
    /// busbw's 90% interval as ratios measured / predicted (held out by source,
    /// docs/calibration.md; `None`: no table level backs its class).
    #[serde(skip)]
    pub busbw_ratio: Option<(f64, f64)>,
    /// The step's 90% interval as ratios measured / predicted of its throughputs (tokens/s,
    /// MFU); the step time's is the reciprocal.
    #[serde(skip)]
    pub step_ratio: Option<(f64, f64)>,
    /// Each predicted row's 90% interval in its own unit, keyed by the row's key
    /// (`allreduce_busbw_GBps`, `step_time_s`, `mfu`, ...): what the delta table ranks on.
    pub intervals: std::collections::BTreeMap<&'static str, (f64, f64)>,
    /// The scenario's job on its chosen layout (`None` when nothing fits).
    pub step_time_s: Option<f64>,
    pub mfu: Option<f64>,
    pub tokens_per_s: Option<f64>,
    pub power_kw: f64,
    /// Every item's power is published; otherwise `power_kw` is a lower bound (switches
    /// without a published figure) and no design wins on power.
    pub power_complete: bool,
    /// `None` unless every item of the bill of materials has a price.
    pub cost_usd: Option<f64>,
    pub tokens_per_s_per_mw: Option<f64>,
    pub tokens_per_s_per_musd: Option<f64>,
    /// Size-free figures, to compare designs of different GPU counts: tokens/s per GPU, the
    /// power of every 1,000 GPUs (kW, the whole system as the bill counts it) and the cost of
    /// one GPU's share of the system (US dollars).
    pub tokens_per_s_per_gpu: Option<f64>,
    pub power_kw_per_1000_gpus: Option<f64>,
    pub cost_usd_per_gpu: Option<f64>,
    /// The job under failures (`None` until [`DesignNumbers::with_goodput`]): mean time
    /// between its stops, hours; the share of time it trains (ETTR) and its 90% interval; and
    /// goodput (tokens/s times ETTR) per GPU, per MW and per million US dollars.
    pub mttf_hours: Option<f64>,
    pub ettr: Option<f64>,
    pub ettr_interval: Option<(f64, f64)>,
    pub goodput_tokens_per_s_per_gpu: Option<f64>,
    pub goodput_per_mw: Option<f64>,
    pub goodput_per_musd: Option<f64>,
    #[serde(skip)]
    pub bom: Bom,
}

/// The numbers of one scenario, named `name`; on the cluster as measured where its cluster
/// carries a calibration (`Topology::fitted`: every collective and layout timed with the fit).
pub fn design_numbers(name: &str, s: &Scenario) -> Result<DesignNumbers> {
    let topo = s.cluster.topology()?;
    let comm = Comm::new(&topo, topo.whole())?;
    let p = comm.predict(Collective::AllReduce, BUSBW_BYTES, AlgoChoice::Auto, ProtoChoice::Auto)?;
    let w = workload(&s.training.workload)?;
    let fixed = constraints(&s.training, topo.total_gpus, &w);
    let view = start(&topo, &s.training.workload, fixed)?;
    let bom = scenario_bom(s)?;
    let numbers = DesignNumbers::new(name, topo.total_gpus, Busbw::of(&p), view.chosen.as_ref(), bom);
    Ok(match view.chosen.as_ref().filter(|c| c.fits) {
        Some(c) => numbers.with_goodput(&crate::goodput::summary_of_step(&topo, w.params(), c)),
        None => numbers,
    })
}

/// A design's headline busbw and how far to trust it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Busbw {
    /// GB/s per direction.
    pub gbps: f64,
    /// Its class's median error, percent (the old band, kept in the JSON).
    pub error_pct: Option<f64>,
    /// Its 90% interval as ratios measured / predicted.
    pub ratio: Option<(f64, f64)>,
}

impl Busbw {
    /// A prediction's busbw, band and interval.
    pub fn of(p: &crate::collective::Prediction) -> Busbw {
        Busbw { gbps: p.busbw.0, error_pct: p.trust.error_band_pct, ratio: crate::calibration::apply::collective_ratios(&p.trust) }
    }
}

impl DesignNumbers {
    /// A design's numbers from its parts: `busbw` (GB/s per direction, with its band and
    /// interval), the job's chosen layout (its numbers only when it fits) and the bill of
    /// materials.
    pub fn new(name: &str, gpus: u32, busbw: Busbw, chosen: Option<&StepReport>, bom: Bom) -> DesignNumbers {
        let chosen = chosen.filter(|c| c.fits);
        let eff = chosen.map(|c| bom.efficiency(c.tokens_per_s));
        let per_gpu = |x: f64| (gpus > 0).then(|| x / gpus as f64);
        DesignNumbers {
            name: name.to_string(),
            gpus,
            layout_note: chosen.and_then(|c| odd_layout(gpus, c)),
            allreduce_busbw_gbps: busbw.gbps,
            busbw_error_pct: busbw.error_pct,
            step_error_pct: chosen.and_then(|c| c.error_band_pct),
            busbw_ratio: busbw.ratio,
            step_ratio: chosen.and_then(|c| c.interval).map(|[lo, hi]| (lo, hi)),
            intervals: Default::default(),
            step_time_s: chosen.map(|c| c.step_time_s),
            mfu: chosen.map(|c| c.mfu),
            tokens_per_s: chosen.map(|c| c.tokens_per_s),
            power_kw: bom.power_kw,
            power_complete: bom.unpowered.is_empty(),
            cost_usd: bom.cost_usd,
            tokens_per_s_per_mw: eff.and_then(|e| e.tokens_per_s_per_mw),
            tokens_per_s_per_musd: eff.and_then(|e| e.tokens_per_s_per_musd),
            tokens_per_s_per_gpu: chosen.and_then(|c| per_gpu(c.tokens_per_s)),
            power_kw_per_1000_gpus: per_gpu(bom.power_kw * 1000.0),
            cost_usd_per_gpu: bom.cost_usd.and_then(per_gpu),
            mttf_hours: None,
            ettr: None,
            ettr_interval: None,
            goodput_tokens_per_s_per_gpu: None,
            goodput_per_mw: None,
            goodput_per_musd: None,
            bom,
        }
        .with_intervals()
    }

    /// The numbers with [`DesignNumbers::intervals`] filled from the rows' ratios.
    fn with_intervals(mut self) -> DesignNumbers {
        self.intervals = ROWS.iter().filter_map(|r| Some((r.key, r.interval(&self)?))).collect();
        self
    }

    /// The same numbers with the job's goodput under failures (only where the job fits).
    pub fn with_goodput(self, g: &Summary) -> DesignNumbers {
        if self.tokens_per_s.is_none() {
            return self;
        }
        let e = g.ettr;
        DesignNumbers {
            mttf_hours: Some(g.mttf_hours),
            ettr: Some(e),
            ettr_interval: Some(g.ettr_range),
            goodput_tokens_per_s_per_gpu: self.tokens_per_s_per_gpu.map(|t| t * e),
            goodput_per_mw: self.tokens_per_s_per_mw.map(|t| t * e),
            goodput_per_musd: self.tokens_per_s_per_musd.map(|t| t * e),
            ..self
        }
        .with_intervals()
    }

    /// The ETTR's 90% interval as ratios of the ETTR.
    fn ettr_ratio(&self) -> Option<(f64, f64)> {
        let (e, (lo, hi)) = (self.ettr?, self.ettr_interval?);
        (e > 0.0).then(|| (lo / e, hi / e))
    }

    /// Goodput's interval as ratios: the step's and the ETTR's multiplied (goodput = tokens/s x
    /// ETTR; taking both ends together is the cautious bound).
    fn goodput_ratio(&self) -> Option<(f64, f64)> {
        let ((sl, sh), (el, eh)) = (self.step_ratio?, self.ettr_ratio()?);
        Some((sl * el, sh * eh))
    }
}

/// Whether more or less of a row's number is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

/// One row of the delta table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeltaRow {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// One value per design (`None` where the design has none).
    pub values: Vec<Option<f64>>,
    /// Index of the better design, when at least two have a value, every design's value can
    /// be ranked (see `unranked`), and they differ by more than the model's error.
    pub best: Option<usize>,
    /// When the 90% intervals of the two best values overlap, the wider of their half-widths
    /// (percent of the value): the model cannot tell them apart, so no design is marked better.
    pub within_error_pct: Option<f64>,
    /// Best value over the worst (always >= 1), with `best`.
    pub ratio: Option<f64>,
    /// Why no design is marked better although the values differ (`UNRANKED_*`): the row is
    /// a total over designs of different sizes, rests on a lower bound of power, or a design
    /// has no error band.
    pub unranked: Option<&'static str>,
}

/// What a row's number is, which decides when a design may be marked better on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Predicted by the model: ranked only where every design has a 90% interval.
    Predicted,
    /// Counted from the bill of materials (power, cost): exact given the bill.
    Counted,
    /// Described, not ranked (the GPU count).
    Shown,
}

/// One row of the table as specified.
struct RowSpec {
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    better: Better,
    value: fn(&DesignNumbers) -> Option<f64>,
    kind: Kind,
    /// 90% interval of the value as ratios measured / predicted of a throughput (predicted
    /// rows); for a row where lower is better (a time) the value's interval is the reciprocal.
    ratio: fn(&DesignNumbers) -> Option<(f64, f64)>,
    /// The value rests on the total power (not ranked while a design's power is a lower bound).
    on_power: bool,
    /// A total that grows with the cluster (or, for step time, shrinks with it for the same
    /// job): not ranked across designs of different GPU counts; its per-GPU row is.
    sized: bool,
}

const fn row(key: &'static str, label: &'static str, unit: &'static str, better: Better, value: fn(&DesignNumbers) -> Option<f64>, kind: Kind) -> RowSpec {
    RowSpec { key, label, unit, better, value, kind, ratio: |_| None, on_power: false, sized: false }
}

const fn banded(r: RowSpec, ratio: fn(&DesignNumbers) -> Option<(f64, f64)>) -> RowSpec {
    RowSpec { ratio, ..r }
}

impl RowSpec {
    /// The value's 90% interval in its own unit.
    fn interval(&self, d: &DesignNumbers) -> Option<(f64, f64)> {
        let (v, (lo, hi)) = ((self.value)(d)?, (self.ratio)(d)?);
        Some(if self.better == Better::Lower { (v / hi, v / lo) } else { (v * lo, v * hi) })
    }
}

const fn powered(r: RowSpec) -> RowSpec {
    RowSpec { on_power: true, ..r }
}

const fn sized(r: RowSpec) -> RowSpec {
    RowSpec { sized: true, ..r }
}

/// The rows compared, in order.
const ROWS: [RowSpec; 17] = [
    row("gpus", "GPUs", "", Better::Higher, |d| Some(d.gpus as f64), Kind::Shown),
    banded(row("allreduce_busbw_GBps", "AllReduce busbw, whole cluster, 1 GiB", "GB/s", Better::Higher, |d| Some(d.allreduce_busbw_gbps), Kind::Predicted), |d| d.busbw_ratio),
    sized(banded(row("step_time_s", "step time", "s", Better::Lower, |d| d.step_time_s, Kind::Predicted), |d| d.step_ratio)),
    banded(row("mfu", "MFU", "", Better::Higher, |d| d.mfu, Kind::Predicted), |d| d.step_ratio),
    sized(banded(row("tokens_per_s", "tokens/s", "tok/s", Better::Higher, |d| d.tokens_per_s, Kind::Predicted), |d| d.step_ratio)),
    banded(row("tokens_per_s_per_gpu", "tokens/s per GPU", "tok/s", Better::Higher, |d| d.tokens_per_s_per_gpu, Kind::Predicted), |d| d.step_ratio),
    sized(powered(row("power_kw", "power", "kW", Better::Lower, |d| Some(d.power_kw), Kind::Counted))),
    powered(row("power_kw_per_1000_gpus", "power per 1,000 GPUs", "kW", Better::Lower, |d| d.power_kw_per_1000_gpus, Kind::Counted)),
    sized(row("cost_usd", "cost", "USD", Better::Lower, |d| d.cost_usd, Kind::Counted)),
    row("cost_usd_per_gpu", "cost per GPU", "USD", Better::Lower, |d| d.cost_usd_per_gpu, Kind::Counted),
    powered(banded(row("tokens_per_s_per_mw", "tokens/s per MW", "tok/s/MW", Better::Higher, |d| d.tokens_per_s_per_mw, Kind::Predicted), |d| d.step_ratio)),
    banded(row("tokens_per_s_per_musd", "tokens/s per million USD", "tok/s/M$", Better::Higher, |d| d.tokens_per_s_per_musd, Kind::Predicted), |d| d.step_ratio),
    sized(banded(row("mttf_hours", "job MTTF (mean time between stops)", "h", Better::Higher, |d| d.mttf_hours, Kind::Predicted), |_| Some((0.5, 2.0)))),
    banded(row("ettr", "share of time training (ETTR)", "", Better::Higher, |d| d.ettr, Kind::Predicted), DesignNumbers::ettr_ratio),
    banded(row("goodput_tokens_per_s_per_gpu", "goodput tokens/s per GPU", "tok/s", Better::Higher, |d| d.goodput_tokens_per_s_per_gpu, Kind::Predicted), DesignNumbers::goodput_ratio),
    powered(banded(row("goodput_per_mw", "goodput tokens/s per MW", "tok/s/MW", Better::Higher, |d| d.goodput_per_mw, Kind::Predicted), DesignNumbers::goodput_ratio)),
    banded(row("goodput_per_musd", "goodput tokens/s per million USD", "tok/s/M$", Better::Higher, |d| d.goodput_per_musd, Kind::Predicted), DesignNumbers::goodput_ratio),
];

/// Why no design of a row is marked better although their values differ.
pub const UNRANKED_SIZE: &str = "a total of designs of different GPU counts: see its per-GPU row";
pub const UNRANKED_POWER: &str = "a design's power is a lower bound (a part has no published figure)";
pub const UNRANKED_BAND: &str = "a design's prediction has no 90% interval (its class is not validated)";

/// The delta table of `designs`.
pub fn delta_table(designs: &[DesignNumbers]) -> Vec<DeltaRow> {
    let power_known = designs.iter().all(|d| d.power_complete);
    let same_size = designs.windows(2).all(|w| w[0].gpus == w[1].gpus);
    ROWS.iter()
        .map(|r| {
            let values: Vec<Option<f64>> = designs.iter().map(r.value).collect();
            let known: Vec<(usize, f64)> = values.iter().enumerate().filter_map(|(i, v)| v.filter(|x| x.is_finite()).map(|x| (i, x))).collect();
            let max = known.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
            let min = known.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
            let (best, worst) = if r.better == Better::Higher { (max, min) } else { (min, max) };
            let (mut best, ratio) = match (best, worst) {
                (Some(b), Some(w)) if known.len() > 1 && b.1 != w.1 && b.1 > 0.0 && w.1 > 0.0 && r.kind != Kind::Shown => {
                    (Some(b.0), Some(if b.1 > w.1 { b.1 / w.1 } else { w.1 / b.1 }))
                }
                _ => (None, None),
            };
            // What keeps the row from a winner, in the order a reader would look for it.
            let unranked = if best.is_none() {
                None
            } else if r.sized && !same_size {
                Some(UNRANKED_SIZE)
            } else if r.on_power && !power_known {
                Some(UNRANKED_POWER)
            } else if r.kind == Kind::Predicted && known.iter().any(|(i, _)| r.interval(&designs[*i]).is_none()) {
                Some(UNRANKED_BAND)
            } else {
                None
            };
            if unranked.is_some() {
                best = None;
            }
            // A ratio of totals of different sizes is mostly the ratio of the sizes.
            let ratio = if unranked == Some(UNRANKED_SIZE) { None } else { ratio };
            let within_error_pct = best.and_then(|b| tied_with_runner_up(b, &known, r.better, |i| r.interval(&designs[i])));
            if within_error_pct.is_some() {
                best = None;
            }
            DeltaRow { key: r.key, label: r.label, unit: r.unit, better: r.better, values, best, ratio, within_error_pct, unranked }
        })
        .collect()
}

/// Warnings about the comparison as a whole: "designs differ in GPU count: 1,024 vs 288"
/// (totals of different sizes are then not ranked; per-GPU figures are).
/// Why `r`'s layout on `gpus` GPUs has a factor that is not a power of two, when the GPU count
/// forces it: its odd factor does not divide the batch, so data parallelism cannot take it.
fn odd_layout(gpus: u32, r: &StepReport) -> Option<String> {
    let m = &r.mapping;
    let batch = u64::from(r.micro_batches) * u64::from(m.micro_batch) * u64::from(m.dp);
    let odd = gpus.checked_shr(gpus.trailing_zeros()).unwrap_or(1);
    if odd <= 1 || batch == 0 || batch % u64::from(odd) == 0 {
        return None;
    }
    let parts: Vec<String> = [("TP", m.tp), ("PP", m.pp), ("CP", m.cp)].iter().filter(|(_, v)| !v.is_power_of_two()).map(|(n, v)| format!("{n} {v}")).collect();
    (!parts.is_empty()).then(|| format!("{gpus} GPUs do not divide the batch of {batch}: {}", parts.join(", ")))
}

pub fn warnings(designs: &[DesignNumbers]) -> Vec<String> {
    let mut counts: Vec<u32> = Vec::new();
    for d in designs {
        if !counts.contains(&d.gpus) {
            counts.push(d.gpus);
        }
    }
    let mut w = Vec::new();
    if counts.len() > 1 {
        let list: Vec<String> = counts.iter().map(|&g| crate::figures::thousands(g as f64)).collect();
        w.push(format!("designs differ in GPU count: {}", list.join(" vs ")));
    }
    w.extend(designs.iter().filter_map(|d| Some(format!("{}: {}", d.name, d.layout_note.as_ref()?))));
    w
}

/// When the 90% intervals of the best value (design `best`) and the runner-up overlap (both
/// must have one), the wider of their half-widths, percent of their values: the model cannot
/// tell which is better.
fn tied_with_runner_up(best: usize, known: &[(usize, f64)], better: Better, interval: impl Fn(usize) -> Option<(f64, f64)>) -> Option<f64> {
    let b = known.iter().find(|k| k.0 == best)?.1;
    let runner = known.iter().filter(|k| k.0 != best).copied().reduce(|a, c| match better {
        Better::Higher if c.1 > a.1 => c,
        Better::Lower if c.1 < a.1 => c,
        _ => a,
    })?;
    let ((bl, bh), (rl, rh)) = (interval(best)?, interval(runner.0)?);
    let overlap = match better {
        Better::Higher => bl <= rh,
        Better::Lower => bh >= rl,
    };
    let half = |(lo, hi): (f64, f64), v: f64| 100.0 * (hi - lo) / 2.0 / v;
    overlap.then(|| half((bl, bh), b).max(half((rl, rh), runner.1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::NicKind;
    use crate::topology::Cluster;

    fn numbers(name: &str, busbw: f64, step: Option<f64>, kw: f64) -> DesignNumbers {
        let bom = scenario_bom(&Scenario::default()).unwrap();
        DesignNumbers {
            layout_note: None,
            name: name.into(),
            gpus: 8,
            allreduce_busbw_gbps: busbw,
            busbw_error_pct: None,
            step_error_pct: None,
            busbw_ratio: None,
            step_ratio: None,
            intervals: Default::default(),
            step_time_s: step,
            mfu: None,
            tokens_per_s: None,
            power_kw: kw,
            power_complete: true,
            cost_usd: None,
            tokens_per_s_per_mw: None,
            tokens_per_s_per_musd: None,
            tokens_per_s_per_gpu: None,
            power_kw_per_1000_gpus: Some(kw * 1000.0 / 8.0),
            cost_usd_per_gpu: None,
            mttf_hours: None,
            ettr: None,
            ettr_interval: None,
            goodput_tokens_per_s_per_gpu: None,
            goodput_per_mw: None,
            goodput_per_musd: None,
            bom,
        }
    }

    /// A symmetric interval of +-`pct` percent as ratios.
    fn pm(pct: Option<f64>) -> Option<(f64, f64)> {
        pct.map(|p| (1.0 - p / 100.0, 1.0 + p / 100.0))
    }

    /// Two predictions whose 90% intervals overlap crown no design; the same gap with tighter
    /// intervals, or a wide gap, does. Counted rows (power) have none.
    #[test]
    fn designs_within_the_models_error_are_not_ranked() {
        let with = |name: &str, busbw: f64, band: Option<f64>, step: f64, step_band: Option<f64>| {
            let mut d = numbers(name, busbw, Some(step), 100.0);
            (d.busbw_ratio, d.step_ratio) = (pm(band), pm(step_band));
            d
        };
        let row = |t: &[DeltaRow], k: &str| t.iter().find(|r| r.key == k).cloned().unwrap();
        // 300 vs 295 GB/s at +-3%: 291 <= 303.85, a tie; step 1.00 vs 1.04 s at +-5%
        // (1/0.95 = 1.053 s against 1.04/1.05 = 0.990 s): a tie.
        let t = delta_table(&[with("A", 300.0, Some(3.0), 1.0, Some(5.0)), with("B", 295.0, Some(3.0), 1.04, Some(5.0))]);
        let busbw = row(&t, "allreduce_busbw_GBps");
        assert_eq!(busbw.best, None);
        assert!(busbw.within_error_pct.is_some_and(|e| (e - 3.0).abs() < 1e-9), "{busbw:?}");
        assert!(busbw.ratio.is_some_and(|r| (r - 300.0 / 295.0).abs() < 1e-12), "the ratio is still shown");
        assert_eq!(row(&t, "step_time_s").best, None);
        // The same 1.7% gap at +-0.5% is a difference; so is 300 vs 150 at +-3%.
        let t = delta_table(&[with("A", 300.0, Some(0.5), 1.0, Some(5.0)), with("B", 295.0, Some(0.5), 1.5, Some(5.0))]);
        assert_eq!((row(&t, "allreduce_busbw_GBps").best, row(&t, "allreduce_busbw_GBps").within_error_pct), (Some(0), None));
        assert_eq!(row(&t, "step_time_s").best, Some(0));
        // A design without an interval is not ranked, however wide the gap: the model cannot
        // say how far to trust its number (issue 19: a step-time winner was crowned where one
        // design had no band).
        let t = delta_table(&[with("A", 300.0, None, 1.0, None), with("B", 150.0, Some(3.0), 2.0, Some(5.0))]);
        assert_eq!((row(&t, "allreduce_busbw_GBps").best, row(&t, "allreduce_busbw_GBps").unranked), (None, Some(UNRANKED_BAND)));
        assert_eq!((row(&t, "step_time_s").best, row(&t, "step_time_s").unranked), (None, Some(UNRANKED_BAND)));
        assert_eq!(row(&t, "allreduce_busbw_GBps").ratio, Some(2.0), "the ratio is still shown");
        // Three designs: the runner-up decides, not the worst.
        let t = delta_table(&[with("A", 300.0, Some(3.0), 1.0, Some(5.0)), with("B", 150.0, Some(3.0), 1.0, Some(5.0)), with("C", 298.0, Some(3.0), 1.0, Some(5.0))]);
        assert_eq!(row(&t, "allreduce_busbw_GBps").best, None);
        // Asymmetric intervals: only the low side of the better value and the high side of the
        // runner-up matter. 300 GB/s measured -5%..+30% ([285, 390]) beats 250 at +-3%
        // ([242.5, 257.5]); the same 300 at -20%..+0% ([240, 300]) does not.
        let mut a = with("A", 300.0, Some(3.0), 1.0, Some(5.0));
        a.busbw_ratio = Some((0.95, 1.3));
        let b = with("B", 250.0, Some(3.0), 1.0, Some(5.0));
        assert_eq!(row(&delta_table(&[a.clone(), b.clone()]), "allreduce_busbw_GBps").best, Some(0));
        a.busbw_ratio = Some((0.8, 1.0));
        assert_eq!(row(&delta_table(&[a, b]), "allreduce_busbw_GBps").best, None);
    }

    /// `numbers` with intervals of +-3% (busbw) and +-5% (step).
    fn banded(name: &str, busbw: f64, step: Option<f64>, kw: f64) -> DesignNumbers {
        DesignNumbers { busbw_ratio: pm(Some(3.0)), step_ratio: pm(Some(5.0)), ..numbers(name, busbw, step, kw) }
    }

    #[test]
    fn delta_marks_the_better_design_and_the_ratio() {
        let t = delta_table(&[banded("A", 300.0, Some(2.0), 100.0), banded("B", 150.0, Some(1.0), 100.0)]);
        let row = |k: &str| t.iter().find(|r| r.key == k).unwrap();
        assert_eq!((row("allreduce_busbw_GBps").best, row("allreduce_busbw_GBps").ratio), (Some(0), Some(2.0)));
        assert_eq!((row("step_time_s").best, row("step_time_s").ratio), (Some(1), Some(2.0)));
        // Equal values or missing ones: no winner.
        assert_eq!(row("power_kw").best, None);
        // Power that is only a lower bound crowns no design.
        let mut lower = banded("C", 300.0, Some(2.0), 90.0);
        lower.power_complete = false;
        let t = delta_table(&[banded("A", 300.0, Some(2.0), 100.0), lower]);
        let power = t.iter().find(|r| r.key == "power_kw").unwrap();
        assert_eq!((power.best, power.unranked), (None, Some(UNRANKED_POWER)));
        assert_eq!(row("cost_usd").best, None);
    }

    #[test]
    fn ib_beats_roce_on_busbw_and_costs_the_same_power_in_dgx_nodes() {
        let ib = Scenario::new(Cluster { nodes: 16, ..Cluster::default() });
        let roce = Scenario::new(Cluster { nodes: 16, nic: NicKind::Roce400, ..Cluster::default() });
        let (a, b) = (design_numbers("ib", &ib).unwrap(), design_numbers("roce", &roce).unwrap());
        assert_eq!(a.gpus, 128);
        // RoCE's framing costs 1% of goodput (catalog::fabric) and ECMP collisions more.
        assert!(a.allreduce_busbw_gbps > b.allreduce_busbw_gbps, "{} vs {}", a.allreduce_busbw_gbps, b.allreduce_busbw_gbps);
        // 16 DGX H100 at 10.2 kW plus optics; no published switch power for either fabric.
        assert!(a.power_kw >= 16.0 * 10.2 && b.power_kw >= 16.0 * 10.2);
        assert!(a.step_time_s.is_some() && a.tokens_per_s_per_mw.is_some());
        assert_eq!(a.cost_usd, None);
    }

    /// Issue 37: 576 GB200 GPUs (8 racks of 72) cannot give data parallelism their odd factor
    /// 9 when the batch is a power of two: the layout takes it, and the warnings say so; 512
    /// GPUs of the same design have no such note.
    #[test]
    fn a_gpu_count_that_forces_an_odd_layout_is_named() {
        use fabricscope_model::catalog::GpuKind;
        let gb200 = |gpus: u32| Scenario::new(Cluster { gpu: GpuKind::Gb200, gpus_per_node: 4, nodes: gpus / 4, scale_up: fabricscope_model::catalog::ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() });
        let odd = design_numbers("C · GB200", &gb200(576)).unwrap();
        let note = odd.layout_note.clone().expect("an odd layout");
        assert!(note.starts_with("576 GPUs do not divide the batch of ") && (note.contains("PP 9") || note.contains("TP 9") || note.contains("CP 9") || note.contains(" 3")), "{note}");
        assert!(warnings(&[odd]).iter().any(|w| w.starts_with("C · GB200: 576 GPUs do not divide the batch")));
        let even = design_numbers("A · GB200", &gb200(512)).unwrap();
        assert_eq!(even.layout_note, None);
    }
}
