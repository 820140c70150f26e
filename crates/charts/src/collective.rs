//! Bus bandwidth against message size, the nccl-tests view of a collective: x is the message
//! size on a log2 axis, y the busbw per direction on a linear or log10 axis, one line per
//! series. Written as SVG text directly.
//!
//! Layout, top to bottom: title, the y-axis title (horizontal, so it is never clipped at any
//! height), the legend in its own band (it never covers a curve), the plot, the x ticks and
//! the x-axis title. Every text is measured with [`crate::text`]; a chart too short for its
//! text grows taller rather than overlap.

use crate::scale::{exp2_label, gbps_label, linear_range, log10_label, log10_range, log10_ticks, size_ticks_fit};
use crate::svg::{error_svg, Axis, Doc};
use crate::text::{text_width, wrap};
use crate::theme::Theme;

/// One curve: `points` are (message size in bytes, busbw in GB/s per direction).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(u64, f64)>,
    /// Relative half-width of the error band at each point (0.04 = ±4%), shaded around the
    /// line; empty, or 0 at a point, where nothing backs the number.
    pub band: Vec<f64>,
    /// A band of its own at each point instead, (low, high) in GB/s per direction (e.g. p10
    /// to p90 over the flow model's seeds); used where not empty.
    pub spread: Vec<(f64, f64)>,
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

/// Measured points drawn as dots over the curves (nccl-tests results of a real cluster):
/// (message size in bytes, busbw in GB/s per direction).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Points {
    pub label: String,
    pub points: Vec<(u64, f64)>,
}

/// Size, text and range of a collective chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartOptions {
    /// Pixels; the SVG carries a viewBox, so a page may scale it. The height grows when the
    /// text needs more room than it leaves.
    pub width: u32,
    pub height: u32,
    /// Drawn above the plot when set.
    pub title: Option<String>,
    /// x range in bytes (powers of two read best).
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub x_label: String,
    pub y_label: String,
    /// A linear y axis from 0 (differences read as distances) instead of log10.
    pub linear: bool,
    /// Draws a guide at this size and marks each series' value there.
    pub highlight_bytes: Option<u64>,
    /// Accessible name of the image.
    pub description: String,
    /// Labelled markers on the curves (series 0's labels go above the line, others below).
    pub marks: Vec<Mark>,
    /// The x values are counts (nodes: 2, 64, 4096), not bytes: ticks read as numbers.
    pub x_counts: bool,
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
            linear: false,
            highlight_bytes: None,
            description: "bus bandwidth against message size".into(),
            marks: Vec::new(),
            x_counts: false,
        }
    }
}

/// Dash pattern of series `i`: the first solid, the others each their own, so two lines
/// that run together stay apart by pattern as well as by colour.
pub fn dash(i: usize) -> &'static str {
    ["", "9 5", "2 4", "12 4 2 4", "5 3", "1 3"][i % 6]
}

/// Draws `series` as busbw (GB/s per direction) against message size. Points that the axes
/// cannot show (zero, negative, not finite, outside the size range) are left out;
/// Measured points are drawn by [`collective_chart_with_points`].
pub fn collective_chart(series: &[Series], opts: &ChartOptions, theme: &Theme) -> String {
    chart::<false>(series, opts, &[], theme)
}

/// [`collective_chart`] with `points` (measured points, each set in the colour after the
/// series') drawn as dots with legend entries ([`crate::check`]). A separate instance, so
/// pages that never draw points (the explorer) carry no code for them.
pub fn collective_chart_with_points(series: &[Series], opts: &ChartOptions, points: &[Points], theme: &Theme) -> String {
    chart::<true>(series, opts, points, theme)
}

fn chart<const DOTS: bool>(series: &[Series], opts: &ChartOptions, points: &[Points], theme: &Theme) -> String {
    let (w, h) = (opts.width.clamp(200, 4000), opts.height.clamp(150, 4000));
    if series.iter().any(|s| s.points.len() > 1_000_000) || (DOTS && points.iter().any(|p| p.points.len() > 1_000_000)) {
        return error_svg(w, h, theme, "chart could not be drawn: too many points");
    }
    draw::<DOTS>((w, h), series, opts, points, theme)
}

