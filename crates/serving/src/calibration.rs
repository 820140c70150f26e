//! 90% prediction intervals of a served deployment and of a KV transfer (issue 34; the rule is
//! the model's, `fabricscope_model::calibration`, docs/calibration.md): the table
//! `calibration.csv` beside this file is written and checked by `tests/serving_accuracy.rs`
//! (FABRICSCOPE_WRITE_DOCS=1) from validation/serving.csv. Classes are the accuracy classes
//! the test groups rows by (dense TP inside NVLink, dense TP across nodes, wide EP, KV transfer,
//! and prefill, which has no band), with all serving rows as their parent. Each row's ratio is
//! measured / predicted of a rate: tokens/s per GPU as is, TPOT and transfer time inverted.
//! Computed on demand by the front ends; the pages carry neither the table nor this code.

use crate::deploy::{Deployment, Phase};
use crate::hardware::AccuracyClass;
use crate::step::ServeReport;
use fabricscope_model::calibration::apply::{for_class, Calibrated};
use fabricscope_model::calibration::{parse, ClassCalibration};
use fabricscope_model::interval::Interval;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The shipped serving table.
pub fn table() -> &'static [ClassCalibration] {
    static T: OnceLock<Vec<ClassCalibration>> = OnceLock::new();
    T.get_or_init(|| parse(include_str!("calibration.csv")))
}

/// A class's key in the table: the accuracy class, or "prefill" (no band of its own).
pub fn class_key(class: Option<AccuracyClass>) -> &'static str {
    match class {
        Some(AccuracyClass::DenseTpNvlink) => "dense_tp_nvlink",
        Some(AccuracyClass::DenseTpCross) => "dense_tp_cross",
        Some(AccuracyClass::WideEp) => "wide_ep",
        Some(AccuracyClass::KvTransfer) => "kv_transfer",
        None => "prefill",
    }
}

/// Calibration keys: the class, then "all".
pub fn keys(class: Option<AccuracyClass>) -> Vec<String> {
    vec![class_key(class).to_string(), "all".to_string()]
}

/// The calibration of a prediction of `class` (`None`: prefill); `validated` false (no band:
/// hardware no source measured) makes it extrapolated.
pub fn calibrated(class: Option<AccuracyClass>, validated: bool) -> Option<(Calibrated, String)> {
    let name = class.map_or("prefill", |c| c.id());
    for_class(table(), &keys(class), name, "all serving rows", !validated, "hardware no source of its class measured")
}

/// `serve`'s intervals, keyed by the report fields they bound (a time absent from the report,
/// e.g. TPOT of a prefill, has none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServeIntervals {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpot_ms: Option<Interval>,
    /// From the prefill class's calibration (the prompt's time), not the deployment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<Interval>,
    pub tokens_per_s_per_gpu: Interval,
    pub tokens_per_s_per_user: Interval,
    pub tokens_per_s_per_node: Interval,
}

/// The intervals of deployment `d`'s report `r`: the throughputs and TPOT from the class the
/// report names (prefill for a prefill), TTFT from the prefill rows'.
pub fn serve_intervals(d: &Deployment, r: &ServeReport) -> Option<ServeIntervals> {
    let class = (d.phase != Phase::Prefill).then_some(r.accuracy_class);
    let (c, basis) = calibrated(class, r.error_band_pct.is_some() || class.is_none())?;
    let ttft = calibrated(None, r.error_band_pct.is_some())
        .and_then(|(p, pb)| r.ttft_ms.map(|t| p.time(t, &pb)));
    Some(ServeIntervals {
        tpot_ms: r.tpot_ms.map(|t| c.time(t, &basis)),
        ttft_ms: ttft,
        tokens_per_s_per_gpu: c.throughput(r.tokens_per_s_per_gpu, &basis),
        tokens_per_s_per_user: c.throughput(r.tokens_per_s_per_user, &basis),
        tokens_per_s_per_node: c.throughput(r.tokens_per_s_per_node, &basis),
    })
}

/// Joins `other` into `into`: the lower of the two lows, the higher of the two highs (the
/// coverage, sources and rows of `into` kept, the basis extended by `why`).
pub fn join_interval(into: &mut Interval, other: &Interval, why: &str) {
    into.lo = into.lo.min(other.lo);
    into.hi = into.hi.max(other.hi);
    into.extrapolated |= other.extrapolated;
    if !into.basis.contains(why) {
        into.basis = format!("{}; {why}", into.basis);
    }
}

/// What an interval that spans the engines says of itself.
pub const ENGINE_SPREAD_BASIS: &str = "no engine given: spans the predictions of trtllm, vllm, sglang and sglang-0.4, each with its interval";

