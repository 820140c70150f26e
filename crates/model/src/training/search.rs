//! Exhaustive search over parallel layouts: every valid (TP, CP, PP, DP, EP, micro-batch,
//! interleave, recompute, ZeRO stage) for a job on a cluster, minus what does not fit in HBM,
//! ranked by step time.
//!
//! Speed comes from structure, not sampling: the loops are nested so that what a candidate
//! shares with its neighbours is computed once ([`Layout`] per TP/CP/PP/DP/EP, [`Micro`] per
//! micro-batch; collective predictions and kernel times are cached by their inputs), and the
//! innermost loop is [`Evaluator::assemble`], arithmetic without allocation. Two prunes are
//! exact: (1) a (layout, micro-batch, recompute) whose kernel time alone, `m x` the slowest
//! stage's compute, is not below the K-th best step so far cannot enter the top K, since every
//! other component is non-negative; (2) memory falls monotonically with the ZeRO stage and
//! grows with the micro-batch, so once the most frugal setting does not fit, the rest of that
//! branch does not either.

use super::mapping::{Parallel, RankOrder, Recompute};
use super::step::{Evaluator, StepReport, Summary};
use super::workload::divisors;
use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

/// Values the search must keep fixed (`None`: enumerate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Constraints {
    pub tp: Option<u32>,
    pub pp: Option<u32>,
    pub dp: Option<u32>,
    pub cp: Option<u32>,
    pub ep: Option<u32>,
    /// Expert tensor parallelism (MoE parallel folding); `None`: the same as TP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expert_tp: Option<u32>,
    pub micro_batch: Option<u32>,
    pub interleave: Option<u32>,
    pub recompute: Option<Recompute>,
    pub zero: Option<u8>,
}

/// Search settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchOptions {
    /// How many of the best layouts to return.
    pub top: usize,
    pub fixed: Constraints,
    /// Sequence parallelism for TP > 1 (Megatron's default with TP).
    pub sequence_parallel: bool,
    pub order: RankOrder,
    /// Largest micro-batch tried (0: no limit beyond divisibility).
    pub max_micro_batch: u32,
    /// Largest TP tried (0: no limit).
    pub max_tp: u32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { top: 10, fixed: Constraints::default(), sequence_parallel: true, order: RankOrder::default(), max_micro_batch: 0, max_tp: 0 }
    }
}

/// What the search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchStats {
    /// Candidates in the space (evaluated + pruned).
    pub candidates: u64,
    /// Candidates whose step time was computed.
    pub evaluated: u64,
    /// Candidates skipped because their lower bound could not beat the K-th best.
    pub pruned_bound: u64,
    /// Candidates skipped or dropped because they do not fit in memory.
    pub unfit: u64,
    /// Distinct (TP, CP, PP, DP, EP) layouts.
    pub layouts: u64,
}

/// The ranking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// Best first.
    pub best: Vec<StepReport>,
    /// When nothing fits: the candidate that comes closest.
    pub closest_unfit: Option<StepReport>,
    pub stats: SearchStats,
}

impl SearchResult {
    /// Why the search found no layout on `gpus` GPUs, naming the actual cause (`None` when it
    /// found one): no way to split the GPUs into a layout of this job, no layout that takes
    /// the pinned micro-batch or interleave, or every layout out of memory.
    pub fn why_none(&self, gpus: u32) -> Option<String> {
        if !self.best.is_empty() {
            return None;
        }
        Some(match &self.closest_unfit {
            Some(c) => {
                let m = &c.mapping;
                let cap = c.memory.capacity.0 as f64 / (1u64 << 30) as f64;
                format!(
                    "No layout fits in GPU memory: the closest (TP {} x PP {} x DP {} x CP {}) needs {:.1} GiB per GPU of {cap:.0} GiB; use more GPUs or a smaller job.",
                    m.tp, m.pp, m.dp, m.cp, c.memory_gib_per_gpu
                )
            }
            None if self.stats.layouts == 0 => format!(
                "No parallel layout of this job divides the {gpus} GPUs: TP must divide the attention and key/value heads and the feed-forward size, PP be at most the layers, CP divide half the sequence and DP the global batch, with any pinned size as given; change the GPU count or the job's sizes."
            ),
            None => format!(
                "{} layouts divide the {gpus} GPUs, but none takes the pinned micro-batch or interleave; leave them to the search.",
                self.stats.layouts
            ),
        })
    }
}

/// Keeps the K fastest summaries, sorted.
struct TopK {
    k: usize,
    items: Vec<Summary>,
}

impl TopK {
    fn threshold(&self) -> f64 {
        if self.items.len() < self.k {
            f64::INFINITY
        } else {
            self.items.last().map_or(f64::INFINITY, |s| s.step.0)
        }
    }
    fn push(&mut self, s: Summary) {
        if s.step.0 >= self.threshold() {
            return;
        }
        let key = |x: &Summary| (x.step.0, x.memory.total.0);
        let at = self.items.partition_point(|x| key(x) <= key(&s));
        self.items.insert(at, s);
        self.items.truncate(self.k);
    }
}

