//! Scenario <-> permalink: a short, versioned, URL-safe string, and a decoder that never
//! panics and says which fields of a damaged link fell back to defaults.
//!
//! # Format (version 1)
//!
//! `v1.` followed by the unpadded base64url of a flat JSON object that holds only the fields
//! that differ from a **frozen baseline** (the default scenario of the day v1 was defined),
//! under short keys: `{"n":64,"g":"b200"}` -> `v1.eyJnIjoiYjIwMCIsIm4iOjY0fQ`. The default
//! scenario is `v1.e30` (six bytes).
//!
//! Why this shape:
//! * compact: a link carries only what the user changed, with 1-2 letter keys;
//! * stable: the baseline is a constant here, not `Scenario::default()`, so changing the
//!   app's defaults never changes what an old link means; the short-key table only grows;
//! * growable without touching this file: a field added to the Scenario later (with a serde
//!   default) is written under its dotted path (`workload.layers`) when it differs from the
//!   default, and an older build reading such a link ignores it with a message;
//! * versioned: the `v<N>.` prefix picks the decoder; [`migrate`] turns an older version's
//!   entries into the current one's. Version 0 is the plain JSON Scenario (the file format of
//!   `fabricscope eval`), raw or percent-encoded, so a pasted JSON file works as a link too;
//! * robust: each entry is applied and checked on its own, so one bad field costs only that
//!   field, and the result is held to the same ranges as files and CLI flags
//!   ([`Scenario::validate`]): a field out of range falls back with a message. Input longer
//!   than [`MAX_LINK_BYTES`] is refused before any parsing.
//!
//! A scenario *file* (the explorer's export, `fabricscope eval`'s input) is read by
//! [`decode_file`] with the same field-by-field forgiveness but its own size limit and
//! messages: a file is not a link.
//!
//! base64url of JSON rather than a bespoke binary: the binary form would be ~3x shorter for a
//! heavily edited scenario (~30 vs ~100 bytes) but would need a hand-written codec per field,
//! kept in step with every Scenario change by whoever adds a field; JSON reuses the serde
//! schema (and its error messages naming the field).

use crate::error::{printable, MAX_QUOTED_CHARS};
use crate::scenario::{scenario_path, Scenario, SCENARIO_VERSION};
use serde_json::{Map, Value};

/// The link format this build writes.
pub const LINK_VERSION: u32 = 1;

/// Links longer than this are refused before parsing (a URL of 8 KiB is already unusual).
pub const MAX_LINK_BYTES: usize = 8 * 1024;

/// Scenario files larger than this are refused before parsing: an exported scenario is under
/// 1 KiB pretty-printed, so 1 MiB leaves room for any hand-edited file and bounds the work.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// What a file must be, for messages.
const FILE_EXPECTED: &str = "expected JSON, the object the explorer's \"Download scenario (JSON)\" button saves";

/// The default scenario as it was when link format 1 was defined. Never edit: links omit
/// fields equal to these values, so changing one would change what old links mean.
const BASELINE_V1: &str = r#"{"cluster":{"gpu":"h100","nodes":4,"gpus_per_node":8,"scale_up":"nvlink4","nics_per_node":8,"nic":"ib-ndr","sharp":false,"nvls":true,"leaf_switches":null,"spine_switches":null,"switch_radix":null,"rail_optimized":true,"cpu":"intel","nccl":"2.27.5"},"view":{"ops":["all_reduce","all_gather","reduce_scatter","all_to_all"],"min_bytes":8,"max_bytes":17179869184}}"#;

