//! How fast the model answers: one prediction on a prebuilt communicator, a full nccl-tests
//! sweep of every collective on a 1024-GPU cluster (topology and search included), and
//! building a communicator alone.
//!
//! `cargo bench -p fabricscope-model --bench collectives -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fabricscope_model::units::Bytes;
use fabricscope_model::{sweep_sizes, AlgoChoice, Cluster, Collective, Comm, ProtoChoice};
use std::hint::black_box;

/// 128 nodes x 8 H100 on NVLink4, 8x NDR per node: 1024 GPUs, a two-level fat tree.
fn cluster_1024() -> Cluster {
    Cluster {
        nodes: 128,
        ..Cluster::default()
    }
}

fn comm_of(c: &Cluster) -> Comm {
    let t = c.topology().expect("a valid cluster");
    Comm::new(&t, t.whole()).expect("a valid group")
}

/// (a) One AllReduce prediction at 1 MiB on the default 32-GPU cluster. Target: >= 10 M/s.
fn one_prediction(c: &mut Criterion) {
    let mut g = c.benchmark_group("predict");
    g.throughput(Throughput::Elements(1));
    for (name, cluster) in [
        ("default_32_gpus", Cluster::default()),
        ("1024_gpus", cluster_1024()),
    ] {
        let comm = comm_of(&cluster);
        g.bench_function(BenchmarkId::new("all_reduce_1MiB", name), |b| {
            b.iter(|| {
                black_box(&comm).predict(
                    black_box(Collective::AllReduce),
                    black_box(Bytes(1 << 20)),
                    black_box(AlgoChoice::Auto),
                    black_box(ProtoChoice::Auto),
                )
            })
        });
    }
    // Each collective once, to see which paths cost more than AllReduce.
    let comm = comm_of(&Cluster::default());
    for op in Collective::ALL {
        g.bench_function(BenchmarkId::new("1MiB", op.id()), |b| {
            b.iter(|| {
                black_box(&comm).predict(
                    black_box(op),
                    black_box(Bytes(1 << 20)),
                    AlgoChoice::Auto,
                    ProtoChoice::Auto,
                )
            })
        });
    }
    g.finish();
}

/// (b) 8 B - 16 GiB (32 sizes) x 7 collectives on 1024 GPUs, building the topology and the
/// communicator (NCCL's search) once per sweep. Target: well under 1 ms.
fn full_sweep(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweep");
    let sizes: Vec<Bytes> = sweep_sizes(Bytes(8), Bytes(16 << 30)).collect();
    assert_eq!(sizes.len(), 32);
    g.throughput(Throughput::Elements(
        (sizes.len() * Collective::ALL.len()) as u64,
    ));
    let cluster = cluster_1024();
    g.bench_function("1024_gpus_7_ops_x_32_sizes", |b| {
        b.iter(|| {
            let topo = black_box(&cluster).topology().expect("valid");
            let comm = Comm::new(&topo, topo.whole()).expect("valid");
            let mut total = 0.0;
            for op in Collective::ALL {
                for &size in &sizes {
                    let p = comm
                        .predict(op, black_box(size), AlgoChoice::Auto, ProtoChoice::Auto)
                        .expect("predicts");
                    total += p.time.0;
                }
            }
            total
        })
    });
    g.finish();
}

/// (c) Building a communicator alone (topology search and tuning tables), and the topology.
fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    for (name, cluster) in [
        ("default_32_gpus", Cluster::default()),
        ("1024_gpus", cluster_1024()),
    ] {
        let topo = cluster.topology().expect("valid");
        let whole = topo.whole();
        g.bench_function(BenchmarkId::new("comm_new", name), |b| {
            b.iter(|| Comm::new(black_box(&topo), black_box(whole)))
        });
        g.bench_function(BenchmarkId::new("topology", name), |b| {
            b.iter(|| black_box(&cluster).topology())
        });
    }
    g.finish();
}

criterion_group!(benches, one_prediction, full_sweep, build);
criterion_main!(benches);
