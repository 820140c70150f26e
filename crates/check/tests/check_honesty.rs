//! `check` on synthetic logs (tests/common/synth_log.rs): the cluster read from the log with
//! each field's source; hardware and libraries the model does not cover get "cannot judge"
//! and no NVIDIA advice; assumed hardware is said first; every percentage and ratio follows
//! from the numbers beside it; garbage rows are unread with a reason; hostile shapes parse in
//! linear time; links stay under the limit the page reads.

#[path = "common/synth_log.rs"]
mod synth_log;
#[path = "common/agree.rs"]
mod agree;

use fabricscope_model::catalog::{GpuKind, NicKind};
use fabricscope_check::{check, check_with, link_of_noted, parse, CheckReport, Given, Library, Measured, NetPlugin, Source};
use fabricscope_model::{AlgoChoice, Cluster, Scenario};
use proptest::prelude::*;
use std::time::{Duration, Instant};
use agree::numbers_agree;
use synth_log::Synth;

fn hosts(n: u32, per: u32) -> Vec<(String, u32)> {
    (0..n).map(|i| (format!("node{i}"), per)).collect()
}

fn report(s: &Synth, given: &Given) -> CheckReport {
    let log = parse(&s.text()).unwrap();
    check_with(&Measured::from_log(&log), &Cluster::default(), given).unwrap()
}

fn field<'a>(r: &'a CheckReport, name: &str) -> (&'a str, Source) {
    let f = r.fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no field {name}: {:?}", r.fields));
    (f.value.as_str(), f.source)
}

/// Words of NVIDIA- or InfiniBand-specific advice.
const NVIDIA_ADVICE: [&str; 6] = ["nvidia-smi", "NVLink", "NET/IB", "GPUDirect", "nvidia-peermem", "NVLS"];

fn no_nvidia_advice(r: &CheckReport) {
    for c in &r.verdict {
        for w in NVIDIA_ADVICE {
            assert!(!c.cause.contains(w) && !c.next_step.contains(w), "{w} in {c:?}");
        }
    }
}

/// Words of InfiniBand-specific advice, wrong for an EFA run.
const IB_ADVICE: [&str; 6] = ["NET/IB", "nvidia-peermem", "ibstat", "NCCL_IB_HCA", "spine", "PXN"];

#[test]
fn an_amd_rccl_log_is_judged_with_rccl_and_gets_no_nvidia_advice() {
    let s = Synth {
        gpu: "AMD Instinct MI300X".into(),
        preamble: vec!["RCCL version 2.20.5+hip6.2 HEAD:2a2a2a".into()],
        // Far below RCCL's expectation on one xGMI node.
        plateau_busbw: 40.0,
        ..Synth::default()
    };
    let r = report(&s, &Given::default());
    assert_eq!((r.cluster.gpu, r.not_modelled.len()), (GpuKind::Mi300x, 0));
    assert_eq!(r.healthy, Some(false), "{:?}", r.verdict);
    assert_eq!(field(&r, "gpu"), ("Instinct MI300X 192GB", Source::Log));
    assert_eq!(field(&r, "library"), ("RCCL 2.20.5+hip6.2", Source::Log));
    assert!(r.verdict[0].cause.starts_with("xGMI links slower than the design"), "{:?}", r.verdict);
    assert!(r.verdict[0].next_step.contains("rocm-smi --showtopo"), "{:?}", r.verdict);
    no_nvidia_advice(&r);
    // RCCL on an NVIDIA GPU (given by flag) is not modelled: cannot judge.
    let r = report(&s, &Given { gpu: true, ..Given::default() });
    assert_eq!((r.healthy, r.not_modelled.as_slice()), (None, ["library RCCL on H100-SXM5 80GB".to_string()].as_slice()));
    // An RCCL run whose rank lines name no GPU: an AMD GPU assumed, and said first.
    let r = report(&Synth { gpu: String::new(), ..s }, &Given::default());
    assert_eq!((field(&r, "gpu"), r.healthy), (("Instinct MI300X 192GB", Source::Assumed), None));
    assert_eq!(r.verdict[0].cause, "assumed Instinct MI300X 192GB: no GPU name in the log");
    no_nvidia_advice(&r);
}

