//! `?embed=<chart>`: one chart of the scenario in the link (`s=<link>` in the fragment or the
//! query), filling its iframe, with a one-line footer stating the scenario and linking back
//! to the full explorer. [`mount_if_embed`] picks this mode from the page URL.

use fabricscope_charts::report::{caption, chart_title, render_chart, throughput_title, training_caption, CHART_IDS};
use fabricscope_charts::training::TRAINING_CHART_IDS;
use fabricscope_charts::Theme;
use fabricscope_model::link::{decode, encode, find_in_url};
use fabricscope_model::training::explore::{constraints, workload, Staged, TrainingView};
use fabricscope_model::{evaluate, ModelError, Report, Scenario, Topology};
use std::cell::RefCell;
use crate::widgets::ChartSvg;
use yew::prelude::*;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Height of one footer line in CSS pixels (assets/style.css, embeds: 12 px type, line-height 1.4).
const FOOT_LINE_PX: f64 = 17.0;
/// The footer's height for `text` in a `width`-pixel frame: the whole caption, then the link
/// back, wrap onto as many lines as they need (never cut), and the chart gets what is left.
fn footer_px(text: &str, width: u32) -> u32 {
    let all = format!("{text} Open in Fabricscope ↗");
    let lines = fabricscope_charts::text::wrap(&all, 12.0, false, (width as f64 - 14.0).max(120.0)).len();
    (lines as f64 * FOOT_LINE_PX).ceil() as u32 + 4
}

/// Whether a chart drawn `svg` big, fitted into a `width` x `height` frame less its footer,
/// would shrink its type below 3/4 of what the width allows (a tall chart, such as the step
/// chart's rows, in a short frame): it is then drawn at the frame's width and scrolls.
fn scrolls(svg: &str, (width, height): (u32, u32), foot: u32) -> bool {
    let (sw, sh) = fabricscope_charts::svg_size(svg);
    if width == 0 || height == 0 || sw == 0 || sh == 0 {
        return false;
    }
    let by_width = (width.saturating_sub(12) as f64 / sw as f64).min(1.0);
    let by_height = height.saturating_sub(foot + 10) as f64 / sh as f64;
    by_height < 0.75 * by_width
}

/// What an embed URL asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbedRequest {
    /// Chart id (one of `CHART_IDS`), as written in the URL.
    pub chart: String,
    pub scenario: Scenario,
    /// Fields of the link that fell back to defaults.
    pub warnings: Vec<String>,
}

/// Reads `?embed=<chart>` and the scenario from a URL's query and fragment. `None` when the
/// query has no `embed=`, i.e. the full explorer should load.
pub fn embed_request(query: &str, fragment: &str) -> Option<EmbedRequest> {
    let chart = query
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.strip_prefix("embed="))?
        .to_string();
    let (scenario, warnings) = match find_in_url(query, fragment) {
        Some(l) => {
            let d = decode(l);
            (d.scenario, d.warnings)
        }
        None => (Scenario::default(), Vec::new()),
    };
    Some(EmbedRequest {
        chart,
        scenario,
        warnings,
    })
}

/// Splits a full URL into (query, fragment).
pub(crate) fn url_parts(url: &str) -> (&str, &str) {
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    (query, fragment)
}

/// Mounts the embed view into `root` when the page URL asks for one; `false` otherwise.
/// Drawn once, then again when the iframe is resized, the colour scheme flips or the training
/// search answers (see [`show`]).
pub fn mount_if_embed(root: &web_sys::Element) -> bool {
    let Some(win) = web_sys::window() else {
        return false;
    };
    let Some(doc) = win.document() else {
        return false;
    };
    let url = doc.url().unwrap_or_default();
    let (query, fragment) = url_parts(&url);
    let Some(req) = embed_request(query, fragment) else {
        return false;
    };
    if let Some(html) = doc.document_element() {
        html.set_class_name("embed-mode");
    }
    // Comparisons live on compare.html (its own wasm): an older explorer embed link moves there.
    if req.chart.starts_with("compare-") {
        let _ = win.location().replace(&format!("compare.html?{query}#{fragment}"));
        return true;
    }
    // The model runs once; redraws only re-render the chart at the new size or palette. A
    // training chart waits for the search, which runs in slices.
    let report = evaluate(&req.scenario);
    let training: Rc<RefCell<Option<Result<TrainingView, ModelError>>>> = Rc::new(RefCell::new(None));
    let waiting = needs_training(&req.chart) && report.is_ok();
    let dark = win.match_media(DARK).ok().flatten();
    let scenario = req.scenario.clone();
    let draw = {
        let root = root.clone();
        let dark = dark.clone();
        let training = training.clone();
        move || {
            let is_dark = dark.as_ref().is_some_and(|m| m.matches());
            let t = training.borrow();
            let content = match t.as_ref() {
                None if waiting => EmbedContent { warnings: None, body: EmbedBody::Busy, open: String::new() },
                t => embed_content(&req, &report, t, viewport(), is_dark),
            };
            show(&root, content);
        }
    };
    let draw = Rc::new(draw);
    draw();
    if waiting {
        let (draw, training) = (draw.clone(), training.clone());
        search_sliced(&scenario, move |answer| {
            *training.borrow_mut() = Some(answer);
            draw();
        });
    }
    // Lives as long as the page; a failed subscription only loses live redraws (the SVG's
    // viewBox still scales).
    let cb = Closure::<dyn Fn()>::new(move || draw());
    let _ = win.add_event_listener_with_callback("resize", cb.as_ref().unchecked_ref());
    if let Some(m) = dark {
        let _ = m.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
    }
    cb.forget();
    true
}

