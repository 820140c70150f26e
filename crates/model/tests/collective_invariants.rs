//! Invariants any physically sound collective model must keep, checked on random clusters:
//! more bandwidth never makes a collective slower, bigger messages never finish sooner, a
//! worse fabric never helps, and every number is finite.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, Placement, ProtoChoice, Topology};
use proptest::prelude::*;

fn predict(t: &Topology, p: Placement, op: Collective, bytes: u64) -> f64 {
    let comm = Comm::new(t, p).expect("valid placement");
    comm.predict(op, Bytes(bytes), AlgoChoice::Auto, ProtoChoice::Auto).expect("auto always runs").time.0
}

fn op() -> impl Strategy<Value = Collective> {
    prop::sample::select(Collective::ALL.to_vec())
}

fn hopper_cluster() -> impl Strategy<Value = Cluster> {
    (0u32..8, prop::sample::select(vec![1u32, 2, 4, 8]), prop::bool::ANY, prop::bool::ANY).prop_map(|(lg_nodes, nics, sharp, nvls)| Cluster {
        gpu: GpuKind::H100,
        nodes: 1 << lg_nodes,
        gpus_per_node: 8,
        scale_up: ScaleUp::NvSwitch { gen: 4 },
        nics_per_node: nics,
        nic: NicKind::IbHdr,
        sharp,
        nvls,
        ..Cluster::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn faster_nics_never_slow_a_collective(c in hopper_cluster(), op in op(), lg in 3u32..35) {
        let bytes = 1u64 << lg;
        let mut last = f64::INFINITY;
        for nic in [NicKind::IbHdr, NicKind::IbNdr, NicKind::IbXdr] {
            let t = Cluster { nic, ..c.clone() }.topology().unwrap();
            let time = predict(&t, t.whole(), op, bytes);
            prop_assert!(time.is_finite() && time > 0.0);
            prop_assert!(time <= last * (1.0 + 1e-9), "{:?} with {:?}: {} > {}", op, nic, time, last);
            last = time;
        }
    }

    #[test]
    fn more_nics_never_slow_a_collective(c in hopper_cluster(), op in op(), lg in 3u32..35) {
        prop_assume!(c.nodes > 1);
        let bytes = 1u64 << lg;
        let mut last = f64::INFINITY;
        for nics in [1u32, 2, 4, 8] {
            let t = Cluster { nics_per_node: nics, ..c.clone() }.topology().unwrap();
            let time = predict(&t, t.whole(), op, bytes);
            prop_assert!(time <= last * (1.0 + 1e-9), "{:?} with {} NICs: {} > {}", op, nics, time, last);
            last = time;
        }
    }

    #[test]
    fn bigger_messages_never_finish_sooner(c in hopper_cluster(), op in op()) {
        let t = c.topology().unwrap();
        let mut last = 0.0;
        for lg in 3..35 {
            let time = predict(&t, t.whole(), op, 1u64 << lg);
            prop_assert!(time >= last, "{:?} at 2^{}: {} < {}", op, lg, time, last);
            last = time;
        }
    }

    #[test]
    fn a_group_inside_one_node_beats_the_same_group_spread_over_nodes(op in op(), lg in 10u32..35, k in prop::sample::select(vec![2u32, 4, 8])) {
        let t = Cluster { nodes: 8, ..Cluster::default() }.topology().unwrap();
        let packed = predict(&t, Placement { ranks: k, per_domain: k }, op, 1u64 << lg);
        let spread = predict(&t, Placement { ranks: k, per_domain: 1 }, op, 1u64 << lg);
        prop_assert!(packed <= spread * (1.0 + 1e-9), "{:?} k={}: packed {} > spread {}", op, k, packed, spread);
    }

    #[test]
    fn oversubscription_never_helps(op in op(), lg in 10u32..35) {
        // 96 nodes x 8 NDR NICs on 16 leaves: 48 down-ports per leaf; 8 spines give 3:1, 16 give 1.5:1... fewer spines never faster.
        let mut last = 0.0;
        for spines in [24u32, 16, 12, 8, 4] {
            let t = Cluster { nodes: 96, leaf_switches: Some(16), spine_switches: Some(spines), ..Cluster::default() }.topology().unwrap();
            let time = predict(&t, t.whole(), op, 1u64 << lg);
            prop_assert!(time >= last * (1.0 - 1e-9), "{:?} with {} spines: {} < {}", op, spines, time, last);
            last = time;
        }
    }
}

#[test]
fn pcie_without_p2p_is_slower_than_with() {
    use fabricscope_model::catalog::PcieGen;
    let with = Cluster { gpu: GpuKind::H100Pcie, nodes: 1, scale_up: ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true }, ..Cluster::default() };
    let without = Cluster { scale_up: ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: false }, ..with.clone() };
    let (a, b) = (with.topology().unwrap(), without.topology().unwrap());
    for op in Collective::ALL {
        let fast = predict(&a, a.whole(), op, 1 << 30);
        let slow = predict(&b, b.whole(), op, 1 << 30);
        assert!(slow > fast * 1.5, "{op:?}: {slow} vs {fast}");
    }
}

#[test]
fn nvl72_keeps_a_16_gpu_group_on_nvlink() {
    // TP 16 inside one NVL72 rack stays on NVLink; on 8-GPU H100 nodes it must cross InfiniBand.
    let rack = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 18, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() };
    let t = rack.topology().unwrap();
    let comm = Comm::new(&t, Placement { ranks: 16, per_domain: 16 }).unwrap();
    let p = comm.predict(Collective::AllReduce, Bytes(1 << 28), AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
    assert!(p.busbw.0 > 500.0, "NVL72 TP16 busbw {}", p.busbw.0);
    let h100 = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
    let comm = Comm::new(&h100, Placement { ranks: 16, per_domain: 8 }).unwrap();
    let q = comm.predict(Collective::AllReduce, Bytes(1 << 28), AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
    // NCCL's NVLSTree moves only one reduced copy per node across the network, so busbw may
    // exceed one NIC's rate. On two nodes its per-channel bandwidth is min(NVLS term 40 GB/s,
    // network term 48 GB/s) (tuning.cc 2.27): the NVSwitch reduction, not the NICs, bounds it.
    assert_eq!(q.algorithm, "NVLSTree");
    assert_eq!(q.bottleneck, fabricscope_model::Bottleneck::Tier(fabricscope_model::TierKind::ScaleUp));
    assert!(p.time.0 < q.time.0 && p.busbw.0 > q.busbw.0, "NVL72 {} us vs H100 {} us", p.time.0, q.time.0);
}
