//! Panel 3: the parallel mapping drawn on the topology. The layout is the training search's
//! best, or TP and PP chosen from the sizes the cluster and workload allow (DP takes the
//! rest) in Megatron's rank order: TP fastest, then DP, then PP. GPUs are shaded by pipeline
//! stage, TP groups bracketed, links coloured by the parallelism whose traffic crosses them,
//! with a warning when TP leaves the scale-up domain.

use crate::widgets::state::Action;
use crate::widgets::eval::{layout_for, pp_choices, tp_choices, Evaluation};
use crate::widgets::training::{cp_values, ep_values, layout_label, pp_values, tp_values, workload};
use fabricscope_charts::report::layout_of;
use fabricscope_model::training::Constraints;
use fabricscope_charts::topology::{megatron_traffic, topology_chart, Layout, TopoOptions, TopoSpec};
use fabricscope_charts::Theme;
use crate::widgets::controls::{numbers, parsed, select, Opt, SelectAttrs};
use crate::widgets::{ChartSvg, Same, Trained};
use yew::prelude::*;

#[derive(PartialEq, Clone)]
pub struct Props {
    pub eval: Same<Evaluation>,
    /// What the user pinned (TP, PP, CP, EP all `None`: the search's best).
    pub fixed: Constraints,
    pub training: Trained,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
    /// The panel's element (App observes whether it is on screen) and that observation.
    pub node: NodeRef,
    pub in_view: bool,
    /// The cluster last drawn, kept while the panel is off screen (one per App).
    pub shown: Same<std::cell::RefCell<Option<TopoSpec>>>,
}


/// The drawing for `spec` (its layout set), also used by tests.
pub fn mapping_svg(spec: &TopoSpec, dark: bool, compact: bool) -> (String, bool) {
    let traffic = megatron_traffic(spec);
    let opts = if compact { TopoOptions { width: 420, height: 520 } } else { TopoOptions { width: 920, height: 460 } };
    (topology_chart(spec, &traffic, &opts, &Theme::for_dark(dark)), traffic.tp_leaves_domain)
}

/// The layout to draw: the search's chosen one when it is for this cluster, else the
/// requested sizes (live while the search catches up).
/// Also the CP and EP of the layout (the search's, or the pinned ones).
fn layout_to_draw(total: u32, fixed: Constraints, training: &Trained) -> (Layout, Option<String>, (u32, u32)) {
    let chosen = training
        .as_deref()
        .and_then(|t| t.as_ref().ok())
        .filter(|t| t.fixed == fixed)
        .and_then(|t| t.chosen.as_ref())
        .filter(|c| c.mapping.gpus() <= total as u64);
    let pinned = (fixed.cp.unwrap_or(1), fixed.ep.unwrap_or(1));
    match (chosen, fixed.tp, fixed.pp) {
        // Where the expert layers' EP lies, as the CLI says it: the page pins no expert TP, so a
        // folded EP runs at the default expert TP 1 (`Parallel::etp`).
        (Some(c), _, _) => {
            let mut label = layout_label(c);
            if c.mapping.ep > 1 && c.mapping.folded() {
                label.push_str(" (expert TP 1, EP folded over TP x CP x DP)");
            }
            (layout_of(&c.mapping), Some(label), (c.mapping.cp, c.mapping.ep))
        }
        (None, Some(tp), Some(pp)) => {
            let cp = pinned.0;
            let l = layout_for(total, tp, pp);
            (l, Some(format!("TP{tp} PP{pp} DP{}{}", l.dp / cp.max(1), if cp > 1 { format!(" CP{cp}") } else { String::new() })), pinned)
        }
        _ => (layout_for(total, 8, 1), None, pinned),
    }
}

