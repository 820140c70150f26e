//! Panel 8: comparing designs. Pin the page's design (up to four, A-D), name them, load one
//! back into the controls; one chart at a time of `fabricscope_charts::compare` (every design
//! in its colour, the page's own design too while it differs from the pinned ones), a cursor
//! reading exact values, and the delta table marking the better design per row.

use super::collective::cursor_handlers;
use super::esc;
use crate::compare_work::{use_compare_work, Key, Outcome};
use crate::designs::{DesignAction, Designs};
use crate::eval::{evaluate_at, size_words, Evaluation};
use fabricscope_charts::compare::{compare_chart, design_label, DesignData, COMPARE_CHART_IDS};
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_charts::Theme;
use fabricscope_model::bom::{scenario_bom, Bom};
use fabricscope_model::compare::{default_name, delta_rows, Better, KeyNumbers, MAX_DESIGNS, SCALE_NODES};
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::{ModelError, Scenario};
use std::fmt::Write;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub designs: UseReducerHandle<Designs>,
    /// The page's design as of the link (settled 300 ms after the last input): it joins the
    /// comparison once a drag stops, so a drag costs the panel nothing.
    pub scenario: Scenario,
    /// The page's design as it is now: what "Pin" pins.
    pub current: Scenario,
    /// The page's evaluation and training view (live; used once they are of `scenario`).
    pub eval: Rc<Evaluation>,
    pub training: Option<Rc<Result<TrainingView, ModelError>>>,
    pub dark: bool,
    pub compact: bool,
    /// Loads a pinned design into the controls.
    pub on_load: Callback<Scenario>,
}

/// Tab labels of [`COMPARE_CHART_IDS`].
const TABS: [&str; 6] = ["busbw", "hierarchy", "step time", "memory", "busbw vs nodes", "step vs nodes"];

/// A pinned design evaluated once (its charts, bill of materials).
type Pinned = Vec<(Option<Rc<Evaluation>>, Option<Rc<Bom>>)>;

fn number(label: &str, v: f64) -> String {
    match label {
        "Step time" => seconds_label(v),
        "MFU" => format!("{v:.1}%"),
        "Cost" => format!("${v:.0}"),
        // Millions of tokens read better as "8.78 M" than as eight digits.
        _ if v >= 1e5 => format!("{} M", gbps_label(v / 1e6)),
        _ => gbps_label(v),
    }
}

/// The delta table: a column per design, the best of each row marked, best ÷ worst.
fn table(names: &[String], keys: &[KeyNumbers]) -> String {
    let mut o = String::from("<div class=\"table-scroll\"><table class=\"delta\" data-testid=\"delta\"><thead><tr><th scope=\"col\">Key number</th>");
    for (i, n) in names.iter().enumerate() {
        let _ = write!(o, "<th scope=\"col\" class=\"num d{i}\">{}</th>", esc(n));
    }
    o.push_str("<th scope=\"col\" class=\"num\">best ÷ worst</th></tr></thead><tbody>");
    for r in delta_rows(keys) {
        let _ = write!(o, "<tr><th scope=\"row\">{} <span class=\"muted\">{}{}</span></th>", r.label, r.unit, if r.better == Better::Lower { ", lower is better" } else { "" });
        for (i, v) in r.values.iter().enumerate() {
            let best = r.best == Some(i);
            let _ = write!(o, "<td class=\"num{}\">{}{}</td>", if best { " best" } else { "" }, v.map_or("–".into(), |v| number(r.label, v)), if best { " ★" } else { "" });
        }
        let _ = write!(o, "<td class=\"num\">{}</td></tr>", r.ratio.map_or("–".into(), |x| format!("{x:.2}×")));
    }
    o.push_str("</tbody></table></div>");
    o
}

/// What the cursor reads on the busbw or scaling chart at x = 2^exp.
fn readout(tab: usize, names: &[String], evals: &[Rc<Evaluation>], outs: &[Outcome], op: fabricscope_model::Collective, exp: u32) -> String {
    let x = 1u64 << exp.min(63);
    let parts: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let v = match tab {
                0 => evals[i].report.curves.iter().filter(|c| c.op == op).last().and_then(|c| c.points.iter().find(|p| p.bytes.0 == x)).map(|p| format!("{} GB/s", gbps_label(p.busbw.0))),
                4 => outs[i].scaling.iter().find(|p| p.nodes as u64 == x).and_then(|p| p.busbw_gbps).map(|b| format!("{} GB/s", gbps_label(b))),
                _ => outs[i].scaling.iter().find(|p| p.nodes as u64 == x).and_then(|p| p.step_s).map(seconds_label),
            };
            format!("{n}: {}", v.unwrap_or_else(|| "–".into()))
        })
        .collect();
    let at = if tab == 0 { size_words(x) } else { format!("{x} nodes") };
    format!("{at} — {}", parts.join("; "))
}

/// The page's design as last settled, numbered so drawings can key on it.
#[derive(Clone)]
struct Now {
    version: u32,
    scenario: Scenario,
    eval: Rc<Evaluation>,
    training: Option<Rc<Result<TrainingView, ModelError>>>,
}