/// Which earlier series each series runs on top of (within 1.5 px everywhere it is drawn).
fn coincident(curves: &[Vec<(f64, f64)>]) -> Vec<Option<usize>> {
    (0..curves.len())
        .map(|j| {
            (0..j).find(|&i| {
                let (a, b) = (&curves[i], &curves[j]);
                !b.is_empty()
                    && a.len() == b.len()
                    && a.iter().zip(b).all(|(p, q)| (p.0 - q.0).abs() < 0.5 && (p.1 - q.1).abs() < 1.5)
            })
        })
        .collect()
}

fn draw<const DOTS: bool>(size: (u32, u32), series: &[Series], opts: &ChartOptions, points: &[Points], theme: &Theme) -> String {
    let min_b = opts.min_bytes.max(1);
    let max_b = opts.max_bytes.max(min_b.saturating_mul(2));
    let (x_lo, x_hi) = ((min_b as f64).log2(), (max_b as f64).log2());
    let data: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter(|(b, g)| *b >= min_b && *b <= max_b && g.is_finite() && *g > 0.0)
                .map(|(b, g)| ((*b as f64).log2(), *g))
                .collect()
        })
        .collect();
    let dots: Vec<Vec<(f64, f64)>> = points
        .iter()
        .filter(|_| DOTS)
        .map(|s| s.points.iter().filter(|(b, g)| *b >= min_b && *b <= max_b && g.is_finite() && *g > 0.0).map(|(b, g)| ((*b as f64).log2(), *g)).collect())
        .collect();
    let max_v = data.iter().chain(&dots).flatten().map(|p| p.1).fold(0.0, f64::max);

    let wf = size.0 as f64;
    let narrow = size.0 < 560;
    let pad = 8.0;
    let (lab, desc, title_px) = if narrow { (11.0, 12.0, 15.0) } else { (12.0, 13.0, 17.0) };
    let line = |px: f64| (px * 1.3).ceil();
    let inner = wf - 2.0 * pad;

    // Text above the plot, each block wrapped to the width.
    let title_lines = opts.title.as_deref().map(|t| wrap(t, title_px, false, inner)).unwrap_or_default();
    let ylab_lines = wrap(&opts.y_label, desc, false, inner);
    let coinc = coincident(&data.iter().map(|d| d.iter().map(|p| (p.0 * 20.0, p.1)).collect()).collect::<Vec<_>>());
    let leg = if narrow { lab } else { lab + 1.0 };
    // Point sets join the legend after the series (drawn with a dot sample).
    let keyed: Vec<Series>;
    let legend_rows = legend_layout(
        if DOTS {
            keyed = series.iter().cloned().chain(points.iter().map(|p| Series { label: p.label.clone(), ..Series::default() })).collect();
            &keyed
        } else {
            series
        },
        &coinc,
        leg,
        inner,
    );
    let legend_h = legend_height(&legend_rows, leg);
    let mut y = pad;
    let title_y = y;
    y += title_lines.len() as f64 * line(title_px);
    let legend_y = y + if legend_h > 0.0 { 2.0 } else { 0.0 };
    y = legend_y + legend_h;
    let ylab_y = y + 2.0;
    y = ylab_y + ylab_lines.len() as f64 * line(desc);
    let top = y + lab * 0.6 + 4.0;

    // Below the plot: tick labels, then the x-axis title.
    let xlab_lines = wrap(&opts.x_label, desc, false, inner);
    let below = 8.0 + line(lab) + 4.0 + xlab_lines.len() as f64 * line(desc) + pad;
    // The plot keeps at least 90 px (60 on a phone); the SVG grows for it.
    let min_plot = if narrow { 60.0 } else { 90.0 };
    let hf = (size.1 as f64).max(top + min_plot + below).ceil();
    let bottom = hf - below;

    // y scale and its tick labels (their width sets the left margin).
    let plot_h = bottom - top;
    let max_ticks = ((plot_h / (lab * 2.6)).floor() as usize).clamp(3, 8);
    let (y_lo, y_hi, y_ticks, y_minor): (f64, f64, Vec<f64>, Vec<f64>) = if opts.linear {
        let (hi, step) = linear_range(max_v, max_ticks);
        let n = (hi / step).round() as usize;
        let ticks = (0..=n).map(|k| k as f64 * step).collect();
        (0.0, hi, ticks, Vec::new())
    } else {
        let (lo, hi) = log10_range(data.iter().chain(&dots).flatten().map(|p| p.1));
        let mut ticks = log10_ticks(lo, hi);
        // Keep every other tick when they would crowd a short plot.
        while ticks.len() > max_ticks.max(2) + 1 {
            ticks = ticks.into_iter().step_by(2).collect();
        }
        let minor = (lo.floor() as i32..=hi.ceil() as i32)
            .flat_map(|d| (1..10).map(move |m| (m as f64 * 10f64.powi(d)).log10()))
            .filter(|v| *v >= lo && *v <= hi)
            .collect();
        (lo, hi, ticks, minor)
    };
    let y_label_of = |v: f64| if opts.linear { gbps_label(v) } else { log10_label(v) };
    let tick_w = y_ticks.iter().map(|v| text_width(&y_label_of(*v), lab, false)).fold(0.0, f64::max);
    let left = pad + tick_w + 8.0;
    // Counts as integers (1 << e): no float power in the bundle.
    let x_label_of = |e: f64| if opts.x_counts { format!("{}", 1u64 << (e.round().clamp(0.0, 63.0) as u32)) } else { exp2_label(e) };
    let last_x = x_label_of(x_hi.floor());
    let right = wf - pad - (text_width(&last_x, lab, false) / 2.0).max(6.0);
    let widest_x = text_width("256M", lab, false) * 2.0 + 10.0;
    let x_ticks = size_ticks_fit(x_lo.ceil() as u32, x_hi.floor() as u32, ((right - left) / widest_x).floor().max(2.0) as usize);
    let x = Axis::new(x_lo, x_hi, left, right);
    let yv = |v: f64| if opts.linear { v } else { v.log10() };
    let ya = Axis::new(y_lo, y_hi, bottom, top);

    let mut d = Doc::new(size.0, hf as u32, theme);
    let (text, muted, grid, minor, axis) = (theme.text.hex(), theme.muted.hex(), theme.grid.hex(), theme.grid_minor.hex(), theme.axis.hex());
    for (k, t) in title_lines.iter().enumerate() {
        d.text(wf / 2.0, title_y + k as f64 * line(title_px), title_px, "middle", "hanging", &text, 400, t);
    }
    for (k, t) in ylab_lines.iter().enumerate() {
        d.text(pad, ylab_y + k as f64 * line(desc), desc, "start", "hanging", &text, 400, t);
    }
    for v in (x_lo.ceil() as u32..=x_hi.floor() as u32).map(f64::from).filter(|v| x.contains(*v)) {
        d.seg(x.px(v), top, x.px(v), bottom, &minor, 1.0);
    }
    for v in &y_minor {
        d.seg(left, ya.px(*v), right, ya.px(*v), &minor, 1.0);
    }
    for v in x_ticks.iter().filter(|v| x.contains(**v)) {
        let px = x.px(*v);
        d.seg(px, top, px, bottom, &grid, 1.0);
        d.seg(px, bottom, px, bottom + 4.0, &axis, 1.0);
        d.text(px, bottom + 8.0, lab, "middle", "hanging", &muted, 400, &x_label_of(*v));
    }
    for v in y_ticks.iter().filter(|v| ya.contains(**v)) {
        let py = ya.px(*v);
        d.seg(left, py, right, py, &grid, 1.0);
        d.seg(left - 4.0, py, left, py, &axis, 1.0);
        d.text(left - 8.0, py, lab, "end", "middle", &muted, 400, &y_label_of(*v));
    }
    d.seg(left, top, left, bottom, &axis, 1.0);
    d.seg(left, bottom, right, bottom, &axis, 1.0);
    let xlab_y = bottom + 8.0 + line(lab) + 4.0;
    for (k, t) in xlab_lines.iter().enumerate() {
        d.text((left + right) / 2.0, xlab_y + k as f64 * line(desc), desc, "middle", "hanging", &text, 400, t);
    }
    if let Some(hb) = opts.highlight_bytes.filter(|b| *b >= min_b && *b <= max_b) {
        let hx = x.px((hb as f64).log2());
        d.seg(hx, top, hx, bottom, &axis, 1.0);
    }
    d.flush();
    // Where the plot is and how it maps, for a page's crosshair (no layout needed to read it).
    {
        use std::fmt::Write;
        let _ = write!(
            d.s,
            "<rect data-role=\"plot\" x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" data-x-lo=\"{x_lo}\" data-x-hi=\"{x_hi}\" data-y-lo=\"{y_lo}\" data-y-hi=\"{y_hi}\" data-y-log=\"{}\"/>",
            right - left,
            bottom - top,
            !opts.linear
        );
    }

    let width = if series.len() == 1 { 3.0 } else { 2.0 };
    let to_px = |p: &(f64, f64)| (x.px(p.0), ya.px(yv(p.1)));
    // Error bands under the lines: the value x (1 ± band), kept inside the plot.
    for (i, s) in series.iter().enumerate() {
        // (log2 size, low, high) of each point with a band.
        let pts: Vec<(f64, f64, f64)> = if s.spread.is_empty() {
            s.points
                .iter()
                .zip(&s.band)
                .filter(|((b, g), e)| *b >= min_b && *b <= max_b && g.is_finite() && *g > 0.0 && **e > 0.0)
                .map(|((b, g), e)| ((*b as f64).log2(), (g * (1.0 - e)).max(g * 0.01), g * (1.0 + e)))
                .collect()
        } else {
            s.points
                .iter()
                .zip(&s.spread)
                .filter(|((b, _), (lo, hi))| *b >= min_b && *b <= max_b && lo.is_finite() && hi.is_finite() && *lo > 0.0 && hi >= lo)
                .map(|((b, _), (lo, hi))| ((*b as f64).log2(), *lo, *hi))
                .collect()
        };
        if pts.len() < 2 {
            continue;
        }
        let clamp = |py: f64| py.clamp(top, bottom);
        let upper = pts.iter().map(|(bx, _, hi)| (x.px(*bx), clamp(ya.px(yv(*hi)))));
        let lower = pts.iter().rev().map(|(bx, lo, _)| (x.px(*bx), clamp(ya.px(yv(*lo)))));
        let mut path = String::from("M");
        for (k, (px, py)) in upper.chain(lower).enumerate() {
            use std::fmt::Write;
            let _ = write!(path, "{}{px:.1} {py:.1}", if k == 0 { "" } else { "L" });
        }
        use std::fmt::Write;
        let _ = write!(d.s, "<path data-role=\"band\" d=\"{path}Z\" fill=\"{}\" fill-opacity=\"0.16\" stroke=\"none\"/>", theme.series_color(i).hex());
    }
    for (i, pts) in data.iter().enumerate() {
        let c = theme.series_color(i).hex();
        let px: Vec<(f64, f64)> = pts.iter().map(to_px).collect();
        d.polyline_dashed(&px, &c, width, dash(i));
        // A series lying on another one also gets a marker at each point.
        if coinc.get(i).copied().flatten().is_some() {
            for (cx, cy) in &px {
                d.rect(cx - 3.0, cy - 3.0, 6.0, 6.0, "none", &format!(" stroke=\"{c}\" stroke-width=\"1.5\""));
            }
        }
    }

    if let Some(hb) = opts.highlight_bytes {
        let hx = (hb as f64).log2();
        for (i, pts) in data.iter().enumerate() {
            if let Some(p) = pts.iter().find(|p| (p.0 - hx).abs() < 1e-9) {
                let (cx, cy) = to_px(p);
                d.circle(cx, cy, 5.0, &theme.series_color(i).hex(), "none", 0.0);
                d.circle(cx, cy, 5.0, "none", &theme.background.hex(), 2.0);
            }
        }
    }

    // Marks: a hollow dot on the curve, its label above and ending at the dot (series 0) or
    // below and starting at it (others), kept inside the plot. Bandwidth curves rise with
    // size, so the curve runs below a label to the dot's left and above one to its right: a
    // label centred on the dot would cross it. A label that would crowd the previous one on
    // the same series is left out, not the dot.
    let mark_font = if narrow { 10.0 } else { 11.0 };
    let mut last_end: Vec<Option<f64>> = vec![None; data.len()];
    // Each series in pixels once (a label is kept clear of its curve), only when marked.
    let lines: Vec<Vec<(f64, f64)>> = if opts.marks.is_empty() { Vec::new() } else { data.iter().map(|pts| pts.iter().map(to_px).collect()).collect() };
    for m in &opts.marks {
        let Some(pts) = data.get(m.series) else { continue };
        let mx = (m.bytes.max(1) as f64).log2();
        let Some(p) = pts.iter().find(|p| (p.0 - mx).abs() < 1e-9) else { continue };
        let c = theme.series_color(m.series).hex();
        let (px_x, px_y) = to_px(p);
        d.circle(px_x, px_y, 4.0, &theme.background.hex(), "none", 0.0);
        d.circle(px_x, px_y, 4.0, "none", &c, 2.0);
        // A plot too short for labels between its curves keeps the dots only.
        if m.label.is_empty() || bottom - top < 90.0 {
            continue;
        }
        let est_w = text_width(&m.label, mark_font, false);
        if est_w > right - left - 4.0 {
            continue;
        }
        let above = m.series == 0;
        let lx = if above { px_x - 2.0 - est_w } else { px_x + 2.0 }.clamp(left + 2.0, right - 2.0 - est_w);
        if last_end[m.series].is_some_and(|end| lx < end + 6.0) {
            continue;
        }
        last_end[m.series] = Some(lx + est_w);
        // Clear of the curve across the label's whole width (near an edge the label cannot
        // sit wholly on the dot's side): the highest (above) or lowest (below) point of the
        // curve under it, its ends interpolated.
        let (x0, x1) = (lx, lx + est_w);
        let line = &lines[m.series];
        let at = |x: f64| {
            line.windows(2)
                .find(|w| w[0].0 <= x && x <= w[1].0 && w[1].0 > w[0].0)
                .map(|w| w[0].1 + (w[1].1 - w[0].1) * (x - w[0].0) / (w[1].0 - w[0].0))
        };
        let ys = line.iter().filter(|q| q.0 > x0 && q.0 < x1).map(|q| q.1).chain([at(x0), at(x1)].into_iter().flatten());
        let (high, low) = ys.fold((px_y, px_y), |(h, l), y| (h.min(y), l.max(y)));
        let ly = if above { high - 8.0 - mark_font } else { low + 8.0 };
        let ly = ly.clamp(top + 2.0, bottom - 2.0 - mark_font * 1.2);
        // Lifted off its dot to clear a steep curve: a thin leader keeps the two together.
        let near = if above { ly + mark_font * 1.2 } else { ly };
        if (near - px_y).abs() > 8.0 + mark_font {
            let from = if above { px_y - 5.0 } else { px_y + 5.0 };
            d.line_dashed((px_x, from), (px_x.clamp(x0, x1), near + if above { 1.0 } else { -1.0 }), &c, 1.0, "");
        }
        d.text_role(lx, ly, mark_font, "start", "hanging", &c, 400, &m.label, "in-plot");
    }

    for (k, pts) in dots.iter().enumerate().filter(|_| DOTS) {
        let c = theme.series_color(series.len() + k).hex();
        for p in pts {
            let (cx, cy) = to_px(p);
            d.circle(cx, cy, 3.5, &c, &theme.background.hex(), 1.0);
        }
    }

    legend(&mut d, &legend_rows, series.len(), (pad, legend_y), theme, leg);
    d.finish(&opts.description)
}

