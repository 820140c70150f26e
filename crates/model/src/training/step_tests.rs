//! Tests of the step model (step.rs): published step times and schedule arithmetic.

use super::*;
use crate::catalog::{GpuKind, NicKind, ScaleUp};
use crate::topology::Cluster;
use crate::training::framework::Framework;
use crate::training::mapping::RankOrder;
use crate::training::presets::preset;
use crate::training::workload::Precision;

fn h100(nodes: u32) -> Cluster {
    Cluster { nodes, ..Cluster::default() }
}
fn par(tp: u32, pp: u32, dp: u32) -> Parallel {
    Parallel { tp, pp, dp, ..Parallel::default() }
}
fn ev_mamf(c: &Cluster) -> f64 {
    crate::training::efficiency::ComputeClass::of(c.gpu).mamf_bf16
}
fn eval(c: &Cluster, w: &Workload, p: &Parallel, fw: Framework) -> StepReport {
    let t = c.topology().unwrap();
    Evaluator::new(&t, w, fw).unwrap().evaluate(p).unwrap()
}

#[test]
fn small_experts_pay_the_per_expert_gemm_floor_coarse_ones_do_not() {
    let t = h100(2).topology().unwrap();
    // Qwen3-30B-A3B-like: 128 experts of FFN 768, top-8; 16 local experts at EP 8.
    let fine = Workload { moe: Some(crate::training::workload::Moe { experts: 128, top_k: 8, expert_ffn: 768, ..Default::default() }), hidden: 2048, heads: 32, ..preset("mixtral-8x7b").unwrap() };
    let coarse = preset("mixtral-8x7b").unwrap();
    for (w, floor_bound) in [(&fine, true), (&coarse, false)] {
        let at = |p: Precision| {
            let w = Workload { precision: p, ..w.clone() };
            let mut ev = Evaluator::new(&t, &w, Framework::default()).unwrap();
            ev.stage_compute(1, 1, 8 | (1 << 16), 2, false).moe
        };
        let (bf16, fp8) = (at(Precision::Bf16), at(Precision::Fp8));
        let local = w.moe.unwrap().experts as f64 / 8.0;
        // Forward: two GEMMs per local expert at >= 33 µs each (66 µs in FP8).
        assert!(fp8.fwd >= local * 2.0 * 2.0 * EXPERT_GEMM_FLOOR_US && fp8.bwd >= local * 4.0 * 2.0 * EXPERT_GEMM_FLOOR_US);
        assert!(bf16.fwd >= local * 2.0 * EXPERT_GEMM_FLOOR_US);
        // Fine experts sit on the floor, so FP8 gains nothing; coarse experts are compute
        // bound and FP8 makes them faster.
        assert_eq!(fp8.fwd >= bf16.fwd, floor_bound, "{} vs {}", fp8.fwd, bf16.fwd);
    }
}

#[test]
fn components_add_up_and_report_is_consistent() {
    let w = preset("gpt3-175b").unwrap();
    let r = eval(&h100(16), &w, &Parallel { micro_batch: 2, interleave: 2, ..par(8, 8, 2) }, Framework::default());
    let sum = r.breakdown.total().seconds();
    assert!((sum - r.step_time_s).abs() < 1e-9 * r.step_time_s);
    // HFU counts as MFU does plus the recompute; at 2K tokens both stay below the
    // measured matmul ceiling.
    assert!(r.hfu >= r.mfu && r.hfu <= ev_mamf(&h100(16)) && r.mfu > 0.0 && r.mfu < 1.0, "{} {}", r.hfu, r.mfu);
    assert!((r.tokens_per_s - w.tokens_per_step() as f64 / r.step_time_s).abs() < 1e-6 * r.tokens_per_s);
    assert!(r.fits && r.memory_gib_per_gpu < 80.0);
    assert!(!r.bottleneck.is_empty());
    // Serde round trip of what the web app and scenario files carry.
    let back: StepReport = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back.mapping, r.mapping);
    let wj: Workload = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
    assert_eq!(wj, w);
}

#[test]
fn more_network_bandwidth_never_slows_a_step() {
    let w = preset("gpt3-175b").unwrap();
    for p in [par(8, 8, 2), Parallel { zero: 3, ..par(8, 1, 16) }, par(16, 4, 2), Parallel { cp: 2, ..par(8, 4, 2) }] {
        for fw in [Framework::default(), Framework::megatron_2021()] {
            let slow = eval(&Cluster { nic: NicKind::IbHdr, ..h100(16) }, &w, &p, fw);
            let fast = eval(&h100(16), &w, &p, fw);
            assert!(fast.step_time_s <= slow.step_time_s * (1.0 + 1e-12), "{p:?}: {} > {}", fast.step_time_s, slow.step_time_s);
            let fewer = eval(&Cluster { nics_per_node: 4, ..h100(16) }, &w, &p, fw);
            assert!(fast.step_time_s <= fewer.step_time_s * (1.0 + 1e-12), "{p:?}: 8 NICs slower than 4");
        }
    }
}

