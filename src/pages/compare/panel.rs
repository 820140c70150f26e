//! Panel 8: comparing designs. Pin the page's design (up to four, A-D), name them, load one
//! back into the controls; one chart at a time of `fabricscope_charts::compare` (every design
//! in its colour, the page's own design too while it differs from the pinned ones), a cursor
//! reading exact values, and the delta table marking the better design per row.

use crate::widgets::collective::cursor_handlers;
use crate::widgets::ChartSvg;
use super::work::{use_compare_work, Key, Outcome};
use super::designs::{DesignAction, Designs};
use crate::widgets::eval::{evaluate_at, size_words, Evaluation};
use fabricscope_charts::compare::{compare_chart, design_label, DesignData, COMPARE_CHART_IDS};
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_charts::Theme;
use fabricscope_design::bom::{bom, Bom, PriceBook};
use fabricscope_design::compare::{at_gpus, default_name, numbers_with, MAX_DESIGNS, SCALE_NODES};
use fabricscope_design::design::{delta_table, warnings, Better, DeltaRow, DesignNumbers, UNRANKED_BAND, UNRANKED_POWER, UNRANKED_SIZE};
use fabricscope_model::figures::{thousands, usd};
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::{ModelError, Scenario};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties)]
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
    /// The page's price book: it prices every design (on top of a design's own prices).
    pub book: PriceBook,
}

impl PartialEq for Props {
    /// By pointer where a value comparison would walk a whole Report on every render.
    fn eq(&self, o: &Self) -> bool {
        self.designs == o.designs
            && Rc::ptr_eq(&self.eval, &o.eval)
            && self.training.as_ref().map(Rc::as_ptr) == o.training.as_ref().map(Rc::as_ptr)
            && self.scenario == o.scenario
            && self.current == o.current
            && self.book == o.book
            && (self.dark, self.compact) == (o.dark, o.compact)
    }
}

/// Tab labels of [`COMPARE_CHART_IDS`].
const TABS: [&str; 6] = ["busbw", "hierarchy", "step time", "memory", "busbw vs nodes", "step vs nodes"];

/// The pinned designs evaluated once each (their charts).
type Pinned = Vec<Option<Rc<Evaluation>>>;

/// A design's bill of materials priced from its own prices with the page's book on top
/// (`None` where it cannot be built or its own prices are refused).
fn priced_bom(s: &Scenario, book: &PriceBook) -> Option<Rc<Bom>> {
    let own = PriceBook::from_value(&s.prices).ok().filter(|b| b.validate().is_ok())?;
    Some(Rc::new(bom(&s.cluster.topology().ok()?, &own.merged(book))))
}

fn number(key: &str, v: f64) -> String {
    match key {
        "step_time_s" => seconds_label(v),
        "mfu" | "ettr" => format!("{:.1}%", v * 100.0),
        "cost_usd" | "cost_usd_per_gpu" => usd(v),
        "gpus" => thousands(v),
        // Millions of tokens read better as "8.78 M" than as eight digits.
        _ if v >= 1e5 => format!("{} M", gbps_label(v / 1e6)),
        _ if v >= 1e3 => thousands(v),
        _ => gbps_label(v),
    }
}

/// The short words of a row's "not ranked" (the whole reason is its tooltip and the note).
fn unranked_words(why: &str) -> &'static str {
    match why {
        UNRANKED_SIZE => "not ranked: sizes differ",
        UNRANKED_POWER => "not ranked: power a lower bound",
        UNRANKED_BAND => "not ranked: no 90% interval",
        _ => "not ranked",
    }
}

/// The last cell of a row: best ÷ worst, or why the row crowns no design.
fn verdict(r: &DeltaRow) -> Html {
    match (r.best, r.ratio, r.within_error_pct, r.unranked) {
        // Closer than the model's error: the ratio, but no winner (see `delta_table`).
        (None, Some(x), Some(e), _) => html! { <td class="num" data-label="best ÷ worst" data-testid="within-error" title="The 90% intervals of the two best designs overlap: the model cannot tell which is better">{ format!("{x:.2}× · top two within ±{e:.0}%") }</td> },
        (None, x, None, Some(why)) => html! {
            <td class="num unranked" data-label="best ÷ worst" data-testid="unranked" title={why}>
                { x.map_or(String::new(), |x| format!("{x:.2}× · ")) }{ unranked_words(why) }
            </td>
        },
        (_, x, _, _) => html! { <td class="num" data-label="best ÷ worst">{ x.map_or("–".into(), |x| format!("{x:.2}×")) }</td> },
    }
}