#[test]
fn every_catalog_gpu_is_read_and_others_cannot_be_judged() {
    for (name, gpu) in [
        ("NVIDIA GB300", GpuKind::Gb300),
        ("NVIDIA B300 SXM6 AC", GpuKind::B300),
        ("NVIDIA GH200 480GB", GpuKind::Gh200),
        ("AMD Instinct MI355X", GpuKind::Mi355x),
        ("AMD Instinct MI325X", GpuKind::Mi325x),
        ("AMD Instinct MI300X VF", GpuKind::Mi300x),
        ("NVIDIA A100-SXM4-40GB", GpuKind::A100),
        ("NVIDIA H100 NVL", GpuKind::H100Nvl),
    ] {
        let r = report(&Synth { gpu: name.into(), hosts: hosts(1, 4), ..Synth::default() }, &Given::default());
        assert_eq!((r.cluster.gpu, field(&r, "gpu").1), (gpu, Source::Log), "{name}");
        // Judged against the model (a 4-GPU NVL72 tray lies outside the rack's measured
        // scale: extrapolated, said as such), never "not modelled".
        assert!(r.not_modelled.is_empty() && !r.verdict[0].cause.starts_with("cannot judge"), "{name}: {:?}", r.verdict);
        if gpu.spec().arch.is_amd() {
            no_nvidia_advice(&r);
        }
    }
    for name in ["AMD Instinct MI250X", "NVIDIA L40S", "NVIDIA A100 80GB PCIe"] {
        let r = report(&Synth { gpu: name.into(), hosts: hosts(1, 4), ..Synth::default() }, &Given::default());
        assert_eq!(r.healthy, None, "{name}");
        assert_eq!(r.verdict[0].cause, format!("cannot judge: GPU {name} is not modelled"));
        no_nvidia_advice(&r);
    }
}

#[test]
fn an_efa_log_is_judged_on_efa_and_gets_no_infiniband_advice() {
    let s = Synth {
        hosts: hosts(2, 8),
        preamble: vec![
            "ip-10-0-0-1:123:123 [0] NCCL INFO NCCL version 2.23.4+cuda12.5".into(),
            "ip-10-0-0-1:123:123 [0] NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)".into(),
            "ip-10-0-0-1:123:123 [0] NCCL INFO Using network AWS Libfabric".into(),
        ],
        plateau_busbw: 150.0,
        ..Synth::default()
    };
    let r = report(&s, &Given::default());
    assert_eq!(field(&r, "network"), ("AWS libfabric (NET/OFI, EFA)", Source::Log));
    assert_eq!(field(&r, "library"), ("NCCL 2.23.4+cuda12.5", Source::Log));
    // p5: 32 EFA interfaces (the log's count) of 100G (the H100 instance's).
    assert_eq!(field(&r, "nic"), ("32 x AWS EFA 100G (SRD)", Source::Inferred));
    assert!(r.not_modelled.is_empty());
    assert_eq!(r.healthy, Some(false), "{:?}", r.verdict);
    assert!(r.verdict.iter().any(|c| c.next_step.contains("FI_EFA_USE_DEVICE_RDMA")), "{:?}", r.verdict);
    for c in &r.verdict {
        for w in IB_ADVICE {
            assert!(!c.cause.contains(w) && !c.next_step.contains(w), "{w} in {c:?}");
        }
    }
}

