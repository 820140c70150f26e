//! One answer per question (issue 37): without `--routing` the analytical model already uses
//! the routing the design has (ECMP on Ethernet by default, adaptive on InfiniBand), so `train`
//! and `collective` agree with the flow model's mean over seeds under that routing; and
//! `train` takes `--qps-per-connection` as `collective` does.

mod common;
use common::{fails, json, stdout_ok};
use serde_json::Value;

/// 512 H100, 8x 400G RoCE, no rails, 3:1: the right-sizer's "8x 400G RoCE, no rails, 3:1".
const ROCE: [&str; 12] = ["--gpu", "h100", "--nodes", "64", "--nic", "roce-400", "--rail-optimized", "false", "--oversubscription", "3", "--model", "llama3-70b"];
/// 512 B200, 8x 800G RoCE, rail-optimized, non-blocking.
const B200_RAILS: [&str; 10] = ["--gpu", "b200", "--nodes", "64", "--nic", "roce-800", "--rail-optimized", "true", "--model", "llama3-70b"];
/// 512 H100 on NDR InfiniBand, no rails, 3:1 (adaptive routing, the NIC's default).
const IB: [&str; 12] = ["--gpu", "h100", "--nodes", "64", "--nic", "ib-ndr", "--rail-optimized", "false", "--oversubscription", "3", "--model", "llama3-70b"];
/// Train's layout flags of the command.
const TP8: [&str; 4] = ["--tp", "8", "--pp", "1"];

fn train(design: &[&str], more: &[&str]) -> Value {
    let mut a = vec!["train", "--json"];
    a.extend_from_slice(design);
    a.extend_from_slice(more);
    json(&a)
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_f64().unwrap_or_else(|| panic!("{path:?} in {v}"))
}

/// `train` without `--routing` against the same command with the flow model under `routing`
/// over 32 seeds: (analytical step, flow model's mean step), seconds.
fn step_and_flow_mean(design: &[&str], layout: &[&str], routing: &str) -> (f64, f64) {
    let plain = train(design, layout);
    let mut more = layout.to_vec();
    more.extend_from_slice(&["--routing", routing, "--seeds", "32"]);
    let flow = train(design, &more);
    assert_eq!(flow["flow"]["routing"], routing);
    (f(&plain, &["step_time_s"]), f(&flow, &["step_time_s_over_seeds", "mean"]))
}

/// The done-when: on the RoCE design `train`'s step is within 10% of the flow model's
/// mean under ECMP over 32 seeds (before: 8.1 s against 10.4 s), for the layout and
/// for the one the right-sizer picks there (micro-batch 2, no recompute, ZeRO 2: 7.44 s
/// against 13.1 s before).
#[test]
fn train_on_roce_uses_ecmp_and_meets_the_flow_model() {
    for layout in [&TP8[..], &["--tp", "8", "--pp", "1", "--micro-batch", "2", "--recompute", "none", "--zero", "2"][..]] {
        let (step, mean) = step_and_flow_mean(&ROCE, layout, "ecmp");
        assert!((step / mean - 1.0).abs() <= 0.10, "{layout:?}: train {step} s, flow model mean {mean} s");
    }
    let r = train(&ROCE, &TP8);
    let frac = f(&r, &["ecmp_ring_fraction"]);
    assert!(frac > 0.3 && frac < 0.5, "8 flows on 30 uplinks over 6 leaf crossings: {frac}");
    let text = stdout_ok(&[&["train"][..], &ROCE, &TP8].concat());
    assert!(text.contains("ECMP, the NIC's default"), "{text}");
}

/// Rails whose rings keep one connection per leaf, and InfiniBand's adaptive routing, lose
/// nothing to routing: `train` is the flow model's mean under the NIC's own routing.
#[test]
fn rails_and_infiniband_are_unchanged_and_agree_with_the_flow_model() {
    let (step, mean) = step_and_flow_mean(&B200_RAILS, &TP8, "ecmp");
    assert!((step / mean - 1.0).abs() <= 0.01, "B200 rails: train {step}, flow {mean}");
    assert_eq!(f(&train(&B200_RAILS, &TP8), &["ecmp_ring_fraction"]), 1.0);
    let (step, mean) = step_and_flow_mean(&IB, &TP8, "adaptive");
    assert!((step / mean - 1.0).abs() <= 0.01, "IB: train {step}, flow {mean}");
    let ib = train(&IB, &TP8);
    assert!(ib["ecmp_ring_fraction"].is_null(), "{ib}");
    let text = stdout_ok(&[&["train"][..], &IB, &TP8].concat());
    assert!(text.contains("adaptive, the NIC's default"), "{text}");
}