/// One row of the delta table: a value per design, ★ on the better one. On a phone each row is
/// a card and each value names its design (`data-label`, compare.css).
fn row_view(r: &DeltaRow, busbw: &str, names: &[AttrValue]) -> Html {
    let label = if r.key == "allreduce_busbw_GBps" { busbw } else { r.label };
    let unit = format!("{}{}", r.unit, if r.better == Better::Lower { ", lower is better" } else { "" });
    html! {
        <tr data-row={r.key}>
            <th scope="row">{ label }{ " " }<span class="muted">{ unit }</span></th>
            { for r.values.iter().enumerate().map(|(i, v)| {
                let best = r.best == Some(i);
                html! { <td class={classes!("num", best.then_some("best"))} data-label={names.get(i).cloned()} data-value={v.map(|v| v.to_string())}>{ v.map_or("–".into(), |v| number(r.key, v)) }{ if best { " ★" } else { "" } }</td> }
            }) }
            { verdict(r) }
        </tr>
    }
}

/// The delta table ([`delta_table`]): a column per design, the best of each row marked, best
/// ÷ worst or why no design is marked; the busbw row names the collective and size it is of.
fn table(designs: &[DesignNumbers], busbw: &str) -> Html {
    let rows: Vec<DeltaRow> = delta_table(designs).into_iter().filter(|r| r.values.iter().any(Option::is_some)).collect();
    let names: Vec<AttrValue> = designs.iter().map(|d| AttrValue::from(d.name.clone())).collect();
    html! {
        <div class="table-scroll">
            <table class="delta" data-testid="delta">
                <thead>
                    <tr>
                        <th scope="col">{ "Key number" }</th>
                        { for designs.iter().enumerate().map(|(i, d)| html! { <th scope="col" class={format!("num d{i}")}>{ &d.name }</th> }) }
                        <th scope="col" class="num">{ "best ÷ worst" }</th>
                    </tr>
                </thead>
                <tbody>{ for rows.iter().map(|r| row_view(r, busbw, &names)) }</tbody>
            </table>
        </div>
    }
}

/// What the cursor reads on the busbw or scaling chart at x = 2^exp.
fn readout(tab: usize, names: &[String], evals: &[Rc<Evaluation>], outs: &[Outcome], op: fabricscope_model::Collective, exp: u32) -> String {
    let x = 1u64 << exp.min(63);
    let parts: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let v = match tab {
                0 => evals[i].report.curves.iter().rfind(|c| c.op == op).and_then(|c| c.points.iter().find(|p| p.bytes.0 == x)).map(|p| format!("{} GB/s", gbps_label(p.busbw.0))),
                4 => outs[i].scaling.iter().find(|p| p.nodes as u64 == x).and_then(|p| p.busbw_gbps).map(|b| format!("{} GB/s", gbps_label(b))),
                _ => outs[i].scaling.iter().find(|p| p.nodes as u64 == x).and_then(|p| p.step_s).map(seconds_label),
            };
            format!("{n}: {}", v.unwrap_or_else(|| "–".into()))
        })
        .collect();
    let at = if tab == 0 { size_words(x) } else { format!("{x} nodes") };
    format!("{at} — {}", parts.join("; "))
}

