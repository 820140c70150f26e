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
//!
//! The search is resumable ([`Search::run`] stops when its caller says so and continues on
//! the next call), so a page can run it in slices of a few milliseconds; one pass also keeps
//! the best layout under a set of pins and the best per (TP, PP) cell, which is what the
//! explorer's step card and MFU grid show.
//!
//! [`Layout`]: super::step::Layout
//! [`Micro`]: super::step::Micro

use super::framework::Framework;
use super::mapping::{Parallel, RankOrder, Recompute};
use super::step::{Evaluator, StepReport, Summary};
use super::workload::{divisors, Workload};
use crate::error::{ModelError, Result};
use crate::units::Bytes;
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

impl Constraints {
    /// Whether the layout sizes (TP, CP, PP, DP, EP) agree with these pins.
    fn admits_layout(&self, tp: u32, cp: u32, pp: u32, dp: u32, ep: u32) -> bool {
        let ok = |f: Option<u32>, v: u32| f.is_none_or(|x| x == v);
        ok(self.tp, tp) && ok(self.cp, cp) && ok(self.pp, pp) && ok(self.dp, dp) && ok(self.ep, ep)
    }
    /// Whether the micro-batch and recompute agree.
    fn admits_micro(&self, mb: u32, rc: Recompute) -> bool {
        self.micro_batch.is_none_or(|x| x == mb) && self.recompute.is_none_or(|x| x == rc)
    }
    /// Whether the interleave and ZeRO stage agree.
    fn admits_last(&self, v: u32, z: u8) -> bool {
        self.interleave.is_none_or(|x| x == v) && self.zero.is_none_or(|x| x == z)
    }
    /// Only the expert-TP, micro-batch, interleave, recompute and ZeRO pins (what an MFU grid
    /// cell keeps).
    pub fn schedule_only(&self) -> Constraints {
        Constraints {
            expert_tp: self.expert_tp,
            micro_batch: self.micro_batch,
            interleave: self.interleave,
            recompute: self.recompute,
            zero: self.zero,
            ..Constraints::default()
        }
    }
}

/// Virtual pipeline stages per GPU the search tries with `pp` stages: 1 (plain 1F1B), and
/// where `fw`'s pipeline engine interleaves and `pp` > 1, every v that splits the layers into
/// pp x v equal chunks (the divisors of layers / pp). A layout's micro-batch count may rule
/// some out further (`Framework::flexible_interleave`).
pub fn interleave_values(w: &Workload, pp: u32, fw: &Framework) -> Vec<u32> {
    if pp > 1 && fw.pipeline_interleave && w.layers.is_multiple_of(pp) {
        divisors(w.layers / pp)
    } else {
        vec![1]
    }
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
#[serde(default)]
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
    /// Layouts skipped because the model could not cost them (see `SearchResult::invalid`).
    pub invalid: u64,
    /// Layouts that leave GPUs idle because the data-parallel size that would use every GPU
    /// does not divide the global batch.
    pub idle_layouts: u64,
}

/// The ranking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// Best first.
    pub best: Vec<StepReport>,
    /// When nothing fits: the candidate that comes closest.
    pub closest_unfit: Option<StepReport>,
    pub stats: SearchStats,
    /// Why the first skipped layout could not be costed (when any was).
    #[serde(default)]
    pub invalid: Option<String>,
}

