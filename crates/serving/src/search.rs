//! The best deployment at a per-user speed: every TP x EP x DP x batch (pipeline 1) on the
//! cluster, ranked by output tokens/s per GPU among those whose tokens/s per user meet the
//! target. Pure and deterministic; the communicators are built once per group shape.

use crate::deploy::{Deployment, Phase};
use crate::model::ServingModel;
use crate::step::Server;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::Topology;
use serde::Serialize;

/// What to search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Everything but tp, ep, dp and batch (phase decode, lengths, precisions, overlap).
    pub base: Deployment,
    /// Output tokens/s each user must see at least.
    pub min_tokens_per_s_per_user: f64,
    /// Largest batch per DP rank tried (powers of two up to it, and up to what fits).
    pub max_batch: u32,
    /// Largest tp x dp tried; `None`: the whole cluster.
    pub max_gpus: Option<u32>,
}

/// One deployment tried.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

fn powers_of_two(max: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).take_while(move |v| *v <= max)
}

/// Searches decode deployments of `model` on `topo`.
pub fn search(topo: &Topology, model: &ServingModel, opts: &SearchOptions) -> Result<SearchResult> {
    if !opts.min_tokens_per_s_per_user.is_finite() || opts.min_tokens_per_s_per_user < 0.0 {
        return Err(ModelError::new("min_tokens_per_s_per_user", "the per-user speed target is a number of tokens/s, 0 or more"));
    }
    let mut server = Server::new(topo, model)?;
    let gpus = opts.max_gpus.unwrap_or(topo.total_gpus).min(topo.total_gpus);
    let mut points = Vec::new();
    let mut refused = 0;
    let mut best: Option<SearchPoint> = None;
    for tp in powers_of_two(gpus.min(model.work.heads)) {
        for dp in powers_of_two(gpus / tp) {
            let stage = tp * dp;
            let eps: Vec<u32> = match model.work.moe {
                None => vec![1],
                Some(_) if dp == 1 => powers_of_two(stage).collect(),
                // Wide EP: the experts over the whole stage.
                Some(_) => vec![stage],
            };
            for ep in eps {
                for batch in powers_of_two(opts.max_batch.max(1)) {
                    let d = Deployment { phase: Phase::Decode, tp, dp, ep, pp: 1, batch, ..opts.base };
                    let Ok(r) = server.evaluate(&d) else {
                        refused += 1;
                        continue;
                    };
                    let p = SearchPoint {
                        tp,
                        ep,
                        dp,
                        batch,
                        tokens_per_s_per_gpu: r.tokens_per_s_per_gpu,
                        tokens_per_s_per_user: r.tokens_per_s_per_user,
                        tpot_ms: r.tpot_ms.unwrap_or(0.0),
                    };
                    if p.tokens_per_s_per_user >= opts.min_tokens_per_s_per_user
                        && best.as_ref().is_none_or(|b| p.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu)
                    {
                        best = Some(p.clone());
                    }
                    points.push(p);
                }
            }
        }
    }
    Ok(SearchResult { best, points, refused })
}