/// The chips of the pinned designs, the pin button and any notes: drawn again only when they
/// change, each name box keyed on its name and given only a default value, so a re-render
/// while a name is typed never resets the box.
/// `linked`: the link's designs offered beside the saved ones; `undo`: the length of the list
/// Undo puts back, if any.
fn chips(names: &[String], links: &[String], notes: &[String], linked: usize, undo: Option<usize>) -> Html {
    let full = names.len() >= MAX_DESIGNS;
    let items = names.iter().enumerate().map(|(i, n)| {
        let l = fabricscope_design::compare::letter(i);
        html! {
            <li key={format!("{i}:{n}")} class={format!("design d{i}")} data-testid="design">
                <span class="swatch"></span>
                <label>{ l }<input type="text" ~defaultValue={n.clone()} maxlength="40" data-i={i.to_string()} aria-label={format!("Name of design {l}")} data-testid="design-name" /></label>
                <button type="button" data-i={i.to_string()} data-act="load" data-testid="design-load" aria-label={format!("Load design {l} into the controls")}
                    title="Put this design in the controls: its bill of materials and right-sizing">{ "Load" }</button>
                <a href={format!("./#s={}", links.get(i).map_or("", String::as_str))} data-testid="design-open" aria-label={format!("Open design {l} in the Explorer")}>{ "Explorer" }</a>
                <button type="button" data-i={i.to_string()} data-act="remove" data-testid="design-remove" aria-label={format!("Remove design {l}")}>{ "×" }</button>
            </li>
        }
    });
    html! { <>
        <ul class="designs">{ for items }</ul>
        <div class="export-row">
            <button type="button" data-act="pin" data-testid="pin" disabled={full}>
                { if full { "Four designs (remove one to add another)" } else { "Add the design in the controls" } }
            </button>
            if linked > 0 {
                <button type="button" data-act="add-linked" data-testid="add-linked">{ format!("Add the link's {linked} design(s) to yours") }</button>
            }
            if let Some(n) = undo {
                <button type="button" data-act="undo" data-testid="designs-undo">{ format!("Undo: back to the {n} design(s) before") }</button>
            }
        </div>
        if !notes.is_empty() {
            <ul class="notes" data-testid="design-notes">{ for notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
        }
        if names.is_empty() {
            <p class="muted">{ "Add the design in the controls, change it, and add again: up to four designs side by side, kept in the link and in this browser." }</p>
        }
    </> }
}

/// The chart picker for tab `t`.
fn tabs(t: usize) -> Html {
    html! {
        <div class="segmented" role="radiogroup" aria-label="Comparison chart">
            { for TABS.iter().enumerate().map(|(i, l)| html! {
                <label class={classes!("seg", (i == t).then_some("on"))}>
                    <input type="radio" name="compare-chart" data-tab={i.to_string()} data-testid={COMPARE_CHART_IDS[i]} checked={i == t} />{ *l }
                </label>
            }) }
        </div>
    }
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
    {
        let mut cell = now_cell.borrow_mut();
        let settled = p.eval.cluster == p.scenario.cluster && p.eval.key_bytes == p.scenario.view.headline_bytes().0;
        let same = cell.as_ref().is_some_and(|n| {
            Rc::ptr_eq(&n.eval, &p.eval) && n.scenario == p.scenario && n.training.as_ref().map(Rc::as_ptr) == p.training.as_ref().map(Rc::as_ptr)
        });
        if cell.is_none() || (settled && !same) {
            let version = cell.as_ref().map_or(0, |n| n.version + 1);
            *cell = Some(Now { version, scenario: p.scenario.clone(), eval: p.eval.clone(), training: p.training.clone() });
        }
    }
    let Some(now) = now_cell.borrow().clone() else { return Html::default() };
    let list = &p.designs.list;
    // The page's own design joins while it differs from every pinned one.
    let mine = !list.iter().any(|d| d.scenario.cluster == now.eval.cluster);
    // Compared at the largest design's GPU count, on request: each design re-sized in whole
    // nodes with its fat tree (compare::at_gpus); what rounding changed is noted.
    let same = p.designs.same_gpus;
    let scenarios: Vec<Scenario> = list.iter().map(|d| d.scenario.clone()).collect();
    let scaled = use_memo((scenarios, now.scenario.clone(), mine, same), |(ss, me, mine, same)| {
        let gpus = |s: &Scenario| s.cluster.nodes.saturating_mul(s.cluster.gpus_per_node);
        let target = ss.iter().chain(mine.then_some(me)).map(gpus).max().unwrap_or(0);
        let mut notes = Vec::new();
        let mut at = |s: &Scenario, name: &str| -> Scenario {
            if !*same || gpus(s) == target {
                return s.clone();
            }
            match at_gpus(s, target) {
                Ok((x, note)) => {
                    notes.extend(note.map(|n| format!("{name}: {n}")));
                    x
                }
                Err(e) => {
                    notes.push(format!("{name} kept at {} GPUs: {}", thousands(gpus(s) as f64), e.message));
                    s.clone()
                }
            }
        };
        let list: Vec<Scenario> = ss.iter().enumerate().map(|(i, s)| at(s, &fabricscope_design::compare::letter(i).to_string())).collect();
        let me = mine.then(|| at(me, "now"));
        if *same {
            notes.insert(0, format!("each design scaled to {} GPUs (nodes added or removed, fat tree re-sized, the same job)", thousands(target as f64)));
        }
        (list, me, notes)
    });
    // Pinned designs run the model once each (not on a rename, not on the page's inputs).
    let key_bytes = now.eval.key_bytes;
    let pinned: Rc<Pinned> = use_memo((scaled.0.clone(), key_bytes), |(ss, kb)| ss.iter().map(|s| evaluate_at(&s.cluster, *kb).ok().map(Rc::new)).collect());
    // Their bills, priced again on every edit of the book (no model run).
    let boms = use_memo((scaled.0.clone(), p.book.clone()), |(ss, book)| ss.iter().map(|s| priced_bom(s, book)).collect::<Vec<_>>());
    // The page's design re-sized is evaluated here; as it is, it is the page's evaluation.
    let my_cluster = scaled.1.as_ref().map(|s| s.cluster.clone());
    let my_eval = use_memo((my_cluster.clone().filter(|c| *c != now.eval.cluster), key_bytes), |(c, kb)| c.as_ref().and_then(|c| evaluate_at(c, *kb).ok()).map(Rc::new));
    let my_bom = use_memo((my_cluster, p.book.clone()), |(c, book)| c.as_ref().and_then(|c| priced_bom(&Scenario::new(c.clone()), book)));
    let view = now.scenario.view.clone();
    let (op, bytes) = (view.selected_op, view.headline_bytes());
    let job = now.scenario.training.workload.clone();
    // Who is compared (labels, evaluations, bills, work keys): once per change, not per input.
    let setup = use_memo((now.version, list.clone(), Rc::as_ptr(&pinned) as usize, Rc::as_ptr(&boms) as usize, Rc::as_ptr(&my_bom) as usize, Rc::as_ptr(&my_eval) as usize), {
        let (pinned, boms_in, my_bom, my_eval, now, list, job) = (pinned.clone(), boms.clone(), my_bom.clone(), my_eval.clone(), now.clone(), list.clone(), job.clone());
        move |_| {
            let mut names: Vec<String> = Vec::new();
            let mut evals: Vec<Rc<Evaluation>> = Vec::new();
            let mut boms: Vec<Option<Rc<Bom>>> = Vec::new();
            for (i, (d, (e, b))) in list.iter().zip(pinned.iter().zip(boms_in.iter())).enumerate() {
                if let Some(e) = e {
                    names.push(design_label(i, &d.name));
                    evals.push(e.clone());
                    boms.push(b.clone());
                }
            }
            if mine && !list.is_empty() {
                let others: Vec<&Scenario> = list.iter().map(|d| &d.scenario).collect();
                if let Some(e) = (*my_eval).clone().or_else(|| Some(now.eval.clone())) {
                    names.push(format!("now · {}", default_name(&now.scenario, &others)));
                    evals.push(e);
                    boms.push((*my_bom).clone());
                }
            }
            let keys: Vec<Key> = if list.is_empty() {
                Vec::new()
            } else {
                evals.iter().map(|e| Key { cluster: e.cluster.clone(), workload: job.clone(), op, bytes }).collect()
            };
            (names, evals, boms, keys)
        }
    });
    let keys = setup.3.clone();
    let (outs, busy, work_version) = use_compare_work(keys);
    let t = *tab;
    // The chart and the table, drawn again only when something they show has changed.
    let drawn = use_memo((t, p.dark, p.compact, now.version, list.clone(), work_version, Rc::as_ptr(&setup) as usize, Rc::as_ptr(&scaled) as usize), {
        let (setup, outs, now, job, scaled) = (setup.clone(), outs.clone(), now.clone(), job.clone(), scaled.clone());
        move |(t, dark, compact, ..)| {
            let (names, evals, boms, _) = &*setup;
            if evals.is_empty() {
                return (AttrValue::default(), Html::default());
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
            let numbers: Vec<DesignNumbers> = (0..evals.len())
                .filter_map(|i| Some(numbers_with(&names[i], &evals[i].report, op, bytes, views[i], (*boms[i].clone()?).clone())))
                .collect();
            // What to know before reading the rows: sizes that differ, or how they were scaled.
            // A design where no layout fits at any scaling size draws no step curve: say so.
            let unscaled = outs.iter().zip(names.iter()).filter(|(o, _)| !o.scaling.is_empty() && o.scaling.iter().all(|p| p.step_s.is_none())).map(|(_, n)| format!("{n}: no step-vs-nodes curve: no layout of the job fits at any of those node counts"));
            let notes: Vec<String> = scaled.2.iter().cloned().chain(warnings(&numbers)).chain(unscaled).collect();
            let busbw = format!("{} busbw at {}", op.name(), size_words(bytes.0));
            let rest = html! {
                <>
                    if !notes.is_empty() {
                        <ul class="warning size-warning" role="status" data-testid="size-warning">
                            { for notes.iter().map(|n| html! { <li>{ n }</li> }) }
                        </ul>
                    }
                    { table(&numbers, &busbw) }
                    <p class="muted small">
                        { format!("{busbw} over every GPU; the job {job} on each design's best layout; power from the bill of materials, cost only where every part has a price. ") }
                        { "★ marks the better design only where every design's number can be ranked: no ★ on totals (step time, tokens/s, power, cost) of designs of different GPU counts (their per-GPU rows are ranked), on a prediction without a 90% interval, on power that is a lower bound, or where the two best designs' 90% intervals overlap." }
                    </p>
                </>
            };
            (AttrValue::from(svg), rest)
        }
    });
    let kept = (p.designs.linked.len(), p.designs.undo.as_ref().map(Vec::len));
    let chips = use_memo((list.iter().map(|d| d.name.clone()).collect::<Vec<_>>(), p.designs.notes.clone(), list.clone(), kept), |(n, notes, l, (linked, undo))| {
        let links: Vec<String> = l.iter().map(|d| fabricscope_model::link::encode(&d.scenario)).collect();
        chips(n, &links, notes, *linked, *undo)
    });
    let tabs = use_memo(t, |t| tabs(*t));
    // One listener each for the clicks and changes of the markup above.
    let target = |e: &Event| -> Option<web_sys::Element> { e.target_dyn_into() };
    let index = |el: &web_sys::Element, a: &str| el.get_attribute(a).and_then(|v| v.parse::<usize>().ok());
    let on_change = {
        let (d, tab) = (p.designs.clone(), tab.clone());
        Callback::from(move |e: Event| {
            let Some(el) = target(&e) else { return };
            if let Some(i) = index(&el, "data-tab") {
                tab.set(i);
            } else if let (Some(i), Some(input)) = (index(&el, "data-i"), el.dyn_ref::<web_sys::HtmlInputElement>()) {
                d.dispatch(DesignAction::Rename(i, input.value()));
            }
        })
    };
    let on_click = {
        let (d, load, current) = (p.designs.clone(), p.on_load.clone(), p.current.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(el) = target(&e) else { return };
            let i = index(&el, "data-i");
            match (el.get_attribute("data-act").as_deref(), i.and_then(|i| d.list.get(i))) {
                (Some("pin"), _) => d.dispatch(DesignAction::Pin(Box::new(current.clone()))),
                (Some("add-linked"), _) => d.dispatch(DesignAction::AddLinked),
                (Some("undo"), _) => d.dispatch(DesignAction::Undo),
                (Some("load"), Some(x)) => load.emit(x.scenario.clone()),
                (Some("remove"), Some(_)) => d.dispatch(DesignAction::Remove(i.unwrap_or_default())),
                _ => {}
            }
        })
    };
    let (svg, rest) = (*drawn).clone();
    let same_toggle = {
        let d = p.designs.clone();
        Callback::from(move |e: Event| {
            // The section's own change listener reads only tabs and names.
            e.stop_propagation();
            d.dispatch(DesignAction::SameGpus(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()));
        })
    };
    let cursor = (!setup.1.is_empty() && matches!(t, 0 | 4 | 5)).then(|| {
        let setup = setup.clone();
        let start = if t == 0 { bytes.0.ilog2() as f64 } else { SCALE_NODES[0].ilog2() as f64 };
        cursor_handlers(start, "compare-readout", Rc::new(move |e| readout(t, &setup.0, &setup.1, &outs, op, e)))
    });
    html! {
        <section class="panel table-panel wide compare" data-testid="compare" aria-labelledby="compare-h" onclick={on_click} onchange={on_change}>
            <h3 id="compare-h">{ "1 · Compare designs" }</h3>
            { (*chips).clone() }
            if !list.is_empty() {
                <label class="check same-gpus">
                    <input type="checkbox" checked={same} onchange={same_toggle} data-testid="same-gpus" />
                    { "Scale every design to the largest one's GPU count" }
                </label>
                { (*tabs).clone() }
                <div class="chart-svg chart-plot" data-testid="compare-chart" data-chart={COMPARE_CHART_IDS[t]}>
                    <ChartSvg {svg} />
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
                { rest }
            }
        </section>
    }
}
