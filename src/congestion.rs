//! The congestion study on the page: crates/flow's seeds run a few at a time in slices of at
//! most [`SLICE_MS`] (the page answers input and paints between them), only while the panel is
//! on screen; the last answer stays shown, marked stale, until the new one is complete.

use fabricscope_flow::{link_loads, ClosSpec, Fabric, Failures, Loads, Options, Outcome, Placement, Routing, Seeds, Traffic};
use fabricscope_model::{Cluster, ModelError};
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

/// What the user chose in the panel (the cluster comes from the page).
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// Paths (ECMP) or demands (split) one seed routes, as crates/flow's sim counts them.
pub fn seed_work(spec: &ClosSpec, o: &Options) -> u64 {
    fabricscope_flow::sim::seed_work(spec, o)
}

/// Whether one seed fits the page's budget.
pub fn fits_page(spec: &ClosSpec, o: &Options) -> bool {
    if o.traffic == Traffic::RandomPermutation && spec.nodes as u64 * spec.nics_per_node as u64 > PAGE_PERMUTATION_NICS {
        return false;
    }
    seed_work(spec, o) <= if o.routing == Routing::Ecmp { PAGE_ECMP_PATHS } else { PAGE_SPLIT_DEMANDS }
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

struct Job {
    key: Vec<(Cluster, Settings)>,
    /// Solve the median seed's loads too (the explorer's drawing).
    draw: bool,
    studies: Vec<Study>,
    running: Option<Running>,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Done>>>,
    progress: UseStateHandle<Option<(u32, u32)>>,
}

impl Job {
    fn alive(&self) -> bool {
        self.gen.get() == self.my
    }

    fn publish(self) {
        let seq = SEQ.with(|s| {
            s.set(s.get() + 1);
            s.get()
        });
        self.result.set(Some(Rc::new(Done { key: self.key, studies: self.studies, seq })));
        self.progress.set(None);
    }

    fn start(self) {
        if !self.alive() {
            return;
        }
        if crate::hooks::dragging() {
            Timeout::new(DRAG_WAIT_MS, move || self.start()).forget();
        } else {
            self.slice();
        }
    }

    /// Sets up the next study: its fabric, or its answer when it cannot run in the page.
    fn next_study(&mut self) {
        let (c, s) = &self.key[self.studies.len()];
        let o = options(s, c);
        let built = c.topology().and_then(|t| ClosSpec::from_topology(&t)).and_then(Fabric::build);
        match built {
            Err(e) => self.studies.push(Study { outcome: Err(e), loads: None, note: None }),
            Ok(fab) if !fits_page(&fab.spec, &o) => {
                let ecmp = o.routing == Routing::Ecmp;
                let note = format!(
                    "Too large to sample in the page without blocking it: {} routed {} per seed (the page runs up to {}). Run it with the CLI: {}",
                    seed_work(&fab.spec, &o),
                    if ecmp { "paths" } else { "flows" },
                    if ecmp { PAGE_ECMP_PATHS } else { PAGE_SPLIT_DEMANDS },
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
        let loads = if self.draw { r.seeds.median_seed().and_then(|s| link_loads(&r.fab, r.seeds.options(), s).ok()) } else { None };
        let outcome = r.seeds.outcome().ok_or_else(|| ModelError::new("seeds", "no seed was solved"));
        self.studies.push(Study { outcome, loads: loads.map(Rc::new), note });
    }

    /// Runs seeds for at most about [`SLICE_MS`], then yields to the page.
    fn slice(mut self) {
        if !self.alive() {
            return;
        }
        let t0 = js_sys::Date::now();
        while js_sys::Date::now() - t0 < SLICE_MS {
            if self.studies.len() == self.key.len() {
                return self.publish();
            }
            let Some(r) = self.running.as_mut() else {
                self.next_study();
                continue;
            };
            let t = js_sys::Date::now();
            match r.seeds.step(&r.fab) {
                Err(e) => {
                    self.running = None;
                    self.studies.push(Study { outcome: Err(e), loads: None, note: None });
                }
                Ok(true) => {
                    // The drawing's solve in a task of its own.
                    if self.draw {
                        break;
                    }
                    self.end_study(None);
                }
                Ok(false) => {
                    let took = js_sys::Date::now() - t;
                    if took > LONG_SEED_MS {
                        let (done, total) = r.seeds.progress();
                        self.end_study(Some(format!("Stopped after {done} of {total} seeds: one seed took {took:.0} ms in the page. The CLI's fabricscope congestion runs them all.")));
                    }
                }
            }
        }
        let (d, t) = self.running.as_ref().map_or((0, 0), |r| r.seeds.progress());
        if self.draw && d == t && t > 0 {
            self.progress.set(Some((d, t)));
            Timeout::new(0, move || {
                self.end_study(None);
                self.slice()
            })
            .forget();
            return;
        }
        self.progress.set(Some((d, t)));
        Timeout::new(0, move || self.slice()).forget();
    }
}

/// The studies of `key` (cluster and settings each), run one after another while `in_view`
/// (else the last answers stay). Returns the last answers and, while they run, the running
/// study's (seeds solved, seeds in all).
#[hook]
pub fn use_congestion(key: Vec<(Cluster, Settings)>, draw: bool, in_view: bool) -> (Option<Rc<Done>>, Option<(u32, u32)>) {
    let result = use_state(|| None::<Rc<Done>>);
    let progress = use_state_eq(|| None::<(u32, u32)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64)));
    {
        let result = result.clone();
        let progress = progress.clone();
        let gen = gen.borrow().clone();
        use_effect_with((key, in_view), move |(key, in_view)| {
            // Any change stops a running study; off screen nothing new starts.
            gen.set(gen.get() + 1);
            let answered = result.as_ref().is_some_and(|d| d.key == *key);
            if !*in_view || answered || key.is_empty() {
                progress.set(None);
                return;
            }
            progress.set(Some((0, key[0].1.seeds)));
            let job = Job { key: key.clone(), draw, studies: Vec::new(), running: None, my: gen.get(), gen, result, progress };
            Timeout::new(0, move || job.start()).forget();
        });
    }
    ((*result).clone(), *progress)
}

/// The same study as a `fabricscope congestion` command line.
pub fn cli_line(c: &Cluster, s: &Settings) -> String {
    let mut l = format!(
        "fabricscope congestion --gpu {} --nodes {} --gpus-per-node {} --nics-per-node {} --nic {} --rail-optimized {}",
        c.gpu.id(),
        c.nodes,
        c.gpus_per_node,
        c.nics_per_node,
        c.nic.id(),
        c.rail_optimized
    );
    for (flag, v) in [("leaf", c.leaf_switches), ("spine", c.spine_switches), ("radix", c.switch_radix)] {
        if let Some(v) = v {
            l.push_str(&format!(" --{flag} {v}"));
        }
    }
    if let Some(r) = c.oversubscription {
        l.push_str(&format!(" --oversubscription {r}"));
    }
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
        assert_eq!(line, "fabricscope congestion --gpu h100 --nodes 64 --gpus-per-node 8 --nics-per-node 8 --nic ib-ndr --rail-optimized true --oversubscription 2 --traffic alltoall --routing ecmp --placement contiguous --seeds 16 --nics-down 1");
        // The routing follows the NIC until one is picked.
        assert_eq!(routing_of(&Settings::default(), &Cluster::default()), Routing::Adaptive);
        let roce = Cluster { nic: fabricscope_model::catalog::NicKind::Roce400, ..Cluster::default() };
        assert_eq!(routing_of(&Settings::default(), &roce), Routing::Ecmp);
    }
}
