//! The training view of a scenario: the job (a preset or custom sizes), the layout the user
//! pinned (or the search's best), the search's top layouts, the MFU of the best layout for
//! each TP x PP, and the training rules of thumb. What the explorer's training panels, the
//! CLI's `render` and the embeds show, computed in one place.
//!
//! The work is split in stages ([`start`], [`fill_row`], [`answer_rules`]) so a UI can show
//! the first answer before the whole MFU grid is done; [`explore`] runs them all.

use super::mapping::{Parallel, Recompute};
use super::presets::{preset, preset_ids};
use super::workload::gpt;
use super::rules::{rule_search, rules_of_thumb, rules_with, RuleOfThumb};
use super::search::{evaluate_idle, interleave_values, idle_gpus, idle_note, largest_dp, layout_space, Constraints, LayoutSizes, Search, SearchOptions};
use super::step::{Evaluator, EvaluatorCaches, StepReport};
use super::workload::{divisors, Moe, Workload};
use super::{search_layouts, Framework};
use crate::error::{ModelError, Result};
use crate::scenario::TrainingChoice;
use crate::topology::{Cluster, Topology};
use crate::units::Bytes;
use serde::Serialize;

/// Workload shown first: small enough to fit anywhere from one node up.
pub const DEFAULT_WORKLOAD: &str = "llama3-8b";
/// Layouts listed beside the chosen one.
pub const TOP: usize = 5;

/// Prefix of a custom workload id:
/// `custom:<layers>:<hidden>:<heads>:<global batch>[:<sequence>[:<experts>:<top-k>]]`, a
/// GPT-style model (ffn 4h, GeLU, vocabulary 51,200) of those sizes; sequence 2,048 when
/// absent; with experts > 0 every layer's MLP is a mixture of that many experts of ffn 4h,
/// each token routed to top-k of them.
pub const CUSTOM: &str = "custom";

/// Field names and labels of the custom sizes, in id order.
pub const CUSTOM_FIELDS: [(&str, &str); 7] = [
    ("layers", "Layers"),
    ("hidden", "Hidden size"),
    ("heads", "Heads"),
    ("global_batch", "Global batch"),
    ("seq", "Sequence"),
    ("experts", "Experts"),
    ("top_k", "Top-k"),
];

/// The default custom sizes: GPT 7.5B of Narayanan et al. 2021 (Table 1), dense.
pub const CUSTOM_DEFAULT: [u32; 7] = [36, 4096, 32, 512, 2048, 0, 2];

/// The custom id for these sizes, as typed (so a bad entry stays visible and blamed).
pub fn custom_id(parts: &[String]) -> String {
    format!("{CUSTOM}:{}", parts.join(":"))
}

/// The seven parts of a custom id, as typed; the optional ones filled with their defaults.
pub fn custom_parts(id: &str) -> Option<[String; 7]> {
    let rest = id.strip_prefix(CUSTOM)?.strip_prefix(':')?;
    let v: Vec<&str> = rest.split(':').collect();
    if !matches!(v.len(), 4 | 5 | 7) {
        return None;
    }
    Some(std::array::from_fn(|i| v.get(i).map_or_else(|| CUSTOM_DEFAULT[i].to_string(), |s| s.to_string())))
}

/// The workload of a preset id or a custom id; errors name the field at fault.
pub fn workload(id: &str) -> Result<Workload> {
    if let Some(parts) = custom_parts(id) {
        let mut n = [0u32; 7];
        for (i, p) in parts.iter().enumerate() {
            let (field, label) = CUSTOM_FIELDS[i];
            n[i] = p.trim().parse().map_err(|_| ModelError::new(field, format!("{label}: enter a whole number, got \"{}\"", p.trim())))?;
        }
        let [layers, hidden, heads, batch, seq, experts, top_k] = n;
        let mut w = gpt("custom", layers, hidden, heads, batch);
        w.seq = seq;
        if experts > 0 {
            if top_k == 0 || top_k > experts {
                return Err(ModelError::new("top_k", format!("Top-k: each token goes to 1 to {experts} experts, got {top_k}")));
            }
            w.moe = Some(Moe { experts, top_k, expert_ffn: w.ffn, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 });
        }
        w.validate()?;
        return Ok(w);
    }
    preset(id).ok_or_else(|| {
        ModelError::new(
            "workload",
            format!("unknown workload '{id}'; allowed: {}, or custom:<layers>:<hidden>:<heads>:<batch>[:<seq>[:<experts>:<top-k>]]", preset_ids().join(", ")),
        )
    })
}

/// The search's layout space with nothing pinned: what the pickers offer.
fn space(total: u32, w: &Workload) -> Vec<LayoutSizes> {
    layout_space(total, w, &Constraints::default(), 0)
}

fn distinct(v: Vec<u32>) -> Vec<u32> {
    crate::sorting::sorted_distinct(v)
}

/// TP sizes the search tries (the same rule: [`layout_space`]), so a picker offers exactly the
/// sizes a searched layout can have.
pub fn tp_values(total: u32, w: &Workload) -> Vec<u32> {
    distinct(space(total, w).iter().map(|l| l.tp).collect())
}

/// PP sizes the search tries with `tp`.
pub fn pp_values(total: u32, tp: u32, w: &Workload) -> Vec<u32> {
    distinct(space(total, w).iter().filter(|l| l.tp == tp).map(|l| l.pp).collect())
}

