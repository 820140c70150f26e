//! Calibration on real published logs (validation/logs/, sources in its README) and the
//! check's synthetic p5 fixture (tests/fixtures/, whose 32 MiB-8 GiB rows follow the published
//! p5 2-node run): predictions at larger node counts against the measured plateaus in
//! validation/collectives*.csv, a slow copy of the same log moving the prediction, a one-node
//! log saying what it cannot constrain, logs of other clusters or contradicting each other
//! refused, and the calibration file read back.

#[path = "common/scale_log.rs"]
mod scale_log;

use fabricscope_check::calibrate::{calibrate, read_log, CalibrationFile, LogRuns};
use fabricscope_check::Given;
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, Prediction, ProtoChoice};
use scale_log::scaled_log;

fn text(path: &str) -> String {
    std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const B200: &str = "validation/logs/b200-2node-sendrecv-two-runs.txt";
const P5: &str = "crates/check/tests/fixtures/p5-efa-2node-all-reduce.txt";
const H100_1NODE: &str = "validation/logs/h100-1node-all-reduce-nvls.txt";
const MI300X_1NODE: &str = "crates/check/tests/fixtures/mi300x-1node-rccl-all-reduce.txt";
/// The 2-node rows of an 8-node H100 InfiniBand cluster (NVIDIA/nccl-tests issue 309, the
/// comment by gj-aion), in nccl-tests' format: validation/collectives-4.csv.
const H100_IB: &str = "crates/check/tests/fixtures/h100-ib-2node-all-reduce.txt";

fn log(name: &str, t: &str) -> LogRuns {
    read_log(name, t.as_bytes().to_vec()).unwrap()
}

fn fit(logs: &[LogRuns]) -> CalibrationFile {
    calibrate(logs, &Cluster::default(), &Given::default()).unwrap()
}

/// (catalog, calibrated) predictions of `op` at `bytes` on the file's cluster at `nodes`.
fn at(f: &CalibrationFile, nodes: u32, op: Collective, bytes: u64) -> (Prediction, Prediction, Comm) {
    let c = Cluster { nodes, ..f.cluster.clone() };
    let t = c.topology().unwrap();
    let comm = Comm::new(&t, t.whole()).unwrap();
    let k = comm.clone().with_calibration(&f.calibration);
    let a = comm.predict(op, Bytes(bytes), AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
    let b = k.predict(op, Bytes(bytes), AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
    (a, b, k)
}

fn interval(f: &CalibrationFile, p: &Prediction, nodes: u32) -> (f64, f64) {
    let i = f.calibration.busbw_intervals(p, nodes).unwrap();
    (i.busbw_gbps.lo, i.busbw_gbps.hi)
}

/// DGX Cloud B200 (use3a-ss), nccl-tests sendrecv at 16 GiB (validation/collectives-2.csv and
/// -3.csv, Together AI's scaling report): nodes and busbw GB/s.
const B200_SENDRECV_16G: [(u32, f64); 3] = [(4, 42.7), (8, 25.4), (16, 15.1)];
/// AWS p5.48xlarge all_reduce at 8 GiB (validation/collectives-amd-efa.csv,
/// crazyguitar/aws-gpu-communication-benchmark): nodes and busbw GB/s.
const P5_ALL_REDUCE_8G: [(u32, f64); 3] = [(4, 356.99), (8, 355.36), (16, 356.27)];

#[test]
fn a_two_node_b200_log_predicts_eight_nodes_within_15_percent_and_every_count_inside_its_interval() {
    let f = fit(&[log(B200, &text(B200))]);
    let net = f.calibration.network.bandwidth.as_ref().expect("a 2-node log constrains the network");
    // 43.1 GB/s measured against the catalog's 42.4 at 256 MiB: the NICs as designed.
    assert!((0.97..1.07).contains(&net.share), "{}", net.share);
    assert!(f.summary[0].contains("as designed"), "{:?}", f.summary);
    for (nodes, measured) in B200_SENDRECV_16G {
        let (catalog, p, _) = at(&f, nodes, Collective::SendRecv, 16 << 30);
        let (lo, hi) = interval(&f, &p, nodes);
        let err = p.busbw.0 / measured - 1.0;
        eprintln!("B200 sendrecv {nodes} nodes: measured {measured}, calibrated {:.2} ({:+.0}%), catalog {:.2}, 90% {lo:.1}-{hi:.1}", p.busbw.0, err * 100.0, catalog.busbw.0);
        assert!(lo <= measured && measured <= hi, "{nodes} nodes: {measured} outside {lo}-{hi}");
        if nodes == 8 {
            assert!(err.abs() <= 0.15, "8 nodes: {} vs {measured}", p.busbw.0);
        }
    }
}

/// Calibrates on the 2-node `path` and predicts all_reduce at 8 GiB at each measured node
/// count: inside the calibrated interval at every count, within 15% up to `within_up_to` nodes.
fn all_reduce_at_scale(name: &str, path: &str, measured: &[(u32, f64)], within_up_to: u32) {
    let f = fit(&[log(path, &text(path))]);
    for &(nodes, measured) in measured {
        let (catalog, p, _) = at(&f, nodes, Collective::AllReduce, 8 << 30);
        let (lo, hi) = interval(&f, &p, nodes);
        let err = p.busbw.0 / measured - 1.0;
        eprintln!("{name} all_reduce {nodes} nodes: measured {measured}, calibrated {:.1} ({:+.0}%), catalog {:.1}, 90% {lo:.1}-{hi:.1}", p.busbw.0, err * 100.0, catalog.busbw.0);
        assert!(lo <= measured && measured <= hi, "{name} {nodes} nodes: {measured} outside {lo}-{hi}");
        if nodes <= within_up_to {
            assert!(err.abs() <= 0.15, "{name} {nodes} nodes: {} vs {measured}", p.busbw.0);
        }
    }
}

#[test]
fn a_two_node_p5_log_predicts_four_and_eight_nodes_within_15_percent() {
    all_reduce_at_scale("p5", P5, &P5_ALL_REDUCE_8G, 8);
}

/// The same H100 cluster at 4 and 8 nodes, all_reduce at 8 GiB (validation/collectives-4.csv,
/// NVIDIA/nccl-tests issue 309, gj-aion's default runs): nodes and busbw GB/s. No constant of the
/// network model was fitted on this cluster (its rows came after them): out of sample.
const H100_IB_ALL_REDUCE_8G: [(u32, f64); 2] = [(4, 324.52), (8, 320.70)];

#[test]
fn a_two_node_h100_log_predicts_four_and_eight_nodes_within_15_percent() {
    all_reduce_at_scale("H100 IB", H100_IB, &H100_IB_ALL_REDUCE_8G, 8);
}

#[test]
fn the_same_log_at_70_percent_predicts_larger_node_counts_at_about_70_percent() {
    let healthy = fit(&[log(B200, &text(B200))]);
    let slow = fit(&[log("slow.txt", &scaled_log(&text(B200), 0.7))]);
    let s = slow.calibration.network.bandwidth.as_ref().unwrap().share;
    assert!(slow.summary[0].contains("The NICs deliver 7"), "{:?}", slow.summary);
    assert!((0.68..0.75).contains(&s), "{s}");
    for nodes in [4, 8, 16, 64] {
        for bytes in [256u64 << 20, 16 << 30] {
            let r = at(&slow, nodes, Collective::SendRecv, bytes).1.busbw.0 / at(&healthy, nodes, Collective::SendRecv, bytes).1.busbw.0;
            assert!((0.63..=0.77).contains(&r), "{nodes} nodes {bytes} B: {r}");
            // Other collectives take the tier's share.
            let r = at(&slow, nodes, Collective::AllToAll, bytes).1.busbw.0 / at(&healthy, nodes, Collective::AllToAll, bytes).1.busbw.0;
            assert!((0.63..=0.77).contains(&r), "all_to_all {nodes} nodes {bytes} B: {r}");
        }
    }
}

#[test]
fn a_one_node_log_keeps_the_catalogs_network_and_says_so() {
    let f = fit(&[log(H100_1NODE, &text(H100_1NODE))]);
    assert!(f.calibration.network.bandwidth.is_none() && f.calibration.network.latency.is_none());
    assert!(f.not_constrained.iter().any(|w| w.contains("the network") && w.contains("catalog")), "{:?}", f.not_constrained);
    // The node itself is measured: the Ring plateau (NVLS not in effect, as the check says).
    assert!(f.calibration.scale_up.bandwidth.is_some());
    assert!(f.features.iter().any(|w| w.starts_with("NVLS off")), "{:?}", f.features);
    let (catalog, p, k) = at(&f, 2, Collective::AllReduce, 1 << 30);
    // The catalog's network; only the node's measured per-operation latency (+10 µs) is added.
    assert!((p.busbw.0 / catalog.busbw.0 - 1.0).abs() < 0.005, "{} vs {}", p.busbw.0, catalog.busbw.0);
    assert!(!f.calibration.covers(k.placement.domains()));
    assert!(f.calibration.scale_note(2).contains("network is the catalog's"));
    let i = f.calibration.busbw_intervals(&p, 2).unwrap();
    assert!(i.busbw_gbps.basis.contains("not calibrated"), "{}", i.busbw_gbps.basis);
    let own = p.intervals().unwrap();
    assert_eq!((i.busbw_gbps.lo, i.busbw_gbps.hi), (own.busbw_gbps.lo, own.busbw_gbps.hi), "no calibrated interval for the network part");
}

#[test]
fn an_rccl_one_node_log_calibrates_the_xgmi_node() {
    let f = fit(&[log(MI300X_1NODE, &text(MI300X_1NODE))]);
    assert_eq!(f.cluster.gpu, fabricscope_model::catalog::GpuKind::Mi300x);
    let s = f.calibration.scale_up.bandwidth.as_ref().unwrap();
    // The synthetic fixture sits at the model's healthy expectation: 99% of it.
    assert!((0.95..1.05).contains(&s.share), "{}", s.share);
    assert!(f.summary[0].starts_with("Inside the node as designed"), "{:?}", f.summary);
    assert!(f.calibration.network.bandwidth.is_none());
}

#[test]
fn two_logs_of_one_node_with_different_collectives_fit_a_share_each() {
    const GATHER: &str = "validation/logs/h100-1node-all-gather-ring.txt";
    let f = fit(&[log(H100_1NODE, &text(H100_1NODE)), log(GATHER, &text(GATHER))]);
    let s = f.calibration.scale_up.bandwidth.as_ref().unwrap();
    let ops: Vec<Collective> = s.by_op.iter().map(|o| o.op).collect();
    assert_eq!(ops, [Collective::AllReduce, Collective::AllGather]);
    assert_eq!(f.logs.len(), 2);
    assert!(f.rows.iter().any(|r| r.log == 1 && r.constrains.is_some()));
    // Each collective is predicted with its own share at its plateau: within 5% of the log.
    for r in f.rows.iter().filter(|r| r.constrains == Some(fabricscope_check::calibrate::Param::ScaleUpBandwidth)) {
        assert!((r.calibrated_busbw / r.measured_busbw - 1.0).abs() < 0.05, "{}: {} vs {}", r.label(), r.calibrated_busbw, r.measured_busbw);
    }
}

#[test]
fn logs_of_different_gpus_are_refused() {
    let e = calibrate(&[log(H100_1NODE, &text(H100_1NODE)), log(MI300X_1NODE, &text(MI300X_1NODE))], &Cluster::default(), &Given::default()).unwrap_err();
    assert!(e.message.contains("not the same cluster") && e.message.contains("GPU"), "{}", e.message);
    let e = calibrate(&[log(B200, &text(B200)), log(H100_1NODE, &text(H100_1NODE))], &Cluster::default(), &Given::default()).unwrap_err();
    assert!(e.message.contains("B200") && e.message.contains("H100"), "{}", e.message);
}

#[test]
fn logs_that_contradict_each_other_are_refused() {
    let e = calibrate(&[log(B200, &text(B200)), log("slow.txt", &scaled_log(&text(B200), 0.4))], &Cluster::default(), &Given::default()).unwrap_err();
    assert!(e.message.contains("contradict") && e.message.contains("2x"), "{}", e.message);
    // 0.7x is not a contradiction: both are kept, and the fit lies between them.
    let f = fit(&[log(B200, &text(B200)), log("slow.txt", &scaled_log(&text(B200), 0.7))]);
    let s = f.calibration.network.bandwidth.unwrap();
    assert!(s.share > 0.7 && s.share < 1.03 && s.rel_uncertainty > 0.1, "{s:?}");
}

#[test]
fn the_file_reads_back_and_a_bad_one_says_why() {
    let f = fit(&[log(B200, &text(B200))]);
    let json = serde_json::to_string(&f).unwrap();
    let back = CalibrationFile::from_json(&json).unwrap();
    // serde_json reads floats to within an ulp or two (no float_roundtrip feature).
    let (a, b) = (f.calibration.network.bandwidth.as_ref().unwrap(), back.calibration.network.bandwidth.as_ref().unwrap());
    assert!((a.share - b.share).abs() < 1e-12 && a.by_op.len() == b.by_op.len());
    assert_eq!((back.rows.len(), &back.logs, &back.cluster, &back.summary), (f.rows.len(), &f.logs, &f.cluster, &f.summary));
    assert!(f.logs[0].digest.starts_with("fnv1a64:") && f.logs[0].digest.len() == 24);
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["version"] = 99.into();
    assert!(CalibrationFile::from_json(&v.to_string()).unwrap_err().contains("version 99"));
    let mut stale = f.clone();
    stale.rows.last_mut().unwrap().catalog_busbw *= 1.1;
    assert!(CalibrationFile::from_json(&serde_json::to_string(&stale).unwrap()).unwrap_err().starts_with("stale"));
    let mut wild = f.clone();
    wild.calibration.network.bandwidth.as_mut().unwrap().share = 3.0;
    assert!(CalibrationFile::from_json(&serde_json::to_string(&wild).unwrap()).unwrap_err().contains("share"));
    assert!(CalibrationFile::from_json("{}").unwrap_err().contains("no \"version\""));
    assert!(CalibrationFile::from_json("not json").unwrap_err().contains("not JSON"));
}
