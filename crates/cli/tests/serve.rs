//! End-to-end tests of `fabricscope serve` and `fabricscope kv-transfer`: the JSON fields the
//! issue promises, numbers checked against arithmetic done here and against published runs,
//! the NVLink boundary, the defaults (overlap for wide EP, KV over all NICs) and one-line
//! errors that name the flag.

mod common;
use common::{fails, json, run, stdout_ok};


fn f(v: &serde_json::Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {v}"))
}

#[test]
fn serve_json_has_the_issue_fields() {
    let v = json(&["serve", "--model", "llama3-70b", "--tp", "4", "--batch", "32", "--precision", "fp8", "--json"]);
    for k in ["tpot_ms", "ttft_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_node", "tokens_per_s_per_user", "network_share"] {
        assert!(f(&v, k) > 0.0, "{k}: {v}");
    }
    for k in ["weights_kv_read", "compute", "tp_allreduce", "ep_dispatch_combine", "pipeline", "kv_transfer"] {
        assert!(v["breakdown"][k].as_f64().is_some(), "{k}");
    }
    // Per user = 1000 / TPOT; per GPU = batch x per user / GPUs; TP 4 leaves 4 of the node's
    // 8 GPUs idle, so the node makes what the 4 make.
    let tpot = f(&v, "tpot_ms");
    assert!((f(&v, "tokens_per_s_per_user") - 1000.0 / tpot).abs() < 1e-6);
    assert!((f(&v, "tokens_per_s_per_gpu") - 32.0 * 1000.0 / tpot / 4.0).abs() < 1e-6);
    assert_eq!(v["gpus"], 4);
    assert!((f(&v, "tokens_per_s_per_node") - 4.0 * f(&v, "tokens_per_s_per_gpu")).abs() < 1e-6);
    // Llama 3 70B's KV cache: 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 bytes.
    assert_eq!(f(&v, "kv_bytes_per_token"), 327_680.0);
    assert!(v["error_band_pct"].as_f64().is_some(), "Hopper TP inside NVLink is validated: {v}");
}

/// GB200 NVL72 counts compute trays in `serve`'s text, as its cluster line and the explorer do;
/// the JSON keeps `tokens_per_s_per_node` (a tray is the model's node).
#[test]
fn serve_counts_gb200_trays_in_its_text() {
    let t = stdout_ok(&["serve", "--preset", "gb200-nvl72", "--model", "llama3-70b", "--tp", "8", "--batch", "32"]);
    assert!(t.contains("= 8 GPUs on 2 trays") && t.contains(" per tray, "), "{t}");
    assert!(!t.contains("per node"), "{t}");
    let h = stdout_ok(&["serve", "--model", "llama3-70b", "--tp", "8", "--batch", "32"]);
    assert!(h.contains("= 8 GPUs on 1 node") && h.contains(" per node, "), "{h}");
}

#[test]
fn batch_one_decode_matches_a_published_run() {
    // tenstorrent/tt-inference-server issue 143: Qwen2.5-72B on 2 H100 at concurrency 1,
    // TPOT 30.9-31.3 ms from 128 to 8192 input tokens (validation/serving.csv).
    let v = json(&["serve", "--model", "qwen2.5-72b", "--tp", "2", "--batch", "1", "--input-len", "1024", "--output-len", "128", "--memory-fraction", "0.95", "--json"]);
    let t = f(&v, "tpot_ms");
    assert!((t / 31.0 - 1.0).abs() < 0.15, "{t}");
    assert_eq!(v["bound"], "memory");
}

#[test]
fn tp_across_the_nvlink_boundary_costs_every_layer() {
    let inside = json(&["serve", "--model", "qwen3-32b", "--nodes", "2", "--tp", "8", "--json"]);
    let across = json(&["serve", "--model", "qwen3-32b", "--nodes", "4", "--gpus-per-node", "4", "--tp", "8", "--json"]);
    assert_eq!(inside["tp_spans_domains"], false);
    assert_eq!(across["tp_spans_domains"], true);
    let (a, b) = (across["breakdown"]["tp_allreduce"].as_f64().unwrap(), inside["breakdown"]["tp_allreduce"].as_f64().unwrap());
    // 128 small all-reduces per token: NCCL's latency across two nodes against one NVSwitch.
    assert!(a > 1.25 * b, "across {a} ms vs inside {b} ms");
    assert!(f(&across, "tpot_ms") > f(&inside, "tpot_ms"));
    assert!(f(&across, "network_share") > f(&inside, "network_share"));
    let text = stdout_ok(&["serve", "--model", "qwen3-32b", "--nodes", "4", "--gpus-per-node", "4", "--tp", "8"]);
    assert!(text.contains("TP crosses the NVLink boundary"), "{text}");
}

