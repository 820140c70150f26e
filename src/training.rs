//! The training view: one job (a workload preset) on the cluster, the mapping the user chose
//! (or the search's best), the top layouts, an MFU grid over TP x PP, memory per GPU and the
//! training rules of thumb. All numbers come from `fabricscope_model::training`; this module
//! only picks what to ask and packs the answers for the panels.
//!
//! The search is the one costly part of the page (tens of ms for a 1024-GPU cluster in
//! wasm), so [`use_training`] runs it 150 ms after the last change instead of on every
//! `input` event; the collective panels stay live while a slider is dragged.

use fabricscope_charts::topology::Layout;
use fabricscope_model::training::{
    self, rules_of_thumb, Constraints, Framework, RuleOfThumb, SearchOptions, StepReport, Workload,
};
use fabricscope_model::{Cluster, ModelError};
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

/// Workload shown first: small enough to fit anywhere from one node up.
pub const DEFAULT_WORKLOAD: &str = "llama3-8b";
/// Layouts listed beside the chosen one.
pub const TOP: usize = 5;
/// Delay after the last change before the search runs.
pub const SEARCH_DELAY_MS: u32 = 150;

/// What the user asked for: the search's best, or fixed TP and PP (the rest searched).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    Best,
    /// TP, PP, CP and EP fixed (DP takes the rest; micro-batch, recompute, ZeRO searched).
    Fixed { tp: u32, pp: u32, cp: u32, ep: u32 },
}

/// Everything the training panels show for one (cluster, workload, choice).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingView {
    pub workload: String,
    pub choice: Choice,
    /// The chosen layout (or, if nothing fits, the closest one).
    pub chosen: Option<StepReport>,
    /// The search's best layouts.
    pub top: Vec<StepReport>,
    pub tps: Vec<u32>,
    pub pps: Vec<u32>,
    /// MFU of the best layout per (PP row, TP column); None when nothing fits.
    pub mfu: Vec<Option<f64>>,
    pub rules: Vec<RuleOfThumb>,
    /// Candidates the search looked at.
    pub candidates: u64,
}

/// Prefix of a custom workload id: `custom:<layers>:<hidden>:<heads>:<global batch>`, a
/// GPT-style model (ffn 4h, sequence 2048) of those sizes.
pub const CUSTOM: &str = "custom";

/// The default custom shape (GPT 7.5B of Narayanan et al. 2021).
pub const CUSTOM_DEFAULT: [u32; 4] = [36, 4096, 32, 512];

/// Field names and labels of the custom shape, in id order.
pub const CUSTOM_FIELDS: [(&str, &str); 4] = [("layers", "Layers"), ("hidden", "Hidden size"), ("heads", "Heads"), ("global_batch", "Global batch")];

/// The custom id for these sizes (kept as typed, so a bad entry stays visible).
pub fn custom_id(parts: &[String; 4]) -> String {
    format!("{CUSTOM}:{}", parts.join(":"))
}

/// The parts of a custom id, as typed.
pub fn custom_parts(id: &str) -> Option<[String; 4]> {
    let rest = id.strip_prefix(CUSTOM)?.strip_prefix(':')?;
    let v: Vec<&str> = rest.split(':').collect();
    (v.len() == 4).then(|| [v[0].to_string(), v[1].to_string(), v[2].to_string(), v[3].to_string()])
}

/// The workload of a preset id or a custom id; errors name the field at fault.
pub fn workload(id: &str) -> Result<Workload, ModelError> {
    if let Some(parts) = custom_parts(id) {
        let mut n = [0u32; 4];
        for (i, p) in parts.iter().enumerate() {
            let (field, label) = CUSTOM_FIELDS[i];
            n[i] = p.trim().parse().map_err(|_| ModelError::new(field, format!("{label}: enter a whole number, got \"{}\"", p.trim())))?;
        }
        let w = training::presets::gpt("custom", n[0], n[1], n[2], n[3]);
        w.validate()?;
        return Ok(w);
    }
    training::preset(id).ok_or_else(|| {
        ModelError::new("workload", format!("unknown workload '{id}'; allowed: {}, custom", training::preset_ids().join(", ")))
    })
}

/// TP sizes worth offering: powers of two up to 64 that divide the GPU count and the
/// workload's heads, KV heads and FFN width (what the model accepts).
pub fn tp_values(total: u32, w: &Workload) -> Vec<u32> {
    (0..=6)
        .map(|e| 1u32 << e)
        .filter(|t| total.is_multiple_of(*t) && w.heads.is_multiple_of(*t) && w.kv_heads.is_multiple_of(*t) && w.ffn.is_multiple_of(*t))
        .collect()
}

