//! Charts of a comparison, one colour per design (the theme's series colours in design
//! order): busbw against size and the scaling curves against node count overlaid, the
//! bandwidth hierarchy interleaved by tier, step time and memory juxtaposed. The same code
//! draws the explorer's compare panel, `?embed=compare-…` and `fabricscope render A B …`.

use crate::collective::{collective_chart, ChartOptions, Series};
use crate::hierarchy::{bandwidth_hierarchy_chart_with, HierarchyOptions};
use crate::svg_size;
use crate::svg::escape;
use crate::theme::Theme;
use crate::training::{memory_chart, step_chart, Size, StepRow};
use fabricscope_design::compare::{letter, ScalePoint, SCALE_NODES};

use fabricscope_model::report::Scope;
use fabricscope_model::training::explore::{layout_label, memory_parts, step_parts, TrainingView};
use fabricscope_model::{Report, View, YAxis};
use std::fmt::Write;

/// One design as the charts need it.
#[derive(Clone, Copy, Debug)]
pub struct DesignData<'a> {
    /// Its label on the charts, "A · name" ([`design_label`]); bars of the hierarchy carry
    /// the part before the first " · ".
    pub name: &'a str,
    pub report: &'a Report,
    /// The design's training view of the compared job (`None` while it is being searched).
    pub training: Option<&'a TrainingView>,
    /// Its scaling points (empty while they are being computed).
    pub scaling: &'a [ScalePoint],
}

/// The comparison charts, by the id used in file names and `?embed=`.
pub const COMPARE_CHART_IDS: [&str; 6] =
    ["compare-busbw", "compare-hierarchy", "compare-step", "compare-memory", "compare-scaling-busbw", "compare-scaling-step"];

/// What chart `id` shows; `None` for an id that is not a comparison chart.
pub fn compare_title(id: &str) -> Option<&'static str> {
    Some(match id {
        "compare-busbw" => "busbw vs message size, one line per design",
        "compare-hierarchy" => "Bandwidth per GPU at each tier, per design",
        "compare-step" => "Training step time of the same job, per design",
        "compare-memory" => "Memory per GPU of the same job, per design",
        "compare-scaling-busbw" => "busbw vs node count: where each fabric stops scaling",
        "compare-scaling-step" => "Step time vs node count, best layout at each size: where it stops scaling",
        _ => return None,
    })
}

/// "A · name" legend label of design `i`.
pub fn design_label(i: usize, name: &str) -> String {
    format!("{} · {name}", letter(i))
}

/// Chart `id` of `designs` at `width` pixels (0: the explorer's, narrower when `compact`);
/// `view` gives the collective, sizes, axis and headline size. `None` for an unknown id.
pub fn compare_chart(id: &str, designs: &[DesignData], view: &View, theme: &Theme, width: u32, compact: bool) -> Option<String> {
    let w = match width {
        0 if compact => 420,
        0 => 880,
        w => w.clamp(240, 4000),
    };
    let op = view.selected_op;
    let title = compare_title(id)?;
    let lines = |pts: &dyn Fn(&DesignData) -> Vec<(u64, f64)>| -> Vec<Series> {
        designs.iter().map(|d| Series { label: d.name.to_string(), points: pts(d), ..Series::default() }).collect()
    };
    let plot = |series: &[Series], opts: ChartOptions| collective_chart(series, &ChartOptions { width: w, height: if compact { 380 } else { 440 }, description: title.into(), ..opts }, theme);
    let size = view.headline_bytes();
    Some(match id {
        "compare-busbw" => {
            let (lo, hi) = view.chart_bytes();
            let log = view.y_axis == YAxis::Log;
            let series = lines(&|d| {
                let c = d.report.curves.iter().filter(|c| c.op == op).max_by_key(|c| c.scope == Scope::Cluster);
                c.map(|c| c.points.iter().map(|p| (p.bytes.0, p.busbw.0)).collect()).unwrap_or_default()
            });
            plot(&series, ChartOptions {
                min_bytes: lo.0,
                max_bytes: hi.0,
                linear: !log,
                highlight_bytes: Some(size.0),
                x_label: "message size (log scale)".into(),
                y_label: format!("{} busbw over every GPU, GB/s per direction{}", op.name(), if log { " (log scale)" } else { "" }),
                ..ChartOptions::default()
            })
        }
        "compare-scaling-busbw" | "compare-scaling-step" => {
            let busbw = id == "compare-scaling-busbw";
            let series = lines(&|d| {
                d.scaling.iter().filter_map(|p| Some((p.nodes as u64, if busbw { p.busbw_gbps? } else { p.step_s? }))).collect()
            });
            let y_label = if busbw {
                format!("{} busbw at {}, GB/s per direction", op.name(), fabricscope_model::units::format_size(size))
            } else {
                let job = designs.iter().find_map(|d| d.training).map_or("the job", |v| v.workload.as_str());
                format!("step time of {job}, s (log scale; flat where the batch leaves GPUs idle)")
            };
            plot(&series, ChartOptions {
                min_bytes: SCALE_NODES[0] as u64,
                max_bytes: SCALE_NODES[SCALE_NODES.len() - 1] as u64,
                linear: busbw,
                x_counts: true,
                x_label: "nodes (log scale)".into(),
                y_label,
                ..ChartOptions::default()
            })
        }
        "compare-hierarchy" => {
            // Tiers interleaved by kind (every design's NIC tier together), in the order the
            // first design that has a kind lists it.
            let mut kinds = Vec::new();
            for d in designs {
                for t in &d.report.tiers {
                    if !kinds.contains(&t.kind) {
                        kinds.push(t.kind);
                    }
                }
            }
            let mut tiers = Vec::new();
            let mut colors = Vec::new();
            for k in kinds {
                for (i, d) in designs.iter().enumerate() {
                    for t in d.report.tiers.iter().filter(|t| t.kind == k) {
                        tiers.push((format!("{} · {}", d.name.split(" · ").next().unwrap_or_default(), t.name), t.bw_per_gpu.0, t.latency.0));
                        colors.push(i);
                    }
                }
            }
            // The bars carry letters; the axis title says whose they are.
            let key: Vec<&str> = designs.iter().map(|d| d.name).collect();
            let x_label = format!("{} — GB/s per GPU, per direction (log scale)", key.join(", "));
            let opts = HierarchyOptions { width: w, colors, description: title.into(), x_label, ..HierarchyOptions::default() };
            bandwidth_hierarchy_chart_with(&tiers, &opts, theme)
        }
        "compare-step" => {
            let rows: Vec<StepRow> = designs
                .iter()
                .map(|d| match d.training.and_then(|v| v.chosen.as_ref()) {
                    Some(r) => StepRow {
                        label: d.name.to_string(),
                        parts: step_parts(r).into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
                        note: format!("MFU {:.0}% · {}", r.mfu * 100.0, layout_label(r)),
                        highlight: false,
                    },
                    None => StepRow { label: d.name.to_string(), parts: Vec::new(), note: "no layout yet".into(), highlight: false },
                })
                .collect();
            let h = 70 + 34 * rows.len() as u32;
            step_chart(&rows, Size { width: w, height: h }, theme)
        }
        "compare-memory" => {
            let panels: Vec<(usize, String, String)> = designs
                .iter()
                .enumerate()
                .filter_map(|(i, d)| {
                    let (parts, cap) = memory_parts(d.training?.chosen.as_ref()?);
                    let parts: Vec<(String, f64)> = parts.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
                    Some((i, d.name.to_string(), memory_chart(&parts, cap, Size { width: w, height: 90 }, theme)))
                })
                .collect();
            stack(&panels, w, title, theme)
        }
        _ => return None,
    })
}