#[test]
fn wide_ep_follows_the_engine_overlap_default_and_deepseek_carries_mla() {
    let args = ["serve", "--model", "deepseek-v3", "--gpu", "h800", "--nodes", "18", "--tp", "1", "--ep", "144", "--dp", "144", "--batch", "88", "--context", "4989", "--precision", "fp8", "--json"];
    let v = json(&args);
    // No engine overlaps two micro-batches by default (TensorRT-LLM, the default engine,
    // runs each layer over the whole batch).
    assert_eq!(v["overlap"], false);
    assert_eq!(v["attention"]["kind"], "mla");
    // (512 + 64) x 61 layers x 2 bytes.
    assert_eq!(f(&v, "kv_bytes_per_token"), 70_272.0);
    // DeepSeek's Day-6 production figure: ~14.8k output tokens/s per H800 node at 20-22
    // tokens/s per user; the model within 30%.
    let node = f(&v, "tokens_per_s_per_node");
    assert!((node / 14_800.0 - 1.0).abs() < 0.3, "{node}");
    let mut on = args.to_vec();
    on.extend(["--overlap", "true"]);
    let o = json(&on);
    assert_eq!(o["overlap"], true);
    assert!(f(&o, "tpot_ms") < f(&v, "tpot_ms"));
}

#[test]
fn fewer_gpus_than_the_cluster_and_offline_and_prefill_phases() {
    let v = json(&["serve", "--model", "llama3-8b", "--nodes", "1", "--tp", "4", "--json"]);
    assert_eq!(v["gpus"], 4);
    let p = json(&["serve", "--model", "llama3-8b", "--phase", "prefill", "--input-len", "2048", "--json"]);
    assert!(p["tpot_ms"].is_null());
    assert!(f(&p, "ttft_ms") > 0.0);
    let o = json(&["serve", "--model", "llama3-8b", "--phase", "offline", "--precision", "fp8", "--kv-precision", "fp8", "--input-len", "128", "--output-len", "128", "--json"]);
    assert!(f(&o, "batch") > 64.0, "max load runs a large batch: {o}");
}

#[test]
fn disaggregation_adds_the_kv_transfer_and_a_balance_ratio() {
    let v = json(&["serve", "--model", "llama3-70b", "--tp", "8", "--batch", "16", "--disaggregated", "true", "--input-len", "4096", "--json"]);
    let kv = v["breakdown"]["kv_transfer"].as_f64().unwrap();
    assert!(kv > 0.0);
    assert!(v["prefill_decode_ratio"].as_f64().is_some_and(|r| r > 0.0));
    let k = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--json"]);
    assert!((k["time_ms"].as_f64().unwrap() - kv).abs() < 1e-9);
}

#[test]
fn kv_transfer_json_is_bytes_over_the_striped_nics() {
    let v = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "1000", "--json"]);
    assert_eq!(v["bytes"], 327_680_000u64);
    // 8 NDR rails at 400 Gb/s x 0.955 (the catalog's measured goodput) = 382 GB/s, plus
    // two NIC latencies.
    let t = 2e-3 + 327_680_000.0 / (8.0 * 50.0 * 0.955 * 1e9) * 1e3;
    assert!((v["time_ms"].as_f64().unwrap() / t - 1.0).abs() < 1e-6, "{v}");
    let one = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "1000", "--rails", "1", "--json"]);
    assert!(one["effective_GBps"].as_f64().unwrap() < v["effective_GBps"].as_f64().unwrap() / 7.0);
    let mla = json(&["kv-transfer", "--model", "deepseek-r1", "--tokens", "1000", "--json"]);
    assert_eq!(mla["bytes"], 70_272_000u64);
}