#[test]
fn an_assumed_gpu_below_the_band_says_the_assumption_first() {
    // No GPU name on the rank lines: the default H100 with NDR is assumed.
    let s = Synth { gpu: String::new(), hosts: hosts(2, 8), plateau_busbw: 90.0, ..Synth::default() };
    let r = report(&s, &Given::default());
    assert_eq!(field(&r, "gpu").1, Source::Assumed);
    assert_eq!(r.healthy, None, "{:?}", r.verdict);
    assert_eq!(r.verdict[0].cause, "assumed H100-SXM5 80GB with 8 x InfiniBand NDR 400G per node: no GPU name in the log");
    // Given, the same numbers are judged.
    let r = report(&s, &Given { gpu: true, nic: true, ..Given::default() });
    assert_eq!((r.healthy, field(&r, "gpu").1), (Some(false), Source::Flag));
}

#[test]
fn a_20_rack_log_that_prints_its_last_rank_only_is_1440_ranks() {
    // GB200 NVL72: 20 racks of 18 trays of 4 GPUs; only rank 1439 is printed.
    let s = Synth { gpu: "NVIDIA GB200".into(), hosts: hosts(360, 4), last_rank_only: true, plateau_busbw: 300.0, ..Synth::default() };
    let log = parse(&s.text()).unwrap();
    assert_eq!(log.runs[0].rank_count(), Some((1440, false)));
    let m = Measured::from_log(&log);
    assert_eq!((m[0].ranks, m[0].nodes, m[0].device_per_node), (1440, None, Some(4)));
    let r = check(&m, &Cluster::default()).unwrap();
    assert_eq!(field(&r, "ranks"), ("1440", Source::Log));
    assert_eq!(field(&r, "gpus_per_node"), ("4", Source::Inferred));
    assert_eq!(field(&r, "nodes"), ("360", Source::Inferred));
    assert!(r.plateaus[0].expected_busbw > 10.0, "{:?}", r.plateaus);
    // --nodes wins: 1440 ranks on 180 nodes are 8 per node.
    let design = Cluster { nodes: 180, ..Cluster::default() };
    let r = check_with(&m, &design, &Given { nodes: true, ..Given::default() }).unwrap();
    assert_eq!((field(&r, "nodes"), field(&r, "gpus_per_node")), (("180", Source::Flag), ("8", Source::Inferred)));
}

/// 20 GB200 NVL72 racks with the hardware given, NVLS on. NVLSTree across racks is measured at
/// two racks (CoreWeave's runs, validation/collectives-nvl72-racks.csv; their twenty-rack run had
/// NVLS off, NCCL_NVLS_ENABLE=0, and is judged as Ring and Tree), so at 20 racks the expectation
/// is extrapolated, its band widened from the measured one by scale. A run at the expectation is
/// healthy; a run at half of it is "cannot judge" with the extrapolation named first, never "not
/// healthy".
#[test]
fn twenty_racks_with_nvls_are_extrapolated_from_two_and_never_called_broken() {
    let preset = fabricscope_model::presets::cluster_preset("gb200-nvl72").expect("the GB200 NVL72 preset");
    let design = Cluster { nodes: 360, ..preset.cluster() };
    let given = Given { gpu: true, nic: true, nodes: true, ..Given::default() };
    let judge = |busbw: f64| {
        let s = Synth { gpu: "NVIDIA GB200".into(), hosts: hosts(360, 4), last_rank_only: true, plateau_busbw: busbw, min_bytes: 1 << 20, max_bytes: 16 << 30, ..Synth::default() };
        check_with(&Measured::from_log(&parse(&s.text()).unwrap()), &design, &given).unwrap()
    };
    let expected = judge(500.0).plateaus[0].expected_busbw;
    let at = judge(expected * 0.97);
    let p = &at.plateaus[0];
    assert_eq!(p.algorithm, "NVLSTree");
    assert!(p.validated && !p.composed && p.extrapolated, "{p:?}");
    assert!(p.trust.starts_with("extrapolated") && p.trust.contains("at 2 racks"), "{}", p.trust);
    assert_eq!(at.healthy, Some(true), "{:#?}", at.verdict);
    assert_eq!(at.verdict[0].cause, "healthy", "{:#?}", at.verdict);
    let half = judge(expected * 0.5);
    assert_eq!(half.healthy, None, "{:#?}", half.verdict);
    assert!(half.verdict[0].cause.starts_with("the expectation is extrapolated"), "{:#?}", half.verdict);
    numbers_agree(&half);
}

