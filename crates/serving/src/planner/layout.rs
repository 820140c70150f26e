//! The layouts the planner tries (TP x PP x EP over attention DP, the deployment search's
//! shapes plus pipeline stages) and, for each, what the step model says once: the decode step
//! as a function of the batch (sampled on the search's batch grid, interpolated linearly), the
//! cost of a prompt token inside a full prefill chunk, one prompt's prefill alone, and the
//! largest batch memory holds. Everything the queueing needs afterwards is arithmetic on these.

use crate::deploy::{Deployment, Phase};
use crate::hardware::{AccuracyClass, MAX_RUNTIME_BATCH};
use crate::model::ServingModel;
use crate::planner::input::PlanInput;
use crate::search::batch_grid;
use crate::step::Server;
use fabricscope_model::Topology;
use serde::{Deserialize, Serialize};

/// One replica's parallel layout: `tp x dp x pp` GPUs, the routed experts over `ep` of a
/// stage's `tp x dp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layout {
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    pub dp: u32,
}

impl Layout {
    pub fn gpus(&self) -> u32 {
        self.tp * self.dp * self.pp
    }
    /// "TP8", "TP2 x PP2", "TP1 x DP32 x EP32".
    pub fn label(&self) -> String {
        let mut s = format!("TP{}", self.tp);
        if self.pp > 1 {
            s.push_str(&format!(" x PP{}", self.pp));
        }
        if self.dp > 1 {
            s.push_str(&format!(" x DP{}", self.dp));
        }
        if self.ep > 1 {
            s.push_str(&format!(" x EP{}", self.ep));
        }
        s
    }
}

/// Pipeline stages the planner tries (count): 1, 2 and 4. At decode the model runs one batch
/// through the stages in turn (docs/serving.md, "Pipeline"), so PP buys memory for the KV
/// cache, never speed: deeper pipelines only lose.
pub const PIPELINE_STAGES: [u32; 3] = [1, 2, 4];

fn powers_of_two(max: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).take_while(move |v| *v <= max)
}

/// Every layout of at most `gpus` GPUs: TP a power of two up to the heads; a dense model's
/// data parallelism is replicas (the planner's pool sizes), an MoE's attention DP a power of
/// two with the experts over the whole stage (wide EP) or tensor parallel over it (EP 1), or,
/// without DP, any power-of-two EP; PP 1, 2, 4. Layouts the deployment check refuses (uneven
/// heads, TP across domains unevenly) are dropped by the curve builder.
pub fn layouts(model: &ServingModel, gpus: u32) -> Vec<Layout> {
    let mut out = Vec::new();
    for pp in PIPELINE_STAGES.into_iter().filter(|p| *p <= model.work.layers && *p <= gpus) {
        for tp in powers_of_two((gpus / pp).min(model.work.heads)) {
            let dps: Vec<u32> = match model.work.moe {
                None => vec![1],
                Some(_) => powers_of_two(gpus / pp / tp).collect(),
            };
            for dp in dps {
                let stage = tp * dp;
                let eps: Vec<u32> = match model.work.moe {
                    None => vec![1],
                    Some(_) if dp == 1 => powers_of_two(stage).collect(),
                    Some(_) => vec![stage, 1],
                };
                for ep in eps {
                    out.push(Layout { tp, pp, ep, dp });
                }
            }
        }
    }
    out
}

/// What the step model says of one layout, once.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutCurve {
    pub layout: Layout,
    /// Batches per DP rank sampled (ascending, from 1; the last the most memory and the
    /// runtime allow).
    pub batches: Vec<f64>,
    /// The decode step at each, µs.
    pub step_us: Vec<f64>,
    /// Its TP all-reduce part, µs.
    pub allreduce_us: Vec<f64>,
    /// Largest batch per DP rank whose KV cache (mean context) fits beside the weights, at most
    /// the input's `max_batch` and the runtime's.
    pub max_batch: f64,
    /// A prompt token's cost inside a full prefill chunk, µs per token per DP rank.
    pub prefill_us_per_token: f64,
    /// One prompt's prefill alone (the computed prompt), µs.
    pub prompt_us: f64,
    /// The TP group crosses scale-up domains.
    pub tp_spans_domains: bool,
    /// The decode step's accuracy class and whether a published run of it on this hardware
    /// class validates it (a band).
    pub class: AccuracyClass,
    pub validated: bool,
    /// Wide EP (attention DP ranks coupled by the EP exchange).
    pub wide_ep: bool,
}

impl LayoutCurve {
    /// The decode step at `batch` sequences per DP rank (fractional: a mean), µs, linear
    /// between samples, the batch-1 step below 1; `None` beyond the last sample.
    pub fn step_at(&self, batch: f64) -> Option<f64> {
        interp(&self.batches, &self.step_us, batch)
    }
    pub fn allreduce_at(&self, batch: f64) -> Option<f64> {
        interp(&self.batches, &self.allreduce_us, batch)
    }
}

