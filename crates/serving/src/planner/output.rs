//! The planner's answer: the deployments meeting the targets (fewest GPUs first), the Pareto
//! front of tokens/s per GPU against tokens/s per user, and, when nothing meets them, why.

use crate::calibration::{calibrated, join_interval, ENGINE_SPREAD_BASIS};
use crate::hardware::AccuracyClass;
use crate::kv::KvPath;
use crate::planner::input::{Mode, PlanInput};
use crate::planner::layout::Layout;
use fabricscope_model::interval::Interval;
use serde::{Deserialize, Serialize};

/// One pool: a layout and how many replicas of it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    pub dp: u32,
    pub replicas: u32,
    /// GPUs of the pool: replicas x tp x dp x pp.
    pub gpus: u32,
    /// The TP group crosses scale-up domains (its all-reduces go over the NICs).
    pub tp_spans_domains: bool,
}

impl Pool {
    pub fn new(l: Layout, replicas: u32, tp_spans_domains: bool) -> Pool {
        Pool { tp: l.tp, pp: l.pp, ep: l.ep, dp: l.dp, replicas, gpus: replicas * l.gpus(), tp_spans_domains }
    }
    pub fn layout(&self) -> Layout {
        Layout { tp: self.tp, pp: self.pp, ep: self.ep, dp: self.dp }
    }
    /// "3 x TP8".
    pub fn label(&self) -> String {
        format!("{} x {}", self.replicas, self.layout().label())
    }
}

/// The 90% intervals of a deployment's predicted figures (the serving calibration of its
/// decode step's class; TTFT from the prefill rows'), `{lo, hi, coverage, sources, rows, basis,
/// extrapolated}` as `serve --json` prints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanIntervals {
    pub ttft_ms: Interval,
    pub tpot_ms: Interval,
    pub tokens_per_s_per_gpu: Interval,
    pub tokens_per_s_per_user: Interval,
}

/// What every planner interval adds to its basis.
pub const PLANNER_BASIS: &str = "the step's calibration only: the queueing (M/G/1) and the chunked-prefill interference are not validated on measured latencies under load";

/// What the interval of the delivered tokens/s per GPU adds to its basis.
pub const DELIVERED_BASIS: &str = "the rate's output tokens at most; at least the low end of the capacity's interval";

/// One deployment at the rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanDeployment {
    pub mode: Mode,
    /// GPUs of the whole deployment (both pools when disaggregated).
    pub gpus: u32,
    /// Time to first token at the percentile asked (the mean without one), ms.
    pub ttft_ms: f64,
    /// Time per output token (mean), ms.
    pub tpot_ms: f64,
    /// Output tokens/s of the whole deployment at the rate (rate x output tokens: it serves
    /// every request) over all its GPUs, a prefill pool included.
    pub tokens_per_s_per_gpu: f64,
    /// Output tokens/s one request sees: 1000 / TPOT.
    pub tokens_per_s_per_user: f64,
    /// The largest rate at which the deployment still meets both targets, requests/s.
    pub max_rate: f64,
    /// `max_rate` x output tokens over the GPUs: what the deployment could deliver per GPU
    /// within the targets.
    pub capacity_tokens_per_s_per_gpu: f64,
    /// Mean end to end latency, ms: mean TTFT + (output - 1) x TPOT.
    pub e2e_ms: f64,
    /// Requests in the deployment at once (Little's law: rate x mean end to end latency).
    pub concurrency: f64,
    /// Sequences decoding per attention DP rank (Little's law on the decode phase: rate per
    /// rank x (output - 1) x TPOT).
    pub batch_per_rank: f64,
    /// Utilisation of the prefill server (aggregated: the share of a chunk budget prompts take).
    pub utilisation: f64,
    /// Aggregated: the replicas' layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<Pool>,
    /// Disaggregated: the prefill pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill: Option<Pool>,
    /// Disaggregated: the decode pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode: Option<Pool>,
    /// Disaggregated: the KV handoff in TTFT, ms, and the fabric it crosses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_transfer_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_path: Option<KvPath>,
    /// TP all-reduce time in a decode step at the deployment's batch, ms.
    pub allreduce_ms: f64,
    /// The decode step at that batch (without prefill interference), ms.
    pub step_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<PlanIntervals>,
}