#[test]
fn tp16_pays_on_8_gpu_nodes_but_not_inside_nvl72() {
    let w = preset("gpt3-175b").unwrap();
    let t = h100(16).topology().unwrap();
    // Without TP communication overlap, which would hide most of both.
    let fw = Framework { overlap_tp_comm: false, ..Framework::default() };
    let mut ev = Evaluator::new(&t, &w, fw).unwrap();
    let l8 = ev.layout(&par(8, 8, 2)).unwrap();
    let l16 = ev.layout(&par(16, 8, 1)).unwrap();
    let (m8, m16) = (ev.micro(&l8, 1).unwrap(), ev.micro(&l16, 1).unwrap());
    // TP 16 moves about as many bytes per GPU as TP 8, but its rings cross InfiniBand:
    // per layer its collectives are slower while its matmuls are half the size, so TP
    // takes a much larger share of the layer.
    assert!(m16.tp_dense.0 > 1.15 * m8.tp_dense.0, "{:?} vs {:?}", m16.tp_dense, m8.tp_dense);
    let share = |m: &Micro| m.tp_dense.0 / (m.tp_dense.0 + m.compute.dense.fwd);
    assert!(share(&m16) > 1.4 * share(&m8), "{} vs {}", share(&m16), share(&m8));
    assert!(l16.spans[0].tier != SpanTier::ScaleUp && l8.spans[0].tier == SpanTier::ScaleUp);
    // Inside one 64-GPU NVL72 domain, TP 16 stays on NVLink and is cheaper than on H100
    // nodes.
    let nvl = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 16, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() };
    let tn = nvl.topology().unwrap();
    let mut evn = Evaluator::new(&tn, &w, fw).unwrap();
    let ln = evn.layout(&par(16, 4, 1)).unwrap();
    assert_eq!(ln.spans[0].tier, SpanTier::ScaleUp);
    let mn = evn.micro(&ln, 1).unwrap();
    assert!(mn.tp_dense.0 < 0.7 * m16.tp_dense.0, "{:?} vs {:?}", mn.tp_dense, m16.tp_dense);
}

#[test]
fn memory_falls_with_zero_stage_and_recompute() {
    let w = preset("llama3-70b").unwrap();
    let c = h100(8);
    let mem = |p: Parallel| eval(&c, &w, &p, Framework::default()).memory;
    let base = Parallel { micro_batch: 1, ..par(4, 2, 8) };
    let z: Vec<u64> = (0..=3).map(|z| mem(Parallel { zero: z, ..base }).total.0).collect();
    assert!(z[0] > z[1] && z[1] > z[2] && z[2] > z[3], "{z:?}");
    let r: Vec<u64> = Recompute::ALL.iter().map(|r| mem(Parallel { recompute: *r, ..base }).activations.0).collect();
    assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
    // More micro-batch, more activations.
    assert!(mem(Parallel { micro_batch: 2, ..base }).activations.0 > mem(base).activations.0);
}

#[test]
fn recompute_costs_time_and_interleaving_shrinks_the_bubble() {
    let w = preset("gpt3-175b").unwrap();
    let c = h100(16);
    let fw = Framework::megatron_2021();
    let step = |p: Parallel| eval(&c, &w, &p, fw);
    let base = par(8, 8, 2);
    let none = step(Parallel { recompute: Recompute::None, ..base });
    let sel = step(Parallel { recompute: Recompute::Selective, ..base });
    let full = step(Parallel { recompute: Recompute::Full, ..base });
    assert!(none.step_time_s < sel.step_time_s && sel.step_time_s < full.step_time_s);
    assert!(full.hfu > full.mfu);
    let v1 = step(base);
    let v3 = step(Parallel { interleave: 3, ..base });
    assert!(v3.breakdown.bubble.0 < v1.breakdown.bubble.0 / 2.0);
    assert!(v3.breakdown.pp_p2p.0 > v1.breakdown.pp_p2p.0, "interleaving sends more");
}

