//! End-to-end tests of the `fabricscope` binary: NCCL's published model outputs, one-line
//! errors with exit code 2, sweeps, tiers, and no panics anywhere in the flag space.

use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");
const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../validation/nccl-golden.csv"
);

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Out {
    let o = Command::new(BIN)
        .args(args)
        .output()
        .expect("the fabricscope binary runs");
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run_ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(
        o.code,
        Some(0),
        "fabricscope {}: stderr {}",
        args.join(" "),
        o.stderr
    );
    assert!(o.stderr.is_empty(), "stderr: {}", o.stderr);
    o.stdout
}

fn json(args: &[&str]) -> Value {
    let out = run_ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing or not a number in {v}"))
}

/// One row of validation/nccl-golden.csv, read by column name.
struct Golden {
    collective: String,
    algorithm: String,
    protocol: String,
    nodes: u32,
    gpus_per_node: u32,
    n_channels: u32,
    latency_us: f64,
    algbw: f64,
}

fn golden_rows() -> Vec<Golden> {
    let text = std::fs::read_to_string(GOLDEN).expect("validation/nccl-golden.csv is readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let (c, a, p, n, g, ch, lat, bw) = (
        col("collective"),
        col("algorithm"),
        col("protocol"),
        col("nodes"),
        col("gpus_per_node"),
        col("n_channels"),
        col("latency_us"),
        col("algbw_GBps"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // Only the free-text source column (last) may hold quoted commas.
            let f: Vec<&str> = l.splitn(header.len(), ',').collect();
            Golden {
                collective: f[c].to_string(),
                algorithm: f[a].to_string(),
                protocol: f[p].to_string(),
                nodes: f[n].parse().unwrap(),
                gpus_per_node: f[g].parse().unwrap(),
                n_channels: f[ch].parse().unwrap(),
                latency_us: f[lat].parse().unwrap(),
                algbw: f[bw].parse().unwrap(),
            }
        })
        .collect()
}

/// NCCL's `ncclTopoGetAlgoTime` from a golden table entry (src/graph/tuning.cc@v2.27.5-1):
/// latency (x1.4 for the ring plateau of multi-node AllReduce Simple once each rank's share of
/// a channel reaches 64 bytes; comm->nChannels is twice the ring's channels) + bytes/(1000 bw).
/// At 1 GiB the tree correction factor is 1 (log2(2^30/64) = 24 is past the table).
fn nccl_time(r: &Golden, bytes: u64) -> f64 {
    let mut lat = r.latency_us;
    let ranks = (r.nodes * r.gpus_per_node) as u64;
    let comm_channels = 2 * r.n_channels as u64;
    if r.collective == "all_reduce"
        && r.algorithm == "ring"
        && r.protocol == "Simple"
        && r.nodes > 1
        && bytes / (comm_channels * ranks) >= 64
    {
        lat *= 1.4;
    }
    lat + bytes as f64 / (1000.0 * r.algbw)
}