/// Whether the model accepts these sizes for `w` on `total` GPUs (DP takes the rest).
fn valid(total: u32, w: &Workload, tp: u32, pp: u32, cp: u32, ep: u32) -> bool {
    let rest = total / (tp * pp * cp).max(1);
    (tp * pp * cp).max(1) * rest == total
        && training::Parallel { tp, pp, cp, ep, dp: rest, ..Default::default() }.validate(w, total).is_ok()
}

/// CP sizes the model accepts with `tp` x `pp` (powers of two up to 16).
pub fn cp_values(total: u32, w: &Workload, tp: u32, pp: u32) -> Vec<u32> {
    (0..=4).map(|e| 1u32 << e).filter(|c| valid(total, w, tp, pp, *c, 1)).collect()
}

/// EP sizes the model accepts (MoE workloads only; powers of two up to 64).
pub fn ep_values(total: u32, w: &Workload, tp: u32, pp: u32, cp: u32) -> Vec<u32> {
    if w.moe.is_none() {
        return vec![1];
    }
    (0..=6).map(|e| 1u32 << e).filter(|e| valid(total, w, tp, pp, cp, *e)).collect()
}

/// PP sizes: powers of two up to 32 that divide what TP leaves and do not exceed the layers.
pub fn pp_values(total: u32, tp: u32, w: &Workload) -> Vec<u32> {
    let rest = total / tp.max(1);
    (0..=5).map(|e| 1u32 << e).filter(|p| rest.is_multiple_of(*p) && *p <= w.layers).collect()
}

fn best_with(topo: &fabricscope_model::Topology, w: &Workload, fixed: Constraints, top: usize) -> Result<(Vec<StepReport>, Option<StepReport>, u64), ModelError> {
    let r = training::search_layouts(topo, w, Framework::default(), &SearchOptions { top, fixed, ..SearchOptions::default() })?;
    Ok((r.best, r.closest_unfit, r.stats.candidates))
}

/// First stage of [`train`]: the search's top layouts and the chosen one; the MFU grid is
/// empty (filled by [`train_row`]) and the rules are not answered yet ([`train_rules`]).
pub fn train_start(cluster: &Cluster, workload_id: &str, choice: Choice) -> Result<TrainingView, ModelError> {
    let topo = cluster.topology()?;
    let w = workload(workload_id)?;
    let total = topo.total_gpus;
    let (top, closest, candidates) = best_with(&topo, &w, Constraints::default(), TOP)?;
    let chosen = match choice {
        Choice::Best => top.first().cloned().or(closest),
        Choice::Fixed { tp, pp, cp, ep } => {
            let fixed = Constraints { tp: Some(tp), pp: Some(pp), cp: Some(cp), ep: Some(ep), ..Constraints::default() };
            let (b, c, _) = best_with(&topo, &w, fixed, 1)?;
            b.into_iter().next().or(c)
        }
    };
    let tps = tp_values(total, &w);
    let pps: Vec<u32> = (0..=5).map(|e| 1u32 << e).filter(|p| *p <= w.layers && total.is_multiple_of(*p)).collect();
    let mfu = vec![None; tps.len() * pps.len()];
    Ok(TrainingView { workload: workload_id.to_string(), choice, chosen, top, tps, pps, mfu, rules: Vec::new(), candidates })
}

/// Fills row `j` (one PP size) of the MFU grid: the best layout for each TP.
pub fn train_row(cluster: &Cluster, v: &mut TrainingView, j: usize) -> Result<(), ModelError> {
    let topo = cluster.topology()?;
    let w = workload(&v.workload)?;
    let Some(&pp) = v.pps.get(j) else { return Ok(()) };
    for (i, &tp) in v.tps.iter().enumerate() {
        if topo.total_gpus.is_multiple_of(tp * pp) {
            let fixed = Constraints { tp: Some(tp), pp: Some(pp), ..Constraints::default() };
            v.mfu[j * v.tps.len() + i] = best_with(&topo, &w, fixed, 1).ok().and_then(|(b, _, _)| b.first().map(|r| r.mfu));
        }
    }
    Ok(())
}

/// Answers the training rules of thumb.
pub fn train_rules(cluster: &Cluster, v: &mut TrainingView) -> Result<(), ModelError> {
    let topo = cluster.topology()?;
    let w = workload(&v.workload)?;
    v.rules = rules_of_thumb(&topo, &w, Framework::default()).unwrap_or_default();
    Ok(())
}

