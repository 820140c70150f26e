//! The congestion study on the page: crates/flow's seeds run in the page's Web Worker
//! (src/plumbing/worker.rs, [`WORKER`] limits), or where no worker runs a few at a time in main-thread
//! slices of at most [`SLICE_MS`] ([`PAGE`] limits: the page answers input and paints between
//! them), only while the panel is on screen; the last answer stays shown, marked stale, until
//! the new one is complete.

use crate::plumbing::worker::{self, Step, Task};
use fabricscope_flow::sim::seed_work;
use fabricscope_flow::{failed_fabric, link_loads, ClosSpec, Fabric, Failures, Loads, Options, Outcome, Placement, Routing, Seeds, Traffic};
use fabricscope_flow::step::{experts_cross, step_over_seeds, StepSpread, Stragglers};
use fabricscope_model::training::explore::workload;
use fabricscope_model::training::{Framework, Parallel};
use fabricscope_model::{Cluster, ModelError};
use serde::{Deserialize, Serialize};
use gloo_timers::callback::Timeout;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// Longest slice of seeds run in one task, ms (as the training search's slices).
pub const SLICE_MS: f64 = 8.0;
/// Delay after the last change while a slider is dragged, ms.
const DRAG_WAIT_MS: u32 = 150;
/// A seed that took longer than this in the page stops the study after it, ms: the next
/// would be a long task too (over 50 ms blocks input); the CLI runs the rest.
const LONG_SEED_MS: f64 = 40.0;
/// Most routed paths per seed the page runs under ECMP (count: one path per connection).
/// Measured in the release page (Chromium, this 2-core machine): a ring over 1,024 NICs, 8
/// seeds, 22 ms in all; an all-to-all over 16 nodes (15,360 paths) 45 ms a seed, too long.
pub const PAGE_ECMP_PATHS: u64 = 5_000;
/// Most NICs a random permutation covers in the page (count): its max-min solve takes many
/// more filling rounds than a ring's (one per distinct rate); measured 41 ms a seed at 512
/// NICs and 79 ms at 1,024 under ECMP in the release page.
pub const PAGE_PERMUTATION_NICS: u64 = 256;
/// Most NIC-to-NIC demands per seed the page runs when split (adaptive, spray) (count: an
/// all-to-all over 32 nodes of 8 NICs is 7,936 and takes about 5 ms natively).
pub const PAGE_SPLIT_DEMANDS: u64 = 10_000;

/// How large a seed may be where a study runs, and when a long seed stops it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Routed paths per seed under ECMP (count).
    pub ecmp_paths: u64,
    /// NICs a random permutation covers (count).
    pub permutation_nics: u64,
    /// NIC-to-NIC demands per seed when split (count).
    pub split_demands: u64,
    /// A seed longer than this stops the study after it, ms.
    pub long_seed_ms: f64,
    /// Where: "the page" or "the background worker".
    pub place: &'static str,
}

/// In main-thread slices (where no worker runs): every seed a short task.
pub const PAGE: Limits = Limits { ecmp_paths: PAGE_ECMP_PATHS, permutation_nics: PAGE_PERMUTATION_NICS, split_demands: PAGE_SPLIT_DEMANDS, long_seed_ms: LONG_SEED_MS, place: "the page" };

/// In the page's Web Worker (src/plumbing/worker.rs), where a long seed blocks no input: an ECMP
/// all-to-all over 128 nodes of 8 GPUs (1,040,384 paths a seed; hashed and counted per link,
/// only the connections on the first links to fill made flows, crates/flow early.rs: about
/// 17 ms a seed natively), a permutation over 1,024 NICs (79 ms a seed in the release page), a
/// split all-to-all over 128 nodes of 8 NICs (130,048 demands); a study of 16 such seeds
/// answers in seconds, and a seed over 2 s stops it (the CLI runs the rest).
pub const WORKER: Limits = Limits { ecmp_paths: 1_100_000, permutation_nics: 1_024, split_demands: 130_000, long_seed_ms: 2_000.0, place: "the background worker" };

