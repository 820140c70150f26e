//! `fabricscope serve --svg`: the serving curve written by the page's renderer, one curve per
//! series (the deployment and its counterpart across the NVLink boundary), the crossing one
//! dashed, and a one-line error where no curve exists.

mod common;
use common::{fails, stdout_ok};

fn chart(args: &[&str], name: &str) -> String {
    let path = std::env::temp_dir().join(format!("fabricscope-serve-{}-{name}.svg", std::process::id()));
    let p = path.to_string_lossy().into_owned();
    let mut all = vec!["serve"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--svg", &p]);
    stdout_ok(&all);
    let svg = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{p}: {e}"));
    let _ = std::fs::remove_file(&path);
    svg
}

#[test]
fn svg_has_one_path_per_series_and_marks_the_boundary() {
    // TP 8 on 8-GPU H100 nodes: inside; its counterpart TP 16 crosses two nodes.
    let svg = chart(&["--model", "llama3-70b", "--nodes", "2", "--tp", "8", "--batch", "16"], "tp8");
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert_eq!(svg.matches("data-series=").count(), 2, "{svg}");
    assert_eq!(svg.matches("data-crosses=\"true\"").count(), 1);
    let t = fabricscope_charts::texts(&svg);
    assert!(t.iter().any(|s| s.starts_with("TP 8 inside NVLink")), "{t:?}");
    assert!(t.iter().any(|s| s.starts_with("TP 16 across NVLink")), "{t:?}");
    assert!(t.iter().any(|s| s == "output tokens/s per GPU"));
    // The chosen batch is ringed, once.
    assert_eq!(svg.matches("r=\"7.5\"").count(), 1);
    // A single node has no counterpart across the boundary: one curve.
    let one = chart(&["--model", "llama3-8b", "--nodes", "1", "--tp", "8", "--theme", "dark"], "one");
    assert_eq!(one.matches("data-series=").count(), 1, "{one}");
    assert!(one.contains(&fabricscope_charts::Theme::dark().background.hex()));
}

#[test]
fn svg_of_the_offline_mix_is_refused_by_name() {
    let p = std::env::temp_dir().join("fabricscope-serve-offline.svg");
    fails(&["serve", "--model", "llama3-8b", "--phase", "offline", "--svg", &p.to_string_lossy()], &["--svg", "decode or prefill"]);
}

/// With the planner (`--search --rate`), `--svg` writes serving.html's planner chart: the
/// deployments meeting the targets, the front, the smallest ringed and named in the legend.
#[test]
fn the_planners_svg_is_the_pages_chart() {
    let args = ["--search", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--model", "llama3-70b", "--nodes", "8"];
    let svg = chart(&args, "plan");
    let mut with_json = args.to_vec();
    with_json.extend_from_slice(&["--json"]);
    let v = common::json(&[&["serve"][..], &with_json].concat());
    let first = &v["deployments"][0];
    assert_eq!(svg.matches("data-series=").count(), 1, "{svg}");
    assert!(svg.contains(&format!("data-front=\"{}\"", v["pareto"].as_array().map_or(0, |p| p.len()))));
    let t = fabricscope_charts::texts(&svg);
    assert!(t.iter().any(|s| s.starts_with(&format!("fewest GPUs: {} (", first["gpus"]))), "{t:?}");
    assert!(t.iter().any(|s| s == "output tokens/s per user (1000 / TPOT)"), "{t:?}");
}
