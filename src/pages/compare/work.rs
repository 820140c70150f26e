//! The comparison's costly part, kept off the input path: for each design, the compared job's
//! layout search and then its scaling points (2 to 4096 nodes, the layout searched again at
//! each size: [`ScaleRun`]), run
//! [`crate::widgets::training::SEARCH_DELAY_MS`] after the last change in slices of at most
//! [`crate::widgets::training::SLICE_MS`], so no main-thread task nears 50 ms. Answers are kept per
//! design: pinning, renaming or dragging the page's own design recomputes nothing of the
//! other designs.

use crate::widgets::training::{SEARCH_DELAY_MS, SLICE_MS};
use fabricscope_design::compare::{ScalePoint, ScaleRun, SCALE_NODES};
use fabricscope_model::training::explore::{Staged, TrainingView};
use fabricscope_model::training::Constraints;
use fabricscope_model::units::Bytes;
use fabricscope_model::{Cluster, Collective};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// What one design's work depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub cluster: Cluster,
    pub workload: String,
    pub op: Collective,
    pub bytes: Bytes,
}

/// One design's answers so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The job's search on the design (its best layout); `None` until done, or when the job
    /// cannot run there.
    pub training: Option<Rc<TrainingView>>,
    pub scaling: Rc<Vec<ScalePoint>>,
}

struct Entry {
    key: Key,
    out: Outcome,
    staged: Option<Staged>,
    /// The scaling point under way (the next of [`SCALE_NODES`]).
    scale: Option<ScaleRun>,
    /// The search is over (answered or failed): the scaling points come next.
    searched: bool,
}

impl Entry {
    fn done(&self) -> bool {
        self.searched && self.out.scaling.len() == SCALE_NODES.len()
    }

    /// Advances while `more()`; returns whether something new can be shown.
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        if !self.searched {
            let Ok(topo) = self.key.cluster.topology() else {
                self.searched = true;
                return true;
            };
            let staged = match self.staged.take() {
                Some(s) => Ok(s),
                None => Staged::new(&topo, &self.key.workload, Constraints::default()),
            };
            let Ok(mut staged) = staged else {
                self.searched = true;
                return true;
            };
            match staged.run(&topo, more) {
                Ok(false) => {
                    self.staged = Some(staged);
                    return false;
                }
                done => {
                    self.searched = true;
                    self.out.training = done.and_then(|_| staged.finish(&topo)).ok().map(Rc::new);
                    return true;
                }
            }
        }
        let mut pts = (*self.out.scaling).clone();
        while pts.len() < SCALE_NODES.len() && more() {
            let k = &self.key;
            let run = self.scale.get_or_insert_with(|| ScaleRun::new(&k.cluster, SCALE_NODES[pts.len()], k.op, k.bytes, Some(&k.workload)));
            if !run.run(more) {
                break;
            }
            pts.extend(self.scale.take().map(ScaleRun::finish));
        }
        self.out.scaling = Rc::new(pts);
        self.done()
    }
}

type Store = Rc<RefCell<Vec<Entry>>>;

thread_local! {
    /// Answers published so far: each gets its own number (what drawings memoize on).
    static TICKS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}
type Gen = Rc<std::cell::Cell<u32>>;

/// Runs slices until every entry is done or the keys change (`gen`), re-rendering (`tick`)
/// when an answer is new.
fn slice(store: Store, tick: UseStateHandle<u32>, gen: Gen, my: u32) {
    if gen.get() != my {
        return;
    }
    let start = js_sys::Date::now();
    let mut more = || js_sys::Date::now() - start < SLICE_MS;
    let mut shown = false;
    for e in store.borrow_mut().iter_mut().filter(|e| !e.done()) {
        shown |= e.step(&mut more);
        if !more() {
            break;
        }
    }
    // Over every entry, not just those this slice reached: a slice that ends as one design
    // finishes must not stop the chain before the designs after it.
    let left = store.borrow().iter().any(|e| !e.done());
    if shown || !left {
        // A new value each time: the page re-renders, reads the store and redraws.
        tick.set(TICKS.with(|n| {
            n.set(n.get().wrapping_add(1));
            n.get()
        }));
    }
    if left {
        Timeout::new(0, move || slice(store, tick, gen, my)).forget();
    }
}

/// Each key's answers so far, in order, whether work is still under way, and a number that
/// changes whenever an answer is new (for memoizing what is drawn from them).
#[hook]
pub fn use_compare_work(keys: Vec<Key>) -> (Vec<Outcome>, bool, u32) {
    let store: Store = use_mut_ref(Vec::new);
    let timer = use_mut_ref(|| None::<Timeout>);
    let gen: Gen = (*use_mut_ref(|| Rc::new(std::cell::Cell::new(0u32))).borrow()).clone();
    let tick = use_state(|| 0u32);
    {
        let (store, tick) = (store.clone(), tick.clone());
        use_effect_with(keys.clone(), move |keys| {
            let mut s = store.borrow_mut();
            s.retain(|e| keys.contains(&e.key));
            for k in keys {
                if !s.iter().any(|e| e.key == *k) {
                    s.push(Entry { key: k.clone(), out: Outcome::default(), staged: None, scale: None, searched: false });
                }
            }
            let idle = s.iter().all(Entry::done);
            drop(s);
            gen.set(gen.get() + 1);
            let my = gen.get();
            // Replacing the timeout cancels the previous wait; a running chain stops at `gen`.
            *timer.borrow_mut() = (!idle).then(|| Timeout::new(SEARCH_DELAY_MS, move || slice(store, tick, gen, my)));
        });
    }
    let s = store.borrow();
    let found: Vec<Option<&Entry>> = keys.iter().map(|k| s.iter().find(|e| e.key == *k)).collect();
    // Busy until every key has an entry that is done (a new key has none before its effect).
    let busy = found.iter().any(|e| !e.is_some_and(Entry::done));
    (found.iter().map(|e| e.map(|e| e.out.clone()).unwrap_or_default()).collect(), busy, *tick)
}
