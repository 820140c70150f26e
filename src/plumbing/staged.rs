//! A long job with a serde answer (a deployment search, a serving plan) run in the page's Web
//! Worker with progress ([`super::worker`]), else, where no worker runs, in main-thread slices of
//! at most [`SLICE_MS`]; a change of its key cancels it and drops any answer of an older start.
//! One hook for every such panel, so each only says how to build its job.

use super::worker::{self, Step, Task};
use fabricscope_model::ModelError;
use gloo_timers::callback::Timeout;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// Longest slice of work run in one main-thread task, ms: well under the 50 ms that makes a long
/// task, so input and paint get the main thread between slices.
pub const SLICE_MS: f64 = 8.0;

/// A job that works in slices.
pub trait Staged: 'static {
    type Answer: Serialize + DeserializeOwned + 'static;
    /// Works while `more()` (at least one unit per call); the answer once done.
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> Result<Option<Self::Answer>, ModelError>;
    /// (units done, units in all).
    fn progress(&self) -> (usize, usize);
}

/// The worker's answer on the wire: the answer, or the error's field and message.
type Wire<A> = Result<A, (String, String)>;

/// A staged job (or the error that kept it from starting) as the worker runs it.
pub struct StagedTask<S: Staged>(pub Result<S, ModelError>);

impl<S: Staged> Task for StagedTask<S> {
    fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Step {
        let answer: Wire<S::Answer> = match &mut self.0 {
            Err(e) => Err((e.field.to_string(), e.message.clone())),
            Ok(s) => match s.step(more) {
                Ok(None) => {
                    let (d, t) = s.progress();
                    return Step::More(d as u64, t as u64);
                }
                Ok(Some(a)) => Ok(a),
                Err(e) => Err((e.field.to_string(), e.message)),
            },
        };
        Step::Done(serde_json::to_string(&answer).unwrap_or_default())
    }
}

/// A job's answer and the key it answers.
pub struct Done<K, A> {
    pub key: K,
    pub result: Result<A, ModelError>,
    /// From the click to the answer, ms.
    pub ms: f64,
    /// Whether it ran in the worker (else in main-thread slices).
    pub off_thread: bool,
}

/// The answer for the current key (if asked for and done), the progress while running, and the
/// callback that starts the job.
pub type Staging<K, A> = (Option<Rc<Done<K, A>>>, Option<(usize, usize)>, Callback<()>);

/// The fallback where no worker runs: the same job in main-thread slices.
struct Local<K: 'static, S: Staged> {
    key: K,
    job: S,
    t0: f64,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Done<K, S::Answer>>>>,
    progress: UseStateHandle<Option<(usize, usize)>>,
}

impl<K: 'static, S: Staged> Local<K, S> {
    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let start = js_sys::Date::now();
        let result = match self.job.step(&mut || js_sys::Date::now() - start < SLICE_MS) {
            Ok(None) => {
                self.progress.set(Some(self.job.progress()));
                Timeout::new(0, move || self.slice()).forget();
                return;
            }
            Ok(Some(a)) => Ok(a),
            Err(e) => Err(e),
        };
        self.progress.set(None);
        self.result.set(Some(Rc::new(Done { key: self.key, result, ms: js_sys::Date::now() - self.t0, off_thread: false })));
    }
}

/// The job `make` builds for `key` (the main-thread job and the worker's JSON text), started by
/// the returned callback; `field_of` maps a field the worker names back to the page's own.
#[hook]
pub fn use_staged<K, S>(key: K, make: fn(&K) -> Result<(S, String), ModelError>, field_of: fn(&str) -> &'static str) -> Staging<K, S::Answer>
where
    K: Clone + PartialEq + 'static,
    S: Staged,
{
    let result = use_state(|| None::<Rc<Done<K, S::Answer>>>);
    let progress = use_state_eq(|| None::<(usize, usize)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64))).borrow().clone();
    let ch = *use_memo((), |_| worker::channel());
    {
        let (gen, progress) = (gen.clone(), progress.clone());
        use_effect_with(key.clone(), move |_| {
            gen.set(gen.get() + 1);
            worker::cancel(ch, gen.get());
            progress.set(None);
        });
    }
    let start = {
        let (result, progress, key) = (result.clone(), progress.clone(), key.clone());
        Callback::from(move |_| {
            gen.set(gen.get() + 1);
            let my = gen.get();
            let t0 = js_sys::Date::now();
            let (job, text) = match make(&key) {
                Ok(x) => x,
                Err(e) => return result.set(Some(Rc::new(Done { key: key.clone(), result: Err(e), ms: 0.0, off_thread: false }))),
            };
            progress.set(Some(job.progress()));
            let on_progress = {
                let (gen, progress) = (gen.clone(), progress.clone());
                move |d: u64, t: u64| {
                    if gen.get() == my {
                        progress.set(Some((d as usize, t as usize)));
                    }
                }
            };
            let on_done = {
                let (gen, progress, result, key) = (gen.clone(), progress.clone(), result.clone(), key.clone());
                move |answer: String| {
                    if gen.get() != my {
                        return;
                    }
                    let read = match serde_json::from_str::<Wire<S::Answer>>(&answer) {
                        Ok(Ok(a)) => Ok(a),
                        Ok(Err((field, message))) => Err(ModelError::new(field_of(&field), message)),
                        Err(e) => Err(ModelError::new("worker", format!("unreadable answer from the worker: {e}"))),
                    };
                    progress.set(None);
                    result.set(Some(Rc::new(Done { key, result: read, ms: js_sys::Date::now() - t0, off_thread: true })));
                }
            };
            let fallback = {
                let (gen, result, progress, key) = (gen.clone(), result.clone(), progress.clone(), key.clone());
                move || {
                    let local = Local { key, job, t0, my, gen, result, progress };
                    Timeout::new(0, move || local.slice()).forget();
                }
            };
            worker::run(ch, my, text, on_progress, on_done, fallback);
        })
    };
    let current = (*result).clone().filter(|f| f.key == key);
    (current, *progress, start)
}