/// Short keys of format 1: (short, dotted path). Only ever add rows; never change or reuse one.
/// Short keys contain no '.', dotted paths do (the top-level `measured` aside, whose short key is `m`).
const SHORT_KEYS: &[(&str, &str)] = &[
    ("g", "cluster.gpu"),
    ("n", "cluster.nodes"),
    ("p", "cluster.gpus_per_node"),
    ("u", "cluster.scale_up"),
    ("k", "cluster.nics_per_node"),
    ("i", "cluster.nic"),
    ("sh", "cluster.sharp"),
    ("nv", "cluster.nvls"),
    ("l", "cluster.leaf_switches"),
    ("s", "cluster.spine_switches"),
    ("r", "cluster.switch_radix"),
    ("ro", "cluster.rail_optimized"),
    ("c", "cluster.cpu"),
    ("v", "cluster.nccl"),
    ("o", "view.ops"),
    ("lo", "view.min_bytes"),
    ("hi", "view.max_bytes"),
    // Added with the training choice in the scenario (still format 1: absent means default).
    ("op", "view.selected_op"),
    ("ab", "view.algbw"),
    ("w", "training.workload"),
    ("b", "training.best"),
    ("t", "training.tp"),
    ("pp", "training.pp"),
    ("cp", "training.cp"),
    ("ep", "training.ep"),
    // Added with the micro-batch, recompute and ZeRO pickers.
    ("mb", "training.micro_batch"),
    ("rc", "training.recompute"),
    ("z", "training.zero"),
    // Added with per-tier oversubscription of the fat tree.
    ("ov", "cluster.oversubscription"),
    ("oc", "cluster.core_oversubscription"),
    // Added with the throughput chart's axis, size range and headline size.
    ("ya", "view.y_axis"),
    ("sz", "view.sizes"),
    ("kb", "view.key_bytes"),
    // Added with checking a real cluster (its plateau points only; see `encode`).
    ("m", "measured"),
    // Added with the framework and virtual-stage pickers.
    ("fw", "training.framework"),
    ("vp", "training.interleave"),
];

/// What a link decoded to, and what could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub scenario: Scenario,
    /// One message per field (or the whole link) that fell back to its default, naming it.
    pub warnings: Vec<String>,
}

impl Decoded {
    fn fallback(warning: String) -> Decoded {
        Decoded::of(Scenario::default(), vec![warning])
    }

    fn of(scenario: Scenario, warnings: Vec<String>) -> Decoded {
        Decoded { scenario, warnings }
    }
}

/// A value as compact JSON text. Everything in the bundle writes JSON through this one
/// serializer (not `Value`'s Display, which carries a second, pretty one: ~1 KB of wasm).
pub fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Compact JSON (as [`json_text`] writes it) laid out with two-space indents, one member per
/// line, for files people read. Strings are copied as they are, escapes included.
pub fn indent_json(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // Empty objects and arrays stay on one line.
                if matches!(chars.peek(), Some('}') | Some(']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

/// The permalink of a scenario (with measured runs: `fabricscope_check::link_of`).
pub fn encode(s: &Scenario) -> String {
    encode_value(serde_json::to_value(s).unwrap_or(Value::Null))
}

/// The permalink of `s` with `measured` (runs as JSON) under its short key.
pub fn encode_with(s: &Scenario, measured: Value) -> String {
    let mut value = serde_json::to_value(s).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut value {
        o.insert("measured".into(), measured);
    }
    encode_value(value)
}

/// The permalink of a scenario as JSON.
fn encode_value(value: Value) -> String {
    let base = baseline();
    let mut flat = Map::new();
    diff(&base, &value, "", &mut flat);
    // Sorted keys whatever serde_json's map order (its `preserve_order` feature would change
    // it), so the same scenario always gives the same link.
    // (A no-op for the default BTreeMap; re-collecting into a map would pull in std's
    // stable sort, ~3 KB of wasm.)
    flat.sort_keys();
    let json = json_text(&Value::Object(flat));
    format!("v{LINK_VERSION}.{}", base64url_encode(json.as_bytes()))
}

/// Reads a link. Never panics: whatever cannot be used falls back to the default, with a
/// message naming what fell back.
pub fn decode(link: &str) -> Decoded {
    if link.len() > MAX_LINK_BYTES {
        return Decoded::fallback(format!(
            "link: {} bytes is longer than the {MAX_LINK_BYTES} allowed; showing the default scenario",
            link.len()
        ));
    }
    let link = link.trim();
    // Version 0: a plain JSON Scenario, pasted raw or percent-encoded.
    if link.starts_with('{') || link.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("%7b")) {
        let text = if link.starts_with('{') {
            link.to_string()
        } else {
            percent_decode(link)
        };
        return match serde_json::from_slice::<Value>(text.as_bytes()) {
            Ok(Value::Object(m)) => apply(migrate(0, Entries::Nested(m))),
            Ok(_) => Decoded::fallback(
                "link: the JSON is not an object; showing the default scenario".into(),
            ),
            Err(e) => Decoded::fallback(format!(
                "link: not valid JSON ({e}); showing the default scenario"
            )),
        };
    }
    let Some((version, payload)) = split_version(link) else {
        return Decoded::fallback(
            "link: not a Fabricscope link (expected v1.<data>); showing the default scenario"
                .into(),
        );
    };
    let mut notes = Vec::new();
    if version > LINK_VERSION {
        notes.push(format!(
            "link: format v{version} is newer than this build reads (up to v{LINK_VERSION}); using the fields it knows"
        ));
    }
    let Some(bytes) = base64url_decode(payload) else {
        notes.push("link: the data after the version is damaged (not base64url); showing the default scenario".into());
        return Decoded::of(Scenario::default(), notes);
    };
    let map = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            notes.push("link: the data is not a JSON object; showing the default scenario".into());
            return Decoded::of(Scenario::default(), notes);
        }
        Err(e) => {
            notes.push(format!(
                "link: the data is damaged ({e}); showing the default scenario"
            ));
            return Decoded::of(Scenario::default(), notes);
        }
    };
    let mut out = apply(migrate(version.min(LINK_VERSION), Entries::Flat(map)));
    notes.append(&mut out.warnings);
    out.warnings = notes;
    out
}