#[test]
fn predictions_match_nccl_2_27_5_golden_outputs_at_1_gib() {
    let rows = golden_rows();
    assert_eq!(rows.len(), 15, "validation/nccl-golden.csv has 15 rows");
    let bytes = 1u64 << 30;
    for r in &rows {
        let nodes = r.nodes.to_string();
        let gpn = r.gpus_per_node.to_string();
        let proto = r.protocol.to_ascii_lowercase();
        let args = [
            "collective",
            "--gpu",
            "h100",
            "--nodes",
            &nodes,
            "--gpus-per-node",
            &gpn,
            "--nic",
            "ib-ndr",
            "--nics-per-node",
            "8",
            "--op",
            &r.collective,
            "--algo",
            &r.algorithm,
            "--proto",
            &proto,
            "--bytes",
            "1G",
            "--json",
        ];
        let v = json(&args);
        let want = nccl_time(r, bytes);
        let what = format!(
            "{} {} {} on {}x{}",
            r.collective, r.algorithm, r.protocol, r.nodes, r.gpus_per_node
        );
        assert_eq!(v["bytes"].as_u64(), Some(bytes), "{what}");
        assert_eq!(v["op"], r.collective.as_str(), "{what}");
        assert_eq!(
            v["algorithm"].as_str().map(str::to_ascii_lowercase),
            Some(r.algorithm.clone()),
            "{what}"
        );
        assert_eq!(v["protocol"].as_str(), Some(r.protocol.as_str()), "{what}");
        assert_eq!(
            v["ranks"].as_u64(),
            Some((r.nodes * r.gpus_per_node) as u64),
            "{what}"
        );
        // NCCL's own estimate is reproduced; the expected (measured) time is Fabricscope's own.
        let got = num(&v, "nccl_model_time_us");
        assert!(
            (got - want).abs() / want < 0.005,
            "{what}: nccl_model_time_us {got} vs NCCL {want}"
        );
        assert!(num(&v, "time_us") > 0.0, "{what}");
        assert!(v["error_band_pct"].is_null() || num(&v, "error_band_pct") >= 0.0, "{what}");
        assert!(v["validated_cases"].as_u64().is_some(), "{what}");
        // algbw is bytes/time, busbw the nccl-tests factor times it.
        let algbw = num(&v, "algbw_GBps");
        assert!(
            (algbw - bytes as f64 / (num(&v, "time_us") * 1e3)).abs() < 1e-6 * algbw,
            "{what}"
        );
        let n = (r.nodes * r.gpus_per_node) as f64;
        let factor = if r.collective == "all_reduce" {
            2.0 * (n - 1.0) / n
        } else {
            (n - 1.0) / n
        };
        assert!(
            (num(&v, "busbw_GBps") - algbw * factor).abs() < 1e-6 * algbw,
            "{what}"
        );
    }
}

#[test]
fn json_has_the_documented_fields() {
    let v = json(&[
        "collective",
        "--op",
        "all_reduce",
        "--bytes",
        "8G",
        "--json",
    ]);
    for key in [
        "time_us",
        "algbw_GBps",
        "busbw_GBps",
        "algorithm",
        "protocol",
        "bottleneck",
        "bytes",
        "ranks",
        "op",
    ] {
        assert!(!v[key].is_null(), "{key} missing in {v}");
    }
    assert_eq!(v["bytes"].as_u64(), Some(8 << 30));
    assert_eq!(v["ranks"].as_u64(), Some(32));
    assert_eq!(v["op"], "all_reduce");
    assert_eq!(v["bottleneck"], "nic");
}

#[test]
fn human_output_states_units_and_direction() {
    let out = run_ok(&["collective", "--op", "all_reduce", "--bytes", "8G"]);
    assert!(
        out.contains("busbw") && out.contains("GB/s per direction"),
        "{out}"
    );
    assert!(out.contains("algbw"), "{out}");
}

/// Exit code 2, nothing on stdout, exactly one line on stderr that names `flag`.
fn assert_usage_error(args: &[&str], flag: &str) {
    let o = run(args);
    let what = format!("fabricscope {}", args.join(" "));
    assert_eq!(o.code, Some(2), "{what}: stderr {}", o.stderr);
    assert!(o.stdout.is_empty(), "{what}: stdout {}", o.stdout);
    assert_eq!(o.stderr.lines().count(), 1, "{what}: stderr {:?}", o.stderr);
    assert!(o.stderr.starts_with("error: "), "{what}: {}", o.stderr);
    assert!(
        o.stderr.contains(flag),
        "{what}: {} does not name {flag}",
        o.stderr
    );
}

