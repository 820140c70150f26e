//! Figures over seeds as bands: one row per study (a sharing case, or a design when
//! comparing), the p10-p90 band with the median marked and min-max whiskers, on a 0-1 axis
//! (the fraction of the same traffic on an ideal non-blocking fabric), or on a time axis (the
//! training step over seeds).

use crate::svg::{Axis, Doc};
use crate::text::fit;
use crate::theme::Theme;

/// One band: its label and its figures (dimensionless fractions, 0 to 1, or step times in
/// seconds for [`step_bands_chart`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BandRow {
    pub label: String,
    pub min: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub max: f64,
    /// Series colour index (a design's colour when comparing).
    pub color: usize,
}

/// The bands as SVG text, `width` wide; the title names the chart for screen readers.
pub fn fraction_bands_chart(rows: &[BandRow], width: u32, title: &str, theme: &Theme) -> String {
    let axis = BandAxis { lo: 0.0, hi: 1.0, ticks: vec![0.0, 0.25, 0.5, 0.75, 1.0], label: |t| format!("{:.0}%", t * 100.0), caption: "of the ideal non-blocking fabric's throughput" };
    bands_chart(rows, width, title, theme, &axis)
}

/// Training step times over seeds as bands (seconds: `BandRow`'s figures are step times here),
/// on an axis that starts from 0 when the rows spread over more than a fifth of their largest
/// value, else at a tick just below the shortest (a few percent between seeds would not show
/// on an axis from 0; the tick labels say where it starts); shorter is better.
pub fn step_bands_chart(rows: &[BandRow], width: u32, title: &str, theme: &Theme) -> String {
    let finite = || rows.iter().flat_map(|r| [r.min, r.max]).filter(|v| v.is_finite() && *v > 0.0);
    let max = finite().fold(0.0, f64::max);
    let min = finite().fold(f64::INFINITY, f64::min);
    let (lo, hi, step) = if !(min < max * 0.8) && max > 0.0 {
        // Five intervals over the spread with room on both sides (at least 2% of the value).
        let step = crate::scale::nice_ceil(((max - min) * 1.4).max(max * 0.02) / 5.0);
        ((min / step - 0.5).floor().max(0.0) * step, (max / step + 0.5).ceil() * step, step)
    } else {
        let (hi, step) = crate::scale::linear_range(max, 5);
        (0.0, hi, step)
    };
    let ticks = (0..=(((hi - lo) / step).round() as usize)).map(|i| lo + i as f64 * step).collect();
    let axis = BandAxis { lo, hi, ticks, label: |t| if t == 0.0 { "0".into() } else { crate::training::seconds_label(t) }, caption: "training step time (shorter is better)" };
    bands_chart(rows, width, title, theme, &axis)
}

/// A band chart's horizontal axis: from 0 to `hi`, its ticks, their label, and what it measures.
struct BandAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    label: fn(f64) -> String,
    caption: &'static str,
}

