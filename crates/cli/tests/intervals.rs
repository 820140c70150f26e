//! The 90% intervals `collective --json`, `train --json`, `ep --json` (under dispatch and
//! combine), `serve --json` and `kv-transfer --json` print beside their headline fields
//! (issue 34; docs/calibration.md): every field's `{lo, hi, coverage, sources, rows, basis,
//! extrapolated}` is there, brackets the predicted value, busbw's and time's agree (time =
//! bytes / algbw), and a class measured by many sources is narrower than an extrapolated one.

use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

fn run(args: &[&str]) -> String {
    let o = Command::new(BIN).args(args).output().expect("the fabricscope binary runs");
    assert_eq!(o.status.code(), Some(0), "fabricscope {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(args: &[&str]) -> Value {
    let out = run(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// Checks the interval of `field` in `v["intervals"]` and returns (lo, hi, value).
fn bracket(v: &Value, field: &str) -> (f64, f64, f64) {
    let i = &v["intervals"][field];
    let (lo, hi, value) = (num(i, "lo"), num(i, "hi"), num(v, field));
    assert!(lo > 0.0 && lo <= value && value <= hi, "{field}: {value} outside [{lo}, {hi}]");
    let coverage = num(i, "coverage");
    // Measured held-out coverage of the interval's level (nominal 90%): never a made-up 1.0 on
    // a family, and at least docs/calibration.md's floor for the families' own levels.
    assert!((0.0..=1.0).contains(&coverage), "{field}: coverage {coverage}");
    assert!(num(i, "sources") >= 3.0 && num(i, "rows") >= 19.0, "{field}: {i}");
    let basis = i["basis"].as_str().unwrap_or_default();
    // In-sample constants, or (EP) the fitted libraries refitted without each held-out source.
    let held = ["constants fitted on all sources; interval left-one-source-out", "parameters refitted with each source left out, interval left-one-source-out"];
    assert!(held.iter().any(|h| basis.contains(h)), "{field}: {basis}");
    assert!(i["extrapolated"].is_boolean(), "{field}: {i}");
    (lo, hi, value)
}

/// Relative width of an interval: (hi - lo) / value.
fn width((lo, hi, value): (f64, f64, f64)) -> f64 {
    (hi - lo) / value
}

#[test]
fn collective_json_has_busbw_and_time_intervals_that_agree() {
    let v = json(&["collective", "--op", "all_reduce", "--bytes", "1G", "--json"]);
    let (blo, bhi, busbw) = bracket(&v, "busbw_GBps");
    let (tlo, thi, time) = bracket(&v, "time_us");
    // time = bytes / algbw and busbw is algbw x a constant: busbw x time is the same at both ends.
    let k = busbw * time;
    assert!((blo * thi / k - 1.0).abs() < 1e-9 && (bhi * tlo / k - 1.0).abs() < 1e-9, "{blo}-{bhi} GB/s vs {tlo}-{thi} us");
    assert_eq!(v["intervals"]["busbw_GBps"]["extrapolated"], false);
}

/// 4 nodes of H100 over InfiniBand, a ring at 1 GiB: InfiniBand's interval (190 rows from 7
/// sources; its rings at large sizes, 6 sources, borrow it), stretched to the rings' own rows
/// (an A100 cluster measured up to 27% above the model): within issue 34's 25% half-width.
/// 40 GB200 NVL72 racks: beyond the 20 measured, borrowed from all collectives and stretched to
/// hold the twenty-rack rows that measured half the model: far wider.
#[test]
fn a_class_with_many_sources_is_narrower_than_an_extrapolated_one() {
    let ib = json(&["collective", "--op", "all_reduce", "--bytes", "1G", "--json"]);
    let racks = json(&["collective", "--preset", "gb200-nvl72", "--nodes", "720", "--op", "all_reduce", "--bytes", "1G", "--json"]);
    assert_eq!(racks["intervals"]["busbw_GBps"]["extrapolated"], true);
    let (a, b) = (width(bracket(&ib, "busbw_GBps")), width(bracket(&racks, "busbw_GBps")));
    assert!(a <= 0.5 && b > 1.5 * a, "IB ring {a:.3}, 40 racks {b:.3}");

    // Training: GPT-3 175B on 1,024 A100s (Megatron on Ampere: 55 rows from 5 sources, dense
    // training's interval stretched to them) against Mixtral on 256 MI355X (its class has one
    // run, at 64 GPUs: extrapolated, widened beyond the borrowed interval).
    let a100 = json(&["train", "--nodes", "128", "--model", "gpt3-175b", "--tp", "8", "--pp", "8", "--gpu", "a100", "--nic", "ib-hdr", "--json"]);
    let mi355 = json(&["train", "--nodes", "32", "--model", "mixtral-8x7b", "--gpu", "mi355x", "--json"]);
    assert_eq!(a100["intervals"]["tokens_per_s"]["extrapolated"], false);
    assert_eq!(mi355["intervals"]["tokens_per_s"]["extrapolated"], true);
    let (a, b) = (width(bracket(&a100, "tokens_per_s")), width(bracket(&mi355, "tokens_per_s")));
    assert!(a <= 0.5 && b > 1.5 * a, "A100 Megatron {a:.3}, MI355X MoE {b:.3}");
}

#[test]
fn train_json_has_an_interval_for_every_headline_field() {
    let v = json(&["train", "--nodes", "64", "--model", "llama3-70b", "--json"]);
    let step = bracket(&v, "step_time_s");
    let tokens = bracket(&v, "tokens_per_s");
    for f in ["mfu", "model_tflops_per_gpu", "hardware_tflops_per_gpu"] {
        let t = bracket(&v, f);
        // Every throughput has the same relative interval as tokens/s.
        assert!((t.0 / t.2 - tokens.0 / tokens.2).abs() < 1e-9 && (t.1 / t.2 - tokens.1 / tokens.2).abs() < 1e-9, "{f}");
    }
    // Step time is tokens per step / tokens per second at each end.
    assert!((step.0 * tokens.1 / (step.2 * tokens.2) - 1.0).abs() < 1e-9, "{step:?} {tokens:?}");
    assert!(v["intervals"]["step_time_s"]["basis"].as_str().unwrap_or_default().contains("megatron/dense/hopper"));
}

/// The text output puts "(90%: lo-hi)" after the headline numbers.
#[test]
fn text_output_prints_the_interval_after_the_headline_numbers() {
    let c = run(&["collective", "--op", "all_reduce", "--bytes", "1G"]);
    let busbw = c.lines().find(|l| l.starts_with("busbw")).unwrap_or_default();
    assert!(busbw.contains("GB/s per direction (90%: "), "{busbw}");
    let t = run(&["train", "--nodes", "64", "--model", "llama3-70b"]);
    for head in ["Step time", "Tokens/s", "Model TFLOP/s"] {
        let line = t.lines().find(|l| l.starts_with(head)).unwrap_or_default();
        assert!(line.contains("(90%: "), "{line}");
    }
}

#[test]
fn ep_json_has_time_and_bandwidth_intervals_for_dispatch_and_combine() {
    // 2 H800 nodes, normal kernels across the network: Hopper, measured (not extrapolated).
    let v = json(&["ep", "--gpu", "h800", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--kernel", "normal", "--json"]);
    for phase in ["dispatch", "combine"] {
        let p = &v[phase];
        let (tlo, thi, t) = bracket(p, "time_us");
        let (blo, bhi, b) = bracket(p, "bottleneck_GBps");
        // time x bandwidth is the bytes: the same at both ends.
        assert!((blo * thi / (b * t) - 1.0).abs() < 1e-9 && (bhi * tlo / (b * t) - 1.0).abs() < 1e-9, "{phase}");
        assert_eq!(p["intervals"]["time_us"]["extrapolated"], false, "{phase}");
    }
    // Low latency inside one node, and a GB200 rack (not validated: extrapolated).
    let ll = json(&["ep", "--gpu", "h100", "--ep", "8", "--tokens", "128", "--kernel", "low-latency", "--json"]);
    bracket(&ll["dispatch"], "time_us");
    let gb = json(&["ep", "--gpu", "gb200", "--nodes", "36", "--nic", "ib-xdr", "--ep", "64", "--tokens", "4096", "--json"]);
    bracket(&gb["combine"], "bottleneck_GBps");
    assert_eq!(gb["combine"]["intervals"]["bottleneck_GBps"]["extrapolated"], true);
}

#[test]
fn serve_json_has_an_interval_for_every_headline_field() {
    let v = json(&["serve", "--model", "llama3-70b", "--tp", "8", "--batch", "32", "--json"]);
    for f in ["tpot_ms", "ttft_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_user", "tokens_per_s_per_node"] {
        bracket(&v, f);
    }
    // TPOT and tokens/s per user are reciprocal: their intervals agree.
    let (tlo, thi, t) = bracket(&v, "tpot_ms");
    let (ulo, uhi, u) = bracket(&v, "tokens_per_s_per_user");
    assert!((ulo * thi / (u * t) - 1.0).abs() < 1e-9 && (uhi * tlo / (u * t) - 1.0).abs() < 1e-9);
}

#[test]
fn kv_transfer_json_has_time_and_bandwidth_intervals() {
    let v = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "8192", "--nodes", "2", "--json"]);
    let (tlo, thi, t) = bracket(&v, "time_ms");
    let (glo, ghi, g) = bracket(&v, "effective_GBps");
    assert!(tlo < t && t < thi && glo < g && g < ghi, "{v}");
}
