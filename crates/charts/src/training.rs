//! Training-step charts: stacked step-time bars (one per layout), an MFU heatmap over TP x
//! PP, and memory per GPU against HBM. Plain SVG text (boxes and labels only), so they cost
//! little to draw while a slider moves and nothing in bundle size.

use crate::svg::{error_svg, escape};
use crate::text::{fit, text_width};
use crate::theme::{Rgb, Theme};
use fabricscope_model::training::explore::{layout_label, memory_parts, step_parts, TrainingView, TOP};
use fabricscope_model::training::StepReport;
use std::fmt::Write;

/// One stacked bar: a layout and its step-time parts (same order and names in every row).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepRow {
    pub label: String,
    /// (part name, seconds).
    pub parts: Vec<(String, f64)>,
    /// Text after the bar, e.g. "MFU 41%".
    pub note: String,
    /// Drawn bold: the layout the user chose.
    pub highlight: bool,
}

/// Width and height in pixels; the SVG carries a viewBox.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

/// Colour of the `i`-th step part: compute neutral, communication in the parallelism colours
/// of the topology drawing (TP blue, DP orange, PP green).
pub fn part_color(name: &str, theme: &Theme) -> Rgb {
    match name {
        "compute" => theme.axis,
        "TP" => theme.series[0],
        "DP" => theme.series[1],
        "PP p2p" => theme.series[2],
        "bubble" => theme.grid,
        "optimizer" => theme.series[3],
        "EP" => theme.series[4],
        "CP" => theme.series[5],
        _ => theme.muted,
    }
}

struct W {
    s: String,
}

impl W {
    fn open(w: u32, h: u32, title: &str, theme: &Theme) -> W {
        let mut s = String::with_capacity(8 * 1024);
        let _ = write!(
            s,
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"{}\" role=\"img\" preserveAspectRatio=\"xMidYMid meet\"><title>{}</title><rect width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
            theme.font,
            escape(title),
            theme.background.hex()
        );
        W { s }
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, extra: &str) {
        let _ = write!(self.s, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{fill}\" {extra}/>", w.max(0.0));
    }
    #[allow(clippy::too_many_arguments)]
    fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, color: &str, weight: u32, t: &str) {
        // The <svg> names the font; weight 400 is SVG's default (fewer bytes per label).
        let _ = write!(self.s, "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\"");
        if weight != 400 {
            let _ = write!(self.s, " font-weight=\"{weight}\"");
        }
        let _ = write!(self.s, " text-anchor=\"{anchor}\" dominant-baseline=\"middle\" fill=\"{color}\">{}</text>", escape(t));
    }
    fn close(mut self) -> String {
        self.s.push_str("</svg>");
        self.s
    }
}

