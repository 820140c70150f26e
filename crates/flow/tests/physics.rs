//! The physics checks (#25, "Done when"), each against a physical expectation stated
//! with its band and why; and property tests over random small trees.

use fabricscope_flow::{link_loads, run, ClosSpec, Failures, Fabric, Options, Outcome, Placement, Routing, Traffic};
use fabricscope_model::units::GBps;
use fabricscope_model::Cluster;
use proptest::prelude::*;

fn fabric_of(c: &Cluster) -> Fabric {
    let t = c.topology().expect("a valid cluster");
    Fabric::build(ClosSpec::from_topology(&t).expect("a fabric")).expect("a graph")
}

fn study(fab: &Fabric, traffic: Traffic, routing: Routing, seeds: u32) -> Outcome {
    run(fab, &Options { traffic, routing, seeds, ..Options::default() }).expect("a study")
}

/// 128 DGX H100-class nodes (1,024 GPUs), 8x NDR 400G, radix-64 switches: a two-tier tree.
fn dgx_1024(rail_optimized: bool, oversubscription: Option<f64>) -> Cluster {
    Cluster { nodes: 128, rail_optimized, oversubscription, ..Cluster::default() }
}

#[test]
fn contiguous_ring_on_a_rail_optimized_non_blocking_fabric_loses_nothing_to_routing() {
    // Each ring edge that leaves a leaf is one connection per channel; a leaf's rail has as
    // many uplinks as NICs, so even colliding hashes cannot push a link past its NICs' rate.
    let fab = fabric_of(&dgx_1024(true, None));
    for routing in [Routing::Ecmp, Routing::Adaptive] {
        let o = study(&fab, Traffic::Ring, routing, 32);
        assert!(o.throughput_fraction.p10 >= 0.95, "{routing:?}: {:?}", o.throughput_fraction);
        assert_eq!(o.bottleneck_tier, "nic");
    }
}

#[test]
fn random_permutation_on_a_non_blocking_two_tier_tree_keeps_about_half_under_ecmp() {
    // Hashing n flows onto n uplinks leaves a share of links with two or more flows: a flow's
    // expected max-min share after one stage is about (1 - e^-1) = 0.63 (balls into bins:
    // n/m flows per link, the expected number of occupied links over flows); the spine's
    // downlinks hash again, so two stages keep less, about half. Band asserted: 0.40-0.65
    // (one stage's 0.63 is the ceiling, two independent stages' ~0.4 the floor). Adaptive
    // routing (even split) on a non-blocking tree keeps >= 0.85.
    let fab = fabric_of(&dgx_1024(false, None));
    let ecmp = study(&fab, Traffic::RandomPermutation, Routing::Ecmp, 16);
    let m = ecmp.throughput_fraction.mean;
    assert!((0.40..=0.65).contains(&m), "ECMP permutation: {:?}", ecmp.throughput_fraction);
    assert!(ecmp.collision_probability > 0.9, "{}", ecmp.collision_probability);
    let ar = study(&fab, Traffic::RandomPermutation, Routing::Adaptive, 8);
    assert!(ar.throughput_fraction.p10 >= 0.85, "adaptive permutation: {:?}", ar.throughput_fraction);
}

#[test]
fn alltoall_off_rails_slows_monotonically_with_oversubscription_to_about_a_third_at_4_to_1() {
    // Most of an all-to-all's bytes leave the leaf, so at d:u the slowest flow gets about u/d
    // of its rate; a little more because some peers share its leaf. At 4:1: at most ~1/3.
    let mut last = f64::INFINITY;
    let mut at4 = 0.0;
    for o in [1.0, 1.5, 2.0, 3.0, 4.0] {
        let c = Cluster { nodes: 32, rail_optimized: false, oversubscription: Some(o), ..Cluster::default() };
        let f = study(&fabric_of(&c), Traffic::AllToAll, Routing::Adaptive, 1).throughput_fraction.mean;
        assert!(f <= last + 1e-9, "{o}:1 gave {f}, more than {last} at the ratio below");
        last = f;
        at4 = f;
    }
    assert!((0.2..=0.36).contains(&at4), "4:1 gave {at4}");
    let c = Cluster { nodes: 32, rail_optimized: false, ..Cluster::default() };
    let nb = study(&fabric_of(&c), Traffic::AllToAll, Routing::Adaptive, 1).throughput_fraction.mean;
    assert!(nb >= 0.99, "non-blocking all-to-all: {nb}");
}

