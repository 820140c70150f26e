//! compare.html's root ("Compare and price designs", its own wasm: src/bin/fabricscope-compare):
//! the pinned designs A-D of the link (`&d=`) or of this browser's saved copy, the link's own
//! design (`#s=`) in the controls to add (added by itself when none is saved), the comparison,
//! the bill of materials, the price book (`super::prices`, which prices all of them) and the
//! right-sizer of the design in the controls, and `?embed=compare-…`. The link follows every
//! change.

use crate::widgets::count_field::count_control;
use crate::widgets::state::{Action, State};
use crate::plumbing::hooks::{DARK, NARROW};
use crate::widgets::export::{copy_text, page_base, save_scenario};
use fabricscope_model::link::embed_snippet;
use crate::widgets::{pickers, presets, PageFrame, PickersProps, PresetsProps};
use super::{bom_of, bom_panel, price_editor, rightsize_panel, ComparePanel, PriceEditorProps, RightsizeProps};
use super::prices::Prices;
use fabricscope_design::bom::PriceBook;
use super::designs::DesignAction;
use crate::widgets::embed::{embed_request, show, url_parts, viewport, EmbedBody, EmbedContent};
use crate::widgets::eval::Count;
use crate::plumbing::hooks::use_media_query;
use super::rightsize::use_rightsize;
use crate::plumbing::url;
use fabricscope_charts::compare::{compare_chart, compare_title, design_label, DesignData, COMPARE_CHART_IDS};
use fabricscope_charts::Theme;
use fabricscope_design::compare::{decode_designs, scale_points, ScalePoint};
use fabricscope_model::link::{encode, find_param, Decoded};
use fabricscope_model::presets::matching_preset;
use fabricscope_model::training::explore::{start, TrainingView};
use fabricscope_model::training::presets::PRESETS;
use fabricscope_model::training::Constraints;
use fabricscope_model::{evaluate, Report, Scenario};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Mounts the page (or, for `?embed=compare-…`, the one chart) into `#app`, one timer tick
/// after the wasm is instantiated (two short tasks rather than one long one).
pub fn mount() {
    gloo_timers::callback::Timeout::new(0, || {
        let Some(win) = web_sys::window() else { return };
        let Some(doc) = win.document() else { return };
        let Some(el) = doc.get_element_by_id("app") else { return };
        let url = doc.url().unwrap_or_default();
        let (query, fragment) = url_parts(&url);
        if let Some(req) = embed_request(query, fragment) {
            if let Some(html) = doc.document_element() {
                html.set_class_name("embed-mode");
            }
            mount_embed(&el, &req.chart, &req.scenario, query, fragment, &win);
        } else {
            yew::Renderer::<ComparePage>::with_root(el).render();
        }
    })
    .forget();
}


/// A copy-link button and the page's link (with the designs and the price book), the scenario
/// file (with the price book), and the embed snippet of a comparison chart of them.
fn share(settled: &Scenario, designs: &str, note: &UseStateHandle<Option<String>>) -> Html {
    let link = &encode(settled);
    let base = page_base();
    let url = format!("{base}#s={link}{designs}");
    let copy = {
        let (url, note) = (url.clone(), note.clone());
        Callback::from(move |_: MouseEvent| copy_text(&url, &note))
    };
    let select = Callback::from(|e: FocusEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().select());
    let file = serde_json::to_value(settled).unwrap_or_default();
    let save = Callback::from(move |_: MouseEvent| save_scenario(&file));
    html! {
        <section class="panel export" aria-labelledby="share-h" data-testid="export">
            <h2 id="share-h">{ "Share" }</h2>
            <div class="export-row share-row">
                <button type="button" onclick={copy} data-testid="copy-link">{ "Copy link" }</button>
                <input id="share-link" type="text" readonly=true value={url} onfocus={select.clone()} aria-label="Link to this comparison" data-testid="share-link" />
                <button type="button" onclick={save} data-testid="export-json">{ "Download scenario (JSON)" }</button>
            </div>
            if let Some(n) = &**note {
                <p class="export-note ok" role="status">{ n }</p>
            }
            <label class="export-embed">
                <span>{ "Embed" }</span>
                <input type="text" readonly=true value={embed_snippet(&base, COMPARE_CHART_IDS[0], &format!("{link}{designs}"))} onfocus={select} aria-label="Embed snippet of the busbw comparison" data-testid="embed-snippet" />
            </label>
            <p class="hint">{ format!("Other charts: ?embed= {}.", COMPARE_CHART_IDS.join(", ")) }</p>
        </section>
    }
}

