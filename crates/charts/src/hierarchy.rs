//! The bandwidth ladder of a cluster: one bar per tier (HBM, scale-up, PCIe, NIC, leaf,
//! spine), per-GPU GB/s per direction on a log axis, latency printed beside each bar.

use crate::scale::{gbps_label, log10_label, log10_range, log10_ticks, nice_floor};
use crate::svg::{Axis, Doc};
use crate::text::{fit, text_width, wrap};
use crate::theme::Theme;

/// Size and text of a hierarchy chart. `height` 0 sizes it from the number of tiers.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyOptions {
    pub width: u32,
    pub height: u32,
    pub title: Option<String>,
    pub x_label: String,
    pub description: String,
    /// Bandwidth ratio between tier `i` and tier `i + 1` (upper / lower), written on the chart
    /// between their bars; empty draws none.
    pub ratios: Vec<f64>,
    /// Rows to reserve (at least the number of tiers), so the bars keep their size and place
    /// when a tier comes or goes (e.g. the spine appears once a second leaf is needed).
    pub rows: usize,
    /// Series colour of each bar (a design's, when comparing); empty: all the first.
    pub colors: Vec<usize>,
}

impl Default for HierarchyOptions {
    fn default() -> Self {
        HierarchyOptions {
            width: 880,
            height: 0,
            title: None,
            x_label: "bandwidth per GPU, GB/s per direction (log scale)".into(),
            description: "bandwidth per GPU at each tier of the hierarchy".into(),
            ratios: Vec::new(),
            rows: 0,
            colors: Vec::new(),
        }
    }
}

/// Bars for `tiers` = (name, GB/s per direction per GPU, latency in µs), top to bottom.
pub fn bandwidth_hierarchy_chart(tiers: &[(String, f64, f64)], theme: &Theme) -> String {
    bandwidth_hierarchy_chart_with(tiers, &HierarchyOptions::default(), theme)
}

/// [`bandwidth_hierarchy_chart`] with explicit options.
pub fn bandwidth_hierarchy_chart_with(
    tiers: &[(String, f64, f64)],
    opts: &HierarchyOptions,
    theme: &Theme,
) -> String {
    let w = opts.width.clamp(240, 4000);
    let auto_h = 70 + 44 * tiers.len().max(opts.rows).max(1) as u32 + if opts.title.is_some() { 30 } else { 0 };
    let h = if opts.height == 0 {
        auto_h
    } else {
        opts.height
    }
    .clamp(120, 4000);
    draw((w, h), tiers, opts, theme)
}

