//! Fat trees that can be wired: golden switch counts from NVIDIA's DGX SuperPOD reference
//! architectures and from the folded-Clos limits of Al-Fares et al. (SIGCOMM 2008), refusals
//! of impossible counts, and port invariants for every cluster up to 131,072 GPUs.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::topology::{FatTree, SwitchLevel};
use fabricscope_model::{Cluster, TierKind, Topology};

fn topo(c: Cluster) -> Topology {
    c.topology().unwrap_or_else(|e| panic!("{e}"))
}

fn tree(c: Cluster) -> FatTree {
    topo(c).fabric.expect("a fabric")
}

/// (leaves, spines, cores)
fn counts(f: &FatTree) -> (u32, u32, u32) {
    let n = |l| f.tier(l).map_or(0, |t| t.switches);
    (n(SwitchLevel::Leaf), n(SwitchLevel::Spine), n(SwitchLevel::Core))
}

/// DGX H100/B200 nodes: 8 GPUs, 8x NDR 400G rails on 64-port Quantum-2 QM9700.
fn dgx(nodes: u32) -> Cluster {
    Cluster { nodes, ..Cluster::default() }
}

#[test]
fn dgx_superpod_h100_four_sus_is_32_leaves_and_16_spines() {
    // NVIDIA DGX SuperPOD reference architecture, DGX H100 (RA-11333-001): 4 scalable units of
    // 32 nodes, a rail-optimized two-tier compute fabric of 32 leaf and 16 spine QM9700.
    let f = tree(dgx(128));
    assert_eq!(counts(&f), (32, 16, 0));
    let leaf = f.tier(SwitchLevel::Leaf).unwrap();
    assert_eq!((leaf.radix, leaf.ports_down, leaf.ports_up), (64, 32, 32));
    let spine = f.tier(SwitchLevel::Spine).unwrap();
    assert_eq!((spine.ports_down, spine.ports_up), (64, 0));
    assert_eq!(f.planes, 1);
    let json = serde_json::to_value(&f.switch_tiers).unwrap();
    assert_eq!(json[0]["tier"], "leaf");
    assert_eq!(json[1]["tier"], "spine");
    assert_eq!(json[1]["switches"], 16);
}

#[test]
fn dgx_superpod_switch_counts_by_scalable_units() {
    // NVIDIA DGX SuperPOD reference architecture, DGX B200 (same 8x NDR rails per node on
    // QM9700), "DGX SuperPOD Architecture" table: SUs -> leaf, spine, core InfiniBand switches.
    let table = [(2, 16, 8, 0), (4, 32, 16, 0), (8, 64, 32, 0), (16, 128, 128, 64), (32, 256, 256, 128), (64, 512, 512, 256)];
    for (sus, leaves, spines, cores) in table {
        let f = tree(dgx(32 * sus));
        assert_eq!(counts(&f), (leaves, spines, cores), "{sus} SUs");
        assert_eq!(f.switch_tiers.len(), if cores > 0 { 3 } else { 2 }, "{sus} SUs");
    }
}

#[test]
fn not_rail_optimized_8192_nics_need_a_core() {
    // 8192 NICs > 64^2/2 = 2048: three tiers of 8 pods (32 leaves + 32 spines each) under
    // 64 * 32 / 64... cores: 256 spines x 32 uplinks / 64 ports = 128 (Al-Fares et al. 2008).
    let c = Cluster { nodes: 1024, rail_optimized: false, ..Cluster::default() };
    let t = topo(c);
    let f = t.fabric.clone().unwrap();
    assert_eq!(counts(&f), (256, 256, 128));
    let ports: Vec<(u32, u32)> = f.switch_tiers.iter().map(|t| (t.ports_down, t.ports_up)).collect();
    assert_eq!(ports, [(32, 32), (32, 32), (64, 0)]);
    // 4 whole nodes per leaf, 32 leaves per pod.
    assert_eq!((f.nodes_per_leaf, f.nodes_per_pod), (4, 128));
    assert_eq!((t.domains_per_leaf(), t.domains_per_pod()), (4, 128));
    assert_eq!(t.hops(0, 8), 1);
    assert_eq!(t.hops(0, 4 * 8), 3);
    assert_eq!(t.hops(0, 128 * 8), 5);
    assert_eq!([1, 4, 5, 128, 129, 1024].map(|d| t.hops_for(d)), [0, 1, 3, 3, 5, 5]);
    assert!(t.tiers.iter().any(|x| x.kind == TierKind::Core));
}

