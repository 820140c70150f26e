//! Speed of the serving model: one decode deployment, and a TP x EP x DP x batch search of
//! about 10^4 points (the budget: under 2 s).

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_model::Cluster;
use fabricscope_serving::{search, serving_preset, Deployment, SearchOptions};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let topo = Cluster { nodes: 32, ..Cluster::default() }.topology().expect("a DGX H100 cluster");
    let model = serving_preset("deepseek-v3").expect("preset");
    let d = Deployment { tp: 1, dp: 32, ep: 32, batch: 64, context: 4096, precision: fabricscope_serving::Precision::Fp8, ..Deployment::default() };
    c.bench_function("serve_one_deployment", |b| b.iter(|| fabricscope_serving::step::evaluate(black_box(&topo), &model, &d)));
    let opts = SearchOptions { base: d, min_tokens_per_s_per_user: 20.0, max_batch: 4096, max_gpus: None };
    let n = search(&topo, &model, &opts).expect("search").points.len();
    eprintln!("search points evaluated: {n}");
    c.bench_function("serve_search", |b| b.iter(|| search(black_box(&topo), &model, &opts)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
