//! Learn's second part: every algorithm NCCL could run for the link's collective on the whole
//! cluster, each forced as NCCL_ALGO would force it, beside NCCL's own choice and why it wins,
//! with the throughput chart of their curves (`super::model::algos`).

use super::model::{algos, page_url, scenario_of, size_name, AlgoRow};
use crate::plumbing::hooks::DARK;
use crate::widgets::ChartSvg;
use crate::plumbing::hooks::use_media_query;
use yew::prelude::*;

/// The protocols the forced rows may use, and their names.
const PROTOCOLS: [(&str, &str); 4] = [("auto", "each its best"), ("ll", "LL"), ("ll128", "LL128"), ("simple", "SIMPLE")];

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Changes when the page's link may have changed (a hashchange, the part opened again).
    pub version: u32,
}

/// An algorithm's name as a glossary term.
fn term(name: &str) -> Html {
    let id = if name.to_lowercase().starts_with("collnet") { "collnet".to_string() } else { name.to_lowercase() };
    html! { <button type="button" class="term" data-g={id}>{ name.to_string() }</button> }
}

fn cells(x: &AlgoRow) -> Html {
    html! { <>
        <td>{ term(&x.algorithm) }</td>
        <td>{ &x.protocol }</td>
        <td>{ format!("{:.1}", x.time) }</td>
        <td>{ format!("{:.1}", x.busbw) }</td>
        <td>{ x.busbw_interval.map_or_else(|| "not validated".to_string(), |(lo, hi)| fabricscope_charts::scale::interval_label(lo, hi)) }</td>
        <td>{ format!("{:.1}", x.latency) }</td>
        <td>{ format!("{:.0}", x.bandwidth) }</td>
    </> }
}

#[function_component(AlgosPart)]
pub fn algos_part(p: &Props) -> Html {
    // log2 of the message size, bytes.
    let exp = use_state(|| 20u32);
    let proto = use_state(|| "auto".to_string());
    let dark = use_media_query(DARK);
    let chart_box = use_node_ref();
    let width = chart_box.cast::<web_sys::Element>().map_or(0, |e| e.client_width()).max(0) as u32;
    let width = if width == 0 { 900 } else { width.min(1000) };
    let link = page_url();
    let bytes = 1u64 << *exp;
    let table = use_memo((link, bytes, (*proto).clone(), width, dark, p.version), |(link, bytes, proto, width, dark, _)| {
        algos(&scenario_of(&link.0, &link.1), *bytes, proto, *width, *dark)
    });
    let on_size = {
        let exp = exp.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value_as_number();
            if v.is_finite() {
                exp.set((v as u32).clamp(3, 34));
            }
        })
    };
    let on_proto = {
        let proto = proto.clone();
        Callback::from(move |e: Event| proto.set(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()))
    };
    let (reason, body, svg) = match &*table {
        Err(e) => (e.clone(), Html::default(), String::new()),
        Ok(a) => {
            let rows = a.rows.iter().map(|(id, run)| {
                let numbers = match run {
                    Ok(x) => cells(x),
                    Err(why) => html! { <td colspan="7" class="hint">{ why }</td> },
                };
                html! { <tr data-algo={*id}><th scope="row">{ format!("{id} forced") }</th>{ numbers }</tr> }
            });
            let body = html! { <>
                <thead><tr>
                    { for ["", "algorithm", "protocol", "time µs", "busbw GB/s", "busbw 90% interval", "latency term µs", "bandwidth term GB/s"].iter().map(|h| html! { <th scope="col">{ *h }</th> }) }
                </tr></thead>
                <tbody>
                    <tr class="t-auto"><th scope="row">{ "NCCL's choice" }</th>{ cells(&a.auto) }</tr>
                    { for rows }
                </tbody>
            </> };
            (format!("{} of {}: {}", a.op, size_name(bytes), a.reason), body, a.svg.clone())
        }
    };
    html! {
        <div class="t-body">
            <p class="hint">{ "The collective of the throughput chart on your whole cluster, with each algorithm forced as NCCL_ALGO would force it. Time = latency term + size ÷ bandwidth term; NCCL runs the one its own estimate says is fastest." }</p>
            <div class="t-row">
                <label class="t-scrub">{ "Message size " }
                    <input type="range" id="t-asize" min="3" max="34" value={exp.to_string()} oninput={on_size} />{ " " }
                    <output id="t-asize-out">{ size_name(bytes) }</output>
                </label>
                <label>{ "Protocol of the forced rows " }
                    <select id="t-aproto" onchange={on_proto}>
                        { for PROTOCOLS.iter().map(|(v, name)| html! { <option value={*v} selected={*v == proto.as_str()}>{ *name }</option> }) }
                    </select>
                </label>
            </div>
            <p id="t-areason" aria-live="polite">{ reason }</p>
            <div class="t-table"><table id="t-atable">{ body }</table></div>
            <div id="t-achart" class="t-svg" ref={chart_box}><ChartSvg {svg} /></div>
        </div>
    }
}
