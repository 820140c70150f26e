//! Issue 36: one catalog of model shapes. Each serving model trains and each training model
//! serves, under its old names too; the commands print their JSON.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

fn json(args: &[&str]) -> serde_json::Value {
    let o = Command::new(BIN).args(args).output().expect("the fabricscope binary runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// Whether `v` holds, at any depth, a positive number under a key containing `part`.
fn has_positive(v: &serde_json::Value, part: &str) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, x)| (k.contains(part) && x.as_f64().is_some_and(|f| f > 0.0)) || has_positive(x, part)),
        serde_json::Value::Array(a) => a.iter().any(|x| has_positive(x, part)),
        _ => false,
    }
}

#[test]
fn a_serving_model_trains() {
    let v = json(&[
        "train", "--preset", "dgx-h100-superpod", "--nodes", "32", "--model", "qwen3-235b-a22b", "--tp", "4", "--pp", "2", "--ep", "8", "--seq", "4096",
        "--global-batch", "1024", "--json",
    ]);
    assert!(has_positive(&v, "step"), "a step time: {v}");
}

#[test]
fn the_training_deepseek_serves() {
    let v = json(&["serve", "--preset", "dgx-h100-superpod", "--nodes", "2", "--model", "deepseek-v3-like", "--dp", "16", "--ep", "16", "--precision", "fp8", "--json"]);
    assert!(has_positive(&v, "tokens"), "tokens per second: {v}");
}

#[test]
fn gpt3_serves() {
    let v = json(&["serve", "--preset", "dgx-h100-superpod", "--nodes", "4", "--model", "gpt3-175b", "--tp", "8", "--json"]);
    assert!(has_positive(&v, "tokens"), "tokens per second: {v}");
}

#[test]
fn old_names_stay_as_aliases() {
    let v = json(&["serve", "--preset", "dgx-h100-superpod", "--nodes", "2", "--model", "deepseek-r1", "--dp", "16", "--ep", "16", "--precision", "fp8", "--json"]);
    assert!(has_positive(&v, "tokens"), "{v}");
    let v = json(&["train", "--preset", "dgx-h100-superpod", "--nodes", "32", "--model", "deepseek-v3", "--tp", "1", "--pp", "4", "--ep", "64", "--json"]);
    assert!(has_positive(&v, "step"), "{v}");
}