pub(crate) const DARK: &str = "(prefers-color-scheme: dark)";

/// The window's inner size in CSS pixels ((0, 0) when unknown).
pub(crate) fn viewport() -> (u32, u32) {
    web_sys::window()
        .map(|w| {
            let px = |v: Result<wasm_bindgen::JsValue, _>| {
                v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0) as u32
            };
            (px(w.inner_width()), px(w.inner_height()))
        })
        .unwrap_or((0, 0))
}

/// Whether chart `id` needs the training search (top layouts, chosen layout and MFU grid).
fn needs_training(id: &str) -> bool {
    matches!(id, "topology" | "step" | "mfu" | "memory")
}

/// The training search for `s`, run in slices of at most [`crate::widgets::training::SLICE_MS`], each in
/// its own task as the explorer runs it, so an embed of the largest clusters never blocks its
/// page (issue 9); `done` gets the answer.
fn search_sliced(s: &Scenario, done: impl FnOnce(Result<TrainingView, ModelError>) + 'static) {
    let begin = || -> Result<(Topology, Staged), ModelError> {
        let topo = s.cluster.topology()?;
        let w = workload(&s.training.workload)?;
        let fw = fabricscope_model::training::explore::framework_of(&s.training)?;
        let staged = Staged::new_for(&topo, &s.training.workload, constraints(&s.training, topo.total_gpus, &w), fw)?;
        Ok((topo, staged))
    };
    match begin() {
        Ok((topo, staged)) => slice(Rc::new(topo), staged, Box::new(done)),
        Err(e) => done(Err(e)),
    }
}

fn slice(topo: Rc<Topology>, mut staged: Staged, done: Box<dyn FnOnce(Result<TrainingView, ModelError>)>) {
    let start = js_sys::Date::now();
    let mut more = || js_sys::Date::now() - start < crate::widgets::training::SLICE_MS;
    match staged.run(&topo, &mut more) {
        Ok(false) => {
            gloo_timers::callback::Timeout::new(0, move || slice(topo, staged, done)).forget();
        }
        Ok(true) => done(staged.finish(&topo)),
        Err(e) => done(Err(e)),
    }
}

