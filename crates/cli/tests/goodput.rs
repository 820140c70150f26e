//! `fabricscope goodput` (issue 41): the JSON fields and their intervals, the physics a user
//! can check from outside (more GPUs stop more often, a longer restart trains less, a replica
//! restart never loses more than a job restart, Daly's interval), train and compare showing
//! goodput, and bad input refused by name.

mod common;

use common::{fails, json, stdout_ok};
use serde_json::Value;

const JOB: [&str; 8] = ["--model", "llama3-70b", "--tp", "8", "--pp", "4", "--global-batch", "1024"];

fn goodput(cluster: &[&str], extra: &[&str]) -> Value {
    let mut args = vec!["goodput", "--json"];
    args.extend_from_slice(cluster);
    args.extend_from_slice(&JOB);
    args.extend_from_slice(extra);
    json(&args)
}

fn f(v: &Value, path: &str) -> f64 {
    path.split('.').fold(v, |v, k| &v[k]).as_f64().unwrap_or_else(|| panic!("{path} in {v}"))
}

#[test]
fn every_field_carries_its_interval_around_it() {
    let v = goodput(&["--preset", "dgx-h100-superpod"], &[]);
    for k in ["mttf_hours", "interruptions_per_day", "checkpoint_interval_min", "ettr", "goodput_tokens_per_s"] {
        let (x, lo, hi) = (f(&v, k), f(&v, &format!("intervals.{k}.lo")), f(&v, &format!("intervals.{k}.hi")));
        assert!(lo <= x * (1.0 + 1e-12) && x <= hi * (1.0 + 1e-12), "{k}: {x} not in {lo}-{hi}");
        let iv = &v["intervals"][k];
        for field in ["coverage", "sources", "rows", "basis", "extrapolated"] {
            assert!(!iv[field].is_null(), "intervals.{k}.{field}");
        }
    }
    // H100: field data exist; the MTTF interval is at most 4x wide (hi/lo).
    assert!(f(&v, "intervals.mttf_hours.hi") / f(&v, "intervals.mttf_hours.lo") <= 4.0 + 1e-9);
    assert_eq!(v["intervals"]["mttf_hours"]["extrapolated"], false);
    // ETTR and goodput agree: goodput = tokens/s x ETTR.
    assert!((f(&v, "goodput_tokens_per_s") - f(&v, "tokens_per_s") * f(&v, "ettr")).abs() < 1e-6 * f(&v, "tokens_per_s"));
    // The breakdown by component sums to every stop.
    let shares: f64 = v["components"].as_array().expect("components").iter().map(|c| c["share_of_stops"].as_f64().unwrap_or(0.0)).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");
}

#[test]
fn a_bigger_job_stops_more_often_and_trains_less() {
    let small = goodput(&["--preset", "dgx-h100-superpod", "--nodes", "16"], &[]);
    let large = goodput(&["--preset", "dgx-h100-superpod", "--nodes", "512"], &[]);
    assert!(f(&large, "mttf_hours") < f(&small, "mttf_hours") / 20.0, "512 vs 16 nodes: 32x the parts");
    assert!(f(&large, "ettr") < f(&small, "ettr"));
}

#[test]
fn restart_time_recovery_and_interval_behave_as_the_physics_says() {
    let c = ["--preset", "dgx-h100-superpod", "--nodes", "512"];
    let fast = goodput(&c, &["--restart-min", "2"]);
    let slow = goodput(&c, &["--restart-min", "60"]);
    assert!(slow["ettr"].as_f64() < fast["ettr"].as_f64());
    let job = goodput(&c, &["--recovery", "job"]);
    let replica = goodput(&c, &["--recovery", "replica"]);
    assert!(f(&replica, "ettr") >= f(&job, "ettr"));
    // A site's own MTTF replaces the prediction; the auto interval is then Daly's for it:
    // about sqrt(2 x stall x MTTF).
    let given = goodput(&c, &["--mttf-hours", "5", "--checkpoint", "sync"]);
    assert_eq!(f(&given, "mttf_hours"), 5.0);
    let young_min = (2.0 * f(&given, "checkpoint_stall_s") * 5.0 * 3600.0).sqrt() / 60.0;
    let tau = f(&given, "checkpoint_interval_min");
    assert!((tau / young_min - 1.0).abs() < 0.15, "interval {tau} min, Young {young_min}");
    let fixed = goodput(&c, &["--checkpoint-interval", "120"]);
    assert_eq!(f(&fixed, "checkpoint_interval_min"), 120.0);
}

#[test]
fn nvl72_counts_its_switch_trays_and_amd_is_said_to_be_extrapolated() {
    let v = json(&["goodput", "--json", "--preset", "gb200-nvl72", "--model", "llama3-70b", "--tp", "4", "--pp", "2", "--global-batch", "576"]);
    let tray = v["components"].as_array().expect("components").iter().find(|c| c["component"] == "nvlink_tray").expect("NVLink trays").clone();
    assert!(tray["count"].as_u64().unwrap_or(0) >= 9);
    assert_eq!(tray["effect"]["nodes_out"], 18);
    assert_eq!(v["intervals"]["mttf_hours"]["extrapolated"], true, "no field data for Blackwell");
    let text = stdout_ok(&["goodput", "--preset", "mi300x-roce", "--model", "llama3-8b", "--global-batch", "1024"]);
    assert!(text.contains("No published field data for"), "{text}");
}

#[test]
fn train_and_compare_show_goodput_beside_the_step() {
    let mut args = vec!["train", "--json", "--preset", "dgx-h100-superpod"];
    args.extend_from_slice(&JOB);
    let t = json(&args);
    assert!(f(&t, "goodput.ettr") > 0.5 && f(&t, "goodput.ettr") <= 1.0);
    assert!(f(&t, "goodput.goodput_tokens_per_s") <= f(&t, "tokens_per_s"));
    let mut text = vec!["train", "--preset", "dgx-h100-superpod"];
    text.extend_from_slice(&JOB);
    assert!(stdout_ok(&text).contains("Under failures: trains"));
}

#[test]
fn bad_values_are_refused_by_name_with_the_allowed_range() {
    let c = ["goodput", "--preset", "dgx-h100-superpod", "--model", "llama3-8b", "--global-batch", "1024"];
    let with = |extra: &[&str]| -> Vec<String> { c.iter().chain(extra).map(|s| s.to_string()).collect() };
    for (extra, want) in [
        (vec!["--restart-min=-1"], "--restart-min"),
        (vec!["--restart-min", "nan"], "--restart-min"),
        (vec!["--mttf-hours", "0"], "--mttf-hours"),
        (vec!["--mttf-hours", "1e309"], "--mttf-hours"),
        (vec!["--storage-gbps", "5e-324"], "--storage-gbps"),
        (vec!["--spares=-3"], "--spares"),
        (vec!["--checkpoint-interval", "soon"], "--checkpoint-interval"),
        (vec!["--recovery", "pray"], "job, replica"),
        (vec!["--checkpoint", "never"], "async, sync"),
    ] {
        let args = with(&extra.iter().map(|s| *s).collect::<Vec<_>>());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&refs, &[want]);
    }
}
