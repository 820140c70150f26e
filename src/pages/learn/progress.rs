//! Lesson progress kept in this browser (localStorage `fabricscope-lessons`): per lesson id,
//! `{"step": k}` (0-based) or `{"step": 0, "done": true}`. A store that cannot be read is
//! reset, entry by entry where the rest reads, with a note saying so.

use serde_json::{Map, Value};

/// Where the progress is kept.
pub const KEY: &str = "fabricscope-lessons";
/// A stored step at or past this is not one of ours.
const MAX_STEP: u64 = 1000;
/// Largest store read, bytes: a few dozen lessons take about 40 bytes each; a store past this
/// (100,000 entries cost 0.4-0.6 s at every save) is not parsed, and is reset with a note.
pub const MAX_STORE_BYTES: usize = 64 * 1024;

thread_local! {
    /// The lessons the page lists (from lessons/index.json): the store keeps only these and
    /// the lesson being saved. Empty until the list is read (then nothing is dropped).
    static KNOWN: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sets the lessons the page knows (the store keeps only their progress).
pub fn set_known(ids: Vec<String>) {
    KNOWN.with(|k| *k.borrow_mut() = ids);
}

/// One lesson's progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub step: usize,
    pub done: bool,
}

/// What was read: the good entries, what to tell the user, and what to write back.
#[derive(Debug, PartialEq)]
pub struct Read {
    pub entries: Map<String, Value>,
    pub notes: Vec<String>,
    /// `Some(None)`: remove the store; `Some(Some(text))`: write the cleaned store.
    pub rewrite: Option<Option<String>>,
}

fn good(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let step_ok = o.get("step").and_then(Value::as_u64).is_some_and(|s| s < MAX_STEP);
    let done_ok = o.get("done").is_none_or(Value::is_boolean);
    step_ok && done_ok
}

/// Reads the stored text (`None`: nothing stored).
pub fn read(raw: Option<&str>) -> Read {
    if let Some(t) = raw.filter(|t| t.len() > MAX_STORE_BYTES) {
        let note = format!("Your saved lesson progress ({} bytes) is over the {MAX_STORE_BYTES} bytes it may take; it was not read and was reset.", t.len());
        return Read { entries: Map::new(), notes: vec![note], rewrite: Some(None) };
    }
    let parsed: Option<Value> = match raw {
        None => Some(Value::Object(Map::new())),
        Some(t) => serde_json::from_str(t).ok(),
    };
    let Some(Value::Object(mut all)) = parsed else {
        return Read { entries: Map::new(), notes: vec!["Your saved lesson progress could not be read and was reset.".into()], rewrite: Some(None) };
    };
    let bad: Vec<String> = all.iter().filter(|(_, v)| !good(v)).map(|(k, _)| k.clone()).collect();
    if bad.is_empty() {
        return Read { entries: all, notes: Vec::new(), rewrite: None };
    }
    for id in &bad {
        all.remove(id);
    }
    let names: Vec<String> = bad.iter().map(|id| format!("“{id}”")).collect();
    let note = format!(
        "Saved progress for {} could not be read; {} again from step 1.",
        names.join(", "),
        if bad.len() > 1 { "those lessons start" } else { "that lesson starts" }
    );
    let text = Value::Object(all.clone()).to_string();
    Read { entries: all, notes: vec![note], rewrite: Some(Some(text)) }
}

/// The progress of lesson `id` in `entries`.
pub fn of(entries: &Map<String, Value>, id: &str) -> Option<Progress> {
    let o = entries.get(id)?.as_object()?;
    Some(Progress { step: o.get("step")?.as_u64()? as usize, done: o.get("done").and_then(Value::as_bool).unwrap_or(false) })
}

/// `entries` with lesson `id` set to `p`, as stored text; only lessons in `known` (and `id`)
/// are kept when `known` is not empty.
pub fn with(mut entries: Map<String, Value>, id: &str, p: Progress, known: &[String]) -> String {
    if !known.is_empty() {
        entries.retain(|k, _| k == id || known.iter().any(|n| n == k));
    }
    let mut o = Map::new();
    o.insert("step".into(), Value::from(p.step as u64));
    if p.done {
        o.insert("done".into(), Value::Bool(true));
    }
    entries.insert(id.to_string(), Value::Object(o));
    Value::Object(entries).to_string()
}

