//! End-to-end tests of the serving planner, `fabricscope serve --search --rate R --ttft-ms T
//! --tpot-ms P` (issue 39): the done-when question's answer (Llama 3 70B, 1,024 tokens in and
//! out, 20 requests/s, TTFT <= 2 s, TPOT <= 50 ms on 8 DGX H100 nodes), the JSON fields with
//! their intervals, the modes, the empty answer's reason, and one-line errors naming the flag.

mod common;
use common::{fails, json, stdout_ok};

const DONE_WHEN: [&str; 14] = ["serve", "--search", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--model", "llama3-70b", "--gpu", "h100", "--nodes", "8"];

fn with(extra: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = DONE_WHEN.to_vec();
    for e in extra {
        v.push(Box::leak(e.to_string().into_boxed_str()));
    }
    v
}

fn f(v: &serde_json::Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {v}"))
}

#[test]
fn the_done_when_question_lists_deployments_that_meet_both_targets_on_fewer_than_64_gpus() {
    let v = json(&with(&["--input-tokens", "1024", "--output-tokens", "1024", "--json"]));
    let ds = v["deployments"].as_array().expect("deployments");
    assert!(!ds.is_empty(), "{v}");
    assert!(v.get("reason").is_none(), "{v}");
    let mut last = 0.0;
    for d in ds {
        let mode = d["mode"].as_str().expect("mode");
        assert!(mode == "aggregated" || mode == "disaggregated", "{mode}");
        let gpus = f(d, "gpus");
        assert!(gpus >= last, "fewest GPUs first");
        last = gpus;
        assert!(f(d, "ttft_ms") <= 2000.0 && f(d, "tpot_ms") <= 50.0, "{d}");
        // It sustains the rate: 20 requests/s of 1,024 output tokens.
        assert!(f(d, "tokens_per_s_per_gpu") * gpus >= 20.0 * 1024.0 * (1.0 - 1e-9), "{d}");
        assert!(f(d, "max_rate") >= 20.0, "{d}");
        assert!((f(d, "tokens_per_s_per_user") - 1000.0 / f(d, "tpot_ms")).abs() < 1e-6);
        // The layout(s): aggregated replicas, or a prefill and a decode pool with the handoff.
        if mode == "aggregated" {
            assert!(d["layout"]["tp"].as_u64().is_some() && d["layout"]["replicas"].as_u64().is_some(), "{d}");
        } else {
            for pool in ["prefill", "decode"] {
                assert!(d[pool]["tp"].as_u64().is_some(), "{d}");
            }
            assert!(f(d, "kv_transfer_ms") > 0.0);
            assert_eq!(d["kv_path"], "other-domain", "8-GPU servers: the NICs");
        }
        for k in ["ttft_ms", "tpot_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_user"] {
            let i = &d["intervals"][k];
            for field in ["lo", "hi", "coverage", "sources", "rows", "basis", "extrapolated"] {
                assert!(i.get(field).is_some(), "{k}.{field}: {d}");
            }
            assert!(f(i, "lo") <= f(d, k) && f(d, k) <= f(i, "hi"), "{k}: {i}");
        }
    }
    assert!(f(&ds[0], "gpus") < 64.0, "{}", ds[0]);
    let pareto = v["pareto"].as_array().expect("pareto");
    assert!(!pareto.is_empty());
    assert!(pareto.windows(2).all(|w| f(&w[0], "tokens_per_s_per_gpu") >= f(&w[1], "tokens_per_s_per_gpu") && f(&w[0], "tokens_per_s_per_user") < f(&w[1], "tokens_per_s_per_user")));
}

#[test]
fn the_text_is_a_table_fewest_gpus_first_and_names_the_fabric_where_it_decides() {
    let t = stdout_ok(&DONE_WHEN);
    assert!(t.contains("deployments meet both targets"), "{t}");
    assert!(t.contains("GPUs  mode"), "{t}");
    assert!(t.contains("Pareto front"), "{t}");
    // TP16 spans two DGX nodes: its all-reduces cross InfiniBand, and it needs more GPUs.
    assert!(t.contains("TP16 across two nodes needs") && t.contains("because each all-reduce crosses InfiniBand"), "{t}");
}

#[test]
fn the_mode_flag_restricts_the_answer() {
    for (flag, want) in [("false", "aggregated"), ("true", "disaggregated")] {
        let v = json(&with(&["--disaggregated", flag, "--json"]));
        let ds = v["deployments"].as_array().expect("deployments");
        assert!(!ds.is_empty());
        assert!(ds.iter().all(|d| d["mode"] == want), "{flag}: {v}");
    }
    // An engine named: its figures, and the input says so.
    let v = json(&with(&["--engine", "vllm", "--prefix-cache-hit", "0.5", "--mtp-acceptance", "1.5", "--chunk-tokens", "2048", "--percentile", "p90", "--json"]));
    assert_eq!(v["input"]["engine"], "vllm");
    assert_eq!(v["input"]["percentile"], 0.9);
    assert!(!v["deployments"].as_array().expect("deployments").is_empty());
}

#[test]
fn a_question_no_deployment_can_meet_gets_an_empty_list_and_the_reason() {
    let v = json(&["serve", "--search", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "2", "--model", "llama3-70b", "--nodes", "8", "--json"]);
    assert_eq!(v["deployments"].as_array().map(Vec::len), Some(0));
    let why = v["reason"].as_str().expect("reason");
    assert!(why.starts_with("TPOT fails first") && why.contains("against 2 ms"), "{why}");
    let t = stdout_ok(&["serve", "--search", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "2", "--model", "llama3-70b", "--nodes", "8"]);
    assert!(t.contains("No deployment on the 64 GPUs meets both targets: TPOT fails first"), "{t}");
}

#[test]
fn without_a_rate_the_search_is_todays() {
    let v = json(&["serve", "--search", "--model", "llama3-70b", "--json"]);
    assert!(v["best"].is_object() && v.get("deployments").is_none(), "{v}");
}

#[test]
fn bad_planner_input_is_one_line_naming_the_flag() {
    let base = ["serve", "--search", "--model", "llama3-70b"];
    let run = |extra: &[&str], want: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        fails(&a, want);
    };
    run(&["--rate", "-1", "--ttft-ms", "2000", "--tpot-ms", "50"], &["--rate", "requests/s above 0"]);
    run(&["--rate", "20", "--ttft-ms", "0", "--tpot-ms", "50"], &["--ttft-ms", "ms above 0"]);
    run(&["--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "-5"], &["--tpot-ms", "ms above 0"]);
    run(&["--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--prefix-cache-hit", "1"], &["--prefix-cache-hit", "from 0 to below 1"]);
    run(&["--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--mtp-acceptance", "0.5"], &["--mtp-acceptance", "1 (off) to 16"]);
    run(&["--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--percentile", "p100"], &["--percentile", "p90"]);
    run(&["--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--disaggregated", "maybe"], &["--disaggregated", "true, false, auto"]);
    run(&["--rate", "20", "--tpot-ms", "50"], &["--ttft-ms", "together"]);
    run(&["--prefix-cache-hit", "0.5"], &["--prefix-cache-hit", "applies to the planner"]);
    fails(&["serve", "--model", "llama3-70b", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50"], &["--search"]);
    fails(&["serve", "--model", "llama3-70b", "--disaggregated", "auto"], &["--disaggregated", "auto applies to the planner"]);
}

/// Issue 37/39: one question, one answer. `serve --search --rate --ttft-ms --tpot-ms` with no
/// other flag asks exactly the question serving.html's planner starts from
/// (`DEFAULTS.plan_input`), and answers it as the planner does.
#[test]
fn the_planner_with_no_other_flag_asks_the_pages_question() {
    use fabricscope_serving::planner::plan;
    use fabricscope_serving::{serving_preset, DEFAULTS};
    let v = json(&with(&["--json"]));
    let q = DEFAULTS.plan_input(20.0, 2000.0, 50.0);
    assert_eq!(v["input"], serde_json::to_value(&q).unwrap(), "{}", v["input"]);
    let topo = fabricscope_model::Cluster { nodes: 8, ..fabricscope_model::Cluster::default() }.topology().unwrap();
    let r = plan(&topo, &serving_preset("llama3-70b").unwrap(), &q).unwrap();
    let ds = v["deployments"].as_array().unwrap();
    assert_eq!(ds.len(), r.deployments.len());
    for (d, e) in ds.iter().zip(&r.deployments) {
        assert_eq!((d["gpus"].as_u64(), d["mode"].as_str()), (Some(e.gpus as u64), Some(e.mode.id())));
        assert!((f(d, "tokens_per_s_per_gpu") / e.tokens_per_s_per_gpu - 1.0).abs() < 1e-9);
    }
}