fn draw(size: (u32, u32), tiers: &[(String, f64, f64)], opts: &HierarchyOptions, theme: &Theme) -> String {
    let n = tiers.len().max(opts.rows);
    let (x_lo, _) = log10_range(tiers.iter().map(|t| t.1));
    // Start below the slowest tier so its bar has a visible length.
    let x_lo = nice_floor(crate::scale::pow10(x_lo) / 3.0).log10();
    let x_max = tiers.iter().map(|t| t.1).filter(|v| v.is_finite() && *v > 0.0).fold(crate::scale::pow10(x_lo + 1.0), f64::max).log10();
    let narrow = size.0 < 560;
    let (wf, hf0) = (size.0 as f64, size.1 as f64);
    let name_px = if narrow { 11.0 } else { 13.0 };
    let val_px = if narrow { 11.0 } else { 12.0 };
    let longest = tiers.iter().map(|t| text_width(&t.0, name_px, false)).fold(40.0, f64::max);
    let label_area = (longest + 16.0).min(wf * if narrow { 0.32 } else { 0.45 });
    // A phone-width chart drops the latencies (the tier table lists them) and shortens the
    // ratios, so bars keep their length.
    let value = |bw: f64, lat: f64| {
        if lat.is_finite() && lat > 0.0 && !narrow {
            format!("{} GB/s · {} µs", gbps_label(bw), gbps_label(lat))
        } else {
            format!("{} GB/s", gbps_label(bw))
        }
    };
    // The longest bar ends where its value label still fits.
    let widest_value = tiers.iter().filter(|t| t.1.is_finite() && t.1 > 0.0).map(|t| text_width(&value(t.1, t.2), val_px, false)).fold(0.0, f64::max);
    let title_lines = opts.title.as_deref().map(|t| wrap(t, 17.0, false, wf - 24.0)).unwrap_or_default();
    let xlab_lines = wrap(&opts.x_label, 13.0, false, wf - 24.0);
    let title_h = title_lines.len() as f64 * 22.0;
    // Room for wrapped axis titles: the chart grows rather than cut them.
    let hf = hf0;
    // Rows never shorter than their names: a short frame gets a taller chart (scaled by the
    // viewBox), not overlapping labels.
    let hf = hf.max((12.0 + title_h + n.max(1) as f64 * (name_px * 1.6) + 12.0 + 28.0 + xlab_lines.len() as f64 * 17.0).ceil());
    let (left, top) = (12.0 + label_area, 12.0 + title_h);
    // The ratios between tiers get their own column at the right, clear of the values.
    let ratio_col = opts
        .ratios
        .iter()
        .take(tiers.len().saturating_sub(1))
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| text_width(&ratio_text(*r, narrow), val_px, false) + 10.0)
        .fold(0.0, f64::max);
    let right = (wf - 12.0 - ratio_col - widest_value - 6.0).max(left + 40.0);
    let bottom = hf - 12.0 - 28.0 - xlab_lines.len() as f64 * 17.0;
    let x = Axis::new(x_lo, x_max, left, right);
    let y = Axis::new(0.0, n.max(1) as f64, bottom, top);
    let row = |i: usize| (n - i) as f64 - 0.5;
    let mut d = Doc::new(size.0, hf as u32, theme);
    let (text, muted, grid, axis) = (theme.text.hex(), theme.muted.hex(), theme.grid.hex(), theme.axis.hex());
    for (k, t) in title_lines.iter().enumerate() {
        d.text(wf / 2.0, 12.0 + k as f64 * 22.0, 17.0, "middle", "hanging", &text, 400, t);
    }
    let ticks: Vec<f64> = log10_ticks(x_lo, x_max).into_iter().filter(|v| x.contains(*v)).collect();
    // Every other tick when the labels would touch.
    let tick_w = ticks.iter().map(|v| text_width(&log10_label(*v), val_px, false)).fold(0.0, f64::max) + 8.0;
    let gap = if ticks.len() > 1 { (right - left) / (ticks.len() - 1) as f64 } else { f64::INFINITY };
    let every = if gap < tick_w { (tick_w / gap).ceil() as usize } else { 1 };
    for (k, v) in ticks.iter().enumerate() {
        let px = x.px(*v);
        d.seg(px, top, px, bottom, &grid, 1.0);
        d.seg(px, bottom, px, bottom + 4.0, &axis, 1.0);
        let lab = log10_label(*v);
        let half = text_width(&lab, val_px, false) / 2.0;
        if k % every == 0 && px + half <= wf - 2.0 {
            d.text(px, bottom + 8.0, val_px, "middle", "hanging", &muted, 400, &lab);
        }
    }
    d.seg(left, top, left, bottom, &axis, 1.0);
    d.seg(left, bottom, right, bottom, &axis, 1.0);
    d.flush();
    for (k, l) in xlab_lines.iter().enumerate() {
        d.text(wf / 2.0, bottom + 28.0 + k as f64 * 17.0, 13.0, "middle", "hanging", &text, 400, l);
    }

    let opacity = if theme.dark { 0.85 } else { 0.9 };
    for (i, (name, bw, lat)) in tiers.iter().enumerate() {
        let cy = y.px(row(i));
        d.seg(left - 4.0, cy, left, cy, &axis, 1.0);
        // A name wider than its column (a phone) is cut to it with an ellipsis; the table
        // below the chart has it whole.
        let shown = fit(name, name_px, false, label_area - 12.0);
        d.text(left - 8.0, cy, name_px, "end", "middle", &text, 400, &shown);
        if !(bw.is_finite() && *bw > 0.0) {
            continue;
        }
        let end = x.px(bw.log10());
        let (y0, y1) = (y.px(row(i) + 0.3), y.px(row(i) - 0.3));
        let bar = theme.series_color(opts.colors.get(i).copied().unwrap_or(0)).hex();
        d.rect(left, y0, end - left, y1 - y0, &bar, &format!(" fill-opacity=\"{opacity}\""));
        d.text(end + 6.0, cy, val_px, "start", "middle", &muted, 400, &value(*bw, *lat));
    }
    // The step between neighbouring tiers, in the gap between their bars, at the right edge.
    let ratio_color = theme.series_color(1).hex();
    for (i, r) in opts.ratios.iter().enumerate().take(tiers.len().saturating_sub(1)) {
        if !(r.is_finite() && *r > 0.0) {
            continue;
        }
        let cy = y.px(row(i) - 0.5);
        d.text(wf - 8.0, cy, val_px, "end", "middle", &ratio_color, 400, &ratio_text(*r, narrow));
    }
    d.finish(&opts.description)
}

