//! The headline numbers at 1 GiB: busbw, time, and which algorithm and protocol NCCL picks.

use crate::eval::{bottleneck_text, Evaluation, KEY_LABEL};
use fabricscope_charts::scale::gbps_label;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn key_numbers(props: &Props) -> Html {
    let e = &props.eval;
    let size = KEY_LABEL;
    let Some(k) = &e.key else {
        return html! {
            <div class="stats" data-testid="stats">
                <div class="stat" data-testid="gpus">
                    <span class="stat-label">{ "GPUs" }</span>
                    <span class="stat-value" data-value="1">{ "1" }</span>
                    <span class="stat-sub">{ "a single GPU has nobody to talk to" }</span>
                </div>
            </div>
        };
    };
    html! {
        <div class="stats" data-testid="stats">
            <div class="stat accent" data-testid="busbw">
                <span class="stat-label">{ format!("AllReduce busbw at {size}") }</span>
                <span class="stat-value">
                    <span data-testid="busbw-value" data-value={k.busbw.0.to_string()}>{ gbps_label(k.busbw.0) }</span>
                    <span class="unit">{ " GB/s" }</span>
                </span>
                <span class="stat-sub">{ "per direction, per GPU" }</span>
            </div>
            <div class="stat" data-testid="time">
                <span class="stat-label">{ format!("Time for {size}") }</span>
                <span class="stat-value" data-value={k.time.0.to_string()}>{ k.time.to_string() }</span>
                <span class="stat-sub">{ format!("algbw {} GB/s", gbps_label(k.algbw.0)) }</span>
            </div>
            <div class="stat" data-testid="choice">
                <span class="stat-label">{ format!("NCCL's choice at {size}") }</span>
                <span class="stat-value" data-testid="algorithm">{ k.algorithm }</span>
                <span class="stat-sub">
                    <span data-testid="protocol">{ k.protocol }</span>
                    { format!(" protocol · limited by {}", bottleneck_text(k.bottleneck)) }
                </span>
            </div>
            <div class="stat" data-testid="gpus">
                <span class="stat-label">{ "GPUs in the AllReduce" }</span>
                <span class="stat-value" data-value={e.total_gpus.to_string()}>{ e.total_gpus }</span>
                <span class="stat-sub">{ format!("{} nodes × {} · {} domain{} of {}", e.cluster.nodes, e.cluster.gpus_per_node, e.report.summary.domains, if e.report.summary.domains == 1 { "" } else { "s" }, e.report.summary.domain_gpus) }</span>
            </div>
        </div>
    }
}