/// CP sizes the search tries with `tp` x `pp`.
pub fn cp_values(total: u32, w: &Workload, tp: u32, pp: u32) -> Vec<u32> {
    distinct(space(total, w).iter().filter(|l| l.tp == tp && l.pp == pp).map(|l| l.cp).collect())
}

/// EP sizes the search tries with `tp`, `pp`, `cp` (1 for dense models).
pub fn ep_values(total: u32, w: &Workload, tp: u32, pp: u32, cp: u32) -> Vec<u32> {
    if w.moe.is_none() {
        return vec![1];
    }
    distinct(space(total, w).iter().filter(|l| (l.tp, l.pp, l.cp) == (tp, pp, cp)).map(|l| l.ep).collect())
}

/// The data-parallel size the search gives `tp` x `pp` x `cp` (the largest that divides the
/// global batch and fits the GPUs), if it tries them at all.
pub fn dp_value(total: u32, w: &Workload, tp: u32, pp: u32, cp: u32) -> Option<u32> {
    space(total, w).iter().find(|l| (l.tp, l.pp, l.cp) == (tp, pp, cp)).map(|l| l.dp)
}

/// Largest micro-batch the explorer's search and its picker consider (sequences).
pub const MAX_MICRO_BATCH: u32 = 64;

/// Micro-batch sizes (sequences) that divide each data-parallel replica's share of the global
/// batch, up to [`MAX_MICRO_BATCH`], as the search tries them; with `dp` unknown (TP, PP, CP
/// searched), those dividing the global batch.
pub fn micro_batch_values(w: &Workload, dp: Option<u32>) -> Vec<u32> {
    let share = match dp {
        Some(d) if d > 0 && w.global_batch.is_multiple_of(d) => w.global_batch / d,
        Some(_) => return Vec::new(),
        None => w.global_batch,
    };
    divisors(share).into_iter().filter(|b| *b <= MAX_MICRO_BATCH).collect()
}

/// ZeRO stages offered: 0 none, 1 optimizer states (Megatron's distributed optimizer), 2 and
/// gradients, 3 and parameters (FSDP).
pub const ZERO_STAGES: [u8; 4] = [0, 1, 2, 3];

/// The training software of a choice (its `framework` id); an unknown id is an error naming
/// the field and the ids allowed.
pub fn framework_of(choice: &TrainingChoice) -> Result<Framework> {
    Framework::from_id(&choice.framework)
        .ok_or_else(|| ModelError::new("framework", format!("unknown framework '{}'; allowed: {}", choice.framework, Framework::ids().join(", "))))
}

/// Framework ids and names for a picker, in [`Framework::ids`] order.
pub fn framework_ids() -> Vec<&'static str> {
    Framework::ids().to_vec()
}

/// Virtual pipeline stages a picker offers with `pp` stages under `fw` (the search's own
/// rule: [`interleave_values`]).
pub fn interleave_choices(w: &Workload, pp: u32, fw: &Framework) -> Vec<u32> {
    interleave_values(w, pp, fw)
}

/// Whether a pinned interleave is one the search can take: with PP pinned, one of
/// [`interleave_values`] for it; with PP searched, 1 or (where `fw` interleaves) any.
/// The error names the field and the values allowed.
pub fn check_interleave(fixed: &Constraints, w: &Workload, fw: &Framework) -> Result<()> {
    let Some(v) = fixed.interleave else { return Ok(()) };
    crate::limits::INTERLEAVE.check_u32(v)?;
    let allowed = match fixed.pp {
        Some(pp) => interleave_values(w, pp, fw),
        None if fw.pipeline_interleave => return Ok(()),
        None => vec![1],
    };
    if allowed.contains(&v) {
        return Ok(());
    }
    let list = allowed.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    let why = match fixed.pp {
        _ if !fw.pipeline_interleave => format!("{}'s pipeline engine runs plain 1F1B", fw.name),
        Some(pp) => format!("with pp {pp}, v must divide the {} layers / pp into equal chunks", w.layers),
        None => String::new(),
    };
    Err(ModelError::new("interleave", format!("{v} virtual stages per GPU cannot be used: {why}; allowed: {list}, or auto")))
}

/// What the search must keep fixed for a scenario's training choice on `total` GPUs: with
/// `best`, only the micro-batch, recompute and ZeRO the user pinned; otherwise also TP, PP,
/// CP and EP, each brought down to the nearest size the cluster and workload allow.
pub fn constraints(choice: &TrainingChoice, total: u32, w: &Workload) -> Constraints {
    let mut c = Constraints {
        micro_batch: (choice.micro_batch > 0).then_some(choice.micro_batch),
        recompute: choice.recompute,
        zero: choice.zero.filter(|z| ZERO_STAGES.contains(z)),
        interleave: choice.interleave,
        ..Constraints::default()
    };
    if choice.best {
        return c;
    }
    // The largest valid size not above the request, else the smallest valid one.
    let near = |vals: Vec<u32>, want: u32| vals.iter().copied().filter(|v| *v <= want.max(1)).max().or(vals.first().copied()).unwrap_or(1);
    let tp = near(tp_values(total, w), choice.tp);
    let pp = near(pp_values(total, tp, w), choice.pp);
    let cp = near(cp_values(total, w, tp, pp), choice.cp);
    let ep = near(ep_values(total, w, tp, pp, cp), choice.ep);
    (c.tp, c.pp, c.cp, c.ep) = (Some(tp), Some(pp), Some(cp), Some(ep));
    c
}

