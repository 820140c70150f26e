//! Learn's fourth part: the glossary (glossary.json), each term a focusable definition that a
//! term elsewhere, or the link's `g=<term>`, opens at.

use super::fetch_text;
use wasm_bindgen_futures::spawn_local;
use yew::prelude::*;

/// A term: id, name, definition, unit.
type Term = (String, String, String, Option<String>);

fn read(text: &str) -> Option<Vec<Term>> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let s = |t: &serde_json::Value, k: &str| t.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Some(v.get("terms")?.as_array()?.iter().filter_map(|t| Some((s(t, "id")?, s(t, "term")?, s(t, "text")?, s(t, "unit")))).collect())
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The term to show and focus (its id), and a number that changes each time it is asked.
    pub focus: Option<(String, u32)>,
}

#[function_component(GlossaryPart)]
pub fn glossary_part(p: &Props) -> Html {
    // None while loading; Some(None) when it could not be loaded.
    let terms = use_state(|| None::<Option<Vec<Term>>>);
    {
        let terms = terms.clone();
        use_effect_with((), move |_| {
            spawn_local(async move {
                terms.set(Some(fetch_text("glossary.json").await.ok().as_deref().and_then(read)));
            });
        });
    }
    let body = use_node_ref();
    {
        let body = body.clone();
        use_effect_with((p.focus.clone(), terms.is_some()), move |(focus, loaded)| {
            if let (Some((id, _)), true, Some(root)) = (focus, *loaded, body.cast::<web_sys::Element>()) {
                let el = root.query_selector(&format!("#g-{id}")).ok().flatten().or_else(|| root.query_selector("dt").ok().flatten());
                if let Some(el) = el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok()) {
                    el.scroll_into_view_with_bool(false);
                    let _ = el.focus();
                }
            }
        });
    }
    let content = match &*terms {
        None => Html::default(),
        Some(None) => html! { { "The glossary could not be loaded (offline before the first visit?)." } },
        Some(Some(list)) => html! { <>
            <p class="hint">{ "The words the page uses, in plain terms, with their units." }</p>
            <dl class="t-gloss">
                { for list.iter().map(|(id, term, text, unit)| html! { <>
                    <dt id={format!("g-{id}")} tabindex="-1">{ term }</dt>
                    <dd>{ format!("{text}{}", unit.as_ref().map_or(String::new(), |u| format!(" Unit: {u}."))) }</dd>
                </> }) }
            </dl>
        </> },
    };
    html! { <div class="t-body" ref={body}>{ content }</div> }
}