#[test]
fn bad_input_is_one_line_naming_the_flag_with_exit_code_2() {
    let op = ["collective", "--op", "all_reduce", "--bytes", "8G"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        op.iter().copied().chain(extra.iter().copied()).collect()
    };

    assert_usage_error(&with(&["--gpu", "h900"]), "--gpu");
    let o = run(&with(&["--gpu", "h900"]));
    assert!(o.stderr.contains("allowed: v100, a100"), "{}", o.stderr);

    assert_usage_error(&with(&["--nodes", "0"]), "--nodes");
    assert_usage_error(&with(&["--algo", "nvls", "--gpu", "a100"]), "--algo");
    let o = run(&with(&["--algo", "nvls", "--gpu", "a100"]));
    assert!(
        o.stderr.contains("ring") && o.stderr.contains("tree"),
        "{}",
        o.stderr
    );
    assert_usage_error(&with(&["--sharp", "--nic", "roce-400"]), "--sharp");
    // 4 nodes x 8 NICs = 32 NICs on one leaf of 8 ports.
    assert_usage_error(
        &with(&[
            "--nodes",
            "4",
            "--nics-per-node",
            "8",
            "--leaf",
            "1",
            "--radix",
            "8",
        ]),
        "--leaf",
    );

    // Absurd or malformed counts and sizes.
    assert_usage_error(&with(&["--nodes", "-1"]), "--nodes");
    assert_usage_error(&with(&["--nodes", "99999999999"]), "--nodes");
    assert_usage_error(&with(&["--nodes", "4000000000"]), "--nodes");
    assert_usage_error(&with(&["--gpus-per-node", "0"]), "--gpus-per-node");
    assert_usage_error(&with(&["--nics-per-node", "0"]), "--nics-per-node");
    assert_usage_error(&with(&["--radix", "100000"]), "--radix");
    assert_usage_error(&with(&["--group-ranks", "0"]), "--group-ranks");
    assert_usage_error(
        &["collective", "--op", "all_reduce", "--bytes", "0"],
        "--bytes",
    );
    assert_usage_error(
        &["collective", "--op", "all_reduce", "--bytes", "8Q"],
        "--bytes",
    );
    assert_usage_error(
        &[
            "collective",
            "--op",
            "all_reduce",
            "--bytes",
            "99999999999T",
        ],
        "--bytes",
    );
    assert_usage_error(
        &["collective", "--op", "allreduce_x", "--bytes", "8G"],
        "--op",
    );

    // Other unknown names.
    assert_usage_error(&with(&["--scale-up", "nvlink9"]), "--scale-up");
    assert_usage_error(&with(&["--nic", "ib-qdr"]), "--nic");
    assert_usage_error(&with(&["--proto", "ll256"]), "--proto");
    assert_usage_error(&with(&["--nccl", "2.18"]), "--nccl");
    assert_usage_error(&with(&["--cpu", "arm"]), "--cpu");
    assert_usage_error(&with(&["--rail-optimized", "maybe"]), "--rail-optimized");

    // Impossible combinations.
    assert_usage_error(
        &with(&["--gpu", "v100", "--scale-up", "nvlink4"]),
        "--scale-up",
    );
    assert_usage_error(
        &with(&["--proto", "ll128", "--scale-up", "pcie5"]),
        "--proto",
    );
    assert_usage_error(
        &[
            "collective",
            "--op",
            "all_to_all",
            "--bytes",
            "8G",
            "--algo",
            "ring",
        ],
        "--algo",
    );
    assert_usage_error(&with(&["--group-per-node", "16"]), "--group");

    // clap's own errors, condensed.
    assert_usage_error(&["collective", "--bytes", "8G"], "--op");
    assert_usage_error(&with(&["--nodse", "4"]), "--nodse");
    assert_usage_error(&["bogus"], "collective");
    assert_usage_error(&[], "collective");
    assert_usage_error(
        &["sweep", "--op", "all_reduce", "--min", "1G", "--max", "1M"],
        "--min",
    );
}

#[test]
fn help_and_version_succeed() {
    let out = run_ok(&["--help"]);
    assert!(out.contains("collective") && out.contains("sweep") && out.contains("tiers"));
    let out = run_ok(&["collective", "--help"]);
    assert!(out.contains("--gpu") && out.contains("h100-pcie"), "{out}");
    run_ok(&["--version"]);
}

