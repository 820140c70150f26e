//! Every chart of a Report, named and captioned: what `fabricscope render` writes to files and
//! what `?embed=<chart>` shows in an iframe. One place decides how a Report becomes charts,
//! so an exported file, an embedded chart and the explorer agree.

use crate::collective::{collective_chart, ChartOptions, Mark, Series};
use crate::hierarchy::{bandwidth_hierarchy_chart_with, HierarchyOptions};
use crate::svg::{escape, svg_size};
use crate::text::wrap;
use crate::theme::Theme;
use crate::topology::{megatron_traffic, topology_chart, Layout, TopoOptions, TopoSpec};
use crate::training::{training_chart, TRAINING_CHART_IDS};
use fabricscope_model::calibration::apply::collective_ratios;
use fabricscope_model::report::{Curve, Scope};
use fabricscope_model::{View, YAxis};
use fabricscope_model::training::explore::{layout_detail, TrainingView};
use fabricscope_model::training::Parallel;
use fabricscope_model::{Report, Scenario};

/// Every chart, by the id used in file names and `?embed=`: three of the Report, then the
/// three of the training view ([`TRAINING_CHART_IDS`]).
pub const CHART_IDS: [&str; 6] = ["busbw", "hierarchy", "topology", "step", "mfu", "memory"];

/// Type sizes of a titled chart's header: the title, then the scenario caption, each wrapped
/// onto as many lines as the width needs.
const HEADER_TITLE_PX: f64 = 15.0;
const HEADER_CAPTION_PX: f64 = 12.0;

/// One rendered chart.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedChart {
    /// `busbw`, `hierarchy` or `topology` (see [`CHART_IDS`]).
    pub id: &'static str,
    /// What the chart shows, e.g. "Bus bandwidth vs message size".
    pub title: String,
    /// The scenario in one line ([`caption`]).
    pub caption: String,
    pub svg: String,
}

/// One line stating the scenario: "4 nodes × 8 H100 SXM (32 GPUs) · NVLink4 + NVSwitch ·
/// 8 × InfiniBand NDR 400G per node · NCCL 2.27.5".
pub fn caption(s: &Scenario, r: &Report) -> String {
    let c = &s.cluster;
    // NVL72 racks count compute trays, as the explorer's controls and the CLI's cluster line do.
    let node = if c.scale_up == fabricscope_model::catalog::ScaleUp::Nvl72 { "tray" } else { "node" };
    let net = if c.nics_per_node == 0 {
        "no scale-out NICs".to_string()
    } else {
        format!(
            "{} × {} per {node}{}",
            c.nics_per_node,
            r.summary.nic,
            if c.sharp { " + SHARP" } else { "" }
        )
    };
    format!(
        "{} {node}{} × {} {} ({} GPUs) · {} · {} · {}",
        c.nodes,
        if c.nodes == 1 { "" } else { "s" },
        c.gpus_per_node,
        r.summary.gpu,
        r.summary.total_gpus,
        r.summary.scale_up,
        net,
        c.library_label()
    )
}

/// What chart `id` shows, in words; `None` for an unknown id.
pub fn chart_title(id: &str) -> Option<&'static str> {
    match id {
        "busbw" => Some("Bus bandwidth vs message size"),
        "hierarchy" => Some("Bandwidth per GPU at each tier of the hierarchy"),
        "topology" => Some("Cluster topology"),
        "step" => Some("Training step time: your layout and the search's best"),
        "mfu" => Some("MFU of the best layout for each TP × PP"),
        "memory" => Some("Memory per GPU against HBM capacity (GiB)"),
        _ => None,
    }
}

/// [`caption`] plus the training job and its layout: "… · llama3-8b on TP8 PP1 DP4 · mb1 ·
/// ZeRO 1 · selective recompute".
pub fn training_caption(s: &Scenario, r: &Report, v: &TrainingView) -> String {
    let job = match &v.chosen {
        Some(c) => match c.step_time_interval() {
            Some([lo, hi]) => format!("{} on {}, step {}", v.workload, layout_detail(c), crate::scale::interval_label(lo, hi) + " s"),
            None => format!("{} on {}", v.workload, layout_detail(c)),
        },
        None => format!("{}: no layout fits", v.workload),
    };
    format!("{} · {job}", caption(s, r))
}

