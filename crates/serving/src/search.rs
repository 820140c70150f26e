//! The best deployment at a per-user speed: every TP x EP x DP x batch (pipeline 1) on the
//! cluster, ranked by output tokens/s per GPU among those whose tokens/s per user meet the
//! target. Pure and deterministic; the communicators are built once per group shape.

use crate::deploy::{Deployment, Phase};
use crate::model::ServingModel;
use crate::step::Server;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::Topology;
use serde::{Deserialize, Serialize};

/// What to search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Everything but tp, ep, dp and batch (phase decode, lengths, precisions, overlap).
    pub base: Deployment,
    /// Output tokens/s each user must see at least.
    pub min_tokens_per_s_per_user: f64,
    /// Largest batch per DP rank tried (see `batch_steps`; what does not fit is refused).
    pub max_batch: u32,
    /// Batches tried per octave (rounded up to a power of two): 1 tries powers of two only;
    /// 16 (the page's thorough search) every batch below 32, then 16 evenly spaced per
    /// doubling (32, 34, ... 62, 64, 68, ...), so the largest batch meeting a per-user speed is
    /// found within 1/16 of an octave instead of a factor of two.
    pub batch_steps: u32,
    /// Largest tp x dp tried; `None`: the whole cluster.
    pub max_gpus: Option<u32>,
}

/// One deployment tried.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchPoint {
    pub tp: u32,
    pub ep: u32,
    pub dp: u32,
    pub batch: u32,
    pub tokens_per_s_per_gpu: f64,
    pub tokens_per_s_per_user: f64,
    pub tpot_ms: f64,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchResult {
    /// The best point meeting the target; `None` when none does.
    pub best: Option<SearchPoint>,
    /// Every point evaluated, in search order (the throughput/latency curve's data).
    pub points: Vec<SearchPoint>,
    /// Points refused (do not fit, invalid split).
    pub refused: u32,
}

/// Searches decode deployments of `model` on `topo` (all at once; [`StagedSearch`] runs the
/// same candidates in slices).
pub fn search(topo: &Topology, model: &ServingModel, opts: &SearchOptions) -> Result<SearchResult> {
    let mut s = StagedSearch::new(topo, model, opts.clone())?;
    s.run(topo, model, &mut || true)?;
    Ok(s.into_result())
}

fn powers_of_two(max: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).take_while(move |v| *v <= max)
}

/// The batches tried up to `max` with `steps` per octave: every integer below 2·steps, then
/// those of the form m·2^k with steps <= m < 2·steps (`steps` rounded up to a power of two).
pub fn batch_grid(max: u32, steps: u32) -> Vec<u32> {
    let bits = steps.clamp(1, 1 << 16).next_power_of_two().trailing_zeros();
    (1..=max.max(1))
        .filter(|b| {
            let len = 32 - b.leading_zeros();
            len <= bits + 1 || b.trailing_zeros() >= len - bits - 1
        })
        .collect()
}

/// Every deployment `search` tries, in its order.
pub fn candidates(topo: &Topology, model: &ServingModel, opts: &SearchOptions) -> Vec<Deployment> {
    let gpus = opts.max_gpus.unwrap_or(topo.total_gpus).min(topo.total_gpus);
    let batches = batch_grid(opts.max_batch, opts.batch_steps);
    let mut out = Vec::new();
    for tp in powers_of_two(gpus.min(model.work.heads)) {
        for dp in powers_of_two(gpus / tp) {
            let stage = tp * dp;
            let eps: Vec<u32> = match model.work.moe {
                None => vec![1],
                Some(_) if dp == 1 => powers_of_two(stage).collect(),
                Some(_) => vec![stage],
            };
            for ep in eps {
                for &batch in &batches {
                    out.push(Deployment { phase: Phase::Decode, tp, dp, ep, pp: 1, batch, ..opts.base });
                }
            }
        }
    }
    out
}

/// A search under way.
pub struct StagedSearch {
    opts: SearchOptions,
    todo: Vec<Deployment>,
    next: usize,
    result: SearchResult,
}

impl StagedSearch {
    pub fn new(topo: &Topology, model: &ServingModel, opts: SearchOptions) -> Result<Self> {
        if !opts.min_tokens_per_s_per_user.is_finite() || opts.min_tokens_per_s_per_user < 0.0 {
            return Err(ModelError::new("min_tokens_per_s_per_user", "the per-user speed target is a number of tokens/s, 0 or more"));
        }
        model.validate()?;
        let todo = candidates(topo, model, &opts);
        Ok(StagedSearch { opts, todo, next: 0, result: SearchResult { best: None, points: Vec::new(), refused: 0 } })
    }