/// What an embed shows, as data (tested natively; [`EmbedView`] draws it).
#[derive(Clone, Debug, PartialEq)]
pub struct EmbedContent {
    /// Fields of the link that fell back to defaults, in words.
    pub warnings: Option<String>,
    pub body: EmbedBody,
    /// The link back to the full page ("" where there is none).
    pub open: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EmbedBody {
    /// No `?embed=`: how to ask for a chart.
    Help,
    /// The training search is still running.
    Busy,
    /// Why there is no chart.
    Alert(String),
    /// The chart (`svg` from crates/charts), its title and caption.
    Chart { id: String, svg: String, title: String, caption: String },
}

/// What the embed shows in a `width` x `height` viewport (0 x 0: the chart's own size): any
/// link warnings, the chart (or why there is none), and a link back to the full explorer.
pub fn embed_content(
    req: &EmbedRequest,
    report: &Result<Report, ModelError>,
    training: Option<&Result<TrainingView, ModelError>>,
    (width, height): (u32, u32),
    dark: bool,
) -> EmbedContent {
    let warnings = (!req.warnings.is_empty()).then(|| format!("Parts of this link could not be read and use defaults: {}", req.warnings.join("; ")));
    let open = format!("./#s={}", encode(&req.scenario));
    let body = match (report, training) {
        (Err(e), _) => EmbedBody::Alert(format!("This scenario cannot be evaluated: {e}")),
        (Ok(_), Some(Err(e))) => EmbedBody::Alert(format!("The training job of this scenario cannot be evaluated: {}: {}", e.field, e.message)),
        (Ok(report), training) => {
            let training = training.and_then(|t| t.as_ref().ok());
            // Leave room for the padding and the footer; the SVG's viewBox scales on resize.
            let title = if req.chart == "busbw" { throughput_title(&req.scenario.view) } else { chart_title(&req.chart).unwrap_or_default().to_string() };
            let cap = match training {
                Some(v) if TRAINING_CHART_IDS.contains(&req.chart.as_str()) => training_caption(&req.scenario, report, v),
                _ => caption(&req.scenario, report),
            };
            let foot = footer_px(&format!("{title} · {cap}"), width);
            let (w, h) = (width.saturating_sub(12), height.saturating_sub(foot + 10));
            match render_chart(&req.chart, &req.scenario, report, training, &Theme::for_dark(dark), w, h, false) {
                None if chart_title(&req.chart).is_some() => EmbedBody::Alert(format!("No layout of this job to draw for chart \"{}\".", req.chart)),
                None => EmbedBody::Alert(format!("No chart \"{}\" to embed; choose one of: {}.", req.chart, CHART_IDS.join(", "))),
                Some(chart) => EmbedBody::Chart { id: chart.id.to_string(), svg: chart.svg, title: chart.title.to_string(), caption: chart.caption },
            }
        }
    };
    EmbedContent { warnings, body, open }
}

#[derive(Properties, PartialEq)]
pub struct EmbedProps {
    pub content: Rc<EmbedContent>,
}

/// An embed: its warnings, the chart or why there is none, and the footer linking back.
#[function_component(EmbedView)]
pub fn embed_view(p: &EmbedProps) -> Html {
    let c = &p.content;
    let open = html! { <a href={c.open.clone()} target="_blank" rel="noopener" data-testid="embed-open">{ "Open in Fabricscope ↗" }</a> };
    let body = match &c.body {
        EmbedBody::Help => {
            return html! {
                <p class="embed-note" role="status">
                    { "This page draws one chart of a scenario for an iframe: add " }<code>{ "?embed=<chart>" }</code>
                    { format!(" (one of {}) and the scenario's link (", CHART_IDS.join(", ")) }<code>{ "#s=…" }</code>{ "). " }
                    <a href="./">{ "Open the explorer" }</a>{ "." }
                </p>
            }
        }
        EmbedBody::Busy => html! { <p class="embed-note" role="status" aria-busy="true">{ "Searching the layouts of this job…" }</p> },
        EmbedBody::Alert(msg) => html! { <><p class="embed-note" role="alert">{ msg }</p><div class="embed-foot">{ open }</div></> },
        EmbedBody::Chart { id, svg, title, caption } => {
            let size = viewport();
            let text = format!("{title} · {caption}");
            let scroll = scrolls(svg, size, footer_px(&text, size.0));
            html! { <>
                <div class={classes!("embed-chart", scroll.then_some("embed-scroll"))} data-testid="embed-chart" data-chart={id.clone()}
                    data-scroll={scroll.to_string()} tabindex={scroll.then_some("0")} role={scroll.then_some("region")} aria-label={scroll.then(|| title.clone())}>
                    <ChartSvg svg={svg.clone()} />
                </div>
                <div class="embed-foot">
                    <span class="embed-caption" title={caption.clone()}>{ text }</span>{ " " }{ open }
                </div>
            </> }
        }
    };
    html! {
        <div class="embed" data-testid="embed">
            if let Some(w) = &c.warnings {
                <p class="embed-note" role="status" data-testid="embed-warnings">{ w }</p>
            }
            { body }
        </div>
    }
}

thread_local! {
    /// The embed's Yew app, once mounted: a redraw only gives it new content.
    static SHOWN: RefCell<Option<yew::AppHandle<EmbedView>>> = const { RefCell::new(None) };
}

/// Shows `content` in `root`: mounts [`EmbedView`] the first time, then updates it.
pub(crate) fn show(root: &web_sys::Element, content: EmbedContent) {
    let props = EmbedProps { content: Rc::new(content) };
    SHOWN.with(|s| match &mut *s.borrow_mut() {
        Some(app) => app.update(props),
        slot => *slot = Some(yew::Renderer::<EmbedView>::with_root_and_props(root.clone(), props).render()),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_mode_comes_from_the_query() {
        assert_eq!(embed_request("", ""), None);
        assert_eq!(embed_request("?s=v1.e30", ""), None);
        let r = embed_request("?embed=busbw", "").expect("embed");
        assert_eq!(r.chart, "busbw");
        assert_eq!(r.scenario, Scenario::default());
        let r = embed_request("embed=hierarchy&s=v1.eyJuIjo2NH0", "").expect("embed");
        assert_eq!(
            (r.chart.as_str(), r.scenario.cluster.nodes),
            ("hierarchy", 64)
        );
        let r = embed_request("?embed=topology", "#s=v1.eyJuIjo2NH0").expect("embed");
        assert_eq!(r.scenario.cluster.nodes, 64);
        let r = embed_request("?embed=busbw&s=v1.eyJuIjoiZm91ciJ9", "").expect("embed");
        assert_eq!(r.scenario.cluster.nodes, 4);
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn url_parts_split() {
        assert_eq!(
            url_parts("http://h/p/?embed=busbw&s=v1.e30#x"),
            ("embed=busbw&s=v1.e30", "x")
        );
        assert_eq!(url_parts("http://h/p/#s=v1.e30"), ("", "s=v1.e30"));
        assert_eq!(url_parts("http://h/p/"), ("", ""));
    }

    /// The search the embed runs in slices, in one call (native tests have no timers).
    fn training_for(id: &str, s: &Scenario) -> Option<Result<TrainingView, ModelError>> {
        let run = || -> Result<TrainingView, ModelError> {
            let topo = s.cluster.topology()?;
            let w = workload(&s.training.workload)?;
            let fw = fabricscope_model::training::explore::framework_of(&s.training)?;
            fabricscope_model::training::explore::start_for(&topo, &s.training.workload, constraints(&s.training, topo.total_gpus, &w), fw)
        };
        needs_training(id).then(run)
    }

    #[test]
    fn embed_markup_has_the_chart_caption_and_way_back() {
        let req = embed_request("?embed=step", "#s=v1.eyJuIjo4fQ").expect("embed");
        let report = evaluate(&req.scenario);
        let training = training_for(&req.chart, &req.scenario);
        let c = embed_content(&req, &report, training.as_ref(), (800, 450), false);
        let EmbedBody::Chart { id, svg, caption, .. } = &c.body else { panic!("{c:?}") };
        assert!(id == "step" && svg.starts_with("<svg"), "{c:?}");
        assert!(caption.contains("8 nodes × 8 ") && caption.contains("llama3-8b on TP"), "caption states cluster and job: {caption}");
        assert!(c.open.starts_with("./#s=v1."), "links back to the explorer");
        // The busbw chart needs no training; an unknown chart and a bad job explain themselves.
        let req = embed_request("?embed=busbw", "").expect("embed");
        assert!(training_for(&req.chart, &req.scenario).is_none());
        let pie = embed_request("?embed=pie", "").expect("embed");
        let c = embed_content(&pie, &evaluate(&pie.scenario), None, (0, 0), true);
        assert_eq!(c.body, EmbedBody::Alert("No chart \"pie\" to embed; choose one of: busbw, hierarchy, topology, step, mfu, memory.".into()));
        let mut bad = embed_request("?embed=mfu", "").expect("embed");
        bad.scenario.training.workload = "custom:1:2".into();
        let t = training_for(&bad.chart, &bad.scenario);
        let c = embed_content(&bad, &evaluate(&bad.scenario), t.as_ref(), (0, 0), false);
        assert!(matches!(&c.body, EmbedBody::Alert(m) if m.starts_with("The training job of this scenario cannot be evaluated: workload:")), "{c:?}");
    }

    /// Issue 37: at 400 x 225 (a 16:9 iframe 400 px wide) the step chart's rows, taller than
    /// the frame left under the whole caption, would be drawn at under half size: they scroll at
    /// the frame's width instead; at 800 x 450, and for a chart drawn to the frame's size (busbw),
    /// nothing scrolls.
    #[test]
    fn a_small_frame_keeps_the_type_readable() {
        let req = embed_request("?embed=step", "#s=v1.eyJuIjoxNn0").expect("embed");
        let training = training_for(&req.chart, &req.scenario);
        for ((w, h), scroll) in [((400, 225), true), ((800, 450), false)] {
            let c = embed_content(&req, &evaluate(&req.scenario), training.as_ref(), (w, h), false);
            let EmbedBody::Chart { svg, title, caption, .. } = &c.body else { panic!("{c:?}") };
            assert_eq!(scrolls(svg, (w, h), footer_px(&format!("{title} · {caption}"), w)), scroll, "{w}x{h}");
        }
        let req = embed_request("?embed=busbw", "").expect("embed");
        let c = embed_content(&req, &evaluate(&req.scenario), None, (400, 225), false);
        let EmbedBody::Chart { svg, title, caption, .. } = &c.body else { panic!("{c:?}") };
        assert!(!scrolls(svg, (400, 225), footer_px(&format!("{title} · {caption}"), 400)), "a chart drawn for the frame fits it");
    }
}