impl SearchResult {
    /// Why the search found no layout on `gpus` GPUs, naming the actual cause with numbers
    /// (`None` when it found one): no way to split the GPUs into a layout of this job, no
    /// layout that takes the pinned micro-batch or interleave, layouts the model could not
    /// cost, or every layout out of memory (which term, by how much, after how many layouts).
    pub fn why_none(&self, gpus: u32) -> Option<String> {
        if !self.best.is_empty() {
            return None;
        }
        let gib = |b: Bytes| b.0 as f64 / (1u64 << 30) as f64;
        let st = &self.stats;
        Some(match &self.closest_unfit {
            Some(c) => {
                let (m, mem) = (&c.mapping, &c.memory);
                let mut terms = [
                    ("weights", mem.weights),
                    ("gradients", mem.gradients),
                    ("optimizer states", mem.optimizer),
                    ("activations", mem.activations),
                    ("runtime reserve", mem.reserved),
                ];
                crate::sorting::sort_short_by(&mut terms, |a, b| b.1 .0.cmp(&a.1 .0));
                let (name, big) = terms[0];
                format!(
                    "No layout fits in GPU memory: the closest (TP {} x PP {} x DP {} x CP {}, ZeRO {}, {} recompute) needs {:.1} GiB per GPU of {:.0} GiB, {:.1} GiB over; its largest term is {name} at {:.1} GiB (after trying {} layouts, {} candidates); use more GPUs or a smaller job.",
                    m.tp,
                    m.pp,
                    m.dp,
                    m.cp,
                    m.zero,
                    m.recompute.id(),
                    c.memory_gib_per_gpu,
                    gib(mem.capacity),
                    gib(mem.over()),
                    gib(big),
                    st.layouts,
                    st.candidates
                )
            }
            None if st.layouts == 0 && st.invalid > 0 => format!(
                "None of the {} layouts tried could be costed; the first: {}",
                st.invalid,
                self.invalid.as_deref().unwrap_or("(no reason given)")
            ),
            None if st.layouts == 0 => format!(
                "No parallel layout of this job divides the {gpus} GPUs: TP must divide the attention and key/value heads and the feed-forward size, PP be at most the layers, CP divide half the sequence and DP the global batch (leaving at most half the GPUs idle), with any pinned size as given; change the GPU count or the job's sizes."
            ),
            None => format!("{} layouts divide the {gpus} GPUs, but none takes the pinned micro-batch or interleave; leave them to the search.", st.layouts),
        })
    }
}

/// Keeps the K fastest summaries, sorted.
struct TopK {
    k: usize,
    items: Vec<Summary>,
}

impl TopK {
    fn new(k: usize) -> TopK {
        // Reserve for what can come back, not for what was asked: `k` may be any number.
        TopK { k: k.max(1), items: Vec::with_capacity(k.clamp(1, 64) + 1) }
    }
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

/// One (TP, CP, PP, DP, EP) layout of the search space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutSizes {
    pub tp: u32,
    pub cp: u32,
    pub pp: u32,
    pub dp: u32,
    pub ep: u32,
}

impl LayoutSizes {
    pub fn gpus(&self) -> u32 {
        self.tp * self.cp * self.pp * self.dp
    }
}

/// Every (TP, CP, PP, DP, EP) the search tries for `w` on `n` GPUs under `f`: TP dividing the
/// heads, KV heads and FFN sizes; CP dividing half the sequence; PP at most the layers; DP the
/// rest of the GPUs; EP dividing the experts and, with the expert TP [`Parallel::etp`] takes
/// (1 unless pinned: folded over TP x CP x DP), the stage's GPUs. When no such layout uses
/// every GPU (DP never divides the global batch, e.g. 127 nodes), DP is instead the largest
/// that divides the batch and the remaining GPUs stay idle, as long as at least half the GPUs
/// are used. The explorer's pickers offer exactly the sizes listed here, so nothing is shown
/// that they cannot show.
pub fn layout_space(n: u32, w: &Workload, f: &Constraints, max_tp: u32) -> Vec<LayoutSizes> {
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let kv_ok =
        |d: &u32| w.heads.is_multiple_of(*d) && w.kv_heads.is_multiple_of(*d) && w.ffn.is_multiple_of(*d) && w.moe.is_none_or(|m| m.expert_ffn % d == 0);
    let batch_divs = divisors(w.global_batch.max(1));
    let experts = w.moe.map(|m| divisors(m.experts));
    for tp in pick(f.tp, divisors(n).into_iter().filter(kv_ok).filter(|t| max_tp == 0 || *t <= max_tp).collect()) {
        for cp in pick(f.cp, divisors(n / tp).into_iter().filter(|c| *c == 1 || w.seq.is_multiple_of(2 * c)).collect()) {
            for pp in pick(f.pp, divisors(n / (tp * cp)).into_iter().filter(|p| *p <= w.layers).collect()) {
                let full = n / (tp * cp * pp);
                let dp = largest_dp_of(&batch_divs, full);
                if dp == 0 {
                    continue;
                }
                if f.dp.is_some_and(|d| d != dp) {
                    continue;
                }
                match &experts {
                    Some(es) => {
                        // The expert TP as `Parallel::etp` takes it (unset: 1 with EP).
                        let fits = |e: u32| Parallel::ep_fits(tp, cp, dp, Parallel::expert_tp_of(tp, e, f.expert_tp.unwrap_or(0)), e);
                        for &ep in es.iter().filter(|e| fits(**e) && f.ep.is_none_or(|x| x == **e)) {
                            out.push(LayoutSizes { tp, cp, pp, dp, ep });
                        }
                    }
                    None if f.ep.is_none_or(|x| x == 1) => out.push(LayoutSizes { tp, cp, pp, dp, ep: 1 }),
                    None => {}
                }
            }
        }
    }
    if out.iter().any(|l| l.gpus() == n) {
        out.retain(|l| l.gpus() == n);
    } else {
        // Leaving most of the cluster idle is no answer for it.
        out.retain(|l| 2 * l.gpus() as u64 >= n as u64);
    }
    out
}

