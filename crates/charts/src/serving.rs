//! The serving chart: tokens/s per GPU against tokens/s per user as the batch grows, one
//! curve per series (a deployment, or a design in the compare page). A curve whose TP or EP
//! group crosses the NVLink (scale-up) domain is dashed, one inside it solid, so a deployment
//! and its counterpart across the boundary show where the boundary cuts the throughput; each
//! curve carries its 90% interval as shading, each point its batch (label and hover title).

use crate::pareto::{tick_label, ticks};
use crate::svg::{error_svg, escape, Axis, Doc};
use crate::text::{fit, wrap};
use crate::theme::Theme;
use std::fmt::Write;

/// One batch size of a curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServingPoint {
    /// Sequences per attention DP rank (count).
    pub batch: u32,
    /// Tokens/s one user sees (x).
    pub per_user: f64,
    /// Tokens/s per GPU (y).
    pub per_gpu: f64,
}

/// One curve.
#[derive(Clone, Debug, PartialEq)]
pub struct ServingSeries {
    /// Legend text, e.g. "TP 8 (inside NVLink)".
    pub label: String,
    pub points: Vec<ServingPoint>,
    /// The deployment's TP or EP group spans more than one scale-up domain (drawn dashed).
    pub crosses: bool,
    /// 90% interval as ratios measured / predicted of tokens/s per GPU (shaded); `None`: not
    /// validated (no shading, said in the legend).
    pub interval: Option<(f64, f64)>,
    /// The batch the user chose, ringed on the curve.
    pub current: Option<u32>,
}

/// What the chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ServingChart {
    pub series: Vec<ServingSeries>,
    /// Prefill: prompt tokens; else output tokens.
    pub prefill: bool,
    /// Label every point with its batch (the explorer's one or two curves); hover titles only
    /// when false (the compare overlay's four).
    pub batch_labels: bool,
    /// Write [`caption`] under the plot (the CLI's file); a page shows it as its figure's
    /// caption instead, where screen readers read it.
    pub caption: bool,
}

impl ServingSeries {
    /// A curve of the serving model, under `label` (the curve's own when `None`).
    pub fn of(c: &fabricscope_serving::curve::Curve, label: Option<String>, current: Option<u32>) -> ServingSeries {
        ServingSeries {
            label: label.unwrap_or_else(|| c.label()),
            points: c.points.iter().map(|p| ServingPoint { batch: p.batch, per_user: p.tokens_per_s_per_user, per_gpu: p.tokens_per_s_per_gpu }).collect(),
            crosses: c.group.crosses,
            interval: c.interval,
            current,
        }
    }
}

/// Highest the shaded interval reaches, as a multiple of the curve (dimensionless): an interval
/// wider above (a class that borrows a wide parent) would stretch the y axis and flatten every
/// curve under its shade. Chosen for legibility, not fitted.
const MAX_SHADE: f64 = 2.0;

/// Dash pattern of a curve whose group crosses the NVLink domain.
const CROSS_DASH: &str = "7 5";
/// The chart's reading key, for a chart with batch labels on its points or without.
pub fn caption(batch_labels: bool) -> &'static str {
    if batch_labels {
        "Batch grows along each curve (labels: sequences per DP rank; ringed: the chosen batch). Solid: the TP/EP group inside one NVLink domain; dashed: it crosses to the network. Shading: the held-out interval of each curve (nine in ten)."
    } else {
        "Batch grows along each curve (hover a point for its batch; ringed: the chosen batch). Solid: the TP/EP group inside one NVLink domain; dashed: it crosses to the network. Shading: the held-out interval of each curve (nine in ten)."
    }
}

/// A tick's number: "16k", "2.5k", "450", "0.5".
fn tick(v: f64) -> String {
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if v.abs() >= 1e4 {
        format!("{}k", trim(format!("{:.2}", v / 1e3)))
    } else {
        tick_label(v)
    }
}

/// The axis titles (x, y).
pub fn axis_titles(prefill: bool) -> (&'static str, &'static str) {
    if prefill {
        ("prompt tokens/s per user", "prompt tokens/s per GPU")
    } else {
        ("output tokens/s per user (1000 / TPOT ms)", "output tokens/s per GPU")
    }
}

fn band_text(b: Option<(f64, f64)>) -> String {
    match b {
        Some((lo, hi)) => format!("90%: {:+.0}%/{:+.0}%", 100.0 * (lo - 1.0), 100.0 * (hi - 1.0)),
        None => "not validated".to_string(),
    }
}

