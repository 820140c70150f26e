//! The right-sizer's chart: every ranked fabric option as a point of cost (or power) against
//! step time, the Pareto front joined fastest to cheapest, the pick (cheapest within 2% of the
//! fastest) ringed. Each point carries its label and numbers as an SVG `<title>` (hover).

use crate::scale::{nice_ceil, nice_floor};
use crate::svg::{error_svg, escape, Axis, Doc};
use crate::theme::Theme;
use fabricscope_design::rightsize::{Axis as X, RightSize};
use std::fmt::Write;

/// A plot's grid lines and tick labels (the Pareto and serving charts share the frame):
/// `frame` is (left, right, top, bottom) in pixels.
pub(crate) fn grid(d: &mut Doc, (ax, ay): (&Axis, &Axis), (xt, yt): (&[f64], &[f64]), frame: (f64, f64, f64, f64), theme: &Theme, label: &dyn Fn(f64) -> String) {
    let (left, right, top, bottom) = frame;
    let (ink, muted) = (theme.grid.hex(), theme.muted.hex());
    for &v in xt {
        d.seg(ax.px(v), top, ax.px(v), bottom, &ink, 1.0);
    }
    for &v in yt {
        d.seg(left, ay.px(v), right, ay.px(v), &ink, 1.0);
    }
    d.flush();
    for &v in xt {
        d.text(ax.px(v), bottom + 14.0, 11.0, "middle", "middle", &muted, 400, &label(v));
    }
    for &v in yt {
        d.text(left - 6.0, ay.px(v), 11.0, "end", "middle", &muted, 400, &label(v));
    }
}

/// Ticks of a linear axis over `lo..hi`: about five 1-2-5 steps, and the range widened to them.
pub(crate) fn ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let span = if hi > lo { hi - lo } else { lo.abs().max(1.0) * 0.1 };
    let step = nice_ceil(nice_floor(span / 5.0).max(f64::MIN_POSITIVE));
    let (a, b) = ((lo / step).floor() * step, (hi / step).ceil() * step);
    let b = if b > a { b } else { a + step };
    let n = ((b - a) / step).round() as usize;
    (a, b, (0..=n).map(|i| a + i as f64 * step).collect())
}

/// A number for a tick: "1.32k", "450", "0.48".
pub(crate) fn tick_label(v: f64) -> String {
    // Trailing zeros go before the suffix is added ("38.5M", not "38.500M").
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(format!("{:.3}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.2}", v / 1e3)))
    } else if a >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.3}"))
    }
}

/// Width of one character of the 11 px bold label, in pixels (an estimate on the wide side).
const LABEL_CHAR_PX: f64 = 6.6;

/// The pick's label, where it starts and its anchor, kept inside the plot (`left`..`right`):
/// beside the point on whichever side it fits, else against the right edge; on a plot too
/// narrow for all of it, without the system ("B200 8-GPU NVSwitch · ") before the fabric.
fn pick_label(label: &str, px: f64, left: f64, right: f64) -> (String, f64, &'static str) {
    let width = |s: &str| s.chars().count() as f64 * LABEL_CHAR_PX;
    let mut text = format!("pick: {label}");
    if width(&text) > right - left {
        if let Some((_, fabric)) = label.split_once(" · ") {
            text = format!("pick: {fabric}");
        }
    }
    let w = width(&text);
    if px + 12.0 + w <= right {
        (text, px + 12.0, "start")
    } else if px - 12.0 - w >= left {
        (text, px - 12.0, "end")
    } else {
        (text, right, "end")
    }
}