/// One MI355X node, which no published rccl-tests result covers: it is timed from MI300X's
/// measured xGMI class, half-way to its 1.2x faster links. A run at either reading (all of the
/// links' gain, or none of it) is healthy and said as extrapolated; a run at half the
/// expectation is "cannot judge" naming the missing measurement, never "not healthy", and no
/// verdict carries NVIDIA advice.
#[test]
fn an_mi355x_node_is_judged_from_its_predecessor_and_never_called_broken() {
    let judge = |busbw: f64| {
        let s = Synth { gpu: "AMD Instinct MI355X".into(), preamble: vec!["RCCL version 2.26.6+hip7.0 HEAD:2a2a2a".into()], plateau_busbw: busbw, ..Synth::default() };
        report(&s, &Given::default())
    };
    let expected = judge(300.0).plateaus[0].expected_busbw;
    // Above the MI300X node's measured 317 GB/s at 8 GiB: part of the faster links' gain.
    assert!(expected > 317.0 * 1.05, "{expected}");
    let half_gain = 1.2f64.sqrt();
    for f in [1.0, half_gain, 1.0 / half_gain] {
        let r = judge(expected * f);
        let p = &r.plateaus[0];
        assert!(p.successor && p.extrapolated && p.validated, "{p:?}");
        assert_eq!(r.healthy, Some(true), "{f}: {:#?}", r.verdict);
        assert!(r.verdict[0].cause == "healthy" && r.verdict[0].evidence.contains("this GPU generation is not measured"), "{:#?}", r.verdict);
        no_nvidia_advice(&r);
    }
    let half = judge(expected * 0.5);
    assert_eq!(half.healthy, None, "{:#?}", half.verdict);
    assert_eq!(half.verdict[0].cause, "the expectation is extrapolated: no published rccl-tests result covers this GPU generation", "{:#?}", half.verdict);
    no_nvidia_advice(&half);
    numbers_agree(&half);
}

#[test]
fn node_counts_from_the_busbw_factor_are_inferred() {
    // No rank lines: 16 ranks from busbw/algbw = 2(n-1)/n.
    let text: String = Synth { hosts: hosts(2, 8), ..Synth::default() }.text().lines().filter(|l| !l.contains("Rank")).map(|l| format!("{l}\n")).collect();
    let m = Measured::from_log(&parse(&text).unwrap());
    assert!(m[0].ranks_inferred);
    let r = check(&m, &Cluster::default()).unwrap();
    assert_eq!((field(&r, "ranks"), field(&r, "nodes")), (("16", Source::Inferred), ("2", Source::Inferred)));
}

#[test]
fn library_network_and_forced_algorithm_are_read() {
    let s = Synth {
        hosts: hosts(4, 8),
        preamble: vec![
            "n0:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4".into(),
            "n0:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>".into(),
            "n0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to CollNetDirect".into(),
            "n0:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple".into(),
        ],
        plateau_busbw: 300.0,
        ..Synth::default()
    };
    let log = parse(&s.text()).unwrap();
    assert_eq!((log.facts.library, log.facts.net), (Some(Library::Nccl), Some(NetPlugin::Ib)));
    let r = report(&s, &Given { nic: true, ..Given::default() });
    assert_eq!(field(&r, "algo"), ("CollNetDirect", Source::Log));
    assert_eq!(field(&r, "proto"), ("Simple", Source::Log));
    // A CollNet run is judged against CollNet (the design gets SHARP), not NVLS.
    assert!(r.cluster.sharp);
    assert!(r.plateaus[0].algorithm.starts_with("CollNet"), "{:?}", r.plateaus);
    // --algo wins over the log.
    let r = report(&s, &Given { nic: true, algo: Some(AlgoChoice::Ring), ..Given::default() });
    assert_eq!((field(&r, "algo"), r.plateaus[0].algorithm), (("ring", Source::Flag), "Ring"));
}