/// Charts one above the other in one SVG, each under its design's name in its colour.
fn stack(panels: &[(usize, String, String)], w: u32, title: &str, theme: &Theme) -> String {
    let mut body = String::new();
    let mut y = 0;
    for (i, name, svg) in panels {
        let (_, h) = svg_size(svg);
        let _ = write!(
            body,
            "<text x=\"10\" y=\"{}\" font-family=\"{}\" font-size=\"13\" font-weight=\"600\" fill=\"{}\">{}</text><svg x=\"0\" y=\"{}\">{}</svg>",
            y + 16,
            theme.font,
            theme.series_color(*i).hex(),
            escape(name),
            y + 22,
            svg.find('>').map_or("", |j| &svg[j + 1..svg.len().saturating_sub(6)])
        );
        y += 22 + h;
    }
    let h = y.max(40);
    format!(
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"><title>{}</title><rect width=\"{w}\" height=\"{h}\" fill=\"{}\"/>{body}</svg>",
        escape(title),
        theme.background.hex()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texts;
    use fabricscope_model::catalog::NicKind;
    use fabricscope_design::compare::scale_points;
    use fabricscope_model::training::explore::explore;
    use fabricscope_model::{evaluate, Cluster, Collective, Scenario};

    #[test]
    fn every_compare_chart_draws_each_design_in_its_colour() {
        let a = Scenario::new(Cluster { nodes: 8, ..Cluster::default() });
        let b = Scenario::new(Cluster { nodes: 8, nic: NicKind::Roce400, ..Cluster::default() });
        let reports = [evaluate(&a).unwrap(), evaluate(&b).unwrap()];
        let views = [explore(&a.cluster, &a.training).unwrap(), explore(&b.cluster, &b.training).unwrap()];
        let scaling: Vec<Vec<ScalePoint>> = [&a, &b]
            .iter()
            .map(|s| scale_points(&s.cluster, Collective::AllReduce, s.view.headline_bytes(), Some(&s.training.workload)))
            .collect();
        let designs: Vec<DesignData> = (0..2)
            .map(|i| DesignData { name: ["A · IB", "B · RoCE"][i], report: &reports[i], training: Some(&views[i]), scaling: &scaling[i] })
            .collect();
        let theme = Theme::light();
        for id in COMPARE_CHART_IDS {
            let svg = compare_chart(id, &designs, &a.view, &theme, 0, false).unwrap();
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{id}");
            let t = texts(&svg);
            for want in ["A · IB", "B · RoCE"] {
                assert!(t.iter().any(|x| x.contains(want)), "{id} names {want}: {t:?}");
            }
            if id != "compare-step" {
                for i in 0..2 {
                    assert!(svg.contains(&theme.series_color(i).hex()), "{id} draws design {i} in its colour");
                }
            }
        }
        // The scaling charts read nodes, not bytes, on x.
        let t = texts(&compare_chart("compare-scaling-busbw", &designs, &a.view, &theme, 0, false).unwrap());
        assert!(t.iter().any(|x| x == "4096") && !t.iter().any(|x| x == "4K"), "{t:?}");
        assert!(compare_chart("pie", &designs, &a.view, &theme, 0, false).is_none());
    }
}
