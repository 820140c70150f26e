//! Panel 6: how the headline numbers are computed, with this cluster's values filled in.
//! Every number comes from the model's `explain` (NCCL's own terms); this file only writes.

use crate::eval::{Evaluation, KEY_LABEL};
use fabricscope_charts::scale::gbps_label;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
}

fn n(v: f64) -> String {
    gbps_label(v)
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn formula_panel(props: &Props) -> Html {
    let e = &props.eval;
    let Some(f) = &e.formula else {
        return html! {
            <section class="panel prose" data-testid="formula" aria-labelledby="formula-h">
                <h3 id="formula-h">{ "6 · How is this computed" }</h3>
                <p>{ "One GPU runs no collectives; add GPUs or nodes to see NCCL's formula." }</p>
            </section>
        };
    };
    let bytes = f.bytes.0 as f64;
    let transfer = bytes / (1000.0 * f.bw.0);
    let plateau = f.latency.0 > f.table_latency.0 * 1.0001;
    let corrected = (f.bw.0 - f.table_bw.0).abs() > f.table_bw.0 * 1e-4;
    let fabric = e.report.summary.fabric;
    html! {
        <section class="panel prose" data-testid="formula" aria-labelledby="formula-h">
            <h3 id="formula-h">{ "6 · How is this computed" }</h3>
            <p class="muted">{ format!("The headline AllReduce of {KEY_LABEL} over {} GPUs in {} domain{}, with your cluster's numbers:", f.ranks, f.domains, if f.domains == 1 { "" } else { "s" }) }</p>
            <ol class="steps">
                <li>
                    <strong>{ "NCCL's search: " }</strong>
                    { format!("{} ring channels of {} GB/s inside a domain and {} GB/s across the network, per direction.", f.channels, n(f.channel_bw_intra.0), n(f.channel_bw_inter.0)) }
                </li>
                <li>
                    <strong>{ "NCCL's choice: " }</strong>
                    { format!("the cheapest (algorithm, protocol) in its tuning table at this size: {} {}, table latency {} µs, algorithm bandwidth {} GB/s.", f.algorithm, f.protocol, n(f.table_latency.0), n(f.table_bw.0)) }
                    if plateau { { format!(" On the ring plateau NCCL scales the latency to {} µs.", n(f.latency.0)) } }
                    if corrected { { format!(" At this size NCCL corrects Tree's bandwidth to {} GB/s.", n(f.bw.0)) } }
                </li>
                <li>
                    <strong>{ "Time: " }</strong>
                    <code data-testid="formula-time">
                        { format!("time = launch + latency + bytes ÷ (1000 × bw) = {} + {} + {} ÷ (1000 × {}) = {} µs", n(f.launch.0), n(f.latency.0), f.bytes.0, n(f.bw.0), n(f.launch.0 + f.latency.0 + transfer)) }
                    </code>
                    <span class="muted">{ format!(" (µs and GB/s; the {} µs launch overhead is host time NCCL's model leaves out)", n(f.launch.0)) }</span>
                </li>
                <li>
                    <strong>{ "algbw and busbw: " }</strong>
                    <code>{ format!("algbw = bytes ÷ time = {} GB/s; busbw = algbw × 2(n−1)/n = {} × {} = {} GB/s", n(f.algbw.0), n(f.algbw.0), format!("{:.4}", f.busbw_factor).trim_end_matches('0'), n(f.busbw.0)) }</code>
                    <span class="muted">{ format!(" (n = {}; busbw is what each GPU's links carry, comparable with the tiers)", f.ranks) }</span>
                </li>
                if f.nics_per_node > 0 {
                    <li>
                        <strong>{ "Per-GPU NIC share: " }</strong>
                        <code>{ format!("{} NICs × {} GB/s ÷ {} GPUs = {} GB/s per GPU, per direction", f.nics_per_node, n(f.nic_line.0), f.gpus_per_node, n(f.nic_per_gpu.0)) }</code>
                        <span class="muted">{ format!(" ({} Gb/s line rate ÷ 8 bits = {} GB/s per NIC)", n(f.nic_line.0 * 8.0), n(f.nic_line.0)) }</span>
                    </li>
                }
                if let Some(t) = fabric.filter(|t| t.leaves > 1) {
                    <li>
                        <strong>{ "Oversubscription: " }</strong>
                        <code>{ format!("{} NIC ports ÷ {} uplinks per leaf = {}:1", t.down_per_leaf, t.up_per_leaf, n(t.oversubscription)) }</code>
                        <span class="muted">{ format!(" ({} leaves, {} spines of {} ports); traffic that crosses the spine gets 1/{} of the NIC bandwidth", t.leaves, t.spines, t.radix, n(t.oversubscription)) }</span>
                    </li>
                }
            </ol>
        </section>
    }
}
