//! Speed of the serving model: one decode deployment (wide EP; dense TP 16 from scratch), and a
//! TP x EP x DP x batch search on 4,096 GPUs (the budget: 10^4 points under 2 s).

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_model::Cluster;
use fabricscope_serving::{search, serving_preset, Deployment, SearchOptions};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let topo = Cluster { nodes: 32, ..Cluster::default() }.topology().expect("a DGX H100 cluster");
    let model = serving_preset("deepseek-v3").expect("preset");
    let d = Deployment { tp: 1, dp: 32, ep: 32, batch: 64, context: 4096, precision: fabricscope_serving::Precision::Fp8, ..Deployment::default() };
    c.bench_function("serve_one_wide_ep_decode", |b| b.iter(|| fabricscope_serving::step::evaluate(black_box(&topo), &model, &d)));
    // A dense TP 16 decode from scratch: the two communicators' NCCL topology search included.
    let llama = serving_preset("llama3-405b").expect("preset");
    let dense = Deployment { tp: 16, batch: 32, precision: fabricscope_serving::Precision::Fp8, ..Deployment::default() };
    c.bench_function("serve_one_dense_tp16_cold", |b| b.iter(|| fabricscope_serving::step::evaluate(black_box(&topo), &llama, &dense)));
    // A whole search: DeepSeek-V3 on 4,096 H100 (512 nodes), batches 1 to 8192 (about 1,500
    // points since wide EP spans the stage; the per-point cost times 10^4 is the budget).
    let big = Cluster { nodes: 512, ..Cluster::default() }.topology().expect("512 nodes");
    let opts = SearchOptions { base: d, min_tokens_per_s_per_user: 20.0, max_batch: 8192, batch_steps: 1, max_gpus: None };
    let r = search(&big, &model, &opts).expect("search");
    eprintln!("search points: {} evaluated, {} refused", r.points.len(), r.refused);
    c.bench_function("serve_search_4096_gpus", |b| b.iter(|| search(black_box(&big), &model, &opts)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