/// The pinned sizes of `choice` that [`constraints`] replaces because this job cannot run them
/// on `total` GPUs: one line per size, naming the scenario field, what was asked, the allowed
/// sizes and what is run instead (`training.tp 3 cannot run ...; allowed: 1, 2, 4, 8; run with 2`).
/// Empty when the layout is searched (`best`) or every pinned size runs as asked.
pub fn pinned_replaced(choice: &TrainingChoice, total: u32, w: &Workload) -> Vec<String> {
    let c = constraints(choice, total, w);
    if choice.best {
        return Vec::new();
    }
    let (tp, pp, cp) = (c.tp.unwrap_or(1), c.pp.unwrap_or(1), c.cp.unwrap_or(1));
    let list = |v: Vec<u32>| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    [
        ("tp", choice.tp, c.tp, tp_values(total, w)),
        ("pp", choice.pp, c.pp, pp_values(total, tp, w)),
        ("cp", choice.cp, c.cp, cp_values(total, w, tp, pp)),
        ("ep", choice.ep, c.ep, ep_values(total, w, tp, pp, cp)),
    ]
    .into_iter()
    .filter_map(|(f, asked, got, allowed)| {
        let got = got?;
        (got != asked).then(|| format!("training.{f} {asked} cannot run this job on {total} GPUs (allowed: {}); run with {got}", list(allowed)))
    })
    .collect()
}

/// Everything the training panels show for one (cluster, workload, constraints).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainingView {
    pub workload: String,
    /// What the user pinned (the rest was searched).
    pub fixed: Constraints,
    /// The best layout under `fixed` (or, if nothing fits, the closest one).
    pub chosen: Option<StepReport>,
    /// The search's best layouts with nothing pinned.
    pub top: Vec<StepReport>,
    /// Columns (TP) and rows (PP) of the MFU grid.
    pub tps: Vec<u32>,
    pub pps: Vec<u32>,
    /// MFU of the best layout per (PP row, TP column), row-major; None when nothing fits.
    pub mfu: Vec<Option<f64>>,
    pub rules: Vec<RuleOfThumb>,
    /// Candidates the search looked at.
    pub candidates: u64,
    /// (TP, CP, PP, DP, EP) layouts the search costed.
    pub layouts: u64,
    /// GPUs the chosen layout leaves idle (its DP is the largest that divides the batch).
    pub idle_gpus: u32,
    /// One sentence on the chosen layout when it is not the plain answer: GPUs left idle,
    /// or why nothing fits (with numbers).
    pub note: Option<String>,
    /// The layouts were carried over from another cluster's search ([`carry_over`]), not
    /// searched for this one: the ranking, MFU grid and rules may be out of date.
    pub carried: bool,
    /// For an MoE job with EP > 1: where the chosen layout's EP groups sit and their
    /// dispatch/combine cost per layer.
    pub moe: Option<super::moe_view::MoeView>,
    /// The chosen layout under failures (default policy): the sentence's numbers (ETTR and its
    /// interval, MTTF, shares of stops). Not serialized with the view (the pages never send it):
    /// `fabricscope eval` prints the whole goodput report beside the view.
    #[serde(skip)]
    pub goodput: Option<crate::goodput::Summary>,
}

impl TrainingView {
    /// Whether the pinned values leave TP, PP, CP and EP to the search.
    pub fn is_best(&self) -> bool {
        self.fixed.tp.is_none()
    }
}

fn best_with(topo: &Topology, w: &Workload, fixed: Constraints, top: usize) -> Result<(Vec<StepReport>, Option<StepReport>, u64)> {
    let r = search_layouts(topo, w, Framework::default(), &SearchOptions { top, fixed, max_micro_batch: MAX_MICRO_BATCH, ..SearchOptions::default() })?;
    Ok((r.best, r.closest_unfit, r.stats.candidates))
}

/// The explorer's search under way: one pass over the layout space that keeps the top
/// layouts, the best under the user's pins and the best per (TP, PP) for the MFU grid.
/// [`Staged::run`] works until its caller says stop, so a page can run it in slices.
pub struct Staged {
    workload_id: String,
    w: Workload,
    fw: Framework,
    fixed: Constraints,
    search: Search,
    pub(crate) caches: EvaluatorCaches,
}

impl Staged {
    pub fn new(topo: &Topology, workload_id: &str, fixed: Constraints) -> Result<Staged> {
        Self::new_for(topo, workload_id, fixed, Framework::default())
    }

    /// [`Staged::new`] under the training software `fw`: its overlaps and its pipeline
    /// schedules (only layouts it can run are searched).
    pub fn new_for(topo: &Topology, workload_id: &str, fixed: Constraints, fw: Framework) -> Result<Staged> {
        let w = workload(workload_id)?;
        // Fails early on a job the cluster's GPU cannot run (e.g. FP8 on A100).
        Evaluator::new(topo, &w, fw)?;
        check_interleave(&fixed, &w, &fw)?;
        let mut search =
            Search::new_for(&w, topo.total_gpus, &SearchOptions { top: TOP, max_micro_batch: MAX_MICRO_BATCH, ..SearchOptions::default() }, &fw)?
                .with_cells(fixed.schedule_only());
        if fixed != Constraints::default() {
            search = search.with_pinned(fixed);
        }
        Ok(Staged { workload_id: workload_id.to_string(), w, fw, fixed, search, caches: EvaluatorCaches::default() })
    }

