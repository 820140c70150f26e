//! Panel 1: the bandwidth hierarchy, per GPU and per direction, with latency per tier and the
//! ratio between neighbouring tiers. Redrawn only when the tiers, theme or width class change.

use crate::widgets::eval::Evaluation;
use fabricscope_charts::{bandwidth_hierarchy_chart_with, HierarchyOptions, Theme};
use fabricscope_model::{Tier, TierKind};
use crate::widgets::{ChartSvg, Same};
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    pub eval: Same<Evaluation>,
    pub dark: bool,
    pub compact: bool,
    /// The panel's frame at its final size and no drawing yet (while the page loads, the
    /// drawing gets its own frame: nothing moves when it arrives).
    pub pending: bool,
}

/// Rows reserved: HBM, scale-up, PCIe, NIC, leaf, spine, core.
const ROWS: usize = 7;

/// The bars as drawn: (name, GB/s per direction, latency µs).
pub fn bars(tiers: &[Tier], compact: bool) -> Vec<(String, f64, f64)> {
    tiers
        .iter()
        .map(|t| {
            let name = if compact { short_name(t) } else { long_name(t) };
            (name, t.bw_per_gpu.0, t.latency.0)
        })
        .collect()
}

/// The chart for these bars and ratios (also used by tests).
pub fn hierarchy_svg(bars: &[(String, f64, f64)], ratios: &[f64], dark: bool, compact: bool) -> String {
    let opts = HierarchyOptions {
        width: if compact { 420 } else { 920 },
        height: 0,
        rows: ROWS,
        ratios: ratios.to_vec(),
        x_label: if compact { "GB/s per GPU, per direction".into() } else { "bandwidth per GPU, GB/s per direction (log scale)".into() },
        description: "Bandwidth per GPU and per direction at each tier, with latency, log scale".into(),
        ..HierarchyOptions::default()
    };
    bandwidth_hierarchy_chart_with(bars, &opts, &Theme::for_dark(dark))
}

/// The tier's name without the switch model (the drawing and table name it).
fn long_name(t: &Tier) -> String {
    match t.kind {
        TierKind::Leaf => "leaf switch".into(),
        TierKind::Spine => match t.name.rsplit_once('(') {
            Some((_, o)) => format!("spine switch ({}", o),
            None => "spine switch".into(),
        },
        TierKind::Core => match t.name.rsplit_once('(') {
            Some((_, o)) => format!("core switch ({}", o),
            None => "core switch".into(),
        },
        _ => t.name.clone(),
    }
}

fn short_name(t: &Tier) -> String {
    match t.kind {
        TierKind::Hbm => "HBM".into(),
        TierKind::ScaleUp => "scale-up".into(),
        TierKind::Pcie => "PCIe".into(),
        TierKind::Nic => "NICs".into(),
        TierKind::Leaf => "leaf".into(),
        TierKind::Spine => "spine".into(),
        TierKind::Core => "core".into(),
    }
}

type Key = (Vec<(String, f64, f64)>, Vec<f64>, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

impl crate::widgets::Panel for Props {
    /// Drawn again when the props change; the drawing is cached on what it draws (see
    /// `crate::widgets::cached`).
    fn view(&self) -> Html {
        hierarchy_panel(self)
    }
}

fn hierarchy_panel(props: &Props) -> Html {
    let pending = props.pending;
    let r = &props.eval.report;
    let ratios: Vec<f64> = r.ratios.iter().map(|x| x.ratio).collect();
    // Keyed on what is drawn, not on the tiers: a node count that changes only a tier's
    // description (nodes per leaf) does not redraw.
    let key = (bars(&r.tiers, props.compact), ratios, props.dark, props.compact);
    let svg = if pending { AttrValue::Static("") } else { DRAWN.with(|c| crate::widgets::cached(c, key, |(bars, ratios, dark, compact)| AttrValue::from(hierarchy_svg(bars, ratios, *dark, *compact)))) };
    html! {
        <figure class="panel chart" data-testid="hierarchy" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <h3 class="chart-title">{ "1 · Bandwidth hierarchy" }</h3>
                <span class="chart-sub">{ "per GPU, per direction · latency of a small transfer · ÷ = step to the next tier" }</span>
            </figcaption>
            <div class="chart-svg"><ChartSvg {svg} /></div>
        </figure>
    }
}