/// The explorer's headline (1 GiB AllReduce on the whole cluster) and the congestion study of
/// the same collective under ECMP give one busbw (before: 266 against 111 GB/s).
#[test]
fn collective_headline_on_roce_meets_the_flow_model() {
    let mut a = vec!["collective", "--op", "all_reduce", "--bytes", "1G", "--json"];
    a.extend_from_slice(&ROCE[..10]);
    let plain = json(&a);
    a.extend_from_slice(&["--routing", "ecmp", "--seeds", "32"]);
    let flow = json(&a);
    let (b, m) = (f(&plain, &["busbw_GBps"]), f(&flow, &["busbw_GBps_over_seeds", "mean"]));
    assert!((b / m - 1.0).abs() <= 0.10, "analytical {b} GB/s, flow model mean {m}");
}

/// `train --qps-per-connection` reaches the step's collectives and the flow model's flows:
/// two QPs per connection give a ring the NICs' goodput and halve each flow, so the step is
/// faster, and still meets the flow model; out-of-range values name the flag.
#[test]
fn train_takes_qps_per_connection() {
    let one = f(&train(&ROCE, &TP8), &["step_time_s"]);
    let two_layout = [&TP8[..], &["--qps-per-connection", "2"]].concat();
    let (two, mean) = step_and_flow_mean(&ROCE, &two_layout, "ecmp");
    assert!(two < one, "2 QPs {two} s, 1 QP {one} s");
    assert!((two / mean - 1.0).abs() <= 0.10, "2 QPs: train {two}, flow {mean}");
    let ib_one = f(&train(&IB, &TP8), &["step_time_s"]);
    let ib_two = f(&train(&IB, &[&TP8[..], &["--qps-per-connection", "2"]].concat()), &["step_time_s"]);
    assert!(ib_two < ib_one, "several QPs give an RDMA ring the NICs' goodput: {ib_two} vs {ib_one}");
    fails(&["train", "--model", "llama3-8b", "--qps-per-connection", "0"], &["--qps-per-connection"]);
}

/// The right-sizer's figure for the RoCE design is `train`'s step for the layout the search
/// ranks best there (the right-sizer times the user's system with it), and that step meets the
/// flow model under ECMP.
#[test]
fn rightsize_figure_is_trains_step_on_roce() {
    let rs = json(&[&["rightsize", "--json"][..], &ROCE].concat());
    let own = rs["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["option"]["nic"] == "roce-400" && c["option"]["nics_per_node"] == 8 && c["option"]["rail_optimized"] == false && c["option"]["oversubscription"] == 3.0 && c["domain_gpus"] == 8)
        .expect("the design's own option");
    let best = &json(&[&["search", "--top", "1", "--json"][..], &ROCE].concat())[0];
    let m = &best["mapping"];
    let s = |k: &str| m[k].as_u64().map_or_else(|| m[k].as_str().unwrap().to_string(), |v| v.to_string());
    let (tp, pp, dp, cp, mb, v, rc, z) = (s("tp"), s("pp"), s("dp"), s("cp"), s("micro_batch"), s("interleave"), s("recompute"), s("zero"));
    let layout = ["--tp", &tp, "--pp", &pp, "--dp", &dp, "--cp", &cp, "--micro-batch", &mb, "--interleave", &v, "--recompute", &rc, "--zero", &z];
    let (step, mean) = step_and_flow_mean(&ROCE, &layout, "ecmp");
    assert_eq!(f(own, &["step_time_s"]), step, "right-sizer against train {layout:?}");
    assert!((step / mean - 1.0).abs() <= 0.10, "train {step} s, flow model mean {mean} s");
}
