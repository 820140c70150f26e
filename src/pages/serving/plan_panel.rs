//! The planner's section of the serving panel (issue 39): a request rate and TTFT / TPOT
//! targets in; the deployments that meet them on the fewest GPUs out (aggregated replicas and
//! disaggregated prefill and decode pools), each figure with its 90% interval, their chart with
//! the Pareto front, why none does when none does, and the same question as a command line.

use super::plan_compare::{ComparePlans, PinnedDesign};
use super::plan_job::{use_serving_plan, PlanForm, Planned};
use super::plan_text::{cli_line, run_button, with_interval};
use crate::widgets::serving_choice::{field_select, Field};
use crate::widgets::controls::{select, Opt, SelectAttrs};
use crate::widgets::serving_choice::ServingChoice;
use crate::widgets::ChartSvg;
use fabricscope_charts::{plan_chart, PlanSeries, Theme};
use fabricscope_model::Cluster;
use fabricscope_serving::planner::{Mode, PlanDeployment, PlanResult};
use fabricscope_serving::Phase;
use fabricscope_serving::{Engine, DEFAULTS};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub cluster: Cluster,
    /// Designs pinned on compare.html (its frame's `d=`): planned side by side under the form.
    #[prop_or_default]
    pub designs: Rc<Vec<PinnedDesign>>,
    pub choice: ServingChoice,
    pub dark: bool,
    pub compact: bool,
    /// The panel above shows the cluster as measured; the planner, like `serve --search`, plans
    /// on the catalog design.
    #[prop_or_default]
    pub calibrated: bool,
    /// Shows a listed deployment in the panel above.
    #[prop_or_default]
    pub on_use: Callback<ServingChoice>,
}

/// Id of the message naming a planner input the page refused.
const INPUT_ERROR_ID: &str = "plan-input-error";

/// A number input of the form: a valid value is applied; anything else leaves the form as it
/// was and says which field takes which values.
#[allow(clippy::too_many_arguments)]
fn number_field(id: &'static str, label: &'static str, value: f64, (min, max): (f64, f64), allowed: &'static str, invalid: bool, apply: Callback<f64>, refuse: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let text = input.value();
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= min && v <= max => apply.emit(v),
            _ => refuse.emit(format!("{}: {allowed}; got '{}'", label.trim(), text.chars().take(24).collect::<String>())),
        }
    });
    html! {
        <label class="inline">{ label }
            <input {id} type="number" min={min.to_string()} max={max.to_string()} step="any" value={value.to_string()} {onchange}
                aria-invalid={invalid.then_some("true")} aria-describedby={invalid.then_some(INPUT_ERROR_ID)} />
        </label>
    }
}

/// The deployment as the panel above shows one (its decode pool's layout at the batch the rate
/// implies); `None` for a pipelined pool, which the panel does not offer.
fn as_choice(d: &PlanDeployment, base: &ServingChoice) -> Option<ServingChoice> {
    let pool = d.decode_pool().filter(|p| p.pp == 1)?;
    let batch = (d.batch_per_rank.round() as u32).max(1);
    Some(ServingChoice { phase: Phase::Decode, tp: pool.tp, ep: pool.ep, dp: pool.dp, batch, disaggregated: d.mode == Mode::Disaggregated, ..*base })
}

fn row(i: usize, d: &PlanDeployment, base: &ServingChoice, on_use: &Callback<ServingChoice>) -> Html {
    let iv = d.intervals.as_ref();
    let show = as_choice(d, base).map(|c| {
        let on_use = on_use.clone();
        html! { <button type="button" class="link" aria-label={format!("Show deployment {} in the panel above", i + 1)} onclick={Callback::from(move |_: MouseEvent| on_use.emit(c))}>{ "show" }</button> }
    });
    let kv = d.kv_transfer_ms.map_or(String::new(), |ms| format!(", KV handoff {ms:.2} ms in TTFT"));
    html! {
        <tr data-gpus={d.gpus.to_string()} data-mode={d.mode.id()} title={format!("decode step {:.1} ms at {:.0} sequences per rank{kv}", d.step_ms, d.batch_per_rank)}>
            <td class="num">{ i + 1 }</td>
            <th scope="row">{ if d.mode == Mode::Aggregated { format!("aggregated {}", d.label()) } else { d.label() } }</th>
            <td class="num">{ d.gpus }</td>
            <td class="num">{ with_interval(format!("{:.0}", d.ttft_ms), iv.map(|i| &i.ttft_ms)) }</td>
            <td class="num">{ with_interval(format!("{:.1}", d.tpot_ms), iv.map(|i| &i.tpot_ms)) }</td>
            <td class="num" data-value={d.tokens_per_s_per_gpu.to_string()}>{ with_interval(format!("{:.0}", d.tokens_per_s_per_gpu), iv.map(|i| &i.tokens_per_s_per_gpu)) }</td>
            <td class="num">{ with_interval(format!("{:.1}", d.tokens_per_s_per_user), iv.map(|i| &i.tokens_per_s_per_user)) }</td>
            <td class="num">{ format!("{:.1}", d.max_rate) }</td>
            <td>{ for show }</td>
        </tr>
    }
}

