//! The serving panel's inputs and work: the deployment the user chose (plain data), what the
//! serving model makes of it on the page's cluster (its report, its curve as batch grows and
//! the counterpart across the NVLink boundary), and the TP x EP x DP x batch search (over 10^4
//! deployments), run when asked in the page's Web Worker (src/plumbing/worker.rs) with progress, or,
//! where no worker runs, in main-thread slices of at most [`SLICE_MS`] each.

use crate::widgets::training::SLICE_MS;
use crate::plumbing::worker::{self, Step, Task};
use crate::widgets::serving_choice::ServingChoice;
use fabricscope_model::{Cluster, ModelError, Topology};
use fabricscope_serving::curve::{group, with_counterpart, Curve, Group};
use fabricscope_serving::search::StagedSearch;
use fabricscope_serving::calibration::{intervals_of, ServeIntervals};
use fabricscope_serving::step::{ServeReport, Server};
use fabricscope_serving::{serving_preset, Deployment, SearchOptions, SearchPoint, SearchResult, ServingDefaults, ServingModel, DEFAULTS};
use serde::{Deserialize, Serialize};
use gloo_timers::callback::Timeout;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// What the model makes of a choice on a cluster.
#[derive(Debug, PartialEq)]
pub struct Served {
    pub report: ServeReport,
    /// The report's 90% intervals, as `fabricscope serve` states them (spanning the engines
    /// when the page gives none).
    pub intervals: Option<ServeIntervals>,
    /// The deployment's curve, then its counterpart across the NVLink boundary (if valid).
    pub curves: Vec<Curve>,
    pub group: Group,
    /// GPUs in one NVLink (scale-up) domain.
    pub domain_gpus: u32,
    /// The choice these numbers are for and its model's name (the preset id the picker shows): after a refused change the page
    /// keeps showing them under this name, not the refused choice's.
    pub choice: ServingChoice,
    pub name: String,
}

/// Evaluates `choice` on `cluster`: about 30 configurations (the curve and its counterpart).
pub fn serve(cluster: &Cluster, choice: &ServingChoice) -> Result<Served, ModelError> {
    let topo = cluster.topology()?;
    let model = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {}", choice.model)))?;
    let d = choice.deployment();
    let report = Server::new(&topo, &model)?.evaluate(&d)?;
    let curves = with_counterpart(&topo, &model, &d)?;
    let intervals = intervals_of(&topo, &model, &d, &report);
    Ok(Served { report, intervals, curves, group: group(&topo, &model, &d), domain_gpus: topo.domain_gpus, choice: *choice, name: model.name().to_string() })
}

/// A search's answer as the page shows it: the best point, not the ~10^4 it tried.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub best: Option<SearchPoint>,
    /// Deployments evaluated or refused.
    pub tried: usize,
    /// Refused (do not fit, invalid split).
    pub refused: u32,
}

impl Summary {
    fn of(r: &SearchResult) -> Summary {
        Summary { best: r.best.clone(), tried: r.points.len() + r.refused as usize, refused: r.refused }
    }
}

/// A search's answer and the inputs it answers.
pub struct Found {
    pub key: (Cluster, ServingChoice, u32),
    pub result: Result<Summary, ModelError>,
    /// From the click to the answer, ms.
    pub ms: f64,
    /// Whether it ran in the worker (else in main-thread slices).
    pub off_thread: bool,
}

/// The answer for the current inputs (if asked for and done), the progress while running
/// (deployments tried, in all), and the callback that starts it.
pub type Search = (Option<Rc<Found>>, Option<(usize, usize)>, Callback<()>);

/// Batches per octave the page's search tries (crates/serving's `batch_steps`, the CLI's
/// `serve --search` default): 144 batches up to 4,096, 12,672 deployments of DeepSeek-V3 on a
/// 1,024-GPU SuperPOD (issue 24's 10^4).
pub const BATCH_STEPS: u32 = DEFAULTS.batch_steps;
/// Largest batch per DP rank the page's search tries (the CLI's `--max-batch` default).
pub const MAX_BATCH: u32 = DEFAULTS.max_batch;

/// The search job the page posts to the worker (src/plumbing/worker.rs).
#[derive(Serialize, Deserialize)]
struct SearchJob {
    cluster: Cluster,
    model: String,
    base: Deployment,
    target: f64,
}