/// A link's price book beside the saved one: "use the link's" and its Undo.
fn kept_book(prices: &UseStateHandle<Prices>) -> Html {
    let use_linked = {
        let p = prices.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(book) = p.linked.clone() {
                super::prices::save(&book);
                p.set(Prices { book, notes: vec!["Using the link's price book; Undo puts yours back.".into()], linked: None, undo: Some(p.book.clone()) });
            }
        })
    };
    let undo = {
        let p = prices.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(book) = p.undo.clone() {
                super::prices::save(&book);
                p.set(Prices { book, notes: vec!["Your price book is back.".into()], linked: Some(p.book.clone()), undo: None });
            }
        })
    };
    if prices.linked.is_none() && prices.undo.is_none() {
        return html! {};
    }
    html! {
        <div class="export-row" data-testid="kept-book">
            if let Some(b) = &prices.linked {
                <button type="button" onclick={use_linked} data-testid="use-linked-prices">{ format!("Use the link's {} price(s) instead of yours", b.0.len()) }</button>
            }
            if prices.undo.is_some() {
                <button type="button" onclick={undo} data-testid="prices-undo">{ "Undo: back to your price book" }</button>
            }
        </div>
    }
}

/// The job every design is timed on (step time, MFU, the right-sizer): a preset, or the link's
/// custom sizes kept as they are (the explorer edits those).
fn workload_picker(current: &str, dispatch: &Callback<Action>) -> Html {
    let on_change = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| dispatch.emit(Action::Workload(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value())))
    };
    let known = PRESETS.iter().any(|(id, _)| *id == current);
    html! {
        <div class="pick" data-testid="compare-workload">
            <label for="compare-workload">{ "Workload (the job each design is timed on)" }</label>
            <select id="compare-workload" onchange={on_change}>
                if !known {
                    <option value={current.to_string()} selected=true>{ "custom sizes (edit in the explorer)" }</option>
                }
                { for PRESETS.iter().map(|(id, about)| html! { <option value={*id} title={*about} selected={*id == current}>{ *id }</option> }) }
            </select>
        </div>
    }
}

/// The controls' state (the explorer's reducer) and loading a whole design into it, which only
/// this page does (so the explorer's reducer has no such action).
#[derive(PartialEq)]
struct Controls(Rc<State>);

enum ControlsAction {
    Edit(Action),
    Load(Box<Scenario>),
}

impl Reducible for Controls {
    type Action = ControlsAction;

    fn reduce(self: Rc<Self>, action: ControlsAction) -> Rc<Self> {
        Rc::new(Controls(match action {
            ControlsAction::Edit(a) => self.0.clone().reduce(a),
            ControlsAction::Load(s) => Rc::new(State::from_decoded(Decoded { scenario: *s, warnings: Vec::new() })),
        }))
    }
}

