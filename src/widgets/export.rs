//! Files in and out: the scenario as JSON (the schema `fabricscope eval` reads) to download or
//! import, the sweeps as CSV, every chart as SVG or PNG titled with the scenario (the same
//! renderers and captions as `fabricscope render`), and a copy-paste iframe snippet.
//!
//! Import reads the file with the model's strict file reader, the CLI's (`link::read_file`): a
//! file the CLI refuses (an unknown GPU, a negative node count) leaves the design as it is and
//! shows the CLI's message naming the field; otherwise the file's scenario goes into the page's
//! link (`#s=`) and the page reloads, as when a permalink is opened.

use crate::widgets::eval::Evaluation;
use fabricscope_charts::report::{chart_title, render_chart, CHART_IDS};
use fabricscope_charts::training::TRAINING_CHART_IDS;
use fabricscope_charts::Theme;
use fabricscope_model::export::{curves_csv, layouts_csv};
use fabricscope_model::training::explore::ranked;
use super::{Same, Trained};
use fabricscope_model::link::{self, check_file_size, embed_snippet, encode};
use fabricscope_model::Scenario;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement,
    HtmlInputElement, Url,
};
use yew::prelude::*;

/// PNG exports are drawn at this multiple of the SVG's size (sharp on HiDPI screens and print).
const PNG_SCALE: f64 = 2.0;

/// Layouts listed in the search-results CSV.
const RANKED: usize = 50;

#[derive(PartialEq, Clone)]
pub struct Props {
    /// The scenario on the page: what the files hold.
    pub scenario: Scenario,
    /// The scenario in the page's link (written once input settles): what the snippet embeds.
    pub settled: Scenario,
    /// The page's evaluation of `scenario`.
    pub eval: Same<Evaluation>,
    /// The training view on the page (its charts are exported as drawn).
    pub training: Trained,
    pub dark: bool,
    /// The chart the snippet embeds, and a message about the last import or export.
    pub embed_id: UseStateHandle<String>,
    pub note: UseStateHandle<Option<String>>,
    /// The panel's element (App observes whether it is on screen).
    pub node: NodeRef,
}

thread_local! {
    static LINK: std::cell::RefCell<Option<(Scenario, String)>> = const { std::cell::RefCell::new(None) };
}

/// Saves `body` as a file named `name`.
fn download_blob(name: &str, blob: &Blob) -> Result<(), JsValue> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let url = Url::create_object_url_with_blob(blob)?;
    let a: HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The click has started the download; the URL is no longer needed.
    Url::revoke_object_url(&url)?;
    Ok(())
}

fn text_blob(body: &str, mime: &str) -> Result<Blob, JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(body));
    let opts = BlobPropertyBag::new();
    opts.set_type(mime);
    Blob::new_with_str_sequence_and_options(&parts, &opts)
}

pub(crate) fn download_text(name: &str, mime: &str, body: &str) {
    // A refused download leaves nothing to recover; the console says why.
    if let Err(e) = text_blob(body, mime).and_then(|b| download_blob(name, &b)) {
        web_sys::console::warn_2(&JsValue::from_str("Fabricscope: download failed"), &e);
    }
}