/// The search the CLI's `serve --search` runs with its defaults (one function for both).
fn search_options(base: Deployment, target: f64) -> SearchOptions {
    ServingDefaults::search_options(base, target, MAX_BATCH, BATCH_STEPS)
}

fn prepare(cluster: &Cluster, model: &str, opts: SearchOptions) -> Result<(Topology, ServingModel, StagedSearch), ModelError> {
    let topo = cluster.topology()?;
    let m = serving_preset(model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {model}")))?;
    let s = StagedSearch::new(&topo, &m, opts)?;
    Ok((topo, m, s))
}

/// The worker's answer: the summary, or the error's field and message.
type Answer = Result<Summary, (String, String)>;

/// The search in the worker.
struct SearchTask(Result<(Topology, ServingModel, StagedSearch), ModelError>);

impl Task for SearchTask {
    fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Step {
        let answer: Answer = match &mut self.0 {
            Err(e) => Err((e.field.to_string(), e.message.clone())),
            Ok((topo, m, s)) => match s.run(topo, m, more) {
                Ok(false) => {
                    let (d, t) = s.progress();
                    return Step::More(d as u64, t as u64);
                }
                Ok(true) => Ok(Summary::of(s.result())),
                Err(e) => Err((e.field.to_string(), e.message)),
            },
        };
        Step::Done(serde_json::to_string(&answer).unwrap_or_default())
    }
}

/// serving.html's worker jobs (its `main` in a worker serves them): the search.
pub fn worker_task(job: &str) -> Box<dyn Task> {
    let ready = serde_json::from_str::<SearchJob>(job)
        .map_err(|e| ModelError::new("search", format!("unreadable search request: {e}")))
        .and_then(|j| prepare(&j.cluster, &j.model, search_options(j.base, j.target)));
    Box::new(SearchTask(ready))
}

/// A field named in the worker's answer, as the page's errors name it.
fn field_of(name: &str) -> &'static str {
    const FIELDS: [&str; 9] = ["model", "tp", "ep", "dp", "batch", "context", "input_len", "precision", "min_tokens_per_s_per_user"];
    FIELDS.into_iter().find(|f| *f == name).unwrap_or("search")
}

/// The fallback where no worker runs: the same search in main-thread slices.
struct Job {
    key: (Cluster, ServingChoice, u32),
    topo: Topology,
    model: ServingModel,
    search: StagedSearch,
    t0: f64,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Found>>>,
    progress: UseStateHandle<Option<(usize, usize)>>,
}

impl Job {
    fn done(self, result: Result<Summary, ModelError>) {
        self.progress.set(None);
        self.result.set(Some(Rc::new(Found { key: self.key, result, ms: js_sys::Date::now() - self.t0, off_thread: false })));
    }

    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let start = js_sys::Date::now();
        match self.search.run(&self.topo, &self.model, &mut || js_sys::Date::now() - start < SLICE_MS) {
            Ok(true) => {
                let r = Summary::of(self.search.result());
                self.done(Ok(r))
            }
            Ok(false) => {
                self.progress.set(Some(self.search.progress()));
                Timeout::new(0, move || self.slice()).forget();
            }
            Err(e) => self.done(Err(e)),
        }
    }
}

