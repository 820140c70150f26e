//! Every chart of a Report, named and captioned: what `fabricscope render` writes to files and
//! what `?embed=<chart>` shows in an iframe. One place decides how a Report becomes charts,
//! so an exported file, an embedded chart and the explorer agree.

use crate::collective::{collective_chart, ChartOptions, Series};
use crate::hierarchy::{bandwidth_hierarchy_chart_with, HierarchyOptions};
use crate::theme::Theme;
use crate::topology::{megatron_traffic, topology_chart, Layout, TopoOptions, TopoSpec};
use fabricscope_model::report::Scope;
use fabricscope_model::{Report, Scenario};

/// The charts a Report offers, by the id used in file names and `?embed=`.
pub const CHART_IDS: [&str; 3] = ["busbw", "hierarchy", "topology"];

/// One rendered chart.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedChart {
    /// `busbw`, `hierarchy` or `topology` (see [`CHART_IDS`]).
    pub id: &'static str,
    /// What the chart shows, e.g. "Bus bandwidth vs message size".
    pub title: String,
    pub svg: String,
}

/// One line stating the scenario: "4 nodes × 8 H100 SXM (32 GPUs) · NVLink4 + NVSwitch ·
/// 8 × InfiniBand NDR 400G per node · NCCL 2.27.5".
pub fn caption(s: &Scenario, r: &Report) -> String {
    let c = &s.cluster;
    let net = if c.nics_per_node == 0 {
        "no scale-out NICs".to_string()
    } else {
        format!(
            "{} × {} per node{}",
            c.nics_per_node,
            r.summary.nic,
            if c.sharp { " + SHARP" } else { "" }
        )
    };
    format!(
        "{} node{} × {} {} ({} GPUs) · {} · {} · NCCL {}",
        c.nodes,
        if c.nodes == 1 { "" } else { "s" },
        c.gpus_per_node,
        r.summary.gpu,
        r.summary.total_gpus,
        r.summary.scale_up,
        net,
        c.nccl.id()
    )
}

/// Renders chart `id` at `width` x `height` pixels (0 = the chart's own default), titled
/// "<what> — <caption>". `None` for an unknown id.
pub fn render_chart(
    id: &str,
    s: &Scenario,
    r: &Report,
    theme: &Theme,
    width: u32,
    height: u32,
) -> Option<NamedChart> {
    let cap = caption(s, r);
    match id {
        "busbw" => {
            // Whole-cluster curves when the cluster spans domains, else the one domain's.
            let scope = if r.curves.iter().any(|c| c.scope == Scope::Cluster) {
                Scope::Cluster
            } else {
                Scope::Domain
            };
            let series: Vec<Series> = r
                .curves
                .iter()
                .filter(|c| c.scope == scope)
                .map(|c| Series {
                    label: format!("{}, {} GPUs", c.op.name(), c.placement.ranks),
                    points: c.points.iter().map(|p| (p.bytes.0, p.busbw.0)).collect(),
                })
                .collect();
            let title = "Bus bandwidth vs message size".to_string();
            let d = ChartOptions::default();
            let opts = ChartOptions {
                width: if width == 0 { d.width } else { width },
                height: if height == 0 { d.height } else { height },
                title: Some(format!("{title} — {cap}")),
                min_bytes: s.view.min_bytes.0,
                max_bytes: s.view.max_bytes.0,
                description: format!(
                    "Bus bandwidth (GB/s per direction) against message size for {cap}"
                ),
                ..d
            };
            Some(NamedChart {
                id: "busbw",
                svg: collective_chart(&series, &opts, theme),
                title,
            })
        }
        "hierarchy" => {
            let tiers: Vec<(String, f64, f64)> = r
                .tiers
                .iter()
                .map(|t| (t.name.clone(), t.bw_per_gpu.0, t.latency.0))
                .collect();
            let title = "Bandwidth per GPU at each tier".to_string();
            let d = HierarchyOptions::default();
            let opts = HierarchyOptions {
                width: if width == 0 { d.width } else { width },
                height,
                title: Some(format!("{title} — {cap}")),
                description: format!("Bandwidth per GPU (GB/s per direction) at each tier of the hierarchy for {cap}"),
                ratios: r.ratios.iter().map(|x| x.ratio).collect(),
                ..d
            };
            Some(NamedChart {
                id: "hierarchy",
                svg: bandwidth_hierarchy_chart_with(&tiers, &opts, theme),
                title,
            })
        }
        "topology" => {
            let c = &s.cluster;
            let f = r.summary.fabric;
            let spec = TopoSpec {
                nodes: c.nodes,
                gpus_per_node: c.gpus_per_node,
                domain_gpus: r.summary.domain_gpus,
                nics_per_node: c.nics_per_node,
                leaves: f.map_or(0, |f| f.leaves),
                spines: f.map_or(0, |f| f.spines),
                nodes_per_leaf: f.map_or(c.nodes, |f| f.nodes_per_leaf),
                oversubscription: f.map_or(1.0, |f| f.oversubscription),
                scale_up: r.summary.scale_up.to_string(),
                nic: r.summary.nic.to_string(),
                switch: f.map_or(String::new(), |f| f.switch.to_string()),
                layout: Layout::data_parallel(r.summary.total_gpus),
            };
            let d = TopoOptions::default();
            let opts = TopoOptions {
                width: if width == 0 { d.width } else { width },
                height: if height == 0 { d.height } else { height },
            };
            let svg = topology_chart(&spec, &megatron_traffic(&spec), &opts, theme);
            Some(NamedChart {
                id: "topology",
                svg,
                title: format!("Cluster topology — {cap}"),
            })
        }
        _ => None,
    }
}

/// Every chart of [`CHART_IDS`] at its default size.
pub fn render_all(s: &Scenario, r: &Report, theme: &Theme) -> Vec<NamedChart> {
    CHART_IDS
        .iter()
        .filter_map(|id| render_chart(id, s, r, theme, 0, 0))
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
        let all = render_all(&s, &r, &Theme::for_dark(false));
        assert_eq!(all.iter().map(|c| c.id).collect::<Vec<_>>(), CHART_IDS);
        for c in &all {
            assert!(c.svg.starts_with("<svg"), "{}", c.id);
        }
        assert!(render_chart("pie", &s, &r, &Theme::for_dark(false), 0, 0).is_none());
    }
}