#[component]
pub fn ComparePanel(p: &Props) -> Html {
    let tab = use_state(|| 0usize);
    let now_cell = use_mut_ref(|| None::<Now>);
    // The live evaluation is taken once it is of the settled scenario (and again whenever its
    // training view answers); until then the last one stands.
    if p.eval.cluster == p.scenario.cluster && p.eval.key_bytes == p.scenario.view.headline_bytes().0 {
        let mut cell = now_cell.borrow_mut();
        let same = cell.as_ref().is_some_and(|n| {
            Rc::ptr_eq(&n.eval, &p.eval) && n.scenario == p.scenario && n.training.as_ref().map(Rc::as_ptr) == p.training.as_ref().map(Rc::as_ptr)
        });
        if !same {
            let version = cell.as_ref().map_or(0, |n| n.version + 1);
            *cell = Some(Now { version, scenario: p.scenario.clone(), eval: p.eval.clone(), training: p.training.clone() });
        }
    }
    let Some(now) = now_cell.borrow().clone() else {
        return html! {};
    };
    let list = &p.designs.list;
    // Pinned designs run the model once each (not on a rename, not on the page's inputs).
    let scenarios: Vec<Scenario> = list.iter().map(|d| d.scenario.clone()).collect();
    let key_bytes = now.eval.key_bytes;
    let pinned: Rc<Pinned> = use_memo((scenarios, key_bytes), |(ss, kb)| {
        ss.iter().map(|s| (evaluate_at(&s.cluster, *kb).ok().map(Rc::new), scenario_bom(s).ok().map(Rc::new))).collect()
    });
    // The page's own design joins while it differs from every pinned one.
    let mine = !list.iter().any(|d| d.scenario.cluster == now.eval.cluster);
    let my_bom = use_memo((now.scenario.cluster.clone(), mine), |(c, mine)| mine.then(|| scenario_bom(&Scenario::new(c.clone())).ok().map(Rc::new)).flatten());
    let view = now.scenario.view.clone();
    let (op, bytes) = (view.selected_op, view.headline_bytes());
    let job = now.scenario.training.workload.clone();
    let mut names: Vec<String> = Vec::new();
    let mut evals: Vec<Rc<Evaluation>> = Vec::new();
    let mut boms: Vec<Option<Rc<Bom>>> = Vec::new();
    for (i, (d, (e, b))) in list.iter().zip(pinned.iter()).enumerate() {
        if let Some(e) = e {
            names.push(design_label(i, &d.name));
            evals.push(e.clone());
            boms.push(b.clone());
        }
    }
    if mine && !list.is_empty() {
        let others: Vec<&Scenario> = list.iter().map(|d| &d.scenario).collect();
        names.push(format!("now · {}", default_name(&now.scenario, &others)));
        evals.push(now.eval.clone());
        boms.push((*my_bom).clone());
    }
    let keys: Vec<Key> = if list.is_empty() {
        Vec::new()
    } else {
        evals.iter().map(|e| Key { cluster: e.cluster.clone(), workload: job.clone(), op, bytes }).collect()
    };
    let (outs, busy, work_version) = use_compare_work(keys);
    let t = *tab;
    // The chart and the table, drawn again only when something they show has changed.
    let drawn = use_memo((t, p.dark, p.compact, now.version, list.clone(), work_version), {
        let (names, evals, outs, now, job) = (names.clone(), evals.clone(), outs.clone(), now.clone(), job.clone());
        move |(t, dark, compact, ..)| {
            if evals.is_empty() {
                return (AttrValue::default(), AttrValue::default());
            }
            let page_view = now.training.as_ref().and_then(|t| t.as_ref().as_ref().ok());
            // The page's design shows the page's own training view.
            let views: Vec<Option<&TrainingView>> = outs
                .iter()
                .enumerate()
                .map(|(i, o)| if mine && i + 1 == outs.len() && page_view.is_some_and(|v| v.workload == job) { page_view } else { o.training.as_deref() })
                .collect();
            let data: Vec<DesignData> = (0..evals.len()).map(|i| DesignData { name: &names[i], report: &evals[i].report, training: views[i], scaling: &outs[i].scaling }).collect();
            let svg = compare_chart(COMPARE_CHART_IDS[*t], &data, &view, &Theme::for_dark(*dark), 0, *compact).unwrap_or_default();
            let keys: Vec<KeyNumbers> = (0..evals.len())
                .map(|i| KeyNumbers::of(&evals[i].report, op, bytes, views[i].and_then(|v| v.chosen.as_ref()), boms[i].as_deref()))
                .collect();
            (AttrValue::from(svg), AttrValue::from(table(&names, &keys)))
        }
    });

    let pin = {
        let (d, s) = (p.designs.clone(), p.current.clone());
        Callback::from(move |_: MouseEvent| d.dispatch(DesignAction::Pin(Box::new(s.clone()))))
    };
    let full = list.len() >= MAX_DESIGNS;
    // The chips are markup rewritten only when a name or the list changes, so a re-render
    // while a name is typed never resets the box; one listener each for changes and clicks.
    let chip_names: Vec<String> = list.iter().map(|d| d.name.clone()).collect();
    let chips = use_memo(chip_names, |names| {
        let mut o = String::new();
        for (i, n) in names.iter().enumerate() {
            let l = fabricscope_model::compare::letter(i);
            let _ = write!(
                o,
                "<li class=\"design d{i}\" data-testid=\"design\"><span class=\"swatch\"></span><label>{l}<input type=\"text\" value=\"{}\" maxlength=\"40\" data-i=\"{i}\" aria-label=\"Name of design {l}\" data-testid=\"design-name\"></label><button type=\"button\" data-i=\"{i}\" data-act=\"load\" data-testid=\"design-load\" title=\"Show this design in the controls\">Load</button><button type=\"button\" data-i=\"{i}\" data-act=\"remove\" data-testid=\"design-remove\" aria-label=\"Remove design {l}\">×</button></li>",
                esc(n)
            );
        }
        AttrValue::from(o)
    });
    let target = |e: &Event| -> Option<(usize, web_sys::Element)> {
        let el: web_sys::Element = e.target_dyn_into()?;
        Some((el.get_attribute("data-i")?.parse().ok()?, el))
    };
    let on_rename = {
        let d = p.designs.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = target(&e).and_then(|(i, el)| Some((i, el.dyn_into::<web_sys::HtmlInputElement>().ok()?))) {
                d.dispatch(DesignAction::Rename(input.0, input.1.value()));
            }
        })
    };
    let on_click = {
        let (d, load, list) = (p.designs.clone(), p.on_load.clone(), list.clone());
        Callback::from(move |e: MouseEvent| {
            let Some((i, el)) = target(&e) else { return };
            match (el.get_attribute("data-act").as_deref(), list.get(i)) {
                (Some("load"), Some(x)) => load.emit(x.scenario.clone()),
                (Some("remove"), _) => d.dispatch(DesignAction::Remove(i)),
                _ => {}
            }
        })
    };

    let body = if list.is_empty() {
        html! { <p class="muted">{ "Pin this design, change the cluster, and pin again: up to four designs side by side, kept in the link and in this browser." }</p> }
    } else {
        let id = COMPARE_CHART_IDS[t];
        let cursor = matches!(t, 0 | 4 | 5).then(|| {
            let start = if t == 0 { bytes.0.ilog2() as f64 } else { SCALE_NODES[0].ilog2() as f64 };
            cursor_handlers(start, "compare-readout", Rc::new(move |e| readout(t, &names, &evals, &outs, op, e)))
        });
        let tabs = TABS.iter().enumerate().map(|(i, l)| {
            let tab = tab.clone();
            html! {
                <label class={classes!("seg", (i == t).then_some("on"))}>
                    <input type="radio" name="compare-chart" checked={i == t} data-testid={COMPARE_CHART_IDS[i]} onchange={Callback::from(move |_| tab.set(i))} />
                    { *l }
                </label>
            }
        });
        html! {
            <>
                <div class="segmented" role="radiogroup" aria-label="Comparison chart">{ for tabs }</div>
                <div class="chart-svg chart-plot" data-testid="compare-chart" data-chart={id}>
                    { Html::from_html_unchecked(drawn.0.clone()) }
                    if let Some((on_move, on_key, on_focus)) = cursor {
                        <div class="chart-cursor" tabindex="0" role="group" data-testid="compare-cursor"
                            aria-label="Chart values: move the pointer over the chart, or use the arrow keys, to read each design's exact value"
                            aria-describedby="compare-readout" onmousemove={on_move} onkeydown={on_key} onfocus={on_focus}>
                            <div class="crosshair" aria-hidden="true"></div>
                        </div>
                    }
                </div>
                <p id="compare-readout" class="readout" aria-live="polite" data-testid="compare-readout">
                    { if busy { "Searching each design's layouts and scaling curves…" } else { "" } }
                </p>
                { Html::from_html_unchecked(drawn.1.clone()) }
                <p class="muted small">{ format!("busbw of {} at {} over every GPU; the job {job} on each design's best layout; power from the bill of materials, cost only where every part has a price.", op.name(), size_words(bytes.0)) }</p>
            </>
        }
    };
    html! {
        <section class="panel table-panel wide compare" data-testid="compare" aria-labelledby="compare-h">
            <h3 id="compare-h">{ "8 · Compare designs" }</h3>
            <ul class="designs" onchange={on_rename} onclick={on_click}>{ Html::from_html_unchecked((*chips).clone()) }</ul>
            <button type="button" onclick={pin} disabled={full} data-testid="pin">{ if full { "Four designs pinned (remove one to pin)" } else { "Pin this design" } }</button>
            if !p.designs.notes.is_empty() {
                <ul class="notes" data-testid="design-notes">{ for p.designs.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
            { body }
        </section>
    }
}
