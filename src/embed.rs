//! `?embed=<chart>`: one chart of the scenario in the link (`s=<link>` in the fragment or the
//! query), filling its iframe, with a one-line footer stating the scenario and linking back
//! to the full explorer. [`mount_if_embed`] picks this mode from the page URL.

use crate::hooks::use_media_query;
use fabricscope_charts::report::{render_chart, CHART_IDS};
use fabricscope_charts::Theme;
use fabricscope_model::link::{decode, encode, find_in_url};
use fabricscope_model::{evaluate, Scenario};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Footer height in CSS pixels (assets/embed.css keeps it to one line).
const FOOT_PX: u32 = 22;

/// What an embed URL asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbedRequest {
    /// Chart id (`busbw`, `hierarchy`, `topology`), as written in the URL.
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
fn url_parts(url: &str) -> (&str, &str) {
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    (query, fragment)
}

/// Mounts the embed view into `root` when the page URL asks for one; `false` otherwise.
pub fn mount_if_embed(root: &web_sys::Element) -> bool {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
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
    let (width, height) = viewport();
    yew::Renderer::<Embed>::with_root_and_props(root.clone(), EmbedProps { req, width, height })
        .render();
    true
}

/// The window's inner size in CSS pixels ((0, 0) when unknown).
fn viewport() -> (u32, u32) {
    web_sys::window()
        .map(|w| {
            let px = |v: Result<wasm_bindgen::JsValue, _>| {
                v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0) as u32
            };
            (px(w.inner_width()), px(w.inner_height()))
        })
        .unwrap_or((0, 0))
}

/// The viewport size, updated on `resize` (an iframe resized by its page redraws the chart
/// for its new shape instead of letterboxing the old one).
#[hook]
fn use_viewport(initial: (u32, u32)) -> (u32, u32) {
    let size = use_state(|| initial);
    {
        let size = size.clone();
        use_effect_with((), move |_| {
            let cb = Closure::<dyn Fn()>::new(move || size.set(viewport()));
            let win = web_sys::window();
            if let Some(w) = &win {
                // Without the listener the chart still scales with its viewBox.
                let _ = w.add_event_listener_with_callback("resize", cb.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = win {
                    let _ = w
                        .remove_event_listener_with_callback("resize", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    *size
}

#[derive(Properties, PartialEq)]
pub struct EmbedProps {
    pub req: EmbedRequest,
    /// Viewport size in CSS pixels (0 = the chart's default size).
    pub width: u32,
    pub height: u32,
}

#[component]
pub fn Embed(props: &EmbedProps) -> Html {
    let dark = use_media_query("(prefers-color-scheme: dark)");
    let (width, height) = use_viewport((props.width, props.height));
    let req = &props.req;
    let back = format!("./#s={}", encode(&req.scenario));
    let open = html! {
        <a href={back} target="_blank" rel="noopener" data-testid="embed-open">{ "Open in Fabricscope ↗" }</a>
    };
    let mut failed = true;
    let body = match evaluate(&req.scenario) {
        Err(e) => html! {
            <p class="embed-note" role="alert">{ format!("This scenario cannot be evaluated: {e}") }</p>
        },
        Ok(report) => {
            // Leave room for the padding and the footer; the SVG's viewBox scales on resize.
            let (w, h) = (
                width.saturating_sub(12),
                height.saturating_sub(FOOT_PX + 10),
            );
            match render_chart(
                &req.chart,
                &req.scenario,
                &report,
                &Theme::for_dark(dark),
                w,
                h,
                false,
            ) {
                None => html! {
                    <p class="embed-note" role="alert">
                        { format!("No chart \"{}\" to embed; choose one of: {}.", req.chart, CHART_IDS.join(", ")) }
                    </p>
                },
                Some(chart) => {
                    failed = false;
                    html! {
                    <>
                        <div class="embed-chart" data-testid="embed-chart" data-chart={chart.id}>
                            { Html::from_html_unchecked(AttrValue::from(chart.svg)) }
                        </div>
                        <div class="embed-foot">
                            <span class="embed-caption" title={chart.caption.clone()}>{ format!("{} · {}", chart.title, chart.caption) }</span>
                            { open.clone() }
                        </div>
                    </>
                    }
                }
            }
        }
    };
    html! {
        <div class="embed" data-testid="embed">
            if !req.warnings.is_empty() {
                <p class="embed-note" role="status" data-testid="embed-warnings">
                    { format!("Parts of this link could not be read and use defaults: {}", req.warnings.join("; ")) }
                </p>
            }
            { body }
            if failed {
                <div class="embed-foot">{ open }</div>
            }
        </div>
    }
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
}