/// Draws `svg` (width x height px) on a canvas at [`PNG_SCALE`] and downloads it as PNG.
pub(crate) fn download_png(name: String, svg: &str, width: u32, height: u32) -> Result<(), JsValue> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let blob = text_blob(svg, "image/svg+xml")?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let img = HtmlImageElement::new()?;
    let canvas: HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
    canvas.set_width((width as f64 * PNG_SCALE) as u32);
    canvas.set_height((height as f64 * PNG_SCALE) as u32);
    let onload = {
        let img = img.clone();
        let url = url.clone();
        Closure::once_into_js(move || {
            let done = (|| -> Result<(), JsValue> {
                let ctx: web_sys::CanvasRenderingContext2d = canvas
                    .get_context("2d")?
                    .ok_or("no 2d context")?
                    .dyn_into()?;
                ctx.scale(PNG_SCALE, PNG_SCALE)?;
                ctx.draw_image_with_html_image_element(&img, 0.0, 0.0)?;
                let save = Closure::once_into_js(move |blob: Option<Blob>| {
                    if let Some(b) = blob {
                        let _ = download_blob(&name, &b);
                    }
                });
                canvas.to_blob(save.unchecked_ref())
            })();
            let _ = Url::revoke_object_url(&url);
            if let Err(e) = done {
                web_sys::console::warn_2(&JsValue::from_str("Fabricscope: PNG export failed"), &e);
            }
        })
    };
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
    Ok(())
}

/// `width="W" height="H"` of an SVG's root element (880 x 460 when absent).
pub(crate) fn svg_size(svg: &str) -> (u32, u32) {
    match fabricscope_charts::svg_size(svg) {
        (0, _) | (_, 0) => (880, 460),
        size => size,
    }
}

/// The explorer's own address without query or fragment (what embeds and links point to).
pub(crate) fn page_base() -> String {
    let url = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.url().ok())
        .unwrap_or_default();
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let base = &url[..end];
    base.strip_suffix("index.html").unwrap_or(base).to_string()
}

/// Puts `text` on the clipboard (navigator.clipboard); where that is missing or refused
/// (no secure context, no permission), selects the link's text box and copies with the
/// older execCommand, and says which happened.
pub(crate) fn copy_text(text: &str, note: &UseStateHandle<Option<String>>) {
    let fallback = {
        let note = note.clone();
        move || {
            let doc = web_sys::window().and_then(|w| w.document());
            let input = doc.as_ref().and_then(|d| d.get_element_by_id("share-link")).and_then(|e| e.dyn_into::<HtmlInputElement>().ok());
            let copied = match (&doc, input) {
                (Some(d), Some(i)) => {
                    let _ = i.focus();
                    i.select();
                    js_sys::Reflect::get(d, &JsValue::from_str("execCommand"))
                        .ok()
                        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                        .and_then(|f| f.call1(d, &JsValue::from_str("copy")).ok())
                        .is_some_and(|v| v.as_bool() == Some(true))
                }
                _ => false,
            };
            note.set(Some(if copied { "Link copied.".into() } else { "The link is selected: press Ctrl+C (⌘C) to copy it.".into() }));
        }
    };
    let clipboard = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("navigator")).ok())
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("clipboard")).ok())
        .filter(|c| !c.is_undefined() && !c.is_null());
    let write = clipboard.as_ref().and_then(|c| {
        let f = js_sys::Reflect::get(c, &JsValue::from_str("writeText")).ok()?.dyn_into::<js_sys::Function>().ok()?;
        f.call1(c, &JsValue::from_str(text)).ok()
    });
    match write {
        Some(p) => {
            let ok = {
                let note = note.clone();
                Closure::once_into_js(move |_: JsValue| note.set(Some("Link copied.".into())))
            };
            let err = Closure::once_into_js(move |_: JsValue| fallback());
            let then = js_sys::Reflect::get(&p, &JsValue::from_str("then")).ok().and_then(|t| t.dyn_into::<js_sys::Function>().ok());
            if let Some(then) = then {
                let _ = then.call2(&p, &ok, &err);
            }
        }
        None => fallback(),
    }
}

/// Downloads `v` (a scenario as JSON) as the scenario file `fabricscope eval` reads.
pub(crate) fn save_scenario(v: &serde_json::Value) {
    // Laid out from the compact text: the bundle has one JSON serializer, not a pretty one too.
    let json = link::indent_json(&link::json_text(v)) + "\n";
    download_text("fabricscope-scenario.json", "application/json", &json);
}

