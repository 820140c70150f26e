//! How long the right-sizer takes for 1024 GPUs (128 DGX H100-class nodes; target < 1 s): the
//! layout search on the user's cluster and every fabric option costed and timed, at once (the
//! CLI) and in 8 ms slices as a page would run it.
//!
//! `cargo bench -p fabricscope-design --bench rightsize -- --warm-up-time 1 --measurement-time 5`

use criterion::{criterion_group, criterion_main, Criterion};
use fabricscope_design::bom::PriceBook;
use fabricscope_design::rightsize::{rightsize, RightSizer};
use fabricscope_model::training::{preset, Constraints};
use fabricscope_model::Cluster;
use std::hint::black_box;
use std::time::Instant;

/// Slice length a page would use (src/training.rs `SLICE_MS`), ms.
const SLICE_MS: f64 = 8.0;

fn rightsizes(c: &mut Criterion) {
    let mut g = c.benchmark_group("rightsize");
    g.sample_size(10);
    let base = Cluster { nodes: 128, ..Cluster::default() };
    for job in ["llama3-8b", "gpt3-175b"] {
        let w = preset(job).expect("preset");
        g.bench_function(format!("cli_1024_h100_{job}"), |b| {
            b.iter(|| black_box(rightsize(&base, w.clone(), Constraints::default(), PriceBook::default()).expect("rightsize")))
        });
        g.bench_function(format!("sliced_1024_h100_{job}"), |b| {
            b.iter(|| {
                let mut s = RightSizer::new(&base, w.clone(), Constraints::default(), PriceBook::default()).expect("start");
                loop {
                    let t0 = Instant::now();
                    let mut more = || t0.elapsed().as_secs_f64() * 1e3 < SLICE_MS;
                    if s.run(&mut more).expect("slice") {
                        break;
                    }
                }
                black_box(s.result().cloned())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, rightsizes);
criterion_main!(benches);