#[test]
fn sweep_json_covers_8_bytes_to_16_gib_in_powers_of_two() {
    let v = json(&[
        "sweep",
        "--op",
        "all_gather",
        "--min",
        "8",
        "--max",
        "16G",
        "--json",
    ]);
    let rows = v.as_array().expect("a JSON array");
    assert_eq!(rows.len(), 32);
    let mut last_time = 0.0;
    for (i, r) in rows.iter().enumerate() {
        let bytes = r["bytes"].as_u64().expect("bytes");
        assert!(bytes.is_power_of_two(), "{bytes}");
        assert_eq!(bytes, 8u64 << i);
        assert_eq!(r["op"], "all_gather");
        let t = num(r, "time_us");
        assert!(
            t > last_time,
            "time does not increase at {bytes} B: {t} after {last_time}"
        );
        last_time = t;
    }
    // The default range is the same.
    let v = json(&["sweep", "--op", "all_gather", "--json"]);
    assert_eq!(v.as_array().map(Vec::len), Some(32));
}

#[test]
fn sweep_table_has_a_row_per_size() {
    let out = run_ok(&["sweep", "--op", "all_reduce", "--min", "1K", "--max", "1M"]);
    let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 11, "{out}");
    assert!(rows[0].trim_start().starts_with("1024 "), "{out}");
    assert!(out.contains("per direction"), "{out}");
    // Each row's busbw with its 90% interval, the one `--json` states (issue 34).
    let v = json(&["sweep", "--op", "all_reduce", "--min", "1K", "--max", "1M", "--json"]);
    let last = &v.as_array().expect("rows")[10]["intervals"]["busbw_GBps"];
    let want = fabricscope_charts::scale::interval_label(num(last, "lo"), num(last, "hi"));
    assert!(rows[10].trim_end().ends_with(&want), "{} vs {want}", rows[10]);
}

#[test]
fn tiers_state_their_direction() {
    let out = run_ok(&["tiers"]);
    assert!(out.contains("per direction"), "{out}");
    assert!(out.contains("bidirectional"), "{out}");
    assert!(out.contains("bisection"), "{out}");
    let v = json(&["tiers", "--nodes", "128", "--json"]);
    assert_eq!(v["gpus"].as_u64(), Some(1024));
    // 1024 NDR NICs x 50 GB/s / 2, non-blocking (the model's own test: 32 leaves, 16 spines).
    assert_eq!(num(&v, "bisection_GBps_per_direction"), 25_600.0);
    assert_eq!(v["fat_tree"]["leaves"].as_u64(), Some(32));
    assert_eq!(v["fat_tree"]["spines"].as_u64(), Some(16));
    // NVLink4: 450 GB/s per direction, 900 GB/s bidirectional (the datasheet's figure).
    let su = &v["tiers"][1];
    assert_eq!(su["kind"], "scale_up");
    assert_eq!(num(su, "GBps_per_direction"), 450.0);
    assert_eq!(num(su, "GBps_bidirectional"), 900.0);
}

#[test]
fn scale_up_defaults_to_the_gpus_own_fabric() {
    for (gpu, fabric) in [
        ("v100", "nvlink2"),
        ("a100", "nvlink3"),
        ("h100", "nvlink4"),
        ("h200", "nvlink4"),
        ("h800", "nvlink4"),
        ("h100-pcie", "nvlink-bridge"),
        ("h100-nvl", "nvlink-bridge"),
        ("h200-nvl", "nvlink-bridge"),
        ("b200", "nvlink5"),
        ("gb200", "nvl72"),
    ] {
        let v = json(&["tiers", "--gpu", gpu, "--json"]);
        assert_eq!(v["scale_up"], fabric, "{gpu}");
    }
    let v = json(&["tiers", "--gpu", "gb200", "--nodes", "18", "--json"]);
    assert_eq!(v["gpus_per_node"].as_u64(), Some(4));
    assert_eq!(v["domain_gpus"].as_u64(), Some(72));
}

#[test]
fn groups_restrict_the_communicator() {
    let v = json(&[
        "collective",
        "--op",
        "all_reduce",
        "--bytes",
        "1G",
        "--group-ranks",
        "8",
        "--json",
    ]);
    assert_eq!(v["ranks"].as_u64(), Some(8));
    assert_eq!(v["bottleneck"], "scale_up");
    let v = json(&[
        "collective",
        "--op",
        "all_reduce",
        "--bytes",
        "1G",
        "--group-per-node",
        "1",
        "--json",
    ]);
    assert_eq!(v["ranks"].as_u64(), Some(4));
    let v = json(&[
        "collective",
        "--op",
        "all_reduce",
        "--bytes",
        "1G",
        "--group-ranks",
        "16",
        "--group-per-node",
        "4",
        "--json",
    ]);
    assert_eq!(v["ranks"].as_u64(), Some(16));
}

