//! End-to-end tests of `fabricscope ep`: the JSON the issue promises, EP inside an NVL72 rack
//! on NVLink only, latency-bound low-latency kernels at decode sizes, one-line errors.

mod common;
use common::{fails, json, run};


#[test]
fn json_has_dispatch_and_combine_with_time_bottleneck_and_bandwidth() {
    let v = json(&["ep", "--gpu", "h800", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--hidden", "7168", "--top-k", "8", "--experts", "256", "--dispatch-dtype", "fp8", "--combine-dtype", "bf16", "--kernel", "normal", "--json"]);
    for phase in ["dispatch", "combine"] {
        let p = &v[phase];
        assert!(p["time_us"].as_f64().is_some_and(|t| t > 0.0), "{p}");
        assert_eq!(p["bottleneck"], "rdma", "two H800 nodes: the network");
        // DeepEP-style normal kernels on 400G ConnectX-7: 40-48 GB/s per GPU in user reports
        // (validation/ep-dispatch.csv); the model's figure stays within that class's band.
        let g = p["bottleneck_GBps"].as_f64().unwrap();
        assert!(g > 35.0 && g < 48.0, "{phase}: {g}");
    }
    assert!(v["error_band_pct"].as_f64().is_some());
    // Combine in BF16 carries about twice the bytes of FP8 dispatch at the same link rate.
    let (d, c) = (v["dispatch"]["time_us"].as_f64().unwrap(), v["combine"]["time_us"].as_f64().unwrap());
    assert!(c / d > 1.7 && c / d < 2.0, "{d} {c}");
}

#[test]
fn ep_inside_an_nvl72_rack_stays_on_nvlink_and_says_it_is_not_validated() {
    let v = json(&["ep", "--gpu", "gb200", "--nodes", "36", "--nic", "ib-xdr", "--ep", "64", "--tokens", "4096", "--json"]);
    assert_eq!(v["dispatch"]["bottleneck"], "nvlink");
    assert_eq!(v["placement"]["scale_up_only"], true);
    assert!(v["error_band_pct"].is_null());
    assert!(v["trust"].as_str().unwrap().starts_with("not validated"));
    // The same EP on 8-GPU B200 nodes crosses the network and is slower.
    let b = json(&["ep", "--gpu", "b200", "--nodes", "8", "--nic", "ib-xdr", "--ep", "64", "--tokens", "4096", "--json"]);
    assert_eq!(b["dispatch"]["bottleneck"], "rdma");
    assert!(b["dispatch"]["time_us"].as_f64().unwrap() > v["dispatch"]["time_us"].as_f64().unwrap());
}

#[test]
fn low_latency_kernels_are_latency_bound_at_decode_sizes() {
    let v = json(&["ep", "--nodes", "8", "--ep", "64", "--tokens", "1", "--kernel", "low-latency", "--json"]);
    assert_eq!(v["dispatch"]["latency_bound"], true);
    // pplx-kernels' EP 64 IBGDA rows at 1 token: 121 µs dispatch, 59 µs combine.
    let d = v["dispatch"]["time_us"].as_f64().unwrap();
    assert!(d > 100.0 && d < 140.0, "{d}");
    let text = run(&["ep", "--nodes", "8", "--ep", "64", "--tokens", "1", "--kernel", "low-latency"]).1;
    assert!(text.contains("latency-bound") && text.contains("Band: ±9%"), "{text}");
}

#[test]
fn bad_flags_are_one_line_errors_naming_the_flag() {
    fails(&["ep", "--ep", "3", "--tokens", "128"], &["--ep", "valid ep: 1, 2, 4, 8"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--kernel", "fast"], &["--kernel", "normal, low-latency"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--imbalance", "0.5"], &["--imbalance", "uniform"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--dispatch-dtype", "int4"], &["--dispatch-dtype", "fp8, bf16, fp4"]);
    fails(&["ep", "--nodes", "1", "--ep", "16", "--tokens", "128"], &["--ep", "more than the cluster's 8 GPUs"]);
}

/// Issue 36: `ep --model` reads the one catalog's mixture of experts; flags override it and the
/// default is DeepSeek-V3's shape; a dense model is refused by name.
#[test]
fn ep_takes_its_shape_from_the_catalog() {
    let run_json = |extra: &[&str]| {
        let mut a = vec!["ep", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--json"];
        a.extend_from_slice(extra);
        json(&a)["dispatch"]["time_us"].as_f64().unwrap()
    };
    assert_eq!(run_json(&[]), run_json(&["--model", "deepseek-v3-like"]), "the default is DeepSeek-V3's shape");
    assert_eq!(run_json(&["--model", "deepseek-v3"]), run_json(&["--hidden", "7168", "--top-k", "8", "--experts", "256"]), "an alias");
    // Qwen3-235B-A22B: hidden 4096, top-8 of 128: fewer bytes per token than DeepSeek-V3's 7168.
    assert!(run_json(&["--model", "qwen3-235b-a22b"]) < run_json(&[]));
    assert_eq!(run_json(&["--model", "qwen3-235b-a22b", "--hidden", "7168", "--experts", "256"]), run_json(&[]), "flags override the model");
    let text = run(&["ep", "--nodes", "2", "--ep", "8", "--tokens", "4096", "--model", "mixtral-8x7b"]).1;
    assert!(text.contains("hidden 4096, top-2 of 8 experts"), "{text}");
    fails(&["ep", "--ep", "8", "--tokens", "128", "--model", "llama3-70b"], &["--model", "dense"]);
}
