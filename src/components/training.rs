//! Panel 4: the training step. The chosen layout's stacked step time beside the search's top
//! layouts, an MFU heatmap over TP x PP, and memory per GPU against HBM. Computed by the
//! training model after the inputs settle (see `crate::training`).

use crate::app::Action;
use crate::training::{custom_id, custom_parts, layout_detail, layout_label, memory_parts, step_parts, Choice, TrainingView, CUSTOM, CUSTOM_DEFAULT, CUSTOM_FIELDS};
use web_sys::HtmlInputElement;
use fabricscope_charts::training::{memory_chart, mfu_heatmap, seconds_label, step_chart, Size, StepRow};
use fabricscope_charts::Theme;
use fabricscope_model::training::PRESETS;
use fabricscope_model::ModelError;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub workload: String,
    pub choice: Choice,
    pub training: Option<Rc<Result<TrainingView, ModelError>>>,
    /// A newer result is being computed.
    pub searching: bool,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
}

/// "12.3 M"-style count.
fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 { (1e9, " G") } else if v >= 1e6 { (1e6, " M") } else if v >= 1e3 { (1e3, " k") } else { (1.0, "") };
    format!("{:.1}{u}", v / d)
}

struct Svgs {
    steps: AttrValue,
    heat: AttrValue,
    memory: AttrValue,
}

fn draw(t: &TrainingView, dark: bool, compact: bool) -> Option<Svgs> {
    let theme = Theme::for_dark(dark);
    let chosen = t.chosen.as_ref()?;
    let mut rows = vec![StepRow {
        label: format!("▶ {}", layout_label(chosen)),
        parts: step_parts(chosen),
        note: if compact { format!("MFU {:.0}%", chosen.mfu * 100.0) } else { format!("MFU {:.0}% · mb{} z{}{}", chosen.mfu * 100.0, chosen.mapping.micro_batch, chosen.mapping.zero, if chosen.fits { "" } else { " · no fit" }) },
        highlight: true,
    }];
    for (i, r) in t.top.iter().enumerate() {
        if r == chosen {
            continue;
        }
        rows.push(StepRow {
            label: if compact { layout_label(r) } else { format!("#{} {}", i + 1, layout_label(r)) },
            parts: step_parts(r),
            note: if compact { format!("MFU {:.0}%", r.mfu * 100.0) } else { format!("MFU {:.0}% · mb{} z{}", r.mfu * 100.0, r.mapping.micro_batch, r.mapping.zero) },
            highlight: false,
        });
    }
    let w = if compact { 420 } else { 920 };
    let steps = step_chart(&rows, Size { width: w, height: 34 + 34 * rows.len() as u32 + 8 }, &theme);
    let best = t.top.first().map(|b| (b.mapping.tp, b.mapping.pp));
    let chosen_cell = Some((chosen.mapping.tp, chosen.mapping.pp));
    let heat = mfu_heatmap(&t.tps, &t.pps, &t.mfu, chosen_cell, best, Size { width: if compact { 420 } else { 440 }, height: 60 + 34 * t.pps.len() as u32 }, &theme);
    let (parts, cap) = memory_parts(chosen);
    let memory = memory_chart(&parts, cap, Size { width: if compact { 420 } else { 460 }, height: 110 }, &theme);
    Some(Svgs { steps: steps.into(), heat: heat.into(), memory: memory.into() })
}