#[test]
fn a_paged_kv_transfer_posts_one_descriptor_per_layer_block_and_kv_region() {
    // Llama 3 70B: 80 layers, K and V separate; 4,096 tokens in 16-token blocks = 256 blocks:
    // 80 x 256 x 2 = 40,960 descriptors per rank at 0.83 µs (LMCache PR 4161's NIXL/UCX
    // posting cost) = 34.0 ms, ten times the 3.5 ms the bytes need on 8 NDR rails: the
    // transfer is posting-bound and carries no band.
    let bulk = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--json"]);
    let v = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--block-tokens", "16", "--json"]);
    assert_eq!(v["bytes"], bulk["bytes"]);
    assert_eq!(v["descriptors"], 40_960u64);
    assert!((f(&v, "posting_us") - 40_960.0 * 0.83).abs() < 1e-6, "{v}");
    assert!((f(&v, "time_ms") - (2e-3 + 40_960.0 * 0.83e-3)).abs() < 1e-9, "{v}");
    assert!(v["error_band_pct"].is_null());
    assert_eq!(bulk["descriptors"], 0u64);
    assert!(bulk["error_band_pct"].as_f64().is_some());
    // Blocks of 4,096 tokens: 160 descriptors post in 0.13 ms, under the wire: the time is the
    // contiguous transfer's.
    let big = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--block-tokens", "4096", "--json"]);
    assert_eq!(big["descriptors"], 160u64);
    assert!((f(&big, "time_ms") - f(&bulk, "time_ms")).abs() < 1e-12);
    // MLA keeps one latent per layer: DeepSeek-R1's 61 layers x 64 blocks of 64 tokens.
    let mla = json(&["kv-transfer", "--model", "deepseek-r1", "--tokens", "4096", "--block-tokens", "64", "--json"]);
    assert_eq!(mla["descriptors"], 61u64 * 64);
    let text = stdout_ok(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--block-tokens", "16"]);
    assert!(text.contains("40960 descriptors per rank") && text.contains("Band: none: descriptor posting"), "{text}");
}

#[test]
fn decode_tp_ranks_each_receive_their_shard() {
    let once = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "1000", "--json"]);
    // GQA, 8 K/V heads: TP 4 splits the cache 4 ways, the cache crosses once over 4 rails.
    let t4 = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "1000", "--tp", "4", "--json"]);
    assert_eq!(t4["bytes"], once["bytes"]);
    assert_eq!(t4["rails"], 4);
    // TP 16 beyond the 8 K/V heads: each head on two ranks, twice the bytes over the 8 rails.
    let t16 = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "1000", "--tp", "16", "--json"]);
    assert_eq!(t16["bytes"].as_u64(), once["bytes"].as_u64().map(|b| 2 * b));
    assert_eq!(t16["rails"], 8);
    // MLA: every rank holds the whole latent (DeepSeek-V2 §2.1), 8 copies for TP 8.
    let mla = json(&["kv-transfer", "--model", "deepseek-r1", "--tokens", "1000", "--tp", "8", "--json"]);
    assert_eq!(mla["bytes"], 8 * 70_272_000u64);
    fails(&["kv-transfer", "--model", "llama3-8b", "--tokens", "10", "--tp", "0"], &["--tp"]);
}

#[test]
fn custom_shapes_with_head_dim_and_attention_kind() {
    let base = ["serve", "--layers", "32", "--hidden", "4096", "--heads", "32", "--vocab", "32000"];
    let mut mha = base.to_vec();
    mha.push("--json");
    let v = json(&mha);
    assert_eq!(v["attention"]["kind"], "mha");
    assert_eq!(f(&v, "kv_bytes_per_token"), (2 * 32 * 32 * 128 * 2) as f64);
    let mut hd = base.to_vec();
    hd.extend(["--kv-heads", "8", "--head-dim", "64", "--json"]);
    assert_eq!(f(&json(&hd), "kv_bytes_per_token"), (2 * 32 * 8 * 64 * 2) as f64);
    let mut mla = base.to_vec();
    mla.extend(["--attention", "mla", "--kv-latent", "256", "--json"]);
    assert_eq!(f(&json(&mla), "kv_bytes_per_token"), (32 * (256 + 64) * 2) as f64);
}

