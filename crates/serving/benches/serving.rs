//! Speed of the serving model: one decode deployment (wide EP; dense TP 16 from scratch), and a
//! TP x EP x DP x batch search on 4,096 GPUs (the budget: 10^4 points under 2 s); the
//! planner (issue 39: a 10^4-deployment search under latency targets under 100 ms in the CLI).

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_model::Cluster;
use fabricscope_serving::{plan, search, serving_preset, Deployment, PlanInput, SearchOptions};
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
    // The planner: Llama 3 70B FP8 at 100 requests/s, TTFT <= 2 s, TPOT <= 50 ms on 64 DGX H100
    // nodes (512 GPUs), aggregated and disaggregated, every layout and pool size: over 2 x 10^4
    // deployments, intervals of the listed ones included (one engine named, as the CLI's
    // `--engine trtllm`; without one the listed deployments are re-planned per engine).
    let nodes64 = Cluster { nodes: 64, ..Cluster::default() }.topology().expect("64 nodes");
    let llama70 = serving_preset("llama3-70b").expect("preset");
    let q = PlanInput { rate: 100.0, ttft_ms: 2000.0, tpot_ms: 50.0, precision: fabricscope_serving::Precision::Fp8, engine: Some(fabricscope_serving::Engine::Trtllm), ..PlanInput::default() };
    let r = plan(&nodes64, &llama70, &q).expect("plan");
    eprintln!("planner: {} deployments evaluated, {} meet the targets, fewest {} GPUs", r.evaluated, r.meeting, r.deployments.first().map_or(0, |d| d.gpus));
    c.bench_function("plan_llama3_70b_512_gpus", |b| b.iter(|| plan(black_box(&nodes64), &llama70, &q)));
    let qa = PlanInput { engine: None, ..q.clone() };
    c.bench_function("plan_llama3_70b_512_gpus_engine_spread", |b| b.iter(|| plan(black_box(&nodes64), &llama70, &qa)));
    // DeepSeek-V3 on a GB200 NVL72 SuperPOD preset at 50 requests/s, TTFT <= 1 s, TPOT <= 30 ms.
    let nvl = fabricscope_model::presets::cluster_preset("gb200-nvl72").expect("preset").cluster().topology().expect("NVL72");
    let qd = PlanInput { rate: 50.0, ttft_ms: 1000.0, tpot_ms: 30.0, ..q.clone() };
    let r = plan(&nvl, &model, &qd).expect("plan");
    eprintln!("planner: {} deployments evaluated, {} meet the targets, fewest {} GPUs", r.evaluated, r.meeting, r.deployments.first().map_or(0, |d| d.gpus));
    c.bench_function("plan_deepseek_v3_gb200_nvl72", |b| b.iter(|| plan(black_box(&nvl), &model, &qd)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