#[test]
fn one_nic_of_eight_down_slows_a_ring_by_at_least_its_share() {
    let fab = fabric_of(&dgx_1024(true, None));
    let o = Options { traffic: Traffic::Ring, routing: Routing::Adaptive, failures: Failures { nics_down: 1, ..Failures::default() }, ..Options::default() };
    let f = run(&fab, &o).expect("a study").throughput_fraction.mean;
    // One connection moves onto one of 7 surviving NICs: that NIC carries 2, so the ring runs at 1/2.
    assert!(f <= 7.0 / 8.0 + 1e-9 && f > 0.0, "{f}");
    assert!((f - 0.5).abs() < 1e-9, "{f}");
    // With 8 channels per NIC the dead NIC's 8 spread over 7: one NIC carries 10, the ring runs at 8/10.
    let o8 = Options { channels: 8, ..o };
    let f8 = run(&fab, &o8).expect("a study").throughput_fraction.mean;
    assert!((f8 - 0.8).abs() < 1e-9 && f8 <= 7.0 / 8.0, "{f8}");
}

#[test]
fn the_small_custom_tree_is_expressible_and_a_2_to_1_uplink_halves_crossing_flows() {
    // 2 leaves of radix 6, 2 spines, 4 nodes of 2 NICs (2 GPUs each), not rail-optimized:
    // each leaf has 4 NIC ports and 2 uplinks (2:1).
    let c = Cluster {
        nodes: 4,
        gpus_per_node: 2,
        nics_per_node: 2,
        leaf_switches: Some(2),
        spine_switches: Some(2),
        switch_radix: Some(6),
        rail_optimized: false,
        ..Cluster::default()
    };
    let fab = fabric_of(&c);
    assert_eq!(fab.switches.len(), 4);
    assert_eq!(fab.spec.up_per_leaf, 2);
    // Ring: 4 nodes on 2 leaves, 2 edges cross each way, 2 NICs each: 4 connections on 2
    // uplinks a direction; even split gives each the full rate.
    let ar = study(&fab, Traffic::Ring, Routing::Adaptive, 1);
    assert!((ar.throughput_fraction.mean - 1.0).abs() < 1e-9, "{:?}", ar.throughput_fraction);
    // ECMP: 2 crossing connections per direction per leaf hash onto 2 uplinks independently
    // (and again onto spine downlinks): all together on one link at 1/2 the rate.
    let ecmp = study(&fab, Traffic::Ring, Routing::Ecmp, 256);
    assert!(ecmp.throughput_fraction.min >= 0.5 - 1e-9 && ecmp.throughput_fraction.max <= 1.0);
    assert!((0.5..0.99).contains(&ecmp.collision_probability), "{}", ecmp.collision_probability);
    // All-to-all: every node sends 3/4... 2 of its 3 peers are across the 2:1 uplinks.
    let a2a = study(&fab, Traffic::AllToAll, Routing::Adaptive, 1);
    assert!(a2a.throughput_fraction.mean < 0.99 && a2a.bottleneck_tier == "leaf-spine", "{a2a:?}");
}

#[test]
fn a_neighbour_overlapping_on_a_2_to_1_fabric_slows_the_job_and_interleaving_does_not() {
    let c = Cluster { nodes: 64, rail_optimized: false, oversubscription: Some(2.0), ..Cluster::default() };
    let fab = fabric_of(&c);
    let o = Options {
        traffic: Traffic::AllToAll,
        routing: Routing::Adaptive,
        other_jobs: 1,
        placement: Placement::Scattered,
        ..Options::default()
    };
    let out = run(&fab, &o).expect("a study");
    let s = out.sharing.expect("sharing");
    assert!(s.worst.mean < s.best.mean - 0.05, "{s:?}");
    assert!(s.expected.mean <= s.best.mean && s.expected.mean >= s.worst.mean);
}

