//! Panel 3: the parallel mapping drawn on the topology. The layout is the training search's
//! best, or TP and PP chosen from the sizes the cluster and workload allow (DP takes the
//! rest) in Megatron's rank order: TP fastest, then DP, then PP. GPUs are shaded by pipeline
//! stage, TP groups bracketed, links coloured by the parallelism whose traffic crosses them,
//! with a warning when TP leaves the scale-up domain.

use crate::app::Action;
use crate::eval::{layout_for, pp_choices, tp_choices, Evaluation};
use crate::training::{cp_values, drawing_layout, ep_values, layout_label, tp_values, workload, Choice, TrainingView};
use fabricscope_charts::topology::{megatron_traffic, topology_chart, Layout, TopoOptions, TopoSpec};
use fabricscope_charts::Theme;
use fabricscope_model::ModelError;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
    pub choice: Choice,
    pub training: Option<Rc<Result<TrainingView, ModelError>>>,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
    /// The panel's element (App observes whether it is on screen) and that observation.
    pub node: NodeRef,
    pub in_view: bool,
    /// The cluster last drawn, kept while the panel is off screen (one per App).
    pub shown: Rc<std::cell::RefCell<Option<TopoSpec>>>,
}

fn select_value(e: &Event) -> String {
    let s: HtmlSelectElement = e.target_unchecked_into();
    s.value()
}

/// The drawing for `spec` (its layout set), also used by tests.
pub fn mapping_svg(spec: &TopoSpec, dark: bool, compact: bool) -> (String, bool) {
    let traffic = megatron_traffic(spec);
    let opts = if compact { TopoOptions { width: 420, height: 520 } } else { TopoOptions { width: 920, height: 460 } };
    (topology_chart(spec, &traffic, &opts, &Theme::for_dark(dark)), traffic.tp_leaves_domain)
}

/// The layout to draw: the search's chosen one when it is for this cluster, else the
/// requested sizes (live while the search catches up).
fn layout_to_draw(total: u32, choice: Choice, training: &Option<Rc<Result<TrainingView, ModelError>>>) -> (Layout, Option<String>) {
    let chosen = training
        .as_deref()
        .and_then(|t| t.as_ref().ok())
        .filter(|t| t.choice == choice)
        .and_then(|t| t.chosen.as_ref())
        .filter(|c| c.mapping.gpus() == total as u64);
    match (chosen, choice) {
        (Some(c), _) => (drawing_layout(c), Some(layout_label(c))),
        (None, Choice::Fixed { tp, pp, cp, .. }) => {
            let l = layout_for(total, tp, pp);
            (l, Some(format!("TP{tp} PP{pp} DP{}{}", l.dp / cp.max(1), if cp > 1 { format!(" CP{cp}") } else { String::new() })))
        }
        (None, Choice::Best) => (layout_for(total, 8, 1), None),
    }
}

type Key = (TopoSpec, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

/// Drawn as a plain function with a one-entry cache (see `super::cached`); App owns the
/// on-screen observation.
pub fn mapping_panel(props: &Props) -> Html {
    let e = &props.eval;
    let total = e.total_gpus;
    let (layout, label) = layout_to_draw(total, props.choice, &props.training);
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
    let svg = DRAWN.with(|c| super::cached(c, (spec, props.dark, props.compact), |(spec, dark, compact)| AttrValue::from(mapping_svg(spec, *dark, *compact).0)));
    let wl = props.training.as_deref().and_then(|t| t.as_ref().ok()).and_then(|t| workload(&t.workload).ok());
    let tps = wl.as_ref().map(|w| tp_values(total, w)).unwrap_or_else(|| tp_choices(total));
    let (cur_cp, cur_ep) = match props.choice {
        Choice::Fixed { cp, ep, .. } => (cp, ep),
        Choice::Best => (1, 1),
    };
    let cps = wl.as_ref().map(|w| cp_values(total, w, layout.tp, layout.pp)).unwrap_or_else(|| vec![1]);
    let eps = wl.as_ref().map(|w| ep_values(total, w, layout.tp, layout.pp, cur_cp)).unwrap_or_else(|| vec![1]);
    let on_tp = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            let v = select_value(&e);
            match v.parse::<u32>() {
                Ok(t) => cb.emit(Action::Tp(t)),
                Err(_) => cb.emit(Action::Best(true)),
            }
        })
    };
    let sel = |e: &Event| select_value(e).parse::<u32>().ok();
    let on_cp = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = sel(&e) {
                cb.emit(Action::Cp(v));
            }
        })
    };
    let on_ep = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = sel(&e) {
                cb.emit(Action::Ep(v));
            }
        })
    };
    let on_pp = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Ok(p) = select_value(&e).parse::<u32>() {
                cb.emit(Action::Pp(p));
            }
        })
    };
    let best = props.choice == Choice::Best;
    let domain = e.report.summary.domain_gpus;
    html! {
        <figure ref={node} class="panel chart wide" data-testid="mapping" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <span class="chart-title">{ "3 · Parallel mapping on the topology" }</span>
                <span class="chart-sub">{ "Megatron rank order (TP fastest, then DP, then PP) · large clusters drawn in aggregate" }</span>
            </figcaption>
            <div class="toolbar">
                <label class="inline">{ "TP " }
                    <select id="tp-select" onchange={on_tp} aria-label="Tensor-parallel size, or best from the search">
                        <option value="best" selected={best}>{ "best (search)" }</option>
                        { for tps.into_iter().map(|t| html! {
                            <option value={t.to_string()} selected={!best && t == layout.tp}>{ t }</option>
                        }) }
                    </select>
                </label>
                <label class="inline">{ "PP " }
                    <select id="pp-select" onchange={on_pp} aria-label="Pipeline-parallel size">
                        { for pp_choices(total, layout.tp).into_iter().map(|p| html! {
                            <option value={p.to_string()} selected={p == layout.pp}>{ p }</option>
                        }) }
                    </select>
                </label>
                <label class="inline">{ "CP " }
                    <select id="cp-select" onchange={on_cp} aria-label="Context-parallel size" disabled={best}>
                        { for cps.into_iter().map(|c| html! {
                            <option value={c.to_string()} selected={c == cur_cp}>{ c }</option>
                        }) }
                    </select>
                </label>
                if eps.len() > 1 {
                    <label class="inline">{ "EP " }
                        <select id="ep-select" onchange={on_ep} aria-label="Expert-parallel size" disabled={best}>
                            { for eps.into_iter().map(|e| html! {
                                <option value={e.to_string()} selected={e == cur_ep}>{ e }</option>
                            }) }
                        </select>
                    </label>
                }
                <span class="inline" data-testid="layout" data-tp={layout.tp.to_string()} data-pp={layout.pp.to_string()} data-dp={layout.dp.to_string()}>
                    { match &label {
                        Some(l) => format!("{l} · DP takes the rest of the {total} GPUs"),
                        None => format!("TP{} PP{} DP{} · DP takes the rest of the {total} GPUs", layout.tp, layout.pp, layout.dp),
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
            <div class="chart-svg">{ Html::from_html_unchecked(svg) }</div>
        </figure>
    }
}
