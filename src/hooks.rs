//! Hooks that read the browser: a media query that re-renders when it flips (dark mode,
//! narrow screens).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::MediaQueryList;
use yew::prelude::*;

fn media(query: &str) -> Option<MediaQueryList> {
    web_sys::window()?.match_media(query).ok()?
}

/// Whether `query` matches now; the component re-renders on every `change` of it.
#[hook]
pub fn use_media_query(query: &'static str) -> bool {
    let matches = use_state(|| media(query).is_some_and(|m| m.matches()));
    {
        let matches = matches.clone();
        use_effect_with(query, move |q| {
            let mql = media(q);
            let listener = mql.as_ref().map(|m| {
                let list = m.clone();
                let cb = Closure::<dyn Fn()>::new(move || matches.set(list.matches()));
                // A failed subscription only loses live updates; the first value stands.
                let _ = m.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                cb
            });
            move || {
                if let (Some(m), Some(cb)) = (mql, listener) {
                    let _ = m
                        .remove_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    *matches
}