/// The text of a scenario file's bytes: at most [`MAX_FILE_BYTES`], UTF-8, with any leading
/// byte-order mark dropped. Every reader of scenario files (CLI, page) goes through it.
pub fn file_text(bytes: &[u8]) -> Result<&str, String> {
    check_file_size(bytes.len() as u64)?;
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not a scenario file ({FILE_EXPECTED}): the bytes are not UTF-8 text ({e})"))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// Refuses a file of `len` bytes over [`MAX_FILE_BYTES`] (before reading it, where the size is
/// known first).
pub fn check_file_size(len: u64) -> Result<(), String> {
    if len > MAX_FILE_BYTES as u64 {
        return Err(format!("not a scenario file: {len} bytes is more than the {MAX_FILE_BYTES} (1 MiB) a scenario file may have"));
    }
    Ok(())
}

/// Reads a scenario file (the JSON the explorer exports). `Err` when the text is not a
/// scenario at all (too large, not JSON, not an object), with a message saying so; otherwise
/// the scenario, with a note naming each field that fell back to its default (unknown names,
/// values of the wrong type or out of range, another version) and what it fell back to.
pub fn decode_file(text: &str) -> Result<Decoded, String> {
    let text = file_text(text.as_bytes())?;
    // from_slice, as links are read: one JSON parser in the bundle, not two.
    match serde_json::from_slice::<Value>(text.as_bytes()) {
        Ok(Value::Object(m)) => Ok(apply(migrate(0, Entries::Nested(m)))),
        Ok(_) => Err(format!("not a scenario file ({FILE_EXPECTED}; this JSON is not an object)")),
        Err(e) => Err(format!("not a scenario file ({FILE_EXPECTED}; {})", printable(&e.to_string(), MAX_QUOTED_CHARS))),
    }
}

/// A scenario file refused by [`read_file`]: the field at fault (`cluster.nodes`; empty when
/// the file as a whole is not a scenario) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.field.as_str() {
            "" => f.write_str(&self.message),
            field => write!(f, "{field}: {}", self.message),
        }
    }
}

/// Reads a scenario file strictly, as `fabricscope eval` does and the explorer's import does
/// (one reader, so the page refuses exactly what the CLI refuses): any field this build does
/// not know, of the wrong type or out of range is an error naming the field, never a fallback
/// to the default. Returns the scenario (with its prices, kept as given) and its measured
/// runs, unread (the CLI and check.html read them with `fabricscope_check::runs_of`).
pub fn read_file(text: &str) -> Result<(Scenario, Option<Value>), FileError> {
    let whole = |message: String| FileError { field: String::new(), message };
    let text = file_text(text.as_bytes()).map_err(whole)?;
    let mut value = match serde_json::from_slice::<Value>(text.as_bytes()) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(whole(format!("not a scenario file ({FILE_EXPECTED}; this JSON is not an object)"))),
        Err(e) => return Err(whole(format!("not valid JSON: {}", strip_position(&e.to_string())))),
    };
    let measured = value.as_object_mut().and_then(|o| o.remove("measured"));
    let prices = value.as_object_mut().and_then(|o| o.remove("prices")).unwrap_or_default();
    let err = match serde_json::from_value::<Scenario>(value) {
        Ok(mut s) => {
            s.prices = prices;
            return match s.validate() {
                Ok(()) => Ok((s, measured)),
                Err(e) => Err(FileError { field: scenario_path(e.field).unwrap_or_else(|| e.field.to_string()), message: e.message }),
            };
        }
        Err(e) => e,
    };
    // The forgiving decoder applies fields one by one and names the first that fails.
    let decoded = decode_file(text).unwrap_or_else(|_| Decoded::of(Scenario::default(), Vec::new()));
    if let Some((field, msg)) = decoded.warnings.iter().filter(|w| !w.starts_with("link: ")).find_map(|w| w.split_once(": ")) {
        let msg = msg.split_once("; kept the default").map_or(msg, |(m, _)| m);
        // serde's own message lists the allowed names of an unknown field.
        let message = if msg == "not a field this build knows; ignored" { strip_position(&err.to_string()) } else { msg.to_string() };
        return Err(FileError { field: field.to_string(), message });
    }
    Err(whole(strip_position(&err.to_string())))
}

