//! How fast the training model answers: one candidate evaluation (warm caches, as inside the
//! search), one candidate's innermost arithmetic, one cold evaluation with a fresh evaluator,
//! and the full layout search for GPT-3 175B on 1024 H100.
//!
//! `cargo bench -p fabricscope-model --bench training -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fabricscope_model::training::{preset, search, Evaluator, Framework, Parallel, Recompute, SearchOptions};
use fabricscope_model::Cluster;
use std::hint::black_box;

/// 128 nodes x 8 H100 on NVLink4, 8x NDR per node: 1024 GPUs.
fn cluster_1024() -> Cluster {
    Cluster { nodes: 128, ..Cluster::default() }
}

fn gpt3_layout() -> Parallel {
    Parallel { tp: 8, pp: 8, dp: 16, micro_batch: 1, interleave: 2, recompute: Recompute::Selective, zero: 1, ..Parallel::default() }
}

fn one_evaluation(c: &mut Criterion) {
    let topo = cluster_1024().topology().expect("valid cluster");
    let work = preset("gpt3-175b").expect("preset");
    let par = gpt3_layout();
    let mut g = c.benchmark_group("training_evaluate");
    g.throughput(Throughput::Elements(1));
    // Validation, layout (spans, communicators, DP collectives), micro-batch costs and the
    // step: what one `Evaluator::summary` does once the caches hold this job's groups.
    let mut ev = Evaluator::new(&topo, &work, Framework::default()).expect("evaluator");
    ev.summary(&par).expect("valid layout");
    g.bench_function("summary_warm", |b| b.iter(|| black_box(ev.summary(black_box(&par)).expect("valid"))));
    // The search's innermost step: interleave, recompute and ZeRO over a prepared layout.
    let layout = ev.layout(&par).expect("layout");
    let micro = ev.micro(&layout, 1).expect("micro");
    g.bench_function("assemble", |b| {
        b.iter(|| black_box(ev.assemble(black_box(&layout), black_box(&micro), black_box(2), black_box(Recompute::Selective), black_box(1))))
    });
    // A fresh evaluator: NCCL topology search for every group, kernel times, full report.
    g.bench_function("report_cold", |b| {
        b.iter(|| {
            let mut ev = Evaluator::new(&topo, &work, Framework::default()).expect("evaluator");
            black_box(ev.evaluate(black_box(&par)).expect("valid"))
        })
    });
    g.finish();
}

fn full_search(c: &mut Criterion) {
    let topo = cluster_1024().topology().expect("valid cluster");
    let work = preset("gpt3-175b").expect("preset");
    let mut g = c.benchmark_group("training_search");
    g.sample_size(20);
    g.bench_function("gpt3_175b_1024_h100", |b| {
        b.iter(|| {
            let mut ev = Evaluator::new(&topo, &work, Framework::default()).expect("evaluator");
            black_box(search(&mut ev, &SearchOptions::default()).expect("search"))
        })
    });
    g.finish();
}

criterion_group!(benches, one_evaluation, full_search);
criterion_main!(benches);
