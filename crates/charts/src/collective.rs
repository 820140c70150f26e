//! Bus bandwidth against message size, the nccl-tests view of a collective: x is the message
//! size on a log2 axis, y the busbw per direction on a log10 axis, one line per series.
//! Written as SVG text directly.

use crate::scale::{exp2_label, log10_label, log10_range, log10_ticks, size_ticks};
use crate::svg::{error_svg, Axis, Doc};
use crate::theme::Theme;

/// One curve: `points` are (message size in bytes, busbw in GB/s per direction).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(u64, f64)>,
}

/// A point of a series to mark and label, e.g. where NCCL's algorithm or protocol changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    /// Index into the chart's series.
    pub series: usize,
    /// The x position, a size that is one of the series' points.
    pub bytes: u64,
    pub label: String,
}

/// Size, text and range of a collective chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartOptions {
    /// Pixels; the SVG carries a viewBox, so a page may scale it.
    pub width: u32,
    pub height: u32,
    /// Drawn above the plot when set.
    pub title: Option<String>,
    /// x range in bytes (powers of two read best).
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub x_label: String,
    pub y_label: String,
    /// Draws a guide at this size and marks each series' value there.
    pub highlight_bytes: Option<u64>,
    /// Accessible name of the image.
    pub description: String,
    /// Labelled markers on the curves (series 0's labels go above the line, others below).
    pub marks: Vec<Mark>,
}

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions {
            width: 880,
            height: 460,
            title: None,
            min_bytes: 8,
            max_bytes: 16 << 30,
            x_label: "message size, bytes (log scale)".into(),
            y_label: "busbw, GB/s per direction (log scale)".into(),
            highlight_bytes: None,
            description: "bus bandwidth against message size".into(),
            marks: Vec::new(),
        }
    }
}

/// Draws `series` as busbw (GB/s per direction) against message size. Points that a log axis
/// cannot show (zero, negative, not finite, outside the size range) are left out.
pub fn collective_chart(series: &[Series], opts: &ChartOptions, theme: &Theme) -> String {
    let (w, h) = (opts.width.clamp(200, 4000), opts.height.clamp(150, 4000));
    if series.iter().any(|s| s.points.len() > 1_000_000) {
        return error_svg(w, h, theme, "chart could not be drawn: too many points");
    }
    draw((w, h), series, opts, theme)
}

