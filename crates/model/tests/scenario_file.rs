//! Importing a scenario file (`link::decode_file`): files are not links. A valid file of any
//! sensible size is read (the 8 KiB link limit does not apply), text that is not a scenario
//! says so, and each field that falls back is named in a note the page can show.

use fabricscope_model::link::{decode, decode_file, encode, MAX_FILE_BYTES, MAX_LINK_BYTES};
use fabricscope_model::{Cluster, Scenario};

#[test]
fn a_pretty_printed_file_over_the_link_limit_is_read() {
    let s = Scenario::new(Cluster { nodes: 16, ..Cluster::default() });
    let pretty = serde_json::to_string_pretty(&s).unwrap();
    // Indent every line by 600 spaces: over 20 KiB of the same scenario.
    let padded = pretty.replace('\n', &format!("\n{:600}", ""));
    assert!(padded.len() > 20 * 1024 && padded.len() > MAX_LINK_BYTES && padded.len() < MAX_FILE_BYTES, "{} bytes", padded.len());
    let d = decode_file(&padded).expect("a scenario file");
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.scenario, s);
    // The link decoder still refuses it: a link of that length is not a link.
    assert!(decode(&padded).warnings[0].starts_with("link: "));
}

#[test]
fn a_byte_order_mark_is_dropped() {
    let d = decode_file("\u{feff}{\"cluster\":{\"nodes\":2}}").expect("a scenario file");
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.scenario.cluster.nodes, 2);
}

#[test]
fn text_that_is_not_a_scenario_says_so_without_talking_about_links() {
    for text in ["nodes: 4", "<html>", "", "[1,2]", "42", "v1.e30", "\"cluster\""] {
        let e = decode_file(text).expect_err(text);
        assert!(e.starts_with("not a scenario file (expected JSON"), "{text}: {e}");
        assert!(!e.contains("link"), "{text}: {e}");
    }
    let big = format!("{{\"cluster\":{{}}}}{}", " ".repeat(MAX_FILE_BYTES));
    let e = decode_file(&big).expect_err("too large");
    assert!(e.contains("1 MiB") && e.starts_with("not a scenario file"), "{e}");
}

#[test]
fn fields_that_fall_back_are_named_one_note_each() {
    let file = r#"{
        "version": 7,
        "cluster": { "gpu": "h900", "nodes": -4, "gpus_per_node": 8, "colour": "red" },
        "view": { "max_bytes": 18446744073709551615 },
        "training": { "tp": 0, "workload": "llama3-70b" },
        "extra": true
    }"#;
    let d = decode_file(file).expect("a partly valid file");
    let starts = |p: &str| d.warnings.iter().filter(|w| w.starts_with(p)).count();
    for field in ["version: ", "cluster.gpu: ", "cluster.nodes: ", "cluster.colour: ", "view.max_bytes: ", "training.tp: ", "extra: "] {
        assert_eq!(starts(field), 1, "{field} in {:#?}", d.warnings);
    }
    assert_eq!(d.warnings.len(), 7, "{:#?}", d.warnings);
    // What fell back took the default; the rest of the file was kept.
    let def = Scenario::default();
    assert_eq!((d.scenario.cluster.gpu, d.scenario.cluster.nodes), (def.cluster.gpu, def.cluster.nodes));
    assert_eq!((d.scenario.view.max_bytes, d.scenario.training.tp), (def.view.max_bytes, def.training.tp));
    assert_eq!(d.scenario.training.workload, "llama3-70b");
    assert!(d.warnings.iter().any(|w| w.contains("must be between 1B and 1T")), "{:#?}", d.warnings);
    // The notes travel with the result: re-encoding the cleaned scenario would lose them.
    assert!(decode(&encode(&d.scenario)).warnings.is_empty());
}