/// Renders chart `id` at `width` x `height` pixels (0 = the chart's own default). With
/// `titled`, a header above the chart states what it shows and the scenario (files, exports);
/// without, the chart alone (an embed shows the caption in its own footer). The training
/// charts need the scenario's training view; the topology drawing colours its layout when
/// given one (else pure data parallelism). `None` for an unknown id, or a training chart
/// without a view (or with no layout to show).
#[allow(clippy::too_many_arguments)]
pub fn render_chart(
    id: &str,
    s: &Scenario,
    r: &Report,
    training: Option<&TrainingView>,
    theme: &Theme,
    width: u32,
    height: u32,
    titled: bool,
) -> Option<NamedChart> {
    let title = match id {
        "busbw" => throughput_title(&s.view),
        _ => chart_title(id)?.to_string(),
    };
    if TRAINING_CHART_IDS.contains(&id) {
        let v = training?;
        let (svg, w, h) = training_chart(id, v, theme, width, false)?;
        let cap = training_caption(s, r, v);
        let svg = if titled { with_header(&svg, w, h, &title, &cap, theme) } else { svg };
        return Some(NamedChart { id: CHART_IDS.into_iter().find(|c| *c == id)?, title, caption: cap, svg });
    }
    let cap = caption(s, r);
    // A titled chart given a height keeps it: the header comes out of the chart's share.
    let height = if titled && height > 0 { height.saturating_sub(header_height(width.max(200), &title, &cap)).max(150) } else { height };
    let or = |v: u32, d: u32| if v == 0 { d } else { v };
    let (svg, w, h) = match id {
        "busbw" => {
            let (w, h) = (or(width, 880).clamp(200, 4000), or(height, 460).clamp(150, 4000));
            let svg = throughput_chart(r, &s.view, theme, w, h, false);
            let (w, h) = svg_size(&svg);
            (svg, w, h)
        }
        "hierarchy" => {
            let tiers: Vec<(String, f64, f64)> = r
                .tiers
                .iter()
                .map(|t| (t.name.clone(), t.bw_per_gpu.0, t.latency.0))
                .collect();
            let d = HierarchyOptions::default();
            let w = or(width, d.width).clamp(240, 4000);
            let h = if height == 0 {
                70 + 44 * tiers.len().max(1) as u32
            } else {
                height
            }
            .clamp(120, 4000);
            let opts = HierarchyOptions {
                width: w,
                height: h,
                description: format!("{title}: GB/s per direction per GPU, for {cap}"),
                ratios: r.ratios.iter().map(|x| x.ratio).collect(),
                ..d
            };
            (bandwidth_hierarchy_chart_with(&tiers, &opts, theme), w, h)
        }
        _ => {
            let c = &s.cluster;
            let f = r.summary.fabric.as_ref();
            let spec = TopoSpec {
                nodes: c.nodes,
                gpus_per_node: c.gpus_per_node,
                domain_gpus: r.summary.domain_gpus,
                nics_per_node: c.nics_per_node,
                leaves: f.map_or(0, |f| f.leaves),
                spines: f.map_or(0, |f| f.spines),
                cores: f.map_or(0, |f| f.cores),
                nodes_per_leaf: f.map_or(c.nodes, |f| f.nodes_per_leaf),
                oversubscription: f.map_or(1.0, |f| f.oversubscription),
                scale_up: r.summary.scale_up.to_string(),
                nic: r.summary.nic.to_string(),
                switch: f.map_or(String::new(), |f| f.switch.to_string()),
                layout: training
                    .and_then(|v| v.chosen.as_ref())
                    .filter(|c| c.mapping.gpus() == u64::from(r.summary.total_gpus))
                    .map_or(Layout::data_parallel(r.summary.total_gpus), |c| layout_of(&c.mapping)),
            };
            let d = TopoOptions::default();
            let opts = TopoOptions {
                width: or(width, d.width).clamp(300, 4000),
                height: or(height, d.height).clamp(240, 4000),
            };
            let svg = topology_chart(&spec, &megatron_traffic(&spec), &opts, theme);
            (svg, opts.width, opts.height)
        }
    };
    // A chart may have grown to fit its text: the header goes above what was drawn.
    let (w, h) = match svg_size(&svg) {
        (0, _) | (_, 0) => (w, h),
        size => size,
    };
    let svg = if titled {
        with_header(&svg, w, h, &title, &cap, theme)
    } else {
        svg
    };
    Some(NamedChart {
        id: CHART_IDS.into_iter().find(|c| *c == id)?,
        title,
        caption: cap,
        svg,
    })
}