/// serde_json's message without its " at line L column C" (a file is short; the field is named).
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Finds a link in the parts of a page URL: `s=<link>` in the fragment (`#s=v1.e30`) or the
/// query (`?embed=busbw&s=v1.e30`), the fragment winning. Either part may keep its leading
/// `#` or `?`. `None` when neither has one.
pub fn find_in_url<'a>(query: &'a str, fragment: &'a str) -> Option<&'a str> {
    find_param(query, fragment, "s=")
}

/// The value of `key` (with its `=`, e.g. `d=`) in a page URL's fragment or query, the
/// fragment winning; `None` when neither has a non-empty one.
pub fn find_param<'a>(query: &'a str, fragment: &'a str, key: &str) -> Option<&'a str> {
    [
        fragment.trim_start_matches('#'),
        query.trim_start_matches('?'),
    ]
    .into_iter()
    .flat_map(|part| part.split('&'))
    .find_map(|kv| kv.strip_prefix(key))
    .filter(|v| !v.is_empty())
}

/// The entries of a link before they are applied: format 0's nested Scenario object, or the
/// flat short-key object of format 1.
#[derive(Debug)]
pub enum Entries {
    Nested(Map<String, Value>),
    Flat(Map<String, Value>),
}

/// The iframe snippet a user copies to embed chart `id` of a scenario `link` (text for another
/// page's source, like a CSV row, not markup of ours): embed.html, whose wasm is the chart
/// renderer alone, or compare.html for a comparison. `base` may name a page of the site's folder.
pub fn embed_snippet(base: &str, id: &str, link: &str) -> String {
    let page = if id.starts_with("compare-") { "compare" } else { "embed" };
    let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
    format!("<iframe src=\"{dir}{page}.html?embed={id}#s={link}\" title=\"Fabricscope chart\" style=\"width: 100%; aspect-ratio: 16 / 9; border: 0\"></iframe>")
}

/// Brings a link's entries from format `version` to the current one: a list of
/// (dotted path, value) plus messages about entries that have no place any more.
///
/// * 0 -> 1: flatten the nested Scenario along the baseline's shape (objects recurse, any
///   other value is one entry); `version` is dropped (the result is always current).
/// * 1: expand short keys to dotted paths.
///
/// When format 2 arrives: add a step that rewrites format 1's entries (rename a path,
/// convert a unit) and keep the format-1 fixtures in `tests/link_fixtures.rs` passing.
pub fn migrate(version: u32, entries: Entries) -> (Vec<(String, Value)>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    match (version, entries) {
        (_, Entries::Nested(mut m)) => {
            if let Some(v) = m.remove("version") {
                match v.as_u64() {
                    Some(v) if v <= SCENARIO_VERSION as u64 => {}
                    _ => notes.push(format!(
                        "version: scenario version {} is not one this build reads (up to {SCENARIO_VERSION}); reading the fields it knows",
                        short_error(&json_text(&v))
                    )),
                }
            }
            flatten(&baseline(), &Value::Object(m), "", &mut out);
        }
        (_, Entries::Flat(m)) => {
            for (k, v) in m {
                let path = SHORT_KEYS
                    .iter()
                    .find(|(s, _)| *s == k)
                    .map(|(_, p)| p.to_string())
                    .unwrap_or(k);
                out.push((path, v));
            }
        }
    }
    (out, notes)
}