#[component]
fn ComparePage() -> Html {
    let controls = use_reducer(|| Controls(Rc::new(State::from_url())));
    let state = controls.0.clone();
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    let designs = use_reducer(super::designs::load);
    // Encoding four scenarios costs a baseline diff each: once per change of the list, not per input.
    let designs_link = (*use_memo((designs.list.clone(), designs.same_gpus), |(l, same)| super::designs::link_part(l, *same))).clone();
    let prices = use_state(super::prices::load);
    let price_note = use_state(|| None::<String>);
    let shown = use_mut_ref(|| (prices.book.clone(), 0u32));
    let on_book = {
        let prices = prices.clone();
        Callback::from(move |book: PriceBook| {
            super::prices::save(&book);
            prices.set(Prices { book, notes: Vec::new(), linked: prices.linked.clone(), undo: None });
        })
    };
    // The link and the scenario file carry the book.
    let scenario = Scenario { prices: prices.book.to_value(), ..state.scenario() };
    let settled = url::use_link_writer(scenario, "compare.html", fabricscope_model::link::encode, designs_link.clone());
    let note = use_state(|| None::<String>);
    // The framed pages' fragment: the controls' design and the pinned ones (congestion.html and
    // serving.html's planner both read it).
    let congestion_fragment = use_memo((settled.clone(), designs_link.clone()), |(s, d)| format!("s={}{d}", encode(s)));
    // Opened with no saved designs: the link's design is the first.
    {
        let (designs, s) = (designs.clone(), state.scenario());
        use_effect_with((), move |_| {
            if designs.list.is_empty() {
                designs.dispatch(DesignAction::Pin(Box::new(s)));
            }
        });
    }
    use_effect(crate::plumbing::hooks::sync_selects);
    let job = state.training.workload.clone();
    let cluster = state.view.as_ref().map(|v| v.cluster.clone());
    let (sized, sizing, start_sizing) = use_rightsize(cluster, job.clone(), Constraints::default());
    let dispatch = {
        let controls = controls.clone();
        Callback::from(move |a: Action| controls.dispatch(ControlsAction::Edit(a)))
    };
    // The page joins in steps, one per frame (see `use_steps`): the controls, the comparison,
    // the bill of materials, the price book, then the right-sizer and sharing.
    let step = crate::plumbing::hooks::use_steps(4);
    let c = &state.cluster;
    html! {
        <div class="layout">
            <section class="panel controls" aria-labelledby="design-h">
                <h2 id="design-h">{ "Design to add" }</h2>
                if !state.link_notes.is_empty() || !designs.notes.is_empty() {
                    <ul class="notes" data-testid="link-notes">
                        { for state.link_notes.iter().chain(&designs.notes).map(|n| html! { <li>{ n }</li> }) }
                    </ul>
                }
                <p class="hint">{ "The link's design, or a preset: change it, then add it to the comparison. Load puts a design here; its bill of materials and right-sizing are below." }</p>
                { presets(&PresetsProps { active: matching_preset(c), more: true, on_action: dispatch.clone() }) }
                { pickers(&PickersProps {
                    cluster: c.clone(),
                    gpu_error: state.error_for("gpu"),
                    scale_up_error: state.error_for("scale_up"),
                    nic_error: state.error_for("nic").or_else(|| state.error_for("sharp")),
                    on_action: dispatch.clone(),
                }) }
                { count_control(&state, Count::Nodes, None, &dispatch) }
                { count_control(&state, Count::GpusPerNode, None, &dispatch) }
                { count_control(&state, Count::NicsPerNode, None, &dispatch) }
                { workload_picker(&state.training.workload, &dispatch) }
                <p class="hint"><a href={format!("./#s={}", encode(&settled))} data-testid="open-explorer">{ "Open this design in the explorer" }</a></p>
            </section>
            <div class="panels">
                if let Some(v) = state.view.as_ref().filter(|_| step >= 1) {
                    <ComparePanel designs={designs.clone()} scenario={settled.clone()} current={state.scenario()} eval={v.clone()} training={None} {dark} {compact}
                        on_load={let c = controls.clone(); Callback::from(move |s: Scenario| c.dispatch(ControlsAction::Load(Box::new(s))))} book={prices.book.clone()} />
                    if step >= 2 {
                        // Serving (issue 24): the pinned designs' curves for one deployment.
                        <super::CompareServing designs={designs.list.iter().enumerate().map(|(i, d)| (fabricscope_charts::compare::design_label(i, &d.name), d.scenario.cluster.clone())).collect::<Vec<_>>()} {dark} {compact} />
                        // Congestion (issue 25): congestion.html's own wasm in a frame, for the
                        // design in the controls and the pinned designs side by side (a dedicated
                        // design beside a shared one); the flow model costs this page nothing.
                        <PageFrame page="congestion.html" fragment={congestion_fragment.clone()} kind="congestion" class="with-designs"
                            heading="Congestion, sharing and failures · the designs under the flow model"
                            frame_title="Congestion panel for the pinned designs and the design in the controls: routing, neighbours, failures, throughput bands over seeds"
                            open_text="Open the congestion panel on its own page" />
                        // Serving plans (issue 39): serving.html's planner on every pinned design
                        // under the same latency targets, in its own wasm (the planner costs this
                        // page nothing).
                        <PageFrame page="serving.html" fragment={congestion_fragment.clone()} kind="serving"
                            heading="Serving plans · the designs under the same latency targets"
                            frame_title="Serving planner for the pinned designs: the fewest GPUs meeting TTFT and TPOT targets at a request rate, each design's Pareto front overlaid"
                            open_text="Open the plans on the serving page" />
                        { bom_panel(&v.cluster, &prices.book) }
                    }
                    if step >= 3 {
                        if let Some(bill) = bom_of(&v.cluster, &prices.book) {
                            { price_editor(PriceEditorProps { bill, book: prices.book.clone(), on_book, notes: prices.notes.clone(), note: price_note, shown, kept: kept_book(&prices) }) }
                        }
                    }
                    if step >= 4 {
                        { rightsize_panel(&RightsizeProps { sized, progress: sizing, start: start_sizing, job, book: prices.book.clone(), dark, compact }) }
                    }
                }
                if step >= 4 {
                    { share(&settled, &designs_link, &note) }
                }
            </div>
        </div>
    }
}