    /// Layouts tried and in all.
    pub fn progress(&self) -> (usize, usize) {
        self.search.progress()
    }

    /// Searches until done or `more()` says stop; returns whether the search is done.
    /// `topo` must be the cluster the search was started on (the caches carried between
    /// slices hold its communicators).
    // One copy for every caller (the explorer's search and the embed's): ~0.6 KB of wasm.
    #[inline(never)]
    pub fn run(&mut self, topo: &Topology, more: &mut dyn FnMut() -> bool) -> Result<bool> {
        let mut ev = Evaluator::new(topo, &self.w, self.fw)?.with_caches(std::mem::take(&mut self.caches));
        let done = self.search.run(&mut ev, more);
        self.caches = ev.into_caches();
        Ok(done)
    }

    /// The training view (rules not answered yet: [`answer_rules`]).
    pub fn finish(self, topo: &Topology) -> Result<TrainingView> {
        Ok(self.finish_keeping_caches(topo)?.0)
    }

    /// [`Staged::finish`], also handing back what the evaluator cached (for [`StagedRules`],
    /// whose searches are of the same job on the same cluster).
    pub fn finish_keeping_caches(mut self, topo: &Topology) -> Result<(TrainingView, EvaluatorCaches)> {
        let mut ev = Evaluator::new(topo, &self.w, self.fw)?.with_caches(std::mem::take(&mut self.caches));
        self.search.run(&mut ev, &mut || true);
        let total = topo.total_gpus;
        let f = self.search.finish(&mut ev)?;
        let r = f.result;
        let chosen = if self.fixed == Constraints::default() { r.best.first().cloned().or(r.closest_unfit.clone()) } else { f.pinned };
        let sp = space(total, &self.w);
        let tps = distinct(sp.iter().map(|l| l.tp).collect());
        let pps = distinct(sp.iter().map(|l| l.pp).collect());
        let mut mfu = vec![None; tps.len() * pps.len()];
        for ((tp, pp), rep) in &f.cells {
            if let (Some(i), Some(j)) = (tps.iter().position(|t| t == tp), pps.iter().position(|p| p == pp)) {
                mfu[j * tps.len() + i] = Some(rep.mfu);
            }
        }
        let idle_gpus = chosen.as_ref().map_or(0, |c| idle_gpus(total, c));
        let note = match &chosen {
            Some(c) if c.fits => idle_note(total, &self.w, c),
            _ => r.why_none(total).or_else(|| {
                chosen.as_ref().map(|c| {
                    format!(
                        "The pinned layout does not fit: it needs {:.1} GiB per GPU of {:.1} GiB.",
                        c.memory.total_gib(),
                        c.memory.capacity.0 as f64 / (1u64 << 30) as f64
                    )
                })
            }),
        };
        let view = TrainingView {
            workload: self.workload_id,
            fixed: self.fixed,
            chosen,
            top: r.best,
            tps,
            pps,
            mfu,
            rules: Vec::new(),
            candidates: r.stats.candidates,
            layouts: r.stats.layouts,
            idle_gpus,
            note,
            carried: false,
            moe: None,
            goodput: None,
        };
        let goodput = view.chosen.as_ref().filter(|c| c.fits).map(|c| crate::goodput::summary_of_step(topo, self.w.params(), c));
        let view = TrainingView { moe: view.chosen.as_ref().and_then(|c| super::moe_view::moe_view(topo, &self.w, c)), goodput, ..view };
        Ok((view, ev.into_caches()))
    }
}

/// The rules of thumb answered in slices: each search a rule asks for runs as a [`Search`]
/// that [`StagedRules::run`] advances until its caller says stop; a rule whose search has
/// not run yet is asked again once it has.
pub struct StagedRules {
    w: Workload,
    fw: Framework,
    /// Searches done: (cluster, pins) and their best layout.
    done: Vec<(Cluster, Constraints, Option<StepReport>)>,
    /// The search under way, on its own cluster (a rule may ask about a variant).
    pending: Option<(Topology, Constraints, Search)>,
    /// What the evaluators cached, per cluster (the rules' searches share communicators).
    caches: Vec<(Cluster, EvaluatorCaches)>,
    rules: Option<Vec<RuleOfThumb>>,
}

impl StagedRules {
    pub fn new(workload_id: &str) -> Result<StagedRules> {
        Self::new_for(workload_id, Framework::default())
    }

    /// [`StagedRules::new`] under the training software `fw`.
    pub fn new_for(workload_id: &str, fw: Framework) -> Result<StagedRules> {
        Ok(StagedRules { w: workload(workload_id)?, fw, done: Vec::new(), pending: None, caches: Vec::new(), rules: None })
    }

    /// Starts from what an evaluator of the same job on `cluster` cached (e.g. the layout
    /// search's, [`Staged::finish_keeping_caches`]).
    pub fn with_caches(mut self, cluster: &Cluster, caches: EvaluatorCaches) -> StagedRules {
        self.caches.push((cluster.clone(), caches));
        self
    }

    fn take_caches(&mut self, cluster: &Cluster) -> EvaluatorCaches {
        match self.caches.iter().position(|(c, _)| c == cluster) {
            Some(i) => self.caches.swap_remove(i).1,
            None => EvaluatorCaches::default(),
        }
    }