/// Every GPU on its own fabric, every collective, every forced algorithm and protocol: the
/// binary either answers or refuses in one line; it never panics (exit 101).
#[test]
fn nothing_panics_across_the_choices() {
    let gpus = [
        "v100",
        "a100",
        "h100",
        "h100-pcie",
        "h200",
        "h800",
        "b200",
        "gb200",
    ];
    let ops = [
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "all_to_all",
        "send_recv",
        "broadcast",
        "reduce",
    ];
    let algos = ["auto", "ring", "tree", "nvls", "nvlstree", "collnet", "pat"];
    let protos = ["auto", "ll", "ll128", "simple"];
    let mut answered = 0;
    for gpu in gpus {
        for op in ops {
            for (algo, proto) in algos
                .iter()
                .map(|a| (*a, "auto"))
                .chain(protos.iter().map(|p| ("auto", *p)))
            {
                for nodes in ["1", "4"] {
                    let args = [
                        "collective",
                        "--gpu",
                        gpu,
                        "--nodes",
                        nodes,
                        "--op",
                        op,
                        "--bytes",
                        "64M",
                        "--algo",
                        algo,
                        "--proto",
                        proto,
                        "--sharp",
                        "--json",
                    ];
                    let o = run(&args);
                    match o.code {
                        Some(0) => {
                            let v: Value = serde_json::from_str(&o.stdout).expect("JSON");
                            let t = num(&v, "time_us");
                            assert!(t.is_finite() && t > 0.0, "{}: time {t}", args.join(" "));
                            answered += 1;
                        }
                        Some(2) => assert_eq!(
                            o.stderr.lines().count(),
                            1,
                            "{}: {}",
                            args.join(" "),
                            o.stderr
                        ),
                        other => panic!("{}: exit {other:?}: {}", args.join(" "), o.stderr),
                    }
                }
            }
        }
    }
    assert!(answered > 400, "only {answered} answered");
}

#[test]
fn collective_reads_busbw_like_the_explorer() {
    // One DGX H100: NVLS reduces in the NVSwitch; busbw exceeds NVLink4's 450 GB/s per
    // direction and is never called NIC-limited.
    let out = run_ok(&["collective", "--nodes", "1", "--op", "all_reduce", "--bytes", "1G"]);
    assert!(out.contains("algorithm   NVLS, protocol Simple"), "{out}");
    assert!(out.contains("limited by  the NVSwitch reduction (NVLS), not the NICs"), "{out}");
    assert!(out.contains("can exceed the link rate (450 GB/s per direction)"), "{out}");
    // 4 nodes, 8 x NDR: a ring bounded by a node's NICs together, 8 x 50 = 400 GB/s.
    let out = run_ok(&["collective", "--nodes", "4", "--op", "all_reduce", "--bytes", "1G"]);
    assert!(out.contains("limited by  the NICs") && out.contains("(8 × 50 = 400 GB/s)"), "{out}");
    // A forced algorithm or a sub-communicator gets no reading (it is about NCCL's own choice).
    let out = run_ok(&["collective", "--nodes", "4", "--op", "all_reduce", "--bytes", "1G", "--algo", "ring"]);
    assert!(!out.contains("limited by"), "{out}");
}

/// `fat_tree.switch_tiers` of `tiers --json` as (tier, switches, radix, ports_down, ports_up).
fn switch_tiers(args: &[&str]) -> Vec<(String, u64, u64, u64, u64)> {
    let mut all = vec!["tiers", "--json"];
    all.extend_from_slice(args);
    let v = json(&all);
    v["fat_tree"]["switch_tiers"]
        .as_array()
        .unwrap_or_else(|| panic!("no fat_tree.switch_tiers in {v}"))
        .iter()
        .map(|t| {
            let n = |k: &str| t[k].as_u64().unwrap_or_else(|| panic!("{k} in {t}"));
            (t["tier"].as_str().unwrap_or("?").to_string(), n("switches"), n("radix"), n("ports_down"), n("ports_up"))
        })
        .collect()
}

