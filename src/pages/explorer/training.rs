//! Panel 4: the training step. The chosen layout's stacked step time beside the search's top
//! layouts, an MFU heatmap over TP x PP, and memory per GPU against HBM. Computed by the
//! training model after the inputs settle (see `crate::widgets::training`).

use crate::widgets::state::Action;
use crate::widgets::training::{custom_id, custom_parts, dp_value, framework_ids, framework_of, interleave_choices, layout_detail, micro_batch_values, recompute_choices, workload, Progress, CUSTOM, CUSTOM_DEFAULT, CUSTOM_FIELDS, ZERO_STAGES};
use crate::widgets::controls::{select, Opt, SelectAttrs};
use crate::widgets::{ChartSvg, Same, Trained};
use fabricscope_charts::training::{seconds_label, training_chart};
use fabricscope_charts::Theme;
use fabricscope_model::training::assumptions::assumptions;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::training::{Constraints, Recompute, PRESETS};
use fabricscope_model::{ModelError, TrainingChoice};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(PartialEq, Clone)]
pub struct Props {
    /// The job and what the user pinned, as chosen.
    pub choice: TrainingChoice,
    /// The pins as the search uses them (sizes brought down to valid ones).
    pub fixed: Constraints,
    /// GPUs of the cluster shown.
    pub total: u32,
    pub training: Trained,
    /// A newer result is being computed.
    pub searching: bool,
    /// How far that search has come (layouts tried and in all; 0 of 0 before it starts).
    pub progress: Option<Progress>,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
    /// The panel's element (App observes whether it is on screen) and that observation.
    pub node: NodeRef,
    pub in_view: bool,
    /// On a cluster as measured: what its numbers rest on ("Calibrated from 3 logs: ...").
    pub calibrated: Option<String>,
}

/// "searching: 41% of 1676 layouts" while the search runs in slices.
fn searching_text(p: Option<Progress>) -> String {
    match p {
        Some(Progress { rules: true, .. }) => "answering the rules of thumb…".to_string(),
        Some(Progress { done, total, .. }) if total > 0 => format!("searching: {}% of {total} layouts", 100 * done / total),
        _ => "searching…".to_string(),
    }
}

/// "12.3 M"-style count.
fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 { (1e9, " G") } else if v >= 1e6 { (1e6, " M") } else if v >= 1e3 { (1e3, " k") } else { (1.0, "") };
    format!("{:.1}{u}", v / d)
}

/// One number of the panel: label, value (with its test id and exact value), the line below.
fn stat(label: &'static str, id: Option<(&'static str, f64)>, value: String, sub: String) -> Html {
    let (testid, exact) = id.map_or((None, None), |(t, v)| (Some(t), Some(v.to_string())));
    html! {
        <div class="stat">
            <span class="stat-label">{ label }</span>
            <span class="stat-value" data-testid={testid} data-value={exact}>{ value }</span>
            <span class="stat-sub" title={sub.clone()}>{ sub }</span>
        </div>
    }
}

