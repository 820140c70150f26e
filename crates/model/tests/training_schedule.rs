//! Invariants of the pipeline schedule and of tensor parallelism across scale-up domains
//! (issue 20): a pipeline of more than one stage always has a bubble, and it is the
//! schedule's, (p-1)/(v m) of the stage's work; TP 16 over two 8-GPU nodes is never faster
//! than TP 8 inside one, the job otherwise the same; and the search keeps GPT-3 175B's TP
//! inside the NVLink domain of a DGX H100 SuperPOD, as the published runs do.

use fabricscope_model::topology::Cluster;
use fabricscope_model::training::{preset, search_layouts, Evaluator, Framework, Parallel, Recompute, SearchOptions};

fn h100(nodes: u32) -> Cluster {
    Cluster { nodes, ..Cluster::default() }
}

#[test]
fn a_pipeline_always_has_the_schedules_bubble() {
    let topo = h100(16).topology().unwrap();
    for (model, pp, vs) in [("gpt3-175b", 8u32, &[1u32, 2, 3, 6, 12][..]), ("gpt3-175b", 2, &[1, 2, 12, 24, 48][..]), ("llama3-70b", 4, &[1, 2, 5, 10, 20][..])] {
        let w = preset(model).unwrap();
        for fw in [Framework::megatron_core(), Framework::megatron_2021(), Framework::megatron_deepspeed()] {
            let mut ev = Evaluator::new(&topo, &w, fw).unwrap();
            for &v in vs {
                let par = Parallel { tp: 8, pp, dp: 128 / (8 * pp), micro_batch: 1, interleave: v, recompute: Recompute::Full, ..Parallel::default() };
                let Ok(r) = ev.evaluate(&par) else {
                    assert!(v > 1 && !fw.pipeline_interleave, "{model} pp {pp} v {v} {}", fw.name);
                    continue;
                };
                let b = &r.breakdown;
                assert!(b.bubble.0 > 0.0, "{model} pp {pp} v {v} {}: no bubble", fw.name);
                // The bubble against the stage's work per step (compute and the collectives
                // inside its layers): (p-1)/(v m), within what the first and last stages'
                // embedding and output layer add to the slowest stage.
                let work = b.compute.0 + b.tp.0 + b.cp.0 + b.ep.0;
                let want = (pp - 1) as f64 / (v as f64 * r.micro_batches as f64);
                let got = b.bubble.0 / work;
                assert!(got <= want * 1.001 && got >= 0.85 * want, "{model} pp {pp} v {v} {}: bubble {got:.4} of the work, schedule {want:.4}", fw.name);
            }
        }
    }
}

#[test]
fn tp16_across_two_nodes_is_never_faster_than_tp8_inside_one() {
    let topo = h100(16).topology().unwrap();
    let mut compared = 0;
    // Jobs at their published batch (not GPT 22B's 4 sequences on 128 GPUs: one micro-batch
    // per pipeline, where the gradient all-reduce TP 16 halves outweighs its exposed TP).
    for model in ["gpt3-175b", "llama3-70b", "gpt-39.1b", "llama3-8b"] {
        let w = preset(model).unwrap();
        for fw in [Framework::megatron_core(), Framework::megatron_2022(), Framework::megatron_2021(), Framework::fsdp2_compiled()] {
            let mut ev = Evaluator::new(&topo, &w, fw).unwrap();
            for pp in [1u32, 2, 4] {
                for mb in [1u32, 2, 4] {
                    for sp in [true, false] {
                        // ZeRO 0 and 1, whose DP traffic runs once per step. Not ZeRO 2 and 3:
                        // they reduce-scatter (and ZeRO 3 re-gathers) every layer for every
                        // micro-batch, so on this batch the step is DP-bound at 200-500 s and
                        // halving DP (and each GPU's bytes) can win back more than TP 16 loses.
                        for (rc, zero) in [(Recompute::Full, 1u8), (Recompute::Selective, 1), (Recompute::None, 0), (Recompute::Full, 0)] {
                            // TP 16 takes twice the micro-batch over half the DP: the same
                            // micro-batches per pipeline and the same tokens per GPU, so only
                            // where TP's traffic runs differs (with the same micro-batch, TP 16
                            // would run twice the micro-batches and a smaller bubble).
                            let at = |tp: u32, mb: u32| Parallel { tp, pp, dp: 128 / (tp * pp), micro_batch: mb, recompute: rc, zero, sequence_parallel: sp, ..Parallel::default() };
                            let (Ok(t8), Ok(t16)) = (ev.evaluate(&at(8, mb)), ev.evaluate(&at(16, 2 * mb))) else { continue };
                            assert_eq!(t8.micro_batches, t16.micro_batches);
                            compared += 1;
                            assert!(
                                t16.step_time_s >= t8.step_time_s,
                                "{model} {} pp {pp} mb {mb} sp {sp} {rc:?} ZeRO {zero}: TP 16 {:.3} s < TP 8 {:.3} s",
                                fw.name,
                                t16.step_time_s,
                                t8.step_time_s
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(compared >= 100, "only {compared} pairs compared");
}

/// GPT-3 175B on a DGX H100 SuperPOD (128 nodes, 1,024 H100): NeMo 24.07 ran it with TP 4
/// and PP 8 (validation/training-2.csv), Megatron-LM with TP 8; the search's best layouts
/// keep TP inside the 8-GPU NVLink domain and add pipeline stages.
#[test]
fn gpt3_175b_on_a_superpod_keeps_tp_inside_the_nvlink_domain() {
    let w = preset("gpt3-175b").unwrap();
    let topo = h100(128).topology().unwrap();
    let r = search_layouts(&topo, &w, Framework::default(), &SearchOptions { top: 5, ..SearchOptions::default() }).unwrap();
    assert!(!r.best.is_empty());
    for b in &r.best {
        assert!(b.mapping.tp <= 8, "TP {} leaves the NVLink domain: {:?}", b.mapping.tp, b.mapping);
    }
    assert!(r.best[0].mapping.pp > 1, "{:?}", r.best[0].mapping);
}
