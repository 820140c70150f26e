//! The right-sizer on the page (`fabricscope_design::rightsize`): run when asked, for the
//! cluster's GPUs and the chosen job, in slices of at most [`SLICE_MS`] each in its own task,
//! so input and paint get the main thread in between; a change of cluster, job or pins stops
//! it and retires its answer.

use crate::widgets::training::{workload, SLICE_MS};
use fabricscope_design::bom::PriceBook;
use fabricscope_design::rightsize::{RightSize, RightSizer};
use fabricscope_model::training::Constraints;
use fabricscope_model::{Cluster, ModelError};
use gloo_timers::callback::Timeout;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// What the right-sizer answered, and for which inputs.
pub struct Sized {
    pub key: (Cluster, String, Constraints),
    pub result: Result<RightSize, ModelError>,
    /// Numbers every answer (a drawing cache's key).
    pub seq: u64,
}

thread_local! {
    static ANSWERS: Cell<u64> = const { Cell::new(0) };
}

fn answer(key: (Cluster, String, Constraints), result: Result<RightSize, ModelError>) -> Rc<Sized> {
    let seq = ANSWERS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    Rc::new(Sized { key, result, seq })
}

/// The answer for the current inputs (if asked for and done), the progress while running
/// (work done, in all), and the callback that starts it.
pub type Rightsize = (Option<Rc<Sized>>, Option<(usize, usize)>, Callback<()>);

struct Job {
    key: (Cluster, String, Constraints),
    sizer: RightSizer,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Sized>>>,
    progress: UseStateHandle<Option<(usize, usize)>>,
}

impl Job {
    fn done(self, result: Result<RightSize, ModelError>) {
        self.progress.set(None);
        self.result.set(Some(answer(self.key, result)));
    }

    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let start = js_sys::Date::now();
        match self.sizer.run(&mut || js_sys::Date::now() - start < SLICE_MS) {
            Ok(true) => {
                let r = self.sizer.result().cloned().ok_or_else(|| ModelError::new("workload", "the right-sizer stopped early"));
                self.done(r)
            }
            Ok(false) => {
                self.progress.set(Some(self.sizer.progress()));
                Timeout::new(0, move || self.slice()).forget();
            }
            Err(e) => self.done(Err(e)),
        }
    }
}

#[hook]
pub fn use_rightsize(cluster: Option<Cluster>, job: String, fixed: Constraints) -> Rightsize {
    let result = use_state(|| None::<Rc<Sized>>);
    let progress = use_state_eq(|| None::<(usize, usize)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64))).borrow().clone();
    {
        let (gen, progress) = (gen.clone(), progress.clone());
        use_effect_with((cluster.clone(), job.clone(), fixed), move |_| {
            gen.set(gen.get() + 1);
            progress.set(None);
        });
    }
    let start = {
        let (result, progress, cluster, job) = (result.clone(), progress.clone(), cluster.clone(), job.clone());
        Callback::from(move |_| {
            let Some(c) = cluster.clone() else { return };
            gen.set(gen.get() + 1);
            let key = (c.clone(), job.clone(), fixed);
            let sizer = workload(&job).and_then(|w| RightSizer::new(&c, w, fixed, PriceBook::default()));
            let (result, progress) = (result.clone(), progress.clone());
            match sizer {
                Ok(sizer) => {
                    progress.set(Some(sizer.progress()));
                    let job = Job { key, sizer, my: gen.get(), gen: gen.clone(), result, progress };
                    Timeout::new(0, move || job.slice()).forget();
                }
                Err(e) => result.set(Some(answer(key, Err(e)))),
            }
        })
    };
    let current = (*result).clone().filter(|s| cluster.as_ref().is_some_and(|c| (&s.key.0, &s.key.1, s.key.2) == (c, &job, fixed)));
    (current, *progress, start)
}