impl PlanDeployment {
    /// The pool whose step sets TPOT.
    pub fn decode_pool(&self) -> Option<&Pool> {
        self.layout.as_ref().or(self.decode.as_ref())
    }
    /// Any pool's TP crosses scale-up domains.
    pub fn tp_spans_domains(&self) -> bool {
        [self.layout, self.prefill, self.decode].iter().flatten().any(|p| p.tp_spans_domains)
    }
    /// "aggregated 3 x TP8" or "disaggregated prefill 1 x TP8, decode 2 x TP8".
    pub fn label(&self) -> String {
        match (&self.layout, &self.prefill, &self.decode) {
            (Some(l), _, _) => l.label(),
            (None, Some(p), Some(d)) => format!("prefill {} + decode {}", p.label(), d.label()),
            _ => String::new(),
        }
    }
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanResult {
    pub model: String,
    pub gpu: String,
    /// GPUs a deployment may use.
    pub gpus_available: u32,
    pub input: PlanInput,
    /// Deployments meeting both targets at the rate, fewest GPUs first, then most capacity per
    /// GPU (the smallest pools of each layout or layout pair; at most `input.max_results`).
    pub deployments: Vec<PlanDeployment>,
    /// The non-dominated deployments meeting the targets (every pool size tried): most
    /// tokens/s per GPU first, each with more tokens/s per user than the one before.
    pub pareto: Vec<PlanDeployment>,
    /// Why the list is empty: which target fails first and by how much.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the fabric is the difference, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric_note: Option<String>,
    /// Deployments (layouts x mode x pool sizes) whose TTFT and TPOT were computed.
    pub evaluated: u64,
    /// Of those, how many meet both targets (the list holds the smallest of each layout).
    pub meeting: u64,
    /// Layouts (or prefill and decode layout pairs) with a pool size meeting both targets: the
    /// list before it was cut to `input.max_results`.
    pub meeting_layouts: usize,
    /// Layouts tried, and those the step model refused (weights do not fit, uneven split).
    pub layouts: usize,
    pub layouts_refused: usize,
}

/// The non-dominated points of `(tokens/s per GPU, tokens/s per user)`, most per GPU first.
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by(|&a, &b| points[b].0.total_cmp(&points[a].0).then(points[b].1.total_cmp(&points[a].1)));
    let mut best_user = f64::NEG_INFINITY;
    let mut out = Vec::new();
    for i in idx {
        if points[i].1 > best_user {
            best_user = points[i].1;
            out.push(i);
        }
    }
    out
}

/// A deployment's intervals from its figures: the decode class's calibration for TPOT and the
/// throughputs, the prefill rows' for TTFT.
pub fn intervals_of(d: &PlanDeployment, class: AccuracyClass, validated: bool) -> Option<PlanIntervals> {
    let (c, basis) = calibrated(Some(class), validated)?;
    let (p, pbasis) = calibrated(None, validated)?;
    let b = format!("{basis}; {PLANNER_BASIS}");
    let pb = format!("{pbasis}; {PLANNER_BASIS}");
    // A deployment that sustains the rate outputs exactly the rate's tokens, never more; if the
    // step is slower than predicted its capacity may fall below the rate: the delivered output
    // is then the capacity's low end.
    let v = d.tokens_per_s_per_gpu;
    // Capacity 0: the deployment misses the latency targets (another engine's figures, joined
    // into the interval), yet it is stable at the rate (the planner builds figures only for
    // stable ones), so it still delivers the rate's tokens.
    let base = if d.capacity_tokens_per_s_per_gpu > 0.0 { d.capacity_tokens_per_s_per_gpu } else { v };
    let cap = c.throughput(base, &format!("{b}; {DELIVERED_BASIS}"));
    Some(PlanIntervals {
        ttft_ms: p.time(d.ttft_ms, &pb),
        tpot_ms: c.time(d.tpot_ms, &b),
        tokens_per_s_per_gpu: Interval { lo: cap.lo.min(v), hi: v, ..cap },
        tokens_per_s_per_user: c.throughput(d.tokens_per_s_per_user, &b),
    })
}

/// Joins `other` (the same deployment under another engine) into `into`.
pub fn join_engines(into: &mut PlanIntervals, other: &PlanIntervals) {
    for (a, b) in [
        (&mut into.ttft_ms, &other.ttft_ms),
        (&mut into.tpot_ms, &other.tpot_ms),
        (&mut into.tokens_per_s_per_gpu, &other.tokens_per_s_per_gpu),
        (&mut into.tokens_per_s_per_user, &other.tokens_per_s_per_user),
    ] {
        join_interval(a, b, ENGINE_SPREAD_BASIS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_keeps_only_the_non_dominated() {
        let pts = [(100.0, 10.0), (90.0, 20.0), (80.0, 15.0), (100.0, 5.0), (50.0, 30.0)];
        assert_eq!(pareto_front(&pts), vec![0, 1, 4]);
        assert!(pareto_front(&[]).is_empty());
    }
}