/// One legend entry: the series and its label's lines.
type Entry = (usize, Vec<String>);

/// The legend's rows: which entries go on each line, given the width. An entry wider than
/// the band has its label wrapped and a row to itself.
fn legend_layout(series: &[Series], coinc: &[Option<usize>], font_px: f64, max_w: f64) -> Vec<Vec<Entry>> {
    let mut rows: Vec<Vec<Entry>> = vec![Vec::new()];
    let mut x = 0.0;
    let lead = SWATCH + 6.0;
    for (i, s) in series.iter().enumerate().filter(|(_, s)| !s.label.is_empty()) {
        let label = match coinc.get(i).copied().flatten() {
            Some(j) => format!("{} (coincides with {})", s.label, series[j].label),
            None => s.label.clone(),
        };
        let item = lead + text_width(&label, font_px, false) + 12.0;
        if x > 0.0 && x + item > max_w {
            rows.push(Vec::new());
            x = 0.0;
        }
        let lines = if item > max_w { wrap(&label, font_px, false, max_w - lead) } else { vec![label] };
        x += item;
        if let Some(r) = rows.last_mut() {
            r.push((i, lines));
        }
    }
    rows.retain(|r| !r.is_empty());
    rows
}

/// Height of one legend line.
fn legend_line(font_px: f64) -> f64 {
    ((font_px + 4.0) * 1.3).ceil()
}