#[test]
fn links_and_spines_down_cost_throughput_and_too_many_is_a_typed_error() {
    let c = Cluster { nodes: 16, rail_optimized: false, ..Cluster::default() };
    let fab = fabric_of(&c);
    let base = Options { traffic: Traffic::AllToAll, routing: Routing::Adaptive, ..Options::default() };
    let healthy = run(&fab, &base).expect("a study").throughput_fraction.mean;
    let down = run(&fab, &Options { failures: Failures { links_down: 8, ..Failures::default() }, ..base }).expect("a study");
    assert!(down.throughput_fraction.mean < healthy, "{} vs {healthy}", down.throughput_fraction.mean);
    let e = run(&fab, &Options { failures: Failures { links_down: 1000, ..Failures::default() }, ..base }).unwrap_err();
    assert_eq!(e.field, "links_down");
    let e = run(&fab, &Options { failures: Failures { nics_down: 8, ..Failures::default() }, ..base }).unwrap_err();
    assert_eq!(e.field, "nics_down");
}

#[test]
fn published_numbers_name_their_source_and_one_nics_connections_never_collide_below_their_share() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/congestion.csv");
    let mut r = csv::Reader::from_path(path).expect("validation/congestion.csv");
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("a row")).collect();
    assert!(rows.len() >= 6);
    for row in &rows {
        assert!(row[7].starts_with("https://") && !row[6].is_empty(), "{row:?}");
    }
    // Collisions cost only when flows of different NICs meet: 2 nodes of 1 NIC on 2 leaves with
    // 2 spines; a NIC's 2 channels (or 2 QPs), hashed apart or together, each get half the NIC.
    let fab = small(2, 1, 1, 2);
    let o = Options { traffic: Traffic::Ring, routing: Routing::Ecmp, channels: 2, seeds: 64, gpus_per_node: 1, ..Options::default() };
    let out = run(&fab, &o).expect("a study");
    // Each connection's ideal is half the NIC; together on one uplink they still get half each.
    assert_eq!(out.throughput_fraction.min, 1.0, "{out:?}");
    let o1 = Options { channels: 1, qps: 2, ..o };
    let out1 = run(&fab, &o1).expect("a study");
    assert_eq!(out1.throughput_fraction.min, 1.0);
}

/// A hand-written two-tier tree: `leaves` leaves of `npl` non-rail-optimized nodes with
/// `nics` NICs, `spines` spines, one link from every leaf to every spine.
fn small(leaves: u32, npl: u32, nics: u32, spines: u32) -> Fabric {
    Fabric::build(ClosSpec::two_tier(leaves, npl, nics, spines, spines, GBps(50.0))).expect("a graph")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn another_spine_never_lowers_the_adaptive_fraction(
        leaves in 2u32..6, npl in 1u32..5, nics in 1u32..4, spines in 1u32..6, t in 0usize..Traffic::ALL.len(), seed in 0u64..1000,
    ) {
        let traffic = Traffic::ALL[t].1;
        let o = Options { traffic, routing: Routing::Adaptive, seeds: 1, first_seed: seed, gpus_per_node: nics, ..Options::default() };
        prop_assume!(leaves * npl >= 2);
        let a = run(&small(leaves, npl, nics, spines), &o).expect("a study").throughput_fraction.mean;
        let b = run(&small(leaves, npl, nics, spines + 1), &o).expect("a study").throughput_fraction.mean;
        prop_assert!(b >= a - 1e-9, "{spines} spines: {a}, one more: {b}");
    }

    #[test]
    fn fractions_and_probabilities_stay_within_0_and_1(
        leaves in 2u32..6, npl in 1u32..5, nics in 1u32..4, spines in 1u32..6, t in 0usize..Traffic::ALL.len(), r in 0usize..3, qps in 1u32..4,
    ) {
        let o = Options { traffic: Traffic::ALL[t].1, routing: Routing::ALL[r].1, seeds: 4, qps, gpus_per_node: nics, ..Options::default() };
        let out = run(&small(leaves, npl, nics, spines), &o).expect("a study");
        let d = out.throughput_fraction;
        for x in [d.mean, d.p10, d.p50, d.p90, d.min, d.max, out.collision_probability] {
            prop_assert!((0.0..=1.0).contains(&x), "{out:?}");
        }
        prop_assert!(d.min <= d.p10 && d.p10 <= d.p50 && d.p50 <= d.p90 && d.p90 <= d.max);
    }
}