/// Runs the training model for the panels: every stage at once (tests, CLI-like use).
pub fn train(cluster: &Cluster, workload_id: &str, choice: Choice) -> Result<TrainingView, ModelError> {
    let mut v = train_start(cluster, workload_id, choice)?;
    for j in 0..v.pps.len() {
        train_row(cluster, &mut v, j)?;
    }
    train_rules(cluster, &mut v)?;
    Ok(v)
}

/// "TP8 PP4 DP32" (+ CP, EP when used) for a layout.
pub fn layout_label(r: &StepReport) -> String {
    let m = &r.mapping;
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
    format!("{} · mb{} · ZeRO {} · {} recompute", layout_label(r), m.micro_batch, m.zero, m.recompute.id())
}

/// The drawing's layout for a step report (CP folded into DP, as Megatron orders them).
pub fn drawing_layout(r: &StepReport) -> Layout {
    let m = &r.mapping;
    Layout { tp: m.tp, pp: m.pp, dp: m.dp * m.cp }
}

/// Step-time parts in seconds, in the stacked bars' order.
pub fn step_parts(r: &StepReport) -> Vec<(String, f64)> {
    let b = &r.breakdown;
    [
        ("compute", b.compute),
        ("TP", b.tp),
        ("bubble", b.bubble),
        ("PP p2p", b.pp_p2p),
        ("DP", b.dp),
        ("CP", b.cp),
        ("EP", b.ep),
        ("optimizer", b.optimizer),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v.0 / 1e6))
    .collect()
}

/// Memory parts in GiB and the HBM capacity in GiB.
pub fn memory_parts(r: &StepReport) -> (Vec<(String, f64)>, f64) {
    let m = &r.memory;
    let gib = |b: fabricscope_model::units::Bytes| b.0 as f64 / (1u64 << 30) as f64;
    (
        vec![
            ("weights".into(), gib(m.weights)),
            ("gradients".into(), gib(m.gradients)),
            ("optimizer".into(), gib(m.optimizer)),
            ("activations".into(), gib(m.activations)),
            ("runtime".into(), gib(m.reserved)),
        ],
        gib(m.capacity),
    )
}

type Shared = Option<Rc<Result<TrainingView, ModelError>>>;

/// One stage of the staged search, then the next in a later task (so the page answers input
/// between stages); `gen` stops a chain whose inputs have changed since.
#[allow(clippy::too_many_arguments)]
fn run_stage(stage: usize, mut v: Option<TrainingView>, c: Cluster, w: String, ch: Choice, my: u64, gen: Rc<std::cell::Cell<u64>>, result: UseStateHandle<Shared>, pending: UseStateHandle<bool>) {
    if gen.get() != my {
        return;
    }
    let next = |stage: usize, v: Option<TrainingView>, result: UseStateHandle<Shared>, pending: UseStateHandle<bool>| {
        let (c, w, gen) = (c.clone(), w.clone(), gen.clone());
        Timeout::new(0, move || run_stage(stage, v, c, w, ch, my, gen, result, pending)).forget();
    };
    match (stage, v.as_mut()) {
        (0, _) => match train_start(&c, &w, ch) {
            Ok(view) => {
                result.set(Some(Rc::new(Ok(view.clone()))));
                next(1, Some(view), result, pending);
            }
            Err(e) => {
                result.set(Some(Rc::new(Err(e))));
                pending.set(false);
            }
        },
        (s, Some(view)) if s <= view.pps.len() => {
            let _ = train_row(&c, view, s - 1);
            if s == view.pps.len() {
                result.set(Some(Rc::new(Ok(view.clone()))));
            }
            next(s + 1, v, result, pending);
        }
        (_, Some(view)) => {
            let _ = train_rules(&c, view);
            result.set(Some(Rc::new(Ok(view.clone()))));
            pending.set(false);
        }
        (_, None) => pending.set(false),
    }
}