/// Applies entries one at a time onto the baseline, keeping each only if the scenario still
/// deserialises with it.
fn apply((entries, mut warnings): (Vec<(String, Value)>, Vec<String>)) -> Decoded {
    let mut current = baseline();
    let mut prices = Value::Null;
    for (path, value) in entries {
        // Measured runs are read apart ([`measured_in_link`], [`measured_in_file`]), by
        // check.html and the CLI only: the explorer's wasm carries no code for them.
        if path == "version" || path == "measured" {
            continue;
        }
        // Kept as given; read where a bill of materials is made (Scenario::prices).
        if path == "prices" {
            prices = value;
            continue;
        }
        let mut next = current.clone();
        let Some(slot) = slot_mut(&mut next, &path) else {
            warnings.push(format!(
                "{}: not a field this build knows; ignored",
                short_error(&path)
            ));
            continue;
        };
        *slot = value;
        match serde_json::from_value::<Scenario>(next.clone()) {
            Ok(_) => current = next,
            Err(e) => {
                let default = slot_mut(&mut current, &path)
                    .map(|v| json_text(v))
                    .unwrap_or_default();
                warnings.push(format!(
                    "{}: {}; kept the default ({default})",
                    short_error(&path),
                    short_error(&e.to_string())
                ));
            }
        }
    }
    let scenario = match serde_json::from_value::<Scenario>(current) {
        Ok(mut s) => {
            s.version = SCENARIO_VERSION;
            Scenario { prices, ..within_ranges(s, &mut warnings) }
        }
        Err(e) => {
            warnings.push(format!("link: {}; showing the default scenario", short_error(&e.to_string())));
            Scenario::default()
        }
    };
    Decoded::of(scenario, warnings)
}

/// The measured runs (`m`) a `v1.` link holds, unread (`fabricscope_check::runs_of` reads them).
pub fn measured_in_link(link: &str) -> Option<Value> {
    let (version, payload) = split_version(link.trim())?;
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&base64url_decode(payload)?) else { return None };
    migrate(version.min(LINK_VERSION), Entries::Flat(map)).0.into_iter().find(|(p, _)| p == "measured").map(|(_, v)| v)
}

/// The measured runs a scenario file holds, unread (`fabricscope_check::runs_of` reads them).
pub fn measured_in_file(text: &str) -> Option<Value> {
    let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(file_text(text.as_bytes()).ok()?.as_bytes()) else { return None };
    map.remove("measured")
}

/// Holds a decoded scenario to the ranges files and flags are held to: each field out of
/// range (or out of step with another, like a sweep whose smallest size passes its largest)
/// goes back to the baseline's value, with a note, until the scenario validates.
fn within_ranges(mut s: Scenario, warnings: &mut Vec<String>) -> Scenario {
    let base = baseline();
    // Each round restores one field, so a round per field is enough.
    for _ in 0..64 {
        let Err(e) = s.validate() else { return s };
        // A sweep whose smallest size passes its largest: when the smallest is already the
        // default, the largest is the one to restore.
        let paths = [scenario_path(e.field), (e.field == "min_bytes").then(|| "view.max_bytes".to_string())];
        let restored = paths.into_iter().flatten().find_map(|p| {
            let mut v = serde_json::to_value(&s).ok()?;
            let default = slot_of(&base, &p)?.clone();
            let slot = slot_mut(&mut v, &p)?;
            if *slot == default {
                return None;
            }
            *slot = default.clone();
            Some((serde_json::from_value::<Scenario>(v).ok()?, p, default))
        });
        match restored {
            Some((next, path, default)) => {
                warnings.push(format!("{path}: {}; kept the default ({})", short_error(&e.message), json_text(&default)));
                s = next;
            }
            None => break,
        }
    }
    match s.validate() {
        Ok(()) => s,
        Err(e) => {
            warnings.push(format!("link: {}: {}; showing the default scenario", e.field, short_error(&e.message)));
            Scenario::default()
        }
    }
}

/// Today's default scenario with the frozen format-1 baseline laid over it: fields that
/// existed in v1 take their v1 default, fields added since take the current default.
/// Fields a scenario writes only when set (`skip_serializing_if`), with their default: the
/// baseline holds them so a link that sets them has a slot to apply to.
/// A build without the `calibrate` feature does not know `cluster.calibration` (its link then
/// says the field was not read).
#[cfg(any(test, feature = "calibrate"))]
const WRITTEN_WHEN_SET: &[(&str, &str)] = &[("training", "framework"), ("training", "interleave"), ("cluster", "calibration"), ("cluster", "power_cap_w")];
#[cfg(not(any(test, feature = "calibrate")))]
const WRITTEN_WHEN_SET: &[(&str, &str)] = &[("training", "framework"), ("training", "interleave"), ("cluster", "power_cap_w")];

