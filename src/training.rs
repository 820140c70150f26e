//! The training view on the page: `fabricscope_model::training::explore` run for the job and
//! the pinned layout, in stages so the page answers input between them.
//!
//! The search is the one costly part of the page (tens of ms for a 1024-GPU cluster in
//! wasm, seconds for a large MoE on thousands of nodes), so [`use_training`] runs it 150 ms
//! after the last change, in slices of a few milliseconds that yield to the event loop; every
//! input in between re-evaluates the last search's layouts on the new cluster (microseconds),
//! so the training numbers still follow a dragged slider.

use fabricscope_model::training::explore::{answer_rules, carry_over, Staged, TrainingView};
use fabricscope_model::training::Constraints;
use fabricscope_model::{Cluster, ModelError};
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

pub use fabricscope_model::training::explore::{
    constraints, cp_values, custom_id, custom_parts, dp_value, ep_values, layout_detail, layout_label, micro_batch_values, pp_values, recompute_choices,
    tp_values, workload, CUSTOM, CUSTOM_DEFAULT, CUSTOM_FIELDS, DEFAULT_WORKLOAD, ZERO_STAGES,
};

/// Delay after the last change before the search runs.
pub const SEARCH_DELAY_MS: u32 = 150;

/// Longest slice of search work run in one task, ms: well under the 50 ms that makes a long
/// task, so input and paint get the main thread between slices.
pub const SLICE_MS: f64 = 8.0;

/// How far a search has come: layouts tried and in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

type Shared = Option<Rc<Result<TrainingView, ModelError>>>;

/// A search's answer and the inputs it answers; `seq` numbers every answer published.
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

/// Where a running search is: its inputs, the search itself, and the view once found.
struct Job {
    c: Cluster,
    w: String,
    ch: Constraints,
    my: u64,
    gen: Rc<std::cell::Cell<u64>>,
    result: Latest,
    progress: UseStateHandle<Option<Progress>>,
    staged: Option<Staged>,
}

impl Job {
    fn publish(&self, view: Result<TrainingView, ModelError>) {
        let seq = PUBLISHED.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        self.result.set(Some(Rc::new(Computed { seq, cluster: self.c.clone(), workload: self.w.clone(), fixed: self.ch, view: Rc::new(view) })));
    }

    /// Runs one slice of at most [`SLICE_MS`] and schedules the next in a later task; stops
    /// when the inputs have changed since (`gen`).
    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let topo = match self.c.topology() {
            Ok(t) => t,
            Err(e) => {
                self.publish(Err(e));
                self.progress.set(None);
                return;
            }
        };
        let start = js_sys::Date::now();
        let staged = match self.staged.take() {
            Some(s) => Ok(s),
            None => Staged::new(&topo, &self.w, self.ch),
        };
        let mut staged = match staged {
            Ok(s) => s,
            Err(e) => {
                self.publish(Err(e));
                self.progress.set(None);
                return;
            }
        };
        let mut more = || js_sys::Date::now() - start < SLICE_MS;
        match staged.run(&topo, &mut more) {
            Ok(false) => {
                let (done, total) = staged.progress();
                self.progress.set(Some(Progress { done, total }));
                self.staged = Some(staged);
                Timeout::new(0, move || self.slice()).forget();
            }
            Ok(true) => {
                let view = staged.finish(&topo);
                let rules = view.as_ref().ok().map(|v| v.clone());
                self.publish(view);
                // The rules of thumb run further searches: in their own task, after the
                // answer is on screen.
                if let Some(mut v) = rules {
                    Timeout::new(0, move || {
                        if self.gen.get() == self.my {
                            let _ = answer_rules(&topo, &mut v);
                            self.publish(Ok(v));
                            self.progress.set(None);
                        }
                    })
                    .forget();
                } else {
                    self.progress.set(None);
                }
            }
            Err(e) => {
                self.publish(Err(e));
                self.progress.set(None);
            }
        }
    }
}

/// The training view for (cluster, workload, pins). The search runs [`SEARCH_DELAY_MS`]
/// after the last change, in slices of at most [`SLICE_MS`] each in its own task (the page
/// answers input and paints between them, and shows how far it has come). Until it answers,
/// every input gets the last search's layouts re-evaluated on the new cluster
/// ([`carry_over`]: step time, MFU and memory follow the slider at once; the ranking and MFU
/// grid are the last search's). Returns the view to show and, while a search runs, its
/// progress.
#[hook]
pub fn use_training(cluster: Option<Cluster>, workload: String, fixed: Constraints) -> (Shared, Option<Progress>) {
    let result = use_state(|| None::<Rc<Computed>>);
    // Compared before re-rendering: most inputs find it unchanged.
    let progress = use_state_eq(|| None::<Progress>);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen = use_mut_ref(|| Rc::new(std::cell::Cell::new(0u64)));
    {
        let result = result.clone();
        let progress = progress.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster.clone(), workload.clone(), fixed), move |(c, w, ch)| {
            gen.set(gen.get() + 1);
            let my = gen.get();
            match c.clone() {
                Some(c) => {
                    progress.set(Some(Progress { done: 0, total: 0 }));
                    let job = Job { c, w: w.clone(), ch: *ch, my, gen, result, progress, staged: None };
                    *timer.borrow_mut() = Some(Timeout::new(SEARCH_DELAY_MS, move || job.slice()));
                }
                None => *timer.borrow_mut() = None,
            }
        });
    }
    let latest = (*result).clone();
    let shown = use_memo((cluster, workload, fixed, latest.as_ref().map(|r| r.seq)), move |(c, w, f, _)| -> Shared {
        let r = latest?;
        let Some(c) = c else {
            return Some(r.view.clone());
        };
        if (&r.cluster, &r.workload, r.fixed) == (c, w, *f) {
            return Some(r.view.clone());
        }
        let carried = match (&*r.view, r.workload == *w) {
            (Ok(v), true) => c.topology().ok().and_then(|t| carry_over(&t, v, *f)),
            _ => None,
        };
        Some(carried.map_or_else(|| r.view.clone(), |v| Rc::new(Ok(v))))
    });
    ((*shown).clone(), *progress)
}