#[test]
fn sockets_where_rdma_was_expected_are_named_without_rdma_advice() {
    let s = Synth {
        hosts: hosts(2, 8),
        preamble: vec!["n0:1:1 [0] NCCL INFO NET/IB : No device found.".into(), "n0:1:1 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.0.1<0>".into()],
        plateau_busbw: 8.0,
        ..Synth::default()
    };
    let r = report(&s, &Given { nic: true, ..Given::default() });
    assert_eq!(r.healthy, Some(false));
    assert_eq!(r.verdict[0].cause, "NCCL fell back to TCP sockets (NET/Socket), not RDMA");
    assert!(r.verdict.iter().all(|c| !c.cause.contains("GPUDirect") && !c.cause.contains("rails")), "{:?}", r.verdict);
    // An Ethernet-only cluster prints "No device found" too: on a 100GbE design, sockets at
    // its own speed are judged by their numbers, never "fell back".
    let eth = Synth {
        preamble: vec!["n0:1:1 [0] NCCL INFO NET/IB : No device found.".into(), "n0:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>".into()],
        ..s
    };
    let log = parse(&eth.text()).unwrap();
    let design = Cluster { nic: NicKind::Eth100Tcp, nics_per_node: 1, ..Cluster::default() };
    let r = check_with(&Measured::from_log(&log), &design, &Given { nic: true, ..Given::default() }).unwrap();
    assert!(r.verdict.iter().all(|c| !c.cause.contains("fell back")), "{:?}", r.verdict);
}

#[test]
fn garbage_rows_are_unread_with_a_reason_and_never_healthy() {
    let head = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n#  Rank  0 Group  0 Pid 1 on a device  0 [0x1] NVIDIA H100 80GB HBM3\n#  Rank  1 Group  0 Pid 2 on a device  1 [0x2] NVIDIA H100 80GB HBM3\n";
    let rows = [
        ("1073741824 268435456 float sum -1 10000.0 107.37 107.37 0", "ok"),
        ("18446744073709551615 4611686018427387903 float sum -1 50.0 0.10 0.10 0", "above 1 TiB"),
        ("2147483648 536870912 float sum -1 20000.0 107.37 0.00 0", "busbw 0 GB/s"),
        ("1073741824 268435456 float sum -1 10000.0 107.37 107.37 0", "not above the previous"),
        ("4294967296 1073741824 float sum -1 0.00 107.37 107.37 0", "time 0"),
        ("8589934592 2147483648 float sum -1 100.0 999999.00 999999.00 0", "bandwidth above"),
        ("17179869184 4294967296 float sum -1 100.0 50.00 50.00 0", "does not follow from"),
        ("0 0 float sum -1 1.0 0.00 0.00 0", "size 0"),
    ];
    let text = head.to_string() + &rows.iter().map(|r| format!("{}\n", r.0)).collect::<String>();
    let log = parse(&text).unwrap();
    assert_eq!(log.runs[0].rows.len(), 1);
    assert_eq!(log.rejected_count, rows.len() - 1);
    for (u, (_, why)) in log.rejected.iter().zip(&rows[1..]) {
        assert!(u.text.contains(why), "line {}: {} (expected {why})", u.line, u.text);
    }
    // Only garbage: no check at all, an error that says why.
    let only: String = head.to_string() + "2147483648 536870912 float sum -1 20000.0 107.37 0.00 0\n";
    let e = parse(&only).unwrap_err();
    assert!(e.message.contains("none of its 1 result row(s) is a measurement (first: line 4: busbw 0 GB/s"), "{}", e.message);
}