/// The panel below its toolbar (numbers, sentence, three charts): redrawn whole when a search
/// result arrives.
fn body(t: Option<&Result<TrainingView, ModelError>>, dark: bool, compact: bool) -> Html {
    let inner = match t {
        None => html! { <p class="muted">{ "Searching layouts…" }</p> },
        Some(Err(e)) => html! { <p class="error" role="alert">{ format!("{}: {}", e.field, e.message) }</p> },
        Some(Ok(v)) => match v.chosen.as_ref() {
            None if v.fixed.micro_batch.is_some() || v.fixed.recompute.is_some() || v.fixed.zero.is_some() => html! {
                <p class="warning">{ "No layout of this job fits with the pinned micro-batch, recompute or ZeRO stage: set one of them to auto." }</p>
            },
            None => html! {
                <p class="warning" data-testid="training-note">{ v.note.as_deref().unwrap_or("No layout of this job fits on this cluster.").to_string() }</p>
            },
            Some(c) => {
                let charts = draw(v, dark, compact).map(|(steps, heat, memory)| html! { <>
                    <h4 class="sub">{ "Step time: your layout (▶) and the search's best" }</h4>
                    <div class="chart-svg" data-testid="step-chart"><ChartSvg svg={steps} /></div>
                    <div class="twin">
                        <div><h4 class="sub">{ "MFU of the best layout for each TP × PP" }</h4><div class="chart-svg" data-testid="heatmap"><ChartSvg svg={heat} /></div></div>
                        <div><h4 class="sub">{ "Memory per GPU against HBM (GiB)" }</h4><div class="chart-svg" data-testid="memory"><ChartSvg svg={memory} /></div></div>
                    </div>
                </> });
                html! { <>
                    <div class="stats mini" data-testid="training-numbers">
                        { stat("Step time", Some(("step-time", c.step_time_s)), seconds_label(c.step_time_s), layout_detail(c)) }
                        { stat("MFU", Some(("mfu", c.mfu)), format!("{:.1}%", c.mfu * 100.0), format!("{:.0} of {:.0} TFLOP/s per GPU", c.model_tflops_per_gpu, c.peak_tflops.0)) }
                        { stat("Tokens per second", None, si(c.tokens_per_s), format!("{} micro-batch{} of {}", c.micro_batches, if c.micro_batches == 1 { "" } else { "es" }, c.mapping.micro_batch)) }
                        { stat("Memory per GPU", None, format!("{:.1} GiB", c.memory_gib_per_gpu), (if c.fits { "fits in HBM" } else { "does not fit in HBM" }).to_string()) }
                    </div>
                    <p class="muted small" data-testid="training-band">{ format!("Step time {}, MFU {}%: {}.", super::key_numbers::step_range_words(c), super::key_numbers::range_words(c.mfu_interval(), 100.0), super::key_numbers::INTERVAL_MEANING) }
                        if let Some(old) = c.oldest_release_step_s {
                            <span data-testid="release-span">{ format!(" The release is left open, so the range reaches NeMo 25.04, whose MoE layers ran without CUDA graphs ({} a step here); pick one under Training software.", seconds_label(old)) }</span>
                        }
                    </p>
                    if let Some(g) = &v.goodput {
                        <p class="small" data-testid="goodput" data-value={g.ettr.to_string()}>{ format!("Under failures the job {}.", g.sentence()) }</p>
                    }
                    <p class="bottleneck" data-testid="bottleneck">{ &c.bottleneck }</p>
                    if let Some(note) = &v.note {
                        <p class="training-note" data-testid="training-note">{ note }</p>
                    }
                    { charts }
                </> }
            }
        },
    };
    html! { <div class="training-body">{ inner }</div> }
}

fn draw(t: &TrainingView, dark: bool, compact: bool) -> Option<(AttrValue, AttrValue, AttrValue)> {
    let theme = Theme::for_dark(dark);
    let chart = |id| training_chart(id, t, &theme, 0, compact).map(|c| AttrValue::from(c.0));
    Some((chart("step")?, chart("mfu")?, chart("memory")?))
}

type Key = (Option<Same<Result<TrainingView, ModelError>>>, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, Html)>> = const { std::cell::RefCell::new(None) };
}

impl crate::widgets::Panel for Props {
    /// Drawn again when the props change; the body below the toolbar is cached on the
    /// search's answer (see `crate::widgets::cached`).
    fn view(&self) -> Html {
        training_panel(self)
    }
}