/// What the user chose in the panel (the cluster comes from the page).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `None`: the NIC's own fabric (adaptive on InfiniBand, ECMP on Ethernet).
    pub routing: Option<Routing>,
    pub traffic: Traffic,
    pub placement: Placement,
    pub seeds: u32,
    pub other_jobs: u32,
    pub failures: Failures,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { routing: None, traffic: Traffic::Ring, placement: Placement::Contiguous, seeds: 16, other_jobs: 0, failures: Failures::default() }
    }
}

/// The explorer's training job on show, as the link carries it: the workload and framework of
/// its scenario and the layout of its `p=` (see [`crate::widgets::training::layout_of`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingJob {
    pub workload: String,
    pub framework: Framework,
    pub parallel: Parallel,
}

/// The traffics a training step needs studied beside the panel's own (`s.traffic`): the
/// data-parallel ring, and the all-to-all when the job's experts cross nodes (as the CLI's
/// `train --routing` does).
pub fn step_traffics(c: &Cluster, s: &Settings, job: &TrainingJob) -> Vec<Traffic> {
    let crosses = c.topology().ok().zip(workload(&job.workload).ok()).is_some_and(|(t, w)| experts_cross(&t, &w, &job.parallel));
    [Some(Traffic::Ring), crosses.then_some(Traffic::AllToAll)].into_iter().flatten().filter(|t| *t != s.traffic).collect()
}

/// The step over the studies' seeds: `studies[i]` answers `key[i]`; the ring's and the
/// all-to-all's fractions are read from whichever study has that traffic.
pub fn step_spread(key: &[(Cluster, Settings)], studies: &[Study], job: &TrainingJob, slow: &Stragglers) -> Result<StepSpread, ModelError> {
    let (c, _) = key.first().ok_or_else(|| ModelError::new("traffic", "no study"))?;
    // A study the step needs that did not answer leaves no step: its note says why.
    let fractions = |t: Traffic| -> Result<Option<Vec<f64>>, ModelError> {
        match key.iter().zip(studies).find(|(k, _)| k.1.traffic == t) {
            None => Ok(None),
            Some((_, st)) => match &st.outcome {
                Ok(o) => Ok(Some(o.per_seed.clone())),
                Err(e) => Err(ModelError::new("traffic", format!("the {} study the step needs did not run: {}", t.id(), st.note.as_ref().unwrap_or(&e.message)))),
            },
        }
    };
    let topo = c.topology()?;
    let w = workload(&job.workload)?;
    let ring = fractions(Traffic::Ring)?;
    let a2a = if experts_cross(&topo, &w, &job.parallel) { fractions(Traffic::AllToAll)? } else { None };
    step_over_seeds(&topo, &w, job.framework, &job.parallel, ring.as_deref(), a2a.as_deref(), slow)
}

/// The routing a setting means on this cluster.
pub fn routing_of(s: &Settings, c: &Cluster) -> Routing {
    s.routing.unwrap_or(match c.nic.spec().routing {
        fabricscope_model::catalog::Routing::Adaptive => Routing::Adaptive,
        fabricscope_model::catalog::Routing::Ecmp => Routing::Ecmp,
    })
}

/// The study's options for `s` on `c`.
pub fn options(s: &Settings, c: &Cluster) -> Options {
    Options {
        traffic: s.traffic,
        routing: routing_of(s, c),
        seeds: s.seeds,
        placement: s.placement,
        gpus_per_node: c.gpus_per_node,
        failures: s.failures,
        other_jobs: s.other_jobs,
        ..Options::default()
    }
}

/// Whether one seed fits `lim`.
pub fn fits(spec: &ClosSpec, o: &Options, lim: &Limits) -> bool {
    if o.traffic == Traffic::RandomPermutation && spec.nodes as u64 * spec.nics_per_node as u64 > lim.permutation_nics {
        return false;
    }
    seed_work(spec, o) <= if o.routing == Routing::Ecmp { lim.ecmp_paths } else { lim.split_demands }
}

