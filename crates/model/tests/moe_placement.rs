//! Issue 22, item 4: placement that uses the NVLink domain. EP groups sit inside one NVL72 rack
//! when they fit; a DeepSeek-V3-like job at EP 64 on 576 GPUs is faster on GB200 NVL72 racks
//! than on B200 8-GPU nodes because its all-to-all stays on NVLink; an all-to-all across racks
//! scales with the NICs per tray.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use fabricscope_model::topology::Cluster;
use fabricscope_model::training::{preset, Evaluator, Framework, Group, Parallel, SpanTier, StepReport};
use fabricscope_model::units::Bytes;

fn gb200(trays: u32, nics: u32) -> Cluster {
    Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: trays, nics_per_node: nics, nic: NicKind::IbXdr, ..Cluster::default() }
}

fn b200(nodes: u32) -> Cluster {
    Cluster { gpu: GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, gpus_per_node: 8, nodes, nics_per_node: 8, nic: NicKind::IbXdr, ..Cluster::default() }
}

fn deepseek(c: &Cluster, ep: u32) -> StepReport {
    let t = c.topology().unwrap();
    let w = preset("deepseek-v3-like").unwrap();
    let p = Parallel { tp: 1, pp: 9, dp: 64, ep, micro_batch: 2, ..Parallel::default() };
    Evaluator::new(&t, &w, Framework::default()).unwrap().evaluate(&p).unwrap()
}

fn ep_group(r: &StepReport) -> &fabricscope_model::training::GroupReport {
    r.groups.iter().find(|g| g.group == Group::Ep).unwrap()
}

#[test]
fn ep16_on_gb200_nvl72_sits_in_one_rack() {
    // 576 GB200 = 144 trays. EP 16 groups of consecutive ranks do not divide a 72-GPU rack;
    // the job takes 16 trays per rack and no EP group straddles.
    let r = deepseek(&gb200(144, 4), 16);
    let ep = ep_group(&r);
    assert_eq!((ep.ranks, ep.per_domain, ep.domains, ep.tier), (16, 16, 1, SpanTier::ScaleUp));
    for ep in [32, 64] {
        let e = ep_group(&deepseek(&gb200(144, 4), ep)).clone();
        assert_eq!((e.domains, e.tier), (1, SpanTier::ScaleUp), "ep {ep}");
    }
}

#[test]
fn ep64_on_576_gpus_is_faster_on_nvl72_racks_for_the_right_reason() {
    let nvl = deepseek(&gb200(144, 4), 64);
    let ib = deepseek(&b200(72), 64);
    let speedup = ib.step_time_s / nvl.step_time_s;
    println!("EP 64, 576 GPUs: GB200 NVL72 {:.2} s (EP {:.2} s), B200 over IB {:.2} s (EP {:.2} s): {:.2}x", nvl.step_time_s, nvl.breakdown.ep.0 / 1e6, ib.step_time_s, ib.breakdown.ep.0 / 1e6, speedup);
    assert!(speedup >= 1.2, "GB200 NVL72 must be at least 20% faster: {speedup:.3}");
    // The reason: the EP all-to-all stays on NVLink on GB200 and crosses InfiniBand on B200,
    // and the saved all-to-all time is most of the difference.
    assert_eq!(ep_group(&nvl).tier, SpanTier::ScaleUp);
    assert!(matches!(ep_group(&ib).tier, SpanTier::Leaf | SpanTier::Spine));
    let saved_ep = (ib.breakdown.ep.0 - nvl.breakdown.ep.0) / 1e6;
    let saved = ib.step_time_s - nvl.step_time_s;
    assert!(saved_ep > 0.6 * saved, "EP saves {saved_ep:.2} s of {saved:.2} s");
}

#[test]
fn all_to_all_across_racks_scales_with_the_nics_per_tray() {
    // Two NVL72 racks (36 trays), every GPU in the communicator, 1 GiB per rank.
    let busbw = |nics: u32| {
        let t = gb200(36, nics).topology().unwrap();
        let c = Comm::new(&t, t.whole()).unwrap();
        c.predict(Collective::AllToAll, Bytes(1 << 30), AlgoChoice::Auto, ProtoChoice::Auto).unwrap().busbw.0
    };
    let (one, two, four) = (busbw(1), busbw(2), busbw(4));
    println!("alltoall busbw across 2 racks: 1 NIC/tray {one:.1}, 2 {two:.1}, 4 {four:.1} GB/s");
    // Half of every rank's bytes leave the rack, through the rack's NICs: 4x the NICs, about
    // 4x the busbw while the NICs are the bottleneck.
    assert!(two > 1.8 * one && four > 1.8 * two, "{one} {two} {four}");
    assert!(four > 3.5 * one);
}

