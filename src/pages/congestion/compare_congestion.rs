//! compare.html's "Congestion and sharing" panel: each pinned design's fabric under the flow
//! model, side by side: one routing, traffic and seed count for all (routing defaults to each
//! design's NIC), the other jobs sharing each design's fabric set per design (0: dedicated),
//! and each design's throughput fraction as a band over seeds (issue 25).

use super::study::{routing_of, use_congestion, Settings};
use crate::plumbing::hooks::use_on_screen;
use fabricscope_charts::compare::design_label;
use fabricscope_charts::{fraction_bands_chart, BandRow, Theme};
use fabricscope_design::compare::Design;
use fabricscope_flow::{Routing, Traffic};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub designs: Vec<Design>,
    pub dark: bool,
    pub compact: bool,
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

thread_local! {
    /// The shared settings and per-design neighbours as last drawn, for the remount on each
    /// new set of designs (the user's choices carry over).
    static KEPT: std::cell::RefCell<Option<(Settings, Vec<u32>)>> = const { std::cell::RefCell::new(None) };
}

#[function_component(CompareCongestion)]
pub fn compare_congestion(props: &Props) -> Html {
    let node = use_node_ref();
    // Starts false: a framed page (re)mounted off screen computes nothing until seen.
    let in_view = use_on_screen(node.clone());
    // Shared: routing (None: each design's NIC), traffic, seeds. Per design: other jobs.
    let kept = KEPT.with(|k| k.borrow().clone());
    let shared = use_state(|| kept.as_ref().map_or(Settings { seeds: 16, ..Settings::default() }, |k| k.0));
    let jobs = use_state(|| kept.map(|k| k.1).unwrap_or_default());
    KEPT.with(|k| *k.borrow_mut() = Some((*shared, (*jobs).clone())));
    let key: Vec<_> = props
        .designs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.scenario.cluster.clone(), Settings { other_jobs: jobs.get(i).copied().unwrap_or(0), ..*shared }))
        .collect();
    let (done, progress) = use_congestion(key.clone(), false, in_view);
    let current = done.as_ref().is_some_and(|d| d.key == key);
    let on_routing = {
        let shared = shared.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            shared.set(Settings { routing: Routing::ALL.iter().find(|r| r.0 == v).map(|r| r.1), ..*shared });
        })
    };
    let on_traffic = {
        let shared = shared.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(t) = Traffic::ALL.iter().find(|t| t.0 == v) {
                shared.set(Settings { traffic: t.1, ..*shared });
            }
        })
    };
    let set_jobs = |i: usize| {
        let jobs = jobs.clone();
        Callback::from(move |e: Event| {
            if let Ok(n) = crate::widgets::value_of(&e).trim().parse::<u32>() {
                let mut v = (*jobs).clone();
                v.resize(v.len().max(i + 1), 0);
                v[i] = n.min(15);
                jobs.set(v);
            }
        })
    };
    let theme = Theme::for_dark(props.dark);
    let rows: Vec<BandRow> = done
        .as_ref()
        .map(|d| {
            d.studies
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let f = s.outcome.as_ref().ok()?.throughput_fraction;
                    Some(BandRow { label: props.designs.get(i).map_or_else(String::new, |x| design_label(i, &x.name)), min: f.min, p10: f.p10, p50: f.p50, p90: f.p90, max: f.max, color: i })
                })
                .collect()
        })
        .unwrap_or_default();
    let chart = (!rows.is_empty()).then(|| AttrValue::from(fraction_bands_chart(&rows, if props.compact { 360 } else { 720 }, "Throughput fraction per design over seeds (p10-p90, median)", &theme)));
    let routing_value = shared.routing.map_or("nic", |r| r.id());
    html! {
        <section ref={node} class="panel congestion" data-testid="compare-congestion" aria-labelledby="cc-h" data-current={current.to_string()}>
            <h2 id="cc-h">{ "Congestion and sharing" }</h2>
            <p class="chart-sub">{ "Each design's fat tree under the flow model (flows routed over its switches, max-min fair rates, over hash seeds): a dedicated design has no other jobs; a shared one has neighbours on the same fabric. Modelled, not measured." }</p>
            <div class="toolbar">
                <label class="inline" for="cc-routing">{ "Routing " }
                    <select id="cc-routing" onchange={on_routing}>
                        <option value="nic" selected={routing_value == "nic"}>{ "each design's NIC default" }</option>
                        { for Routing::ALL.iter().map(|(id, _)| html! { <option value={*id} selected={routing_value == *id}>{ *id }</option> }) }
                    </select>
                </label>
                <label class="inline" for="cc-traffic">{ "Traffic " }
                    <select id="cc-traffic" onchange={on_traffic}>
                        { for super::panel::TRAFFIC.iter().map(|(t, label)| html! { <option value={t.id()} selected={*t == shared.traffic}>{ *label }</option> }) }
                    </select>
                </label>
            </div>
            <p class="muted small" aria-live="polite" data-testid="cc-status">
                { match progress { Some((d, t)) => format!("sampling: seed {d} of {t}…"), None if !current && done.is_some() => "last answer, for other settings: scroll here to update".into(), None => String::new() } }
            </p>
            <div class={classes!("table-scroll", (!current).then_some("stale"))} tabindex="0" role="region" aria-labelledby="cc-h">
                <table data-testid="cc-table">
                    <thead><tr>
                        <th scope="col">{ "Design" }</th><th scope="col">{ "Routing" }</th><th scope="col">{ "Other jobs" }</th>
                        <th scope="col">{ "Throughput fraction: median (p10–p90)" }</th><th scope="col">{ "Bottleneck" }</th>
                    </tr></thead>
                    <tbody>
                        { for props.designs.iter().enumerate().map(|(i, d)| {
                            let label = design_label(i, &d.name);
                            let study = done.as_ref().filter(|_| current).and_then(|x| x.studies.get(i));
                            let (text, tier, p50) = match study.map(|s| (&s.outcome, &s.note)) {
                                Some((Ok(o), _)) => {
                                    let f = o.throughput_fraction;
                                    (format!("{} ({}–{})", pct(f.p50), pct(f.p10), pct(f.p90)), o.bottleneck_tier.to_string(), Some(f.p50))
                                }
                                Some((Err(_), Some(n))) => (n.clone(), String::new(), None),
                                Some((Err(e), None)) => (format!("{}: {}", e.field, e.message), String::new(), None),
                                None => ("…".into(), String::new(), None),
                            };
                            let id = format!("cc-jobs-{i}");
                            html! {
                                <tr data-testid="cc-row" data-p50={p50.map(|x| x.to_string())}>
                                    <th scope="row">{ label.clone() }</th>
                                    <td>{ routing_of(&shared, &d.scenario.cluster).id() }</td>
                                    <td><input id={id} class="small-num" type="number" min="0" max="15" aria-label={format!("Other jobs on {label}'s fabric")}
                                        value={jobs.get(i).copied().unwrap_or(0).to_string()} onchange={set_jobs(i)} /></td>
                                    <td>{ text }</td><td>{ tier }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if let Some(svg) = chart {
                <div class="chart-svg" data-testid="cc-bands"><crate::widgets::ChartSvg {svg} /></div>
            }
            <p class="hint">{ "Other jobs split each design's nodes evenly with the job (each of the same size, communicating half the time: the expected value is shown). Transport effects (PFC, DCQCN, incast, retransmits) are not modelled. The per-design other-jobs counts are not kept in the link." }</p>
        </section>
    }
}