fn pick(fixed: Option<u32>, all: Vec<u32>) -> Vec<u32> {
    match fixed {
        Some(v) => all.into_iter().filter(|x| *x == v).collect(),
        None => all,
    }
}

/// Runs the search for `ev`'s job on `ev`'s cluster.
pub fn search(ev: &mut Evaluator, opts: &SearchOptions) -> Result<SearchResult> {
    let w = ev.work;
    let n = ev.topo.total_gpus;
    let f = &opts.fixed;
    if let Some(z) = f.zero {
        if z > 3 {
            return Err(ModelError::new("zero", format!("the ZeRO stage must be 0, 1, 2 or 3; got {z}")));
        }
    }
    // When every dimension is fixed, report why that layout is invalid rather than "nothing".
    if let (Some(tp), Some(pp), Some(dp), Some(cp)) = (f.tp, f.pp, f.dp, f.cp) {
        let par = Parallel {
            tp,
            pp,
            dp,
            cp,
            ep: f.ep.unwrap_or(1),
            expert_tp: f.expert_tp.unwrap_or(0),
            micro_batch: f.micro_batch.unwrap_or(1),
            interleave: f.interleave.unwrap_or(1),
            sequence_parallel: opts.sequence_parallel,
            order: opts.order,
            ..Parallel::default()
        };
        par.validate(w, n)?;
    }
    let recomputes: Vec<Recompute> = match f.recompute {
        Some(r) => vec![r],
        None => Recompute::ALL.to_vec(),
    };
    let zeros: Vec<u8> = match f.zero {
        Some(z) => vec![z],
        None => vec![3, 2, 1, 0],
    };
    // Most frugal settings allowed, for the memory prune.
    let frugal_rc = if recomputes.contains(&Recompute::Full) {
        Recompute::Full
    } else if recomputes.contains(&Recompute::Selective) {
        Recompute::Selective
    } else {
        Recompute::None
    };
    let frugal_zero = *zeros.iter().max().unwrap_or(&0);
    // Reserve for what can come back, not for what was asked: `top` may be any number.
    let mut top = TopK { k: opts.top.max(1), items: Vec::with_capacity(opts.top.clamp(1, 64) + 1) };
    let mut closest: Option<Summary> = None;
    let mut stats = SearchStats::default();
    let kv_ok = |d: &u32| w.heads.is_multiple_of(*d) && w.kv_heads.is_multiple_of(*d) && w.ffn.is_multiple_of(*d) && w.moe.is_none_or(|m| m.expert_ffn % d == 0);
    let tps = pick(f.tp, divisors(n).into_iter().filter(kv_ok).filter(|t| opts.max_tp == 0 || *t <= opts.max_tp).collect());
    for &tp in &tps {
        let cps = pick(f.cp, divisors(n / tp).into_iter().filter(|c| *c == 1 || w.seq.is_multiple_of(2 * c)).collect());
        for &cp in &cps {
            let pps = pick(f.pp, divisors(n / (tp * cp)).into_iter().filter(|p| *p <= w.layers).collect());
            for &pp in &pps {
                let dp = n / (tp * cp * pp);
                if f.dp.is_some_and(|d| d != dp) || !w.global_batch.is_multiple_of(dp) {
                    continue;
                }
                let eps = match w.moe {
                    Some(m) => {
                        let etp = f.expert_tp.filter(|e| *e > 0).unwrap_or(tp);
                        pick(f.ep, divisors(m.experts).into_iter().filter(|e| Parallel::ep_fits(tp, cp, dp, etp, *e, f.expert_tp.is_some())).collect())
                    }
                    None => pick(f.ep, vec![1]),
                };
                for &ep in &eps {
                    let base = Parallel {
                        tp,
                        pp,
                        dp,
                        cp,
                        ep,
                        micro_batch: 1,
                        interleave: 1,
                        recompute: Recompute::Full,
                        zero: 0,
                        sequence_parallel: opts.sequence_parallel,
                        order: opts.order,
                        expert_tp: f.expert_tp.unwrap_or(0),
                    };
                    let layout = ev.layout(&base)?;
                    stats.layouts += 1;
                    let per_replica = w.global_batch / dp;
                    let mbs = pick(f.micro_batch, divisors(per_replica).into_iter().filter(|b| opts.max_micro_batch == 0 || *b <= opts.max_micro_batch).collect());
                    let vs_all = if w.layers.is_multiple_of(pp) { divisors(w.layers / pp) } else { vec![1] };
                    // A pinned interleave may split the layers unevenly (validated as Parallel).
                    let vs_all = match f.interleave {
                        Some(v) if v == 1 || (pp > 1 && pp as u64 * v as u64 <= w.layers as u64) => vec![v],
                        _ => pick(f.interleave, vs_all.into_iter().filter(|v| *v == 1 || pp > 1).collect()),
                    };
                    for (mi, &mb) in mbs.iter().enumerate() {
                        let micro = ev.micro(&layout, mb)?;
                        let m = micro.m;
                        let vs: Vec<u32> = vs_all.iter().copied().filter(|v| *v == 1 || m % pp == 0).collect();
                        let per_branch = (vs.len() * zeros.len()) as u64;
                        // Memory prune over the micro-batch: the most frugal candidate of this
                        // micro-batch does not fit, so no larger micro-batch fits either.
                        if let Some(&v_min) = vs.first() {
                            let frugal = ev.assemble(&layout, &micro, v_min, frugal_rc, frugal_zero);
                            if !frugal.memory.fits {
                                let rest: u64 = mbs[mi..].len() as u64 * recomputes.len() as u64 * per_branch;
                                stats.candidates += rest;
                                stats.unfit += rest;
                                if closest.is_none_or(|c| frugal.memory.total.0 < c.memory.total.0) {
                                    closest = Some(frugal);
                                }
                                break;
                            }
                        }
                        for &rc in &recomputes {
                            stats.candidates += per_branch;
                            let bound = ev.compute_bound(&layout, &micro, rc);
                            if bound >= top.threshold() {
                                stats.pruned_bound += per_branch;
                                continue;
                            }
                            for &v in &vs {
                                for (zi, &z) in zeros.iter().enumerate() {
                                    let s = ev.assemble(&layout, &micro, v, rc, z);
                                    stats.evaluated += 1;
                                    if !s.memory.fits {
                                        // Lower stages only need more memory.
                                        let skipped = (zeros.len() - zi - 1) as u64;
                                        stats.unfit += 1 + skipped;
                                        if closest.is_none_or(|c| s.memory.total.0 < c.memory.total.0) {
                                            closest = Some(s);
                                        }
                                        break;
                                    }
                                    top.push(s);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut best = Vec::with_capacity(top.items.len());
    for s in &top.items {
        best.push(report_for(ev, s)?);
    }
    let closest_unfit = match (&best.is_empty(), closest) {
        (true, Some(c)) => Some(report_for(ev, &c)?),
        _ => None,
    };
    Ok(SearchResult { best, closest_unfit, stats })
}

fn report_for(ev: &mut Evaluator, s: &Summary) -> Result<StepReport> {
    let layout = ev.layout(&s.par)?;
    Ok(ev.report(&layout, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;
    use crate::training::framework::Framework;
    use crate::training::presets::preset;

    #[test]
    fn search_ranks_and_agrees_with_single_evaluation() {
        let w = preset("gpt3-175b").unwrap();
        let topo = Cluster { nodes: 32, ..Cluster::default() }.topology().unwrap();
        let mut ev = Evaluator::new(&topo, &w, Framework::default()).unwrap();
        let r = search(&mut ev, &SearchOptions { top: 5, ..SearchOptions::default() }).unwrap();
        assert_eq!(r.best.len(), 5);
        for pair in r.best.windows(2) {
            assert!(pair[0].step_time_s <= pair[1].step_time_s);
        }
        assert!(r.best.iter().all(|b| b.fits));
        assert!(r.stats.evaluated > 0 && r.stats.candidates >= r.stats.evaluated);
        // The winner re-evaluated alone gives the same step time.
        let best = &r.best[0];
        let mut ev2 = Evaluator::new(&topo, &w, Framework::default()).unwrap();
        let again = ev2.evaluate(&best.mapping).unwrap();
        assert!((again.step_time_s - best.step_time_s).abs() < 1e-12 * best.step_time_s);
        // Exhaustive without the bound prune finds the same winner.
        let mut ev3 = Evaluator::new(&topo, &w, Framework::default()).unwrap();
        let all = search(&mut ev3, &SearchOptions { top: 100_000, ..SearchOptions::default() }).unwrap();
        assert_eq!(all.stats.pruned_bound, 0);
        assert!((all.best[0].step_time_s - best.step_time_s).abs() < 1e-12 * best.step_time_s);
    }

    #[test]
    fn fixed_invalid_layout_is_an_error() {
        let w = preset("gpt3-175b").unwrap();
        let topo = Cluster { nodes: 4, ..Cluster::default() }.topology().unwrap();
        let mut ev = Evaluator::new(&topo, &w, Framework::default()).unwrap();
        let fixed = Constraints { tp: Some(8), pp: Some(2), dp: Some(3), cp: Some(1), ..Constraints::default() };
        let e = search(&mut ev, &SearchOptions { fixed, ..SearchOptions::default() }).unwrap_err();
        assert_eq!(e.field, "dp");
    }
}