/// A search under way: the layouts still to try and the best found so far.
pub struct Search {
    items: Vec<LayoutSizes>,
    next: usize,
    opts: SearchOptions,
    recomputes: Vec<Recompute>,
    zeros: Vec<u8>,
    frugal_rc: Recompute,
    frugal_zero: u8,
    top: TopK,
    closest: Option<Summary>,
    /// Best layout under a second set of pins, and its closest unfit candidate.
    pinned: Option<(Constraints, TopK, Option<Summary>)>,
    /// Best per (TP, PP) under a third set of pins.
    cells: Option<(Constraints, Vec<((u32, u32), Summary)>)>,
    stats: SearchStats,
    invalid: Option<String>,
    /// Micro-batch index to resume the current layout at (a slice ended inside it).
    resume_mb: usize,
}

/// What a finished [`Search`] found beside the ranking.
pub struct Finished {
    pub result: SearchResult,
    /// The best layout under the pins given to [`Search::with_pinned`] (or its closest unfit).
    pub pinned: Option<StepReport>,
    /// The best layout per (TP, PP) under the pins given to [`Search::with_cells`].
    pub cells: Vec<((u32, u32), StepReport)>,
}

impl Search {
    /// Prepares the search of `opts` for `w` on `n` GPUs.
    pub fn new(w: &Workload, n: u32, opts: &SearchOptions) -> Result<Search> {
        Self::new_for(w, n, opts, &Framework::default())
    }

    /// [`Search::new`] under a framework's pipeline schedule ([`Parallel::validate_for`]).
    pub fn new_for(w: &Workload, n: u32, opts: &SearchOptions, fw: &Framework) -> Result<Search> {
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
            par.validate_for(w, n, fw)?;
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
        let items = layout_space(n, w, f, opts.max_tp);
        Ok(Search {
            items,
            next: 0,
            opts: *opts,
            recomputes,
            zeros,
            frugal_rc,
            frugal_zero,
            top: TopK::new(opts.top),
            closest: None,
            pinned: None,
            cells: None,
            stats: SearchStats::default(),
            invalid: None,
            resume_mb: 0,
        })
    }

    /// Also keeps the best layout under `pins` (which must be at least as strict as the
    /// search's own `fixed`).
    pub fn with_pinned(mut self, pins: Constraints) -> Search {
        self.pinned = Some((pins, TopK::new(1), None));
        self
    }

    /// Also keeps the best layout of every (TP, PP) under `pins`.
    pub fn with_cells(mut self, pins: Constraints) -> Search {
        self.cells = Some((pins, Vec::new()));
        self
    }

