//! Panel 3: the parallel mapping drawn on the topology. TP and PP offer only sizes that
//! divide the GPU count; DP takes the rest (Megatron's rank order: TP fastest, then DP, then
//! PP). GPUs are shaded by pipeline stage, TP groups bracketed, links coloured by the
//! parallelism whose traffic crosses them, with a warning when TP leaves the scale-up domain.

use crate::app::Action;
use crate::eval::{layout_for, pp_choices, tp_choices, Evaluation};
use fabricscope_charts::topology::{megatron_traffic, topology_chart, TopoOptions, TopoSpec};
use fabricscope_charts::Theme;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub eval: Rc<Evaluation>,
    pub tp: u32,
    pub pp: u32,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
}

fn select_u32(e: &Event) -> Option<u32> {
    let s: HtmlSelectElement = e.target_unchecked_into();
    s.value().parse().ok()
}

/// The drawing for `spec` (its layout set), also used by tests.
pub fn mapping_svg(spec: &TopoSpec, dark: bool, compact: bool) -> (String, bool) {
    let traffic = megatron_traffic(spec);
    let opts = if compact { TopoOptions { width: 420, height: 520 } } else { TopoOptions { width: 920, height: 440 } };
    (topology_chart(spec, &traffic, &opts, &Theme::for_dark(dark)), traffic.tp_leaves_domain)
}

#[component]
pub fn MappingPanel(props: &Props) -> Html {
    let e = &props.eval;
    let total = e.total_gpus;
    let layout = layout_for(total, props.tp, props.pp);
    let mut spec = e.topo.clone();
    spec.layout = layout;
    let drawn = use_memo((spec, props.dark, props.compact), |(spec, dark, compact)| {
        let (svg, warn) = mapping_svg(spec, *dark, *compact);
        (AttrValue::from(svg), warn)
    });
    let (svg, warn) = (*drawn).clone();
    let on_tp = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_u32(&e) {
                cb.emit(Action::Tp(v));
            }
        })
    };
    let on_pp = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_u32(&e) {
                cb.emit(Action::Pp(v));
            }
        })
    };
    let domain = e.report.summary.domain_gpus;
    html! {
        <figure class="panel chart wide" data-testid="mapping" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <span class="chart-title">{ "3 · Parallel mapping on the topology" }</span>
                <span class="chart-sub">{ "Megatron rank order (TP fastest, then DP, then PP) · large clusters drawn in aggregate" }</span>
            </figcaption>
            <div class="toolbar">
                <label class="inline">{ "TP " }
                    <select id="tp-select" onchange={on_tp} aria-label="Tensor-parallel size">
                        { for tp_choices(total).into_iter().map(|t| html! {
                            <option value={t.to_string()} selected={t == layout.tp}>{ t }</option>
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
                <span class="inline" data-testid="dp">{ format!("DP {} (the rest: {} GPUs ÷ TP × PP)", layout.dp, total) }</span>
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