#[test]
fn an_impossible_ep_layout_suggests_the_expert_tp_that_makes_it_valid() {
    // DeepSeek-V3-like on 512 GPUs with TP 2, PP 8: a stage has 64 GPUs; EP 64 with the
    // expert layers at TP 2 (Megatron-Core's flag default) needs 128. With expert TP 1
    // (DeepSeek-V3's layout, and the model's default with EP) it fits.
    let w = preset("deepseek-v3-like").unwrap();
    let p = Parallel { tp: 2, pp: 8, dp: 32, ep: 64, expert_tp: 2, ..Parallel::default() };
    let e = p.validate(&w, 512).unwrap_err();
    assert_eq!(e.field, "ep");
    assert!(e.message.ends_with("; or expert tp 1"), "{}", e.message);
    assert!(Parallel { expert_tp: 1, ..p }.validate(&w, 512).is_ok());
    assert!(Parallel { expert_tp: 0, ..p }.validate(&w, 512).is_ok());
}

/// GB200 on 8-GPU NVLink5 nodes, one 800G NIC per GPU: the same GPU and the same network
/// bandwidth per GPU as the NVL72 racks of [`gb200`], only the NVLink domain differs.
fn gb200_in_8gpu_nodes(nodes: u32) -> Cluster {
    Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::NvSwitch { gen: 5 }, gpus_per_node: 8, nodes, nics_per_node: 8, nic: NicKind::IbXdr, ..Cluster::default() }
}

#[test]
fn an_moe_step_with_ep_inside_an_nvl72_rack_is_never_slower_than_across_8_gpu_nodes() {
    // Equal GPUs (576), equal GPU, equal NIC bandwidth per GPU; EP 8 to 64, with and without
    // the all-to-all overlap, with each token dispatcher. A 72-GPU NVLink domain holds every
    // one of these EP groups; 8-GPU nodes hold only EP 8.
    let nvl = gb200(144, 4).topology().unwrap();
    let ib_cluster = gb200_in_8gpu_nodes(72);
    let ib = match ib_cluster.topology() {
        Ok(t) => t,
        // If the catalog refuses GB200 on 8-GPU boards, B200 (same NVLink5, a little slower
        // per GPU) stands in: the rack must still never lose.
        Err(_) => b200(72).topology().unwrap(),
    };
    for id in ["deepseek-v3-like", "mixtral-8x7b"] {
        let mut w = preset(id).unwrap();
        // A batch every DP size here divides (Mixtral's preset has 1,024 sequences).
        w.global_batch = 2304;
        for ep in [8, 16, 32, 64] {
            if w.moe.unwrap().experts % ep != 0 {
                continue;
            }
            for (fw_id, per_node) in [("megatron-core", false), ("megatron-core", true), ("megatron-core-a2a-overlap", true)] {
                let mut fw = Framework::from_id(fw_id).unwrap();
                fw.ep_node_dispatch = per_node;
                let (pp, dp) = if id == "deepseek-v3-like" { (9, 64) } else { (4, 144) };
                let p = Parallel { tp: 1, pp, dp, ep, expert_tp: 1, micro_batch: 1, ..Parallel::default() };
                let on = |t| Evaluator::new(t, &w, fw).unwrap().evaluate(&p).unwrap();
                let (a, b) = (on(&nvl), on(&ib));
                assert!(
                    a.step_time_s <= b.step_time_s * (1.0 + 1e-9),
                    "{id} EP {ep} {fw_id} per-node {per_node}: NVL72 {:.3} s (EP {:.3} s) > 8-GPU nodes {:.3} s (EP {:.3} s)",
                    a.step_time_s,
                    a.breakdown.ep.0 / 1e6,
                    b.step_time_s,
                    b.breakdown.ep.0 / 1e6
                );
            }
        }
    }
}