#[test]
fn oversubscribed_spine_never_speeds_up_dp_and_a_contiguous_ring_barely_notices_it() {
    let w = preset("gpt3-175b").unwrap();
    // 96 nodes: 48 NICs per leaf, 16 uplinks: 3:1. Non-blocking: automatic sizing. DP 96
    // spans every node, so it crosses leaves; but a ring over consecutive nodes leaves each
    // leaf on one flow per channel, far below the 16 uplinks, so the spine costs it little
    // (collective::network: oversubscription costs by the bytes that cross it).
    let over = Cluster { nodes: 96, leaf_switches: Some(16), spine_switches: Some(4), ..h100(96) };
    let p = par(8, 1, 96);
    let fw = Framework::megatron_2021();
    let a = eval(&h100(96), &w, &p, fw);
    let b = eval(&over, &w, &p, fw);
    assert!(b.breakdown.dp.0 >= a.breakdown.dp.0, "{} vs {}", b.breakdown.dp.0, a.breakdown.dp.0);
    assert!(b.breakdown.dp.0 < 1.5 * a.breakdown.dp.0, "{} vs {}", b.breakdown.dp.0, a.breakdown.dp.0);
    let dp = b.groups.iter().find(|g| g.group == Group::Dp).unwrap();
    assert_eq!(dp.tier, SpanTier::Spine);
}

#[test]
fn pcie_only_trains_slower_than_nvlink() {
    let w = preset("llama3-8b").unwrap();
    let nv = eval(&h100(2), &w, &par(8, 1, 2), Framework::default());
    let pcie = Cluster { scale_up: ScaleUp::Pcie { gen: crate::catalog::PcieGen::Gen5, p2p: true }, ..h100(2) };
    let pc = eval(&pcie, &w, &par(8, 1, 2), Framework::default());
    assert!(pc.breakdown.tp.0 > 3.0 * nv.breakdown.tp.0);
    assert!(pc.mfu < nv.mfu);
}

#[test]
fn errors_name_the_field() {
    let w = preset("gpt3-175b").unwrap();
    let t = h100(4).topology().unwrap();
    let mut ev = Evaluator::new(&t, &w, Framework::default()).unwrap();
    assert_eq!(ev.evaluate(&par(8, 2, 3)).unwrap_err().field, "dp");
    let a100 = Cluster { gpu: GpuKind::A100, scale_up: ScaleUp::NvSwitch { gen: 3 }, nic: NicKind::IbHdr, ..h100(1) }.topology().unwrap();
    let fp8 = Workload { precision: Precision::Fp8, ..w.clone() };
    assert_eq!(Evaluator::new(&a100, &fp8, Framework::default()).err().unwrap().field, "precision");
    // Uneven pipelines are allowed; the first and last stages give up the layers.
    let p = par(8, 7, 1);
    assert_eq!((0..7).map(|s| p.stage_layers(96, s)).collect::<Vec<_>>(), vec![13, 14, 14, 14, 14, 14, 13]);
    assert_eq!(p.stage_first_layer(96, 2), 27);
    let o = Parallel { order: RankOrder::parse("tp-dp-cp-pp").unwrap(), ..par(8, 2, 2) };
    assert!(ev.evaluate(&o).is_ok());
}

#[test]
fn a2a_overlap_hides_each_all_to_all_only_under_its_own_phase() {
    // One MoE layer: attention/router forward 100 µs, backward 200 µs; experts 300 and 600 µs.
    let lc = LayerCompute { fwd: 400.0, bwd: 800.0, expert_fwd: 300.0, expert_bwd: 600.0, ..LayerCompute::default() };
    // Short all-to-alls hide completely (SMs aside).
    assert_eq!(a2a_overlap_exposed(50.0, &lc, 0.0), 0.0);
    // A 150 µs all-to-all outlasts the 100 µs forward attention beside the backward combine
    // (phase 1): 50 µs show although the experts could have covered them.
    assert!((a2a_overlap_exposed(150.0, &lc, 0.0) - 50.0).abs() < 1e-9);
    // Nothing to hide under: all four show, as without the overlap.
    assert_eq!(a2a_overlap_exposed(70.0, &LayerCompute::default(), 0.0), 280.0);
    // Never worse than not overlapping, and what hides still costs its SMs.
    for a in [10.0, 100.0, 300.0, 1000.0, 5000.0] {
        let (free, busy) = (a2a_overlap_exposed(a, &lc, 0.0), a2a_overlap_exposed(a, &lc, 0.15));
        assert!(free <= 4.0 * a + 1e-9 && busy <= 4.0 * a + 1e-9 && busy >= free, "{a}: {free} {busy}");
    }
}

#[test]
fn moe_layer_splits_into_attention_and_expert_parts() {
    let t = h100(2).topology().unwrap();
    let w = preset("mixtral-8x7b").unwrap();
    let mut ev = Evaluator::new(&t, &w, Framework::default()).unwrap();
    let c = ev.stage_compute(1, 1, 8 | (1 << 16), 1, false);
    assert!(c.moe.expert_fwd > 0.0 && c.moe.expert_fwd < c.moe.fwd && c.moe.expert_bwd > c.moe.expert_fwd && c.moe.expert_bwd < c.moe.bwd);
    assert_eq!((c.dense.expert_fwd, c.dense.expert_bwd), (0.0, 0.0));
}