#[component]
pub fn TrainingPanel(props: &Props) -> Html {
    let svgs = use_memo((props.training.clone(), props.dark, props.compact), |(t, dark, compact)| {
        t.as_deref().and_then(|t| t.as_ref().ok()).and_then(|t| draw(t, *dark, *compact))
    });
    let on_workload = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            let v = s.value();
            cb.emit(Action::Workload(if v == CUSTOM { custom_id(&CUSTOM_DEFAULT.map(|x| x.to_string())) } else { v }));
        })
    };
    let custom = custom_parts(&props.workload);
    let custom_inputs = custom.as_ref().map(|parts| {
        CUSTOM_FIELDS.iter().enumerate().map(|(i, (field, label))| {
            let cb = props.on_action.clone();
            let value = parts[i].clone();
            let parts = parts.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let el: HtmlInputElement = e.target_unchecked_into();
                let mut p = parts.clone();
                p[i] = el.value();
                cb.emit(Action::Workload(custom_id(&p)));
            });
            let id = format!("custom-{field}");
            html! {
                <label class="inline" for={id.clone()}>{ *label }
                    <input id={id} class="small-num" type="text" inputmode="numeric" {value} {oninput} />
                </label>
            }
        }).collect::<Html>()
    });
    let t = props.training.as_deref();
    let view = t.and_then(|t| t.as_ref().ok());
    let error = t.and_then(|t| t.as_ref().err());
    let chosen = view.and_then(|v| v.chosen.as_ref());
    html! {
        <section class={classes!("panel", "chart", "wide", props.searching.then_some("busy"))} data-testid="training" aria-labelledby="training-h" aria-busy={props.searching.to_string()}>
            <div class="figcaption">
                <h3 id="training-h" class="chart-title">{ "4 · Training step" }</h3>
                <span class="chart-sub">{ "Megatron-style job · step time of the slowest pipeline stage · search over TP, PP, DP, CP, EP, micro-batch, recompute and ZeRO" }</span>
            </div>
            <div class="toolbar">
                <label class="inline">{ "Workload " }
                    <select id="workload-select" onchange={on_workload}>
                        { for PRESETS.iter().map(|(id, about)| html! {
                            <option value={*id} selected={*id == props.workload} title={*about}>{ *id }</option>
                        }) }
                        <option value={CUSTOM} selected={custom.is_some()}>{ "custom GPT (sizes below)" }</option>
                    </select>
                </label>
                if let Some(inputs) = custom_inputs {
                    <span class="custom-sizes" role="group" aria-label="Custom GPT-style model (ffn 4h, sequence 2048)">{ inputs }</span>
                }
                <span class="status" role="status" data-testid="training-status">
                    { if props.searching { "searching…".to_string() } else if let Some(v) = view { format!("{} layouts searched", v.candidates) } else { String::new() } }
                </span>
            </div>
            if let Some(e) = error {
                <p class="error" role="alert">{ format!("{}: {}", e.field, e.message) }</p>
            }
            if let Some(c) = chosen {
                <div class="stats mini" data-testid="training-numbers">
                    <div class="stat"><span class="stat-label">{ "Step time" }</span><span class="stat-value" data-testid="step-time" data-value={c.step_time_s.to_string()}>{ seconds_label(c.step_time_s) }</span><span class="stat-sub" title={layout_detail(c)}>{ layout_detail(c) }</span></div>
                    <div class="stat"><span class="stat-label">{ "MFU" }</span><span class="stat-value" data-testid="mfu" data-value={c.mfu.to_string()}>{ format!("{:.1}%", c.mfu * 100.0) }</span><span class="stat-sub">{ format!("{:.0} of {:.0} TFLOP/s per GPU", c.model_tflops_per_gpu, c.peak_tflops.0) }</span></div>
                    <div class="stat"><span class="stat-label">{ "Tokens per second" }</span><span class="stat-value">{ si(c.tokens_per_s) }</span><span class="stat-sub">{ format!("{} micro-batches of {}", c.micro_batches, c.mapping.micro_batch) }</span></div>
                    <div class="stat"><span class="stat-label">{ "Memory per GPU" }</span><span class="stat-value">{ format!("{:.1} GiB", c.memory_gib_per_gpu) }</span><span class="stat-sub">{ if c.fits { "fits in HBM" } else { "does not fit in HBM" } }</span></div>
                </div>
                <p class="bottleneck" data-testid="bottleneck">{ &c.bottleneck }</p>
            } else if view.is_some() {
                <p class="warning">{ "No layout of this job fits on this cluster." }</p>
            }
            if let Some(s) = &*svgs {
                <h4 class="sub">{ "Step time: your layout (▶) and the search's best" }</h4>
                <div class="chart-svg" data-testid="step-chart">{ Html::from_html_unchecked(s.steps.clone()) }</div>
                <div class="twin">
                    <div>
                        <h4 class="sub">{ "MFU of the best layout for each TP × PP" }</h4>
                        <div class="chart-svg" data-testid="heatmap">{ Html::from_html_unchecked(s.heat.clone()) }</div>
                    </div>
                    <div>
                        <h4 class="sub">{ "Memory per GPU against HBM (GiB)" }</h4>
                        <div class="chart-svg" data-testid="memory">{ Html::from_html_unchecked(s.memory.clone()) }</div>
                    </div>
                </div>
            } else if view.is_none() && error.is_none() {
                <p class="muted">{ "Searching layouts…" }</p>
            }
        </section>
    }
}