fn baseline() -> Value {
    thread_local! {
        // Built once per thread: it checks every v1 field by deserializing a whole Scenario
        // (milliseconds in wasm, on every link the page writes).
        static BASELINE: Value = build_baseline();
    }
    BASELINE.with(Value::clone)
}

fn build_baseline() -> Value {
    let mut base = serde_json::to_value(Scenario::default()).unwrap_or(Value::Null);
    let full = serde_json::to_value(crate::scenario::TrainingChoice::default()).ok();
    for (section, field) in WRITTEN_WHEN_SET {
        let default = match field {
            &"framework" => Value::from(crate::scenario::DEFAULT_FRAMEWORK),
            _ => full.as_ref().and_then(|f| f.get(*field)).cloned().unwrap_or(Value::Null),
        };
        if let Some(Value::Object(o)) = base.get_mut(*section) {
            o.entry(field.to_string()).or_insert(default);
        }
    }
    if let Ok(v1) = serde_json::from_slice::<Value>(BASELINE_V1.as_bytes()) {
        let mut leaves = Vec::new();
        flatten(&base, &v1, "", &mut leaves);
        for (path, value) in leaves {
            let mut next = base.clone();
            if let Some(slot) = slot_mut(&mut next, &path) {
                *slot = value;
                if serde_json::from_value::<Scenario>(next.clone()).is_ok() {
                    base = next;
                }
            }
        }
    }
    base
}

/// The leaves of `v` along the shape of `shape`: where both are objects, recurse; anything
/// else (numbers, strings, arrays, null, or an object where `shape` has none) is one leaf.
fn flatten(shape: &Value, v: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    match (shape, v) {
        (Value::Object(s), Value::Object(m)) => {
            for (k, val) in m {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                match s.get(k) {
                    Some(sub) => flatten(sub, val, &path, out),
                    None => out.push((path, val.clone())),
                }
            }
        }
        _ => out.push((prefix.to_string(), v.clone())),
    }
}

/// The entries of `v` that differ from `base`, under short keys where there is one.
fn diff(base: &Value, v: &Value, prefix: &str, out: &mut Map<String, Value>) {
    match (base, v) {
        (Value::Object(b), Value::Object(m)) => {
            for (k, val) in m {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if path == "version" {
                    continue;
                }
                match b.get(k) {
                    Some(sub) => diff(sub, val, &path, out),
                    None => {
                        out.insert(short_key(&path), val.clone());
                    }
                }
            }
        }
        _ if base == v => {}
        _ => {
            out.insert(short_key(prefix), v.clone());
        }
    }
}

fn short_key(path: &str) -> String {
    SHORT_KEYS
        .iter()
        .find(|(_, p)| *p == path)
        .map(|(s, _)| s.to_string())
        .unwrap_or_else(|| path.to_string())
}

/// The value at a dotted path, if every step exists.
fn slot_of<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |cur, key| cur.as_object()?.get(key))
}

/// The value at a dotted path, if every step exists.
fn slot_mut<'a>(v: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    if path.is_empty() {
        return None;
    }
    path.split('.')
        .try_fold(v, |cur, key| cur.as_object_mut()?.get_mut(key))
}

/// Bounds and escapes text that may come from a hostile link before it goes into a message.
fn short_error(e: &str) -> String {
    printable(e, MAX_QUOTED_CHARS)
}