#[test]
fn bad_input_is_a_one_line_error_naming_the_flag() {
    fails(&["serve", "--model", "llama3-70b", "--tp", "3"], &["--tp", "valid tp: 1, 2, 4, 8"]);
    fails(&["serve", "--model", "llama3-8b", "--precision", "fp4"], &["--precision", "allowed: bf16, fp8"]);
    fails(&["serve", "--model", "llama3-8b", "--phase", "nope"], &["--phase", "allowed: decode, prefill, offline"]);
    fails(&["serve", "--model", "llama3-405b", "--tp", "2"], &["--tp", "raise tp, pp or ep"]);
    fails(&["serve", "--model", "llama3-8b", "--ep", "2"], &["--ep", "dense"]);
    fails(&["serve", "--model", "deepseek-v3", "--precision", "fp8", "--dp", "16", "--ep", "8"], &["--ep", "use ep 16"]);
    fails(&["serve", "--model", "nope"], &["--model", "allowed:", "deepseek-v3"]);
    fails(&["serve", "--model", "llama3-8b", "--attention", "xyz"], &["--attention", "allowed: mha, gqa, mla"]);
    fails(&["serve", "--model", "llama3-8b", "--batch", "4096", "--context", "100000"], &["--batch", "at most"]);
    fails(&["serve", "--model", "llama3-8b", "--batch", "100000"], &["--batch", "1 to 65536"]);
    fails(&["serve", "--model", "llama3-8b", "--tp", "8", "--dp", "8"], &["--dp", "the cluster has 32"]);
    fails(&["serve", "--model", "llama3-8b", "--pp", "64"], &["--pp", "the cluster has 32"]);
    fails(&["serve", "--model", "llama3-8b", "--context", "4194304"], &["--context", "shorten it"]);
    fails(&["serve", "--layers", "32"], &["--hidden"]);
    fails(&["serve", "--model", "llama3-8b", "--memory-fraction", "2"], &["--memory-fraction", "0.1 to 1"]);
    fails(&["kv-transfer", "--model", "llama3-8b", "--tokens", "10", "--rails", "9"], &["--rails", "1 to 8"]);
    fails(&["kv-transfer", "--model", "llama3-8b", "--tokens", "0"], &["--tokens"]);
    fails(&["kv-transfer", "--model", "llama3-8b", "--tokens", "10", "--block-tokens", "0"], &["--block-tokens", "1 and 65536"]);
    fails(&["kv-transfer", "--model", "llama3-8b", "--tokens", "10", "--nodes", "1", "--nics-per-node", "0"], &["--nics-per-node"]);
}