fn training_panel(props: &Props) -> Html {
    // Off screen, the re-evaluations of the last search's layouts while a slider is dragged
    // are not drawn (input-to-paint budget); a search's own answer always is, and the panel
    // catches up as it scrolls into view.
    let carried = props.training.as_deref().is_some_and(|t| t.as_ref().is_ok_and(|v| v.carried));
    let drawn = DRAWN.with(|c| {
        if carried && !props.in_view {
            if let Some((_, drawn)) = &*c.borrow() {
                return drawn.clone();
            }
        }
        crate::widgets::cached(c, (props.training.clone(), props.dark, props.compact), |(t, dark, compact)| {
            body(t.as_deref(), *dark, *compact)
        })
    });
    let c = &props.choice;
    let cb = &props.on_action;
    let custom = custom_parts(&c.workload);
    let mut workloads: Vec<Opt> = PRESETS
        .iter()
        .map(|(id, about)| Opt { title: (!about.is_empty()).then_some(*about), ..Opt::new(*id, *id, *id == c.workload) })
        .collect();
    workloads.push(Opt::new(CUSTOM, "custom sizes…", custom.is_some()));
    let on_workload = {
        let cb = cb.clone();
        Callback::from(move |v: String| {
            cb.emit(Action::Workload(if v == CUSTOM { custom_id(&CUSTOM_DEFAULT.map(|x| x.to_string())) } else { v }));
        })
    };
    // The custom sizes apply on commit (Enter, or leaving a box: change), like the cluster's
    // number boxes, so a half-typed size never reaches the search. The boxes are plain markup
    // that is rewritten only when a committed size changes: the sliced search re-renders the
    // panel every few milliseconds and must not reset what is being typed.
    let custom_inputs = custom.as_ref().map(|parts| {
        // Keyed by the committed size and given only a default value: a re-render never
        // touches what is being typed, and a new committed size makes a fresh box.
        let inputs: Html = CUSTOM_FIELDS
            .iter()
            .enumerate()
            .map(|(i, (field, label))| {
                let id = format!("custom-{field}");
                html! {
                    <label key={format!("{field}={}", parts[i])} class="inline" for={id.clone()}>{ *label }
                        <input {id} data-i={i.to_string()} class="small-num" type="text" inputmode="numeric" ~defaultValue={parts[i].clone()} />
                    </label>
                }
            })
            .collect();
        let commit = {
            let cb = cb.clone();
            let parts = parts.clone();
            Callback::from(move |el: HtmlInputElement| {
                let Some(i) = el.get_attribute("data-i").and_then(|v| v.parse::<usize>().ok()).filter(|i| *i < parts.len()) else { return };
                if el.value() == parts[i] {
                    return;
                }
                let mut p = parts.clone();
                p[i] = el.value();
                cb.emit(Action::Workload(custom_id(&p)));
            })
        };
        let onchange = commit.reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>());
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                commit.emit(e.target_unchecked_into::<HtmlInputElement>());
            }
        });
        (inputs, onchange, onkeydown)
    });
    // Micro-batch sizes that divide each replica's share of the batch (DP known only when
    // TP, PP and CP are pinned); a pinned size stays listed even where it no longer divides.
    let f = &props.fixed;
    let job = workload(&c.workload);
    let dp = match (f.tp, f.pp, f.cp, &job) {
        (Some(tp), Some(pp), Some(cp), Ok(w)) => dp_value(props.total, w, tp, pp, cp),
        _ => None,
    };
    let view = props.training.as_deref().and_then(|t| t.as_ref().ok());
    let chosen = view.and_then(|v| v.chosen.as_ref());
    // Virtual stages the model allows for the current PP (the pinned one, else the chosen
    // layout's) under the chosen framework; a pinned value stays listed.
    let fw = framework_of(c).unwrap_or_default();
    let pp_now = f.pp.or(chosen.map(|r| r.mapping.pp)).unwrap_or(1);
    let mut vs = job.as_ref().map(|w| interleave_choices(w, pp_now, &fw)).unwrap_or_else(|_| vec![1]);
    if let Some(v) = c.interleave.filter(|v| !vs.contains(v)) {
        vs.push(v);
    }
    let auto_v = match (c.interleave, chosen) {
        (None, Some(r)) => format!("auto ({})", r.mapping.interleave),
        _ => "auto".to_string(),
    };
    let vp_opts = std::iter::once(Opt::new("auto", auto_v, c.interleave.is_none()))
        .chain(vs.into_iter().map(|v| Opt::new(v.to_string(), v.to_string(), c.interleave == Some(v))))
        .collect();
    let fw_opts = framework_ids().into_iter().map(|id| Opt::new(id, id, id == c.framework)).collect();
    let mut mbs = job.map(|w| micro_batch_values(&w, dp)).unwrap_or_default();
    if c.micro_batch > 0 && !mbs.contains(&c.micro_batch) {
        mbs.push(c.micro_batch);
    }
    let auto = |on: bool| Opt::new("auto", "auto", on);
    let mb_opts = std::iter::once(auto(c.micro_batch == 0))
        .chain(mbs.into_iter().map(|m| Opt::new(m.to_string(), m.to_string(), m == c.micro_batch)))
        .collect();
    let rc_opts = std::iter::once(auto(c.recompute.is_none()))
        .chain(recompute_choices().into_iter().map(|(r, text)| Opt::new(r.id(), text, c.recompute == Some(r))))
        .collect();
    let zero_text = ["0", "1 (optimizer)", "2 (+ gradients)", "3 (FSDP)"];
    let zero_opts = std::iter::once(auto(c.zero.is_none()))
        .chain(ZERO_STAGES.iter().map(|&z| Opt::new(z.to_string(), zero_text[z as usize], c.zero == Some(z))))
        .collect();
    let labelled = |label: &'static str| SelectAttrs { aria_label: Some(label), ..SelectAttrs::default() };
    html! {
        <section ref={props.node.clone()} class={classes!("panel", "chart", "wide", props.searching.then_some("busy"))} data-testid="training" aria-labelledby="training-h" aria-busy={props.searching.to_string()}>
            <div class="figcaption">
                <h3 id="training-h" class="chart-title">{ "4 · Training step" }</h3>
                <span class="chart-sub">{ "Megatron-style job · step time of the slowest pipeline stage · search over TP, PP, DP, CP, EP, micro-batch, recompute and ZeRO; pin any of them" }</span>
            </div>
            <div class="toolbar">
                <label class="inline">{ "Workload " }
                    { select("workload-select", workloads, SelectAttrs::default(), on_workload) }
                </label>
                <label class="inline">{ "Micro-batch " }
                    { select("mb-select", mb_opts, labelled("Micro-batch size in sequences, or auto"),
                        cb.reform(|v: String| Action::MicroBatch(v.parse().unwrap_or(0)))) }
                </label>
                <label class="inline">{ "Recompute " }
                    { select("recompute-select", rc_opts, labelled("Activation recomputation, or auto"),
                        cb.reform(|v: String| Action::Recompute(Recompute::from_id(&v)))) }
                </label>
                <label class="inline">{ "ZeRO " }
                    { select("zero-select", zero_opts, labelled("ZeRO stage over the data-parallel group, or auto"),
                        cb.reform(|v: String| Action::Zero(v.parse().ok()))) }
                </label>
                <label class="inline">{ "Framework " }
                    { select("framework-select", fw_opts, labelled("Training software: its overlaps and pipeline schedules"),
                        cb.reform(Action::Framework)) }
                </label>
                <label class="inline">{ "Virtual pipeline stages " }
                    { select("interleave-select", vp_opts, labelled("Virtual pipeline stages per GPU (interleaved 1F1B), or auto"),
                        cb.reform(|v: String| Action::Interleave(v.parse().ok()))) }
                </label>
                <span class="status" role="status" data-testid="training-status">
                    { match view {
                        Some(v) if v.carried => format!("last search's layouts on this cluster · {}", searching_text(props.progress)),
                        _ if props.searching => searching_text(props.progress),
                        Some(v) => format!("{} candidates in {} layouts searched", si(v.candidates as f64), v.layouts),
                        None => String::new(),
                    } }
                </span>
            </div>
            if let Some((inputs, onchange, onkeydown)) = custom_inputs {
                <div class="toolbar custom-sizes" role="group" aria-label="Custom GPT-style model: ffn 4h; experts 0 for a dense model; each size applies on Enter or when you leave its box" {onchange} {onkeydown}>{ inputs }</div>
            }
            if let Some(c) = view.and_then(|v| v.chosen.as_ref()) {
                <h4 class="sub" id="training-assumptions-h">{ "Assumptions behind this layout" }</h4>
                <dl class="assumptions" data-testid="training-assumptions" aria-labelledby="training-assumptions-h">
                    { for assumptions(c).into_iter().map(|(label, text)| html! {
                        <><dt>{ label }</dt><dd>{ text }</dd></>
                    }) }
                </dl>
            }
            if let (true, Some(words)) = (cfg!(feature = "calibrate"), &props.calibrated) {
                <p class="muted small" data-testid="training-calibrated">{ format!("{words}: every collective of the step is timed as the logs measured, and its interval adds the fit's uncertainty.") }</p>
            }
            { drawn }
            if let Some(m) = view.and_then(|v| v.moe.as_ref()) {
                { super::moe::moe_section(m) }
            }
        </section>
    }
}