/// The chart, `width` x `height` pixels.
pub fn pareto_chart(r: &RightSize, width: u32, height: u32, theme: &Theme) -> String {
    let (w, h) = (width.clamp(320, 4000), height.clamp(200, 4000));
    let pts: Vec<usize> = (0..r.candidates.len()).filter(|&i| r.candidates[i].comparable(r.axis)).collect();
    if pts.is_empty() {
        return error_svg(w, h, theme, "no fabric option could be ranked");
    }
    let xs = |i: usize| r.x(&r.candidates[i]);
    let ys = |i: usize| r.candidates[i].step_time_s;
    let fold = |f: &dyn Fn(usize) -> f64, max: bool| pts.iter().map(|&i| f(i)).fold(if max { f64::MIN } else { f64::MAX }, if max { f64::max } else { f64::min });
    let (x0, x1, xt) = ticks(fold(&xs, false), fold(&xs, true));
    let (y0, y1, yt) = ticks(fold(&ys, false), fold(&ys, true));
    // The right margin holds half the last x tick's label ("$42.5M"), which is centred on it.
    let (left, right, top, bottom) = (62.0, w as f64 - 28.0, 16.0, h as f64 - 46.0);
    let (ax, ay) = (Axis::new(x0, x1, left, right), Axis::new(y0, y1, bottom, top));
    let mut d = Doc::new(w, h, theme);
    let (muted, text) = (theme.muted.hex(), theme.text.hex());
    // Money on the cost axis is dollars, as every table prints it ("$39.5M" beside "$556,200").
    let x_label = |v: f64| if r.axis == X::CostUsd { format!("${}", tick_label(v)) } else { tick_label(v) };
    grid(&mut d, (&ax, &ay), (&xt, &[]), (left, right, top, bottom), theme, &x_label);
    grid(&mut d, (&ax, &ay), (&[], &yt), (left, right, top, bottom), theme, &tick_label);
    let unit = match r.axis {
        X::CostUsd => "cost, USD",
        X::PowerKw if r.lower_bound => "power, kW (switches not counted)",
        X::PowerKw => "power, kW",
    };
    d.text((left + right) / 2.0, h as f64 - 10.0, 12.0, "middle", "middle", &text, 400, unit);
    let _ = write!(
        d.s,
        "<text x=\"14\" y=\"{:.1}\" font-family=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{text}\" transform=\"rotate(-90 14 {:.1})\">step time, s</text>",
        (top + bottom) / 2.0,
        theme.font,
        (top + bottom) / 2.0
    );
    let front = theme.series[0].hex();
    let line: Vec<(f64, f64)> = r.pareto.iter().map(|&i| (ax.px(xs(i)), ay.px(ys(i)))).collect();
    d.polyline(&line, &front, 1.5);
    for &i in &pts {
        let c = &r.candidates[i];
        let on = r.pareto.contains(&i);
        let (fill, rad) = if on { (front.as_str(), 4.5) } else { (muted.as_str(), 3.0) };
        let _ = write!(
            d.s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{rad}\" fill=\"{fill}\" fill-opacity=\"{}\"><title>{}: {}, {:.3} s/step, {}</title></circle>",
            ax.px(xs(i)),
            ay.px(ys(i)),
            if on { "1" } else { "0.55" },
            escape(&c.label),
            r.axis.amount(xs(i)),
            c.step_time_s,
            escape(&c.layout)
        );
    }
    if let Some(p) = r.pick {
        let (px, py) = (ax.px(xs(p)), ay.px(ys(p)));
        d.circle(px, py, 8.0, "none", &theme.series[2].hex(), 2.0);
        let (label, x, anchor) = pick_label(&r.candidates[p].label, px, left, right);
        d.text_role(x, py - 10.0, 11.0, anchor, "middle", &text, 600, &label, "pick");
    }
    d.finish(match r.axis {
        X::CostUsd => "Fabric options: cost against step time",
        X::PowerKw => "Fabric options: power against step time",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::texts;
    use fabricscope_design::bom::PriceBook;
    use fabricscope_design::rightsize::rightsize;
    use fabricscope_model::training::{preset, Constraints};
    use fabricscope_model::Cluster;

    #[test]
    fn draws_every_ranked_option_and_rings_the_pick() {
        // Power for the parts without a published figure (test inputs), so options are ranked.
        let book = PriceBook::from_file_text(r#"[{"item":"qm9700","power_w":1000},{"item":"sn5600","power_w":1500},{"item":"gpu-server","power_w":2000},{"item":"connectx-7-ndr","power_w":25},{"item":"connectx-7-400gbe","power_w":25}]"#).unwrap();
        let r = rightsize(&Cluster { nodes: 32, ..Cluster::default() }, preset("llama3-8b").unwrap(), Constraints::default(), book).unwrap();
        let svg = pareto_chart(&r, 640, 360, &Theme::light());
        let ranked = r.candidates.iter().filter(|c| c.comparable(r.axis)).count();
        // One titled circle per ranked option, plus the ring around the pick.
        assert_eq!(svg.matches("<circle").count(), ranked + 1);
        let t = texts(&svg);
        assert!(t.iter().any(|s| s == &format!("pick: {}", r.candidates[r.pick.unwrap()].label)), "{t:?}");
        assert!(t.iter().any(|s| s.starts_with("power, kW")));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }

    /// Issue 37: money one way. The cost axis prints dollars ("$39.5M"), each point's title the
    /// amount as the tables print it ("$39,580,000"), and the last tick stays inside the chart.
    #[test]
    fn the_cost_axis_prints_dollars_inside_the_chart() {
        let book = PriceBook::from_file_text(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/price-book.example.json")).unwrap()).unwrap();
        let r = rightsize(&Cluster { nodes: 32, ..Cluster::default() }, preset("llama3-8b").unwrap(), Constraints::default(), book).unwrap();
        assert_eq!(r.axis, X::CostUsd);
        let (w, svg) = (640.0, pareto_chart(&r, 640, 360, &Theme::light()));
        let t = texts(&svg);
        let ticks: Vec<&String> = t.iter().filter(|s| s.starts_with('$')).collect();
        assert!(ticks.len() >= 3 && ticks.iter().all(|s| s.ends_with('M') || s.ends_with('k')), "{t:?}");
        assert!(!t.iter().any(|s| s.ends_with("USD") && s.starts_with(char::is_numeric)), "{t:?}");
        let p = &r.candidates[r.pick.unwrap()];
        assert!(svg.contains(&format!("{}: {}, ", escape(&p.label), fabricscope_model::figures::usd(p.cost_usd.unwrap()))), "title in dollars");
        // The last tick's label, centred on the plot's right edge, within the chart's width
        // (11 px type: about 6.2 px a character).
        let last = ticks.last().unwrap();
        assert!(w - 28.0 + last.chars().count() as f64 * 6.2 / 2.0 <= w, "{last}");
    }

    #[test]
    fn tick_labels_drop_trailing_zeros() {
        assert_eq!(tick_label(38_500_000.0), "38.5M");
        assert_eq!(tick_label(39_000_000.0), "39M");
        assert_eq!(tick_label(15_000.0), "15k");
        assert_eq!(tick_label(13_250.0), "13.25k");
        assert_eq!(tick_label(450.0), "450");
        assert_eq!(tick_label(0.48), "0.48");
        assert_eq!(tick_label(0.0), "0");
    }

    #[test]
    fn the_pick_label_stays_inside_the_plot() {
        let label = "B200 8-GPU NVSwitch · 8x NDR IB, no rails, 1:1";
        // Room on the right: beside the point; none: to its left; a narrow plot: the fabric only.
        assert_eq!(pick_label(label, 100.0, 62.0, 900.0), (format!("pick: {label}"), 112.0, "start"));
        assert_eq!(pick_label(label, 800.0, 62.0, 900.0), (format!("pick: {label}"), 788.0, "end"));
        let (t, x, anchor) = pick_label(label, 200.0, 62.0, 344.0);
        assert_eq!(t, "pick: 8x NDR IB, no rails, 1:1");
        let w = t.chars().count() as f64 * LABEL_CHAR_PX;
        let (lo, hi) = if anchor == "start" { (x, x + w) } else { (x - w, x) };
        assert!(lo >= 62.0 && hi <= 344.0, "{lo}..{hi}");
    }

    #[test]
    fn ticks_cover_the_range_in_1_2_5_steps() {
        let (a, b, t) = ticks(1305.6, 1336.3);
        assert!(a <= 1305.6 && b >= 1336.3);
        assert_eq!(t.first(), Some(&a));
        assert!(t.len() >= 3 && t.len() <= 8, "{t:?}");
        assert_eq!(ticks(2.0, 2.0).2.len(), 2);
    }
}
