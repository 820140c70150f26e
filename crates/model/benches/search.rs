//! How long the layout search takes on the clusters the issue names: GPT-3 175B on 1024 H100
//! (target < 1 s in the CLI) and a DeepSeek-V3-like MoE on 4096 DGX H100 nodes (target < 2 s);
//! the explorer's one-pass search (top layouts, pinned layout and MFU grid together); and the
//! same run in 8 ms slices as the page runs it (each slice builds a fresh evaluator).
//!
//! `cargo bench -p fabricscope-model --bench search -- --warm-up-time 1 --measurement-time 5`

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_model::training::explore::{start, Staged};
use fabricscope_model::training::{preset, search, Constraints, Evaluator, Framework, SearchOptions};
use fabricscope_model::Cluster;
use std::hint::black_box;
use std::time::Instant;

/// Slice length the page uses (src/training.rs `SLICE_MS`), ms.
const SLICE_MS: f64 = 8.0;

fn searches(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for (name, nodes, job) in [("gpt3_175b_1024_h100", 128, "gpt3-175b"), ("deepseek_v3_like_4096_nodes", 4096, "deepseek-v3-like")] {
        let topo = Cluster { nodes, ..Cluster::default() }.topology().expect("valid cluster");
        let work = preset(job).expect("preset");
        g.bench_function(format!("cli_{name}"), |b| {
            b.iter(|| {
                let mut ev = Evaluator::new(&topo, &work, Framework::default()).expect("evaluator");
                black_box(search(&mut ev, &SearchOptions::default()).expect("search"))
            })
        });
        g.bench_function(format!("explorer_{name}"), |b| b.iter(|| black_box(start(&topo, job, Constraints::default()).expect("view"))));
        g.bench_function(format!("explorer_sliced_{name}"), |b| {
            b.iter(|| {
                let mut s = Staged::new(&topo, job, Constraints::default()).expect("staged");
                loop {
                    let t0 = Instant::now();
                    let mut more = || t0.elapsed().as_secs_f64() * 1e3 < SLICE_MS;
                    if s.run(&topo, &mut more).expect("slice") {
                        break;
                    }
                }
                black_box(s.finish(&topo).expect("view"))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, searches);
criterion_main!(benches);