/// Whether one seed fits the page's main-thread budget.
pub fn fits_page(spec: &ClosSpec, o: &Options) -> bool {
    fits(spec, o, &PAGE)
}

/// One study's answer.
#[derive(Debug)]
pub struct Study {
    pub outcome: Result<Outcome, ModelError>,
    /// The median seed's link loads (when asked for and the study ran).
    pub loads: Option<Rc<Loads>>,
    /// Why the study stopped early or did not run in the page.
    pub note: Option<String>,
}

/// The answers to a list of studies and the inputs they answer.
#[derive(Debug)]
pub struct Done {
    pub key: Vec<(Cluster, Settings)>,
    pub studies: Vec<Study>,
    pub seq: u64,
}

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// The study in progress: its fabric and seeds so far.
struct Running {
    fab: Rc<Fabric>,
    seeds: Seeds,
}

/// The studies of a key, worked through a unit at a time (a study's setup, a seed, the
/// drawing's solve) by the page's slices or by the worker.
pub struct Runner {
    key: Vec<(Cluster, Settings)>,
    /// Solve the median seed's loads too (the explorer's drawing).
    draw: bool,
    lim: Limits,
    studies: Vec<Study>,
    running: Option<Running>,
    /// The running study's seeds are done: end it (the drawing's solve) next, in a slice of
    /// its own.
    end_next: bool,
}

impl Runner {
    pub fn new(key: Vec<(Cluster, Settings)>, draw: bool, lim: Limits) -> Runner {
        Runner { key, draw, lim, studies: Vec::new(), running: None, end_next: false }
    }

    /// The running study's (seeds solved, seeds in all).
    pub fn progress(&self) -> (u32, u32) {
        self.running.as_ref().map_or((0, 0), |r| r.seeds.progress())
    }

    /// Sets up the next study: its fabric, or its answer when it cannot run here.
    fn next_study(&mut self) {
        let (c, s) = &self.key[self.studies.len()];
        let o = options(s, c);
        let built = c.topology().and_then(|t| ClosSpec::from_topology(&t)).and_then(Fabric::build);
        match built {
            Err(e) => self.studies.push(Study { outcome: Err(e), loads: None, note: None }),
            Ok(fab) if !fits(&fab.spec, &o, &self.lim) => {
                let ecmp = o.routing == Routing::Ecmp;
                let note = format!(
                    "Too large to sample in {} without blocking it: {} routed {} per seed (it runs up to {}). Run it with the CLI: {}",
                    self.lim.place,
                    seed_work(&fab.spec, &o),
                    if ecmp { "paths" } else { "flows" },
                    if ecmp { self.lim.ecmp_paths } else { self.lim.split_demands },
                    cli_line(c, s)
                );
                self.studies.push(Study { outcome: Err(ModelError::new("traffic", "too large for the page")), loads: None, note: Some(note) });
            }
            Ok(fab) => self.running = Some(Running { fab: Rc::new(fab), seeds: Seeds::new(o) }),
        }
    }

    /// Ends the running study: its figures and, when drawing, the median seed's loads.
    fn end_study(&mut self, note: Option<String>) {
        let Some(r) = self.running.take() else { return };
        // Only the first study is drawn (the others time the training step).
        let loads = if self.draw && self.studies.is_empty() { r.seeds.median_seed().and_then(|s| link_loads(&r.fab, r.seeds.options(), s).ok()) } else { None };
        let outcome = r.seeds.outcome().ok_or_else(|| ModelError::new("seeds", "no seed was solved"));
        self.studies.push(Study { outcome, loads: loads.map(Rc::new), note });
    }