/// The file chosen in the input of `e`; the input is cleared, so choosing the same file
/// again fires `change` again.
pub(crate) fn chosen(e: &Event) -> Option<web_sys::File> {
    let input = e.target_dyn_into::<HtmlInputElement>()?;
    let file = input.files().and_then(|f| f.get(0))?;
    input.set_value("");
    Some(file)
}

/// Reads `file` as text, then `done`; where it cannot be read, `note` says so. Not built on
/// [`read_text_then`]: its error plumbing, which only a page reading several files at once
/// needs, would cost compare.html 268 bytes gzipped of its 400 KB.
pub(crate) fn read_text(file: &web_sys::File, note: UseStateHandle<Option<String>>, done: impl FnOnce(String) + 'static) {
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r2 = reader.clone();
    let onload = Closure::once_into_js(move || done(r2.result().ok().and_then(|v| v.as_string()).unwrap_or_default()));
    reader.set_onload(Some(onload.unchecked_ref()));
    if reader.read_as_text(file).is_err() {
        note.set(Some("The file could not be read.".into()));
    }
}

/// Reads `file` as text, then `done` with it, or with `None` where the browser cannot read it
/// (it is then called once all the same, so a caller waiting on several files is not left waiting).
pub(crate) fn read_text_then(file: &web_sys::File, done: impl FnOnce(Option<String>) + 'static) {
    let Ok(reader) = web_sys::FileReader::new() else {
        return done(None);
    };
    let done = std::rc::Rc::new(std::cell::Cell::new(Some(Box::new(done) as Box<dyn FnOnce(Option<String>)>)));
    let (r2, on_error) = (reader.clone(), done.clone());
    let onload = Closure::once_into_js(move || {
        if let Some(f) = done.take() {
            f(r2.result().ok().and_then(|v| v.as_string()))
        }
    });
    let fail = on_error.clone();
    let onerror = Closure::once_into_js(move || {
        if let Some(f) = fail.take() {
            f(None)
        }
    });
    reader.set_onload(Some(onload.unchecked_ref()));
    reader.set_onerror(Some(onerror.unchecked_ref()));
    if reader.read_as_text(file).is_err() {
        if let Some(f) = on_error.take() {
            f(None)
        }
    }
}

/// Imports the scenario file chosen in the input of `e` into `done`, or says in `note` why
/// not (the design is then unchanged).
/// `done` gets the file's text too (check.html reads its measured runs from it).
pub(crate) fn import_scenario(e: Event, note: UseStateHandle<Option<String>>, done: impl FnOnce(link::Decoded, &str) + 'static) {
    let Some(file) = chosen(&e) else { return };
    let refuse = |n: &UseStateHandle<Option<String>>, m: String| n.set(Some(format!("Not imported; the design is unchanged: {m}")));
    if let Err(m) = check_file_size(file.size() as u64) {
        return refuse(&note, m);
    }
    let n = note.clone();
    // Strict, as the CLI reads files: a file it refuses leaves the design as it was.
    read_text(&file, note, move |text| match link::read_file(&text) {
        Ok((scenario, _)) => done(link::Decoded { scenario, warnings: Vec::new() }, &text),
        Err(m) => refuse(&n, m.to_string()),
    });
}

/// The scenario file's two buttons, download and import (check.html; the explorer's export
/// panel writes the same markup inline, which its bundle budget prefers).
pub(crate) fn scenario_buttons(save: Callback<MouseEvent>, import: Callback<Event>) -> Html {
    html! {
        <>
            <button type="button" onclick={save} data-testid="export-json">{ "Download scenario (JSON)" }</button>
            <label class="export-import">
                { "Import scenario (JSON)…" }
                <input type="file" accept=".json,application/json" onchange={import} data-testid="import-json" />
            </label>
        </>
    }
}

/// A chart's name in words, for its download buttons' names.
fn chart_name(id: &str) -> &str {
    match id {
        "busbw" => "bus bandwidth",
        "step" => "training step time",
        "mfu" => "MFU",
        other => other,
    }
}