/// The header's lines at width `w`: (title lines, caption lines).
fn header_lines(w: u32, title: &str, caption: &str) -> (Vec<String>, Vec<String>) {
    let max = w as f64 - 24.0;
    (wrap(title, HEADER_TITLE_PX, true, max), wrap(caption, HEADER_CAPTION_PX, false, max))
}

/// Height in pixels of the header [`with_header`] puts above a chart `w` pixels wide.
pub fn header_height(w: u32, title: &str, caption: &str) -> u32 {
    let (t, c) = header_lines(w, title, caption);
    (10.0 + t.len() as f64 * 20.0 + c.len() as f64 * 16.0 + 6.0).ceil() as u32
}

/// Puts a header (the title, then the scenario caption, each wrapped to the width, never cut)
/// above a `w` x `h` SVG.
fn with_header(inner: &str, w: u32, h: u32, title: &str, caption: &str, theme: &Theme) -> String {
    use std::fmt::Write;
    let (tl, cl) = header_lines(w, title, caption);
    let head = header_height(w, title, caption);
    let (t, c) = (escape(title), escape(caption));
    let mut o = format!(
        "<svg width=\"{w}\" height=\"{th}\" viewBox=\"0 0 {w} {th}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{t}: {c}\"><rect width=\"{w}\" height=\"{th}\" fill=\"{bg}\"/>",
        th = h + head,
        bg = theme.background.hex(),
    );
    let mut y = 10.0;
    for l in &tl {
        let _ = write!(o, "<text x=\"12\" y=\"{y}\" font-family=\"{}\" font-size=\"{HEADER_TITLE_PX}\" font-weight=\"600\" dominant-baseline=\"hanging\" fill=\"{}\" data-role=\"title\">{}</text>", theme.font, theme.text.hex(), escape(l));
        y += 20.0;
    }
    for l in &cl {
        let _ = write!(o, "<text x=\"12\" y=\"{y}\" font-family=\"{}\" font-size=\"{HEADER_CAPTION_PX}\" dominant-baseline=\"hanging\" fill=\"{}\" data-role=\"caption\">{}</text>", theme.font, theme.muted.hex(), escape(l));
        y += 16.0;
    }
    let _ = write!(o, "<svg x=\"0\" y=\"{head}\" width=\"{w}\" height=\"{h}\">{inner}</svg></svg>");
    o
}

/// Title of the throughput chart for a view: "AllReduce busbw vs message size".
pub fn throughput_title(v: &View) -> String {
    format!("{} {} vs message size", v.selected_op.name(), if v.algbw { "algbw" } else { "busbw" })
}

/// Where NCCL's choice changes along a curve: (bytes, "Algorithm Protocol") at the first
/// point and at each point whose choice differs from the previous one.
pub fn choice_changes(c: &Curve) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = Vec::new();
    let mut last: Option<(&str, &str)> = None;
    for p in &c.points {
        let now = (p.algorithm, p.protocol);
        if last != Some(now) {
            out.push((p.bytes.0, format!("{} {}", p.algorithm, p.protocol)));
            last = Some(now);
        }
    }
    out
}