/// One design of a compare embed, evaluated: its label, Report, job search and scaling points.
type Evaluated = (String, Report, Option<TrainingView>, Vec<ScalePoint>);

/// The designs of the link (`d=`), each evaluated once with the link scenario's job; the
/// scaling points (a layout search at each of 12 sizes) only for a scaling chart (`scaling`).
fn compare_designs(scenario: &Scenario, query: &str, fragment: &str, scaling: bool) -> Vec<Evaluated> {
    let (list, _) = find_param(query, fragment, "d=").map(decode_designs).unwrap_or_default();
    let v = &scenario.view;
    list.iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let r = evaluate(&d.scenario).ok()?;
            let topo = d.scenario.cluster.topology().ok()?;
            let t = start(&topo, &scenario.training.workload, Constraints::default()).ok();
            let sc = if scaling { scale_points(&d.scenario.cluster, v.selected_op, v.headline_bytes(), Some(&scenario.training.workload)) } else { Vec::new() };
            Some((design_label(i, &d.name), r, t, sc))
        })
        .collect()
}

/// `?embed=compare-…`: a comparison chart of the link's designs, redrawn on resize; its footer
/// links back to this page with the same designs.
fn mount_embed(root: &web_sys::Element, chart: &str, scenario: &Scenario, query: &str, fragment: &str, win: &web_sys::Window) {
    let designs = compare_designs(scenario, query, fragment, chart.starts_with("compare-scaling"));
    let back = format!("compare.html#s={}&{}", encode(scenario), fragment_designs(query, fragment));
    let (chart, view) = (chart.to_string(), scenario.view.clone());
    let root = root.clone();
    let dark = win.match_media(DARK).ok().flatten();
    let draw = move || {
        let (w, _) = viewport();
        let data: Vec<DesignData> = designs.iter().map(|(n, r, t, sc)| DesignData { name: n, report: r, training: t.as_ref(), scaling: sc }).collect();
        let theme = Theme::for_dark(dark.as_ref().is_some_and(|m| m.matches()));
        let names: Vec<&str> = data.iter().map(|d| d.name).collect();
        let title = compare_title(&chart).unwrap_or_default().to_string();
        let body = match compare_chart(&chart, &data, &view, &theme, w.saturating_sub(12), false) {
            _ if data.is_empty() => EmbedBody::Alert("This link pins no designs to compare (d=).".into()),
            Some(svg) => EmbedBody::Chart { id: chart.clone(), svg, title, caption: names.join(" vs ") },
            None => EmbedBody::Alert(format!("No chart \"{chart}\"; choose one of: {}.", COMPARE_CHART_IDS.join(", "))),
        };
        show(&root, EmbedContent { warnings: None, body, open: back.clone() });
    };
    draw();
    let cb = Closure::<dyn Fn()>::new(draw);
    let _ = win.add_event_listener_with_callback("resize", cb.as_ref().unchecked_ref());
    cb.forget();
}

/// `d=…` of a URL ("" without one).
fn fragment_designs(query: &str, fragment: &str) -> String {
    find_param(query, fragment, "d=").map_or(String::new(), |d| format!("d={d}"))
}

