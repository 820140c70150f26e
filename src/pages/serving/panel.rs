//! The serving panel: an LLM served on the page's cluster. Pick a model and a deployment;
//! see tokens/s per GPU against per user as batch grows (and the same deployment across the
//! NVLink boundary), the step's breakdown, TPOT, TTFT and throughput with their bands, and
//! search TP x EP x DP x batch for a per-user speed. Computed only while on screen.

use crate::widgets::controls::check;
use crate::widgets::ChartSvg;
use super::job::{serve, use_serving_search, Served};
use crate::widgets::serving_choice::{field_select, Field, ServingChoice, ERROR_ID};
use fabricscope_charts::scale::interval_label;
use fabricscope_charts::serving::caption;
use fabricscope_charts::{serving_chart, ServingChart, ServingSeries, Theme};
use fabricscope_model::interval::Interval;
use fabricscope_model::fitted::Calibration;
use fabricscope_model::{Cluster, ModelError};
use fabricscope_serving::Phase;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The cluster the page shows (a valid one).
    pub cluster: Cluster,
    /// The cluster as measured (a link's `cal=`, check.html's fit), or why the link's could not
    /// be read.
    #[prop_or_default]
    pub calibration: Option<Result<Rc<Calibration>, String>>,
    pub dark: bool,
    pub compact: bool,
}

/// "±6%" or "not validated".
/// A figure's 90% interval in a few words ("90%: 5.62-7.90"), or "not validated".
fn range(i: Option<&Interval>) -> String {
    i.map_or_else(|| "not validated".to_string(), |i| interval_label(i.lo, i.hi))
}

#[inline(never)]
fn stat(label: &'static str, testid: &'static str, exact: Option<f64>, value: String, sub: String) -> Html {
    html! {
        <div class="stat">
            <span class="stat-label">{ label }</span>
            <span class="stat-value" data-testid={testid} data-value={exact.map(|v| v.to_string())}>{ value }</span>
            <span class="stat-sub">{ sub }</span>
        </div>
    }
}

/// The sentence under the chart: where the deployment's group sits against the NVLink domain.
fn boundary_note(s: &Served) -> String {
    let g = s.group;
    let other = s.curves.get(1).map(|c| format!("{} {}", c.group.kind, c.group.size));
    let domains = g.size.div_ceil(s.domain_gpus.max(1));
    if g.crosses {
        format!(
            "{} {} spans {domains} NVLink domains of {} GPUs: its {} crosses the network in every layer (dashed).{}",
            g.kind,
            g.size,
            s.domain_gpus,
            if g.kind == "TP" { "all-reduce" } else { "dispatch and combine" },
            other.map_or(String::new(), |o| format!(" Solid: {o}, inside one domain."))
        )
    } else {
        format!(
            "{} {} stays inside one NVLink domain of {} GPUs (solid).{}",
            g.kind,
            g.size,
            s.domain_gpus,
            other.map_or(" No layout across the boundary fits this cluster and model.".to_string(), |o| format!(" Dashed: {o}, across the boundary."))
        )
    }
}

/// Memory per GPU in GiB of the card, as `serve` prints it: what the deployment holds of what
/// the engine may use, and that share of the card (the engine's fraction, less any reserve).
fn memory_line(r: &fabricscope_serving::ServeReport) -> String {
    format!(
        "memory {:.1} of {:.1} GiB per GPU (the engine's {} of the card's {:.0} GiB{})",
        r.memory_gib,
        r.hbm_usable_gib,
        r.memory_fraction,
        r.hbm_capacity_gib,
        if r.reserve_gib > 0.0 { format!(", less {:.1} GiB reserved", r.reserve_gib) } else { String::new() }
    )
}

/// Which deployment the numbers below are for: after a refused change, the last valid one,
/// named, so no figure sits under the refused model's name.
fn shown_line(s: &Served, refused: bool) -> String {
    let c = &s.choice;
    format!(
        "{}{}: {} TP {} × EP {} × DP {}, batch {} per DP rank, context {}, {}",
        if refused { "Still showing " } else { "Showing " },
        s.name,
        c.phase.id(),
        c.tp,
        c.ep,
        c.dp,
        c.batch,
        c.context,
        c.precision.id().to_uppercase()
    )
}

