//! The scenario in the page's link: read from `#s=<link>` (or `?s=`) on load, written back
//! with `history.replaceState` (no history entries) 300 ms after the last change, so dragging
//! a slider does not hammer the History API (which may throw when called too often).

use fabricscope_model::link::{decode, find_in_url, Decoded};
use gloo_timers::callback::Timeout;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// Debounce of link writes while dragging.
pub const WRITE_DELAY_MS: u32 = 300;

/// The scenario of the current URL, if it carries one, with the notes an import left for
/// this load ([`leave_import_notes`]).
pub fn read() -> Option<Decoded> {
    let mut d = decode(&link()?);
    d.warnings.extend(take_import_notes().into_iter().map(|n| format!("Imported file: {n}")));
    Some(d)
}

/// The link (`s=`) in the page's URL, if any.
pub fn link() -> Option<String> {
    let loc = web_sys::window()?.location();
    let (query, hash) = (loc.search().ok()?, loc.hash().ok()?);
    find_in_url(&query, &hash).map(str::to_string)
}

/// A link parameter of the page's URL fragment (`cal=` from `#s=...&cal=...`), as written.
pub fn fragment_param(key: &str) -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    fabricscope_model::link::find_param("", hash.trim_start_matches('#'), key).map(str::to_string)
}

/// Where an import leaves its notes for the page it reloads into (this tab only).
const IMPORT_NOTES_KEY: &str = "fabricscope-import-notes";

fn session_storage(method: &str, args: &[&str]) -> Option<JsValue> {
    crate::plumbing::storage::storage("sessionStorage", method, args)
}

/// Keeps an import's notes (fields of the file that fell back) for the next load.
pub fn leave_import_notes(notes: &[String]) {
    // Through a Value, whose serializer the link already uses. Without storage the page still
    // loads the file's scenario, only without the notes.
    let json = fabricscope_model::link::json_text(&serde_json::Value::from(notes.to_vec()));
    let _ = session_storage("setItem", &[IMPORT_NOTES_KEY, &json]);
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

/// Writes `#s=<link>` after `page`, the page's file name relative to `<base href="./">`:
/// empty for the explorer, "check.html" for check.html (a bare "#s=" resolves against the
/// base, which drops the file name).
fn write(page: &str, link: &str, designs: &str) {
    let Some(w) = web_sys::window() else { return };
    let current = w.location().hash().unwrap_or_default();
    let want = format!("#s={link}{designs}");
    if current == want {
        return;
    }
    if let Ok(h) = w.history() {
        // A refused write only loses the permalink update; the page keeps working.
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&(page.to_string() + &want)));
    }
}

/// Writes `scenario` to the URL of `page` (see [`write`]; as `link` makes it:
/// `fabricscope_model::link::encode` in the explorer) after [`WRITE_DELAY_MS`] without a newer
/// change, and returns the scenario as of that write (for the share/export panel, which need
/// not follow a drag frame by frame: its link and exports are side effects, debounced like the
/// URL). `designs` is the pinned designs' part of the link (`&d=…`, or empty).
#[hook]
pub fn use_link_writer<T: Clone + PartialEq + 'static>(scenario: T, page: &'static str, link: fn(&T) -> String, designs: String) -> T {
    let settled = use_state_eq(|| scenario.clone());
    let pending = use_mut_ref(|| None::<Timeout>);
    {
        let settled = settled.clone();
        use_effect_with((scenario, designs), move |(s, d)| {
            let (s, d) = (s.clone(), d.clone());
            // Replacing the timeout drops (cancels) the previous one.
            *pending.borrow_mut() = Some(Timeout::new(WRITE_DELAY_MS, move || {
                write(page, &link(&s), &d);
                settled.set(s);
            }));
        });
    }
    (*settled).clone()
}