impl super::Panel for Props {
    /// Drawn again when the props change (and, off screen, not while a slider is dragged);
    /// App keeps its two bits of state.
    fn view(&self) -> Html {
        export_panel(self)
    }
}

fn export_panel(props: &Props) -> Html {
    let embed_id = props.embed_id.clone();
    let import_note = props.note.clone();
    let dark = props.dark;
    let s = props.scenario.clone();
    // Encoding a link costs a baseline diff: once per settled scenario, not per input event.
    let link = LINK.with(|c| super::cached(c, props.settled.clone(), encode));
    let eval = props.eval.0.clone();

    let save_json = {
        let s = s.clone();
        Callback::from(move |_: MouseEvent| save_scenario(&serde_json::to_value(&s).unwrap_or_default()))
    };
    let save_csv = {
        let eval = eval.clone();
        Callback::from(move |_: MouseEvent| download_text("fabricscope-sweeps.csv", "text/csv", &curves_csv(&eval.report)))
    };
    let save_layouts = {
        let s = s.clone();
        let note = import_note.clone();
        Callback::from(move |_: MouseEvent| match ranked(&s.cluster, &s.training.workload, RANKED) {
            Ok(rows) => download_text("fabricscope-layouts.csv", "text/csv", &layouts_csv(&rows)),
            Err(e) => note.set(Some(format!("No layouts to export: {}: {}", e.field, e.message))),
        })
    };
    let on_import = {
        let note = import_note.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            // Choosing the same file again must fire `change` again.
            input.set_value("");
            if let Err(m) = check_file_size(file.size() as u64) {
                note.set(Some(format!("Not imported; the design is unchanged: {m}")));
                return;
            }
            let Ok(reader) = web_sys::FileReader::new() else {
                return;
            };
            let note_err = note.clone();
            let note = note.clone();
            let r2 = reader.clone();
            // Written out rather than through import_scenario (check.html's), which costs the
            // explorer's bundle a few bytes more.
            let onload = Closure::once_into_js(move || {
                let text = r2.result().ok().and_then(|v| v.as_string()).unwrap_or_default();
                // Strict, as the CLI reads files (one reader): a file the CLI refuses leaves
                // the design as it was and shows the CLI's message.
                let scenario = match link::read_file(&text) {
                    Ok((s, _)) => s,
                    Err(m) => {
                        note.set(Some(format!("Not imported; the design is unchanged: {m}")));
                        return;
                    }
                };
                // Same path as opening a permalink: the page reads #s= on load.
                if let Some(w) = web_sys::window() {
                    let _ = w.location().set_hash(&format!("s={}", encode(&scenario)));
                    let _ = w.location().reload();
                }
            });
            reader.set_onload(Some(onload.unchecked_ref()));
            if reader.read_as_text(&file).is_err() {
                note_err.set(Some("The file could not be read.".into()));
            }
        })
    };

    let theme = Theme::for_dark(dark);
    let trained = props.training.clone();
    let view = trained.as_deref().and_then(|t| t.as_ref().ok()).filter(|v| v.chosen.is_some());
    let chart_buttons = CHART_IDS.iter().map(|&id| {
        // The training charts wait for the search's result.
        let ready = !TRAINING_CHART_IDS.contains(&id) || view.is_some();
        let svg_of = {
            let (s, eval, trained) = (s.clone(), eval.clone(), trained.clone());
            move || {
                let training = trained.as_deref().and_then(|t| t.as_ref().ok());
                // The throughput chart at the explorer's own width: the export is what is on screen.
                let width = if id == "busbw" { 760 } else { 0 };
                render_chart(id, &s, &eval.report, training, &theme, width, 0, true).map(|c| c.svg)
            }
        };
        let save_svg = {
            let svg_of = svg_of.clone();
            Callback::from(move |_: MouseEvent| {
                if let Some(svg) = svg_of() {
                    download_text(&format!("fabricscope-{id}.svg"), "image/svg+xml", &svg);
                }
            })
        };
        let save_png = Callback::from(move |_: MouseEvent| {
            if let Some(svg) = svg_of() {
                let (w, h) = svg_size(&svg);
                if let Err(e) = download_png(format!("fabricscope-{id}.png"), &svg, w, h) {
                    web_sys::console::warn_2(&JsValue::from_str("Fabricscope: PNG export failed"), &e);
                }
            }
        });
        html! {
            <li>
                <span class="export-chart" title={chart_title(id)}>{ id }</span>
                // Named by what they do (a screen reader lists six "SVG" buttons otherwise).
                <button type="button" onclick={save_svg} disabled={!ready} aria-label={format!("Download the {} chart as SVG", chart_name(id))} data-testid={format!("export-{id}-svg")}>{ "SVG" }</button>
                <button type="button" onclick={save_png} disabled={!ready} aria-label={format!("Download the {} chart as PNG", chart_name(id))} data-testid={format!("export-{id}-png")}>{ "PNG" }</button>
            </li>
        }
    });
    let snippet = embed_snippet(&page_base(), &embed_id, &link);
    let on_embed_id = {
        let embed_id = embed_id.clone();
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            embed_id.set(sel.value());
        })
    };
    let select_all = Callback::from(|e: FocusEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        input.select();
    });
    let share_url = format!("{}#s={link}", page_base());
    let copy_link = {
        let note = import_note.clone();
        let url = share_url.clone();
        Callback::from(move |_: MouseEvent| copy_text(&url, &note))
    };

    html! {
        <section ref={props.node.clone()} class="panel export" aria-labelledby="export-heading" data-testid="export">
            <h2 id="export-heading">{ "Share and export" }</h2>
            <div class="export-row">
                // Written out (check.html calls scenario_buttons): 22 bytes less here.
                <button type="button" onclick={save_json} data-testid="export-json">{ "Download scenario (JSON)" }</button>
                <label class="export-import">
                    { "Import scenario (JSON)…" }
                    <input type="file" accept=".json,application/json" onchange={on_import} data-testid="import-json" />
                </label>
                <button type="button" onclick={save_csv} data-testid="export-csv">{ "Download sweeps (CSV)" }</button>
                <button type="button" onclick={save_layouts} data-testid="export-layouts" title={format!("The search's {RANKED} best layouts of the job, with step time, MFU and memory")}>{ "Download layouts (CSV)" }</button>
            </div>
            if let Some(n) = &*import_note {
                // The copy-link messages are news, not errors.
                if n.starts_with("Link ") || n.starts_with("The link is selected") {
                    <p class="export-note ok" role="status">{ n }</p>
                } else {
                    <p class="export-note" role="alert">{ n }</p>
                }
            }
            <div class="export-row share-row">
                <button type="button" onclick={copy_link} data-testid="copy-link">{ "Copy link" }</button>
                <input id="share-link" type="text" readonly=true value={share_url} onfocus={select_all.clone()} aria-label="Link to this scenario" data-testid="share-link" />
            </div>
            <ul class="export-charts">{ for chart_buttons }</ul>
            <label class="export-embed">
                <span>{ "Embed" }</span>
                <select onchange={on_embed_id} aria-label="Chart to embed">
                    { for CHART_IDS.iter().map(|&id| html! { <option value={id} selected={*embed_id == id}>{ id }</option> }) }
                </select>
                <input type="text" readonly=true value={snippet} onfocus={select_all} aria-label="iframe snippet" data-testid="embed-snippet" />
            </label>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_sizes() {
        assert_eq!(
            svg_size("<svg width=\"920\" height=\"506\" viewBox=\"0 0 920 506\">"),
            (920, 506)
        );
        assert_eq!(svg_size("<svg>"), (880, 460));
    }
}
