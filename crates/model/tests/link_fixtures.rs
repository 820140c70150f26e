//! Links saved from earlier builds keep working: `fixtures/links-v1.txt` holds permalinks made
//! with format v1 and the scenario each stood for. Adding fields, changing the app's defaults
//! or moving to format v2 must not change what these decode to. Also: format 0 (plain JSON),
//! damaged links, links from a newer build.

use fabricscope_model::link::{decode, encode};
use fabricscope_model::Scenario;
use serde_json::Value;

const V1: &str = include_str!("fixtures/links-v1.txt");

/// Scenario fields as JSON laid over the v1 default (written out here, not taken from
/// `Scenario::default()`, so a changed default shows up as a failure).
fn scenario_from(fields: &str) -> Scenario {
    let mut base: Value = serde_json::from_str(
        r#"{"version":1,"cluster":{"gpu":"h100","nodes":4,"gpus_per_node":8,"scale_up":"nvlink4","nics_per_node":8,"nic":"ib-ndr","sharp":false,"nvls":true,"leaf_switches":null,"spine_switches":null,"switch_radix":null,"rail_optimized":true,"cpu":"intel","nccl":"2.27.5"},"view":{"ops":["all_reduce","all_gather","reduce_scatter","all_to_all"],"min_bytes":8,"max_bytes":17179869184,"selected_op":"all_reduce","algbw":false},"training":{"workload":"llama3-8b","best":true,"tp":8,"pp":1,"cp":1,"ep":1,"micro_batch":0,"recompute":null,"zero":null}}"#,
    )
    .unwrap();
    let over: Value =
        serde_json::from_str(fields).unwrap_or_else(|e| panic!("fixture JSON {fields}: {e}"));
    for part in ["cluster", "view", "training"] {
        if let Some(m) = over.get(part).and_then(Value::as_object) {
            for (k, v) in m {
                base[part][k] = v.clone();
            }
        }
    }
    serde_json::from_value(base).expect("fixture scenario parses")
}

fn fixtures() -> Vec<(&'static str, Scenario)> {
    V1.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (link, fields) = l.split_once('\t').expect("<link> TAB <json>");
            (link, scenario_from(fields))
        })
        .collect()
}

#[test]
fn saved_v1_links_decode_to_the_same_scenario() {
    let all = fixtures();
    assert!(all.len() >= 6, "fixtures present");
    for (link, want) in all {
        let d = decode(link);
        assert!(d.warnings.is_empty(), "{link}: {:?}", d.warnings);
        assert_eq!(d.scenario, want, "{link}");
    }
}

#[test]
fn encoding_is_stable() {
    // Today's encoder writes exactly the saved links (a v2 encoder may not; then keep the
    // decoding test above and drop this one).
    for (link, s) in fixtures() {
        assert_eq!(encode(&s), link);
    }
}

#[test]
fn default_link_is_six_bytes() {
    assert_eq!(encode(&Scenario::default()), "v1.e30");
    assert_eq!(decode("v1.e30").scenario, Scenario::default());
    assert_eq!(decode("  v1.e30\n").scenario, Scenario::default());
}

#[test]
fn v0_plain_json_migrates() {
    // A whole scenario file, as `fabricscope eval` reads it, raw or percent-encoded.
    let file = serde_json::to_string(&scenario_from(
        r#"{"cluster":{"gpu":"b200","scale_up":"nvlink5","nodes":16}}"#,
    ))
    .unwrap();
    let d = decode(&file);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(
        d.scenario,
        scenario_from(r#"{"cluster":{"gpu":"b200","scale_up":"nvlink5","nodes":16}}"#)
    );
    // A partial file: missing fields take the defaults.
    let d = decode(r#"{"cluster":{"nodes":2}}"#);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.scenario.cluster.nodes, 2);
    let d = decode("%7B%22cluster%22%3A%7B%22nodes%22%3A32%7D%7D");
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.scenario.cluster.nodes, 32);
    // A bad field in a file falls back alone.
    let d = decode(r#"{"version":1,"cluster":{"nodes":"many","gpu":"a100","scale_up":"nvlink3"}}"#);
    assert_eq!(d.scenario.cluster.nodes, 4);
    assert_eq!(d.scenario.cluster.gpu.id(), "a100");
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(
        d.warnings[0].starts_with("cluster.nodes: "),
        "{:?}",
        d.warnings
    );
}

#[test]
fn damaged_links_name_the_fields_that_fell_back() {
    // {"n":"four","g":"b200","u":"nvlink5","zz":1,"i":"fddi"}
    let payload = fabricscope_model::link::base64url_encode(
        br#"{"n":"four","g":"b200","u":"nvlink5","zz":1,"i":"fddi"}"#,
    );
    let d = decode(&format!("v1.{payload}"));
    assert_eq!(d.scenario.cluster.gpu.id(), "b200", "good fields kept");
    assert_eq!(d.scenario.cluster.scale_up.id(), "nvlink5");
    assert_eq!(d.scenario.cluster.nodes, 4, "bad field at its default");
    assert_eq!(d.scenario.cluster.nic.id(), "ib-ndr");
    let joined = d.warnings.join("\n");
    assert_eq!(d.warnings.len(), 3, "{joined}");
    assert!(
        joined.contains("cluster.nodes: ") && joined.contains("kept the default (4)"),
        "{joined}"
    );
    assert!(joined.contains("cluster.nic: "), "{joined}");
    assert!(joined.contains("zz: not a field"), "{joined}");

    for bad in [
        "",
        "hello",
        "v1.",
        "v1.!!!!",
        "v1.e",
        "v1.WzFd",
        "v99999999.e30",
        "v.e30",
        "https://example.com/?s=v1.e30",
    ] {
        let d = decode(bad);
        assert_eq!(d.scenario, Scenario::default(), "{bad}");
        assert!(!d.warnings.is_empty(), "{bad} reported");
        assert!(
            d.warnings.iter().all(|w| w.len() < 400),
            "{bad}: messages stay short"
        );
    }
    // Truncated in transit: the payload no longer parses.
    let link = encode(&scenario_from(r#"{"cluster":{"nodes":64}}"#));
    let d = decode(&link[..link.len() - 3]);
    assert!(d.warnings[0].starts_with("link: "), "{:?}", d.warnings);
}

#[test]
fn links_from_a_newer_build_keep_what_this_one_knows() {
    // A v2 link with a field this build has never heard of.
    let payload = fabricscope_model::link::base64url_encode(br#"{"n":8,"workload.layers":80}"#);
    let d = decode(&format!("v2.{payload}"));
    assert_eq!(d.scenario.cluster.nodes, 8);
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("newer"), "{:?}", d.warnings);
    assert!(
        d.warnings[1].starts_with("workload.layers: "),
        "{:?}",
        d.warnings
    );
}

#[test]
#[ignore = "prints links for new fixture lines: cargo test --test link_fixtures -- --ignored --nocapture"]
fn print_links() {
    for fields in std::env::var("FIELDS")
        .unwrap_or_default()
        .split('\n')
        .filter(|l| !l.is_empty())
    {
        println!("{}\t{fields}", encode(&scenario_from(fields)));
    }
}
