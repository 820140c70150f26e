//! `check` on real published nccl-tests logs (validation/logs/, sources in its README): every
//! data line read with its exact values, the cluster inferred from the header, a healthy
//! cluster judged healthy, and the same log with its plateau cut to one rail of eight
//! diagnosed as missing rails. Plus: no input panics the reader.

#[path = "common/agree.rs"]
mod agree;

use agree::numbers_agree;
use fabricscope_check::{check, check_with, parse, CheckReport, Given, Measured, Source};
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::{Cluster, Collective};
use proptest::prelude::*;

fn log(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../validation/logs/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Lines of `text` that look like result rows (start with a digit after spaces).
fn data_lines(text: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).map(|(i, _)| i + 1).collect()
}

#[test]
fn every_data_line_is_read_with_exact_values() {
    for name in ["h100-1node-all-gather-ring.txt", "h100-1node-all-reduce-nvls.txt", "b200-2node-sendrecv-two-runs.txt", "h100-2node-a3mega-all-reduce.txt"] {
        let text = log(name);
        let l = parse(&text).unwrap();
        // Every data line is a measurement or a row not read with its reason (0-byte rows).
        let mut read: Vec<usize> = l.runs.iter().flat_map(|r| r.rows.iter().map(|w| w.line)).chain(l.rejected.iter().map(|u| u.line)).collect();
        read.sort_unstable();
        assert_eq!(read, data_lines(&text), "{name}");
        assert!(l.rejected.iter().all(|u| u.text == "size 0 B: nothing to compare"), "{name}: {:?}", l.rejected);
    }
    // Spot values against the text (out-of-place and in-place).
    let l = parse(&log("h100-2node-a3mega-all-reduce.txt")).unwrap();
    let last = l.runs[0].rows.last().unwrap();
    assert_eq!((last.bytes, last.count), (8589934592, 2147483648));
    assert_eq!((last.out_of_place.time_us, last.out_of_place.algbw, last.out_of_place.busbw), (47535.0, 180.71, 338.82));
    assert_eq!(last.in_place.unwrap().busbw, 337.35);
    assert_eq!(l.runs[0].avg_busbw, Some(70.742));
    // The pasted command above the header: chatter (mpirun) or unread, never silent; its
    // `## NCCL TEST RESULT` title reads as a comment.
    assert_eq!(l.chatter, 1);
    assert_eq!(l.unread.iter().map(|u| u.line).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
    assert_eq!(l.unread_count, 4);
}

#[test]
fn the_cluster_is_inferred_from_the_header() {
    let l = parse(&log("h100-2node-a3mega-all-reduce.txt")).unwrap();
    let r = &l.runs[0];
    assert_eq!(r.op(), Some((Collective::AllReduce, true)), "named by the pasted command line");
    let mut unnamed = r.clone();
    unnamed.named_op = None;
    assert_eq!(unnamed.op(), Some((Collective::AllReduce, false)), "else from the busbw factor 2(n-1)/n");
    assert_eq!((r.rank_count(), r.layout()), (Some((16, false)), Some((2, 8))));
    let m = Measured::from_log(&l);
    assert_eq!(m[0].gpu, Some(GpuKind::H100));

    let l = parse(&log("b200-2node-sendrecv-two-runs.txt")).unwrap();
    assert_eq!(l.runs.len(), 2, "two runs in one log");
    for r in &l.runs {
        assert_eq!(r.op(), Some((Collective::SendRecv, false)));
        assert_eq!(r.layout(), Some((2, 8)));
    }
    assert_eq!(l.runs[0].rows.len(), 19);
    assert_eq!(l.runs[1].rows[0].out_of_place.busbw, 41.78);
    // Script lines are listed; "NCCL version" lines are chatter.
    assert_eq!(l.chatter, 2);
    assert!(l.unread.iter().any(|u| u.line == 2 && u.text == "Job ID: 79939"), "{:?}", l.unread);

    let l = parse(&log("h100-1node-all-gather-ring.txt")).unwrap();
    let m = Measured::from_log(&l);
    assert_eq!((m[0].op, m[0].ranks, m[0].nodes, m[0].gpus_per_node, m[0].gpu), (Collective::AllGather, 8, Some(1), Some(8), Some(GpuKind::H100)));
    assert_eq!(m[0].points.len(), 27, "the four 0-byte rows have nothing to compare");
    assert_eq!((l.unread_count, l.rejected_count), (0, 4));
}

#[test]
fn a_healthy_node_is_judged_healthy() {
    let m = Measured::from_log(&parse(&log("h100-1node-all-gather-ring.txt")).unwrap());
    let r = check(&m, &Cluster::default()).unwrap();
    assert_eq!((r.cluster.nodes, r.cluster.gpus_per_node), (1, 8));
    assert_eq!(r.healthy, Some(true), "{:#?}", r.plateaus);
    assert_eq!(r.verdict[0].cause, "healthy");
    // measured_busbw is the log's out-of-place column, as printed.
    let last = r.rows.last().unwrap();
    assert_eq!((last.bytes, last.measured_busbw), (8589934592, 357.90));
    assert_eq!(last.ratio, last.measured_busbw / last.expected_busbw);
    assert!((last.ratio - 1.0).abs() < 0.05, "{last:?}");
    let csv = fabricscope_check::check_csv(&r);
    assert_eq!(csv.lines().count(), 1 + 27);
    assert!(csv.lines().last().unwrap().starts_with("1,all_gather,8589934592,357.9,"), "{csv}");
}

#[test]
fn a_healthy_two_node_b200_sendrecv_is_healthy_and_one_rail_of_eight_is_missing_rails() {
    let m = Measured::from_log(&parse(&log("b200-2node-sendrecv-two-runs.txt")).unwrap());
    let design = Cluster { nic: fabricscope_model::catalog::NicKind::IbNdr, ..Cluster::default() };
    let nic = Given { nic: true, ..Given::default() };
    let r = check_with(&m, &design, &nic).unwrap();
    assert_eq!((r.cluster.gpu, r.cluster.nodes), (GpuKind::B200, 2));
    assert_eq!(r.healthy, Some(true), "{:#?}", r.plateaus);
    assert_eq!(r.verdict[0].cause, "healthy");

    // The same log with every size from 4 MiB up cut to 1/8 of its bandwidth.
    let cut: Vec<Measured> = m
        .iter()
        .map(|run| {
            let mut run = run.clone();
            for p in run.points.iter_mut().filter(|p| p.bytes >= 4 << 20) {
                p.time_us *= 8.0;
                p.busbw /= 8.0;
            }
            run
        })
        .collect();
    let r = check_with(&cut, &design, &nic).unwrap();
    assert_eq!(r.healthy, Some(false));
    assert_eq!(r.verdict[0].cause, "not all NICs (rails) in use", "{:#?}", r.verdict);
    assert!(r.verdict[0].evidence.contains("1/8"), "{}", r.verdict[0].evidence);
}

#[test]
fn nvls_expected_but_ring_measured_is_named() {
    let m = Measured::from_log(&parse(&log("h100-1node-all-reduce-nvls.txt")).unwrap());
    let r = check(&m, &Cluster::default()).unwrap();
    assert_eq!(r.healthy, Some(false));
    assert_eq!(r.verdict[0].cause, "NVLS (NVLink SHARP) not in effect", "{:#?}", r.verdict);
}

#[test]
fn per_node_runs_name_the_slow_node() {
    // Four one-node runs of the healthy log; one node's plateau cut by a third.
    let base = Measured::from_log(&parse(&log("h100-1node-all-gather-ring.txt")).unwrap()).remove(0);
    let runs: Vec<Measured> = (0..4)
        .map(|i| {
            let mut m = base.clone();
            m.host = Some(format!("node{i}"));
            if i == 2 {
                for p in m.points.iter_mut().filter(|p| p.bytes >= 64 << 20) {
                    p.time_us *= 1.5;
                    p.busbw /= 1.5;
                }
            }
            m
        })
        .collect();
    let r = check(&runs, &Cluster::default()).unwrap();
    assert_eq!(r.verdict[0].cause, "a single slow node", "{:#?}", r.verdict);
    assert!(r.verdict[0].evidence.starts_with("node2: plateau "), "{}", r.verdict[0].evidence);
}

#[test]
fn an_unvalidated_class_is_said_instead_of_blaming_the_cluster() {
    // SendRecv over RoCE: no published measurement backs that class (trust_table.rs).
    let m = Measured::from_log(&parse(&log("b200-2node-sendrecv-two-runs.txt")).unwrap());
    let design = Cluster { nic: fabricscope_model::catalog::NicKind::Roce400, ..Cluster::default() };
    let r = check(&m, &design).unwrap();
    assert!(!r.plateaus[0].validated);
    assert_eq!(r.healthy, None, "not validated: cannot judge");
    assert_eq!(r.verdict.len(), 1);
    assert_eq!(r.verdict[0].cause, "the model is not validated for this class");
}

/// A synthetic log of tests/fixtures/ (formats and their public sources: fixtures/README.md),
/// checked as the CLI does with no flags: against the default design, the log's fields read in.
fn fixture(name: &str) -> CheckReport {
    let text = std::fs::read_to_string(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let r = check(&Measured::from_log(&parse(&text).unwrap()), &Cluster::default()).unwrap();
    numbers_agree(&r);
    r
}

fn source(r: &CheckReport, name: &str) -> (String, Source) {
    let f = r.fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no field {name}: {:?}", r.fields));
    (f.value.clone(), f.source)
}

/// Advice that names NVIDIA's tools or NVIDIA-only features.
const NVIDIA_WORDS: [&str; 7] = ["nvidia-smi", "NVLink", "NVLS", "nvidia-peermem", "GPUDirect", "NET/IB", "fabricmanager"];

#[test]
fn an_mi300x_rccl_tests_log_without_flags_is_judged_with_rccl_and_no_nvidia_advice() {
    let r = fixture("mi300x-1node-rccl-all-reduce.txt");
    assert_eq!((r.cluster.gpu, r.cluster.scale_up, r.cluster.nodes, r.cluster.gpus_per_node), (GpuKind::Mi300x, ScaleUp::Xgmi, 1, 8));
    assert_eq!(source(&r, "gpu"), ("Instinct MI300X 192GB".to_string(), Source::Log));
    // `rccl-tests: Version ...` names the library, and is launcher chatter, not an unread line.
    assert_eq!(source(&r, "library"), ("RCCL".to_string(), Source::Log));
    let log = parse(&std::fs::read_to_string(format!("{}/tests/fixtures/mi300x-1node-rccl-all-reduce.txt", env!("CARGO_MANIFEST_DIR"))).unwrap()).unwrap();
    assert_eq!((log.unread_count, log.chatter), (0, 2));
    assert!(r.not_modelled.is_empty());
    // RCCL's model (Ring on the xGMI mesh), a validated class: judged, and healthy.
    assert_eq!(r.plateaus[0].algorithm, "Ring");
    assert!(r.plateaus[0].validated);
    assert_eq!(r.healthy, Some(true), "{:#?}", r.verdict);
    // The same log at half the bandwidth: not healthy, with AMD's tools, never NVIDIA's.
    let mut slow = Measured::from_log(&parse(&std::fs::read_to_string(format!("{}/tests/fixtures/mi300x-1node-rccl-all-reduce.txt", env!("CARGO_MANIFEST_DIR"))).unwrap()).unwrap());
    for p in slow[0].points.iter_mut().filter(|p| p.bytes >= 1 << 20) {
        (p.time_us, p.busbw) = (p.time_us * 2.0, p.busbw / 2.0);
    }
    let r = check(&slow, &Cluster::default()).unwrap();
    numbers_agree(&r);
    assert_eq!(r.healthy, Some(false));
    assert!(r.verdict[0].cause.starts_with("xGMI links slower"), "{:#?}", r.verdict);
    assert!(r.verdict[0].next_step.contains("rocm-smi --showtopo") && r.verdict[0].next_step.contains("rccl-tests"));
    for c in &r.verdict {
        for w in NVIDIA_WORDS {
            assert!(!c.cause.contains(w) && !c.next_step.contains(w) && !c.evidence.contains(w), "{w} in {c:?}");
        }
    }
}

#[test]
fn a_gb300_rack_is_judged_as_gb300_on_nvl72() {
    let r = fixture("gb300-1rack-all-reduce.txt");
    assert_eq!((r.cluster.gpu, r.cluster.scale_up, r.cluster.nodes, r.cluster.gpus_per_node), (GpuKind::Gb300, ScaleUp::Nvl72, 18, 4));
    assert_eq!(source(&r, "gpu").1, Source::Log);
    assert!(r.not_modelled.is_empty());
    // NVLS inside one rack of 72, a class now measured up to a whole rack (CoreWeave's GB200
    // runs at 72 GPUs, validation/collectives-nvl72-racks.csv): judged, not extrapolated.
    let p = &r.plateaus[0];
    assert_eq!(p.algorithm, "NVLS");
    assert!(!p.extrapolated && p.validated && p.trust.contains("8-72 GPUs"), "{p:?}");
    assert_eq!(r.healthy, Some(true), "{:#?}", r.verdict);
    assert_eq!(r.verdict[0].cause, "healthy", "{:?}", r.verdict[0]);
    // Cut to half: not healthy, and the NVL72 fabric's own checks (MNNVL, IMEX) come first.
    let mut slow = Measured::from_log(&parse(&std::fs::read_to_string(format!("{}/tests/fixtures/gb300-1rack-all-reduce.txt", env!("CARGO_MANIFEST_DIR"))).unwrap()).unwrap());
    for p in slow[0].points.iter_mut().filter(|p| p.bytes >= 1 << 20) {
        (p.time_us, p.busbw) = (p.time_us * 2.0, p.busbw / 2.0);
    }
    let r = check(&slow, &Cluster::default()).unwrap();
    numbers_agree(&r);
    assert_eq!(r.healthy, Some(false), "a measured class, half its figure: {:#?}", r.verdict);
    assert!(r.verdict.iter().any(|c| c.next_step.contains("IMEX")), "{:#?}", r.verdict);
}

#[test]
fn a_p5_log_over_efa_is_judged_with_efa() {
    let r = fixture("p5-efa-2node-all-reduce.txt");
    assert_eq!((r.cluster.gpu, r.cluster.nic, r.cluster.nics_per_node, r.cluster.nodes), (GpuKind::H100, NicKind::Efa100, 32, 2));
    assert_eq!(source(&r, "nic"), ("32 x AWS EFA 100G (SRD)".to_string(), Source::Inferred));
    assert_eq!(source(&r, "library"), ("NCCL 2.21.5+cuda12.4".to_string(), Source::Log));
    assert!(r.not_modelled.is_empty());
    assert!(r.plateaus[0].validated);
    assert_eq!(r.healthy, Some(true), "{:#?}", r.verdict);
}

#[test]
fn sockets_over_ipoib_on_an_infiniband_cluster_are_not_healthy() {
    let r = fixture("a100-ipoib-socket-2node-all-reduce.txt");
    assert_eq!((r.cluster.gpu, r.cluster.nic), (GpuKind::A100, NicKind::IbHdr));
    assert_eq!(r.healthy, Some(false));
    assert_eq!(r.verdict[0].cause, "NCCL fell back to TCP sockets (NET/Socket), not RDMA");
    assert!(r.verdict[0].evidence.contains("over IP-over-InfiniBand"), "{:?}", r.verdict[0]);
    assert!(r.verdict.iter().all(|c| !c.cause.contains("GPUDirect") && !c.cause.contains("oversubscribed")), "{:#?}", r.verdict);
}

#[test]
fn twenty_gb200_racks_from_the_last_rank_are_judged_as_racks_from_the_two_measured() {
    let r = fixture("gb200-20rack-last-rank-all-reduce.txt");
    assert_eq!((r.cluster.gpu, r.cluster.nodes, r.cluster.gpus_per_node), (GpuKind::Gb200, 360, 4));
    assert_eq!(source(&r, "ranks"), ("1440".to_string(), Source::Log));
    // 20 racks of 72, NVLS on (the log sets nothing): NVLSTree across racks is measured at two
    // racks (CoreWeave's twenty-rack run had NVLS off), so the expectation is extrapolated with
    // a band widened by scale; this run's plateau, 82% of it, is healthy, with the NIC said
    // assumed.
    assert_eq!(source(&r, "nic"), ("4 x InfiniBand NDR 400G".to_string(), Source::Assumed));
    assert!(r.plateaus[0].extrapolated && r.plateaus[0].trust.contains("at 2 racks"), "{:?}", r.plateaus[0]);
    assert_eq!(r.healthy, Some(true), "{:#?}", r.verdict);
}

/// A fixture's runs (the synthetic logs of tests/fixtures/).
fn fixture_runs(name: &str) -> Vec<Measured> {
    Measured::from_log(&parse(&std::fs::read_to_string(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()).unwrap())
}

#[test]
fn a_nic_given_on_a_gb200_log_is_used_and_said_given_with_the_gpu_still_read() {
    // Issue 37: a NIC given (a flag, or picked on check.html) is used with the log's GPU, one
    // NIC per GPU of the tray (not the default node's 8), and said given.
    let runs = fixture_runs("gb200-20rack-last-rank-all-reduce.txt");
    let design = Cluster { nic: NicKind::IbXdr, ..Cluster::default() };
    let r = check_with(&runs, &design, &Given { nic: true, ..Given::default() }).unwrap();
    assert_eq!((r.cluster.gpu, r.cluster.nic, r.cluster.nics_per_node), (GpuKind::Gb200, NicKind::IbXdr, 4));
    assert_eq!(source(&r, "gpu").1, Source::Log);
    assert_eq!(source(&r, "nic"), ("4 x InfiniBand XDR 800G".to_string(), Source::Flag));
    assert!(r.overruled.is_empty(), "the log shows no network: {:?}", r.overruled);
    // Not given, the same design's NIC gives way to the GB200 platform's.
    let r = check(&runs, &design).unwrap();
    assert_eq!((r.cluster.nic, source(&r, "nic").1), (NicKind::IbNdr, Source::Assumed));
}

#[test]
fn a_given_value_the_log_contradicts_is_used_and_the_log_is_said() {
    // The log says GB200; H100 given: judged as H100, and the log's GPU named.
    let runs = fixture_runs("gb200-20rack-last-rank-all-reduce.txt");
    let r = check_with(&runs, &Cluster::default(), &Given { gpu: true, ..Given::default() }).unwrap();
    assert_eq!((r.cluster.gpu, source(&r, "gpu").1), (GpuKind::H100, Source::Flag));
    assert_eq!(r.overruled.len(), 1, "{:?}", r.overruled);
    assert_eq!(r.overruled[0].text(), "gpu: the log says GB200 (Blackwell in NVL72); checked against H100-SXM5 80GB, as given.");
    // The log shows EFA (aws-ofi-nccl); InfiniBand given: judged on it, the log's network said.
    let runs = fixture_runs("p5-efa-2node-all-reduce.txt");
    let design = Cluster { nic: NicKind::IbNdr, ..Cluster::default() };
    let r = check_with(&runs, &design, &Given { nic: true, ..Given::default() }).unwrap();
    assert_eq!((r.cluster.nic, r.cluster.nics_per_node, source(&r, "nic").1), (NicKind::IbNdr, 8, Source::Flag));
    assert_eq!(r.overruled.len(), 1, "{:?}", r.overruled);
    assert!(r.overruled[0].text().starts_with("nic: the log says the network is AWS libfabric (NET/OFI, EFA); checked against 8 x InfiniBand NDR"), "{:?}", r.overruled);
    // The log's own values given again: nothing is overruled.
    let design = Cluster { nic: NicKind::Efa100, nics_per_node: 32, ..Cluster::default() };
    let all = Given { gpu: true, nic: true, nics_per_node: true, ..Given::default() };
    assert!(check_with(&runs, &design, &all).unwrap().overruled.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn no_text_panics_the_reader(lines in proptest::collection::vec(prop_oneof![
        ".{0,80}",
        "[0-9 .e+-]{0,60}",
        Just("# nThread 1 nGpus 8 minBytes 8".to_string()),
        Just("#  Rank  0 Group  0 Pid 1 on h device  0 [0x1] NVIDIA H100".to_string()),
        "[0-9]{1,20} +[0-9]{1,20} +float +(sum|none) +-?[0-9]{1,3}( +[0-9.NA/e+-]{1,9}){0,9}",
    ], 0..40)) {
        let text = lines.join("\n");
        if let Ok(l) = parse(&text) {
            let m = Measured::from_log(&l);
            let _ = check(&m, &Cluster::default());
        }
    }
}
