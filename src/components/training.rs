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
use super::esc;
use std::fmt::Write;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

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

/// The panel below its toolbar, as one HTML string (numbers, sentence, three charts): redrawn
/// whole when a search result arrives, and far less code than building it node by node.
fn body_html(t: Option<&Result<TrainingView, ModelError>>, dark: bool, compact: bool) -> String {
    let mut o = String::with_capacity(32 * 1024);
    o.push_str("<div class=\"training-body\">");
    match t {
        None => o.push_str("<p class=\"muted\">Searching layouts…</p>"),
        Some(Err(e)) => {
            let _ = write!(o, "<p class=\"error\" role=\"alert\">{}: {}</p>", esc(e.field), esc(&e.message));
        }
        Some(Ok(v)) => match v.chosen.as_ref() {
            None => o.push_str("<p class=\"warning\">No layout of this job fits on this cluster.</p>"),
            Some(c) => {
                let stat = |o: &mut String, label: &str, attrs: &str, value: &str, sub: &str| {
                    let _ = write!(
                        o,
                        "<div class=\"stat\"><span class=\"stat-label\">{label}</span><span class=\"stat-value\"{attrs}>{}</span><span class=\"stat-sub\" title=\"{sub}\">{sub}</span></div>",
                        esc(value)
                    );
                };
                o.push_str("<div class=\"stats mini\" data-testid=\"training-numbers\">");
                let detail = esc(&layout_detail(c));
                stat(&mut o, "Step time", &format!(" data-testid=\"step-time\" data-value=\"{}\"", c.step_time_s), &seconds_label(c.step_time_s), &detail);
                stat(&mut o, "MFU", &format!(" data-testid=\"mfu\" data-value=\"{}\"", c.mfu), &format!("{:.1}%", c.mfu * 100.0), &format!("{:.0} of {:.0} TFLOP/s per GPU", c.model_tflops_per_gpu, c.peak_tflops.0));
                stat(&mut o, "Tokens per second", "", &si(c.tokens_per_s), &format!("{} micro-batch{} of {}", c.micro_batches, if c.micro_batches == 1 { "" } else { "es" }, c.mapping.micro_batch));
                stat(&mut o, "Memory per GPU", "", &format!("{:.1} GiB", c.memory_gib_per_gpu), if c.fits { "fits in HBM" } else { "does not fit in HBM" });
                let _ = write!(o, "</div><p class=\"bottleneck\" data-testid=\"bottleneck\">{}</p>", esc(&c.bottleneck));
                if let Some((steps, heat, memory)) = draw(v, dark, compact) {
                    let _ = write!(
                        o,
                        "<h4 class=\"sub\">Step time: your layout (▶) and the search's best</h4><div class=\"chart-svg\" data-testid=\"step-chart\">{steps}</div><div class=\"twin\"><div><h4 class=\"sub\">MFU of the best layout for each TP × PP</h4><div class=\"chart-svg\" data-testid=\"heatmap\">{heat}</div></div><div><h4 class=\"sub\">Memory per GPU against HBM (GiB)</h4><div class=\"chart-svg\" data-testid=\"memory\">{memory}</div></div></div>"
                    );
                }
            }
        },
    }
    o.push_str("</div>");
    o
}

fn draw(t: &TrainingView, dark: bool, compact: bool) -> Option<(String, String, String)> {
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
    // Fixed sizes (the chosen layout plus the top 5; 6 PP rows), so nothing moves when a new
    // search result arrives.
    let steps = step_chart(&rows, Size { width: w, height: 34 + 34 * 6 + 8 }, &theme);
    let best = t.top.first().map(|b| (b.mapping.tp, b.mapping.pp));
    let chosen_cell = Some((chosen.mapping.tp, chosen.mapping.pp));
    let heat = mfu_heatmap(&t.tps, &t.pps, &t.mfu, chosen_cell, best, Size { width: if compact { 420 } else { 440 }, height: 60 + 34 * 6 }, &theme);
    let (parts, cap) = memory_parts(chosen);
    let memory = memory_chart(&parts, cap, Size { width: if compact { 420 } else { 460 }, height: 110 }, &theme);
    Some((steps, heat, memory))
}

type Key = (Option<Rc<Result<TrainingView, ModelError>>>, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

/// Drawn as a plain function with a one-entry cache (see `super::cached`).
pub fn training_panel(props: &Props) -> Html {
    let body = DRAWN.with(|c| {
        super::cached(c, (props.training.clone(), props.dark, props.compact), |(t, dark, compact)| {
            AttrValue::from(body_html(t.as_deref(), *dark, *compact))
        })
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
    let view = props.training.as_deref().and_then(|t| t.as_ref().ok());
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
            { Html::from_html_unchecked(body) }
        </section>
    }
}
