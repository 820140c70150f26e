//! How fast the flow model answers at 1,024 GPUs (128 nodes x 8 H100, 8x NDR, radix 64):
//! one deterministic (adaptive) solve of a ring, a permutation and an all-to-all, and 32 ECMP
//! seeds of each.
//!
//! `cargo bench -p fabricscope-flow --bench flow -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_flow::{run, ClosSpec, Fabric, Options, Routing, Traffic};
use fabricscope_model::Cluster;
use std::hint::black_box;

fn fabric(rail_optimized: bool) -> Fabric {
    let c = Cluster { nodes: 128, rail_optimized, ..Cluster::default() };
    let t = c.topology().expect("a valid cluster");
    Fabric::build(ClosSpec::from_topology(&t).expect("a fabric")).expect("a graph")
}

fn solves(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow_1024_gpus");
    g.sample_size(10);
    for (name, rail, traffic, routing, seeds) in [
        ("ring_adaptive_1_solve", true, Traffic::Ring, Routing::Adaptive, 1),
        ("ring_adaptive_1_solve_not_rail_optimized", false, Traffic::Ring, Routing::Adaptive, 1),
        ("permutation_adaptive_1_seed", false, Traffic::RandomPermutation, Routing::Adaptive, 1),
        ("ring_ecmp_32_seeds", false, Traffic::Ring, Routing::Ecmp, 32),
        ("permutation_ecmp_32_seeds", false, Traffic::RandomPermutation, Routing::Ecmp, 32),
        ("alltoall_adaptive_1_solve", false, Traffic::AllToAll, Routing::Adaptive, 1),
        ("permutation_adaptive_1_seed_rail_optimized", true, Traffic::RandomPermutation, Routing::Adaptive, 1),
        ("alltoall_adaptive_1_solve_rail_optimized", true, Traffic::AllToAll, Routing::Adaptive, 1),
        ("alltoall_ecmp_1_seed", false, Traffic::AllToAll, Routing::Ecmp, 1),
        ("alltoall_ecmp_32_seeds", false, Traffic::AllToAll, Routing::Ecmp, 32),
        ("alltoall_ecmp_32_seeds_rail_optimized", true, Traffic::AllToAll, Routing::Ecmp, 32),
    ] {
        let fab = fabric(rail);
        let o = Options { traffic, routing, seeds, ..Options::default() };
        g.bench_function(name, |b| b.iter(|| black_box(run(&fab, &o).expect("a study"))));
    }
    // The speed target on the 2:1 tree too (32 seeds under 2 s in the CLI).
    let fab = fabric_oversubscribed(2.0);
    let o = Options { traffic: Traffic::AllToAll, routing: Routing::Ecmp, seeds: 32, ..Options::default() };
    g.bench_function("alltoall_ecmp_32_seeds_2to1", |b| b.iter(|| black_box(run(&fab, &o).expect("a study"))));
    g.finish();
}

fn fabric_oversubscribed(ratio: f64) -> Fabric {
    let c = Cluster { nodes: 128, oversubscription: Some(ratio), ..Cluster::default() };
    let t = c.topology().expect("a valid cluster");
    Fabric::build(ClosSpec::from_topology(&t).expect("a fabric")).expect("a graph")
}

criterion_group!(benches, solves);
criterion_main!(benches);
