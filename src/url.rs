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

/// The scenario of the current URL, if it carries one, with the notes an import left for
/// this load ([`leave_import_notes`]).
pub fn read() -> Option<Decoded> {
    let loc = web_sys::window()?.location();
    let (query, hash) = (loc.search().ok()?, loc.hash().ok()?);
    let mut d = find_in_url(&query, &hash).map(decode)?;
    d.warnings.extend(take_import_notes().into_iter().map(|n| format!("Imported file: {n}")));
    // The link holds only the plateau of measured runs; an import left them whole.
    // Through a Value, as the link does: no second JSON reader in the bundle.
    let value = take(IMPORT_MEASURED_KEY).and_then(|j| serde_json::from_slice::<serde_json::Value>(j.as_bytes()).ok());
    if let Some(m) = value.and_then(|v| serde_json::from_value(v).ok()) {
        let mut s = d.scenario.clone();
        s.measured = m;
        if s.validate().is_ok() {
            d.scenario = s;
        }
    }
    Some(d)
}

/// Where an import leaves its notes for the page it reloads into (this tab only).
const IMPORT_NOTES_KEY: &str = "fabricscope-import-notes";

fn session_storage(method: &str, args: &[&str]) -> Option<JsValue> {
    crate::designs::storage("sessionStorage", method, args)
}

/// Where an import leaves the file's measured runs whole (the link keeps their plateau).
const IMPORT_MEASURED_KEY: &str = "fabricscope-import-measured";

/// Keeps an import's notes (fields of the file that fell back) and its measured runs for the
/// next load.
pub fn leave_import_notes(notes: &[String], measured: &[fabricscope_model::check::Measured]) {
    // Through a Value, whose serializer the link already uses. Without storage the page still
    // loads the file's scenario, only without the notes.
    let json = fabricscope_model::link::json_text(&serde_json::Value::from(notes.to_vec()));
    let _ = session_storage("setItem", &[IMPORT_NOTES_KEY, &json]);
    if let Ok(v) = serde_json::to_value(measured) {
        let _ = session_storage("setItem", &[IMPORT_MEASURED_KEY, &fabricscope_model::link::json_text(&v)]);
    }
}

/// What an import left under `key`, once: it describes the load right after the import.
fn take(key: &str) -> Option<String> {
    let v = session_storage("getItem", &[key]).and_then(|v| v.as_string());
    if v.is_some() {
        let _ = session_storage("removeItem", &[key]);
    }
    v
}

fn take_import_notes() -> Vec<String> {
    // Read as a Value (whose parser the link already uses), not as a Vec<String>.
    let value = take(IMPORT_NOTES_KEY).and_then(|n| serde_json::from_slice::<serde_json::Value>(n.as_bytes()).ok());
    match value {
        Some(serde_json::Value::Array(a)) => a.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

fn write(link: &str, designs: &str) {
    let Some(w) = web_sys::window() else { return };
    let current = w.location().hash().unwrap_or_default();
    let want = format!("#s={link}{designs}");
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
/// `designs` is the pinned designs' part of the link (`&d=…`, or empty).
#[hook]
pub fn use_link_writer(scenario: Scenario, designs: String) -> Scenario {
    let settled = use_state_eq(|| scenario.clone());
    let pending = use_mut_ref(|| None::<Timeout>);
    {
        let settled = settled.clone();
        use_effect_with((scenario, designs), move |(s, d)| {
            let (s, d) = (s.clone(), d.clone());
            // Replacing the timeout drops (cancels) the previous one.
            *pending.borrow_mut() = Some(Timeout::new(WRITE_DELAY_MS, move || {
                write(&encode(&s), &d);
                settled.set(s);
            }));
        });
    }
    (*settled).clone()
}