    /// Advances until every rule is answered (returns true) or `more()` says stop.
    pub fn run(&mut self, topo: &Topology, more: &mut dyn FnMut() -> bool) -> Result<bool> {
        let fw = self.fw;
        loop {
            if self.rules.is_some() {
                return Ok(true);
            }
            if let Some((t, fixed, mut search)) = self.pending.take() {
                let caches = self.take_caches(&t.cluster);
                let mut ev = Evaluator::new(&t, &self.w, fw)?.with_caches(caches);
                if !search.run(&mut ev, more) {
                    let caches = ev.into_caches();
                    self.caches.push((t.cluster.clone(), caches));
                    self.pending = Some((t, fixed, search));
                    return Ok(false);
                }
                let best = search.finish(&mut ev).map(|f| f.result.best.into_iter().next()).unwrap_or(None);
                let caches = ev.into_caches();
                self.caches.push((t.cluster.clone(), caches));
                self.done.push((t.cluster, fixed, best));
                if !more() {
                    return Ok(false);
                }
                continue;
            }
            let mut miss: Option<(Topology, Constraints)> = None;
            let done = &self.done;
            let answer =
                rules_with(topo, &self.w, &mut |t: &Topology, fixed: Constraints| match done.iter().find(|(c, f, _)| *c == t.cluster && *f == fixed) {
                    Some((_, _, r)) => Ok(r.clone()),
                    None => {
                        miss = Some((t.clone(), fixed));
                        Err(ModelError::new("rules", "searching"))
                    }
                });
            match miss {
                Some((t, fixed)) => {
                    let search = Search::new(&self.w, t.total_gpus, &rule_search(fixed))?;
                    self.pending = Some((t, fixed, search));
                }
                None => self.rules = Some(answer.unwrap_or_default()),
            }
        }
    }

    /// The answers (empty until [`StagedRules::run`] has returned true).
    pub fn rules(&self) -> Vec<RuleOfThumb> {
        self.rules.clone().unwrap_or_default()
    }
}

/// The search's top layouts, the chosen one and the MFU grid, in one pass; the rules are not
/// answered yet ([`answer_rules`]).
pub fn start(topo: &Topology, workload_id: &str, fixed: Constraints) -> Result<TrainingView> {
    start_for(topo, workload_id, fixed, Framework::default())
}

/// [`start`] under the training software `fw`.
pub fn start_for(topo: &Topology, workload_id: &str, fixed: Constraints, fw: Framework) -> Result<TrainingView> {
    Staged::new_for(topo, workload_id, fixed, fw)?.finish(topo)
}

/// The framework a view was searched under (that of its chosen layout).
fn view_framework(v: &TrainingView) -> Framework {
    v.chosen.as_ref().and_then(|c| Framework::from_id(&c.framework)).unwrap_or_default()
}

/// Answers the training rules of thumb for the job on this cluster.
pub fn answer_rules(topo: &Topology, v: &mut TrainingView) -> Result<()> {
    let w = workload(&v.workload)?;
    v.rules = rules_of_thumb(topo, &w, view_framework(v)).unwrap_or_default();
    Ok(())
}

/// The layouts of `prev` (same job) re-evaluated on another cluster: what a page shows at
/// once, on the input that changed the cluster, while the search for it runs. Each layout
/// keeps its TP, PP, CP, EP, micro-batch, recompute and ZeRO; DP takes the new GPU count.
/// Layouts that no longer fit the GPU count (or the pins `fixed`) are dropped; the MFU grid
/// and rules are those of `prev`, for the caller to show as stale. `None` when the chosen
/// layout cannot be carried over (then only a new search can answer).
pub fn carry_over(topo: &Topology, prev: &TrainingView, fixed: Constraints) -> Option<TrainingView> {
    let w = workload(&prev.workload).ok()?;
    let total = topo.total_gpus;
    let mut ev = Evaluator::new(topo, &w, view_framework(prev)).ok()?;
    let pinned = |p: Option<u32>, v: u32| p.is_none_or(|p| p == v);
    let mut again = |r: &StepReport| -> Option<StepReport> {
        let m = r.mapping;
        let used = m.tp * m.pp * m.cp;
        let ok = pinned(fixed.tp, m.tp)
            && pinned(fixed.pp, m.pp)
            && pinned(fixed.cp, m.cp)
            && pinned(fixed.ep, m.ep)
            && pinned(fixed.micro_batch, m.micro_batch)
            && fixed.recompute.is_none_or(|x| x == m.recompute)
            && fixed.zero.is_none_or(|z| z == m.zero)
            && fixed.interleave.is_none_or(|v| v == m.interleave)
            && total.is_multiple_of(used)
            && total >= used;
        let par = Parallel { dp: largest_dp(total / used.max(1), w.global_batch), ..m };
        ok.then(|| evaluate_idle(&mut ev, &par).ok()).flatten()
    };
    let chosen = again(prev.chosen.as_ref()?)?;
    let top = prev.top.iter().filter_map(&mut again).collect();
    let idle_gpus = idle_gpus(total, &chosen);
    let note = idle_note(total, &w, &chosen);
    let moe = super::moe_view::moe_view(topo, &w, &chosen);
    let goodput = chosen.fits.then(|| crate::goodput::summary_of_step(topo, w.params(), &chosen));
    Some(TrainingView { chosen: Some(chosen), top, fixed, candidates: 0, layouts: 0, idle_gpus, note, carried: true, moe, goodput, ..prev.clone() })
}

