//! The bandwidth ladder of a cluster: one bar per tier (HBM, scale-up, PCIe, NIC, leaf,
//! spine), per-GPU GB/s per direction on a log axis, latency printed beside each bar.

use crate::scale::{gbps_label, log10_label, log10_range, log10_ticks, nice_floor};
use crate::scale::{px, TickAxis};
use crate::svg::{error_svg, finish};
use crate::theme::Theme;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
    let mut out = String::new();
    match draw(&mut out, (w, h), tiers, opts, theme) {
        Ok(()) => finish(out, &opts.description),
        Err(e) => error_svg(w, h, theme, &format!("chart could not be drawn: {e}")),
    }
}

fn draw(
    out: &mut String,
    size: (u32, u32),
    tiers: &[(String, f64, f64)],
    opts: &HierarchyOptions,
    theme: &Theme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let n = tiers.len().max(opts.rows);
    let (x_lo, x_hi) = log10_range(tiers.iter().map(|t| t.1));
    // Start below the slowest tier so its bar has a visible length.
    let x_lo = nice_floor(10f64.powf(x_lo) / 3.0).log10();
    // Headroom right of the longest bar for its value label.
    let x_hi = x_hi + 0.9;
    let font = theme.font;
    let narrow = size.0 < 560;
    let mut names: Vec<String> = tiers.iter().map(|t| t.0.clone()).collect();
    names.resize(n, String::new());
    let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(4) as u32;
    let label_area = (longest * 7 + 16).clamp(60, size.0 / 2);

    let root = SVGBackend::with_string(out, size).into_drawing_area();
    root.fill(&theme.background.color()).map_err(err)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .margin(12)
        .margin_right(20)
        .x_label_area_size(44)
        .y_label_area_size(label_area);
    if let Some(t) = &opts.title {
        builder.caption(t, (font, px(17)).into_font().color(&theme.text.color()));
    }
    let row = |i: usize| (n - i) as f64 - 0.5;
    let x = TickAxis::new(x_lo, x_hi, log10_ticks(x_lo, x_hi.floor()), Vec::new());
    let y = TickAxis::new(0.0, n.max(1) as f64, (0..n).map(row).collect(), Vec::new());
    let mut chart = builder.build_cartesian_2d(x, y).map_err(err)?;
    let x_fmt = |v: &f64| log10_label(*v);
    let y_fmt = |v: &f64| {
        let i = n as f64 - 0.5 - v;
        names
            .get(i.round().max(0.0) as usize)
            .cloned()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc(opts.x_label.as_str())
        .label_style(
            (font, px(if narrow { 11 } else { 12 }))
                .into_font()
                .color(&theme.muted.color()),
        )
        .y_label_style(
            (font, px(if narrow { 11 } else { 13 }))
                .into_font()
                .color(&theme.text.color()),
        )
        .axis_desc_style((font, px(13)).into_font().color(&theme.text.color()))
        .bold_line_style(theme.grid.color().stroke_width(1))
        .light_line_style(theme.grid_minor.color().stroke_width(1))
        .axis_style(theme.axis.color().stroke_width(1))
        .set_all_tick_mark_size(4)
        .draw()
        .map_err(err)?;

    let value_style = (font, px(12))
        .into_font()
        .color(&theme.muted.color())
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (_, bw, lat)) in tiers.iter().enumerate() {
        if !(bw.is_finite() && *bw > 0.0) {
            continue;
        }
        let y = row(i);
        let end = bw.log10();
        let c = theme.series_color(0).color();
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x_lo, y - 0.3), (end, y + 0.3)],
                c.mix(if theme.dark { 0.85 } else { 0.9 }).filled(),
            )))
            .map_err(err)?;
        let text = if lat.is_finite() && *lat > 0.0 {
            format!("{} GB/s · {} µs", gbps_label(*bw), gbps_label(*lat))
        } else {
            format!("{} GB/s", gbps_label(*bw))
        };
        let (px, py) = chart.backend_coord(&(end, y));
        root.draw(&Text::new(text, (px + 6, py), value_style.clone()))
            .map_err(err)?;
    }
    // The step between neighbouring tiers, in the gap between their bars, at the right edge.
    let ratio_style = (font, px(if narrow { 11 } else { 12 }))
        .into_font()
        .color(&theme.series_color(1).color())
        .pos(Pos::new(HPos::Right, VPos::Center));
    for (i, r) in opts.ratios.iter().enumerate().take(tiers.len().saturating_sub(1)) {
        if !(r.is_finite() && *r > 0.0) {
            continue;
        }
        let y = row(i) - 0.5;
        let (px_r, py) = chart.backend_coord(&(x_hi, y));
        let text = ratio_label(*r);
        root.draw(&Text::new(text, (px_r - 4, py), ratio_style.clone()))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// "÷9" style text for the step from one tier to the next: how many times less bandwidth the
/// lower tier gives ("=" when equal, "×" when the lower one is faster).
pub fn ratio_label(r: f64) -> String {
    let fmt = |v: f64| {
        if v >= 10.0 {
            format!("{v:.0}")
        } else {
            let s = format!("{v:.1}");
            s.trim_end_matches(".0").to_string()
        }
    };
    if (r - 1.0).abs() < 0.005 {
        "= same bandwidth".into()
    } else if r > 1.0 {
        format!("↓ ÷{} per GPU", fmt(r))
    } else {
        format!("↓ ×{} per GPU", fmt(1.0 / r))
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