/// Legend label of a curve: "inside one domain, 8 GPUs", "whole cluster, 32 GPUs".
pub fn scope_label(c: &Curve) -> String {
    match c.scope {
        Scope::Domain => format!("inside one domain, {} GPUs", c.placement.ranks),
        Scope::Cluster => format!("whole cluster, {} GPUs", c.placement.ranks),
    }
}

/// The throughput chart exactly as the explorer shows it, for the explorer, exports and
/// embeds alike: the view's collective inside one domain and across the whole cluster, busbw
/// or algbw, on the view's axis and sizes, NCCL's choices marked, the headline size picked
/// out. `compact` shortens the axis titles for a phone.
pub fn throughput_chart(r: &Report, v: &View, theme: &Theme, width: u32, height: u32, compact: bool) -> String {
    throughput_chart_with(r, v, theme, width, height, compact, Vec::new())
}

/// [`throughput_chart`] with `extra` series drawn over it (the Learn section's curves of each
/// algorithm forced, beside NCCL's own choice).
pub fn throughput_chart_with(r: &Report, v: &View, theme: &Theme, width: u32, height: u32, compact: bool, extra: Vec<Series>) -> String {
    let mut series = Vec::new();
    let mut marks = Vec::new();
    let (lo, hi) = v.chart_bytes();
    for c in r.curves.iter().filter(|c| c.op == v.selected_op) {
        let i = series.len();
        series.push(Series {
            label: scope_label(c),
            points: c.points.iter().map(|p| (p.bytes.0, if v.algbw { p.algbw.0 } else { p.busbw.0 })).collect(),
            band: Vec::new(),
            // The 90% interval held out by source (docs/calibration.md), the one the headline
            // and the CLI print; no shade where no table level backs the class.
            spread: c.points.iter().map(|p| {
                let v = if v.algbw { p.algbw.0 } else { p.busbw.0 };
                collective_ratios(&p.trust).map_or((0.0, 0.0), |(lo, hi)| (v * lo, v * hi))
            }).collect(),
        });
        // A change below the shown sizes is marked at the first shown size.
        let mut changes = choice_changes(c);
        let mut first = changes.iter().rposition(|(b, _)| *b <= lo.0).unwrap_or(0);
        // A choice that changes again within 3 sizes gives its label to the new one.
        if changes.get(first + 1).is_some_and(|(b, _)| *b <= lo.0.saturating_mul(8)) {
            first += 1;
        }
        if let Some(ch) = changes.get_mut(first) {
            ch.0 = ch.0.max(lo.0);
        }
        for (bytes, label) in changes.into_iter().skip(first) {
            marks.push(Mark { series: i, bytes, label });
        }
    }
    let what = if v.algbw { "algbw" } else { "busbw" };
    let log = v.y_axis == YAxis::Log;
    let opts = ChartOptions {
        width,
        height,
        min_bytes: lo.0,
        max_bytes: hi.0,
        linear: !log,
        highlight_bytes: Some(v.headline_bytes().0),
        x_label: if compact { "message size (log scale)".into() } else { "message size, bytes (log scale)".into() },
        y_label: format!("{what}, GB/s per direction{}", if log { " (log scale)" } else { "" }),
        description: format!(
            "{} {what} against message size, inside one domain and across the cluster, with NCCL's algorithm marked",
            v.selected_op.name()
        ),
        marks,
        ..ChartOptions::default()
    };
    series.extend(extra);
    collective_chart(&series, &opts, theme)
}

/// The topology drawing's layout for a training mapping: CP folded into DP (both split the
/// batch's data, and Megatron orders CP next to DP).
pub fn layout_of(m: &Parallel) -> Layout {
    Layout { tp: m.tp, pp: m.pp, dp: m.dp * m.cp }
}