/// Every stage at once: the training view of `choice` on `cluster`.
pub fn explore(cluster: &Cluster, choice: &TrainingChoice) -> Result<TrainingView> {
    let topo = cluster.topology()?;
    let w = workload(&choice.workload)?;
    let fw = framework_of(choice)?;
    let mut v = start_for(&topo, &choice.workload, constraints(choice, topo.total_gpus, &w), fw)?;
    answer_rules(&topo, &mut v)?;
    Ok(v)
}

/// The search's `n` best layouts of the scenario's job on `cluster`, nothing pinned (what a
/// search-results export lists).
pub fn ranked(cluster: &Cluster, workload_id: &str, n: usize) -> Result<Vec<StepReport>> {
    let topo = cluster.topology()?;
    Ok(best_with(&topo, &workload(workload_id)?, Constraints::default(), n)?.0)
}

/// "TP8 PP4 DP32" (+ CP, EP when used) for a layout.
pub fn layout_label(r: &StepReport) -> String {
    parallel_label(&r.mapping)
}

/// [`layout_label`] of a layout not yet evaluated.
pub fn parallel_label(m: &Parallel) -> String {
    let mut s = format!("TP{} PP{} DP{}", m.tp, m.pp, m.dp);
    if m.cp > 1 {
        s.push_str(&format!(" CP{}", m.cp));
    }
    if m.ep > 1 {
        s.push_str(&format!(" EP{}", m.ep));
    }
    s
}

/// [`layout_label`] plus what else the search chose: micro-batch, ZeRO stage, recompute.
pub fn layout_detail(r: &StepReport) -> String {
    let m = &r.mapping;
    let recompute = if m.recompute == Recompute::None { "no" } else { m.recompute.id() };
    format!("{} · mb{} · ZeRO {} · {recompute} recompute", layout_label(r), m.micro_batch, m.zero)
}

/// Step-time parts in seconds, in the stacked bars' order.
pub fn step_parts(r: &StepReport) -> Vec<(&'static str, f64)> {
    let b = &r.breakdown;
    [("compute", b.compute), ("TP", b.tp), ("bubble", b.bubble), ("PP p2p", b.pp_p2p), ("DP", b.dp), ("CP", b.cp), ("EP", b.ep), ("optimizer", b.optimizer)]
        .into_iter()
        .map(|(n, v)| (n, v.0 / 1e6))
        .collect()
}

