//! The training view on the page: `fabricscope_model::training::explore` run for the job and
//! the pinned layout, in stages so the page answers input between them.
//!
//! The search is the one costly part of the page (tens of ms for a 1024-GPU cluster in
//! wasm, seconds for a large MoE on thousands of nodes), so [`use_training`] runs it 150 ms
//! after the last change, once a dragged slider has come to rest, in slices of a few
//! milliseconds that yield to the event loop; every input in between re-evaluates the last
//! search's layouts on the new cluster (microseconds), so the training numbers still follow a
//! dragged slider.

use fabricscope_model::training::explore::{carry_over, Staged, StagedRules, TrainingView};
use fabricscope_model::training::{Constraints, Framework};
use fabricscope_model::{Cluster, ModelError};
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

pub use fabricscope_model::training::explore::{
    constraints, cp_values, custom_id, framework_ids, framework_of, interleave_choices, custom_parts, dp_value, ep_values, layout_detail, layout_label, micro_batch_values, pp_values, recompute_choices,
    tp_values, workload, CUSTOM, CUSTOM_DEFAULT, CUSTOM_FIELDS, DEFAULT_WORKLOAD, ZERO_STAGES,
};

/// Delay after the last change before the search runs.
pub const SEARCH_DELAY_MS: u32 = 150;

pub use crate::plumbing::staged::SLICE_MS;

/// How far a search has come: layouts tried and in all (0 of 0 before it starts); `rules`
/// once the layouts are done and the rules of thumb are being answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub rules: bool,
}

type Shared = Option<Rc<Result<TrainingView, ModelError>>>;

/// A search's answer and the inputs it answers; `seq` numbers every answer published.
struct Computed {
    seq: u64,
    cluster: Cluster,
    workload: String,
    fixed: Constraints,
    fw: Framework,
    view: Rc<Result<TrainingView, ModelError>>,
}

type Latest = UseStateHandle<Option<Rc<Computed>>>;

thread_local! {
    /// Answers published so far (a state handle only sees the value of its own render).
    static PUBLISHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// What a running search is doing: the layout search, then the rules of thumb.
enum Phase {
    Search(Option<Staged>),
    Rules(TrainingView, StagedRules),
}

/// Where a running search is: its inputs, and the phase it has reached.
struct Job {
    c: Cluster,
    w: String,
    ch: Constraints,
    fw: Framework,
    my: u64,
    gen: Rc<std::cell::Cell<u64>>,
    result: Latest,
    progress: UseStateHandle<Option<Progress>>,
    phase: Phase,
}

impl Job {
    fn publish(&self, view: Result<TrainingView, ModelError>) {
        let seq = PUBLISHED.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        self.result.set(Some(Rc::new(Computed { seq, cluster: self.c.clone(), workload: self.w.clone(), fixed: self.ch, fw: self.fw, view: Rc::new(view) })));
    }

    fn fail(&self, e: ModelError) {
        self.publish(Err(e));
        self.progress.set(None);
    }

    /// Starts the search, or waits [`SEARCH_DELAY_MS`] more while a slider is still being
    /// dragged: a drag slower than one input per [`SEARCH_DELAY_MS`] (or a busy machine's
    /// slow frames) would otherwise start a search between its inputs and redraw the training
    /// panel with each answer, inside the drag's frames.
    fn start(self) {
        if self.gen.get() != self.my {
            return;
        }
        if crate::plumbing::hooks::dragging() {
            Timeout::new(SEARCH_DELAY_MS, move || self.start()).forget();
        } else {
            self.slice();
        }
    }

    /// Runs one slice of at most about [`SLICE_MS`] and schedules the next in a later task;
    /// stops when the inputs have changed since (`gen`).
    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let topo = match self.c.topology() {
            Ok(t) => t,
            Err(e) => return self.fail(e),
        };
        let start = js_sys::Date::now();
        let mut more = || js_sys::Date::now() - start < SLICE_MS;
        let phase = std::mem::replace(&mut self.phase, Phase::Search(None));
        self.phase = match phase {
            Phase::Search(staged) => {
                let staged = match staged.map_or_else(|| Staged::new_for(&topo, &self.w, self.ch, self.fw), Ok) {
                    Ok(s) => s,
                    Err(e) => return self.fail(e),
                };
                let mut staged = staged;
                match staged.run(&topo, &mut more) {
                    Ok(false) => {
                        let (done, total) = staged.progress();
                        self.progress.set(Some(Progress { done, total, rules: false }));
                        Phase::Search(Some(staged))
                    }
                    Ok(true) => match (staged.finish_keeping_caches(&topo), StagedRules::new_for(&self.w, self.fw)) {
                        (Ok((view, caches)), Ok(rules)) => {
                            let rules = rules.with_caches(&self.c, caches);
                            // The answer goes on screen now; the rules follow.
                            self.publish(Ok(view.clone()));
                            self.progress.set(Some(Progress { done: 0, total: 0, rules: true }));
                            Phase::Rules(view, rules)
                        }
                        (Err(e), _) | (_, Err(e)) => return self.fail(e),
                    },
                    Err(e) => return self.fail(e),
                }
            }
            Phase::Rules(mut view, mut rules) => match rules.run(&topo, &mut more) {
                Ok(false) => Phase::Rules(view, rules),
                Ok(true) => {
                    view.rules = rules.rules();
                    self.publish(Ok(view));
                    self.progress.set(None);
                    return;
                }
                Err(_) => {
                    // Rules are extras: the view stands without them.
                    self.progress.set(None);
                    return;
                }
            },
        };
        Timeout::new(0, move || self.slice()).forget();
    }
}