/// Height of the legend band.
fn legend_height(rows: &[Vec<Entry>], font_px: f64) -> f64 {
    rows.iter().map(|r| r.iter().map(|e| e.1.len()).max().unwrap_or(1) as f64).sum::<f64>() * legend_line(font_px)
}

/// Length of the line sample in front of a legend label.
const SWATCH: f64 = 22.0;

/// The legend, in its own band above the plot: a line sample with the series' colour and
/// dash, then its label.
fn legend(d: &mut Doc, rows: &[Vec<Entry>], n_lines: usize, (x0, y0): (f64, f64), theme: &Theme, font_px: f64) {
    let lh = legend_line(font_px);
    let width = if n_lines == 1 { 3.0 } else { 2.0 };
    let mut y = y0;
    for row in rows {
        let mut x = x0;
        for (i, lines) in row {
            let c = theme.series_color(*i).hex();
            let cy = y + lh / 2.0;
            if *i < n_lines {
                d.line_dashed((x, cy), (x + SWATCH, cy), &c, width, dash(*i));
            } else {
                d.circle(x + SWATCH / 2.0, cy, 3.5, &c, &theme.background.hex(), 1.0);
            }
            for (k, l) in lines.iter().enumerate() {
                d.text_role(x + SWATCH + 6.0, cy + k as f64 * lh, font_px, "start", "middle", &theme.text.hex(), 400, l, "legend");
            }
            x += SWATCH + 6.0 + lines.iter().map(|l| text_width(l, font_px, false)).fold(0.0, f64::max) + 12.0;
        }
        y += row.iter().map(|e| e.1.len()).max().unwrap_or(1) as f64 * lh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(label: &str, scale: f64) -> Series {
        let points: Vec<(u64, f64)> = (3..=34)
            .map(|e| {
                (
                    1u64 << e,
                    scale * (1.0 - (-(e as f64 - 3.0) / 6.0).exp()) + 0.01,
                )
            })
            .collect();
        Series {
            label: label.into(),
            band: vec![0.05; points.len()],
            points,
            spread: Vec::new(),
        }
    }

    #[test]
    fn error_bands_are_shaded_where_a_class_is_validated_only() {
        let mut a = curve("validated", 1.0);
        let svg = collective_chart(&[a.clone()], &ChartOptions::default(), &Theme::light());
        assert_eq!(count(&svg, "data-role=\"band\""), 1);
        a.band = vec![0.0; a.points.len()];
        let svg = collective_chart(&[a], &ChartOptions::default(), &Theme::light());
        assert_eq!(count(&svg, "data-role=\"band\""), 0, "no shade where nothing backs the number");
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
    fn a_spread_is_shaded_between_its_own_low_and_high() {
        let mut a = curve("seeds", 100.0);
        a.band = Vec::new();
        a.spread = a.points.iter().map(|p| (0.5 * p.1, 0.9 * p.1)).collect();
        let svg = collective_chart(&[a.clone()], &ChartOptions::default(), &Theme::light());
        assert_eq!(count(&svg, "data-role=\"band\""), 1);
        a.spread = a.points.iter().map(|p| (0.9 * p.1, 0.5 * p.1)).collect();
        let svg = collective_chart(&[a], &ChartOptions::default(), &Theme::light());
        assert_eq!(count(&svg, "data-role=\"band\""), 0, "a low above its high is not drawn");
    }

    #[test]
    fn unusable_points_are_skipped_not_fatal() {
        let s = [Series {
            label: "odd".into(),
            band: Vec::new(),
            spread: Vec::new(),
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
    fn mark_labels_sit_beside_a_rising_curve_not_across_it() {
        // Busbw rises with size: the label above series 0 ends at its dot, the one below
        // series 1 starts at its dot, so neither crosses the curve on the dot's far side.
        let s = [curve("a", 100.0), curve("b", 10.0)];
        let opts = ChartOptions {
            marks: vec![
                Mark { series: 0, bytes: 1 << 20, label: "NVLSTree Simple".into() },
                Mark { series: 1, bytes: 1 << 20, label: "Ring LL128".into() },
            ],
            ..ChartOptions::default()
        };
        let svg = collective_chart(&s, &opts, &Theme::light());
        let attr = |tag: &str, name: &str| -> f64 {
            let at = svg.find(tag).unwrap_or_else(|| panic!("{tag} in {svg}"));
            let from = svg[..at].rfind(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            svg[from..].split('"').next().unwrap().parse().unwrap()
        };
        let label_x = |t: &str| attr(&format!(">{t}<"), "x");
        // The two marks' dots (each a filled circle then its ring), in order.
        let dots: Vec<f64> = svg.match_indices("<circle cx=\"").map(|(i, _)| svg[i + 12..].split('"').next().unwrap().parse().unwrap()).collect();
        let (dot0, dot1) = (dots[0], dots[2]);
        let w = text_width("NVLSTree Simple", 11.0, false);
        assert!(label_x("NVLSTree Simple") + w <= dot0 + 0.1, "above: ends at its dot");
        assert!(label_x("Ring LL128") >= dot1 - 0.1, "below: starts at its dot");
    }

    #[test]
    fn measured_points_are_dots_with_a_legend_entry_and_stretch_the_axis() {
        let s = [curve("expected", 100.0)];
        let opts = ChartOptions { linear: true, ..ChartOptions::default() };
        let points = [Points { label: "measured".into(), points: vec![(1 << 20, 50.0), (1 << 30, 400.0), (1 << 31, 0.0)] }];
        let svg = collective_chart_with_points(&s, &opts, &points, &Theme::light());
        // Without points, as the explorer draws: no dots, no legend entry for them.
        assert_eq!(collective_chart(&s, &opts, &Theme::light()).matches("<circle").count(), 0);
        let dot = Theme::light().series_color(1).hex();
        // Two drawable points and the legend's sample; the 0 GB/s point cannot be drawn.
        assert_eq!(svg.matches("<circle").count(), 3);
        assert_eq!(svg.matches(&format!("fill=\"{dot}\"")).count(), 3, "{svg}");
        assert!(has_text(&svg, "measured") && has_text(&svg, "400"), "{:?}", crate::texts(&svg));
    }

    #[test]
    fn narrow_charts_use_fewer_ticks() {
        let s = [curve("a", 100.0)];
        let at = |width| {
            let svg = collective_chart(&s, &ChartOptions { width, height: 320, ..ChartOptions::default() }, &Theme::light());
            ["8B", "1K", "32K", "1M", "32M", "1G", "16G"].iter().filter(|t| has_text(&svg, t)).count()
        };
        // 880 px has room for the nccl-tests ticks every 2^5; 250 px keeps the decades only.
        assert_eq!(at(880), 7);
        assert!(at(250) < 7 && at(250) >= 2, "{}", at(250));
    }

    #[test]
    fn linear_axis_starts_at_zero_and_curves_that_coincide_say_so() {
        let s = [curve("inside one domain", 400.0), curve("whole cluster", 400.0), curve("other", 100.0)];
        let opts = ChartOptions { linear: true, min_bytes: 1 << 20, y_label: "busbw, GB/s per direction".into(), ..ChartOptions::default() };
        let svg = collective_chart(&s, &opts, &Theme::light());
        assert!(has_text(&svg, "0") && has_text(&svg, "400"), "{:?}", crate::texts(&svg));
        assert!(!has_text(&svg, "8B") && has_text(&svg, "1M"), "the range starts at 1 MiB");
        assert!(has_text(&svg, "whole cluster (coincides with inside one domain)"), "{:?}", crate::texts(&svg));
        assert!(has_text(&svg, "other"));
        assert_eq!(svg.matches("stroke-dasharray=\"9 5\"").count(), 2, "series 1's line and its legend sample");
        // Markers (one per point from 1 MiB to 16 GiB) on the coinciding series only.
        assert_eq!(svg.matches("stroke-width=\"1.5\"").count(), 15);
    }
}