fn table(r: &PlanResult, base: &ServingChoice, on_use: &Callback<ServingChoice>) -> Html {
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="plan-table-caption">
            <table data-testid="plan-table">
                <caption id="plan-table-caption" class="muted">{ format!("Deployments meeting both targets at {} requests/s, fewest GPUs first (the smallest pools of each layout; {} layouts or prefill and decode layout pairs meet them, from {} layouts); output tokens/s at the rate; max req/s: the most the deployment takes within both targets; hover a row for its decode step", r.input.rate, r.meeting_layouts, r.layouts) }</caption>
                <thead><tr>
                    <th scope="col" class="num">{ "#" }</th>
                    <th scope="col">{ "Deployment" }</th>
                    <th scope="col" class="num">{ "GPUs" }</th>
                    <th scope="col" class="num">{ "TTFT, ms" }</th>
                    <th scope="col" class="num">{ "TPOT, ms" }</th>
                    <th scope="col" class="num">{ "Tokens/s per GPU" }</th>
                    <th scope="col" class="num">{ "Tokens/s per user" }</th>
                    <th scope="col" class="num">{ "Max req/s" }</th>
                    <th scope="col"><span class="visually-hidden">{ "In the panel above" }</span></th>
                </tr></thead>
                <tbody>{ for r.deployments.iter().enumerate().map(|(i, d)| row(i, d, base, on_use)) }</tbody>
            </table>
        </div>
    }
}

/// The answer: the smallest deployment in a sentence, the fabric's part, the chart and table.
fn answer(p: &Planned, svg: &AttrValue, base: &ServingChoice, on_use: &Callback<ServingChoice>) -> Html {
    let r = match &p.result {
        Err(e) => return html! { <p class="error" data-testid="plan-result">{ format!("{}: {}", e.field.replace('_', " "), e.message) }</p> },
        Ok(r) => r,
    };
    let timing = format!(
        "{} deployments evaluated over {} layouts ({} do not fit or split) in {:.2} s {}.",
        r.evaluated,
        r.layouts,
        r.layouts_refused,
        p.ms / 1000.0,
        if p.off_thread { "in a background worker" } else { "on the page" }
    );
    let (ms, place) = (format!("{:.0}", p.ms), if p.off_thread { "worker" } else { "page" });
    let Some(first) = r.deployments.first() else {
        return html! {
            <p class="warning" data-testid="plan-result" data-count="0" data-evaluated={r.evaluated.to_string()} data-ms={ms} data-where={place}>
                { match &r.reason {
                    Some(why) => format!("No deployment on this cluster meets both targets at {} requests/s: {why}. {timing}", r.input.rate),
                    None => format!("No deployment on this cluster meets both targets at {} requests/s. {timing}", r.input.rate),
                } }
            </p>
        };
    };
    html! {
        <>
            <p data-testid="plan-result" data-count={r.deployments.len().to_string()} data-gpus={first.gpus.to_string()} data-mode={first.mode.id()} data-label={first.label()}
                data-per-gpu={first.tokens_per_s_per_gpu.to_string()} data-evaluated={r.evaluated.to_string()} data-ms={ms} data-where={place}>
                { format!(
                    "Fewest GPUs: {} {} on {} of {} GPUs, TTFT {:.0} ms, TPOT {:.1} ms, {:.0} output tokens/s per GPU. {} deployment{} meet both targets. {timing}",
                    first.mode.id(), first.label(), first.gpus, r.gpus_available, first.ttft_ms, first.tpot_ms, first.tokens_per_s_per_gpu, r.meeting, if r.meeting == 1 { "" } else { "s" }
                ) }
            </p>
            if let Some(note) = &r.fabric_note {
                <p class="bottleneck" data-testid="plan-fabric">{ note }</p>
            }
            <p class="muted small">{ "Each figure's 90% interval: 9 in 10 published measurements of its step's kind fell inside when left out; the queueing at the rate (M/G/1) is the model's, not measured under load." }</p>
            <figure class="serving-figure">
                <div class="chart-svg" data-testid="plan-chart"><ChartSvg svg={svg.clone()} /></div>
                <figcaption class="muted small">{ "Every deployment meeting the targets: output tokens/s per GPU at the rate against tokens/s per user; the line joins the Pareto front, the ring marks the fewest GPUs." }</figcaption>
            </figure>
            { table(r, base, on_use) }
        </>
    }
}