#[test]
fn search_finds_the_best_layout_at_a_per_user_speed() {
    let v = json(&["serve", "--model", "deepseek-v3", "--nodes", "8", "--precision", "fp8", "--search", "--min-tokens-per-user", "20", "--json"]);
    let best = &v["best"];
    assert!(best["tokens_per_s_per_user"].as_f64().unwrap() >= 20.0, "{v}");
    assert!(v["evaluated"].as_u64().unwrap() > 100);
    // The best point is the best: no evaluated deployment at that speed does better, checked
    // by evaluating its neighbours directly.
    let (tp, ep, dp, batch) = (best["tp"].as_u64().unwrap(), best["ep"].as_u64().unwrap(), best["dp"].as_u64().unwrap(), best["batch"].as_u64().unwrap());
    let direct = json(&["serve", "--model", "deepseek-v3", "--nodes", "8", "--precision", "fp8", "--tp", &tp.to_string(), "--ep", &ep.to_string(), "--dp", &dp.to_string(), "--batch", &batch.to_string(), "--json"]);
    assert!((direct["tokens_per_s_per_gpu"].as_f64().unwrap() / best["tokens_per_s_per_gpu"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    let (code, out, _) = run(&["serve", "--model", "deepseek-v3", "--nodes", "8", "--precision", "fp8", "--tp", &tp.to_string(), "--ep", &ep.to_string(), "--dp", &dp.to_string(), "--batch", &(batch * 2).to_string(), "--json"]);
    if code == Some(0) {
        let twice: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(twice["tokens_per_s_per_user"].as_f64().unwrap() < 20.0 || twice["tokens_per_s_per_gpu"].as_f64().unwrap() <= best["tokens_per_s_per_gpu"].as_f64().unwrap());
    }
    let none = json(&["serve", "--model", "llama3-405b", "--nodes", "2", "--search", "--min-tokens-per-user", "100000", "--json"]);
    assert!(none["best"].is_null());
}

/// Issue 37: `serve --search` with no flags is serving.html's search: the serving defaults'
/// lengths (context 1,536), 20 tokens/s per user, 16 batches an octave up to 4,096, the same
/// function (src/pages/serving/job.rs's test holds the page's worker job to it); `--batch-steps
/// 1` is the old powers-of-two grid.
#[test]
fn the_default_search_is_the_pages() {
    use fabricscope_serving::{search, serving_preset, ServingDefaults, DEFAULTS};
    let topo = fabricscope_model::Cluster { nodes: 2, ..fabricscope_model::Cluster::default() }.topology().unwrap();
    let m = serving_preset("llama3-70b").unwrap();
    let grid = |steps| search(&topo, &m, &ServingDefaults::search_options(DEFAULTS.deployment(), DEFAULTS.min_tokens_per_s_per_user, DEFAULTS.max_batch, steps)).unwrap();
    let page = grid(DEFAULTS.batch_steps);
    let best = page.best.as_ref().unwrap();
    let v = json(&["serve", "--search", "--model", "llama3-70b", "--nodes", "2", "--json"]);
    let b = &v["best"];
    assert_eq!((b["tp"].as_u64(), b["ep"].as_u64(), b["dp"].as_u64(), b["batch"].as_u64()), (Some(best.tp as u64), Some(best.ep as u64), Some(best.dp as u64), Some(best.batch as u64)), "{v}");
    assert!((b["tokens_per_s_per_gpu"].as_f64().unwrap() / best.tokens_per_s_per_gpu - 1.0).abs() < 1e-9);
    assert_eq!(v["evaluated"].as_u64(), Some(page.points.len() as u64));
    // Memory in GiB of the card, with the engine's share stated, as `serve` and the page give it.
    assert_eq!((v["memory"]["hbm_capacity_gib"].as_f64(), v["memory"]["hbm_usable_gib"].as_f64(), v["memory"]["memory_fraction"].as_f64()), (Some(80.0), Some(72.0), Some(0.9)), "{v}");
    let t = stdout_ok(&["serve", "--search", "--model", "llama3-70b", "--nodes", "2"]);
    assert!(t.contains("GiB per GPU of the 72.0 GiB the engine may use (fraction 0.9 of 80.0 GiB)") && t.contains("batches 16 an octave up to 4096"), "{t}");
    let coarse = grid(1);
    let c = coarse.best.as_ref().unwrap();
    let v1 = json(&["serve", "--search", "--model", "llama3-70b", "--nodes", "2", "--batch-steps", "1", "--json"]);
    assert_eq!((v1["best"]["batch"].as_u64(), v1["evaluated"].as_u64()), (Some(c.batch as u64), Some(coarse.points.len() as u64)));
    assert!(best.tokens_per_s_per_gpu >= c.tokens_per_s_per_gpu);
    fails(&["serve", "--search", "--model", "llama3-70b", "--batch-steps", "0"], &["--batch-steps", "1"]);
    fails(&["serve", "--model", "llama3-70b", "--batch-steps", "4"], &["--batch-steps", "applies to --search"]);
    fails(&["serve", "--search", "--model", "llama3-70b", "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "50", "--batch-steps", "4"], &["--batch-steps", "without --rate"]);
}

#[test]
fn memory_is_gib_of_the_card_under_the_engine_fraction_and_reserve() {
    // Issue 39: Qwen3-32B FP8 at batch 64 on one H100 (2,048 in, 1,024 out: 2,560 tokens of
    // context). 31.96 GiB of weights + 64 x 2,560 x 0.25 MiB = 40.0 GiB of KV cache fits the
    // 0.9 x 80 GiB = 72.0 GiB the engine may use (in decimal GB, 67.06 GiB, it was refused).
    let base = ["serve", "--gpu", "h100", "--nodes", "1", "--model", "qwen3-32b", "--precision", "fp8", "--batch", "64", "--tp", "1", "--input-len", "2048", "--output-len", "1024"];
    let v = json(&[&base[..], &["--json"]].concat());
    assert_eq!((f(&v, "hbm_capacity_gib"), f(&v, "memory_fraction"), f(&v, "reserve_gib"), f(&v, "hbm_usable_gib")), (80.0, 0.9, 0.0, 72.0));
    assert!((f(&v, "kv_cache_gib") - 40.0).abs() < 1e-9);
    assert!((f(&v, "memory_gib") - 71.96).abs() < 0.01, "{v}");
    let text = stdout_ok(&base);
    assert!(text.contains("memory 72.0 GiB per GPU (weights 32.0, KV cache 40.0) of the 72.0 GiB the engine may use (fraction 0.9 of 80.0 GiB; at most 64"), "{text}");
    fails(&[&base[..], &["--reserve-gib", "2"]].concat(), &["--batch", "need 72.0 GiB per GPU", "more than the 70.0 GiB the engine may use (fraction 0.9 of 80.0 GiB, less 2.0 GiB reserved)"]);
    fails(&[&base[..], &["--reserve-gib", "2000"]].concat(), &["--reserve-gib", "0 to 1024"]);
    fails(&[&base[..], &["--reserve-gib", "75"]].concat(), &["--reserve-gib", "leaves nothing"]);
    fails(&["serve", "--gpu", "h100", "--model", "llama3-70b", "--tp", "1"], &["--tp", "the weights need", "GiB per GPU", "more than the 72.0 GiB the engine may use (fraction 0.9 of 80.0 GiB)"]);
}

#[test]
fn kv_transfer_takes_nvlink_inside_an_nvl72_rack_and_the_nics_across() {
    // Llama 3 70B, 4,096 BF16 tokens: 1,342,177,280 bytes. In a GB200 NVL72 rack (the default
    // there) over NVLink5's 900 GB/s; across racks over a tray's 4 NDR NICs, 191 GB/s.
    let kv = ["kv-transfer", "--preset", "gb200-nvl72", "--model", "llama3-70b", "--tokens", "4096", "--json"];
    let inside = json(&kv);
    let across = json(&[&kv[..], &["--kv-path", "other-domain"]].concat());
    assert_eq!((inside["path"].as_str(), across["path"].as_str()), (Some("same-domain"), Some("other-domain")));
    assert_eq!(f(&inside, "bandwidth_GBps"), 900.0);
    assert!(f(&inside, "effective_GBps") > 890.0, "{inside}");
    assert!((f(&across, "bandwidth_GBps") - 191.0).abs() < 1e-9);
    assert!(f(&across, "time_ms") > 4.5 * f(&inside, "time_ms"));
    // DGX H100: another node by default, 8 NDR rails (382 GB/s), as before.
    let h = json(&["kv-transfer", "--model", "llama3-70b", "--tokens", "4096", "--json"]);
    assert_eq!(h["path"].as_str(), Some("other-domain"));
    assert!((f(&h, "bandwidth_GBps") - 382.0).abs() < 1e-9);
    // serve --disaggregated: the TTFT's transfer follows the same path.
    let s = ["serve", "--preset", "gb200-nvl72", "--model", "llama3-70b", "--tp", "4", "--precision", "fp8", "--disaggregated", "true", "--json"];
    let near = json(&s);
    let far = json(&[&s[..], &["--kv-path", "other-domain"]].concat());
    let (a, b) = (near["breakdown"]["kv_transfer"].as_f64().unwrap(), far["breakdown"]["kv_transfer"].as_f64().unwrap());
    assert!(b > 4.5 * a && a > 0.0, "{a} vs {b}");
    assert_eq!(near["deployment"]["kv_path"], serde_json::Value::Null);
    fails(&[&s[..], &["--kv-path", "same-domain", "--kv-rails", "2"]].concat(), &["--kv-rails", "another domain"]);
    fails(&[&kv[..], &["--kv-path", "upstairs"]].concat(), &["--kv-path", "same-domain, other-domain"]);
    fails(&["kv-transfer", "--model", "llama3-70b", "--tokens", "10", "--tp", "8", "--kv-path", "same-domain"], &["--kv-path", "scale-up domain's 8"]);
}