/// "812 ms", "12.4 s".
pub fn seconds_label(s: f64) -> String {
    if !s.is_finite() {
        "–".into()
    } else if s >= 100.0 {
        format!("{s:.0} s")
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 0.001 {
        format!("{:.0} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// Stacked horizontal bars of step time, one row per layout, on a common linear scale.
pub fn step_chart(rows: &[StepRow], size: Size, theme: &Theme) -> String {
    let (w, h) = (size.width.clamp(300, 4000), size.height.clamp(120, 4000));
    if rows.is_empty() {
        return error_svg(w, h, theme, "no layout to show");
    }
    let narrow = w < 560;
    // Narrow charts are shown scaled down on a phone; their names have the whole width, so
    // they take a larger size that stays legible there.
    let fs = if narrow { 12.5 } else { 12.0 };
    let mut g = W::open(w, h, "Step time per layout, stacked by what the time is spent on", theme);
    let (wf, hf) = (w as f64, h as f64);
    let total_of = |r: &StepRow| r.parts.iter().map(|p| p.1.max(0.0)).filter(|v| v.is_finite()).sum::<f64>();
    // Columns sized to their text: layout names, then bars, then the totals and notes. A narrow
    // chart (a phone) puts each layout's name on its own line above its bar instead, across
    // the whole width: in a left column it was cut to "TP8 PP2…" and rows of the same TP/PP/DP
    // showed nothing that told them apart.
    let label_w = if narrow {
        wf - 16.0
    } else {
        rows.iter().map(|r| text_width(&r.label, fs, r.highlight)).fold(40.0, f64::max).min(wf * 0.4)
    };
    let note_w = rows
        .iter()
        .map(|r| text_width(&r.note, fs - 1.5, false).max(text_width(&seconds_label(total_of(r)), fs, true)))
        .fold(0.0, f64::max)
        .min(wf * 0.35)
        + 12.0;
    let x0 = if narrow { 8.0 } else { 8.0 + label_w + 8.0 };
    let x1 = (wf - note_w).max(x0 + 20.0);
    let max = rows
        .iter()
        .map(total_of)
        .fold(0.0, f64::max)
        .max(1e-12);
    // Legend: the parts present in any row, in rows as wide as the chart.
    let names: Vec<&str> = rows[0].parts.iter().map(|p| p.0.as_str()).collect();
    let used: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| rows.iter().any(|r| r.parts.iter().any(|p| p.0 == *n && p.1 > max * 1e-3)))
        .collect();
    let (mut lx, mut ly) = (8.0, 10.0);
    for n in &used {
        let tw = 16.0 + text_width(n, fs - 1.0, false) + 14.0;
        if lx > 8.0 && lx + tw > wf - 8.0 {
            lx = 8.0;
            ly += 16.0;
        }
        let c = part_color(n, theme).hex();
        g.rect(lx, ly - 5.0, 12.0, 10.0, &c, "rx=\"2\"");
        g.text(lx + 16.0, ly, fs - 1.0, "start", &theme.text.hex(), 400, n);
        lx += tw;
    }
    let top = ly + 14.0;
    let row_h = ((hf - top - 8.0) / rows.len() as f64).min(if narrow { 46.0 } else { 34.0 });
    let text = theme.text.hex();
    let muted = theme.muted.hex();
    for (i, r) in rows.iter().enumerate() {
        let y = top + i as f64 * row_h;
        // Narrow: the name on the row's first line, the bar and its numbers under it.
        let cy = if narrow { y + row_h * 0.66 } else { y + row_h / 2.0 };
        if r.highlight {
            g.rect(0.0, y + 1.0, wf, row_h - 2.0, &theme.grid_minor.hex(), "");
        }
        let shown = fit(&r.label, fs, r.highlight, label_w);
        let weight = if r.highlight { 700 } else { 400 };
        if narrow {
            g.text(8.0, y + row_h * 0.24, fs, "start", &text, weight, &shown);
        } else {
            g.text(8.0 + label_w, cy, fs, "end", &text, weight, &shown);
        }
        let mut x = x0;
        let bh = if narrow { row_h * 0.4 } else { row_h * 0.62 };
        for (name, v) in &r.parts {
            if !(v.is_finite() && *v > 0.0) {
                continue;
            }
            let bw = (x1 - x0) * v / max;
            let _ = write!(
                g.s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{bh:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
                cy - bh / 2.0,
                part_color(name, theme).hex(),
                escape(name),
                seconds_label(*v)
            );
            x += bw;
        }
        g.text(x + 6.0, cy - 6.0, fs, "start", &text, 600, &seconds_label(total_of(r)));
        g.text(x + 6.0, cy + 7.0, fs - 1.5, "start", &muted, 400, &fit(&r.note, fs - 1.5, false, wf - x - 8.0));
    }
    g.close()
}

/// A grid of MFU (0..1) over TP (columns) x PP (rows); `None` cells did not fit or were not
/// valid. `chosen` is outlined, `best` starred.
pub fn mfu_heatmap(
    tps: &[u32],
    pps: &[u32],
    cells: &[Option<f64>],
    chosen: Option<(u32, u32)>,
    best: Option<(u32, u32)>,
    size: Size,
    theme: &Theme,
) -> String {
    let (w, h) = (size.width.clamp(200, 4000), size.height.clamp(150, 4000));
    if tps.is_empty() || pps.is_empty() || cells.len() != tps.len() * pps.len() {
        return error_svg(w, h, theme, "no layouts to compare");
    }
    let mut g = W::open(w, h, "MFU of the best layout for each TP and PP", theme);
    let (wf, hf) = (w as f64, h as f64);
    let fs = if w < 400 { 11.0 } else { 12.0 };
    let (x0, y0) = (54.0, 30.0);
    let cw = (wf - x0 - 10.0) / tps.len() as f64;
    let ch = (hf - y0 - 26.0) / pps.len() as f64;
    let text = theme.text.hex();
    let muted = theme.muted.hex();
    let max = cells.iter().flatten().copied().filter(|v| v.is_finite()).fold(0.0, f64::max).max(1e-9);
    let hot = theme.series[0];
    let bg = theme.background;
    let mix = |t: f64| {
        let t = t.clamp(0.0, 1.0);
        let m = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
        Rgb(m(bg.0, hot.0), m(bg.1, hot.1), m(bg.2, hot.2))
    };
    g.text(x0 + (wf - x0) / 2.0, 10.0, fs, "middle", &muted, 400, "TP →");
    g.text(12.0, y0 + (hf - y0) / 2.0 - 10.0, fs, "start", &muted, 400, "PP");
    g.text(12.0, y0 + (hf - y0) / 2.0 + 6.0, fs, "start", &muted, 400, "↓");
    for (i, t) in tps.iter().enumerate() {
        g.text(x0 + (i as f64 + 0.5) * cw, y0 - 8.0, fs, "middle", &text, 600, &t.to_string());
    }
    for (j, p) in pps.iter().enumerate() {
        let y = y0 + j as f64 * ch;
        g.text(x0 - 8.0, y + ch / 2.0, fs, "end", &text, 600, &p.to_string());
        for (i, t) in tps.iter().enumerate() {
            let x = x0 + i as f64 * cw;
            let v = cells[j * tps.len() + i];
            // The label's colour is whichever of white and ink reads at AA on its cell.
            let (fill, label, ink) = match v {
                Some(m) if m.is_finite() => {
                    let c = mix(0.15 + 0.85 * m / max);
                    (c.hex(), format!("{:.0}%", m * 100.0), crate::theme::ink_on(c).hex())
                }
                _ => (theme.grid_minor.hex(), "–".into(), text.clone()),
            };
            let _ = write!(
                g.s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"{fill}\"><title>TP {t}, PP {p}: {}</title></rect>",
                x + 1.0,
                y + 1.0,
                cw - 2.0,
                ch - 2.0,
                if v.is_some() { format!("MFU {label}") } else { "no layout fits".into() }
            );
            let star = best == Some((*t, *p));
            let lbl = if star { format!("★ {label}") } else { label };
            g.text(x + cw / 2.0, y + ch / 2.0, fs, "middle", &ink, if star { 700 } else { 500 }, &lbl);
            if chosen == Some((*t, *p)) {
                let _ = write!(
                    g.s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"/>",
                    x + 1.5,
                    y + 1.5,
                    cw - 3.0,
                    ch - 3.0,
                    theme.series[1].hex()
                );
            }
        }
    }
    g.text(wf - 8.0, hf - 10.0, fs - 1.0, "end", &muted, 400, "★ best · outlined: your choice · – nothing fits");
    g.close()
}

/// Memory per GPU as one stacked bar against the HBM capacity (GiB). The legend wraps to the
/// width; the bar goes below it and the chart grows when the legend needs more rows.
pub fn memory_chart(parts: &[(String, f64)], capacity_gib: f64, size: Size, theme: &Theme) -> String {
    let w = size.width.clamp(240, 4000);
    let wf = w as f64;
    let fs = if w < 400 { 11.0 } else { 12.0 };
    let (x0, x1) = (10.0, wf - 10.0);
    let labels: Vec<String> = parts.iter().map(|(n, v)| format!("{n} {v:.1}")).collect();
    let mut spots = Vec::with_capacity(labels.len());
    let (mut lx, mut ly): (f64, f64) = (x0, 12.0);
    for l in &labels {
        let lw = 14.0 + text_width(l, fs - 1.0, false) + 12.0;
        if lx + lw > wf - 6.0 && lx > x0 {
            lx = x0;
            ly += 15.0;
        }
        spots.push((lx, ly));
        lx += lw;
    }
    let by = (ly + 22.0).max(48.0);
    let h = size.height.clamp(80, 4000).max((by + 14.0 + 30.0).ceil() as u32);
    let hf = h as f64;
    let mut g = W::open(w, h, "Memory per GPU against HBM capacity", theme);
    let total: f64 = parts.iter().map(|p| p.1.max(0.0)).filter(|v| v.is_finite()).sum();
    let scale_max = total.max(capacity_gib).max(1e-9) * 1.08;
    let bh = (hf - by - 30.0).clamp(14.0, 34.0);
    let colors = [theme.series[0], theme.series[1], theme.series[3], theme.series[2], theme.axis];
    let mut x = x0;
    for (i, ((name, v), (lx, ly))) in parts.iter().zip(&spots).enumerate() {
        let c = colors[i % colors.len()].hex();
        if v.is_finite() && *v > 0.0 {
            let bw = (x1 - x0) * v / scale_max;
            let _ = write!(
                g.s,
                "<rect x=\"{x:.1}\" y=\"{by:.1}\" width=\"{bw:.1}\" height=\"{bh:.1}\" fill=\"{c}\"><title>{}: {v:.1} GiB</title></rect>",
                escape(name)
            );
            x += bw;
        }
        g.rect(*lx, ly - 5.0, 10.0, 10.0, &c, "rx=\"2\"");
        g.text(lx + 14.0, *ly, fs - 1.0, "start", &theme.text.hex(), 400, &labels[i]);
    }
    let cap_x = x0 + (x1 - x0) * capacity_gib / scale_max;
    let over = total > capacity_gib;
    let err = if theme.dark { "#ff8a80" } else { "#b42318" };
    let fg = theme.text.hex();
    let _ = write!(
        g.s,
        "<line x1=\"{cap_x:.1}\" y1=\"{:.1}\" x2=\"{cap_x:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
        by - 6.0,
        by + bh + 6.0,
        if over { err } else { &fg }
    );
    let note = format!("{:.1} of {:.0} GiB HBM{}", total, capacity_gib, if over { " · does not fit" } else { "" });
    // Ends at the capacity line, or starts at the left edge when that would cut it.
    let nx = cap_x.min(x1 - 4.0).max(x0 + text_width(&note, fs, true));
    g.text(nx, by + bh + 16.0, fs, "end", if over { err } else { &fg }, 600, &note);
    g.close()
}

/// The training charts a view offers, by the id used in file names and `?embed=`.
pub const TRAINING_CHART_IDS: [&str; 3] = ["step", "mfu", "memory"];

/// What tells apart layouts of the same TP/PP/DP, in words (issue 20: three rows read "TP16 PP1
/// DP64", told apart by a tiny "mb1 z1"): "micro-batch 1 · ZeRO 1 · selective recompute".
fn choices_words(r: &StepReport) -> String {
    use fabricscope_model::training::mapping::Recompute;
    let m = &r.mapping;
    let recompute = match m.recompute {
        Recompute::None => "no recompute",
        Recompute::Selective => "selective recompute",
        Recompute::Full => "full recompute",
    };
    format!("micro-batch {} · ZeRO {} · {recompute}", m.micro_batch, m.zero)
}

/// [`choices_words`] short enough for a phone's line: "mb 1 · ZeRO 1 · selective", with the
/// virtual pipeline stages when interleaved ("v2").
fn short_choices(r: &StepReport) -> String {
    use fabricscope_model::training::mapping::Recompute;
    let m = &r.mapping;
    let recompute = match m.recompute {
        Recompute::None => "no recompute",
        Recompute::Selective => "selective",
        Recompute::Full => "full recompute",
    };
    let v = if m.interleave > 1 { format!(" · v{}", m.interleave) } else { String::new() };
    format!("mb {} · ZeRO {} · {recompute}{v}", m.micro_batch, m.zero)
}

/// Chart `id` (one of [`TRAINING_CHART_IDS`]) of a training view: its SVG, width and height.
/// `width` 0 takes the explorer's size (narrower when `compact`, for phones). `None` for an
/// unknown id or a view with no layout to show.
pub fn training_chart(id: &str, v: &TrainingView, theme: &Theme, width: u32, compact: bool) -> Option<(String, u32, u32)> {
    let chosen = v.chosen.as_ref()?;
    let mfu_pct = |r: &StepReport| r.mfu * 100.0;
    let w = |explorer: u32, phone: u32| match width {
        0 if compact => phone,
        0 => explorer,
        w => w.clamp(240, 4000),
    };
    let parts = |r: &StepReport| step_parts(r).into_iter().map(|(n, s)| (n.to_string(), s)).collect();
    match id {
        "step" => {
            // On a phone the name line says everything that tells layouts apart (the note
            // after the short bar has room for the MFU only).
            let size = Size { width: w(920, 420), height: 34 + 34 * (TOP as u32 + 1) + 8 };
            // Below 560 px [`step_chart`] puts names on their own lines: two-line rows.
            let narrow = size.width < 560;
            let size = if narrow { Size { height: 34 + 46 * (TOP as u32 + 1) + 8, ..size } } else { size };
            let name = |r: &StepReport| if narrow { format!("{} · {}", layout_label(r), short_choices(r)) } else { layout_label(r) };
            let mut rows = vec![StepRow {
                label: format!("▶ {}", name(chosen)),
                parts: parts(chosen),
                note: if narrow {
                    format!("MFU {:.0}%{}", mfu_pct(chosen), if chosen.fits { "" } else { " · no fit" })
                } else {
                    format!("MFU {:.0}% · {}{}", mfu_pct(chosen), choices_words(chosen), if chosen.fits { "" } else { " · no fit" })
                },
                highlight: true,
            }];
            for (i, r) in v.top.iter().enumerate().filter(|(_, r)| *r != chosen) {
                rows.push(StepRow {
                    label: format!("#{} {}", i + 1, name(r)),
                    parts: parts(r),
                    note: if narrow {
                        format!("MFU {:.0}%", mfu_pct(r))
                    } else {
                        format!("MFU {:.0}% · {}", mfu_pct(r), choices_words(r))
                    },
                    highlight: false,
                });
            }
            // A fixed height (the chosen layout plus the top 5), so nothing moves when a new
            // search result arrives.
            Some((step_chart(&rows, size, theme), size.width, size.height))
        }
        "mfu" => {
            let best = v.top.first().map(|b| (b.mapping.tp, b.mapping.pp));
            let cell = Some((chosen.mapping.tp, chosen.mapping.pp));
            let size = Size { width: w(440, 420), height: 60 + 34 * 6 };
            Some((mfu_heatmap(&v.tps, &v.pps, &v.mfu, cell, best, size, theme), size.width, size.height))
        }
        "memory" => {
            let (parts, cap) = memory_parts(chosen);
            let parts: Vec<(String, f64)> = parts.into_iter().map(|(n, g)| (n.to_string(), g)).collect();
            let size = Size { width: w(460, 420), height: 110 };
            let svg = memory_chart(&parts, cap, size, theme);
            // The chart grows when its legend wraps.
            let (mw, mh) = crate::svg_size(&svg);
            Some((svg, mw, mh))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, c: f64, dp: f64, hl: bool) -> StepRow {
        StepRow {
            label: label.into(),
            parts: vec![("compute".into(), c), ("TP".into(), 0.1), ("DP".into(), dp), ("EP".into(), 0.0)],
            note: "MFU 40%".into(),
            highlight: hl,
        }
    }

    #[test]
    fn step_bars_stack_and_label() {
        let svg = step_chart(&[row("TP8 PP1 DP4", 1.0, 0.2, true), row("TP4 PP2 DP4", 1.2, 0.05, false)], Size { width: 760, height: 200 }, &Theme::light());
        let t = crate::texts(&svg);
        for want in ["TP8 PP1 DP4", "1.30 s", "1.35 s", "MFU 40%", "compute", "TP", "DP"] {
            assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
        }
        assert!(!t.iter().any(|x| x == "EP"), "parts at zero stay out of the legend");
        assert_eq!(svg.matches("<title>").count(), 1 + 6, "one title per drawn segment");
        assert!(step_chart(&[], Size { width: 400, height: 200 }, &Theme::dark()).contains("no layout"));
        assert_eq!(seconds_label(0.0123), "12 ms");
    }

    /// A phone's step chart (420 px): each layout's whole name on its own line, so rows of the
    /// same TP/PP/DP are told apart; the wide chart keeps names in a column.
    #[test]
    fn narrow_step_chart_names_each_layout_in_full() {
        let a = "▶ TP8 PP2 DP8 · mb 1 · ZeRO 1 · selective";
        let b = "#2 TP8 PP2 DP8 · mb 2 · ZeRO 1 · full recompute";
        let svg = step_chart(&[row(a, 1.0, 0.2, true), row(b, 1.2, 0.05, false)], Size { width: 420, height: 130 }, &Theme::light());
        let t = crate::texts(&svg);
        for want in [a, b, "MFU 40%", "1.30 s"] {
            assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
        }
        // Every text stays inside the chart: names start at the left edge, not right-aligned
        // into a column.
        assert!(svg.contains("text-anchor=\"start\" dominant-baseline=\"middle\" fill=\"#") && !svg.contains("…"), "{svg}");
        let wide = step_chart(&[row("TP8 PP2 DP8", 1.0, 0.2, true)], Size { width: 760, height: 130 }, &Theme::light());
        assert!(wide.contains("text-anchor=\"end\""), "the wide chart right-aligns names in their column");
    }

    #[test]
    fn heatmap_marks_best_and_chosen() {
        let svg = mfu_heatmap(&[1, 2, 4], &[1, 2], &[Some(0.3), Some(0.45), None, Some(0.2), Some(0.41), Some(0.1)], Some((4, 2)), Some((2, 1)), Size { width: 360, height: 220 }, &Theme::light());
        let t = crate::texts(&svg);
        assert!(t.iter().any(|x| x == "★ 45%"), "{t:?}");
        assert!(t.iter().any(|x| x == "–"));
        assert_eq!(svg.matches("stroke-width=\"2.5\"").count(), 1);
        assert!(mfu_heatmap(&[1], &[1], &[], None, None, Size { width: 300, height: 200 }, &Theme::light()).contains("no layouts"));
    }

    #[test]
    fn memory_against_hbm() {
        let parts: Vec<(String, f64)> = vec![("weights".into(), 20.0), ("gradients".into(), 10.0), ("optimizer".into(), 30.0), ("activations".into(), 30.0)];
        let svg = memory_chart(&parts, 80.0, Size { width: 600, height: 110 }, &Theme::light());
        assert!(crate::texts(&svg).iter().any(|x| x == "90.0 of 80 GiB HBM · does not fit"));
        let ok = memory_chart(&parts[..2], 80.0, Size { width: 600, height: 110 }, &Theme::dark());
        assert!(crate::texts(&ok).iter().any(|x| x == "30.0 of 80 GiB HBM"));
    }
}