/// Every chart of [`CHART_IDS`] at its default size, titled (the training charts when a
/// training view is given).
pub fn render_all(s: &Scenario, r: &Report, training: Option<&TrainingView>, theme: &Theme) -> Vec<NamedChart> {
    CHART_IDS
        .iter()
        .filter_map(|id| render_chart(id, s, r, training, theme, 0, 0, true))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::evaluate;

    #[test]
    fn every_chart_renders_with_a_caption() {
        let s = Scenario::default();
        let r = evaluate(&s).expect("default evaluates");
        let cap = caption(&s, &r);
        assert!(
            cap.starts_with("4 nodes × 8 ")
                && cap.contains("(32 GPUs)")
                && cap.contains("NCCL 2.27.5"),
            "{cap}"
        );
        // GB200 NVL72 in trays, as the explorer's controls and the CLI's cluster line count it.
        let mut nvl = Scenario::default();
        nvl.cluster = fabricscope_model::Cluster { gpu: fabricscope_model::catalog::GpuKind::Gb200, scale_up: fabricscope_model::catalog::ScaleUp::Nvl72, gpus_per_node: 4, nics_per_node: 4, nodes: 144, ..Default::default() };
        let nc = caption(&nvl, &evaluate(&nvl).expect("GB200 evaluates"));
        assert!(nc.starts_with("144 trays × 4 GB200") && nc.contains("(576 GPUs)") && nc.contains("4 × InfiniBand NDR 400G per tray"), "{nc}");
        let all = render_all(&s, &r, None, &Theme::for_dark(false));
        assert_eq!(all.iter().map(|c| c.id).collect::<Vec<_>>(), CHART_IDS[..3], "no training view: no training charts");
        for c in &all {
            assert!(c.svg.starts_with("<svg"), "{}", c.id);
            assert!(
                c.svg.contains(&escape(&cap)),
                "{} states the scenario",
                c.id
            );
            assert!(
                c.svg.contains(&escape(&c.title)),
                "{} states what it shows",
                c.id
            );
        }
        let bare =
            render_chart("busbw", &s, &r, None, &Theme::for_dark(true), 400, 300, false).expect("busbw");
        assert!(bare.svg.starts_with("<svg width=\"400\""), "no header: the chart alone");
        assert!(render_chart("pie", &s, &r, None, &Theme::for_dark(false), 0, 0, true).is_none());
    }

    #[test]
    fn training_charts_state_the_job_and_colour_its_layout() {
        use fabricscope_model::training::explore::explore;
        let mut s = Scenario::default();
        s.training.best = false;
        (s.training.tp, s.training.pp) = (4, 2);
        let r = evaluate(&s).expect("default evaluates");
        let v = explore(&s.cluster, &s.training).expect("trains");
        let all = render_all(&s, &r, Some(&v), &Theme::for_dark(false));
        assert_eq!(all.iter().map(|c| c.id).collect::<Vec<_>>(), CHART_IDS);
        for c in &all[3..] {
            assert!(c.caption.contains("llama3-8b on TP4 PP2 DP4"), "{}: {}", c.id, c.caption);
            assert!(c.svg.contains(&escape(&c.caption)), "{} states the job", c.id);
        }
        // The step chart lists the pinned layout first, then the search's best.
        let step = crate::texts(&all[3].svg);
        let mine = step.iter().position(|t| t.starts_with("▶ TP4 PP2 DP4"));
        let best = step.iter().position(|t| t.starts_with("#1 "));
        assert!(matches!((mine, best), (Some(a), Some(b)) if a < b), "{step:?}");
        // The topology drawing colours TP 4 x PP 2 instead of pure data parallelism.
        let topo = &all[2].svg;
        let dp_only = render_chart("topology", &s, &r, None, &Theme::for_dark(false), 0, 0, true).unwrap();
        assert_ne!(*topo, dp_only.svg);
        assert!(render_chart("mfu", &s, &r, None, &Theme::for_dark(false), 0, 0, true).is_none(), "training charts need a view");
    }
}