#[test]
fn a_degraded_link_never_speeds_anything_up() {
    // Degrading uplinks of the job's first leaf (capacity x F) lowers or keeps every figure,
    // monotonically in F; F = 1 is the healthy fabric; an all-to-all off rails on a 2:1 tree
    // crosses those uplinks, so it slows.
    let c = Cluster { nodes: 16, rail_optimized: false, oversubscription: Some(2.0), ..Cluster::default() };
    let fab = fabric_of(&c);
    for (traffic, routing) in [(Traffic::AllToAll, Routing::Adaptive), (Traffic::Ring, Routing::Ecmp), (Traffic::RandomPermutation, Routing::Spray)] {
        let base = Options { traffic, routing, seeds: 8, placement: Placement::Scattered, ..Options::default() };
        let healthy = run(&fab, &base).expect("a study").throughput_fraction.mean;
        let mut last = healthy;
        for f in [1.0, 0.75, 0.5, 0.25, 0.1] {
            let o = Options { failures: Failures { degraded_links: 4, degraded_factor: f, ..Failures::default() }, ..base };
            let got = run(&fab, &o).expect("a study").throughput_fraction.mean;
            assert!(got <= last + 1e-9, "{traffic:?} {routing:?}: F {f} gave {got}, more than {last}");
            if f == 1.0 {
                assert!((got - healthy).abs() < 1e-12);
            }
            last = got;
        }
        if traffic == Traffic::AllToAll {
            assert!(last < healthy - 0.01, "all-to-all with 4 uplinks at 10%: {last} vs {healthy}");
        }
    }
    let bad = Options { failures: Failures { degraded_links: 1, degraded_factor: 0.0, ..Failures::default() }, ..Options::default() };
    assert_eq!(run(&fab, &bad).unwrap_err().field, "degraded_factor");
}

#[test]
fn a_tree_on_a_non_blocking_fabric_keeps_its_rate() {
    // Adaptive routing splits every tree edge that leaves a leaf over as many uplinks as the
    // leaf has NICs: no uplink carries more than the NICs do, so nothing beyond the NICs limits
    // the tree (>= 0.95, rail-optimized or not). Under ECMP on the rail-optimized tree each
    // rail's 32-node block sits on one leaf, so only the few edges between blocks leave it and a
    // NIC's busiest link carries 4 connections (up to its parent and to 2 children in one tree,
    // to its parent in the other): an uplink would need more than 4 of them to slow the tree.
    for rail in [true, false] {
        let fab = fabric_of(&dgx_1024(rail, None));
        let ar = study(&fab, Traffic::Tree, Routing::Adaptive, 1);
        assert!(ar.throughput_fraction.p10 >= 0.95, "rail {rail}: {:?}", ar.throughput_fraction);
        assert_eq!(ar.bottleneck_tier, "nic");
    }
    let ecmp = study(&fabric_of(&dgx_1024(true, None)), Traffic::Tree, Routing::Ecmp, 16);
    assert!(ecmp.throughput_fraction.p10 >= 0.95, "{:?}", ecmp.throughput_fraction);
}

#[test]
fn a_tree_under_ecmp_on_a_2_to_1_tree_runs_below_adaptive_routing() {
    // Not rail-optimized, 4 nodes a leaf: most tree edges leave their leaf, 16 uplinks for 32
    // NICs. Hashing puts several edges on one uplink in every seed; adaptive routing spreads
    // them evenly, so the hashed tree is slower in every seed, not only on average.
    let fab = fabric_of(&dgx_1024(false, Some(2.0)));
    let ecmp = study(&fab, Traffic::Tree, Routing::Ecmp, 32);
    let ar = study(&fab, Traffic::Tree, Routing::Adaptive, 1);
    let a = ar.throughput_fraction.mean;
    assert!(a < 1.0 && a > 0.5, "adaptive at 2:1: {a}");
    assert!(ecmp.throughput_fraction.max < a, "ECMP {:?} vs adaptive {a}", ecmp.throughput_fraction);
    assert!(ecmp.collision_probability >= 0.9 && ecmp.bottleneck_tier == "leaf-spine", "{ecmp:?}");
}

