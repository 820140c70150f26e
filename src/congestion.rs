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
/// Most routed paths per seed the page runs under ECMP (count: one path per connection;
/// about 1 µs each natively, 2-3 times that in wasm, so about 40 ms at most in the page).
pub const PAGE_ECMP_PATHS: u64 = 20_000;
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
    let jobs = o.other_jobs as u64 + 1;
    let m = (spec.nodes as u64 / jobs).max(1);
    let demands = if o.traffic == Traffic::AllToAll { m * (m - 1) } else { m } * spec.nics_per_node as u64 * jobs;
    let conns = match o.traffic {
        Traffic::Ring => o.channels * o.qps,
        Traffic::AllToAll => o.gpus_per_node * o.gpus_per_node.div_ceil(spec.nics_per_node).max(1) * o.qps,
        Traffic::RandomPermutation => o.qps,
    } as u64;
    if o.routing == Routing::Ecmp {
        demands * conns
    } else {
        demands
    }
}

/// Whether one seed fits the page's budget.
pub fn fits_page(spec: &ClosSpec, o: &Options) -> bool {
    seed_work(spec, o) <= if o.routing == Routing::Ecmp { PAGE_ECMP_PATHS } else { PAGE_SPLIT_DEMANDS }
}

/// A finished (or stopped) study and the inputs it answers.
#[derive(Debug)]
pub struct Done {
    pub cluster: Cluster,
    pub settings: Settings,
    pub outcome: Result<Outcome, ModelError>,
    /// The median seed's link loads (None when the study failed).
    pub loads: Option<Rc<Loads>>,
    /// Why the study stopped early or did not run in the page.
    pub note: Option<String>,
    pub seq: u64,
}

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

struct Job {
    cluster: Cluster,
    settings: Settings,
    fab: Rc<Fabric>,
    seeds: Seeds,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Done>>>,
    progress: UseStateHandle<Option<(u32, u32)>>,
}

impl Job {
    fn publish(&self, outcome: Result<Outcome, ModelError>, loads: Option<Loads>, note: Option<String>) {
        let seq = SEQ.with(|s| {
            s.set(s.get() + 1);
            s.get()
        });
        self.result.set(Some(Rc::new(Done { cluster: self.cluster.clone(), settings: self.settings, outcome, loads: loads.map(Rc::new), note, seq })));
        self.progress.set(None);
    }

    fn start(self) {
        if self.gen.get() != self.my {
            return;
        }
        if crate::hooks::dragging() {
            Timeout::new(DRAG_WAIT_MS, move || self.start()).forget();
        } else {
            self.slice();
        }
    }

    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let t0 = js_sys::Date::now();
        loop {
            let t = js_sys::Date::now();
            match self.seeds.step(&self.fab) {
                Err(e) => return self.publish(Err(e), None, None),
                Ok(true) => break,
                Ok(false) => {}
            }
            let took = js_sys::Date::now() - t;
            if took > LONG_SEED_MS {
                let (done, total) = self.seeds.progress();
                let note = format!("Stopped after {done} of {total} seeds: one seed took {took:.0} ms in the page. The CLI's fabricscope congestion runs them all.");
                return self.finish(Some(note));
            }
            if js_sys::Date::now() - t0 >= SLICE_MS {
                self.progress.set(Some(self.seeds.progress()));
                Timeout::new(0, move || self.slice()).forget();
                return;
            }
        }
        self.progress.set(Some(self.seeds.progress()));
        // The drawing's solve in a task of its own.
        Timeout::new(0, move || self.finish(None)).forget();
    }

    fn finish(self, note: Option<String>) {
        if self.gen.get() != self.my {
            return;
        }
        let out = self.seeds.outcome();
        let loads = self.seeds.median_seed().and_then(|s| link_loads(&self.fab, self.seeds.options(), s).ok());
        match out {
            Some(o) => self.publish(Ok(o), loads, note),
            None => self.publish(Err(ModelError::new("seeds", "no seed was solved")), None, note),
        }
    }
}

/// The study for `cluster` and `settings`, run while `in_view` (else the last answer stays).
/// Returns the last answer and, while one runs, (seeds solved, seeds in all).
#[hook]
pub fn use_congestion(cluster: Cluster, settings: Settings, in_view: bool) -> (Option<Rc<Done>>, Option<(u32, u32)>) {
    let result = use_state(|| None::<Rc<Done>>);
    let progress = use_state_eq(|| None::<(u32, u32)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64)));
    {
        let result = result.clone();
        let progress = progress.clone();
        let gen = gen.borrow().clone();
        use_effect_with((cluster, settings, in_view), move |(c, s, in_view)| {
            // Any change stops a running study; off screen nothing new starts.
            gen.set(gen.get() + 1);
            let answered = result.as_ref().is_some_and(|d| d.cluster == *c && d.settings == *s);
            if !*in_view || answered {
                progress.set(None);
                return;
            }
            let my = gen.get();
            let o = options(s, c);
            let built = c.topology().and_then(|t| ClosSpec::from_topology(&t)).and_then(Fabric::build);
            let job = |fab: Fabric| Job { cluster: c.clone(), settings: *s, fab: Rc::new(fab), seeds: Seeds::new(o), my, gen: gen.clone(), result: result.clone(), progress: progress.clone() };
            match built {
                Err(e) => job_error(&result, c, s, e),
                Ok(fab) if !fits_page(&fab.spec, &o) => {
                    let work = seed_work(&fab.spec, &o);
                    let note = format!(
                        "Too large to sample in the page without blocking it: {work} routed {} per seed (the page runs up to {}). Run it with the CLI: {}",
                        if o.routing == Routing::Ecmp { "paths" } else { "flows" },
                        if o.routing == Routing::Ecmp { PAGE_ECMP_PATHS } else { PAGE_SPLIT_DEMANDS },
                        cli_line(c, s)
                    );
                    job(fab).publish(Err(ModelError::new("traffic", "too large for the page")), None, Some(note));
                }
                Ok(fab) => {
                    progress.set(Some((0, o.seeds)));
                    let j = job(fab);
                    Timeout::new(0, move || j.start()).forget();
                }
            }
        });
    }
    ((*result).clone(), *progress)
}

fn job_error(result: &UseStateHandle<Option<Rc<Done>>>, c: &Cluster, s: &Settings, e: ModelError) {
    let seq = SEQ.with(|x| {
        x.set(x.get() + 1);
        x.get()
    });
    result.set(Some(Rc::new(Done { cluster: c.clone(), settings: *s, outcome: Err(e), loads: None, note: None, seq })));
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
