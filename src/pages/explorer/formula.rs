//! Panel 6: how the headline numbers are computed, with this cluster's values filled in.
//! Every number comes from the model's `explain` (NCCL's own terms); this file only writes.

use crate::widgets::eval::{size_words, Evaluation};
use fabricscope_charts::scale::gbps_label;
use crate::widgets::Same;
use yew::prelude::*;

#[derive(PartialEq, Clone)]
pub struct Props {
    pub eval: Same<Evaluation>,
    /// The panel's element (App observes whether it is on screen).
    pub node: NodeRef,
}

fn n(v: f64) -> String {
    gbps_label(v)
}

/// One step of the formula: a bold lead, then its content.
fn step(lead: String, body: Html) -> Html {
    html! { <li><strong>{ lead }</strong>{ body }</li> }
}

/// A formula line in code, then a muted aside.
fn code(formula: String, aside: String) -> Html {
    html! { <><code>{ formula }</code><span class="muted">{ aside }</span></> }
}

/// A glossary term (pages.js shows its definition in place).
fn term(id: &'static str, word: &'static str) -> Html {
    html! { <button type="button" class="term" data-g={id}>{ word }</button> }
}

impl crate::widgets::Panel for Props {
    /// Drawn again only when the evaluation changes (and, off screen, not while a slider is
    /// dragged: App keeps its props until the drag comes to rest).
    fn view(&self) -> Html {
        formula_panel(self)
    }
}

fn formula_panel(props: &Props) -> Html {
    let e = &props.eval;
    let Some(f) = &e.formula else {
        return html! {
            <section ref={props.node.clone()} class="panel prose" data-testid="formula" aria-labelledby="formula-h">
                <h3 id="formula-h">{ "5 · How is this computed" }</h3>
                <p>{ "One GPU runs no collectives; add GPUs or nodes to see NCCL's formula." }</p>
            </section>
        };
    };
    let lib = e.report.summary.library;
    let bytes = f.bytes.0 as f64;
    let transfer = bytes / (1000.0 * f.bw.0);
    let plateau = f.latency.0 > f.table_latency.0 * 1.0001;
    let corrected = (f.bw.0 - f.table_bw.0).abs() > f.table_bw.0 * 1e-4;
    let mut steps: Vec<Html> = Vec::with_capacity(10);
    steps.push(step(
        format!("{lib}'s search: "),
        html! { format!("{} ring channels of {} GB/s inside a domain and {} GB/s across the network, per direction.", f.channels, n(f.channel_bw_intra.0), n(f.channel_bw_inter.0)) },
    ));
    let mut choice = format!(
        "the cheapest (algorithm, protocol) in its tuning table at this size: {} {}, table latency {} µs, algorithm bandwidth {} GB/s.",
        f.algorithm,
        f.protocol,
        n(f.table_latency.0),
        n(f.table_bw.0)
    );
    if plateau {
        choice += &format!(" On the ring plateau NCCL scales the latency to {} µs.", n(f.latency.0));
    }
    if corrected {
        choice += &format!(" At this size NCCL corrects Tree's bandwidth to {} GB/s.", n(f.bw.0));
    }
    steps.push(step(format!("{lib}'s choice: "), html! { choice }));
    steps.push(step(
        "NCCL's estimate: ".into(),
        code(
            format!("latency + bytes ÷ (1000 × bw) = {} + {} ÷ (1000 × {}) = {} µs", n(f.latency.0), f.bytes.0, n(f.bw.0), n(f.latency.0 + transfer)),
            " (µs and GB/s; NCCL uses it to choose, not to predict what is measured)".into(),
        ),
    ));
    steps.push(step(
        "Expected time: ".into(),
        html! { <>
            <code data-testid="formula-time">{ format!("time = latency + bytes ÷ (1000 × bw) = {} + {} ÷ (1000 × {}) = {} µs", n(f.expected_latency.0), f.bytes.0, n(f.expected_bw.0), n(f.time.0)) }</code>
            <span class="muted">{ " (the same choice timed by the tiers it crosses: NIC goodput, the network family's latency, scale losses measured on real clusters)" }</span>
        </> },
    ));
    steps.push(html! {
        <li>
            <strong>{ term("algbw", "algbw") }{ " and " }{ term("busbw", "busbw") }{ ": " }</strong>
            { code(
                format!("algbw = bytes ÷ time = {} GB/s; busbw = algbw × 2(n−1)/n = {} × {} = {} GB/s", n(f.algbw.0), n(f.algbw.0), format!("{:.4}", f.busbw_factor).trim_end_matches('0'), n(f.busbw.0)),
                format!(" (n = {})", f.ranks),
            ) }
        </li>
    });
    if f.nics_per_node > 0 {
        steps.push(step(
            "Per-GPU NIC share: ".into(),
            code(
                format!("{} NICs × {} GB/s ÷ {} GPUs = {} GB/s per GPU, per direction", f.nics_per_node, n(f.nic_line.0), f.gpus_per_node, n(f.nic_per_gpu.0)),
                format!(" ({} Gb/s line rate ÷ 8 bits = {} GB/s per NIC)", n(f.nic_line.0 * 8.0), n(f.nic_line.0)),
            ),
        ));
    }
    if let Some(t) = e.report.summary.fabric.as_ref().filter(|t| t.leaves > 1) {
        steps.push(html! {
            <li>
                <strong>{ term("oversubscription", "Oversubscription") }{ ": " }</strong>
                { code(
                    format!("{} NIC ports ÷ {} uplinks per leaf = {}:1", t.down_per_leaf, t.up_per_leaf, n(t.oversubscription)),
                    format!(
                        " ({} leaves, {} spines of {} ports); a ring or tree with contiguous ranks crosses the spine on few links and barely notices it; all-to-all sends (N−L)/N of its bytes across and pays up to {}:1",
                        t.leaves, t.spines, t.radix, n(t.oversubscription)
                    ),
                ) }
            </li>
        });
        if let Some(s) = t.tier(fabricscope_model::topology::SwitchLevel::Spine).filter(|_| t.cores > 0) {
            steps.push(step(
                "Core: ".into(),
                code(
                    format!("{} ports down ÷ {} up per spine = {}:1", s.ports_down, s.ports_up, n(s.oversubscription)),
                    format!(" ({} cores); traffic that crosses the core gets 1/{} of the NIC bandwidth", t.cores, n(t.core_path_oversubscription())),
                ),
            ));
        }
    }
    if let Some(r) = &e.reading {
        steps.push(html! { <li data-testid="reading-busbw"><strong>{ "What busbw means here: " }</strong>{ format!("{} Limited by {}.", r.busbw, r.limited_by) }</li> });
        if let Some(a) = &r.algorithm {
            steps.push(html! { <li data-testid="reading-algorithm"><strong>{ format!("How {} moves the data: ", f.algorithm) }</strong>{ a }</li> });
        }
        if let Some(sc) = &r.scaling {
            steps.push(html! { <li data-testid="reading-scaling"><strong>{ "One domain vs the cluster: " }</strong>{ sc }</li> });
        }
    }
    html! {
        <section ref={props.node.clone()} class="panel prose" data-testid="formula" aria-labelledby="formula-h">
            <h3 id="formula-h">{ "5 · How is this computed" }</h3>
            <p class="muted">{ format!("The headline AllReduce of {} over {} GPUs in {} domain{}, with your cluster's numbers:", size_words(e.key_bytes), f.ranks, f.domains, if f.domains == 1 { "" } else { "s" }) }</p>
            <ol class="steps">{ for steps }</ol>
        </section>
    }
}