#[test]
fn two_tiers_end_at_k_squared_over_two() {
    // 256 nodes x 8 NICs = 2048 = 64^2/2: the largest two-tier tree; one node more needs a core.
    let at = |nodes| tree(Cluster { nodes, rail_optimized: false, ..Cluster::default() });
    assert_eq!(counts(&at(256)), (64, 32, 0));
    assert_eq!(at(257).switch_tiers.len(), 3);
}

#[test]
fn rail_optimized_4096_nodes() {
    // 32768 NICs: 4096 nodes / 32 per leaf = 128 blocks of 8 rail leaves = 1024 leaves; pods
    // of 4 blocks (128 nodes, 32 leaves, 32 spines) = 32 pods, 1024 spines; 1024 x 32 / 64 =
    // 512 cores. The SuperPOD table's 32 and 64 SU rows grow the same way.
    let t = topo(dgx(4096));
    let f = t.fabric.clone().unwrap();
    assert_eq!(counts(&f), (1024, 1024, 512));
    assert_eq!((f.nodes_per_leaf, f.nodes_per_pod, f.planes), (32, 128, 1));
    assert_eq!((t.domains_per_leaf(), t.domains_per_pod()), (32, 128));
    assert_eq!(t.hops(0, 31 * 8), 1);
    assert_eq!(t.hops(0, 32 * 8), 3);
    assert_eq!(t.hops(0, 128 * 8), 5);
    // Non-blocking: the whole cluster's bisection is half its NICs.
    assert_eq!(t.bisection.0, 4096.0 * 8.0 * 50.0 / 2.0);
}

#[test]
fn beyond_three_tiers_rails_split_into_planes() {
    // 16384 nodes x 8 rails = 131072 NICs > 64^3/4 = 65536: two planes of 4 rails, each a full
    // three-tier tree (2048 leaves, 2048 spines, 1024 cores).
    let f = tree(dgx(16384));
    assert_eq!((f.planes, f.rails_per_plane), (2, 4));
    assert_eq!(counts(&f), (4096, 4096, 2048));
}

#[test]
fn impossible_counts_are_refused_with_what_would_work() {
    let err = |c: Cluster| c.topology().unwrap_err();
    let e = err(Cluster { leaf_switches: Some(1), spine_switches: Some(9999), ..Cluster::default() });
    assert_eq!(e.field, "spine_switches");
    assert!(e.message.contains("use 0 spines"), "{}", e.message);
    // Not rail-optimized, a node's 8 NICs share a leaf: an 8-port switch gives 4 to NICs.
    let e = err(Cluster { nodes: 16, rail_optimized: false, switch_radix: Some(8), ..Cluster::default() });
    assert_eq!(e.field, "switch_radix");
    assert!(e.message.contains("at least 16"), "{}", e.message);
    // 32 leaves of 32 NICs have 32 uplinks each: 40 spines cannot all be reached.
    let e = err(Cluster { nodes: 128, leaf_switches: Some(32), spine_switches: Some(40), ..Cluster::default() });
    assert_eq!(e.field, "spine_switches");
    assert!(e.message.contains("between 1 and 32"), "{}", e.message);
    // A two-tier tree of 64-port spines joins at most 64 leaves.
    let e = err(Cluster { nodes: 1024, leaf_switches: Some(256), ..Cluster::default() });
    assert_eq!(e.field, "leaf_switches");
    assert!(e.message.contains("at most 64"), "{}", e.message);
    let e = err(Cluster { nodes: 1024, spine_switches: Some(100), ..Cluster::default() });
    assert_eq!(e.field, "spine_switches");
    for bad in [0.5, f64::NAN, 64.0] {
        let e = err(Cluster { nodes: 128, oversubscription: Some(bad), ..Cluster::default() });
        assert_eq!(e.field, "oversubscription", "{bad}");
    }
    // Held to its range even where there is no fabric to size.
    let e = err(Cluster { nodes: 1, nics_per_node: 0, oversubscription: Some(f64::INFINITY), ..Cluster::default() });
    assert_eq!(e.field, "oversubscription");
    let e = err(Cluster { nodes: 128, core_oversubscription: Some(0.0), ..Cluster::default() });
    assert_eq!(e.field, "core_oversubscription");
    let e = err(Cluster { nodes: 128, spine_switches: Some(8), oversubscription: Some(2.0), ..Cluster::default() });
    assert_eq!(e.field, "oversubscription");
    // 131072 NICs in one tree: more than 64^3/4; an 82-port radix or rail planes would do.
    let e = err(Cluster { nodes: 16384, rail_optimized: false, ..Cluster::default() });
    assert_eq!(e.field, "switch_radix");
    assert!(e.message.contains("at least 82") && e.message.contains("rail_optimized"), "{}", e.message);
}