/// "÷9" style text for the step from one tier to the next: how many times less bandwidth the
/// lower tier gives ("=" when equal, "×" when the lower one is faster).
pub fn ratio_label(r: f64) -> String {
    ratio_text(r, false)
}

/// [`ratio_label`], or its short form ("÷9", "×2", "=") on a narrow chart.
fn ratio_text(r: f64, short: bool) -> String {
    let (op, v) = if r >= 1.0 { ('÷', r) } else { ('×', 1.0 / r) };
    let n = if v >= 10.0 { format!("{v:.0}") } else { format!("{v:.1}") };
    let n = n.strip_suffix(".0").unwrap_or(&n);
    match ((r - 1.0).abs() < 0.005, short) {
        (true, true) => "=".into(),
        (true, false) => "= same bandwidth".into(),
        (false, true) => format!("{op}{n}"),
        (false, false) => format!("↓ {op}{n} per GPU"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dgx() -> Vec<(String, f64, f64)> {
        vec![
            ("HBM (80 GB)".into(), 3350.0, 0.6),
            ("NVLink4 NVSwitch".into(), 450.0, 0.9),
            ("PCIe Gen5 to NIC".into(), 64.0, 0.5),
            ("IB NDR 400G x8".into(), 50.0, 2.0),
        ]
    }

    #[test]
    fn one_bar_and_one_label_per_tier() {
        let svg = bandwidth_hierarchy_chart(&dgx(), &Theme::light());
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("GB/s per direction"));
        for name in [
            "HBM (80 GB)",
            "NVLink4 NVSwitch",
            "PCIe Gen5 to NIC",
            "IB NDR 400G x8",
        ] {
            assert!(
                crate::texts(&svg).iter().any(|t| t == name),
                "missing {name}"
            );
        }
        assert!(crate::texts(&svg).iter().any(|t| t == "450 GB/s · 0.9 µs"));
        assert_eq!(
            svg.matches("<rect").count(),
            1 + 4,
            "background and one bar per tier"
        );
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }

    #[test]
    fn ratios_are_written_between_the_bars_and_rows_are_reserved() {
        let opts = HierarchyOptions {
            ratios: vec![3350.0 / 450.0, 450.0 / 64.0, 64.0 / 50.0],
            rows: 6,
            ..HierarchyOptions::default()
        };
        let svg = bandwidth_hierarchy_chart_with(&dgx(), &opts, &Theme::light());
        let t = crate::texts(&svg);
        for want in ["↓ ÷7.4 per GPU", "↓ ÷7 per GPU", "↓ ÷1.3 per GPU"] {
            assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
        }
        // Six rows reserved: same height as a six-tier chart.
        assert!(svg.contains(&format!("height=\"{}\"", 70 + 44 * 6)), "{}", &svg[..120]);
        assert_eq!(ratio_label(1.0), "= same bandwidth");
        assert_eq!(ratio_label(0.5), "↓ ×2 per GPU");
        assert_eq!(ratio_label(18.0), "↓ ÷18 per GPU");
    }

    #[test]
    fn empty_and_bad_input_still_draw() {
        assert!(bandwidth_hierarchy_chart(&[], &Theme::dark()).starts_with("<svg"));
        let svg = bandwidth_hierarchy_chart(
            &[("x".into(), f64::NAN, 1.0), ("y".into(), 0.0, 0.0)],
            &Theme::dark(),
        );
        assert!(svg.starts_with("<svg"));
    }
}