#[test]
fn one_rank_and_absurd_rank_counts_are_refused_with_a_note() {
    let one = Synth { test: "sendrecv_perf", hosts: hosts(1, 1), ..Synth::default() };
    let (m, notes) = Measured::from_log_noted(&parse(&one.text()).unwrap());
    assert!(m.is_empty());
    assert!(notes[0].contains("one rank: no communication to check"), "{notes:?}");
    let text = one.text().replace("#  Rank  0 ", "#  Rank 999999999 ");
    let (m, notes) = Measured::from_log_noted(&parse(&text).unwrap());
    assert!(m.is_empty());
    assert!(notes[0].contains("the header claims 1000000000 ranks, above the 262144 a check reads"), "{notes:?}");
}

#[test]
fn the_78_percent_case_quotes_its_own_numbers() {
    // The NVLS log: the plateau quoted is one row, and its percentage is that row's.
    let text = std::fs::read_to_string(format!("{}/../../validation/logs/h100-1node-all-reduce-nvls.txt", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let r = check(&Measured::from_log(&parse(&text).unwrap()), &Cluster::default()).unwrap();
    numbers_agree(&r);
}

/// Time to parse `text` (the best of two tries: the machine is shared).
fn parse_time(text: &str) -> Duration {
    (0..2)
        .map(|_| {
            let t = Instant::now();
            let _ = parse(text);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn a_million_launcher_prefixes_and_100000_hosts_parse_in_linear_time() {
    let prefixed = |k: usize| Synth::default().text() + &"[0]".repeat(k) + " 8 2 float sum -1 10.0 0.00 0.00 0\n";
    let text = prefixed(350_000);
    assert!(text.len() > 1_000_000);
    let log = parse(&text).unwrap();
    assert_eq!(log.rejected_count, 1, "the prefixed row is read (and is not above the previous size)");
    let many = |n: u32| Synth { hosts: hosts(n, 1), max_bytes: 1 << 20, ..Synth::default() }.text();
    let log = parse(&many(100_000)).unwrap();
    assert_eq!((log.runs[0].ranks, log.runs[0].hosts.len()), (100_000, 100_000));
    // Four times the input takes about four times as long (sixteen if quadratic: the
    // prefixes took over 20 s and the hosts 13 s before).
    let (p1, p4) = (parse_time(&prefixed(87_500)), parse_time(&text));
    let (h1, h4) = (parse_time(&many(25_000)), parse_time(&many(100_000)));
    eprintln!("prefixes: 0.26 MB {p1:?}, 1 MB {p4:?}; hosts: 25,000 {h1:?}, 100,000 {h4:?}");
    assert!(p4 < p1 * 8 + Duration::from_millis(50), "{p1:?} -> {p4:?}");
    assert!(h4 < h1 * 8 + Duration::from_millis(50), "{h1:?} -> {h4:?}");
    // Debug builds on a shared machine; the CLI's release build takes 0.1 s and 0.45 s.
    assert!(p4 < Duration::from_secs(3) && h4 < Duration::from_secs(10), "{p4:?} {h4:?}");
}

#[test]
fn thirty_two_per_node_runs_keep_the_link_under_the_limit_and_say_so() {
    let base = Measured::from_log(&parse(&Synth::default().text()).unwrap()).remove(0);
    let shared = Measured::from_log(&parse(&Synth { hosts: hosts(32, 8), ..Synth::default() }.text()).unwrap()).remove(0);
    let mut runs = vec![shared];
    runs.extend((0..32).map(|i| Measured { host: Some(format!("a-rather-long-host-name-{i:04}.cluster.example")), points: base.points.clone(), ..base.clone() }));
    let s = Scenario::default();
    let (link, note) = link_of_noted(&s, &runs);
    assert!(link.len() <= fabricscope_model::link::MAX_LINK_BYTES, "{}", link.len());
    let note = note.expect("a note says what was left out");
    assert!(note.starts_with("The link leaves out the 32 per-node run(s)"), "{note}");
    // It reads back: the design and the shared run.
    let mut warnings = Vec::new();
    let back = fabricscope_check::runs_of(fabricscope_model::link::measured_in_link(&link), &mut warnings);
    assert_eq!((back.len(), warnings.len()), (1, 0));
    // A short one is whole, without a note.
    assert_eq!(link_of_noted(&s, &runs[..2]).1, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Generated logs (random launcher prefixes, hosts, GPU names, plateau and layout): read
    /// in time linear in their size, and the JSON rows agree with the verdict's numbers.
    #[test]
    fn generated_logs_parse_fast_and_their_numbers_agree(
        prefix in prop_oneof![Just(String::new()), Just("[1,0]<stdout>:".to_string()), "[0-9]{1,3}: ", "[a-z][a-z0-9-]{0,12}: ", "(\\[[0-9]\\]){1,40}"],
        host in "[a-z][a-z0-9.-]{0,20}",
        nodes in 1u32..6,
        per in prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        gpu in prop_oneof![Just("NVIDIA H100 80GB HBM3"), Just("NVIDIA A100-SXM4-80GB"), Just("NVIDIA B200"), Just(""), Just("AMD Instinct MI300X")],
        test in prop_oneof![Just("all_reduce_perf"), Just("all_gather_perf"), Just("sendrecv_perf"), Just("alltoall_perf")],
        busbw in 0.5f64..900.0,
        noise in proptest::collection::vec(".{0,60}", 0..5),
    ) {
        prop_assume!(nodes * per > 1);
        let s = Synth {
            test,
            hosts: (0..nodes).map(|i| (format!("{host}{i}"), per)).collect(),
            gpu: gpu.into(),
            preamble: noise,
            prefix,
            plateau_busbw: busbw,
            ..Synth::default()
        };
        let text = s.text();
        let t = Instant::now();
        let log = parse(&text).unwrap();
        prop_assert!(t.elapsed() < Duration::from_millis(500), "{:?} for {} bytes", t.elapsed(), text.len());
        prop_assert_eq!(log.rejected_count, 0, "{:?}", log.rejected);
        let m = Measured::from_log(&log);
        for given in [Given::default(), Given { gpu: true, nic: true, ..Given::default() }] {
            let design = Cluster { gpu: GpuKind::H100, nic: NicKind::IbNdr, ..Cluster::default() };
            let r = check_with(&m, &design, &given).unwrap();
            numbers_agree(&r);
            prop_assert_eq!(r.rows.len(), log.runs[0].rows.len());
        }
    }
}

#[test]
fn twenty_thousand_plateau_rows_are_checked_without_quadratic_work() {
    // Every size from 64 MiB up in 4 KiB steps: 20,000 plateau rows (the reader's cap).
    let mut text = Synth { max_bytes: 0, ..Synth::default() }.text();
    for i in 0..20_000u64 {
        let bytes = (64u64 << 20) + i * 4096;
        let busbw = 300.0;
        let algbw = busbw / 1.75;
        let _ = std::fmt::Write::write_fmt(&mut text, format_args!("{bytes} {} float sum -1 {:.2} {algbw:.2} {busbw:.2} 0\n", bytes / 4, bytes as f64 / (algbw * 1e3)));
    }
    let t = Instant::now();
    let log = parse(&text).unwrap();
    let read = t.elapsed();
    assert_eq!((log.runs[0].rows.len(), log.rejected_count), (20_000, 0));
    let t = Instant::now();
    let r = check(&Measured::from_log(&log), &Cluster::default()).unwrap();
    let checked = t.elapsed();
    eprintln!("20,000 plateau rows: read {read:?}, checked {checked:?}");
    numbers_agree(&r);
    assert!(checked < Duration::from_secs(5), "{checked:?}");
}