fn draw(size: (u32, u32), series: &[Series], opts: &ChartOptions, theme: &Theme) -> String {
    let min_b = opts.min_bytes.max(1);
    let max_b = opts.max_bytes.max(min_b.saturating_mul(2));
    let (x_lo, x_hi) = ((min_b as f64).log2(), (max_b as f64).log2());
    let curves: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter(|(b, g)| *b >= min_b && *b <= max_b && g.is_finite() && *g > 0.0)
                .map(|(b, g)| ((*b as f64).log2(), g.log10()))
                .collect()
        })
        .collect();
    let (y_lo, y_hi) = log10_range(curves.iter().flatten().map(|p| 10f64.powf(p.1)));

    let narrow = size.0 < 560;
    let x_ticks = size_ticks(x_lo.ceil() as u32, x_hi.floor() as u32, !narrow);
    let x_minor: Vec<f64> = (x_lo.ceil() as u32..=x_hi.floor() as u32).map(f64::from).collect();
    let y_ticks = log10_ticks(y_lo, y_hi);
    let y_minor: Vec<f64> = (y_lo.floor() as i32..=y_hi.ceil() as i32)
        .flat_map(|d| (1..10).map(move |m| (m as f64 * 10f64.powi(d)).log10()))
        .filter(|v| *v >= y_lo && *v <= y_hi)
        .collect();

    let (wf, hf) = (size.0 as f64, size.1 as f64);
    let mut d = Doc::new(size.0, size.1, theme);
    let title_h = if opts.title.is_some() { if narrow { 26.0 } else { 30.0 } } else { 0.0 };
    let top = if opts.title.is_some() { 8.0 + title_h } else { 16.0 };
    let right = wf - if narrow { 14.0 } else { 24.0 };
    let left = 8.0 + if narrow { 52.0 } else { 64.0 };
    let bottom = hf - 8.0 - if narrow { 40.0 } else { 46.0 };
    let x = Axis::new(x_lo, x_hi, left, right);
    let y = Axis::new(y_lo, y_hi, bottom, top);
    let (text, muted, grid, minor, axis) = (theme.text.hex(), theme.muted.hex(), theme.grid.hex(), theme.grid_minor.hex(), theme.axis.hex());
    let (lab, desc) = if narrow { (11.0, 12.0) } else { (12.0, 13.0) };

    if let Some(t) = &opts.title {
        d.text(wf / 2.0, 8.0 + title_h / 2.0, if narrow { 15.0 } else { 17.0 }, "middle", "middle", &text, 400, t);
    }
    for v in x_minor.iter().filter(|v| x.contains(**v)) {
        d.seg(x.px(*v), top, x.px(*v), bottom, &minor, 1.0);
    }
    for v in &y_minor {
        d.seg(left, y.px(*v), right, y.px(*v), &minor, 1.0);
    }
    for v in x_ticks.iter().filter(|v| x.contains(**v)) {
        let px = x.px(*v);
        d.seg(px, top, px, bottom, &grid, 1.0);
        d.seg(px, bottom, px, bottom + 4.0, &axis, 1.0);
        d.text(px, bottom + 8.0, lab, "middle", "hanging", &muted, 400, &exp2_label(*v));
    }
    for v in y_ticks.iter().filter(|v| y.contains(**v)) {
        let py = y.px(*v);
        d.seg(left, py, right, py, &grid, 1.0);
        d.seg(left - 4.0, py, left, py, &axis, 1.0);
        d.text(left - 8.0, py, lab, "end", "middle", &muted, 400, &log10_label(*v));
    }
    d.seg(left, top, left, bottom, &axis, 1.0);
    d.seg(left, bottom, right, bottom, &axis, 1.0);
    d.text((left + right) / 2.0, hf - 10.0, desc, "middle", "auto", &text, 400, &opts.x_label);
    d.vtext(14.0, (top + bottom) / 2.0, desc, &text, &opts.y_label);

    if let Some(hb) = opts.highlight_bytes.filter(|b| *b >= min_b && *b <= max_b) {
        let hx = x.px((hb as f64).log2());
        d.seg(hx, top, hx, bottom, &axis, 1.0);
    }
    d.flush();

    let width = if series.len() == 1 { 3.0 } else { 2.0 };
    let to_px = |p: &(f64, f64)| (x.px(p.0), y.px(p.1));
    for (i, pts) in curves.iter().enumerate() {
        let c = theme.series_color(i).hex();
        let px: Vec<(f64, f64)> = pts.iter().map(to_px).collect();
        d.polyline(&px, &c, width);
    }

    if let Some(hb) = opts.highlight_bytes {
        let hx = (hb as f64).log2();
        for (i, pts) in curves.iter().enumerate() {
            if let Some(p) = pts.iter().find(|p| (p.0 - hx).abs() < 1e-9) {
                let (cx, cy) = to_px(p);
                d.circle(cx, cy, 5.0, &theme.series_color(i).hex(), "none", 0.0);
                d.circle(cx, cy, 5.0, "none", &theme.background.hex(), 2.0);
            }
        }
    }

    // Marks: a hollow dot on the curve, its label above (series 0) or below (others); a
    // label that would crowd the previous one on the same series is left out, not the dot.
    let mark_font = if narrow { 10.0 } else { 11.0 };
    let mut last_label_x: Vec<Option<f64>> = vec![None; curves.len()];
    for m in &opts.marks {
        let Some(pts) = curves.get(m.series) else { continue };
        let mx = (m.bytes.max(1) as f64).log2();
        let Some(p) = pts.iter().find(|p| (p.0 - mx).abs() < 1e-9) else { continue };
        let c = theme.series_color(m.series).hex();
        let (px_x, px_y) = to_px(p);
        d.circle(px_x, px_y, 4.0, &theme.background.hex(), "none", 0.0);
        d.circle(px_x, px_y, 4.0, "none", &c, 2.0);
        if m.label.is_empty() {
            continue;
        }
        let est_w = m.label.chars().count() as f64 * mark_font * 0.55;
        if last_label_x[m.series].is_some_and(|lx| px_x - lx < est_w + 6.0) {
            continue;
        }
        last_label_x[m.series] = Some(px_x);
        let above = m.series == 0;
        let (anchor, dx) = if px_x - est_w / 2.0 < left {
            ("start", 2.0)
        } else if px_x + est_w / 2.0 > right {
            ("end", -2.0)
        } else {
            ("middle", 0.0)
        };
        if above {
            d.text(px_x + dx, px_y - 8.0, mark_font, anchor, "auto", &c, 400, &m.label);
        } else {
            d.text(px_x + dx, px_y + 8.0, mark_font, anchor, "hanging", &c, 400, &m.label);
        }
    }

    legend(&mut d, (right, bottom), series, theme, if narrow { 12.0 } else { 13.0 });
    d.finish(&opts.description)
}

