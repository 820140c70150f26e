//! `fabricscope train --framework nemo --release`: a NeMo release's MoE software is an input.
//! Releases without CUDA graphs in MoE layers run them slower; dense jobs do not change; with
//! the release left open an MoE step's 90% interval spans the releases; bad values get one
//! line naming the flag and the releases allowed.

mod common;
use common::{fails, json};

/// DeepSeek-V3 BF16 on 256 GB200 in NeMo 25.04's recipe layout (NVIDIA/NeMo v2.3.0
/// scripts/performance/recommended_model_configs/model_configs_gb200.csv: TP 2, PP 4, EP 64,
/// expert-TP 1, MBS 1, GBS 2048).
const DSV3: [&str; 22] = [
    "train", "--gpu", "gb200", "--gpus", "256", "--model", "deepseek-v3", "--seq", "4096", "--global-batch", "2048", "--tp", "2", "--pp", "4", "--ep", "64",
    "--expert-tp", "1", "--precision", "bf16", "--json",
];

fn tflops(v: &serde_json::Value) -> f64 {
    v["model_tflops_per_gpu"].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn older_releases_run_moe_slower_and_the_open_release_spans_them() {
    let open = json(&DSV3);
    let early = json(&[&DSV3[..], &["--framework", "nemo", "--release", "25.04"]].concat());
    let fused = json(&[&DSV3[..], &["--framework", "nemo", "--release", "25.09"]].concat());
    let today = json(&[&DSV3[..], &["--framework", "nemo", "--release", "26.08"]].concat());
    assert_eq!(early["framework"], "nemo-25.07");
    assert_eq!(fused["framework"], "nemo-25.09");
    assert_eq!(today["framework"], "nemo-25.11");
    // Newer software is never slower, and the releases differ by what the guide measured
    // (494 TFLOP/s before CUDA graphs, 970 after, on one layout): between 1.5x and 4x here.
    let (e, f, t) = (tflops(&early), tflops(&fused), tflops(&today));
    assert!(e < f && f < t, "25.04 {e} < 25.09 {f} < 26.08 {t}");
    assert!((1.5..4.0).contains(&(t / e)), "today / 25.04 = {}", t / e);
    // Today's release predicts what the open release does; only the interval differs.
    assert!((tflops(&open) - t).abs() < 1e-9 * t);
    let lo_open = open["intervals"]["model_tflops_per_gpu"]["lo"].as_f64().unwrap_or(f64::NAN);
    let lo_early = early["intervals"]["model_tflops_per_gpu"]["lo"].as_f64().unwrap_or(f64::NAN);
    let lo_today = today["intervals"]["model_tflops_per_gpu"]["lo"].as_f64().unwrap_or(f64::NAN);
    assert!((lo_open - lo_early).abs() < 1e-6 * lo_early, "open lower end {lo_open} = 25.04's {lo_early}");
    assert!(lo_today > 1.5 * lo_open, "a stated release keeps its own interval: {lo_today} vs {lo_open}");
    assert!(open["intervals"]["model_tflops_per_gpu"]["basis"].as_str().unwrap_or("").contains("spans NeMo's releases"));
    assert!(today["oldest_release_step_s"].is_null());
    // The step time's interval reaches up to the oldest release's step.
    let hi = open["intervals"]["step_time_s"]["hi"].as_f64().unwrap_or(f64::NAN);
    assert!(hi >= early["step_time_s"].as_f64().unwrap_or(f64::INFINITY), "{hi}");
}

/// NeMo 25.07's recipes differ by GPU (NVIDIA/NeMo v2.4.0 recommended_model_configs: DeepSeek-V3
/// `cuda_graphs` 1 on GB200, with token dropping; 0 on H100 and B200): on GB200 its MoE layers
/// are graphed and it runs as the calibration does, elsewhere as 25.04.
#[test]
fn release_25_07_graphed_its_moe_layers_on_gb200_only() {
    let on = |gpu: &str, release: &str| {
        let mut args = DSV3.to_vec();
        args[2] = gpu;
        json(&[&args[..], &["--framework", "nemo", "--release", release]].concat())
    };
    let (jul, apr, today) = (on("gb200", "25.07"), on("gb200", "25.04"), on("gb200", "26.08"));
    assert_eq!(jul["framework"], "nemo-25.07-graphed");
    assert!((tflops(&jul) - tflops(&today)).abs() < 1e-9 * tflops(&today), "25.07 {} = today {}", tflops(&jul), tflops(&today));
    assert!(tflops(&jul) > 2.0 * tflops(&apr), "graphed 25.07 {} against 25.04 {}", tflops(&jul), tflops(&apr));
    for gpu in ["h100", "b200"] {
        let (jul, apr) = (on(gpu, "25.07"), on(gpu, "25.04"));
        assert_eq!(jul["framework"], "nemo-25.07", "{gpu}");
        assert_eq!(jul["step_time_s"], apr["step_time_s"], "{gpu}: 25.07 runs as 25.04");
    }
}

#[test]
fn dense_jobs_do_not_depend_on_the_release() {
    let base = ["train", "--gpu", "h100", "--nodes", "8", "--model", "llama3-70b", "--tp", "4", "--pp", "4", "--json"];
    let open = json(&base);
    let early = json(&[&base[..], &["--framework", "nemo", "--release", "25.04"]].concat());
    assert_eq!(open["step_time_s"], early["step_time_s"]);
    assert_eq!(open["intervals"]["step_time_s"]["lo"], early["intervals"]["step_time_s"]["lo"]);
    assert!(open["oldest_release_step_s"].is_null());
}

#[test]
fn bad_releases_name_the_flag_and_the_allowed_values() {
    fails(&["train", "--model", "deepseek-v3", "--release", "25.04"], &["--release", "--framework nemo", "25.04, 25.07, 25.09, 25.11"]);
    fails(&["train", "--model", "deepseek-v3", "--framework", "nemo", "--release", "24.12"], &["--release", "24.12", "25.04, 25.07"]);
}