#[test]
fn tiers_list_buildable_switch_tiers_bottom_up() {
    let row = |t: &str, n, k, d, u| (t.to_string(), n, k, d, u);
    // 8192 NICs, not rail-optimized, 64-port switches, non-blocking: 64^2/2 = 2048 NICs is the
    // most two tiers join, so pods under a core (Al-Fares et al., SIGCOMM 2008).
    assert_eq!(
        switch_tiers(&["--nodes", "1024", "--rail-optimized", "false", "--radix", "64"]),
        [row("leaf", 256, 64, 32, 32), row("spine", 256, 64, 32, 32), row("core", 128, 64, 64, 0)]
    );
    // 128 DGX H100 (8x NDR, rail-optimized) on Quantum-2: the DGX SuperPOD reference
    // architecture's 4-SU compute fabric of 32 leaves and 16 spines.
    assert_eq!(switch_tiers(&["--nodes", "128"]), [row("leaf", 32, 64, 32, 32), row("spine", 16, 64, 64, 0)]);
    // 16 SUs: the SuperPOD's 128 leaves, 128 spines, 64 cores.
    let t = switch_tiers(&["--nodes", "512"]);
    assert_eq!(t.iter().map(|r| r.1).collect::<Vec<_>>(), [128, 128, 64]);
    // 4096 rail-optimized nodes: 32768 NICs in three tiers.
    let t = switch_tiers(&["--nodes", "4096"]);
    assert_eq!(t.iter().map(|r| r.1).collect::<Vec<_>>(), [1024, 1024, 512]);
    // One switch for 32 NICs.
    assert_eq!(switch_tiers(&[]), [row("leaf", 1, 64, 32, 0)]);
    // 131072 GPUs size without error (two rail planes of three tiers).
    let v = json(&["tiers", "--json", "--nodes", "16384"]);
    assert_eq!(v["fat_tree"]["planes"].as_u64(), Some(2));
    assert_eq!(v["tiers"].as_array().and_then(|t| t.last()).map(|t| t["kind"].clone()), Some(Value::from("core")));

    let out = run_ok(&["tiers", "--nodes", "1024", "--rail-optimized", "false"]);
    assert!(out.contains("three tiers"), "{out}");
    for line in ["leaf      256 switches", "spine     256 switches", "core      128 switches"] {
        assert!(out.contains(line), "{line}: {out}");
    }
}