fn interp(xs: &[f64], ys: &[f64], x: f64) -> Option<f64> {
    let (&x0, &y0) = (xs.first()?, ys.first()?);
    if x <= x0 {
        return Some(y0);
    }
    let i = xs.partition_point(|v| *v < x);
    if i >= xs.len() {
        return None;
    }
    let (a, b) = (xs[i - 1], xs[i]);
    Some(ys[i - 1] + (ys[i] - ys[i - 1]) * (x - a) / (b - a))
}

/// The deployment of `l` at `batch` that the step model evaluates for the planner.
pub fn deployment(l: Layout, input: &PlanInput, phase: Phase, batch: u32, prompt: u32) -> Deployment {
    let context = (input.input_tokens as u64 + input.output_tokens as u64 / 2).min(crate::deploy::MAX_TOKENS as u64) as u32;
    Deployment {
        phase,
        tp: l.tp,
        pp: l.pp,
        ep: l.ep,
        dp: l.dp,
        batch,
        context,
        input_len: prompt,
        output_len: input.output_tokens,
        precision: input.precision,
        kv_precision: input.kv_precision,
        overlap: None,
        disaggregated: false,
        kv_rails: None,
        memory_fraction: input.memory_fraction,
        reserve_gib: input.reserve_gib,
        kv_path: None,
        engine: input.engine,
    }
}

/// The curve of `l`, or `None` when the model refuses it (weights do not fit, uneven split).
/// Decode at the mean context `input + output / 2`; the prefill chunk holds
/// `max(1, chunk / prompt)` computed prompts (fewer if memory says so).
pub fn curve(server: &mut Server, l: Layout, input: &PlanInput) -> Option<LayoutCurve> {
    let prompt = input.computed_prompt();
    let first = server.evaluate(&deployment(l, input, Phase::Decode, 1, prompt)).ok()?;
    let top = first.max_batch.min(input.max_batch).clamp(1, MAX_RUNTIME_BATCH);
    let mut batches = vec![1.0];
    let mut step_us = vec![first.step_ms * 1e3];
    let mut allreduce_us = vec![first.breakdown.tp_allreduce * 1e3];
    let mut grid = batch_grid(top, input.batch_steps);
    if grid.last() != Some(&top) {
        grid.push(top);
    }
    for b in grid.into_iter().filter(|b| *b > 1) {
        let Ok(r) = server.evaluate(&deployment(l, input, Phase::Decode, b, prompt)) else { break };
        batches.push(b as f64);
        step_us.push(r.step_ms * 1e3);
        allreduce_us.push(r.breakdown.tp_allreduce * 1e3);
    }
    let per_chunk = (input.chunk_tokens / prompt).max(1);
    let mut chunk = None;
    for k in [per_chunk, per_chunk.min(first.max_batch.max(1)), 1] {
        if let Ok(r) = server.evaluate(&deployment(l, input, Phase::Prefill, k, prompt)) {
            chunk = Some((r.ttft_ms.unwrap_or(r.step_ms) * 1e3, k as f64 * prompt as f64));
            break;
        }
    }
    let (chunk_us, chunk_tokens) = chunk?;
    let d = deployment(l, input, Phase::Decode, 1, prompt);
    Some(LayoutCurve {
        layout: l,
        batches,
        step_us,
        allreduce_us,
        max_batch: first.max_batch.min(input.max_batch).min(MAX_RUNTIME_BATCH) as f64,
        prefill_us_per_token: chunk_us / chunk_tokens,
        prompt_us: first.ttft_ms.unwrap_or(0.0) * 1e3,
        tp_spans_domains: first.tp_spans_domains,
        class: first.accuracy_class,
        validated: first.error_band_pct.is_some(),
        wide_ep: d.wide_ep(),
    })
}

/// The curves of every layout of at most `gpus` GPUs the model accepts, and how many it refused.
pub fn curves(topo: &Topology, model: &ServingModel, input: &PlanInput, gpus: u32) -> fabricscope_model::error::Result<(Vec<LayoutCurve>, usize)> {
    let mut server = Server::new(topo, model)?;
    let all = layouts(model, gpus);
    let n = all.len();
    let ok: Vec<LayoutCurve> = all.into_iter().filter_map(|l| curve(&mut server, l, input)).collect();
    let refused = n - ok.len();
    Ok((ok, refused))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_linear_between_samples_and_stops_at_the_last() {
        let xs = [1.0, 2.0, 4.0];
        let ys = [10.0, 12.0, 20.0];
        assert_eq!(interp(&xs, &ys, 0.3), Some(10.0));
        assert_eq!(interp(&xs, &ys, 3.0), Some(16.0));
        assert_eq!(interp(&xs, &ys, 4.0), Some(20.0));
        assert_eq!(interp(&xs, &ys, 4.1), None);
    }
}
