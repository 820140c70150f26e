//! Throughput fraction over seeds as bands: one row per study (a sharing case, or a design
//! when comparing), the p10-p90 band with the median marked and min-max whiskers, on a 0-1
//! axis (the fraction of the same traffic on an ideal non-blocking fabric).

use crate::svg::{Axis, Doc};
use crate::text::fit;
use crate::theme::Theme;

/// One band: its label and its figures (dimensionless fractions, 0 to 1).
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
    let w = width.clamp(280, 2000) as f64;
    let narrow = w < 560.0;
    let fs = if narrow { 11.0 } else { 12.0 };
    let label_w = if narrow { 84.0 } else { 150.0 };
    let row_h = 30.0;
    let h = 16.0 + row_h * rows.len().max(1) as f64 + 40.0;
    let mut d = Doc::new(w as u32, h as u32, theme);
    let x = Axis::new(0.0, 1.0, label_w + 8.0, w - 56.0);
    let bottom = 16.0 + row_h * rows.len().max(1) as f64;
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let px = x.px(t);
        d.seg(px, 10.0, px, bottom, &theme.grid.hex(), 1.0);
        d.text(px, bottom + 14.0, fs - 1.0, "middle", "middle", &theme.muted.hex(), 400, &format!("{:.0}%", t * 100.0));
    }
    d.flush();
    d.text(x.px(0.5), bottom + 31.0, fs - 1.0, "middle", "middle", &theme.muted.hex(), 400, "of the ideal non-blocking fabric's throughput");
    let clamp = |v: f64| if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
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
        d.text(w - 50.0, y, fs, "start", "middle", &theme.text.hex(), 600, &format!("{:.0}%", clamp(r.p50) * 100.0));
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