    /// Layouts tried and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.items.len())
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.items.len()
    }

    /// Tries layouts until all are done or `more()` returns false (asked after each layout and
    /// between the micro-batch sizes of one, so a slice stays short on the largest jobs);
    /// returns whether the search is done.
    pub fn run(&mut self, ev: &mut Evaluator, more: &mut dyn FnMut() -> bool) -> bool {
        while self.next < self.items.len() {
            let l = self.items[self.next];
            if let Some(mi) = self.try_layout(ev, l, self.resume_mb, more) {
                self.resume_mb = mi;
                return false;
            }
            self.next += 1;
            self.resume_mb = 0;
            if !more() {
                break;
            }
        }
        self.is_done()
    }

    fn note_invalid(&mut self, l: LayoutSizes, e: &ModelError) {
        self.stats.invalid += 1;
        if self.invalid.is_none() {
            self.invalid = Some(format!("TP{} PP{} DP{} CP{} EP{}: {}", l.tp, l.pp, l.dp, l.cp, l.ep, e.message));
        }
    }

    fn cell_threshold(&self, tp: u32, pp: u32) -> f64 {
        match &self.cells {
            Some((_, cells)) => cells.iter().find(|(k, _)| *k == (tp, pp)).map_or(f64::INFINITY, |(_, s)| s.step.0),
            None => f64::NEG_INFINITY,
        }
    }

    fn push(&mut self, s: Summary, pin_ok: bool, cell_ok: bool) {
        if pin_ok {
            if let Some((_, t, _)) = &mut self.pinned {
                t.push(s);
            }
        }
        if cell_ok {
            if let Some((_, cells)) = &mut self.cells {
                let key = (s.par.tp, s.par.pp);
                match cells.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, best)) if s.step.0 < best.step.0 => *best = s,
                    Some(_) => {}
                    None => cells.push((key, s)),
                }
            }
        }
        self.top.push(s);
    }

    fn note_unfit(&mut self, s: Summary, pin_ok: bool) {
        if self.closest.is_none_or(|c| s.memory.total.0 < c.memory.total.0) {
            self.closest = Some(s);
        }
        if pin_ok {
            if let Some((_, _, c)) = &mut self.pinned {
                if c.is_none_or(|c| s.memory.total.0 < c.memory.total.0) {
                    *c = Some(s);
                }
            }
        }
    }

    /// Tries layout `l` from its `from_mb`-th micro-batch size on; returns the index to resume
    /// from when `more()` asked to stop before the last size.
    fn try_layout(&mut self, ev: &mut Evaluator, l: LayoutSizes, from_mb: usize, more: &mut dyn FnMut() -> bool) -> Option<usize> {
        let w = ev.work;
        let LayoutSizes { tp, cp, pp, dp, ep } = l;
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
            sequence_parallel: self.opts.sequence_parallel,
            order: self.opts.order,
            expert_tp: self.opts.fixed.expert_tp.unwrap_or(0),
        };
        let layout = match ev.layout(&base) {
            Ok(x) => x,
            Err(e) => {
                self.note_invalid(l, &e);
                return None;
            }
        };
        if from_mb == 0 {
            self.stats.layouts += 1;
            if l.gpus() < ev.topo.total_gpus {
                self.stats.idle_layouts += 1;
            }
        }
        let f = self.opts.fixed;
        let pin_layout = self.pinned.as_ref().is_some_and(|(p, _, _)| p.admits_layout(tp, cp, pp, dp, ep));
        let per_replica = w.global_batch / dp;
        let mbs =
            pick(f.micro_batch, divisors(per_replica).into_iter().filter(|b| self.opts.max_micro_batch == 0 || *b <= self.opts.max_micro_batch).collect());
        let vs_all = interleave_values(w, pp, &Framework { pipeline_interleave: true, ..ev.fw });
        // A pinned interleave may split the layers unevenly (validated as Parallel).
        let vs_all = match f.interleave {
            Some(v) if v == 1 || (pp > 1 && pp as u64 * v as u64 <= w.layers as u64) => vec![v],
            _ => pick(f.interleave, vs_all),
        };
        let (recomputes, zeros) = (self.recomputes.clone(), self.zeros.clone());
        for (mi, &mb) in mbs.iter().enumerate().skip(from_mb) {
            if mi > from_mb && !more() {
                return Some(mi);
            }
            let micro = match ev.micro(&layout, mb) {
                Ok(m) => m,
                Err(e) => {
                    self.note_invalid(l, &e);
                    continue;
                }
            };
            let m = micro.m;
            let vs: Vec<u32> = vs_all.iter().copied().filter(|v| *v == 1 || (ev.fw.pipeline_interleave && (m % pp == 0 || ev.fw.flexible_interleave))).collect();
            let per_branch = (vs.len() * zeros.len()) as u64;
            // Memory prune over the micro-batch: the most frugal candidate of this
            // micro-batch does not fit, so no larger micro-batch fits either.
            if let Some(&v_min) = vs.first() {
                let frugal = ev.assemble(&layout, &micro, v_min, self.frugal_rc, self.frugal_zero);
                if !frugal.memory.fits {
                    let rest: u64 = mbs[mi..].len() as u64 * recomputes.len() as u64 * per_branch;
                    self.stats.candidates += rest;
                    self.stats.unfit += rest;
                    self.note_unfit(frugal, pin_layout);
                    break;
                }
            }
            for &rc in &recomputes {
                self.stats.candidates += per_branch;
                let pin_ok = pin_layout && self.pinned.as_ref().is_some_and(|(p, _, _)| p.admits_micro(mb, rc));
                let cell_ok = self.cells.as_ref().is_some_and(|(p, _)| p.admits_layout(tp, cp, pp, dp, ep) && p.admits_micro(mb, rc));
                // Prune only when no tracker this candidate could enter would take it.
                let mut threshold = self.top.threshold();
                if pin_ok {
                    threshold = threshold.max(self.pinned.as_ref().map_or(f64::NEG_INFINITY, |(_, t, _)| t.threshold()));
                }
                if cell_ok {
                    threshold = threshold.max(self.cell_threshold(tp, pp));
                }
                let bound = ev.compute_bound(&layout, &micro, rc);
                if bound >= threshold {
                    self.stats.pruned_bound += per_branch;
                    continue;
                }
                for &v in &vs {
                    for (zi, &z) in zeros.iter().enumerate() {
                        let s = ev.assemble(&layout, &micro, v, rc, z);
                        self.stats.evaluated += 1;
                        let pin_last = pin_ok && self.pinned.as_ref().is_some_and(|(p, _, _)| p.admits_last(v, z));
                        let cell_last = cell_ok && self.cells.as_ref().is_some_and(|(p, _)| p.admits_last(v, z));
                        if !s.memory.fits {
                            // Lower stages only need more memory.
                            let skipped = (zeros.len() - zi - 1) as u64;
                            self.stats.unfit += 1 + skipped;
                            self.note_unfit(s, pin_last);
                            break;
                        }
                        self.push(s, pin_last, cell_last);
                    }
                }
            }
        }
        None
    }

    /// The reports of what the search found.
    pub fn finish(self, ev: &mut Evaluator) -> Result<Finished> {
        let mut best = Vec::with_capacity(self.top.items.len());
        for s in &self.top.items {
            best.push(report_for(ev, s)?);
        }
        let closest_unfit = match (best.is_empty(), self.closest) {
            (true, Some(c)) => Some(report_for(ev, &c)?),
            _ => None,
        };
        let pinned = match self.pinned {
            Some((_, t, c)) => match t.items.first().or(c.as_ref()) {
                Some(s) => Some(report_for(ev, s)?),
                None => None,
            },
            None => None,
        };
        let mut cells = Vec::new();
        if let Some((_, cs)) = self.cells {
            for (k, s) in cs {
                cells.push((k, report_for(ev, &s)?));
            }
        }
        Ok(Finished { result: SearchResult { best, closest_unfit, stats: self.stats, invalid: self.invalid }, pinned, cells })
    }
}

