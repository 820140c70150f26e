//! The MoE view under the training step: where the chosen layout's EP groups sit (NVLink only,
//! or across the network) and one MoE layer's dispatch and combine, as the EP model times them.

use fabricscope_charts::scale::interval_label;
use fabricscope_model::ep::Link;
use fabricscope_model::training::moe_view::MoeView;
use fabricscope_model::training::SpanTier;
use yew::prelude::*;

fn link_text(l: Link) -> &'static str {
    match l {
        Link::Nvlink => "NVLink",
        Link::Rdma => "network (RDMA)",
        Link::Xgmi => "xGMI",
        Link::Pcie => "PCIe",
    }
}

fn placement_text(m: &MoeView) -> String {
    if m.scale_up_only {
        return format!("Each EP group of {} GPUs sits inside one scale-up domain: its dispatch and combine stay on NVLink, no network.", m.ep);
    }
    let through = match m.tier {
        SpanTier::Spine => "through the spine",
        _ => "under one leaf switch",
    };
    format!("Each EP group of {} GPUs spans {} scale-up domains ({} GPUs in the thinnest): tokens cross the network {through}.", m.ep, m.domains, m.per_domain)
}

/// The MoE section of the training panel.
pub fn moe_section(m: &MoeView) -> Html {
    let row = |phase: &'static str, us: f64, link: Link, gbps: f64| {
        html! {
            <tr>
                <th scope="row">{ phase }</th>
                <td class="num">{ format!("{us:.0} µs") }</td>
                <td>{ link_text(link) }</td>
                <td class="num">{ format!("{gbps:.0}") }</td>
            </tr>
        }
    };
    html! {
        <div class="moe-view" data-testid="moe-view" aria-labelledby="moe-h">
            <h4 id="moe-h">{ "Expert parallelism: dispatch and combine" }</h4>
            <p data-testid="moe-placement" data-scale-up-only={m.scale_up_only.to_string()}>{ placement_text(m) }</p>
            if let Some(s) = &m.segments {
                <p class="muted small" data-testid="moe-segments">{ s.clone() }</p>
            }
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="moe-h">
                <table data-testid="moe-table">
                    <caption class="muted">{ format!("One MoE layer, one micro-batch ({:.0} tokens per rank), forward; {} MoE layers, backward repeats both", m.tokens_per_rank, m.moe_layers) }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "Phase" }</th>
                            <th scope="col" class="num">{ "Time" }</th>
                            <th scope="col">{ "Bottleneck" }</th>
                            <th scope="col" class="num">{ "GB/s per GPU" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { row("Dispatch", m.dispatch_us, m.dispatch_link, m.dispatch_gbps) }
                        { row("Combine", m.combine_us, m.combine_link, m.combine_gbps) }
                    </tbody>
                </table>
            </div>
            <p class="muted small" data-testid="moe-trust">{ match m.interval {
                Some([lo, hi]) => format!("DeepEP-style normal kernels, BF16. Time {} × the table's (90%, spanning the EP libraries published).", interval_label(1.0 / hi, 1.0 / lo)),
                None => format!("DeepEP-style normal kernels, BF16; {}.", m.trust),
            } }</p>
        </div>
    }
}