#[test]
fn leaf_and_core_oversubscription() {
    // 3:1 at the leaf: at most 48 NIC ports per leaf. 128 rail-optimized nodes: 3 blocks x 8
    // rails = 24 leaves, the nodes spread evenly (43, 43, 42 per leaf), each leaf 15 uplinks
    // (43/15 = 2.87:1, never more than asked); 24 x 15 / 64 = 6 spines.
    let t = topo(Cluster { nodes: 128, oversubscription: Some(3.0), ..Cluster::default() });
    let f = t.fabric.clone().unwrap();
    assert_eq!(counts(&f), (24, 6, 0));
    assert_eq!((f.down_per_leaf, f.up_per_leaf, f.oversubscription), (43, 15, 43.0 / 15.0));
    assert_eq!(t.oversubscription_for(1), 1.0);
    assert_eq!(t.oversubscription_for(128), 43.0 / 15.0);
    assert_eq!(t.bisection.0, 128.0 * 8.0 * 50.0 / 2.0 / (43.0 / 15.0));
    // 2:1 at the leaf and 2:1 at the spine of a three-tier tree: the core path is 4:1.
    let t = topo(Cluster { nodes: 2048, rail_optimized: false, oversubscription: Some(2.0), core_oversubscription: Some(2.0), ..Cluster::default() });
    let f = t.fabric.clone().unwrap();
    assert_eq!(f.switch_tiers.len(), 3);
    let spine = f.tier(SwitchLevel::Spine).unwrap();
    assert_eq!(spine.oversubscription, 2.0);
    assert_eq!(f.core_path_oversubscription(), 4.0);
    assert_eq!(t.oversubscription_for(t.domains_per_leaf()), 1.0);
    assert_eq!(t.oversubscription_for(t.domains_per_pod()), 2.0);
    assert_eq!(t.oversubscription_for(t.domains), 4.0);
    let core = t.tiers.iter().find(|x| x.kind == TierKind::Core).unwrap();
    let nic = t.tiers.iter().find(|x| x.kind == TierKind::Nic).unwrap();
    assert_eq!(core.bw_per_gpu.0, nic.bw_per_gpu.0 / 4.0);
    // Five switch hops: the NIC's latency plus four more hops of 130 ns.
    assert!((core.latency.0 - nic.latency.0 - 4.0 * 0.13).abs() < 1e-12);
}

/// Checks that every tier's ports fit its radix and carry the links from below.
fn check_ports(c: &Cluster, f: &FatTree) {
    let nics = c.nodes as u64 * c.nics_per_node as u64;
    let mut below = nics;
    for (i, t) in f.switch_tiers.iter().enumerate() {
        let what = format!("{} nodes x {} {:?}: {:?}", c.nodes, c.nics_per_node, c.nic, t);
        assert_eq!(t.tier, [SwitchLevel::Leaf, SwitchLevel::Spine, SwitchLevel::Core][i], "{what}");
        assert!(t.ports_down + t.ports_up <= t.radix, "{what}");
        assert!(t.switches as u64 * t.ports_down as u64 >= below, "{what}");
        assert!(t.oversubscription >= 1.0, "{what}");
        below = t.switches as u64 * t.ports_up as u64;
        if i + 1 == f.switch_tiers.len() {
            assert_eq!(t.ports_up, 0, "{what}");
        }
    }
    // Per plane: two tiers join at most k leaves; three at most k pods of k/2 leaves.
    let leaves_per_plane = f.leaves / f.planes;
    match f.switch_tiers.len() {
        2 => assert!(leaves_per_plane <= f.radix, "{} nodes", c.nodes),
        3 => assert!(leaves_per_plane <= f.radix * f.radix / 2, "{} nodes", c.nodes),
        _ => {}
    }
}

