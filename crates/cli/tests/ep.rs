//! End-to-end tests of `fabricscope ep`: the JSON the issue promises, EP inside an NVL72 rack
//! on NVLink only, latency-bound low-latency kernels at decode sizes, one-line errors.

mod common;
use common::{fails, json, run};


#[test]
fn json_has_dispatch_and_combine_with_time_bottleneck_and_bandwidth() {
    let v = json(&["ep", "--gpu", "h800", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--hidden", "7168", "--top-k", "8", "--experts", "256", "--dispatch-dtype", "fp8", "--combine-dtype", "bf16", "--kernel", "normal", "--json"]);
    assert_eq!(v["ep_library"], "deepep", "DeepEP by default on NVIDIA GPUs");
    assert_eq!(v["ep_library_default"], true);
    for phase in ["dispatch", "combine"] {
        let p = &v[phase];
        assert!(p["time_us"].as_f64().is_some_and(|t| t > 0.0), "{p}");
        // Two H800 nodes: H800's 200 GB/s NVLink forwards the tokens more slowly than the NICs
        // bring them (DeepEP's NVL figure 156 GB/s in a 2-node user report).
        assert_eq!(p["bottleneck"], "nvlink", "{phase}");
        // DeepEP's RDMA figure on 400G ConnectX-7: 43 GB/s in DeepEP's own V1 table, 43-48 in
        // a user's tuned run (validation/ep-dispatch.csv).
        let g = p["rdma_GBps"].as_f64().unwrap();
        assert!(g > 40.0 && g < 50.0, "{phase}: {g}");
    }
    assert!(v["error_band_pct"].as_f64().is_some());
    // Combine in BF16 carries about twice the bytes of FP8 dispatch at the same link rate.
    let (d, c) = (v["dispatch"]["time_us"].as_f64().unwrap(), v["combine"]["time_us"].as_f64().unwrap());
    assert!(c / d > 1.7 && c / d < 2.0, "{d} {c}");
}

/// Every library gives dispatch and combine with intervals that hold the prediction, and names
/// itself in the JSON; the default is DeepEP on NVIDIA and MoRI on AMD.
#[test]
fn every_library_has_intervals_around_its_prediction() {
    for lib in ["deepep", "pplx", "pplx-garden", "nccl-ep", "uccl-ep", "mori", "trtllm"] {
        let v = json(&["ep", "--nodes", "4", "--ep", "32", "--tokens", "128", "--ep-library", lib, "--json"]);
        assert_eq!(v["ep_library"], lib);
        assert_eq!(v["ep_library_default"], false);
        for phase in ["dispatch", "combine"] {
            for field in ["time_us", "bottleneck_GBps"] {
                let x = v[phase][field].as_f64().unwrap();
                let i = &v[phase]["intervals"][field];
                let (lo, hi) = (i["lo"].as_f64().unwrap(), i["hi"].as_f64().unwrap());
                assert!(lo <= x && x <= hi && lo > 0.0, "{lib} {phase} {field}: {lo} {x} {hi}");
            }
        }
        // Only the two fitted libraries carry a band; the others say they are not validated.
        let fitted = lib == "deepep" || lib == "pplx";
        assert_eq!(v["error_band_pct"].is_number(), fitted, "{lib}: {}", v["trust"]);
    }
    let amd = json(&["ep", "--gpu", "mi300x", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--json"]);
    assert_eq!(amd["ep_library"], "mori");
}

/// Naming no library widens the interval to the spread between libraries: pplx-kernels'
/// low-latency rows are several times slower than DeepEP's prediction.
#[test]
fn the_default_interval_spans_the_libraries() {
    let args = ["ep", "--nodes", "8", "--ep", "64", "--tokens", "128", "--kernel", "low-latency", "--json"];
    let default = json(&args);
    let mut named = args.to_vec();
    named.extend_from_slice(&["--ep-library", "deepep"]);
    let deepep = json(&named);
    assert_eq!(default["dispatch"]["time_us"], deepep["dispatch"]["time_us"], "the default predicts with DeepEP");
    let hi = |v: &serde_json::Value| v["dispatch"]["intervals"]["time_us"]["hi"].as_f64().unwrap();
    assert!(hi(&default) > hi(&deepep), "{} vs {}", hi(&default), hi(&deepep));
    // pplx-kernels' measured EP 64 dispatch at 128 tokens, 317 µs, is inside the default's interval.
    let lo = default["dispatch"]["intervals"]["time_us"]["lo"].as_f64().unwrap();
    assert!(lo <= 317.0 && 317.0 <= hi(&default), "{lo} {}", hi(&default));
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
    let v = json(&["ep", "--nodes", "8", "--ep", "64", "--tokens", "1", "--kernel", "low-latency", "--ep-library", "pplx", "--json"]);
    assert_eq!(v["dispatch"]["latency_bound"], true);
    // pplx-kernels' EP 64 IBGDA rows at 1 token: 121 µs dispatch, 59 µs combine.
    let d = v["dispatch"]["time_us"].as_f64().unwrap();
    assert!(d > 100.0 && d < 140.0, "{d}");
    // DeepEP's low-latency kernels have a fraction of that fixed cost.
    let deepep = json(&["ep", "--nodes", "8", "--ep", "64", "--tokens", "1", "--kernel", "low-latency", "--json"]);
    assert!(deepep["dispatch"]["time_us"].as_f64().unwrap() < d / 3.0);
    let text = run(&["ep", "--nodes", "8", "--ep", "64", "--tokens", "1", "--kernel", "low-latency", "--ep-library", "pplx"]).1;
    assert!(text.contains("latency-bound") && text.contains("Band: ±3%") && text.contains("pplx-kernels low-latency kernels"), "{text}");
}

/// Text gives the 90% interval after the time and after the GB/s of each phase, and says which
/// library was used when none was named.
#[test]
fn text_shows_intervals_and_the_library() {
    let text = run(&["ep", "--nodes", "2", "--ep", "16", "--tokens", "4096"]).1;
    for phase in ["dispatch", "combine"] {
        let line = text.lines().find(|l| l.starts_with(phase)).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(line.matches("(90%: ").count(), 2, "{line}");
        assert!(line.find("µs (90%: ") < line.find("GB/s per GPU (90%: "), "{line}");
    }
    assert!(text.contains("Library: DeepEP (the default"), "{text}");
    let named = run(&["ep", "--nodes", "2", "--ep", "16", "--tokens", "4096", "--ep-library", "uccl-ep"]).1;
    assert!(!named.contains("Library:") && named.contains("UCCL-EP normal kernels") && named.contains("not validated"), "{named}");
}

#[test]
fn bad_flags_are_one_line_errors_naming_the_flag() {
    fails(&["ep", "--ep", "3", "--tokens", "128", "--experts", "2"], &["--ep", "more than the 2 experts"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--kernel", "fast"], &["--kernel", "normal, low-latency"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--imbalance", "0.5"], &["--imbalance", "uniform"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--dispatch-dtype", "int4"], &["--dispatch-dtype", "fp8, bf16, fp4"]);
    fails(&["ep", "--nodes", "1", "--ep", "16", "--tokens", "128"], &["--ep", "more than the cluster's 8 GPUs"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--ep-library", "deep-ep"], &["--ep-library", "deepep, pplx, pplx-garden, nccl-ep, uccl-ep, mori, trtllm"]);
    fails(&["ep", "--ep", "8", "--tokens", "128", "--ep-library", "pplx", "--kernel", "normal"], &["--kernel", "pplx-kernels has no normal"]);
    fails(&["ep", "--nodes", "16", "--ep", "128", "--tokens", "128", "--ep-library", "nccl-ep"], &["--ep", "at most 64"]);
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

/// An EP size that does not divide the experts runs them in redundant slots, as wide-EP
/// deployments place them: DeepSeek-V3's 256 experts on EP 72 in 288 slots, timed as 288 experts.
#[test]
fn ep_that_does_not_divide_the_experts_pads_them_with_redundant_copies() {
    let text = run(&["ep", "--gpu", "gb200", "--gpus", "144", "--ep", "72", "--tokens", "128"]).1;
    assert!(text.contains("top-8 of 256 experts in 288 slots, 32 of them redundant copies so that EP 72 divides them"), "{text}");
    let at = |experts: &str| json(&["ep", "--gpu", "gb200", "--gpus", "144", "--ep", "72", "--tokens", "128", "--experts", experts, "--json"]);
    let (padded, slots) = (at("256"), at("288"));
    assert_eq!(padded["expert_slots"], 288);
    assert_eq!(padded["dispatch"]["time_us"], slots["dispatch"]["time_us"]);
}

/// TensorRT-LLM's one-sided AlltoAll takes at most 64 ranks (MAX_RANKS in moe_alltoall.py); its
/// WideEP MoE runs EP 72 in an NVL72 rack on the two-sided MNNVL kernel (moeCommKernels.h, no
/// rank limit), whose packets carry 30/32 payload. EP 72 is expressed, says which kernel ran,
/// and at a bandwidth-bound size moves tokens at 30/32 of the one-sided kernel's NVLink rate.
#[test]
fn trtllm_runs_ep_72_in_a_rack_on_its_two_sided_kernel() {
    let rack = ["ep", "--gpu", "gb200", "--gpus", "72", "--tokens", "4096", "--ep-library", "trtllm", "--json"];
    let at = |ep: &str| {
        let mut a = rack.to_vec();
        a.extend_from_slice(&["--ep", ep]);
        json(&a)
    };
    let (one, two) = (at("64"), at("72"));
    assert_eq!(two["placement"]["scale_up_only"], true);
    assert!(two["trust"].as_str().unwrap().contains("two-sided MNNVL kernel"), "{}", two["trust"]);
    assert!(!one["trust"].as_str().unwrap().contains("two-sided"), "{}", one["trust"]);
    for phase in ["dispatch", "combine"] {
        assert_eq!(two[phase]["bottleneck"], "nvlink", "{phase}");
        let rate = |v: &serde_json::Value| v[phase]["bottleneck_GBps"].as_f64().unwrap();
        let r = rate(&two) / rate(&one);
        assert!(r < 1.0 && r > 0.85, "{phase}: EP 72 two-sided {} GB/s against EP 64 one-sided {} GB/s", rate(&two), rate(&one));
    }
}