/// The legend, in the plot's lower-right corner (busbw curves rise to the right, so that
/// corner stays empty). Labels start after their swatch; the box is sized from a generous
/// width estimate (SVG text cannot be measured here), so a wide font only eats padding.
fn legend(d: &mut Doc, corner: (f64, f64), series: &[Series], theme: &Theme, font_px: f64) {
    let rows: Vec<(usize, &str)> = series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.label.is_empty())
        .map(|(i, s)| (i, s.label.as_str()))
        .collect();
    if rows.is_empty() {
        return;
    }
    let row_h = font_px + 10.0;
    let text_w = rows.iter().map(|(_, l)| l.chars().count() as f64 * font_px * 0.56).fold(0.0, f64::max);
    let (pad, swatch, gap) = (10.0, 14.0, 8.0);
    let right = corner.0 - 10.0;
    let bottom = corner.1 - 10.0;
    let left = right - (2.0 * pad + swatch + gap + text_w);
    let top = bottom - (rows.len() as f64 * row_h + 2.0 * pad - 6.0);
    d.rect(left, top, right - left, bottom - top, &theme.background.hex(), &format!(" fill-opacity=\"0.92\" stroke=\"{}\"", theme.grid.hex()));
    for (k, (i, label)) in rows.iter().enumerate() {
        let cy = top + pad - 3.0 + k as f64 * row_h + row_h / 2.0;
        d.rect(left + pad, cy - 5.0, swatch, 10.0, &theme.series_color(*i).hex(), "");
        d.text(left + pad + swatch + gap, cy, font_px, "start", "middle", &theme.text.hex(), 400, label);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(label: &str, scale: f64) -> Series {
        let points = (3..=34)
            .map(|e| {
                (
                    1u64 << e,
                    scale * (1.0 - (-(e as f64 - 3.0) / 6.0).exp()) + 0.01,
                )
            })
            .collect();
        Series {
            label: label.into(),
            points,
        }
    }

    fn count(hay: &str, needle: &str) -> usize {
        hay.matches(needle).count()
    }

    fn has_text(svg: &str, t: &str) -> bool {
        crate::texts(svg).iter().any(|x| x == t)
    }

    #[test]
    fn draws_an_svg_with_axes_legend_and_one_line_per_series() {
        let s = [
            curve("4 nodes x 8 H100", 360.0),
            curve("32 nodes x 8 H100", 190.0),
        ];
        let svg = collective_chart(&s, &ChartOptions::default(), &Theme::light());
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("viewBox=\"0 0 880 460\""));
        assert!(svg.contains("busbw, GB/s per direction"));
        assert!(svg.contains("message size, bytes"));
        let t = Theme::light();
        assert_eq!(
            crate::polylines_in(&svg, t.series[0]),
            1,
            "one line per series"
        );
        assert_eq!(
            crate::polylines_in(&svg, t.series[1]),
            1,
            "one line per series"
        );
        assert_eq!(crate::polylines_in(&svg, t.series[2]), 0);
        for label in [
            "8B",
            "1K",
            "1M",
            "1G",
            "16G",
            "4 nodes x 8 H100",
            "32 nodes x 8 H100",
            "busbw, GB/s per direction (log scale)",
        ] {
            assert!(
                has_text(&svg, label),
                "missing text {label}: {:?}",
                crate::texts(&svg)
            );
        }
        // Balanced tags: every element that opens either self-closes or is closed.
        assert_eq!(count(&svg, "<text"), count(&svg, "</text>"));
        assert_eq!(count(&svg, "<svg"), count(&svg, "</svg>"));
    }

    #[test]
    fn themes_change_colours_not_content() {
        let s = [curve("a", 100.0)];
        let light = collective_chart(&s, &ChartOptions::default(), &Theme::light());
        let dark = collective_chart(&s, &ChartOptions::default(), &Theme::dark());
        assert_ne!(light, dark);
        assert_eq!(crate::polylines_in(&light, Theme::light().series[0]), 1);
        assert_eq!(crate::polylines_in(&dark, Theme::dark().series[0]), 1);
        assert!(dark.to_uppercase().contains("#161B26"));
        assert_eq!(crate::texts(&light), crate::texts(&dark));
    }

    #[test]
    fn unusable_points_are_skipped_not_fatal() {
        let s = [Series {
            label: "odd".into(),
            points: vec![
                (0, 1.0),
                (8, f64::NAN),
                (16, -3.0),
                (32, f64::INFINITY),
                (64, 2.0),
                (128, 4.0),
            ],
        }];
        let svg = collective_chart(&s, &ChartOptions::default(), &Theme::light());
        assert!(svg.starts_with("<svg"));
        assert_eq!(crate::polylines_in(&svg, Theme::light().series[0]), 1);
        let empty = collective_chart(&[], &ChartOptions::default(), &Theme::dark());
        assert!(empty.starts_with("<svg"));
        assert_eq!(crate::polylines_in(&empty, Theme::dark().series[0]), 0);
    }

    #[test]
    fn highlight_marks_each_series() {
        let s = [curve("a", 100.0), curve("b", 10.0)];
        let opts = ChartOptions {
            highlight_bytes: Some(1 << 30),
            title: Some("AllReduce".into()),
            ..ChartOptions::default()
        };
        let svg = collective_chart(&s, &opts, &Theme::light());
        assert_eq!(count(&svg, "<circle"), 4, "a dot and its halo per series");
        assert!(has_text(&svg, "AllReduce"));
    }

    #[test]
    fn marks_draw_a_dot_each_and_label_where_room() {
        let s = [curve("a", 100.0), curve("b", 10.0)];
        let opts = ChartOptions {
            marks: vec![
                Mark { series: 0, bytes: 8, label: "Tree LL".into() },
                Mark { series: 0, bytes: 16, label: "crowded".into() },
                Mark { series: 0, bytes: 1 << 20, label: "Ring Simple".into() },
                Mark { series: 1, bytes: 1 << 10, label: "Ring LL128".into() },
                Mark { series: 5, bytes: 8, label: "no such series".into() },
            ],
            ..ChartOptions::default()
        };
        let svg = collective_chart(&s, &opts, &Theme::light());
        assert_eq!(count(&svg, "<circle"), 8, "a filled dot and a ring per mark on a series");
        assert!(has_text(&svg, "Tree LL") && has_text(&svg, "Ring Simple") && has_text(&svg, "Ring LL128"));
        assert!(!has_text(&svg, "crowded") && !has_text(&svg, "no such series"));
    }

    #[test]
    fn narrow_charts_use_fewer_ticks() {
        let s = [curve("a", 100.0)];
        let opts = ChartOptions {
            width: 380,
            height: 320,
            ..ChartOptions::default()
        };
        let svg = collective_chart(&s, &opts, &Theme::light());
        assert!(has_text(&svg, "1M") && !has_text(&svg, "32K"));
    }
}