    /// (evaluated, total) candidates.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.todo.len())
    }

    /// Evaluates candidates while `more()` (at least one per call); returns whether all are done.
    pub fn run(&mut self, topo: &Topology, model: &ServingModel, more: &mut dyn FnMut() -> bool) -> Result<bool> {
        let mut server = Server::new(topo, model)?;
        while self.next < self.todo.len() {
            let d = self.todo[self.next];
            self.next += 1;
            match server.evaluate(&d) {
                Err(_) => self.result.refused += 1,
                Ok(r) => {
                    let p = SearchPoint {
                        tp: d.tp,
                        ep: d.ep,
                        dp: d.dp,
                        batch: d.batch,
                        tokens_per_s_per_gpu: r.tokens_per_s_per_gpu,
                        tokens_per_s_per_user: r.tokens_per_s_per_user,
                        tpot_ms: r.tpot_ms.unwrap_or(0.0),
                    };
                    if p.tokens_per_s_per_user >= self.opts.min_tokens_per_s_per_user
                        && self.result.best.as_ref().is_none_or(|b| p.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu)
                    {
                        self.result.best = Some(p.clone());
                    }
                    self.result.points.push(p);
                }
            }
            if !more() {
                break;
            }
        }
        Ok(self.next >= self.todo.len())
    }

    /// The answer so far (the whole answer once [`StagedSearch::run`] returned true).
    pub fn result(&self) -> &SearchResult {
        &self.result
    }
    pub fn into_result(self) -> SearchResult {
        self.result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::serving_preset;
    use fabricscope_model::Cluster;

    #[test]
    fn slices_give_the_same_answer_as_one_search() {
        let topo = Cluster { nodes: 4, ..Cluster::default() }.topology().unwrap();
        for id in ["llama3-70b", "qwen3-235b-a22b"] {
            let m = serving_preset(id).unwrap();
            let opts = SearchOptions { base: Deployment::default(), min_tokens_per_s_per_user: 30.0, max_batch: 256, batch_steps: 1, max_gpus: None };
            let whole = search(&topo, &m, &opts).unwrap();
            let mut s = StagedSearch::new(&topo, &m, opts).unwrap();
            let mut calls = 0;
            // Three candidates per slice.
            while !{
                let mut n = 0;
                s.run(&topo, &m, &mut || {
                    n += 1;
                    n < 3
                })
                .unwrap()
            } {
                calls += 1;
            }
            assert!(calls > 3, "{id}: {calls}");
            assert_eq!(s.progress().0, s.progress().1);
            assert_eq!(s.into_result(), whole, "{id}");
            assert!(whole.best.is_some(), "{id}");
        }
    }

    #[test]
    fn the_batch_grid_is_powers_of_two_or_sixteen_steps_an_octave() {
        assert_eq!(batch_grid(4096, 1), (0..=12).map(|k| 1 << k).collect::<Vec<u32>>());
        let fine = batch_grid(4096, 16);
        // 1..=31, then 16 per octave from 32 to 4095 (7 octaves), then 4096.
        assert_eq!(fine.len(), 31 + 7 * 16 + 1);
        assert_eq!(&fine[29..35], &[30, 31, 32, 34, 36, 38]);
        assert_eq!(fine[fine.len() - 2..], [3968, 4096]);
        // Adjacent batches differ by at most 1/16 of the smaller above 16.
        assert!(fine.windows(2).all(|w| w[0] < 16 || (w[1] - w[0]) * 16 <= w[0]));
        assert_eq!(batch_grid(0, 16), vec![1]);
    }

    /// The page's thorough search of issue 24: DeepSeek-V3 on the 1,024-GPU DGX H100 SuperPOD,
    /// every TP x EP x DP (88 layouts) at 144 batches: over 10^4 deployments; and the finer
    /// grid finds a best at least as good as the powers of two (it includes them).
    #[test]
    fn the_thorough_search_tries_over_ten_thousand_deployments_and_never_does_worse() {
        let topo = fabricscope_model::presets::cluster_preset("dgx-h100-superpod").unwrap().cluster().topology().unwrap();
        let m = serving_preset("deepseek-v3").unwrap();
        let base = Deployment { precision: crate::Precision::Fp8, ..Deployment::default() };
        let opts = |steps| SearchOptions { base, min_tokens_per_s_per_user: 20.0, max_batch: 4096, batch_steps: steps, max_gpus: None };
        let coarse = candidates(&topo, &m, &opts(1));
        let fine = candidates(&topo, &m, &opts(16));
        assert_eq!(coarse.len(), 1144);
        assert_eq!(fine.len(), 1144 / 13 * 144);
        let t = std::time::Instant::now();
        let best_fine = search(&topo, &m, &opts(16)).unwrap().best.unwrap();
        eprintln!("thorough search: {} deployments in {:?}", fine.len(), t.elapsed());
        let best_coarse = search(&topo, &m, &opts(1)).unwrap().best.unwrap();
        assert!(best_fine.tokens_per_s_per_gpu >= best_coarse.tokens_per_s_per_gpu);
        assert!(best_fine.tokens_per_s_per_user >= 20.0);
    }
}