    /// Works a unit at a time while `more()`; true once every study is answered.
    pub fn work(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        loop {
            if std::mem::take(&mut self.end_next) {
                self.end_study(None);
            }
            if self.studies.len() == self.key.len() {
                return true;
            }
            match self.running.as_mut() {
                None => self.next_study(),
                Some(r) => {
                    let t = js_sys::Date::now();
                    match r.seeds.step(&r.fab) {
                        Err(e) => {
                            self.running = None;
                            self.studies.push(Study { outcome: Err(e), loads: None, note: None });
                        }
                        // The drawing's solve in a slice of its own.
                        Ok(true) if self.draw && self.studies.is_empty() => {
                            self.end_next = true;
                            return false;
                        }
                        Ok(true) => self.end_study(None),
                        Ok(false) => {
                            let took = js_sys::Date::now() - t;
                            if took > self.lim.long_seed_ms {
                                let (done, total) = r.seeds.progress();
                                let place = self.lim.place;
                                self.end_study(Some(format!("Stopped after {done} of {total} seeds: one seed took {took:.0} ms in {place}. The CLI's fabricscope congestion runs them all.")));
                            }
                        }
                    }
                }
            }
            if !more() {
                return self.studies.len() == self.key.len() && !self.end_next;
            }
        }
    }

    pub fn into_studies(self) -> Vec<Study> {
        self.studies
    }
}

/// A study as the worker sends it: the outcome's JSON (without its per-seed list, sent
/// beside it), the error's field and message, the drawing's loads (per link, and the seed).
#[derive(Serialize, Deserialize)]
struct StudyWire {
    outcome: Result<Outcome, (String, String)>,
    per_seed: Vec<f64>,
    loads: Option<(Vec<f64>, u64)>,
    note: Option<String>,
}

/// The job the page posts to the worker.
#[derive(Serialize, Deserialize)]
struct StudiesJob {
    key: Vec<(Cluster, Settings)>,
    draw: bool,
}

/// The studies in the worker (its limits: [`WORKER`]).
struct StudiesTask(Option<Runner>);

impl Task for StudiesTask {
    fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Step {
        let Some(r) = self.0.as_mut() else { return Step::Done(String::new()) };
        if !r.work(more) {
            let (d, t) = r.progress();
            return Step::More(d as u64, t as u64);
        }
        let wire: Vec<StudyWire> = self
            .0
            .take()
            .map(Runner::into_studies)
            .unwrap_or_default()
            .into_iter()
            .map(|st| {
                let per_seed = st.outcome.as_ref().map(|o| o.per_seed.clone()).unwrap_or_default();
                StudyWire {
                    outcome: st.outcome.map_err(|e| (e.field.to_string(), e.message)),
                    per_seed,
                    loads: st.loads.map(|l| (l.utilisation.clone(), l.seed)),
                    note: st.note,
                }
            })
            .collect();
        Step::Done(serde_json::to_string(&wire).unwrap_or_default())
    }
}

/// congestion.html's worker jobs (its `main` in a worker serves them): a list of studies.
pub fn worker_task(job: &str) -> Box<dyn Task> {
    Box::new(StudiesTask(serde_json::from_str::<StudiesJob>(job).ok().map(|j| Runner::new(j.key, j.draw, WORKER))))
}

/// A field named in the worker's answer, as the page's errors name it.
fn field_of(name: &str) -> &'static str {
    const FIELDS: [&str; 12] = ["seeds", "traffic", "nodes", "links_down", "nics_down", "spines_down", "degraded_links", "degraded_factor", "other_jobs", "channels", "qps", "routing"];
    FIELDS.into_iter().find(|f| *f == name).unwrap_or("congestion")
}

/// The worker's answer for `key` as the page's studies; `None` if unreadable. The drawing's
/// fabric (with its failures) is rebuilt here around the loads the worker solved.
fn read_answer(key: &[(Cluster, Settings)], answer: &str) -> Option<Vec<Study>> {
    let wire: Vec<StudyWire> = serde_json::from_str(answer).ok()?;
    if wire.len() != key.len() {
        return None;
    }
    let study = |(c, s): &(Cluster, Settings), w: StudyWire| {
        let loads = w.loads.and_then(|(utilisation, seed)| {
            let healthy = c.topology().and_then(|t| ClosSpec::from_topology(&t)).and_then(Fabric::build).ok()?;
            let fabric = failed_fabric(&healthy, &options(s, c)).ok()?;
            (fabric.links.len() == utilisation.len()).then(|| Rc::new(Loads { fabric, utilisation, seed }))
        });
        let outcome = w.outcome.map(|o| Outcome { per_seed: w.per_seed, ..o }).map_err(|(f, m)| ModelError::new(field_of(&f), m));
        Study { outcome, loads, note: w.note }
    };
    Some(key.iter().zip(wire).map(|(k, w)| study(k, w)).collect())
}