type Key = (TopoSpec, bool, bool);
type Offered = (u32, Option<String>, u32, u32, u32);
thread_local! {
    static OFFERED: std::cell::RefCell<Option<(Offered, [Vec<u32>; 4])>> = const { std::cell::RefCell::new(None) };
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

impl crate::widgets::Panel for Props {
    /// Drawn again when the props change; the drawing is cached on what it draws (see
    /// `crate::widgets::cached`). App owns the on-screen observation.
    fn view(&self) -> Html {
        mapping_panel(self)
    }
}

fn mapping_panel(props: &Props) -> Html {
    let e = &props.eval;
    let total = e.total_gpus;
    let (layout, label, (cur_cp, cur_ep)) = layout_to_draw(total, props.fixed, &props.training);
    let mut spec = e.topo.clone();
    spec.layout = layout;
    // The warning follows the live layout even while the drawing waits off screen.
    let warn = megatron_traffic(&spec).tp_leaves_domain;
    // Off screen, the drawing keeps its last cluster (no redraw while a slider above is
    // dragged); it catches up as it scrolls into view.
    let node = props.node.clone();
    let spec = {
        let mut shown = props.shown.borrow_mut();
        if props.in_view || shown.is_none() {
            *shown = Some(spec.clone());
        }
        shown.clone().unwrap_or(spec)
    };
    let svg = DRAWN.with(|c| crate::widgets::cached(c, (spec, props.dark, props.compact), |(spec, dark, compact)| AttrValue::from(mapping_svg(spec, *dark, *compact).0)));
    let wl = props.training.as_deref().and_then(|t| t.as_ref().ok()).map(|t| t.workload.clone());
    // The sizes on offer change only with the GPU count, the job and the layout, not on every
    // input (each list checks every combination against the model).
    let key = (total, wl, layout.tp, layout.pp, cur_cp);
    let [tps, pps, cps, eps] = OFFERED.with(|c| {
        crate::widgets::cached(c, key, |(total, wl, tp, pp, cp)| {
            let (total, tp, pp, cp) = (*total, *tp, *pp, *cp);
            match wl.as_deref().map(workload) {
                Some(Ok(w)) => [tp_values(total, &w), pp_values(total, tp, &w), cp_values(total, &w, tp, pp), ep_values(total, &w, tp, pp, cp)],
                _ => [tp_choices(total), pp_choices(total, tp), vec![1], vec![1]],
            }
        })
    });
    let best = props.fixed.tp.is_none();
    let domain = e.report.summary.domain_gpus;
    // Pinning PP pins TP too (the search then runs the rest): from the search's best, TP keeps
    // the size the model was using (the drawn layout's), not the state's stale default of 8.
    let pp_change = {
        let (cb, tp_now) = (props.on_action.clone(), layout.tp);
        Callback::from(move |v: String| {
            if let Ok(pp) = v.parse() {
                if best {
                    cb.emit(Action::Tp(tp_now));
                }
                cb.emit(Action::Pp(pp));
            }
        })
    };
    html! {
        <figure ref={node} class="panel chart wide" data-testid="mapping" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <h3 class="chart-title">{ "3 · Parallel mapping on the topology" }</h3>
                <span class="chart-sub">{ "Megatron rank order (TP fastest, then DP, then PP) · large clusters drawn in aggregate" }</span>
            </figcaption>
            <div class="toolbar">
                <label class="inline">{ "TP " }
                    { select("tp-select",
                        std::iter::once(Opt::new("best", "best (search)", best))
                            .chain(tps.into_iter().map(|t| Opt::new(t.to_string(), t.to_string(), !best && t == layout.tp)))
                            .collect(),
                        SelectAttrs { aria_label: Some("Tensor-parallel size, or best from the search"), ..SelectAttrs::default() },
                        parsed(&props.on_action, |v| Some(v.parse().map_or(Action::Best(true), Action::Tp)))) }
                </label>
                <label class="inline">{ "PP " }
                    { select("pp-select", numbers(pps, layout.pp),
                        SelectAttrs { aria_label: Some("Pipeline-parallel size"), ..SelectAttrs::default() },
                        pp_change) }
                </label>
                <label class="inline">{ "CP " }
                    { select("cp-select", numbers(cps, cur_cp),
                        SelectAttrs { aria_label: Some("Context-parallel size"), disabled: best, ..SelectAttrs::default() },
                        parsed(&props.on_action, |v| v.parse().ok().map(Action::Cp))) }
                </label>
                if eps.len() > 1 {
                    <label class="inline">{ "EP " }
                        { select("ep-select", numbers(eps, cur_ep),
                            SelectAttrs { aria_label: Some("Expert-parallel size"), disabled: best, ..SelectAttrs::default() },
                            parsed(&props.on_action, |v| v.parse().ok().map(Action::Ep))) }
                    </label>
                }
                <span class="inline" data-testid="layout" data-tp={layout.tp.to_string()} data-pp={layout.pp.to_string()} data-dp={layout.dp.to_string()}>
                    { {
                        // The drawing's DP counts DP x CP ranks.
                        let used = layout.tp as u64 * layout.pp as u64 * layout.dp as u64;
                        let rest = if used < total as u64 {
                            format!("{used} of the {total} GPUs used, {} idle (the DP that would use them all does not divide the batch)", total as u64 - used)
                        } else {
                            format!("DP takes the rest of the {total} GPUs")
                        };
                        match &label {
                            Some(l) => format!("{l} · {rest}"),
                            None => format!("TP{} PP{} DP{} · {rest}", layout.tp, layout.pp, layout.dp),
                        }
                    } }
                </span>
            </div>
            if warn {
                <p class="warning" role="status" data-testid="tp-warning">
                    if layout.tp > domain {
                        { format!("TP {} is larger than the {}-GPU scale-up domain: every tensor-parallel AllReduce crosses the network.", layout.tp, domain) }
                    } else {
                        { format!("Some TP groups of {} straddle two {}-GPU scale-up domains: their AllReduces cross the network.", layout.tp, domain) }
                    }
                </p>
            }
            <div class="chart-svg"><ChartSvg {svg} /></div>
        </figure>
    }
}