/// Memory parts in GiB and the HBM capacity in GiB.
pub fn memory_parts(r: &StepReport) -> (Vec<(&'static str, f64)>, f64) {
    let m = &r.memory;
    let gib = |b: Bytes| b.0 as f64 / (1u64 << 30) as f64;
    (
        vec![
            ("weights", gib(m.weights)),
            ("gradients", gib(m.gradients)),
            ("optimizer", gib(m.optimizer)),
            ("activations", gib(m.activations)),
            ("runtime", gib(m.reserved)),
        ],
        gib(m.capacity),
    )
}

/// The recompute choices, for pickers: none keeps every activation, selective recomputes the
/// attention core, full keeps only each layer's input.
pub fn recompute_choices() -> [(Recompute, &'static str); 3] {
    [(Recompute::None, "none"), (Recompute::Selective, "selective"), (Recompute::Full, "full")]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(best: bool, tp: u32, pp: u32, cp: u32) -> TrainingChoice {
        TrainingChoice { best, tp, pp, cp, ..TrainingChoice::default() }
    }

    #[test]
    fn default_job_trains_on_the_default_cluster() {
        let v = explore(&Cluster::default(), &TrainingChoice::default()).unwrap();
        let c = v.chosen.as_ref().expect("a layout");
        assert_eq!(c.mapping.gpus(), 32);
        assert!(c.mfu > 0.0 && c.mfu < 1.0, "{}", c.mfu);
        assert!(!v.top.is_empty() && v.top.len() <= TOP);
        assert_eq!(v.top[0], *c, "best is the chosen one");
        assert_eq!(v.mfu.len(), v.tps.len() * v.pps.len());
        assert!(v.mfu.iter().flatten().all(|m| *m <= v.top[0].mfu + 1e-9), "no cell beats the best");
        // The stacked parts are the step's time components; overlap can hide some, so
        // their sum is at least the step's critical path share, never wildly more.
        let sum: f64 = step_parts(c).iter().map(|p| p.1).sum();
        assert!(sum > 0.0 && (sum - c.step_time_s).abs() / c.step_time_s < 0.5, "{sum} vs {}", c.step_time_s);
        let (mem, cap) = memory_parts(c);
        assert_eq!(cap.round(), 80.0, "H100 SXM has 80 GiB");
        assert!(mem.iter().map(|m| m.1).sum::<f64>() <= cap);
        assert!(!v.rules.is_empty());
    }

    #[test]
    fn pinned_sizes_are_respected() {
        let v = explore(&Cluster::default(), &choice(false, 4, 2, 1)).unwrap();
        let c = v.chosen.unwrap();
        assert_eq!((c.mapping.tp, c.mapping.pp, c.mapping.dp), (4, 2, 4));
        assert!(layout_label(&c).starts_with("TP4 PP2 DP4"));
        // A request the cluster cannot take is brought down to the nearest valid size.
        let w = workload(DEFAULT_WORKLOAD).unwrap();
        let k = constraints(&choice(false, 64, 3, 1), 32, &w);
        assert_eq!((k.tp, k.pp), (Some(8), Some(2)), "TP 64 > 8 heads' limit on 32 GPUs; PP 3 -> 2");
        // Micro-batch, recompute and ZeRO pinned with `best` constrain only themselves.
        let pinned = TrainingChoice { micro_batch: 2, recompute: Some(Recompute::Full), zero: Some(1), ..TrainingChoice::default() };
        let v = explore(&Cluster::default(), &pinned).unwrap();
        assert!(v.is_best());
        let m = v.chosen.unwrap().mapping;
        assert_eq!((m.micro_batch, m.recompute, m.zero), (2, Recompute::Full, 1));
    }

    #[test]
    fn pinning_never_beats_the_search() {
        // The unconstrained best is at least as fast as any pinned layout (same model).
        let free = explore(&Cluster::default(), &TrainingChoice::default()).unwrap();
        let best = free.chosen.unwrap().step_time_s;
        for z in ZERO_STAGES {
            let v = explore(&Cluster::default(), &TrainingChoice { zero: Some(z), ..TrainingChoice::default() }).unwrap();
            if let Some(c) = v.chosen.filter(|c| c.fits) {
                assert!(c.step_time_s >= best * (1.0 - 1e-12), "ZeRO {z}: {} < {best}", c.step_time_s);
            }
        }
    }

    #[test]
    fn layouts_carry_over_to_a_new_cluster_as_a_fresh_evaluation_would_give() {
        let small = Cluster::default();
        let big = Cluster { nodes: 8, ..Cluster::default() };
        let v = explore(&small, &TrainingChoice::default()).unwrap();
        let topo = big.topology().unwrap();
        let c = carry_over(&topo, &v, v.fixed).expect("the 32-GPU layout works on 64 GPUs");
        let (old, new) = (v.chosen.as_ref().unwrap().mapping, c.chosen.as_ref().unwrap().mapping);
        assert_eq!((new.tp, new.pp, new.cp, new.micro_batch, new.zero), (old.tp, old.pp, old.cp, old.micro_batch, old.zero));
        assert_eq!(new.dp, 2 * old.dp, "DP takes the doubled GPU count");
        let fresh = crate::training::evaluate(&topo, &workload(DEFAULT_WORKLOAD).unwrap(), &new, Framework::default()).unwrap();
        assert_eq!(c.chosen.unwrap().step_time_s, fresh.step_time_s);
        assert!(c.top.len() <= v.top.len() && c.carried && !v.carried);
        // A layout that no longer divides the GPUs is not carried: 3 nodes = 24 GPUs.
        let odd = Cluster { nodes: 3, ..Cluster::default() }.topology().unwrap();
        let pinned = explore(&small, &choice(false, 8, 4, 1)).unwrap();
        assert!(carry_over(&odd, &pinned, pinned.fixed).is_none(), "TP8 x PP4 = 32 does not divide 24");
    }

    #[test]
    fn custom_workloads_parse_and_blame_the_field() {
        let parts = CUSTOM_DEFAULT.map(|v| v.to_string());
        let id = custom_id(&parts);
        assert_eq!(id, "custom:36:4096:32:512:2048:0:2");
        let w = workload(&id).unwrap();
        assert_eq!((w.layers, w.hidden, w.heads, w.global_batch, w.seq), (36, 4096, 32, 512, 2048));
        assert!(w.moe.is_none());
        // Old four-part ids (links from before sequence and MoE) still read.
        assert_eq!(workload("custom:36:4096:32:512").unwrap(), w);
        let long = workload("custom:36:4096:32:512:8192").unwrap();
        assert_eq!(long.seq, 8192);
        let moe = workload("custom:24:2048:16:256:2048:8:2").unwrap();
        assert_eq!(moe.moe.map(|m| (m.experts, m.top_k, m.expert_ffn)), Some((8, 2, 8192)));
        assert!(moe.params() > workload("custom:24:2048:16:256").unwrap().params() * 5, "8 experts of 4h");
        assert_eq!(workload("custom:36:4096:x:512").unwrap_err().field, "heads");
        assert_eq!(workload("custom:36:4096:30:512").unwrap_err().field, "heads");
        assert_eq!(workload("custom:0:4096:32:512").unwrap_err().field, "layers");
        assert_eq!(workload("custom:24:2048:16:256:2048:8:9").unwrap_err().field, "top_k");
        assert_eq!(workload("custom:1:2:3").unwrap_err().field, "workload");
        assert_eq!(workload("nope").unwrap_err().field, "workload");
    }

    #[test]
    fn sliced_search_and_rules_give_what_one_pass_gives() {
        let topo = Cluster { nodes: 8, ..Cluster::default() }.topology().unwrap();
        let fixed = Constraints { tp: Some(4), pp: Some(2), cp: Some(1), ep: Some(1), ..Constraints::default() };
        let whole = start(&topo, DEFAULT_WORKLOAD, fixed).unwrap();
        // One layout per slice.
        let mut s = Staged::new(&topo, DEFAULT_WORKLOAD, fixed).unwrap();
        let mut slices = 0;
        while !s.run(&topo, &mut || false).unwrap() {
            slices += 1;
        }
        assert!(slices + 1 >= s.progress().1, "at least one slice per layout: {slices}");
        assert_eq!(s.finish(&topo).unwrap(), whole);
        let w = workload(DEFAULT_WORKLOAD).unwrap();
        let direct = rules_of_thumb(&topo, &w, Framework::default()).unwrap();
        let mut r = StagedRules::new(DEFAULT_WORKLOAD).unwrap();
        let mut steps = 0;
        while !r.run(&topo, &mut || false).unwrap() {
            steps += 1;
        }
        assert!(steps > 4, "the rules' searches ran in many slices: {steps}");
        assert_eq!(r.rules(), direct);
    }

    #[test]
    fn offered_values_are_ones_the_model_accepts() {
        let w = workload(DEFAULT_WORKLOAD).unwrap();
        assert_eq!(tp_values(32, &w), vec![1, 2, 4, 8]);
        // Every offered size has a layout the model accepts: on 1024 GPUs, Llama 3 8B's
        // 512-sequence batch caps DP at 512, so TP 1 needs PP or CP of at least 2.
        for tp in tp_values(1024, &w) {
            for pp in pp_values(1024, tp, &w) {
                assert!(!cp_values(1024, &w, tp, pp).is_empty(), "TP{tp} PP{pp}");
            }
        }
        assert_eq!(cp_values(1024, &w, 1, 1).first(), Some(&2), "TP1 PP1 CP1 would need DP 1024 > batch 512");
        let c = constraints(&choice(false, 1, 1, 1), 1024, &w);
        assert_eq!((c.tp, c.pp, c.cp), (Some(1), Some(1), Some(2)), "the nearest valid size when none is below the request");
        let v = start(&Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap(), DEFAULT_WORKLOAD, c).unwrap();
        assert!(v.chosen.is_some_and(|r| r.fits), "a pinned request is brought to a valid layout: {c:?}");
        assert!(pp_values(32, 8, &w).iter().all(|p| 4 % p == 0));
        let cps = cp_values(32, &w, 8, 1);
        assert!(cps.contains(&1) && cps.contains(&2) && cps.iter().all(|c| 32 % (8 * c) == 0), "{cps:?}");
        assert_eq!(ep_values(32, &w, 8, 1, 1), vec![1], "dense model: no EP");
        let moe = workload("mixtral-8x7b").unwrap();
        assert!(ep_values(1024, &moe, 1, 1, 1).len() > 1);
        // Llama 3 8B's global batch is 512 sequences: DP 4 leaves 128 per replica.
        let mbs = micro_batch_values(&w, Some(4));
        assert_eq!(mbs, vec![1, 2, 4, 8, 16, 32, 64]);
        assert!(micro_batch_values(&w, Some(3)).is_empty());
        for mb in micro_batch_values(&w, Some(32)) {
            let v = explore(&Cluster::default(), &TrainingChoice { best: false, tp: 1, pp: 1, micro_batch: mb, ..TrainingChoice::default() }).unwrap();
            assert_eq!(v.chosen.map(|c| c.mapping.micro_batch), Some(mb));
        }
        assert!(explore(&Cluster { nodes: 0, ..Cluster::default() }, &TrainingChoice::default()).is_err());
    }
}

#[cfg(test)]
mod assumption_tests {
    use super::*;

    /// Pinned to plain 1F1B (interleave 1) at PP 4, the bubble is (p-1)/m of the stage's
    /// work: (p-1) micro-batches' worth of the typical stage (Narayanan et al. 2021, §2.2.1),
    /// twice what two virtual stages leave.
    #[test]
    fn pinned_interleave_one_gives_the_plain_1f1b_bubble() {
        let pin = |v: u32| TrainingChoice { best: false, tp: 8, pp: 4, micro_batch: 1, recompute: Some(Recompute::Selective), zero: Some(1), interleave: Some(v), ..TrainingChoice::default() };
        let c = Cluster { nodes: 16, ..Cluster::default() };
        let one = explore(&c, &pin(1)).unwrap().chosen.unwrap();
        let two = explore(&c, &pin(2)).unwrap().chosen.unwrap();
        assert_eq!((one.mapping.pp, one.mapping.interleave, two.mapping.interleave), (4, 1, 2));
        let m = one.micro_batches as f64;
        let b = &one.breakdown;
        // bubble = (p-1)/m x the m micro-batches of a middle stage, which has no embedding or
        // output layer: at most the slowest stage's compute and TP, and within 25% of it.
        let stage = b.bubble.0 * m / 3.0;
        let critical = b.compute.0 + b.tp.0;
        assert!(stage <= critical && stage >= 0.75 * critical, "bubble {} of a {critical} us stage at m {m}", b.bubble.0);
        assert!((b.bubble.0 / two.breakdown.bubble.0 - 2.0).abs() < 1e-9);
        // Another framework's engine without interleaving refuses the pin, naming the field.
        let ds = TrainingChoice { framework: "megatron-deepspeed".into(), ..pin(2) };
        let e = explore(&c, &ds).unwrap_err();
        assert!(e.field == "interleave" && e.message.contains("allowed: 1"), "{e:?}");
        // With v not dividing layers / pp (32 / 4 = 8): refused with the values allowed.
        let e = explore(&c, &pin(3)).unwrap_err();
        assert!(e.field == "interleave" && e.message.contains("allowed: 1, 2, 4, 8"), "{e:?}");
        // The framework is searched under: its name is on the layout.
        let fsdp = explore(&c, &TrainingChoice { framework: "pytorch-fsdp2".into(), interleave: None, ..pin(1) }).unwrap().chosen.unwrap();
        assert_eq!(fsdp.framework, "pytorch-fsdp2");
        assert!(explore(&c, &TrainingChoice { framework: "nope".into(), ..TrainingChoice::default() }).is_err_and(|e| e.field == "framework"));
    }
}