/// The chart, `width` x `height` pixels.
pub fn serving_chart(c: &ServingChart, width: u32, height: u32, theme: &Theme) -> String {
    let (w, h) = (width.clamp(320, 4000), height.clamp(220, 4000));
    let pts = || c.series.iter().flat_map(|s| s.points.iter().map(move |p| (s, p)));
    let finite = |v: f64| v.is_finite() && v >= 0.0;
    if c.series.is_empty() || pts().next().is_none() || pts().any(|(_, p)| !finite(p.per_user) || !finite(p.per_gpu)) {
        return error_svg(w, h, theme, "no serving curve to draw");
    }
    let xmax = pts().map(|(_, p)| p.per_user).fold(0.0, f64::max);
    let ymax = pts().map(|(s, p)| p.per_gpu * s.interval.map_or(1.0, |(_, hi)| hi.min(MAX_SHADE))).fold(0.0, f64::max);
    let (x0, x1, xt) = ticks(0.0, xmax.max(1e-9));
    let (y0, y1, yt) = ticks(0.0, ymax.max(1e-9));
    let (x_title, y_title) = axis_titles(c.prefill);
    let caption = if c.caption { wrap(caption(c.batch_labels), 11.0, false, w as f64 - 24.0) } else { Vec::new() };
    let (left, right, top) = (62.0, w as f64 - 16.0, 16.0);
    let bottom = h as f64 - 46.0 - if caption.is_empty() { 0.0 } else { 6.0 + 14.0 * caption.len() as f64 };
    let (ax, ay) = (Axis::new(x0, x1, left, right), Axis::new(y0, y1, bottom, top));
    let mut d = Doc::new(w, h, theme);
    let (muted, text) = (theme.muted.hex(), theme.text.hex());
    crate::pareto::grid(&mut d, (&ax, &ay), (&xt, &yt), (left, right, top, bottom), theme, &tick);
    d.text_role((left + right) / 2.0, bottom + 32.0, 12.0, "middle", "middle", &text, 400, x_title, "x-title");
    let mid = (top + bottom) / 2.0;
    let _ = write!(
        d.s,
        "<text x=\"14\" y=\"{mid:.1}\" font-size=\"12\" text-anchor=\"middle\" data-role=\"y-title\" fill=\"{text}\" transform=\"rotate(-90 14 {mid:.1})\">{}</text>",
        escape(y_title)
    );
    for (i, line) in caption.iter().enumerate() {
        d.text_role(12.0, bottom + 50.0 + 14.0 * i as f64, 11.0, "start", "middle", &muted, 400, line, "caption");
    }
    // Bands first, under every curve.
    for (i, s) in c.series.iter().enumerate() {
        let Some((lo, hi)) = s.interval.filter(|(lo, hi)| *lo > 0.0 && hi > lo && s.points.len() > 1) else { continue };
        let mut path = String::new();
        for (k, p) in s.points.iter().enumerate() {
            let _ = write!(path, "{}{:.1} {:.1}", if k == 0 { "M" } else { "L" }, ax.px(p.per_user), ay.px(p.per_gpu * hi.min(MAX_SHADE)));
        }
        for p in s.points.iter().rev() {
            let _ = write!(path, "L{:.1} {:.1}", ax.px(p.per_user), ay.px(p.per_gpu * lo));
        }
        let _ = write!(d.s, "<path data-role=\"band\" fill=\"{}\" fill-opacity=\"0.13\" stroke=\"none\" d=\"{path}Z\"/>", theme.series_color(i).hex());
    }
    // Every point's position: a batch label goes only where it covers none of them.
    let dots: Vec<(f64, f64)> = pts().map(|(_, p)| (ax.px(p.per_user), ay.px(p.per_gpu))).collect();
    let clear = |lx: f64, ly: f64, w: f64| !dots.iter().any(|&(x, y)| x > lx - 5.0 && x < lx + w + 5.0 && y > ly - 10.0 && y < ly + 10.0);
    for (i, s) in c.series.iter().enumerate() {
        let color = theme.series_color(i).hex();
        let mut path = String::new();
        for (k, p) in s.points.iter().enumerate() {
            let _ = write!(path, "{}{:.1} {:.1}", if k == 0 { "M" } else { "L" }, ax.px(p.per_user), ay.px(p.per_gpu));
        }
        let _ = write!(
            d.s,
            "<path data-series=\"{i}\" data-crosses=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" stroke-linejoin=\"round\"{} d=\"{path}\"/>",
            s.crosses,
            if s.crosses { format!(" stroke-dasharray=\"{CROSS_DASH}\"") } else { String::new() }
        );
        let mut last_label: Option<(f64, f64)> = None;
        for p in &s.points {
            let (px, py) = (ax.px(p.per_user), ay.px(p.per_gpu));
            let _ = write!(
                d.s,
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3.5\" fill=\"{color}\" data-batch=\"{}\"><title>{}: batch {} per DP rank: {} tokens/s per user, {} tokens/s per GPU</title></circle>",
                p.batch,
                escape(&s.label),
                p.batch,
                tick_label(p.per_user),
                tick_label(p.per_gpu)
            );
            if s.current == Some(p.batch) {
                d.circle(px, py, 7.5, "none", &text, 1.5);
            }
            // A batch label where it does not crowd the previous one.
            let far = last_label.is_none_or(|(lx, ly)| (lx - px).abs() > 26.0 || (ly - py).abs() > 14.0);
            let label = p.batch.to_string();
            if c.batch_labels && far && clear(px + 6.0, py - 9.0, crate::text::text_width(&label, 10.0, false)) {
                d.text_role(px + 6.0, py - 9.0, 10.0, "start", "middle", &color, 400, &label, "batch");
                last_label = Some((px, py));
            }
        }
    }
    // Legend, top right (the unreachable corner: more per GPU and per user at once).
    let rows: Vec<String> = c.series.iter().map(|s| fit(&format!("{} · {}", s.label, band_text(s.interval)), 11.0, false, (right - left) * 0.62)).collect();
    let lw = rows.iter().map(|r| crate::text::text_width(r, 11.0, false)).fold(0.0, f64::max) + 34.0;
    let lx = right - lw - 4.0;
    d.rect(lx - 4.0, top + 2.0, lw + 6.0, 16.0 * rows.len() as f64 + 6.0, &theme.background.hex(), " fill-opacity=\"0.9\"");
    for (i, (s, r)) in c.series.iter().zip(&rows).enumerate() {
        let y = top + 13.0 + 16.0 * i as f64;
        let color = theme.series_color(i).hex();
        d.line_dashed((lx, y), (lx + 24.0, y), &color, 2.0, if s.crosses { CROSS_DASH } else { "" });
        d.text_role(lx + 30.0, y, 11.0, "start", "middle", &text, 400, r, "legend");
    }
    d.finish(if c.prefill { "Serving: prompt tokens/s per GPU against per user, as batch grows" } else { "Serving: output tokens/s per GPU against per user, as batch grows" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::texts;

    fn series(label: &str, crosses: bool, scale: f64) -> ServingSeries {
        let points = [1u32, 2, 4, 8, 16, 32, 64]
            .iter()
            .map(|&b| ServingPoint { batch: b, per_user: scale * 100.0 / (1.0 + b as f64 / 32.0), per_gpu: scale * 12.0 * b as f64 / (1.0 + b as f64 / 32.0) })
            .collect();
        ServingSeries { label: label.into(), points, crosses, interval: if crosses { None } else { Some((0.94, 1.06)) }, current: Some(8) }
    }

    fn numbers(svg: &str, role_free: impl Fn(&str) -> bool) -> Vec<f64> {
        texts(svg)
            .iter()
            .filter(|t| role_free(t))
            .filter_map(|t| match t.strip_suffix('k') {
                Some(k) => k.parse::<f64>().ok().map(|v| v * 1e3),
                None => t.parse::<f64>().ok(),
            })
            .collect()
    }

    #[test]
    fn one_path_per_series_and_the_crossing_one_dashed() {
        for theme in [Theme::light(), Theme::dark()] {
            for n in 1..=4 {
                let s: Vec<ServingSeries> = (0..n).map(|i| series(&format!("design {i}"), i == 1, 1.0 + i as f64 * 0.3)).collect();
                let svg = serving_chart(&ServingChart { series: s, prefill: false, batch_labels: n == 1, caption: true }, 720, 420, &theme);
                assert_eq!(svg.matches("data-series=").count(), n, "{n}");
                assert_eq!(svg.matches("data-crosses=\"true\"").count(), usize::from(n > 1));
                // The crossing curve's legend sample is dashed like its curve.
                assert_eq!(svg.matches(&format!("stroke-dasharray=\"{CROSS_DASH}\"")).count(), 2 * usize::from(n > 1));
                // One point per batch, with its batch for a tooltip.
                assert_eq!(svg.matches("data-batch=").count(), 7 * n);
                // A band for each validated series; the other says so in the legend.
                assert_eq!(svg.matches("data-role=\"band\"").count(), n - usize::from(n > 1));
                let t = texts(&svg);
                assert!(t.iter().any(|s| s.contains("design 0 · 90%: -6%/+6%")), "{t:?}");
                if n > 1 {
                    assert!(t.iter().any(|s| s.contains("design 1 · not validated")), "{t:?}");
                }
                assert!(t.iter().any(|s| s == axis_titles(false).0) && t.iter().any(|s| s == axis_titles(false).1));
                assert!(svg.contains(&theme.series[0].hex()));
                assert_eq!(svg.matches("data-role=\"caption\"").count(), texts(&svg).iter().filter(|t| caption(n == 1).contains(t.as_str())).count());
                assert!(svg.matches("data-role=\"caption\"").count() >= 2);
                assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
            }
        }
    }

    #[test]
    fn axes_start_at_zero_and_rise() {
        let svg = serving_chart(&ServingChart { series: vec![series("TP 8", false, 1.0)], prefill: false, batch_labels: false, caption: false }, 720, 420, &Theme::light());
        // Tick labels in document order: x ticks then y ticks, each strictly increasing.
        let all = numbers(&svg, |_| true);
        let split = all.windows(2).position(|w| w[1] <= w[0]).map(|i| i + 1).unwrap_or(all.len());
        let (xs, ys) = all.split_at(split);
        assert_eq!(xs[0], 0.0);
        assert_eq!(ys[0], 0.0);
        assert!(xs.windows(2).all(|w| w[1] > w[0]) && ys.windows(2).all(|w| w[1] > w[0]), "{xs:?} {ys:?}");
        // Covering the data: x to 100 tokens/s per user, y to the band's top.
        assert!(*xs.last().unwrap() >= 97.0 && *ys.last().unwrap() >= 12.0 * 64.0 / 3.0 * 1.06);
        // Thousands read "16k", not "16.00k".
        assert_eq!(tick(16_000.0), "16k");
        assert_eq!(tick(12_500.0), "12.5k");
        assert_eq!(tick(450.0), "450");
        // The chosen batch is ringed.
        assert_eq!(svg.matches("r=\"7.5\"").count(), 1);
    }

    /// `name="v"` of an element's attributes.
    fn attr(el: &str, name: &str) -> f64 {
        el.split(&format!(" {name}=\"")).nth(1).and_then(|r| r.split('"').next()).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
    }

    #[test]
    fn batch_labels_never_cover_a_point() {
        // Two close curves on a phone-sized chart: labels that would sit on a point are left out
        // (e2e/a11y.mjs measures a label's contrast against what is under it).
        let s = vec![series("TP 8", false, 1.0), series("TP 16", true, 1.08)];
        let svg = serving_chart(&ServingChart { series: s, prefill: false, batch_labels: true, caption: false }, 340, 300, &Theme::light());
        let dots: Vec<(f64, f64)> = svg.split("<circle").skip(1).filter(|c| c.contains("data-batch")).map(|c| (attr(c, "cx"), attr(c, "cy"))).collect();
        let labels: Vec<(f64, f64, usize)> = svg
            .split("<text")
            .skip(1)
            .filter(|t| t.contains("data-role=\"batch\""))
            .map(|t| (attr(t, "x"), attr(t, "y"), t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].len()))
            .collect();
        assert_eq!(dots.len(), 14);
        assert!(!labels.is_empty() && labels.len() < 14, "{}", labels.len());
        for (x, y, n) in labels {
            let w = n as f64 * 6.0;
            assert!(!dots.iter().any(|&(dx, dy)| dx > x - 3.5 && dx < x + w + 3.5 && (dy - y).abs() < 8.5), "label at {x},{y}");
        }
    }

    #[test]
    fn bad_data_draws_a_message_not_a_panic() {
        let mut s = series("x", false, 1.0);
        s.points[2].per_gpu = f64::NAN;
        let svg = serving_chart(&ServingChart { series: vec![s], prefill: true, batch_labels: true, caption: true }, 10, 10, &Theme::dark());
        assert!(texts(&svg).iter().any(|t| t == "no serving curve to draw"));
        assert!(serving_chart(&ServingChart { series: vec![], prefill: false, batch_labels: true, caption: true }, 600, 300, &Theme::light()).contains("no serving curve"));
    }
}
