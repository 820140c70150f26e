//! `fabricscope calibrate` and `--calibration` on real published logs (validation/logs/):
//! the file `calibrate --json` prints is what `collective`/`sweep --calibration` read, with the
//! same numbers as the in-process prediction; another cluster, a bad, wrong-version or stale
//! file is refused naming the flag; a one-node calibration says the network is the catalog's.

use fabricscope_check::calibrate::{calibrate, read_log};
use fabricscope_check::Given;
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, ProtoChoice};
use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

fn path(p: &str) -> String {
    format!("{}/../../{p}", env!("CARGO_MANIFEST_DIR"))
}

const B200: &str = "validation/logs/b200-2node-sendrecv-two-runs.txt";
const H100_1NODE: &str = "validation/logs/h100-1node-all-reduce-nvls.txt";
const MI300X_1NODE: &str = "crates/check/tests/fixtures/mi300x-1node-rccl-all-reduce.txt";

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN).args(args).output().expect("the fabricscope binary runs");
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The JSON a successful run prints.
fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// `calibrate LOG --json` written to a temporary file; its path.
fn file_of(log: &str, name: &str) -> String {
    let (code, out, err) = run(&["calibrate", &path(log), "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let f = std::env::temp_dir().join(format!("fabricscope-calibrate-{}-{name}.json", std::process::id()));
    std::fs::write(&f, out).unwrap();
    f.display().to_string()
}

#[test]
fn the_text_says_the_fit_in_words_and_every_row_against_both_predictions() {
    let (code, out, err) = run(&["calibrate", &path(B200)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("The network delivers 102% of the catalog's 8 x InfiniBand NDR 400G goodput, 97% of line rate (2-node SendRecv plateau): as designed"), "{out}");
    assert!(out.contains("network_bandwidth_share"), "{out}");
    assert!(out.contains("measured GB/s     calibrated        catalog"), "{out}");
    // The 256 MiB row: 43.14 measured, 43.07 calibrated, 42.35 on the catalog.
    assert!(out.lines().any(|l| l.contains("268435456") && l.contains("43.14") && l.contains("43.07") && l.contains("42.35")), "{out}");
}

#[test]
fn the_json_file_round_trips_into_collective_with_the_in_process_numbers() {
    let file = file_of(B200, "roundtrip");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    assert!(v["logs"][0]["digest"].as_str().unwrap().starts_with("fnv1a64:"));
    for key in ["cluster", "calibration", "parameters", "summary", "not_constrained", "features", "rows"] {
        assert!(v.get(key).is_some(), "{key}");
    }
    let (code, out, err) = run(&["collective", "--calibration", &file, "--op", "send_recv", "--bytes", "16G", "--nodes", "8", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    // In process: the same log, fitted and applied.
    let bytes = std::fs::read(path(B200)).unwrap();
    let f = calibrate(&[read_log(&path(B200), bytes).unwrap()], &Cluster::default(), &Given::default()).unwrap();
    let t = Cluster { nodes: 8, ..f.cluster.clone() }.topology().unwrap();
    let comm = Comm::new(&t, t.whole()).unwrap().with_calibration(&f.calibration);
    let p = comm.predict(Collective::SendRecv, Bytes(16 << 30), AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
    let busbw = j["busbw_GBps"].as_f64().unwrap();
    assert!((busbw / p.busbw.0 - 1.0).abs() < 1e-9, "{busbw} vs {}", p.busbw.0);
    let i = f.calibration.busbw_intervals(&p, 8).unwrap();
    let lo = j["intervals"]["busbw_GBps"]["lo"].as_f64().unwrap();
    assert!((lo / i.busbw_gbps.lo - 1.0).abs() < 1e-9);
    assert_eq!(j["calibration"]["note"], "measured at 2 nodes, predicted at 8 nodes");
    assert_eq!(j["calibration"]["calibrated"], true);
    // 24.61 GB/s calibrated; Together AI's DGX Cloud B200 measured 25.4 at 8 nodes.
    assert!((busbw - 25.4).abs() / 25.4 < 0.15, "{busbw}");
    let (code, text, _) = run(&["collective", "--calibration", &file, "--op", "send_recv", "--bytes", "16G", "--nodes", "8"]);
    assert_eq!(code, Some(0));
    assert!(text.contains("Calibrated from 1 log: measured at 2 nodes, predicted at 8 nodes."), "{text}");
    let (code, sweep, err) = run(&["sweep", "--calibration", &file, "--op", "all_reduce", "--nodes", "16", "--min", "1M", "--max", "1G", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let rows: Vec<Value> = serde_json::from_str(&sweep).unwrap();
    assert_eq!(rows.len(), 11);
    assert!(rows.iter().all(|r| r["intervals"]["busbw_GBps"]["basis"].as_str().unwrap().starts_with("calibrated from 1 log")));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn another_cluster_or_a_bad_file_is_refused_naming_the_flag() {
    let file = file_of(B200, "refuse");
    let (code, _, err) = run(&["collective", "--calibration", &file, "--op", "all_reduce", "--bytes", "1G", "--gpu", "h100"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration: the calibration describes B200") && err.contains("another cluster"), "{err}");
    let (code, _, err) = run(&["sweep", "--calibration", &file, "--op", "all_reduce", "--nic", "roce-400"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration") && err.contains("--nic"), "{err}");
    // --nodes may differ: that is the question.
    let (code, _, err) = run(&["collective", "--calibration", &file, "--op", "all_reduce", "--bytes", "1G", "--nodes", "64"]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["version"] = 7.into();
    let wrong = format!("{file}.v7");
    std::fs::write(&wrong, v.to_string()).unwrap();
    let (code, _, err) = run(&["collective", "--calibration", &wrong, "--op", "all_reduce", "--bytes", "1G"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration") && err.contains("version 7"), "{err}");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let last = v["rows"].as_array().unwrap().len() - 1;
    v["rows"][last]["catalog_busbw_GBps"] = 99.0.into();
    let stale = format!("{file}.stale");
    std::fs::write(&stale, v.to_string()).unwrap();
    let (code, _, err) = run(&["collective", "--calibration", &stale, "--op", "all_reduce", "--bytes", "1G"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration") && err.contains("stale"), "{err}");
    let (code, _, err) = run(&["collective", "--calibration", "/nonexistent/cluster.json", "--op", "all_reduce", "--bytes", "1G"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration: cannot read"), "{err}");
    let (code, _, err) = run(&["collective", "--calibration", &path(B200), "--op", "all_reduce", "--bytes", "1G"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration") && err.contains("not JSON"), "{err}");
    for f in [file, wrong, stale] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_one_node_calibration_says_the_network_is_the_catalogs() {
    let file = file_of(H100_1NODE, "one-node");
    let (code, out, err) = run(&["collective", "--calibration", &file, "--op", "all_reduce", "--bytes", "1G", "--nodes", "2", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["calibration"]["calibrated"], false);
    assert!(j["calibration"]["note"].as_str().unwrap().contains("the network is the catalog's (not calibrated)"), "{out}");
    assert!(j["intervals"]["busbw_GBps"]["basis"].as_str().unwrap().contains("not calibrated"), "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn logs_of_different_gpus_are_refused() {
    let (code, _, err) = run(&["calibrate", &path(H100_1NODE), &path(MI300X_1NODE)]);
    assert_eq!(code, Some(2));
    assert!(err.contains("LOG:") && err.contains("not the same cluster") && err.contains("GPU"), "{err}");
}

#[test]
fn train_times_its_collectives_on_the_calibrated_cluster() {
    let file = file_of(B200, "train");
    let step = |f: &str| -> Value {
        let (code, out, err) = run(&["train", "--calibration", f, "--nodes", "16", "--model", "llama3-70b", "--json"]);
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let healthy = step(&file);
    assert_eq!(healthy["calibration"]["note"], "measured at 2 nodes, predicted at 16 nodes");
    // The step's interval: the training class's combined with the fit's uncertainty.
    let basis = healthy["intervals"]["step_time_s"]["basis"].as_str().unwrap();
    assert!(basis.starts_with("calibrated from 1 log (measured at 2 nodes, predicted at 16 nodes)"), "{basis}");
    let i = &healthy["intervals"]["step_time_s"];
    let t = healthy["step_time_s"].as_f64().unwrap();
    assert!(i["lo"].as_f64().unwrap() < t && t < i["hi"].as_f64().unwrap());
    // The same file with the NICs at half the catalog's: the data-parallel traffic slows the step.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["calibration"]["network"]["bandwidth"]["share"] = 0.5.into();
    v["calibration"]["network"]["bandwidth"]["by_op"][0]["share"] = 0.5.into();
    let slow_file = format!("{file}.slow");
    std::fs::write(&slow_file, v.to_string()).unwrap();
    let slow = step(&slow_file);
    let (a, b) = (healthy["step_time_s"].as_f64().unwrap(), slow["step_time_s"].as_f64().unwrap());
    assert!(b > a, "{b} vs {a}");
    assert_eq!(slow["calibration"]["catalog_step_time_s"], healthy["calibration"]["catalog_step_time_s"]);
    for f in [file, slow_file] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn search_ranks_layouts_on_the_calibrated_cluster_and_says_where_it_was_measured() {
    let file = file_of(B200, "search");
    let (code, out, err) = run(&["search", "--calibration", &file, "--nodes", "16", "--model", "llama3-70b", "--top", "2", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["calibration"]["note"], "measured at 2 nodes, predicted at 16 nodes");
    assert_eq!(v["best"].as_array().unwrap().len(), 2);
    let (code, _, err) = run(&["search", "--calibration", &file, "--gpu", "h100", "--model", "llama3-70b"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration") && err.contains("--gpu"), "{err}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn serve_times_its_tp_all_reduce_on_the_calibrated_cluster() {
    let file = file_of(B200, "serve");
    let (code, out, err) = run(&["serve", "--calibration", &file, "--model", "llama3-70b", "--tp", "16", "--batch", "64", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // TP 16 spans both nodes: every all-reduce pays the measured +20.9 µs per operation, so a
    // token takes longer than on the catalog's network.
    let (tpot, catalog) = (v["tpot_ms"].as_f64().unwrap(), v["calibration"]["catalog_tpot_ms"].as_f64().unwrap());
    assert!(tpot > catalog * 1.05, "{tpot} vs {catalog}");
    assert_eq!(v["calibration"]["note"], "measured at 2 nodes, predicted at 2 nodes (a measured node count)");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn ep_times_dispatch_and_combine_with_the_calibrated_links() {
    let file = file_of(B200, "ep");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["calibration"]["network"]["bandwidth"]["share"] = 0.5.into();
    v["calibration"]["network"]["bandwidth"]["by_op"][0]["share"] = 0.5.into();
    let slow = format!("{file}.slow");
    std::fs::write(&slow, v.to_string()).unwrap();
    let (code, out, err) = run(&["ep", "--calibration", &slow, "--nodes", "8", "--ep", "64", "--tokens", "4096", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["calibration"]["network_share"], 0.5);
    // Normal kernels at 8 nodes are network bound: half the NICs' share, about twice the time.
    let (t, catalog) = (j["dispatch"]["time_us"].as_f64().unwrap(), j["calibration"]["catalog_dispatch_us"].as_f64().unwrap());
    assert!(t > 1.6 * catalog && t < 2.1 * catalog, "{t} vs {catalog}");
    assert_eq!(j["calibration"]["note"], "measured at 2 nodes, predicted at 8 nodes");
    for f in [file, slow] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn compare_shows_the_calibrated_design_as_designed_and_as_measured() {
    let file = file_of(B200, "compare");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut cluster = v["cluster"].clone();
    cluster["nodes"] = 16.into();
    let dir = std::env::temp_dir();
    let b200 = dir.join(format!("fabricscope-calibrate-{}-b200-16.json", std::process::id())).display().to_string();
    let h100 = dir.join(format!("fabricscope-calibrate-{}-h100-16.json", std::process::id())).display().to_string();
    std::fs::write(&b200, serde_json::json!({ "cluster": cluster }).to_string()).unwrap();
    std::fs::write(&h100, r#"{"cluster":{"nodes":16}}"#).unwrap();
    v["calibration"]["network"]["bandwidth"]["share"] = 0.5.into();
    v["calibration"]["network"]["bandwidth"]["by_op"][0]["share"] = 0.5.into();
    let slow = format!("{file}.slow");
    std::fs::write(&slow, v.to_string()).unwrap();
    let (code, out, err) = run(&["compare", &b200, &h100, "--calibration", &slow, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = j["designs"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 3);
    assert!(names[1].ends_with("b200-16 (as measured)"), "{names:?}");
    let busbw = |i: usize| j["designs"][i]["allreduce_busbw_GBps"].as_f64().unwrap();
    // Half the NICs' share: the 16-node AllReduce about halves.
    assert!((0.4..0.6).contains(&(busbw(1) / busbw(0))), "{} vs {}", busbw(1), busbw(0));
    assert!(j["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("measured at 2 nodes, predicted at 16 nodes")));
    // No design of the calibrated cluster: refused.
    let (code, _, err) = run(&["compare", &h100, &h100, "--calibration", &slow]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--calibration: no design is the calibrated cluster"), "{err}");
    for f in [file, slow, b200, h100] {
        let _ = std::fs::remove_file(f);
    }
}

/// The flow model on a cluster as measured (issue 40: congestion runs on it too): `--routing`
/// times the flows' collectives and the step on the calibrated cluster. On a non-blocking
/// InfiniBand tree, adaptive routing keeps the whole network (fraction 1), so the study's busbw
/// is the calibrated prediction itself, well under the catalog's study (the A3 Mega log's fit
/// with its NICs at 46% of the catalog's goodput); at 3:1 under ECMP the flows only take bandwidth
/// away from it; the step alone is `train --calibration`'s and no seed beats it.
#[test]
fn the_flow_model_runs_on_the_calibrated_cluster() {
    // The A3 Mega log's fit with its NICs set to 46% of the catalog's goodput: a network well
    // below the design (the log itself reads as NVLS off on a network as designed).
    let fit = file_of("validation/logs/h100-2node-a3mega-all-reduce.txt", "flow");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&fit).unwrap()).unwrap();
    v["calibration"]["network"]["bandwidth"]["share"] = 0.46.into();
    v["calibration"]["network"]["bandwidth"]["by_op"][0]["share"] = 0.46.into();
    let file = format!("{fit}.slow");
    std::fs::write(&file, v.to_string()).unwrap();
    let _ = std::fs::remove_file(&fit);
    let json = json_of;
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    let op = ["--nodes", "16", "--op", "all_reduce", "--bytes", "1G"];
    let calibrated = json(&[&["collective", "--calibration", &file][..], &op, &["--json"]].concat());
    let flows = json(&[&["collective", "--calibration", &file][..], &op, &["--routing", "adaptive", "--seeds", "4", "--json"]].concat());
    let catalog = json(&[&["collective"][..], &op, &["--routing", "adaptive", "--seeds", "4", "--json"]].concat());
    let p50 = f(&flows["busbw_GBps_over_seeds"], "p50");
    assert!((p50 / f(&calibrated, "busbw_GBps") - 1.0).abs() < 1e-9, "{p50} vs {}", calibrated["busbw_GBps"]);
    assert!(p50 < 0.6 * f(&catalog["busbw_GBps_over_seeds"], "p50"), "{p50} vs the catalog's {}", catalog["busbw_GBps_over_seeds"]);
    assert_eq!(flows["calibration"]["logs"], 1);
    assert!(flows["intervals"]["busbw_GBps"]["basis"].as_str().unwrap().starts_with("calibrated from 1 log"), "{}", flows["intervals"]);
    // 64 nodes, no rails, 3:1 under ECMP: the flows keep the same share of the calibrated
    // network as of the catalog's (the fraction is the fabric's; the logs set the NICs' rate).
    let fabric = ["--nodes", "64", "--rail-optimized", "false", "--oversubscription", "3"];
    let big = ["--op", "all_reduce", "--bytes", "1G"];
    let alone = json(&[&["collective", "--calibration", &file][..], &fabric, &big, &["--json"]].concat());
    let thin = json(&[&["collective", "--calibration", &file][..], &fabric, &big, &["--routing", "ecmp", "--seeds", "8", "--json"]].concat());
    let thin_catalog = json(&[&["collective"][..], &fabric, &big, &["--routing", "ecmp", "--seeds", "8", "--json"]].concat());
    let (kept, kept_catalog) = (f(&thin["busbw_GBps_over_seeds"], "p50") / f(&alone, "busbw_GBps"), f(&thin_catalog["busbw_GBps_over_seeds"], "p50") / f(&thin_catalog, "busbw_GBps"));
    assert!(f(&thin["busbw_GBps_over_seeds"], "p90") <= f(&alone, "busbw_GBps") * (1.0 + 1e-9) && kept < 0.8, "{} vs {}", thin["busbw_GBps_over_seeds"], alone["busbw_GBps"]);
    assert!((kept / kept_catalog - 1.0).abs() < 0.05, "share kept: {kept} as measured, {kept_catalog} as designed");

    let job = ["--model", "llama3-70b", "--tp", "8", "--pp", "4"];
    let step = json(&[&["train", "--calibration", &file][..], &fabric, &job, &["--json"]].concat());
    let seeds = json(&[&["train", "--calibration", &file][..], &fabric, &job, &["--routing", "ecmp", "--seeds", "8", "--json"]].concat());
    assert!((f(&seeds, "step_time_s") / f(&step, "step_time_s") - 1.0).abs() < 1e-9, "the step alone is train --calibration's");
    assert!(f(&seeds["step_time_s_over_seeds"], "p10") >= f(&step, "step_time_s") * (1.0 - 1e-9), "{}", seeds["step_time_s_over_seeds"]);
    assert!(f(&step, "step_time_s") > 1.005 * f(&step["calibration"], "catalog_step_time_s"), "the calibration moves the step: {}", step["calibration"]);
    assert_eq!(seeds["calibration"]["note"], "measured at 2 nodes, predicted at 64 nodes");
}

/// `serve --search` on a cluster as measured: the best deployment's figures are what
/// `serve --calibration` gives that deployment (the search times every candidate on the
/// calibrated cluster), and the JSON says where it was measured.
#[test]
fn serve_search_runs_on_the_calibrated_cluster() {
    let file = file_of("validation/logs/h100-2node-a3mega-all-reduce.txt", "serve-search");
    let s = json_of(&["serve", "--calibration", &file, "--nodes", "2", "--model", "llama3-70b", "--search", "--min-tokens-per-user", "40", "--json"]);
    assert!(s["calibration"].as_str().unwrap().starts_with("calibrated from 1 log: measured at 2 nodes"), "{}", s["calibration"]);
    let b = &s["best"];
    let n = |k: &str| b[k].as_u64().unwrap_or_else(|| panic!("{k} in {b}")).to_string();
    let one = json_of(&["serve", "--calibration", &file, "--nodes", "2", "--model", "llama3-70b", "--tp", &n("tp"), "--ep", &n("ep"), "--dp", &n("dp"), "--batch", &n("batch"), "--json"]);
    let (a, e) = (b["tokens_per_s_per_gpu"].as_f64().unwrap(), one["tokens_per_s_per_gpu"].as_f64().unwrap());
    assert!((a / e - 1.0).abs() < 1e-9, "search {a}, serve --calibration {e}");
}