fn breakdown(s: &Served) -> Html {
    let r = &s.report;
    let b = &r.breakdown;
    let step = r.step_ms.max(1e-12);
    // The roofline's smaller term overlaps the larger; the KV transfer is in TTFT, not the step.
    let hidden = |own: f64, other: f64| (own < other).then_some("hidden (roofline)");
    let rows: [(&str, f64, Option<&str>); 7] = [
        ("Weights and KV cache read", b.weights_kv_read, hidden(b.weights_kv_read, b.compute)),
        ("Compute", b.compute, hidden(b.compute, b.weights_kv_read)),
        ("Per-layer kernels and host work", b.layer_overhead, None),
        ("TP all-reduce", b.tp_allreduce, None),
        ("EP dispatch and combine (exposed)", b.ep_dispatch_combine, None),
        ("Pipeline hops", b.pipeline, None),
        ("KV transfer (in TTFT)", b.kv_transfer, Some("in TTFT")),
    ];
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="serving-breakdown-h">
            <table data-testid="serving-breakdown">
                <caption class="muted">{ format!("One {} step: {:.3} ms, {}-bound (the largest part: memory- or compute-bound operations, each the larger of its read and compute, per-layer costs, or the network)", r.phase.id(), r.step_ms, r.bound) }</caption>
                <thead><tr><th scope="col">{ "Part" }</th><th scope="col" class="num">{ "ms" }</th><th scope="col" class="num">{ "Share of step" }</th></tr></thead>
                <tbody>
                    { for rows.iter().map(|(name, ms, note)| html! {
                        <tr>
                            <th scope="row">{ *name }</th>
                            <td class="num">{ format!("{ms:.3}") }</td>
                            <td class="num">{ note.map_or_else(|| format!("{:.0}%", ms / step * 100.0), str::to_string) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn numbers_view(s: &Served) -> Html {
    let r = &s.report;
    let iv = s.intervals.as_ref();
    let ms = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2} ms"));
    let with = |x: String, i: Option<&Interval>| format!("{x} · {}", range(i));
    html! {
        <div class="stats mini" data-testid="serving-numbers">
            { stat("Time per output token", "serving-tpot", r.tpot_ms, ms(r.tpot_ms), with(if r.phase == Phase::Prefill { "decode only".into() } else { format!("batch {} per DP rank", r.batch) }, iv.and_then(|i| i.tpot_ms.as_ref()))) }
            { stat("Time to first token", "serving-ttft", r.ttft_ms, ms(r.ttft_ms), with(if r.breakdown.kv_transfer > 0.0 { format!("{:.2} ms KV transfer", r.breakdown.kv_transfer) } else { "one prompt".into() }, iv.and_then(|i| i.ttft_ms.as_ref()))) }
            { stat("Tokens/s per GPU", "serving-per-gpu", Some(r.tokens_per_s_per_gpu), format!("{:.0}", r.tokens_per_s_per_gpu), with(format!("{} GPUs", r.gpus), iv.map(|i| &i.tokens_per_s_per_gpu))) }
            { stat(if s.node_word.0 == "tray" { "Tokens/s per tray" } else { "Tokens/s per node" }, "serving-per-node", Some(r.tokens_per_s_per_node), format!("{:.0}", r.tokens_per_s_per_node), with(format!("{} {}", r.nodes, if r.nodes == 1 { s.node_word.0 } else { s.node_word.1 }), iv.map(|i| &i.tokens_per_s_per_node))) }
            { stat("Tokens/s per user", "serving-per-user", Some(r.tokens_per_s_per_user), format!("{:.1}", r.tokens_per_s_per_user), range(iv.map(|i| &i.tokens_per_s_per_user))) }
            { stat("Network share", "serving-network", Some(r.network_share), format!("{:.0}%", r.network_share * 100.0), memory_line(r)) }
        </div>
    }
}

/// The panel's last answer: the cluster it is for, the last valid evaluation (and its chart),
/// and the error of the current choice if it has one. Shared by pointer: the body re-renders
/// only when a new answer is made (never while the panel is off screen).
#[derive(Default)]
struct Shown {
    cluster: Cluster,
    good: Option<(Rc<Served>, AttrValue)>,
    error: Option<ModelError>,
}

fn draw(s: &Served, choice: &ServingChoice, dark: bool, compact: bool) -> AttrValue {
    let series = s.curves.iter().enumerate().map(|(i, c)| ServingSeries::of(c, None, (i == 0).then_some(choice.batch))).collect();
    let (w, h) = if compact { (400, 380) } else { (760, 400) };
    serving_chart(&ServingChart { series, prefill: choice.phase == Phase::Prefill, batch_labels: true, caption: false }, w, h, &Theme::for_dark(dark)).into()
}

type Key = (Cluster, ServingChoice, bool, bool, Option<Rc<Calibration>>);

/// The panel: observes whether it is on screen and, only then, evaluates the choice on the
/// cluster when either changed; the body below redraws only for a new answer.
#[function_component(ServingPanel)]
pub fn serving_panel(p: &Props) -> Html {
    let node = use_node_ref();
    let in_view = crate::plumbing::hooks::use_on_screen(node.clone());
    let choice = use_state_eq(ServingChoice::default);
    let shown = use_mut_ref(|| (None::<Key>, Rc::new(Shown::default())));
    let c = *choice;
    if in_view {
        let cal = p.calibration.as_ref().and_then(|c| c.as_ref().ok()).cloned();
        let key = (p.cluster.clone(), c, p.dark, p.compact, cal.clone());
        let mut cell = shown.borrow_mut();
        if cell.0.as_ref() != Some(&key) {
            let last = cell.1.good.clone();
            let next = match serve(&p.cluster, &c, cal.as_deref()) {
                Ok(s) => {
                    let svg = draw(&s, &c, p.dark, p.compact);
                    Shown { cluster: p.cluster.clone(), good: Some((Rc::new(s), svg)), error: None }
                }
                // The last valid chart stays beside the error.
                Err(e) => Shown { cluster: p.cluster.clone(), good: last, error: Some(e) },
            };
            *cell = (Some(key), Rc::new(next));
        }
    }
    let view = crate::widgets::Same(shown.borrow().1.clone());
    html! {
        <section ref={node} class={classes!((!crate::widgets::cluster_line::framed()).then_some("panel"), "chart", "wide", "serving")} data-testid="serving" aria-labelledby="serving-h">
            <ServingBody {view} {choice} dark={p.dark} compact={p.compact} calibration_error={p.calibration.as_ref().and_then(|c| c.as_ref().err()).cloned()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct BodyProps {
    view: crate::widgets::Same<Shown>,
    choice: UseStateHandle<ServingChoice>,
    dark: bool,
    compact: bool,
    /// Why the link's calibration was not applied.
    calibration_error: Option<String>,
}

#[function_component(ServingBody)]
fn serving_body(p: &BodyProps) -> Html {
    let choice = p.choice.clone();
    let c = *choice;
    let target = use_state_eq(|| fabricscope_serving::DEFAULTS.min_tokens_per_s_per_user as u32);
    let sh = &*p.view.0;
    let (found, progress, start) = use_serving_search(sh.cluster.clone(), c, *target);

    let err_field = sh.error.as_ref().map(|e| e.field);
    let total = sh.cluster.total_gpus();
    let on_target = {
        let target = target.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().trim().parse::<f64>() {
                if v.is_finite() && (0.0..=100_000.0).contains(&v) {
                    target.set(v.round() as u32);
                }
            }
        })
    };
    let use_best = {
        let (choice, found) = (choice.clone(), found.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(b) = found.as_ref().and_then(|f| f.result.as_ref().ok()).and_then(|r| r.best.as_ref()) {
                choice.set(ServingChoice { phase: Phase::Decode, tp: b.tp, ep: b.ep, dp: b.dp, batch: b.batch, ..*choice });
            }
        })
    };
    let searching = progress.is_some();
    html! {
        <div aria-busy={searching.to_string()}>
            <div class="figcaption">
                // Framed, the host's section shows this title (and the card) already.
                <h3 id="serving-h" class={if crate::widgets::cluster_line::framed() { "visually-hidden" } else { "chart-title" }}>{ "Serving · LLM inference on this cluster" }</h3>
                <span class="chart-sub">{ "A model deployed for inference: decode or prefill step as a roofline of weights and KV cache against compute, plus TP all-reduces, EP dispatch/combine and the KV handoff on the fabric's tiers" }</span>
            </div>
            <crate::widgets::cluster_line::ClusterLine cluster={sh.cluster.clone()} />
            <div class="toolbar" role="group" aria-label="Served model and deployment">
                { for Field::EXPLORER.iter().map(|f| field_select(*f, true, &choice, total, err_field)) }
                { check("serving-disagg", "Disaggregated prefill", "Prefill on other nodes: the KV cache moves to the decode nodes (in time to first token)", c.disaggregated, false, {
                    let choice = choice.clone();
                    Callback::from(move |on: bool| choice.set(ServingChoice { disaggregated: on, ..*choice }))
                }) }
            </div>
            if let Some(why) = &p.calibration_error {
                <p class="warning" data-testid="serving-calibration-error">{ format!("The link's calibration (cal=) was not applied, the numbers are the catalog design's: {why}") }</p>
            }
            if let Some(e) = &sh.error {
                <p class="error" role="alert" id={ERROR_ID} data-testid="serving-error" data-field={e.field}>
                    { format!("{}: {}{}", e.field.replace('_', " "), e.message, sh.good.as_ref().map_or(String::new(), |(s, _)| format!(" (below: the last valid deployment, {}, not this choice)", s.name))) }
                </p>
            }
            if let Some((s, svg)) = &sh.good {
                <p class="muted small" data-testid="serving-shown" data-model={s.choice.model}>{ shown_line(s, sh.error.is_some()) }</p>
                if let Some(n) = &s.calibrated {
                    <p class="bottleneck" data-testid="serving-calibrated" data-logs={n.logs.to_string()}>
                        { format!("Calibrated from {} log{}: {}. On the catalog design (as designed) the same deployment gives {:.0} tokens/s per GPU.", n.logs, if n.logs == 1 { "" } else { "s" }, n.scale, n.catalog_tokens_per_s_per_gpu) }
                    </p>
                }
                <p class="bottleneck" data-testid="serving-boundary" data-crosses={s.group.crosses.to_string()}>{ boundary_note(s) }</p>
                { numbers_view(s) }
                <p class="muted small" data-testid="serving-band">{ match &s.intervals {
                    Some(_) => "Each figure's 90% interval: 9 in 10 published measurements of its kind fell inside when left out.".to_string(),
                    None => format!("Not validated: no published measurement of {} on {} hardware; the numbers are the model's extrapolation.", s.report.accuracy_class.id(), s.report.hardware_class.id()),
                } }</p>
                if let Some(i) = &s.intervals {
                    <details class="muted small" data-testid="serving-basis"><summary>{ "What the intervals rest on" }</summary>{ &i.tokens_per_s_per_gpu.basis }</details>
                }
                <figure class="serving-figure">
                    <div class="chart-svg" data-testid="serving-chart"><ChartSvg svg={svg.clone()} /></div>
                    <figcaption class="muted small">{ caption(true) }</figcaption>
                </figure>
                <h4 class="sub" id="serving-breakdown-h">{ "Where the step's time goes" }</h4>
                { breakdown(s) }
            } else if sh.error.is_none() {
                <p class="muted" data-testid="serving-waiting">{ "Computed when this panel is on screen." }</p>
            }
            <h4 class="sub" id="serving-search-h">{ "Best layout at a per-user speed" }</h4>
            <div class="toolbar" role="group" aria-labelledby="serving-search-h">
                <label class="inline" for="serving-target">{ "At least (output tokens/s per user) " }</label>
                <input id="serving-target" type="number" min="0" max="100000" step="1" value={target.to_string()} onchange={on_target} />
                <button type="button" data-testid="serving-search" disabled={searching} onclick={start.reform(|_: MouseEvent| ())}>{ "Search TP × EP × DP × batch" }</button>
                <span class="status" role="status" data-testid="serving-search-status">
                    { match progress {
                        Some((d, t)) if t > 0 => format!("searching: {}% of {t} deployments", 100 * d / t),
                        Some(_) => "searching…".to_string(),
                        None => String::new(),
                    } }
                </span>
            </div>
            if let Some(f) = &found {
                { match &f.result {
                    Err(e) => html! { <p class="error" data-testid="serving-search-result">{ format!("{}: {}", e.field, e.message) }</p> },
                    Ok(r) => {
                        let timing = format!("{} deployments tried in {:.2} s {}, {} refused (do not fit or do not split). ", r.tried, f.ms / 1000.0, if f.off_thread { "in a background worker" } else { "on the page" }, r.refused);
                        let (ms, place) = (format!("{:.0}", f.ms), if f.off_thread { "worker" } else { "page" });
                        match &r.best {
                            Some(b) => html! {
                                <p data-testid="serving-search-result" data-tp={b.tp.to_string()} data-ep={b.ep.to_string()} data-dp={b.dp.to_string()} data-batch={b.batch.to_string()} data-tried={r.tried.to_string()} data-ms={ms} data-where={place}>
                                    { format!("Best at ≥ {} tokens/s per user: TP {} × EP {} × DP {}, batch {} per DP rank: {:.0} tokens/s per GPU, {:.1} per user (TPOT {:.2} ms). {timing}",
                                        *target, b.tp, b.ep, b.dp, b.batch, b.tokens_per_s_per_gpu, b.tokens_per_s_per_user, b.tpot_ms) }
                                    <button type="button" onclick={use_best}>{ "Use this layout" }</button>
                                </p>
                            },
                            None => html! { <p class="warning" data-testid="serving-search-result" data-tried={r.tried.to_string()} data-ms={ms} data-where={place}>{ format!("No deployment reaches {} tokens/s per user on this cluster. {timing}", *target) }</p> },
                        }
                    }
                } }
            }
            <super::plan_panel::PlanSection cluster={sh.cluster.clone()} choice={c} dark={p.dark} compact={p.compact} calibrated={sh.good.as_ref().is_some_and(|(s, _)| s.calibrated.is_some())} on_use={{ let choice = choice.clone(); Callback::from(move |c| choice.set(c)) }} />
        </div>
    }
}