/// `v<digits>.<payload>`.
fn split_version(link: &str) -> Option<(u32, &str)> {
    let rest = link.strip_prefix('v').or_else(|| link.strip_prefix('V'))?;
    let (num, payload) = rest.split_once('.')?;
    if num.is_empty() || num.len() > 6 || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((num.parse().ok()?, payload))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// RFC 4648 §5 base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url (also accepting the standard alphabet's `+` and `/`, and padding).
/// `None` on any other character or an impossible length.
pub fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `%XX` escapes to bytes, then UTF-8 (lossy). Malformed escapes stay as they are.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(h) = hex {
                out.push(h);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_snippets_name_the_page_that_draws_the_chart() {
        assert_eq!(
            embed_snippet("https://x.org/tools/fabricscope/", "busbw", "v1.e30"),
            "<iframe src=\"https://x.org/tools/fabricscope/embed.html?embed=busbw#s=v1.e30\" title=\"Fabricscope chart\" style=\"width: 100%; aspect-ratio: 16 / 9; border: 0\"></iframe>"
        );
        // From compare.html (its own address as the base), a comparison: compare.html once.
        assert!(embed_snippet("https://x.org/f/compare.html", "compare-busbw", "v1.e30").starts_with("<iframe src=\"https://x.org/f/compare.html?embed=compare-busbw#s=v1.e30\""));
    }

    #[test]
    fn baseline_is_todays_default() {
        // If this fails, the app's default changed: that is fine, but BASELINE_V1 must NOT be
        // edited (old links depend on it); adjust this test to the fields that moved.
        let v1: Scenario = serde_json::from_str(BASELINE_V1).expect("baseline parses");
        assert_eq!(v1, Scenario::default());
        assert_eq!(encode(&Scenario::default()), "v1.e30");
    }

    /// The explorer's import and the CLI read files with one strict reader: what either refuses,
    /// both refuse, naming the field (issue 20: a refused file used to load the default).
    #[test]
    fn the_strict_file_reader_refuses_and_names_the_field() {
        let err = |t: &str| read_file(t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err(r#"{"cluster":{"nodes":8,"gpu":"h900"}}"#).starts_with("cluster.gpu: unknown variant `h900`"), "{}", err(r#"{"cluster":{"gpu":"h900"}}"#));
        assert!(err(r#"{"cluster":{"nodes":-4}}"#).starts_with("cluster.nodes: invalid value: integer `-4`"));
        assert!(err(r#"{"cluster":{"nodes":8},"zz":1}"#).contains("unknown field `zz`"));
        assert!(err(r#"{"cluster":{"nodes":100000}}"#).starts_with("cluster.nodes: "), "{}", err(r#"{"cluster":{"nodes":100000}}"#));
        assert!(err("[1]").starts_with("not a scenario file"));
        assert!(err("nodes: 4").starts_with("not valid JSON"));
        let (s, _) = read_file(r#"{"cluster":{"nodes":2}}"#).expect("a valid file");
        assert_eq!(s.cluster.nodes, 2);
        assert_eq!(encode(&s), "v1.eyJuIjoyfQ");
    }

    #[test]
    fn short_keys_are_unique_and_real() {
        let base = baseline();
        for (i, (s, p)) in SHORT_KEYS.iter().enumerate() {
            assert!(!s.contains('.') && (p.contains('.') || *p == "measured"));
            assert!(
                SHORT_KEYS[i + 1..]
                    .iter()
                    .all(|(s2, p2)| s2 != s && p2 != p),
                "{s} {p}"
            );
            // `measured` is read apart from the rest (fabricscope_check::runs_of).
            let mut b = base.clone();
            assert!(*p == "measured" || slot_mut(&mut b, p).is_some(), "{p} is a scenario field");
        }
    }

    #[test]
    fn indented_json_reads_back_as_the_same_value() {
        let v: Value = serde_json::from_str(r#"{"a":{"b":[1,2,{"c":"x,{y}: \\\"z\\\""}],"e":[],"f":{}},"g":-1.5e3,"h":null}"#).unwrap();
        let pretty = indent_json(&json_text(&v));
        assert_eq!(serde_json::from_str::<Value>(&pretty).unwrap(), v);
        // Laid out as serde_json's own pretty printer lays it out.
        assert_eq!(pretty, serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn base64url_round_trips() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
            let e = base64url_encode(&bytes);
            assert!(e
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
            assert_eq!(base64url_decode(&e), Some(bytes));
        }
        assert_eq!(base64url_encode(b"{}"), "e30");
        assert_eq!(base64url_decode("e30="), Some(b"{}".to_vec()));
        assert_eq!(base64url_decode("e"), None);
        assert_eq!(base64url_decode("e3!0"), None);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("%7B%22a%22%3A1%7D"), "{\"a\":1}");
        assert_eq!(percent_decode("%7"), "%7");
        assert_eq!(percent_decode("%zz%"), "%zz%");
    }

    #[test]
    fn finds_links_in_urls() {
        assert_eq!(find_in_url("?embed=busbw&s=v1.e30", ""), Some("v1.e30"));
        assert_eq!(find_in_url("?s=v1.AAA", "#s=v1.e30"), Some("v1.e30"));
        assert_eq!(find_in_url("", "#s="), None);
        assert_eq!(find_in_url("?embed=busbw", ""), None);
    }
}