#[test]
fn impossible_fat_trees_name_the_flag_and_what_would_work() {
    let tiers = |extra: &[&'static str]| -> Vec<&'static str> { ["tiers"].iter().copied().chain(extra.iter().copied()).collect() };
    let said = |args: &[&str], flag: &str, hint: &str| {
        assert_usage_error(args, flag);
        let o = run(args);
        assert!(o.stderr.contains(hint), "{}: {}", args.join(" "), o.stderr);
    };
    said(&tiers(&["--leaf", "1", "--spine", "9999"]), "--spine", "use 0 spines");
    said(&tiers(&["--nodes", "16", "--rail-optimized", "false", "--radix", "8"]), "--radix", "at least 16");
    said(&tiers(&["--nodes", "128", "--leaf", "32", "--spine", "40"]), "--spine", "between 1 and 32");
    said(&tiers(&["--nodes", "1024", "--leaf", "256"]), "--leaf", "at most 64");
    said(&tiers(&["--nodes", "16384", "--rail-optimized", "false"]), "--radix", "at least 82");
    said(&tiers(&["--nodes", "128", "--oversubscription", "0.5"]), "--oversubscription", "between 1");
    said(&tiers(&["--nodes", "128", "--core-oversubscription", "nan"]), "--core-oversubscription", "between 1");
    said(&tiers(&["--nodes", "128", "--spine", "8", "--oversubscription", "2"]), "--oversubscription", "leave");
}

#[test]
fn oversubscription_flags_set_each_tier() {
    // 3:1 at the leaf: at most 48 NIC ports per 64-port leaf; 128 nodes spread over 3 leaves
    // per rail (43, 43, 42), each with 15 uplinks: 43/15 = 2.87:1, never more than asked.
    let t = switch_tiers(&["--nodes", "128", "--oversubscription", "3"]);
    assert_eq!((t[0].3, t[0].4), (43, 15));
    let v = json(&["tiers", "--json", "--nodes", "128", "--oversubscription", "3"]);
    assert_eq!(num(&v["fat_tree"]["switch_tiers"][0], "oversubscription"), 43.0 / 15.0);
    // Bisection: 1024 NICs x 50 GB/s / 2, through 43:15 leaves.
    assert!((num(&v, "bisection_GBps_per_direction") - 25_600.0 * 15.0 / 43.0).abs() < 1e-9);
    // 2:1 is exactly 2:1: 32 NICs and 16 uplinks per leaf.
    let t = switch_tiers(&["--nodes", "128", "--oversubscription", "2"]);
    assert_eq!((t[0].3, t[0].4), (32, 16));
    // 2:1 into the core of a three-tier tree: the spine keeps twice as many ports down as up.
    let t = switch_tiers(&["--nodes", "1024", "--core-oversubscription", "2"]);
    assert_eq!(t.len(), 3);
    assert!(t[1].3 >= 2 * t[1].4 && t[1].3 + t[1].4 <= 64, "{t:?}");
}

#[test]
fn two_queue_pairs_per_connection_give_a_ring_the_nics_goodput() {
    // The same 8-rail B200 nodes (together-nccl-tests, flapping-airplanes): 307 GB/s all_reduce
    // ring busbw at 4 nodes with NCCL's default one QP, 384 with NCCL_IB_QPS_PER_CONNECTION=2,
    // and 388-390 from 2 to 64 nodes with two (388.3 at 16). DGX Cloud B200 (one QP): 334.8 at
    // 4 nodes.
    let busbw = |nodes: &str, qps: &str| {
        let args = ["collective", "--json", "--gpu", "b200", "--nodes", nodes, "--nvls", "false", "--op", "all_reduce", "--bytes", "16G", "--algo", "ring", "--qps-per-connection", qps];
        num(&json(&args), "busbw_GBps")
    };
    let (one, two) = (busbw("4", "1"), busbw("4", "2"));
    assert!((one - 334.8).abs() / 334.8 < 0.05, "one QP at 4 nodes: {one}");
    assert!((two - 384.0).abs() / 384.0 < 0.05, "two QPs at 4 nodes: {two}");
    let far = busbw("16", "2");
    assert!((far - 388.3).abs() / 388.3 < 0.05, "two QPs at 16 nodes: {far}");
    assert_usage_error(&["collective", "--nodes", "2", "--op", "all_reduce", "--bytes", "1G", "--qps-per-connection", "0"], "--qps-per-connection");
}

#[test]
fn one_process_driving_eight_gpus_pays_its_launches_at_small_sizes() {
    // Azure ND H100 v5 (AI-benchmarking-guide, validation/collectives.csv) runs all_reduce_perf
    // with -g 8: 1 KiB at 0.07 GB/s busbw, i.e. 25.6 µs. One process per GPU hides the launches.
    let t = |extra: &[&str]| {
        let mut args = vec!["collective", "--json", "--nodes", "1", "--op", "all_reduce", "--bytes", "1K"];
        args.extend_from_slice(extra);
        num(&json(&args), "time_us")
    };
    let (mpi, single) = (t(&[]), t(&["--gpus-per-process", "8"]));
    assert!((single - 25.6).abs() / 25.6 < 0.10, "-g 8: {single} µs vs 25.6 measured");
    assert!(single > mpi + 5.0, "-g 8 {single} vs one process per GPU {mpi}");
    assert_usage_error(&["collective", "--nodes", "1", "--op", "all_reduce", "--bytes", "1K", "--gpus-per-process", "0"], "--gpus-per-process");
}