/// `serve`'s intervals of deployment `d`, report `r`; when `d` names no engine, joined with the
/// intervals of every engine's prediction of the same deployment (`others`: the reports of
/// [`crate::engine::ENGINES`] on it, those the model gives), so they hold the spread between
/// engines the published runs show.
pub fn serve_intervals_across_engines(d: &Deployment, r: &ServeReport, others: &[(Deployment, ServeReport)]) -> Option<ServeIntervals> {
    let mut i = serve_intervals(d, r)?;
    if d.engine.is_some() {
        return Some(i);
    }
    for (de, re) in others {
        let Some(o) = serve_intervals(de, re) else { continue };
        for (a, b) in [(&mut i.tokens_per_s_per_gpu, &o.tokens_per_s_per_gpu), (&mut i.tokens_per_s_per_user, &o.tokens_per_s_per_user), (&mut i.tokens_per_s_per_node, &o.tokens_per_s_per_node)] {
            join_interval(a, b, ENGINE_SPREAD_BASIS);
        }
        for (a, b) in [(&mut i.tpot_ms, &o.tpot_ms), (&mut i.ttft_ms, &o.ttft_ms)] {
            if let (Some(a), Some(b)) = (a.as_mut(), b.as_ref()) {
                join_interval(a, b, ENGINE_SPREAD_BASIS);
            }
        }
    }
    Some(i)
}

/// The intervals of deployment `d`'s report `r` on `topo` as `serve` states them: its own
/// engine's, or, with no engine given, spanning every engine's prediction of the same
/// deployment ([`serve_intervals_across_engines`]); the page and the CLI both call this.
pub fn intervals_of(topo: &fabricscope_model::Topology, m: &crate::model::ServingModel, d: &Deployment, r: &ServeReport) -> Option<ServeIntervals> {
    let others: Vec<(Deployment, ServeReport)> = if d.engine.is_none() {
        crate::engine::ENGINES
            .iter()
            .filter_map(|e| {
                let de = Deployment { engine: Some(*e), ..*d };
                crate::step::evaluate(topo, m, &de).ok().map(|re| (de, re))
            })
            .collect()
    } else {
        Vec::new()
    };
    serve_intervals_across_engines(d, r, &others)
}

/// `kv-transfer`'s intervals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KvIntervals {
    pub time_ms: Interval,
    #[serde(rename = "effective_GBps")]
    pub effective_gbps: Interval,
}

/// The intervals of a KV transfer predicted at `time_ms` and `effective_gbps`; `validated` as
/// its band says (a paged cache or hardware without a measured transfer: extrapolated).
pub fn kv_intervals(time_ms: f64, effective_gbps: f64, validated: bool) -> Option<KvIntervals> {
    let (c, basis) = calibrated(Some(AccuracyClass::KvTransfer), validated)?;
    Some(KvIntervals { time_ms: c.time(time_ms, &basis), effective_gbps: c.throughput(effective_gbps, &basis) })
}

/// The intervals of a KV transfer through no named engine (`time_ms`, `effective_gbps`),
/// joined with those of the same transfer through each engine's connector (`others`: time ms,
/// effective GB/s, validated), so they hold the engines' request and posting costs.
pub fn kv_intervals_across_engines(time_ms: f64, effective_gbps: f64, validated: bool, others: &[(f64, f64, bool)]) -> Option<KvIntervals> {
    let mut i = kv_intervals(time_ms, effective_gbps, validated)?;
    for &(t, g, v) in others {
        let Some(o) = kv_intervals(t, g, v) else { continue };
        join_interval(&mut i.time_ms, &o.time_ms, ENGINE_SPREAD_BASIS);
        join_interval(&mut i.effective_gbps, &o.effective_gbps, ENGINE_SPREAD_BASIS);
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped table parses and all serving rows have an interval holding the prediction.
    #[test]
    fn shipped_table_has_an_interval_for_all_serving_rows() {
        let all = table().iter().find(|r| r.key == "all").expect("an 'all' row");
        let (lo, hi) = all.bounds.expect("bounds");
        assert!(lo <= 1.0 && 1.0 <= hi && all.rows >= 100, "{all:?}");
        let i = kv_intervals(10.0, 40.0, true).expect("KV transfer interval");
        assert!(i.time_ms.contains(10.0) && i.effective_gbps.contains(40.0));
        assert!(i.time_ms.basis.contains("constants fitted on all sources; interval left-one-source-out"), "{}", i.time_ms.basis);
        // Without an engine the interval also holds a slower engine's transfer.
        let j = kv_intervals_across_engines(10.0, 40.0, true, &[(30.0, 13.3, false)]).expect("joined");
        assert!(j.time_ms.contains(10.0) && j.time_ms.contains(30.0) && j.effective_gbps.contains(13.3) && j.effective_gbps.contains(40.0));
        assert!(j.time_ms.basis.contains(ENGINE_SPREAD_BASIS) && j.time_ms.extrapolated);
    }
}
