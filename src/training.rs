//! The training view on the page: `fabricscope_model::training::explore` run for the job and
//! the pinned layout, in stages so the page answers input between them.
//!
//! The search is the one costly part of the page (tens of ms for a 1024-GPU cluster in
//! wasm), so [`use_training`] runs it 150 ms after the last change instead of on every
//! `input` event; the collective panels stay live while a slider is dragged.

use fabricscope_model::training::explore::{answer_rules, fill_row, start, TrainingView};
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

/// One stage of the staged search, then the next in a later task (so the page answers input
/// between stages); `gen` stops a chain whose inputs have changed since.
#[allow(clippy::too_many_arguments)]
fn run_stage(stage: usize, mut v: Option<TrainingView>, c: Cluster, w: String, ch: Constraints, my: u64, gen: Rc<std::cell::Cell<u64>>, result: UseStateHandle<Shared>, pending: UseStateHandle<bool>) {
    if gen.get() != my {
        return;
    }
    let next = |stage: usize, v: Option<TrainingView>, result: UseStateHandle<Shared>, pending: UseStateHandle<bool>| {
        let (c, w, gen) = (c.clone(), w.clone(), gen.clone());
        Timeout::new(0, move || run_stage(stage, v, c, w, ch, my, gen, result, pending)).forget();
    };
    match (stage, v.as_mut()) {
        (0, _) => match c.topology().and_then(|t| start(&t, &w, ch)) {
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
            let _ = c.topology().and_then(|t| fill_row(&t, view, s - 1));
            if s == view.pps.len() {
                result.set(Some(Rc::new(Ok(view.clone()))));
            }
            next(s + 1, v, result, pending);
        }
        (_, Some(view)) => {
            let _ = c.topology().and_then(|t| answer_rules(&t, view));
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
pub fn use_training(cluster: Option<Cluster>, workload: String, fixed: Constraints) -> (Shared, bool) {
    let result = use_state(|| None::<Rc<Result<TrainingView, ModelError>>>);
    // Compared before re-rendering: most inputs find it already true.
    let pending = use_state_eq(|| false);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen = use_mut_ref(|| Rc::new(std::cell::Cell::new(0u64)));
    {
        let result = result.clone();
        let pending = pending.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster, workload, fixed), move |(c, w, ch)| {
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