/// 16 DGX H100 nodes, rail-optimized: 4 leaves of 32 ports, each holding 2 whole rails of all
/// 16 nodes (sized by `fabric_tree`; checked below), at down:up `ratio`.
fn sixteen_rail_optimized(ratio: Option<f64>) -> Fabric {
    fabric_of(&Cluster { nodes: 16, rail_optimized: true, oversubscription: ratio, ..Cluster::default() })
}

#[test]
fn pxn_keeps_an_alltoall_on_its_rails_and_without_pxn_it_crosses_the_spine() {
    let fab = sixteen_rail_optimized(None);
    assert_eq!((fab.spec.leaves_per_plane, fab.spec.nodes_per_leaf, fab.spec.down_per_leaf), (4, 16, 32));
    let spine = |traffic: Traffic| {
        let o = Options { traffic, routing: Routing::Adaptive, ..Options::default() };
        let loads = link_loads(&fab, &o, 1).expect("loads");
        loads.fabric.links.iter().zip(&loads.utilisation).filter(|(l, _)| l.tier.is_fabric()).map(|(_, &u)| u).fold(0.0f64, f64::max)
    };
    // PXN: every flow runs from rail r to rail r, and a rail's NICs share a leaf.
    assert_eq!(spine(Traffic::AllToAll), 0.0);
    // Without PXN, 6 of a NIC's 8 destination rails are on other leaves.
    assert!(spine(Traffic::AllToAllNoPxn) > 0.5, "{}", spine(Traffic::AllToAllNoPxn));
    // Non-blocking: both run at their NICs' rate.
    for t in [Traffic::AllToAll, Traffic::AllToAllNoPxn] {
        assert!((study(&fab, t, Routing::Adaptive, 1).throughput_fraction.mean - 1.0).abs() < 1e-9, "{t:?}");
    }
}

#[test]
fn without_pxn_an_alltoall_pays_the_oversubscription_pxn_avoids() {
    // Adaptive routing, so the fraction is the fluid bound: a leaf at down:up d:u whose NICs
    // send a share s of their bytes off the leaf runs at min(1, (u/d) / s).
    // 16 nodes (rails fit a leaf): PXN sends nothing off the leaf (1.0 at any ratio); without
    // PXN s = 6/8 with two rails a leaf (2:1: 0.5 / 0.75 = 2/3), 5/8 with three (4:1, three
    // leaves of 48 ports: 0.25 / 0.625 = 0.4).
    for (ratio, no_pxn) in [(1.0, 1.0), (2.0, 2.0 / 3.0), (4.0, 0.4)] {
        let fab = sixteen_rail_optimized(Some(ratio));
        let p = study(&fab, Traffic::AllToAll, Routing::Adaptive, 1).throughput_fraction.mean;
        let n = study(&fab, Traffic::AllToAllNoPxn, Routing::Adaptive, 1).throughput_fraction.mean;
        assert!((p - 1.0).abs() < 1e-9, "PXN at {ratio}:1: {p}");
        assert!((n - no_pxn).abs() < 1e-6, "no PXN at {ratio}:1: {n}, expected {no_pxn}");
    }
    // 1,024 GPUs at 2:1 (each rail over 4 leaves of 32 nodes): PXN sends the 96 of 127 peers on
    // other leaves off it, s = 96/127; without PXN all but the 31 same-rail, same-leaf peers of
    // 127 x 8 destinations, s = 1 - 31/1016. Both slow; PXN less.
    let fab = fabric_of(&dgx_1024(true, Some(2.0)));
    let p = study(&fab, Traffic::AllToAll, Routing::Adaptive, 1).throughput_fraction.mean;
    let n = study(&fab, Traffic::AllToAllNoPxn, Routing::Adaptive, 1).throughput_fraction.mean;
    assert!((p - 0.5 / (96.0 / 127.0)).abs() < 1e-6, "PXN: {p}");
    assert!((n - 0.5 / (1.0 - 31.0 / 1016.0)).abs() < 1e-6, "no PXN: {n}");
    assert!(n < p);
}