/// The training view for (cluster, workload, pins, framework). The search runs [`SEARCH_DELAY_MS`]
/// after the last change, in slices of at most [`SLICE_MS`] each in its own task (the page
/// answers input and paints between them, and shows how far it has come). Until it answers,
/// every input gets the last search's layouts re-evaluated on the new cluster
/// ([`carry_over`]: step time, MFU and memory follow the slider at once; the ranking and MFU
/// grid are the last search's). Returns the view to show and, while a search runs, its
/// progress.
#[hook]
pub fn use_training(cluster: Option<Cluster>, workload: String, fixed: Constraints, fw: Framework) -> (Shared, Option<Progress>) {
    let result = use_state(|| None::<Rc<Computed>>);
    // Compared before re-rendering: most inputs find it unchanged.
    let progress = use_state_eq(|| None::<Progress>);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen = use_mut_ref(|| Rc::new(std::cell::Cell::new(0u64)));
    {
        let result = result.clone();
        let progress = progress.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster.clone(), workload.clone(), fixed, fw), move |(c, w, ch, fw)| {
            gen.set(gen.get() + 1);
            let my = gen.get();
            match c.clone() {
                Some(c) => {
                    progress.set(Some(Progress { done: 0, total: 0, rules: false }));
                    let job = Job { c, w: w.clone(), ch: *ch, fw: *fw, my, gen, result, progress, phase: Phase::Search(None) };
                    *timer.borrow_mut() = Some(Timeout::new(SEARCH_DELAY_MS, move || job.start()));
                }
                None => *timer.borrow_mut() = None,
            }
        });
    }
    let latest = (*result).clone();
    let shown = use_memo((cluster, workload, fixed, fw, latest.as_ref().map(|r| r.seq)), move |(c, w, f, fw, _)| -> Shared {
        let r = latest?;
        let Some(c) = c else {
            return Some(r.view.clone());
        };
        if (&r.cluster, &r.workload, r.fixed, r.fw) == (c, w, *f, *fw) {
            return Some(r.view.clone());
        }
        let carried = match (&*r.view, r.workload == *w && r.fw == *fw) {
            (Ok(v), true) => c.topology().ok().and_then(|t| carry_over(&t, v, *f)),
            _ => None,
        };
        Some(carried.map_or_else(|| r.view.clone(), |v| Rc::new(Ok(v))))
    });
    ((*shown).clone(), *progress)
}

/// The `p=` parameter of a framed page's link: a layout (`Parallel`) as base64url JSON, so
/// the congestion page times the explorer's chosen layout over its seeds without searching.
pub const LAYOUT_PARAM: &str = "p=";

/// `par` as the value of [`LAYOUT_PARAM`] (through a `Value`, whose serializer the link uses).
pub fn layout_param(par: &fabricscope_model::training::Parallel) -> String {
    let json = serde_json::to_value(par).map(|v| fabricscope_model::link::json_text(&v)).unwrap_or_default();
    fabricscope_model::link::base64url_encode(json.as_bytes())
}

/// The layout a link's [`LAYOUT_PARAM`] carries; `None` when absent or unreadable.
pub fn layout_of(fragment: &str) -> Option<fabricscope_model::training::Parallel> {
    let raw = fabricscope_model::link::find_param("", fragment, LAYOUT_PARAM)?;
    let bytes = fabricscope_model::link::base64url_decode(raw)?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    serde_json::from_value(value).ok()
}
