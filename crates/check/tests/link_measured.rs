//! Measured runs in links and scenario files: the model's link code keeps them unread
//! (`fabricscope_model::link`); this crate reads them back and holds them to their ranges.

use fabricscope_model::link::{decode, decode_file, encode, json_text, measured_in_file, measured_in_link};
use fabricscope_model::Scenario;

/// Issue 20: a busbw of 1e300 in a link drew a negative-width bar. Decoded, it is brought
/// down to its bound with a note; the CLI's strict reader refuses the file.
#[test]
fn absurd_measured_numbers_are_clamped_with_a_note_where_decoded() {
    use fabricscope_check::{link_of, runs_of, Measured, Point, MAX_BUSBW_GBPS};
    let points = (26..=33).map(|e| Point { bytes: 1 << e, time_us: e as f64, busbw: 1e300 }).collect();
    let m = Measured { ranks: 16, nodes: Some(2), gpus_per_node: Some(8), points, ..Measured::default() };
    assert!(m.validate().is_err(), "a typed or pasted 1e300 is refused");
    let link = link_of(&Scenario::default(), &[m]);
    let mut notes = Vec::new();
    let runs = runs_of(measured_in_link(&link), &mut notes);
    assert_eq!(runs.len(), 1);
    assert!(runs[0].points.iter().all(|p| p.busbw == MAX_BUSBW_GBPS), "{:?}", runs[0].points);
    assert!(!notes.is_empty() && notes[0].starts_with("measured: run 1: busbw 1e300 GB/s at "), "{notes:?}");
}

#[test]
fn a_link_carries_the_plateau_points_of_measured_runs_only() {
    use fabricscope_check::{file_value, link_of, runs_of, Measured, Point};
    let points = (3..=33).map(|e| Point { bytes: 1 << e, time_us: e as f64, busbw: e as f64 }).collect();
    let s = Scenario::default();
    let measured = vec![Measured { ranks: 16, nodes: Some(2), gpus_per_node: Some(8), points, ..Measured::default() }];
    let link = link_of(&s, &measured);
    let mut back = decode(&link);
    assert!(back.warnings.is_empty() && back.scenario == s, "{:?}", back.warnings);
    let runs = runs_of(measured_in_link(&link), &mut back.warnings);
    let sizes: Vec<u64> = runs[0].points.iter().map(|p| p.bytes).collect();
    assert_eq!(sizes, (26..=33).map(|e| 1u64 << e).collect::<Vec<_>>(), "64 MiB and up");
    // The explorer's own link and file leave them out (its wasm has no code for them).
    assert_eq!(encode(&s), "v1.e30");
    assert!(serde_json::to_value(&s).unwrap().get("measured").is_none());
    // A file keeps them all; a run out of range falls back alone, with a note.
    let json = json_text(&file_value(&s, &measured));
    let mut d = decode_file(&json).unwrap();
    assert_eq!(runs_of(measured_in_file(&json), &mut d.warnings)[0].points.len(), 31);
    for bad in [json.replace("\"ranks\":16", "\"ranks\":0"), json.replace("\"8:3:3 ", "\"8:0:3 "), json.replace("\"gpus_per_node\":8", "\"gpus_per_node\":0"), json.replace("\"8:3:3 ", "\"8:x:3 ")] {
        assert_ne!(bad, json);
        let mut d = decode_file(&bad).unwrap();
        let runs = runs_of(measured_in_file(&bad), &mut d.warnings);
        assert!(runs.is_empty() && d.warnings.iter().any(|w| w.starts_with("measured")), "{:?}", d.warnings);
        assert_eq!(d.scenario.cluster, s.cluster);
    }
}