#[test]
fn every_cluster_up_to_131072_gpus_sizes_and_fits_its_ports() {
    for rail_optimized in [true, false] {
        for nic in [NicKind::IbNdr, NicKind::IbXdr, NicKind::Roce400, NicKind::Roce800] {
            for nodes in 1..=16384u32 {
                let c = Cluster { nodes, nic, rail_optimized, ..Cluster::default() };
                let nics = nodes as u64 * 8;
                let k = nic.default_switch().spec().radix_at(nic.spec().line_rate) as u64;
                match c.topology() {
                    Ok(t) => check_ports(&c, t.fabric.as_ref().unwrap()),
                    // Only one tree of every NIC larger than three tiers may be refused.
                    Err(e) => assert!(!rail_optimized && nics > k * k * k / 4, "{nodes} x {nic:?}: {e}"),
                }
            }
        }
    }
}

#[test]
fn small_switches_size_up_to_their_three_tier_limit_and_refuse_beyond() {
    // HDR on 40-port QM8700: 40^3/4 = 16000 NICs per rail plane; 100GbE on 32 ports: 8192.
    let a100 = |nodes| Cluster { gpu: GpuKind::A100, scale_up: ScaleUp::NvSwitch { gen: 3 }, nic: NicKind::IbHdr, nodes, ..Cluster::default() };
    for nodes in [1, 20, 140, 800, 801, 16000] {
        let c = a100(nodes);
        check_ports(&c, &tree(c.clone()));
    }
    assert_eq!(tree(a100(16000)).planes, 8);
    let e = a100(16001).topology().unwrap_err();
    assert_eq!(e.field, "switch_radix");
    assert!(e.message.contains("at least 42"), "{}", e.message);
}

#[test]
fn more_oversubscription_never_buys_more_switches_or_bandwidth() {
    let ratios = [1.0, 1.1, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0];
    for rail_optimized in [true, false] {
        for nodes in [2, 5, 16, 33, 100, 128, 257, 700, 1024, 3000, 8192] {
            let mut last: Option<(u32, f64, f64)> = None;
            for o in ratios {
                let c = Cluster { nodes, rail_optimized, oversubscription: Some(o), ..Cluster::default() };
                let t = topo(c.clone());
                let f = t.fabric.clone().unwrap();
                check_ports(&c, &f);
                let now = (f.total_switches(), t.oversubscription_for(t.domains), t.bisection.0);
                assert!(now.1 <= o + 1e-9, "{nodes}: {now:?} at {o}");
                if let Some(prev) = last {
                    assert!(now.0 <= prev.0, "{nodes} nodes, {o}:1: {} switches after {}", now.0, prev.0);
                    assert!(now.1 >= prev.1, "{nodes} nodes, {o}:1: ratio {} after {}", now.1, prev.1);
                    assert!(now.2 <= prev.2, "{nodes} nodes, {o}:1: bisection {} after {}", now.2, prev.2);
                }
                last = Some(now);
            }
        }
    }
}

#[test]
fn any_radix_rails_and_ratio_either_fit_their_ports_or_name_the_radix() {
    for k in [4u32, 6, 8, 16, 32, 40, 48, 64, 128] {
        for rails in [1u32, 2, 4, 8] {
            for rail_optimized in [true, false] {
                for o in [1.0, 2.0, 3.0] {
                    for nodes in (1..=3000u32).step_by(7) {
                        let c = Cluster { nodes, nics_per_node: rails, switch_radix: Some(k), rail_optimized, oversubscription: Some(o), ..Cluster::default() };
                        match c.topology() {
                            Ok(t) => check_ports(&c, t.fabric.as_ref().unwrap()),
                            Err(e) if o > (k - 1) as f64 => assert_eq!(e.field, "oversubscription"),
                            Err(e) => assert_eq!(e.field, "switch_radix", "{k} ports, {rails} rails, {nodes} nodes: {e}"),
                        }
                    }
                }
            }
        }
    }
}