/// The browser's store as it reads now, without writing (for drawing the marks).
pub fn peek() -> Map<String, Value> {
    let raw = crate::plumbing::storage::storage("localStorage", "getItem", &[KEY]).and_then(|v| v.as_string());
    read(raw.as_deref()).entries
}

/// The browser's store, read and cleaned (a refused store reads as empty: progress is then
/// not kept, as in a private window).
pub fn load() -> Read {
    use crate::plumbing::storage::storage;
    let raw = storage("localStorage", "getItem", &[KEY]).and_then(|v| v.as_string());
    let r = read(raw.as_deref());
    match &r.rewrite {
        Some(None) => {
            storage("localStorage", "removeItem", &[KEY]);
        }
        Some(Some(text)) => {
            storage("localStorage", "setItem", &[KEY, text]);
        }
        None => {}
    }
    r
}

/// Saves lesson `id`'s progress (a refused write only loses the saving).
pub fn save(id: &str, p: Progress) {
    let text = KNOWN.with(|k| with(load().entries, id, p, &k.borrow()));
    crate::plumbing::storage::storage("localStorage", "setItem", &[KEY, &text]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_entry_is_reset_alone_and_a_bad_store_whole() {
        let r = read(Some(r#"{"ring-scaling":{"step":"x"},"nvlink-vs-ib":{"step":0,"done":true}}"#));
        assert_eq!(of(&r.entries, "nvlink-vs-ib"), Some(Progress { step: 0, done: true }));
        assert_eq!(of(&r.entries, "ring-scaling"), None);
        assert!(r.notes[0].contains("“ring-scaling” could not be read") && r.notes[0].contains("that lesson starts again from step 1"), "{:?}", r.notes);
        assert_eq!(r.rewrite, Some(Some(r#"{"nvlink-vs-ib":{"done":true,"step":0}}"#.to_string())));
        let r = read(Some("[[["));
        assert!(r.entries.is_empty() && r.notes[0].contains("could not be read and was reset") && r.rewrite == Some(None));
        let r = read(Some(r#"[1]"#));
        assert_eq!(r.rewrite, Some(None));
        // Steps past 999, negative or fractional, and a done that is not a boolean are not ours.
        for bad in [r#"{"a":{"step":1000}}"#, r#"{"a":{"step":-1}}"#, r#"{"a":{"step":1.5}}"#, r#"{"a":{"step":1,"done":"yes"}}"#] {
            assert!(read(Some(bad)).entries.is_empty(), "{bad}");
        }
        let r = read(None);
        assert!(r.entries.is_empty() && r.notes.is_empty() && r.rewrite.is_none());
        let text = with(Map::new(), "a", Progress { step: 2, done: false }, &[]);
        assert_eq!(of(&read(Some(&text)).entries, "a"), Some(Progress { step: 2, done: false }));
    }

    #[test]
    fn the_store_is_bounded_and_keeps_only_known_lessons() {
        // Issue 38: 100,000 entries cost 0.4-0.6 s at every save; over the limit, not parsed.
        let mut big = Map::new();
        for i in 0..100_000 {
            big.insert(format!("junk-{i}"), serde_json::json!({"step": 1}));
        }
        let text = Value::Object(big.clone()).to_string();
        let r = read(Some(&text));
        assert!(r.entries.is_empty() && r.rewrite == Some(None), "{:?}", r.notes);
        assert!(r.notes[0].contains("over the 65536 bytes"), "{:?}", r.notes);
        // A save keeps the known lessons and the one saved, nothing else.
        big.insert("ring-scaling".into(), serde_json::json!({"step": 3}));
        let known = vec!["ring-scaling".to_string(), "nvlink-vs-ib".to_string()];
        let saved = with(big, "my-imported", Progress { step: 1, done: false }, &known);
        let back = read(Some(&saved)).entries;
        assert_eq!(back.keys().cloned().collect::<Vec<_>>(), ["my-imported", "ring-scaling"]);
        assert_eq!(of(&back, "ring-scaling"), Some(Progress { step: 3, done: false }));
    }
}