/// Runs the search for `ev`'s job on `ev`'s cluster.
pub fn search(ev: &mut Evaluator, opts: &SearchOptions) -> Result<SearchResult> {
    let mut s = Search::new_for(ev.work, ev.topo.total_gpus, opts, &ev.fw)?;
    s.run(ev, &mut || true);
    Ok(s.finish(ev)?.result)
}

/// GPUs a layout leaves idle on `total` (its DP does not use them because the one that would
/// does not divide the global batch).
pub fn idle_gpus(total: u32, r: &StepReport) -> u32 {
    total.saturating_sub(r.mapping.gpus().min(total as u64) as u32)
}

/// One sentence (with its full stop) saying what a layout that leaves GPUs idle does, or
/// `None` when it uses all.
pub fn idle_note(total: u32, w: &Workload, r: &StepReport) -> Option<String> {
    let idle = idle_gpus(total, r);
    (idle > 0).then(|| {
        let m = &r.mapping;
        let full = total / (m.tp * m.pp * m.cp).max(1);
        format!(
            "{idle} of {total} GPUs stay idle: DP {full} would use them all, but it does not divide the global batch of {} sequences, so DP is {} (the largest that does) on {} GPUs; MFU counts the idle GPUs.",
            w.global_batch,
            m.dp,
            m.gpus()
        )
    })
}

/// The largest DP not above `full` that divides the global batch `batch` (`full` itself when
/// it does; 0 when none).
pub fn largest_dp(full: u32, batch: u32) -> u32 {
    largest_dp_of(&divisors(batch.max(1)), full)
}

fn largest_dp_of(batch_divisors: &[u32], full: u32) -> u32 {
    batch_divisors.iter().rev().copied().find(|d| *d <= full).unwrap_or(0)
}

/// Evaluates one layout that may leave GPUs idle (`par.gpus()` at most the cluster's).
pub fn evaluate_idle(ev: &mut Evaluator, par: &Parallel) -> Result<StepReport> {
    let total = ev.topo.total_gpus;
    if par.gpus() > total as u64 {
        return Err(ModelError::new("dp", format!("the layout needs {} GPUs; the cluster has {total}", par.gpus())));
    }
    par.validate_for(ev.work, par.gpus() as u32, &ev.fw)?;
    let layout = ev.layout(par)?;
    let micro = ev.micro(&layout, par.micro_batch)?;
    let s = ev.assemble(&layout, &micro, par.interleave, par.recompute, par.zero);
    Ok(ev.report(&layout, &s))
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