/// The training view for (cluster, workload, choice), recomputed [`SEARCH_DELAY_MS`] after
/// the last change, in stages (top layouts, then the MFU grid row by row, then the rules),
/// each in its own task. Returns the latest result (possibly for an earlier input, or not
/// complete yet) and whether more is coming.
#[hook]
pub fn use_training(cluster: Option<Cluster>, workload: String, choice: Choice) -> (Shared, bool) {
    let result = use_state(|| None::<Rc<Result<TrainingView, ModelError>>>);
    // Compared before re-rendering: most inputs find it already true.
    let pending = use_state_eq(|| false);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen = use_mut_ref(|| Rc::new(std::cell::Cell::new(0u64)));
    {
        let result = result.clone();
        let pending = pending.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster, workload, choice), move |(c, w, ch)| {
            gen.set(gen.get() + 1);
            let my = gen.get();
            match c.clone() {
                Some(c) => {
                    pending.set(true);
                    let (w, ch) = (w.clone(), *ch);
                    *timer.borrow_mut() = Some(Timeout::new(SEARCH_DELAY_MS, move || {
                        run_stage(0, None, c, w, ch, my, gen, result, pending);
                    }));
                }
                None => *timer.borrow_mut() = None,
            }
        });
    }
    ((*result).clone(), *pending)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_job_trains_on_the_default_cluster() {
        let v = train(&Cluster::default(), DEFAULT_WORKLOAD, Choice::Best).unwrap();
        let c = v.chosen.as_ref().expect("a layout");
        assert_eq!(c.mapping.gpus(), 32);
        assert!(c.mfu > 0.0 && c.mfu < 1.0, "{}", c.mfu);
        assert!(!v.top.is_empty() && v.top.len() <= TOP);
        assert_eq!(v.top[0], *c, "best is the chosen one");
        assert_eq!(v.mfu.len(), v.tps.len() * v.pps.len());
        assert!(v.mfu.iter().flatten().all(|m| *m <= v.top[0].mfu + 1e-9), "no cell beats the best");
        let parts = step_parts(c);
        let sum: f64 = parts.iter().map(|p| p.1).sum();
        assert!(sum > 0.0 && (sum - c.step_time_s).abs() / c.step_time_s < 0.5, "{sum} vs {}", c.step_time_s);
        let (mem, cap) = memory_parts(c);
        assert_eq!(cap.round(), 80.0);
        assert!(mem.iter().map(|m| m.1).sum::<f64>() <= cap);
        assert!(!v.rules.is_empty());
    }

    #[test]
    fn fixed_choice_is_respected_and_labelled() {
        let v = train(&Cluster::default(), DEFAULT_WORKLOAD, Choice::Fixed { tp: 4, pp: 2, cp: 1, ep: 1 }).unwrap();
        let c = v.chosen.unwrap();
        assert_eq!((c.mapping.tp, c.mapping.pp), (4, 2));
        assert!(layout_label(&c).starts_with("TP4 PP2 DP4"));
        assert_eq!(drawing_layout(&c), Layout { tp: 4, pp: 2, dp: 4 });
    }

    #[test]
    fn custom_workloads_parse_and_blame_the_field() {
        let id = custom_id(&CUSTOM_DEFAULT.map(|v| v.to_string()));
        assert_eq!(id, "custom:36:4096:32:512");
        let w = workload(&id).unwrap();
        assert_eq!((w.layers, w.hidden, w.heads, w.global_batch), (36, 4096, 32, 512));
        assert!(train(&Cluster::default(), &id, Choice::Best).unwrap().chosen.is_some());
        assert_eq!(workload("custom:36:4096:x:512").unwrap_err().field, "heads");
        assert_eq!(workload("custom:36:4096:30:512").unwrap_err().field, "heads");
        assert_eq!(workload("custom:0:4096:32:512").unwrap_err().field, "layers");
    }

    #[test]
    fn cp_and_ep_offer_only_what_the_model_accepts() {
        let w = workload("llama3-8b").unwrap();
        let cps = cp_values(32, &w, 8, 1);
        assert!(cps.contains(&1) && cps.contains(&2) && cps.iter().all(|c| 32 % (8 * c) == 0), "{cps:?}");
        assert_eq!(ep_values(32, &w, 8, 1, 1), vec![1], "dense model: no EP");
        let v = train(&Cluster::default(), DEFAULT_WORKLOAD, Choice::Fixed { tp: 4, pp: 1, cp: 2, ep: 1 }).unwrap();
        assert_eq!(v.chosen.unwrap().mapping.cp, 2);
        let moe = training::preset_ids().into_iter().find(|id| workload(id).is_ok_and(|w| w.moe.is_some()));
        if let Some(id) = moe {
            let w = workload(id).unwrap();
            let eps = ep_values(1024, &w, 1, 1, 1);
            assert!(eps.len() > 1, "{id}: {eps:?}");
        }
    }

    #[test]
    fn valid_values_only() {
        let w = workload("llama3-8b").unwrap();
        assert_eq!(tp_values(32, &w), vec![1, 2, 4, 8]);
        assert!(pp_values(32, 8, &w).iter().all(|p| 4 % p == 0));
        assert_eq!(workload("nope").unwrap_err().field, "workload");
        assert!(train(&Cluster { nodes: 0, ..Cluster::default() }, DEFAULT_WORKLOAD, Choice::Best).is_err());
    }
}