/// The search for `choice`'s model on `cluster` at `target` output tokens/s per user (decode,
/// [`BATCH_STEPS`] batches per octave up to [`MAX_BATCH`]), started by the returned callback in
/// the page's worker (else in main-thread slices); a change of input stops it.
#[hook]
pub fn use_serving_search(cluster: Cluster, choice: ServingChoice, target: u32) -> Search {
    let choice = choice.search_key();
    let result = use_state(|| None::<Rc<Found>>);
    let progress = use_state_eq(|| None::<(usize, usize)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64))).borrow().clone();
    let ch = *use_memo((), |_| worker::channel());
    {
        let (gen, progress) = (gen.clone(), progress.clone());
        use_effect_with((cluster.clone(), choice, target), move |_| {
            gen.set(gen.get() + 1);
            worker::cancel(ch, gen.get());
            progress.set(None);
        });
    }
    let start = {
        let (result, progress, cluster) = (result.clone(), progress.clone(), cluster.clone());
        Callback::from(move |_| {
            gen.set(gen.get() + 1);
            let my = gen.get();
            let t0 = js_sys::Date::now();
            let key = (cluster.clone(), choice, target);
            let opts = search_options(choice.deployment(), target as f64);
            let (topo, model, search) = match prepare(&cluster, choice.model, opts) {
                Ok(x) => x,
                Err(e) => return result.set(Some(Rc::new(Found { key, result: Err(e), ms: 0.0, off_thread: false }))),
            };
            progress.set(Some(search.progress()));
            let job = serde_json::to_string(&SearchJob { cluster: cluster.clone(), model: choice.model.to_string(), base: choice.deployment(), target: target as f64 }).unwrap_or_default();
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
                    let result_of = match serde_json::from_str::<Answer>(&answer) {
                        Ok(Ok(s)) => Ok(s),
                        Ok(Err((field, message))) => Err(ModelError::new(field_of(&field), message)),
                        Err(e) => Err(ModelError::new("search", format!("unreadable answer from the worker: {e}"))),
                    };
                    progress.set(None);
                    result.set(Some(Rc::new(Found { key, result: result_of, ms: js_sys::Date::now() - t0, off_thread: true })));
                }
            };
            let fallback = {
                let (gen, result, progress) = (gen.clone(), result.clone(), progress.clone());
                move || {
                    let job = Job { key, topo, model, search, t0, my, gen, result, progress };
                    Timeout::new(0, move || job.slice()).forget();
                }
            };
            worker::run(ch, my, job, on_progress, on_done, fallback);
        })
    };
    let current = (*result).clone().filter(|f| (&f.key.0, f.key.1, f.key.2) == (&cluster, choice, target));
    (current, *progress, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_choice_serves_on_the_default_cluster_with_its_counterpart() {
        let c = Cluster { nodes: 2, ..Cluster::default() };
        let s = serve(&c, &ServingChoice::default()).unwrap();
        assert_eq!(s.curves.len(), 2);
        assert!(!s.group.crosses && s.curves[1].group.crosses);
        // An invalid split names its field.
        let e = serve(&c, &ServingChoice { tp: 3, ..ServingChoice::default() }).unwrap_err();
        assert_eq!(e.field, "tp");
        assert_eq!((s.choice, s.name.as_str()), (ServingChoice::default(), "llama3-70b"));
    }

    /// Issue 37: the page's search (its worker job, run here natively to the end) gives the
    /// best deployment `fabricscope_serving::search` gives with the serving defaults, which
    /// `serve --search` runs with no flags (crates/cli/tests/serve.rs holds the CLI to it).
    #[test]
    fn the_pages_search_is_the_clis_default_search() {
        let cluster = Cluster { nodes: 2, ..Cluster::default() };
        let choice = ServingChoice::default();
        let job = SearchJob { cluster: cluster.clone(), model: choice.model.to_string(), base: choice.search_key().deployment(), target: DEFAULTS.min_tokens_per_s_per_user };
        let mut task = worker_task(&serde_json::to_string(&job).unwrap());
        let answer = loop {
            if let Step::Done(a) = task.run(&mut || true) {
                break a;
            }
        };
        let page: Answer = serde_json::from_str(&answer).unwrap();
        let page = page.unwrap();
        let topo = cluster.topology().unwrap();
        let m = serving_preset(choice.model).unwrap();
        let cli = fabricscope_serving::search(&topo, &m, &ServingDefaults::search_options(DEFAULTS.deployment(), DEFAULTS.min_tokens_per_s_per_user, DEFAULTS.max_batch, DEFAULTS.batch_steps)).unwrap();
        // The same deployment; its figures equal but for the last digit serde_json's float
        // printing may drop on the way back from the worker.
        let (p, c) = (page.best.unwrap(), cli.best.unwrap());
        assert_eq!((p.tp, p.ep, p.dp, p.batch), (c.tp, c.ep, c.dp, c.batch));
        assert!((p.tokens_per_s_per_gpu / c.tokens_per_s_per_gpu - 1.0).abs() < 1e-12);
        assert_eq!(page.tried, cli.points.len() + cli.refused as usize);
        assert_eq!(choice.search_key().deployment().context, 1536);
    }
}
