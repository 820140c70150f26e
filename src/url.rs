//! The scenario in the page's link: read from `#s=<link>` (or `?s=`) on load, written back
//! with `history.replaceState` (no history entries) 300 ms after the last change, so dragging
//! a slider does not hammer the History API (which may throw when called too often).

use fabricscope_model::link::{decode, encode, find_in_url, Decoded};
use fabricscope_model::Scenario;
use gloo_timers::callback::Timeout;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// Debounce of link writes while dragging.
pub const WRITE_DELAY_MS: u32 = 300;

/// The scenario of the current URL, if it carries one.
pub fn read() -> Option<Decoded> {
    let loc = web_sys::window()?.location();
    let (query, hash) = (loc.search().ok()?, loc.hash().ok()?);
    find_in_url(&query, &hash).map(decode)
}

fn write(link: &str) {
    let Some(w) = web_sys::window() else { return };
    let current = w.location().hash().unwrap_or_default();
    let want = format!("#s={link}");
    if current == want {
        return;
    }
    if let Ok(h) = w.history() {
        // A refused write only loses the permalink update; the page keeps working.
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&want));
    }
}

/// Writes `scenario` to the URL after [`WRITE_DELAY_MS`] without a newer change, and returns
/// the scenario as of that write (for the share/export panel, which need not follow a drag
/// frame by frame: its link and exports are side effects, debounced like the URL).
#[hook]
pub fn use_link_writer(scenario: Scenario) -> Scenario {
    let settled = use_state_eq(|| scenario.clone());
    let pending = use_mut_ref(|| None::<Timeout>);
    {
        let settled = settled.clone();
        use_effect_with(scenario, move |s| {
            let s = s.clone();
            // Replacing the timeout drops (cancels) the previous one.
            *pending.borrow_mut() = Some(Timeout::new(WRITE_DELAY_MS, move || {
                write(&encode(&s));
                settled.set(s);
            }));
        });
    }
    (*settled).clone()
}
