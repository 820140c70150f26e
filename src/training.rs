//! The training view on the page: `fabricscope_model::training::explore` run for the job and
//! the pinned layout, in stages so the page answers input between them.
//!
//! The search is the one costly part of the page (tens of ms for a 1024-GPU cluster in
//! wasm, too slow for the 16 ms input-to-paint budget), so [`use_training`] runs it 150 ms
//! after the last change; every input in between re-evaluates the last search's layouts on
//! the new cluster (microseconds), so the training numbers still follow a dragged slider.

use fabricscope_model::training::explore::{answer_rules, carry_over, fill_row, start, TrainingView};
use fabricscope_model::training::Constraints;
use fabricscope_model::{Cluster, ModelError};
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

pub use fabricscope_model::training::explore::{
    constraints, cp_values, custom_id, custom_parts, ep_values, layout_detail, layout_label, micro_batch_values, pp_values, recompute_choices,
    tp_values, workload, CUSTOM, CUSTOM_DEFAULT, CUSTOM_FIELDS, DEFAULT_WORKLOAD, ZERO_STAGES,
};

/// Delay after the last change before the search runs.
pub const SEARCH_DELAY_MS: u32 = 150;

type Shared = Option<Rc<Result<TrainingView, ModelError>>>;

/// A search's answer (complete or one stage of it) and the inputs it answers; `seq` numbers
/// every answer published, so a later stage of the same search counts as new.
struct Computed {
    seq: u64,
    cluster: Cluster,
    workload: String,
    fixed: Constraints,
    view: Rc<Result<TrainingView, ModelError>>,
}

type Latest = UseStateHandle<Option<Rc<Computed>>>;

thread_local! {
    /// Answers published so far (a state handle only sees the value of its own render).
    static PUBLISHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// One stage of the staged search, then the next in a later task (so the page answers input
/// between stages); `gen` stops a chain whose inputs have changed since.
#[allow(clippy::too_many_arguments)]
fn run_stage(stage: usize, mut v: Option<TrainingView>, c: Cluster, w: String, ch: Constraints, my: u64, gen: Rc<std::cell::Cell<u64>>, result: Latest, pending: UseStateHandle<bool>) {
    if gen.get() != my {
        return;
    }
    let publish = |result: &Latest, view: Result<TrainingView, ModelError>| {
        let seq = PUBLISHED.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        result.set(Some(Rc::new(Computed { seq, cluster: c.clone(), workload: w.clone(), fixed: ch, view: Rc::new(view) })));
    };
    let next = |stage: usize, v: Option<TrainingView>, result: Latest, pending: UseStateHandle<bool>| {
        let (c, w, gen) = (c.clone(), w.clone(), gen.clone());
        Timeout::new(0, move || run_stage(stage, v, c, w, ch, my, gen, result, pending)).forget();
    };
    match (stage, v.as_mut()) {
        (0, _) => match c.topology().and_then(|t| start(&t, &w, ch)) {
            Ok(view) => {
                publish(&result, Ok(view.clone()));
                next(1, Some(view), result, pending);
            }
            Err(e) => {
                publish(&result, Err(e));
                pending.set(false);
            }
        },
        (s, Some(view)) if s <= view.pps.len() => {
            let _ = c.topology().and_then(|t| fill_row(&t, view, s - 1));
            if s == view.pps.len() {
                publish(&result, Ok(view.clone()));
            }
            next(s + 1, v, result, pending);
        }
        (_, Some(view)) => {
            let _ = c.topology().and_then(|t| answer_rules(&t, view));
            publish(&result, Ok(view.clone()));
            pending.set(false);
        }
        (_, None) => pending.set(false),
    }
}

/// The training view for (cluster, workload, pins). The search runs [`SEARCH_DELAY_MS`]
/// after the last change, in stages (top layouts, then the MFU grid row by row, then the
/// rules), each in its own task. Until it answers, every input gets the last search's layouts
/// re-evaluated on the new cluster ([`carry_over`]: step time, MFU and memory follow the
/// slider at once; the ranking and MFU grid are the last search's). Returns the view to show
/// and whether a search is on its way.
#[hook]
pub fn use_training(cluster: Option<Cluster>, workload: String, fixed: Constraints) -> (Shared, bool) {
    let result = use_state(|| None::<Rc<Computed>>);
    // Compared before re-rendering: most inputs find it already true.
    let pending = use_state_eq(|| false);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen = use_mut_ref(|| Rc::new(std::cell::Cell::new(0u64)));
    {
        let result = result.clone();
        let pending = pending.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster.clone(), workload.clone(), fixed), move |(c, w, ch)| {
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
    let latest = (*result).clone();
    let shown = use_memo((cluster, workload, fixed, latest.as_ref().map(|r| r.seq)), move |(c, w, f, _)| -> Shared {
        let r = latest?;
        let Some(c) = c else { return Some(r.view.clone()) };
        if (&r.cluster, &r.workload, r.fixed) == (c, w, *f) {
            return Some(r.view.clone());
        }
        let carried = match (&*r.view, r.workload == *w) {
            (Ok(v), true) => c.topology().ok().and_then(|t| carry_over(&t, v, *f)),
            _ => None,
        };
        Some(carried.map_or_else(|| r.view.clone(), |v| Rc::new(Ok(v))))
    });
    ((*shown).clone(), *pending)
}