fn choose<T: Copy + PartialEq + 'static>(id: &'static str, label: &'static str, options: &[(T, &'static str, &'static str)], current: T, set: Callback<T>) -> Html {
    let opts = options.iter().map(|(v, value, text)| Opt::new(*value, *text, *v == current)).collect();
    let options: Vec<(T, &'static str)> = options.iter().map(|(v, value, _)| (*v, *value)).collect();
    let on = Callback::from(move |s: String| {
        if let Some((v, _)) = options.iter().find(|(_, value)| *value == s) {
            set.emit(*v);
        }
    });
    html! { <label class="inline">{ label }{ select(id, opts, SelectAttrs::default(), on) }</label> }
}

#[function_component(PlanSection)]
pub fn plan_section(p: &Props) -> Html {
    let form = use_state_eq(PlanForm::default);
    let refused = use_state_eq(|| None::<String>);
    let f = *form;
    let (planned, progress, start) = use_serving_plan(p.cluster.clone(), p.choice, f);
    let svg = {
        let planned = planned.clone();
        use_memo((planned.as_ref().map(|x| Rc::as_ptr(x) as usize), p.dark, p.compact), move |(_, dark, compact)| {
            let (w, h) = if *compact { (400, 380) } else { (760, 420) };
            match planned.as_ref().map(|x| &x.result) {
                Some(Ok(r)) => AttrValue::from(plan_chart(&[PlanSeries { label: String::new(), plan: r }], w, h, &Theme::for_dark(*dark))),
                _ => AttrValue::default(),
            }
        })
    };
    let set = |apply: fn(&mut PlanForm, f64)| {
        let (form, refused) = (form.clone(), refused.clone());
        Callback::from(move |v: f64| {
            let mut next = *form;
            apply(&mut next, v);
            refused.set(None);
            form.set(next);
        })
    };
    let refuse = {
        let refused = refused.clone();
        Callback::from(move |m: String| refused.set(Some(m)))
    };
    let invalid = |label: &str| refused.as_deref().is_some_and(|m| m.starts_with(label));
    let running = progress.is_some();
    let modes = [(Mode::Auto, "auto", "both, ranked together"), (Mode::Aggregated, "aggregated", "aggregated replicas"), (Mode::Disaggregated, "disaggregated", "disaggregated pools")];
    let engines = [(None, "any", "any (intervals span all four)"), (Some(Engine::Trtllm), "trtllm", "TensorRT-LLM"), (Some(Engine::Vllm), "vllm", "vLLM"), (Some(Engine::Sglang), "sglang", "SGLang"), (Some(Engine::Sglang04), "sglang-0.4", "SGLang 0.4 (2025)")];
    let percentiles = [(None, "mean", "mean"), (Some(0.5), "p50", "p50"), (Some(0.9), "p90", "p90"), (Some(0.99), "p99", "p99")];
    html! {
        <section aria-labelledby="plan-h" data-testid="plan" aria-busy={running.to_string()}>
            <h4 class="sub" id="plan-h">{ "Plan for a request rate: the fewest GPUs meeting TTFT and TPOT targets" }</h4>
            <p class="muted small">{ format!("{} at {}, {} prompt tokens and {} output tokens per request (the deployment above sets model, precision and prompt); Poisson arrivals; aggregated replicas batch in flight with chunked prefill, disaggregated pools hand the KV cache over the fabric.", p.choice.model, p.choice.precision.id().to_uppercase(), p.choice.input_len, DEFAULTS.output_len) }</p>
            <div class="toolbar" role="group" aria-labelledby="plan-h">
                { number_field("plan-rate", "Requests/s ", f.rate, (1e-3, 1e6), "requests per second from 0.001 to 1000000", invalid("Requests/s"), set(|f, v| f.rate = v), refuse.clone()) }
                { number_field("plan-ttft", "TTFT ≤ ms ", f.ttft_ms, (1e-3, 1e9), "milliseconds from 0.001 to 1000000000", invalid("TTFT"), set(|f, v| f.ttft_ms = v), refuse.clone()) }
                { number_field("plan-tpot", "TPOT ≤ ms ", f.tpot_ms, (1e-3, 1e9), "milliseconds from 0.001 to 1000000000", invalid("TPOT"), set(|f, v| f.tpot_ms = v), refuse.clone()) }
                { choose("plan-percentile", "TTFT at ", &percentiles, f.percentile, { let form = form.clone(); Callback::from(move |v| form.set(PlanForm { percentile: v, ..*form })) }) }
                { choose("plan-mode", "Mode ", &modes, f.mode, { let form = form.clone(); Callback::from(move |v| form.set(PlanForm { mode: v, ..*form })) }) }
                { choose("plan-engine", "Engine ", &engines, f.engine, { let form = form.clone(); Callback::from(move |v| form.set(PlanForm { engine: v, ..*form })) }) }
                { number_field("plan-prefix", "Prefix-cache hit % ", f.prefix_cache_hit * 100.0, (0.0, 99.0), "a percentage from 0 to 99", invalid("Prefix"), set(|f, v| f.prefix_cache_hit = v / 100.0), refuse.clone()) }
                { number_field("plan-mtp", "MTP tokens/step ", f.mtp_acceptance, (1.0, 16.0), "tokens per decode step from 1 (off) to 16", invalid("MTP"), set(|f, v| f.mtp_acceptance = v), refuse) }
                if p.designs.is_empty() {
                    { run_button(("plan-run", "plan-status"), "Plan deployments", progress, &start) }
                }
            </div>
            if p.calibrated {
                <p class="muted small" data-testid="plan-calibrated">{ "The planner plans on the cluster as measured: every deployment's collectives are timed with the calibration (as fabricscope serve --search --calibration)." }</p>
            }
            if let Some(m) = &*refused {
                <p class="error" role="alert" id={INPUT_ERROR_ID} data-testid="plan-input-error">{ format!("{m} (the plan keeps the last valid value)") }</p>
            }
            if !p.designs.is_empty() {
                <ComparePlans designs={p.designs.clone()} choice={p.choice} form={f} dark={p.dark} compact={p.compact} />
            } else {
                if let Some(x) = &planned {
                    { answer(x, &svg, &p.choice, &p.on_use) }
                }
                <p class="hint" data-testid="plan-cli">{ "The same plan in the terminal: " }<code>{ cli_line(&p.cluster, &p.choice, &f) }</code></p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct DesignsProps {
    /// The link's own design (the controls' on compare.html): the clusters' GPUs bound the
    /// choices offered.
    pub cluster: Cluster,
    pub designs: Rc<Vec<PinnedDesign>>,
    pub dark: bool,
    pub compact: bool,
}

/// serving.html framed in compare.html: the model, precision and prompt of the question, the
/// planner's form, and the pinned designs planned side by side (compare.html draws the designs'
/// serving curves itself).
#[function_component(PlanDesigns)]
pub fn plan_designs(p: &DesignsProps) -> Html {
    let choice = use_state_eq(ServingChoice::default);
    let total = p.designs.iter().map(|d| d.cluster.total_gpus()).max().unwrap_or(1);
    html! {
        <section class="serving" data-testid="serving" aria-labelledby="plan-designs-top-h">
            <h3 id="plan-designs-top-h" class="visually-hidden">{ "Serving plans for the pinned designs" }</h3>
            <div class="toolbar" role="group" aria-label="Served model">
                { for [Field::Model, Field::Precision, Field::Input].into_iter().map(|f| field_select(f, true, &choice, total, None)) }
            </div>
            <PlanSection cluster={p.cluster.clone()} designs={p.designs.clone()} choice={*choice} dark={p.dark} compact={p.compact} />
        </section>
    }
}
