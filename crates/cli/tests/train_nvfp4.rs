//! `fabricscope train --precision nvfp4`: NVFP4 linear layers on NVIDIA Blackwell, a precision
//! the published NeMo recipes run. Against the same job in FP8: faster, but by less than the
//! tensor cores' FP4/FP8 ratio (attention, norms and communication stay in BF16), more on
//! Blackwell Ultra (FP4 three times FP8) than on Blackwell (twice); the weights' FP4 copy takes
//! less memory than the FP8 one; GPUs that do not run NVFP4 training are refused in one line
//! naming the flag and the values allowed.

mod common;
use common::{fails, json};

/// Llama 3 70B as Megatron-Bridge's 26.04.01 NVFP4 recipe lays it out on 64 GB300 (TP 1, PP 4,
/// VP 5, MBS 1, GBS 256, sequence 8192, no recompute).
fn llama70b(gpu: &str, precision: &str) -> Vec<String> {
    let args = ["train", "--gpu", gpu, "--gpus", "64", "--model", "llama3-70b", "--seq", "8192", "--global-batch", "256", "--tp", "1", "--pp", "4", "--interleave", "5", "--recompute", "none"];
    args.iter().chain(["--precision", precision, "--json"].iter()).map(|s| s.to_string()).collect()
}

fn run(gpu: &str, precision: &str) -> serde_json::Value {
    let args = llama70b(gpu, precision);
    json(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn step(v: &serde_json::Value) -> f64 {
    v["step_time_s"].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn nvfp4_is_faster_than_fp8_by_less_than_the_tensor_core_ratio() {
    for (gpu, ratio) in [("gb200", 2.0), ("gb300", 3.0), ("b200", 2.0), ("b300", 3.0)] {
        let (fp8, fp4) = (run(gpu, "fp8"), run(gpu, "nvfp4"));
        let speedup = step(&fp8) / step(&fp4);
        assert!(speedup > 1.05 && speedup < ratio, "{gpu}: FP8 step / NVFP4 step = {speedup}");
        assert_eq!(fp4["workload"]["precision"], "nvfp4", "{gpu}");
        // MFU is read against the FP4 peak.
        let peaks = fp4["peak_tflops"].as_f64().unwrap_or(0.0) / fp8["peak_tflops"].as_f64().unwrap_or(1.0);
        assert!((peaks - ratio).abs() < 1e-9, "{gpu}: FP4 peak / FP8 peak = {peaks}");
    }
    // Blackwell Ultra's FP4 is three times its FP8, Blackwell's twice: NVFP4 gains more there.
    let gain = |gpu| step(&run(gpu, "fp8")) / step(&run(gpu, "nvfp4"));
    assert!(gain("gb300") > gain("gb200"), "GB300 {} vs GB200 {}", gain("gb300"), gain("gb200"));
}

#[test]
fn nvfp4_matches_the_published_recipe_within_its_band() {
    // Megatron-Bridge performance summary, NeMo 26.04.01, DGX-GB300, Llama 3 70B NVFP4:
    // 7,296 tokens/s per GPU (validation/training-blackwell.csv).
    let v = run("gb300", "nvfp4");
    let per_gpu = v["tokens_per_s"].as_f64().unwrap_or(f64::NAN) / 64.0;
    assert!((per_gpu / 7296.0 - 1.0).abs() < 0.15, "{per_gpu} tokens/s per GPU");
}

#[test]
fn nvfp4_weights_take_less_memory_than_fp8_ones() {
    let mem = |v: &serde_json::Value| v["memory"]["weights"].as_f64().unwrap_or(f64::NAN);
    let (fp8, fp4, bf16) = (run("gb200", "fp8"), run("gb200", "nvfp4"), run("gb200", "bf16"));
    assert!(mem(&bf16) < mem(&fp4) && mem(&fp4) < mem(&fp8), "bf16 {} < nvfp4 {} < fp8 {}", mem(&bf16), mem(&fp4), mem(&fp8));
}

#[test]
fn gpus_without_nvfp4_training_are_refused() {
    for (gpu, allowed) in [("h100", "; use bf16 or fp8"), ("a100", "; use bf16"), ("mi355x", "; use bf16 or fp8")] {
        let args = llama70b(gpu, "nvfp4");
        fails(&args.iter().map(String::as_str).collect::<Vec<_>>(), &["--precision", "does not run NVFP4 training", allowed, "b200, gb200, b300, gb300"]);
    }
    fails(&["train", "--precision", "fp6"], &["--precision", "bf16, fp8, nvfp4"]);
}