fn publish(key: Vec<(Cluster, Settings)>, studies: Vec<Study>, result: &UseStateHandle<Option<Rc<Done>>>, progress: &UseStateHandle<Option<(u32, u32)>>) {
    let seq = SEQ.with(|s| {
        s.set(s.get() + 1);
        s.get()
    });
    result.set(Some(Rc::new(Done { key, studies, seq })));
    progress.set(None);
}

/// The fallback where no worker runs: the studies in main-thread slices ([`PAGE`] limits).
struct Job {
    key: Vec<(Cluster, Settings)>,
    runner: Runner,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Done>>>,
    progress: UseStateHandle<Option<(u32, u32)>>,
}

impl Job {
    fn alive(&self) -> bool {
        self.gen.get() == self.my
    }

    fn start(self) {
        if !self.alive() {
            return;
        }
        if crate::plumbing::hooks::dragging() {
            Timeout::new(DRAG_WAIT_MS, move || self.start()).forget();
        } else {
            self.slice();
        }
    }

    /// Runs for at most about [`SLICE_MS`], then yields to the page.
    fn slice(mut self) {
        if !self.alive() {
            return;
        }
        let t0 = js_sys::Date::now();
        if self.runner.work(&mut || js_sys::Date::now() - t0 < SLICE_MS) {
            return publish(self.key, self.runner.into_studies(), &self.result, &self.progress);
        }
        self.progress.set(Some(self.runner.progress()));
        Timeout::new(0, move || self.slice()).forget();
    }
}

/// The studies of `key` (cluster and settings each), run one after another while `in_view`
/// (else the last answers stay), in the page's Web Worker (else in main-thread slices).
/// Returns the last answers and, while they run, the running study's (seeds solved, seeds in
/// all).
#[hook]
pub fn use_congestion(key: Vec<(Cluster, Settings)>, draw: bool, in_view: bool) -> (Option<Rc<Done>>, Option<(u32, u32)>) {
    let result = use_state(|| None::<Rc<Done>>);
    let progress = use_state_eq(|| None::<(u32, u32)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64)));
    let ch = *use_memo((), |_| worker::channel());
    {
        let result = result.clone();
        let progress = progress.clone();
        let gen = gen.borrow().clone();
        use_effect_with((key, in_view), move |(key, in_view)| {
            // Any change stops a running study; off screen nothing new starts.
            gen.set(gen.get() + 1);
            worker::cancel(ch, gen.get());
            let answered = result.as_ref().is_some_and(|d| d.key == *key);
            if !*in_view || answered || key.is_empty() {
                progress.set(None);
                return;
            }
            progress.set(Some((0, key[0].1.seeds)));
            let my = gen.get();
            let job = serde_json::to_string(&StudiesJob { key: key.clone(), draw }).unwrap_or_default();
            let on_progress = {
                let (gen, progress) = (gen.clone(), progress.clone());
                move |d: u64, t: u64| {
                    if gen.get() == my {
                        progress.set(Some((d as u32, t as u32)));
                    }
                }
            };
            // Runs the studies here, with the page's limits.
            let fallback = || {
                let (key, gen, result, progress) = (key.clone(), gen.clone(), result.clone(), progress.clone());
                move || {
                    let job = Job { runner: Runner::new(key.clone(), draw, PAGE), key, my, gen, result, progress };
                    Timeout::new(0, move || job.start()).forget();
                }
            };
            let on_done = {
                let (key, gen, result, progress, read_failed) = (key.clone(), gen.clone(), result.clone(), progress.clone(), fallback());
                move |answer: String| {
                    if gen.get() != my {
                        return;
                    }
                    match read_answer(&key, &answer) {
                        Some(studies) => publish(key, studies, &result, &progress),
                        // An answer the page cannot read: run the studies here instead.
                        None => read_failed(),
                    }
                }
            };
            worker::run(ch, my, job, on_progress, on_done, fallback());
        });
    }
    ((*result).clone(), *progress)
}