fn bands_chart(rows: &[BandRow], width: u32, title: &str, theme: &Theme, axis: &BandAxis) -> String {
    let w = width.clamp(280, 2000) as f64;
    let narrow = w < 560.0;
    let fs = if narrow { 11.0 } else { 12.0 };
    let label_w = if narrow { 84.0 } else { 150.0 };
    let row_h = 30.0;
    let h = 16.0 + row_h * rows.len().max(1) as f64 + 40.0;
    let mut d = Doc::new(w as u32, h as u32, theme);
    let x = Axis::new(axis.lo, axis.hi, label_w + 8.0, w - 56.0);
    let bottom = 16.0 + row_h * rows.len().max(1) as f64;
    for &t in &axis.ticks {
        let px = x.px(t);
        d.seg(px, 10.0, px, bottom, &theme.grid.hex(), 1.0);
        d.text(px, bottom + 14.0, fs - 1.0, "middle", "middle", &theme.muted.hex(), 400, &(axis.label)(t));
    }
    d.flush();
    d.text(x.px((axis.lo + axis.hi) / 2.0), bottom + 31.0, fs - 1.0, "middle", "middle", &theme.muted.hex(), 400, axis.caption);
    let clamp = |v: f64| if v.is_finite() { v.clamp(axis.lo, axis.hi) } else { axis.lo };
    for (i, r) in rows.iter().enumerate() {
        let y = 16.0 + row_h * (i as f64 + 0.5);
        let c = theme.series_color(r.color).hex();
        d.text(4.0, y, fs, "start", "middle", &theme.text.hex(), 400, &fit(&r.label, fs, false, label_w - 6.0));
        let (lo, hi) = (x.px(clamp(r.min)), x.px(clamp(r.max)));
        d.seg(lo, y, hi, y, &c, 1.5);
        d.seg(lo, y - 5.0, lo, y + 5.0, &c, 1.5);
        d.seg(hi, y - 5.0, hi, y + 5.0, &c, 1.5);
        d.flush();
        let (b0, b1) = (x.px(clamp(r.p10)), x.px(clamp(r.p90)));
        // A band at least 3 px wide, so a single value (deterministic routing) still shows.
        let bw = (b1 - b0).max(3.0);
        let _ = {
            use std::fmt::Write;
            write!(
                d.s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"16\" fill=\"{c}\" fill-opacity=\"0.35\" stroke=\"{c}\" data-p10=\"{:.4}\" data-p90=\"{:.4}\"/>",
                b0.min(b1 - bw / 2.0).max(x.p0 - 1.5),
                y - 8.0,
                clamp(r.p10),
                clamp(r.p90)
            )
        };
        let m = x.px(clamp(r.p50));
        d.seg(m, y - 10.0, m, y + 10.0, &theme.text.hex(), 2.5);
        d.flush();
        d.text(w - 50.0, y, fs, "start", "middle", &theme.text.hex(), 600, &(axis.label)(clamp(r.p50)));
    }
    d.finish(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_sit_where_their_percentiles_are() {
        let rows = [
            BandRow { label: "ECMP".into(), min: 0.3, p10: 0.333, p50: 0.4, p90: 0.5, max: 0.5, color: 0 },
            BandRow { label: "adaptive".into(), min: 0.5, p10: 0.5, p50: 0.5, p90: 0.5, max: 0.5, color: 1 },
        ];
        for t in [Theme::light(), Theme::dark()] {
            let svg = fraction_bands_chart(&rows, 640, "fraction", &t);
            assert_eq!(svg.matches("data-p10=").count(), 2);
            assert!(svg.contains("data-p10=\"0.3330\" data-p90=\"0.5000\""));
            let texts = crate::texts(&svg);
            assert!(texts.contains(&"40%".to_string()) && texts.contains(&"ECMP".to_string()), "{texts:?}");
        }
    }

    /// Step times sit on a seconds axis that reaches past the slowest seed: a 2.4 s median
    /// with a 3.1 s worst seed (a spread of over a fifth of the value) on an axis from 0 to
    /// 4 s; seeds within a few percent on an axis that starts just below them, so the band
    /// is wider than a hair.
    #[test]
    fn step_bands_use_a_seconds_axis_past_the_slowest_seed() {
        let rows = [
            BandRow { label: "alone".into(), min: 2.0, p10: 2.0, p50: 2.0, p90: 2.0, max: 2.0, color: 0 },
            BandRow { label: "over 16 seeds".into(), min: 2.1, p10: 2.2, p50: 2.4, p90: 2.9, max: 3.1, color: 1 },
        ];
        let svg = step_bands_chart(&rows, 720, "step", &Theme::dark());
        let texts = crate::texts(&svg);
        for t in ["2.40 s", "2.00 s", "4.00 s", "0"] {
            assert!(texts.contains(&t.to_string()), "{t} in {texts:?}");
        }
        assert!(svg.contains("data-p10=\"2.2000\" data-p90=\"2.9000\""), "the band's figures are not clamped to a 0-1 axis");
        let close = [
            BandRow { label: "alone".into(), min: 14.19, p10: 14.19, p50: 14.19, p90: 14.19, max: 14.19, color: 0 },
            BandRow { label: "over 16 seeds".into(), min: 14.3, p10: 14.4, p50: 14.6, p90: 14.9, max: 15.1, color: 1 },
        ];
        let svg = step_bands_chart(&close, 720, "step", &Theme::light());
        let texts = crate::texts(&svg);
        assert!(!texts.contains(&"0".to_string()) && texts.contains(&"14.60 s".to_string()), "{texts:?}");
        let ticks: Vec<f64> = texts.iter().filter_map(|t| t.strip_suffix(" s")?.parse().ok()).collect();
        let (lo, hi) = (ticks.iter().cloned().fold(f64::MAX, f64::min), ticks.iter().cloned().fold(0.0, f64::max));
        assert!(lo <= 14.19 && lo >= 13.0 && hi >= 15.1 && hi <= 16.0, "axis {lo}-{hi} s around 14.19-15.1 s: {texts:?}");
        let width = |svg: &str| -> f64 { svg.split("width=\"").filter_map(|p| p.split('"').next()?.parse::<f64>().ok()).filter(|w| *w < 700.0).fold(0.0, f64::max) };
        assert!(width(&svg) > 100.0, "the p10-p90 band is wide enough to see: {} px", width(&svg));
    }
}

/// A collective's busbw against message size under a flow study: alone on the fabric (the
/// analytical model) and over the study's seeds (the median, shaded from p10 to p90).
pub fn busbw_spread_chart(rows: &[fabricscope_flow::compose::BusbwSpread], op: &str, width: u32, compact: bool, theme: &Theme) -> String {
    use crate::collective::{collective_chart, ChartOptions, Series};
    let pts = |f: fn(&fabricscope_flow::compose::BusbwSpread) -> f64| rows.iter().map(|r| (r.bytes, f(r))).collect();
    let series = [
        Series { label: "alone on the fabric (analytical model)".into(), points: pts(|r| r.alone), ..Series::default() },
        Series {
            label: "under this study: median over seeds, shaded p10 to p90".into(),
            points: pts(|r| r.p50),
            spread: rows.iter().map(|r| (r.p10, r.p90)).collect(),
            ..Series::default()
        },
    ];
    let opts = ChartOptions {
        width,
        height: if compact { 340 } else { 380 },
        min_bytes: rows.first().map_or(1 << 16, |r| r.bytes),
        max_bytes: rows.last().map_or(16 << 30, |r| r.bytes),
        y_label: "busbw, GB/s per direction".into(),
        linear: true,
        description: format!("{op} busbw against message size, alone on the fabric and over the flow model's seeds"),
        ..ChartOptions::default()
    };
    collective_chart(&series, &opts, theme)
}

#[cfg(test)]
mod spread_tests {
    use super::*;
    use fabricscope_flow::compose::BusbwSpread;

    #[test]
    fn the_study_is_a_shaded_median_under_the_analytical_line() {
        let rows: Vec<BusbwSpread> = (16..=34).map(|e| BusbwSpread { bytes: 1 << e, alone: 300.0, p10: 150.0, p50: 200.0, p90: 250.0 }).collect();
        let svg = busbw_spread_chart(&rows, "AllReduce", 720, false, &Theme::light());
        assert_eq!(svg.matches("data-role=\"band\"").count(), 1, "one shaded spread");
        assert!(svg.contains("alone on the fabric") && svg.contains("p10 to p90"));
    }
}