/// The same study as a `fabricscope congestion` command line.
pub fn cli_line(c: &Cluster, s: &Settings) -> String {
    // Every cluster field, so the line rebuilds this cluster whatever the CLI's defaults.
    let mut l = format!("fabricscope congestion {}", fabricscope_model::cluster_flags::cli_flags(c));
    let o = options(s, c);
    l.push_str(&format!(" --traffic {} --routing {} --placement {} --seeds {}", o.traffic.id(), o.routing.id(), o.placement.id(), o.seeds));
    let f = s.failures;
    for (flag, v) in [("nics-down", f.nics_down), ("links-down", f.links_down), ("spines-down", f.spines_down), ("other-jobs", s.other_jobs)] {
        if v > 0 {
            l.push_str(&format!(" --{flag} {v}"));
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(c: &Cluster) -> ClosSpec {
        ClosSpec::from_topology(&c.topology().unwrap()).unwrap()
    }

    /// The speed target runs in the page (a ring over 1,024 GPUs, adaptive or ECMP),
    /// and an ECMP all-to-all over 512 GPUs (63,000 paths a seed, about 20 ms natively) goes
    /// to the CLI, with a command line that the CLI parses the same way.
    #[test]
    fn the_page_runs_rings_at_1024_gpus_and_sends_large_all_to_alls_to_the_cli() {
        let big = Cluster { nodes: 128, ..Cluster::default() };
        for routing in [Routing::Adaptive, Routing::Ecmp] {
            let s = Settings { routing: Some(routing), ..Settings::default() };
            assert!(fits_page(&spec(&big), &options(&s, &big)), "{routing:?}");
        }
        let mid = Cluster { nodes: 64, ..Cluster::default() };
        let s = Settings { routing: Some(Routing::Ecmp), traffic: Traffic::AllToAll, ..Settings::default() };
        assert_eq!(seed_work(&spec(&mid), &options(&s, &mid)), 64 * 63 * 8 * 8);
        assert!(!fits_page(&spec(&mid), &options(&s, &mid)));
        let line = cli_line(&Cluster { oversubscription: Some(2.0), ..mid }, &Settings { failures: Failures { nics_down: 1, ..Failures::default() }, ..s });
        assert_eq!(line, "fabricscope congestion --gpu h100 --nodes 64 --gpus-per-node 8 --scale-up nvlink4 --nics-per-node 8 --nic ib-ndr --rail-optimized true --nvls true --cpu intel --nccl 2.27.5 --oversubscription 2 --traffic alltoall --routing ecmp --placement contiguous --seeds 16 --nics-down 1");
        // The worker samples what the page sends to the CLI: an ECMP all-to-all over 1,024
        // GPUs, a permutation over 1,024 NICs; not a 256-node ECMP all-to-all (4,177,920 paths).
        assert!(fits(&spec(&big), &options(&s, &big), &WORKER));
        let huge = Cluster { nodes: 256, ..Cluster::default() };
        assert!(!fits(&spec(&huge), &options(&s, &huge), &WORKER));
        let perm = Settings { traffic: Traffic::RandomPermutation, ..Settings::default() };
        assert!(!fits_page(&spec(&big), &options(&perm, &big)) && fits(&spec(&big), &options(&perm, &big), &WORKER));
        // The routing follows the NIC until one is picked.
        assert_eq!(routing_of(&Settings::default(), &Cluster::default()), Routing::Adaptive);
        let roce = Cluster { nic: fabricscope_model::catalog::NicKind::Roce400, ..Cluster::default() };
        assert_eq!(routing_of(&Settings::default(), &roce), Routing::Ecmp);
    }
}
