//! One congestion study: the jobs' demands routed by policy over the (failed) fabric, rates
//! by max-min fairness, repeated over seeds; the job's throughput fraction against an ideal
//! non-blocking fabric, how often flows collide, and which tier limits it.

use crate::failures::Failures;
use crate::graph::{ClosSpec, Fabric, LinkTier};
use crate::rng::Rng;
use crate::route::{Router, Routing};
use crate::solve::{caps, collided, fraction, ideal_slowest, nic_only_rates, slowest_tier, solve};
use crate::solved::Need;
use crate::stats::Dist;
use crate::traffic::{demands, node_order, Demand, Placement, Shape, Traffic};
use crate::transport::{derates, Derate};
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::GBps;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Most seeds one study runs (count; bounds a CLI or page request's time).
pub const MAX_SEEDS: u32 = 4096;
/// Most ring channels per NIC (count; NCCL's MAXCHANNELS is 64 per communicator, NCCL
/// src/include/device.h, so no NIC carries more).
pub const MAX_CHANNELS: u32 = 64;
/// Most queue pairs per connection (count; the model's own `limits::QPS_PER_CONNECTION`).
pub const MAX_QPS: u32 = 128;
/// Most other jobs sharing the fabric (count; each sharing case is one more solve per seed).
pub const MAX_OTHER_JOBS: u32 = 15;
/// Most demands (NIC pairs) one solve routes (count): an all-to-all over 512 nodes of 8 NICs
/// is 2.1 million and takes seconds; a bound, so no flag can make a solve run for hours.
pub const MAX_DEMANDS: u64 = 2_500_000;
/// Most routed paths summed over seeds and sharing cases (count; an ECMP path per connection,
/// an even split per demand). About 0.05-0.1 us each natively when every flow is solved (an
/// all-to-all over 1,024 GPUs under ECMP: 1 M connections, 50-110 ms a seed on a shared 2-core
/// machine), 0.01-0.03 us when ECMP's early answer settles a collective (docs/flow.md), so at
/// most about 10 s on one thread; 32 seeds of that all-to-all fit.
pub const MAX_WORK: u64 = 100_000_000;
/// Default ring channels per NIC (count): NCCL's tuning model finds 8 channels for 8 NICs on
/// H100 nodes (validation/nccl-golden.csv), one per NIC.
pub const DEFAULT_CHANNELS: u32 = 1;
/// Default share of time a neighbouring job communicates (dimensionless). An assumption, not
/// a measurement: communication takes roughly half of a data-parallel step that does not
/// overlap it fully; the CLI prints it and takes `--duty-cycle`.
pub const DEFAULT_DUTY_CYCLE: f64 = 0.5;

/// Everything a study varies.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Options {
    pub traffic: Traffic,
    pub routing: Routing,
    pub seeds: u32,
    pub first_seed: u64,
    pub placement: Placement,
    /// Ring channels per NIC.
    pub channels: u32,
    /// Queue pairs per connection.
    pub qps: u32,
    pub gpus_per_node: u32,
    pub failures: Failures,
    /// Other jobs of the same size sharing the fabric.
    pub other_jobs: u32,
    /// Probability that a neighbour communicates while this job does.
    pub duty_cycle: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            traffic: Traffic::Ring,
            routing: Routing::Ecmp,
            seeds: 32,
            first_seed: 1,
            placement: Placement::Contiguous,
            channels: DEFAULT_CHANNELS,
            qps: 1,
            gpus_per_node: 8,
            failures: Failures::default(),
            other_jobs: 0,
            duty_cycle: DEFAULT_DUTY_CYCLE,
        }
    }
}

/// The job's figures with neighbours that never overlap it (best), always do (worst), and
/// overlap each with probability `duty_cycle` independently (expected).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sharing {
    pub other_jobs: u32,
    pub nodes_per_job: u32,
    pub duty_cycle: f64,
    pub best: Dist,
    pub worst: Dist,
    pub expected: Dist,
}

/// What a study finds. Read back from its JSON (the page's worker sends it) without `per_seed`,
/// which the JSON leaves out; the labels are the crate's own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub traffic: Traffic,
    pub routing: Routing,
    pub placement: Placement,
    /// Seeds solved (1 when nothing is random: spraying or adaptive routing of a collective).
    pub seeds: u32,
    pub deterministic: bool,
    pub nodes_in_job: u32,
    /// Collective: slowest connection's rate over the same on an ideal non-blocking fabric
    /// (healthy, alone). Permutation: mean over flows of its max-min rate over the line rate.
    /// With neighbours, the expected value (see `sharing`).
    pub throughput_fraction: Dist,
    /// `throughput_fraction` seed by seed, in seed order (for callers composing it with the
    /// analytical model per seed; not in the JSON, whose distribution says the same).
    #[serde(skip)]
    pub per_seed: Vec<f64>,
    /// Share of seeds in which two or more connections share a switch-to-switch link that
    /// then limits them below their rate on an ideal fabric (with every neighbour active).
    pub collision_probability: f64,
    /// Where the job's slowest connection is limited, most often over seeds: "nic",
    /// "leaf-spine" or "spine-core".
    #[serde(deserialize_with = "tier_label")]
    pub bottleneck_tier: TierLabel,
    /// A connection's rate on the ideal fabric, per direction.
    #[serde(rename = "ideal_connection_GBps_per_direction")]
    pub ideal_connection_rate: GBps,
    #[serde(rename = "line_rate_GBps_per_direction")]
    pub line_rate: GBps,
    pub failures: Failures,
    pub sharing: Option<Sharing>,
    /// What a flow model cannot see, as labelled bands (not applied to the fraction).
    #[serde(skip_deserializing, default = "derates")]
    pub transport: Vec<Derate>,
    #[serde(skip_deserializing, default = "evidence")]
    pub evidence: &'static str,
}

/// A tier's label (one of [`LinkTier::label`]'s). An alias, so serde's derive does not take
/// the field for a string borrowed from the JSON (which would tie `Outcome` to `'static` input).
pub type TierLabel = &'static str;

/// A bottleneck tier read back: one of [`LinkTier::label`]'s.
fn tier_label<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    ["nic", "leaf-spine", "spine-core"].into_iter().find(|l| *l == s).ok_or_else(|| serde::de::Error::custom(format!("unknown bottleneck tier {s}")))
}

fn evidence() -> &'static str {
    EVIDENCE
}

/// What every figure of an outcome rests on.
pub const EVIDENCE: &str = "modelled, not measured: flow-level max-min rates on the sized Clos; no packet, queue or congestion-control dynamics (see transport)";

fn check(o: &Options) -> Result<()> {
    let range = |field: &'static str, v: u32, max: u32| {
        if v == 0 || v > max {
            Err(ModelError::new(field, format!("must be between 1 and {max}; got {v}")))
        } else {
            Ok(())
        }
    };
    range("seeds", o.seeds, MAX_SEEDS)?;
    range("channels", o.channels, MAX_CHANNELS)?;
    range("qps_per_connection", o.qps, MAX_QPS)?;
    range("gpus_per_node", o.gpus_per_node, 72)?;
    if o.other_jobs > MAX_OTHER_JOBS {
        return Err(ModelError::new("other_jobs", format!("must be between 0 and {MAX_OTHER_JOBS}; got {}", o.other_jobs)));
    }
    if !(0.0..=1.0).contains(&o.duty_cycle) {
        return Err(ModelError::new("duty_cycle", format!("must be between 0 and 1; got {}", o.duty_cycle)));
    }
    Ok(())
}

/// Paths (ECMP: one per connection) or demands (adaptive routing, spraying: one split each)
/// one seed of a study routes over all its sharing cases' jobs: what the page budgets a seed by.
pub fn seed_work(spec: &ClosSpec, o: &Options) -> u64 {
    let jobs = o.other_jobs as u64 + 1;
    let m = (spec.nodes as u64 / jobs).max(1);
    let shape = Shape { traffic: o.traffic, channels: o.channels, qps: o.qps, gpus_per_node: o.gpus_per_node };
    let (demands, conns) = o.traffic.size(spec, m, &shape);
    jobs * if o.routing == Routing::Ecmp { conns } else { demands }
}

/// The equal-cost paths one split (adaptive, spray) demand is spread over, in paths' worth of
/// links: the links of the even split between the leaves of the job's first and last nodes
/// (the farthest pair a contiguous job has) over the links of one path between them; at
/// least 1. A two-tier tree with 32 uplinks a leaf gives 32; a three-tier one hundreds.
pub fn split_paths(fab: &Fabric, nodes: &[u32]) -> u64 {
    let nics = fab.spec.nics_per_node.max(1) as usize;
    let leaf = |node: Option<&u32>| node.and_then(|n| fab.nic_leaf.get(*n as usize * nics)).copied();
    let (Some(a), Some(b)) = (leaf(nodes.first()), leaf(nodes.last())) else { return 1 };
    if a == b {
        return 1;
    }
    let mut r = Router::new(fab);
    let (mut split, mut path) = (Vec::new(), Vec::new());
    if !r.split(a, b, &mut split) || !r.ecmp_links(a, b, 0, 0, &mut path) || path.is_empty() {
        return 1;
    }
    (split.len() as u64).div_ceil(path.len() as u64).max(1)
}

/// Binomial weight of `a` of `k` neighbours active at probability `p`.
fn binom(k: u32, a: u32, p: f64) -> f64 {
    let mut c = 1.0;
    for i in 0..a {
        c = c * (k - i) as f64 / (i + 1) as f64;
    }
    c * p.powi(a as i32) * (1.0 - p).powi((k - a) as i32)
}

/// Runs the study on `healthy` (failures are applied here).
pub fn run(healthy: &Fabric, o: &Options) -> Result<Outcome> {
    run_with(healthy, o, false)
}

/// [`run`], solving every demand on its own when `per_demand` (no flow classes): the
/// reference the classes are tested against.
pub(crate) fn run_with(healthy: &Fabric, o: &Options, per_demand: bool) -> Result<Outcome> {
    check(o)?;
    let jobs = o.other_jobs + 1;
    let order = node_order(healthy, o.placement);
    let per_job = healthy.spec.nodes / jobs;
    if per_job < 2 {
        return Err(ModelError::new(
            if o.other_jobs > 0 { "other_jobs" } else { "nodes" },
            format!("{} nodes make {jobs} jobs of {per_job} node(s); a job needs at least 2 nodes to use the fabric: use at most {} other jobs", healthy.spec.nodes, (healthy.spec.nodes / 2).saturating_sub(1)),
        ));
    }
    let job_nodes: Vec<&[u32]> = (0..jobs as usize).map(|j| &order[j * per_job as usize..(j + 1) * per_job as usize]).collect();
    let m = per_job as u64;
    let shape = Shape { traffic: o.traffic, channels: o.channels, qps: o.qps, gpus_per_node: o.gpus_per_node };
    let (per_job_demands, per_job_conns) = o.traffic.size(&healthy.spec, m, &shape);
    let per_demands = per_job_demands * jobs as u64;
    if per_demands > MAX_DEMANDS {
        return Err(ModelError::new(
            "traffic",
            format!("{} over {per_job} nodes is {per_demands} NIC-to-NIC flows per solve, more than the flow model's {MAX_DEMANDS}: use fewer nodes", o.traffic.id()),
        ));
    }
    let first = job_nodes[0][0];
    o.failures.check(healthy, first)?;
    let mut fab = healthy.clone();
    o.failures.apply(&mut fab, first);
    let line = healthy.spec.line.0;
    let deterministic = o.routing != Routing::Ecmp && o.traffic != Traffic::RandomPermutation;
    let runs = if deterministic { 1 } else { o.seeds };
    let cases = o.other_jobs as usize + 1;
    // Paths per solve: one per connection under ECMP; a split demand is spread over every
    // equal-cost path between its leaves, so it costs that many paths' worth of links
    // ([`split_paths`]): one work estimate, in routed paths, whatever the routing.
    let per_solve = if o.routing == Routing::Ecmp { per_job_conns * jobs as u64 } else { per_demands.saturating_mul(split_paths(&fab, job_nodes[0])) };
    if o.routing != Routing::Ecmp && per_solve.saturating_mul(cases as u64) > MAX_WORK {
        return Err(ModelError::new(
            "nodes",
            format!(
                "{} over {per_job} nodes under {} routing splits {per_demands} NIC-to-NIC flows over up to {} equal-cost paths each, {per_solve} routed paths per solve x {cases} sharing case(s), more than the flow model's {MAX_WORK}: use fewer nodes (or ecmp routing)",
                o.traffic.id(),
                o.routing.id(),
                split_paths(&fab, job_nodes[0]),
            ),
        ));
    }
    if per_solve.saturating_mul(runs as u64).saturating_mul(cases as u64) > MAX_WORK {
        return Err(ModelError::new(
            "seeds",
            format!(
                "{runs} seeds x {cases} sharing case(s) x {per_solve} routed paths is more than the flow model's {MAX_WORK}: use at most {} seeds",
                (MAX_WORK / (per_solve * cases as u64)).max(1)
            ),
        ));
    }
    let fab_caps = caps(&fab);
    let study = Study { healthy, fab: &fab, o, job_nodes: &job_nodes, shape, first, line, fab_caps: &fab_caps, per_demand };
    let recs = run_seeds(&study, runs, per_solve * runs as u64 * cases as u64)?;
    let by_case: Vec<Vec<f64>> = (0..cases).map(|a| recs.iter().map(|r| r.by_case[a]).collect()).collect();
    let expected: Vec<f64> = recs.iter().map(|r| r.expected).collect();
    let collisions = recs.iter().filter(|r| r.collided).count();
    let tiers: Vec<LinkTier> = recs.iter().map(|r| r.tier).collect();
    let ideal_rate = recs.last().map_or(line, |r| r.ideal_rate);
    let mut labels: Vec<(&'static str, usize)> = Vec::new();
    for t in &tiers {
        match labels.iter_mut().find(|(l, _)| *l == t.label()) {
            Some(e) => e.1 += 1,
            None => labels.push((t.label(), 1)),
        }
    }
    let bottleneck_tier = labels.iter().max_by_key(|(_, n)| *n).map_or("nic", |(l, _)| *l);
    let sharing = (o.other_jobs > 0).then(|| Sharing {
        other_jobs: o.other_jobs,
        nodes_per_job: per_job,
        duty_cycle: o.duty_cycle,
        best: Dist::of(&by_case[0]),
        worst: Dist::of(&by_case[cases - 1]),
        expected: Dist::of(&expected),
    });
    Ok(Outcome {
        traffic: o.traffic,
        routing: o.routing,
        placement: o.placement,
        seeds: runs,
        deterministic,
        nodes_in_job: per_job,
        throughput_fraction: Dist::of(&expected),
        per_seed: expected,
        collision_probability: collisions as f64 / runs as f64,
        bottleneck_tier,
        ideal_connection_rate: GBps(ideal_rate),
        line_rate: healthy.spec.line,
        failures: o.failures,
        sharing,
        transport: derates(),
        evidence: EVIDENCE,
    })
}

/// What stays the same from seed to seed of one study.
struct Study<'a> {
    healthy: &'a Fabric,
    /// The fabric with the failures applied.
    fab: &'a Fabric,
    o: &'a Options,
    job_nodes: &'a [&'a [u32]],
    shape: Shape,
    /// The job's first node (failures sit there).
    first: u32,
    line: f64,
    fab_caps: &'a [f64],
    per_demand: bool,
}

/// What one seed finds.
struct SeedRun {
    /// The job's fraction per sharing case (0, 1, ... neighbours active).
    by_case: Vec<f64>,
    /// Over the cases, weighted by how likely each is.
    expected: f64,
    /// With every neighbour active: did flows collide, and which tier limits the job.
    collided: bool,
    tier: LinkTier,
    /// The job's slowest connection on an ideal fabric.
    ideal_rate: f64,
}

/// Studies of at least this many routed paths run their seeds on threads (count; about
/// 25 ms of solving, far above the cost of starting a thread).
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_WORK: u64 = 1 << 18;

/// The seeds `0..runs` of a study, in seed order: natively on as many threads as the machine
/// has (each taking a consecutive run of seeds; the figures do not depend on which thread
/// solves a seed), on one in the browser (the page keeps its own worker).
#[cfg(not(target_arch = "wasm32"))]
fn run_seeds(st: &Study, runs: u32, work: u64) -> Result<Vec<SeedRun>> {
    let threads = if work >= PARALLEL_WORK { std::thread::available_parallelism().map_or(1, |n| n.get()).min(runs as usize) } else { 1 };
    if threads <= 1 {
        return seed_range(st, 0..runs);
    }
    let t = threads as u32;
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..t).map(|i| sc.spawn(move || seed_range(st, runs * i / t..runs * (i + 1) / t))).collect();
        let mut out = Vec::with_capacity(runs as usize);
        // Joined in seed order, so the first error is the earliest seed's, as on one thread.
        for h in handles {
            match h.join() {
                Ok(r) => out.extend(r?),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(out)
    })
}

#[cfg(target_arch = "wasm32")]
fn run_seeds(st: &Study, runs: u32, _work: u64) -> Result<Vec<SeedRun>> {
    seed_range(st, 0..runs)
}

/// Seeds `range` (offsets from the first seed) of a study, one after another.
fn seed_range(st: &Study, range: std::ops::Range<u32>) -> Result<Vec<SeedRun>> {
    let (o, fab, healthy, first, line, per_demand) = (st.o, st.fab, st.healthy, st.first, st.line, st.per_demand);
    let jobs = o.other_jobs + 1;
    let cases = o.other_jobs as usize + 1;
    let mut router = Router::new(fab);
    let mut out = Vec::with_capacity(range.len());
    // Ring and all-to-all demands do not depend on the seed: their rates on an ideal fabric
    // (NIC links only, per sharing case) are solved once, not once per seed.
    let fixed = o.traffic != Traffic::RandomPermutation;
    let mut nic_only: Vec<Option<Vec<f64>>> = vec![None; cases];
    let mut ideal: Option<f64> = None;
    // The jobs' demands: drawn per seed for a permutation, built once otherwise.
    let mut kept: Option<Vec<Vec<Demand>>> = None;
    for s in range {
        let seed = o.first_seed.wrapping_add(s as u64);
        if !fixed || kept.is_none() {
            let mut rng = Rng::new(seed);
            kept = Some((0..jobs).map(|j| demands(fab, j, st.job_nodes[j as usize], st.shape, &mut rng)).collect());
        }
        let Some(per) = kept.as_ref() else { continue };
        if !fixed {
            ideal = None;
        }
        let mut run = SeedRun { by_case: Vec::with_capacity(cases), expected: 0.0, collided: false, tier: LinkTier::NicToLeaf, ideal_rate: line };
        for (a, nic_only) in nic_only.iter_mut().enumerate() {
            // The first `a` neighbours' demands with the job's (borrowed when nothing moves).
            let ds: Cow<[Demand]> = match (a, o.failures.nics_down) {
                (0, 0) => Cow::Borrowed(&per[0]),
                _ => Cow::Owned(o.failures.reroute(fab, first, per.iter().take(a + 1).flatten().copied().collect())),
            };
            if o.routing == Routing::Ecmp && (nic_only.is_none() || !fixed) {
                *nic_only = Some(nic_only_rates(fab, st.fab_caps, &ds, per_demand));
            }
            // What this case's figures need of the rates (the reference fills every rate).
            let need = match (o.traffic.is_collective(), a + 1 == cases) {
                _ if per_demand => Need::Every,
                (false, _) => Need::Every,
                (true, false) => Need::Slowest,
                (true, true) => Need::SlowestAndCollisions,
            };
            let solved = solve(fab, &mut router, o.routing, seed, &ds, nic_only.as_deref(), per_demand, need)?;
            // Ideal: the job alone and healthy, limited only by its NICs. Failures leave NIC
            // links whole, so with no NIC down the first case's NIC-only rates are the ideal's.
            let ideal_rate = match ideal {
                Some(r) => r,
                None if o.failures.nics_down == 0 => {
                    if solved.ideal.is_finite() { solved.ideal } else { line }
                }
                None => ideal_slowest(healthy, &per[0], per_demand).unwrap_or(line),
            };
            ideal = Some(ideal_rate);
            run.ideal_rate = ideal_rate;
            let f = fraction(&solved, &ds, o.traffic, ideal_rate, line);
            run.by_case.push(f);
            run.expected += binom(o.other_jobs, a as u32, o.duty_cycle) * f;
            if a + 1 == cases {
                run.collided = collided(fab, &solved);
                run.tier = slowest_tier(fab, &solved, &ds);
            }
        }
        out.push(run);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ClosSpec;
    use fabricscope_model::units::GBps;
    use proptest::prelude::*;

    /// A hand-written two-tier tree: `leaves` leaves of `npl` nodes with `nics` NICs each
    /// (rail-optimized: one leaf per rail and block of nodes), `spines` spines, `up` uplinks a leaf.
    fn tree(leaves: u32, npl: u32, nics: u32, spines: u32, up: u32, rail: bool) -> Fabric {
        let spec = ClosSpec::two_tier(leaves, npl, nics, spines, up, GBps(50.0));
        let spec = if rail { ClosSpec { rail_optimized: true, leaves_per_plane: leaves * nics, down_per_leaf: npl, ..spec } } else { spec };
        Fabric::build(spec).expect("a graph")
    }

    fn close(a: &Dist, b: &Dist) -> bool {
        let pairs = [(a.mean, b.mean), (a.p10, b.p10), (a.p50, b.p50), (a.p90, b.p90), (a.min, b.min), (a.max, b.max)];
        pairs.iter().all(|(x, y)| (x - y).abs() <= 1e-9)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

        /// Flow classes change nothing: every figure equals the per-demand solve's (rates to
        /// 1e-9; collisions, tiers and seeds exactly), for every traffic, routing, placement,
        /// neighbours and failures on random small trees.
        #[test]
        fn classes_give_the_per_demand_figures(
            leaves in 2u32..5, npl in 1u32..4, nics in 1u32..4, spines in 1u32..4, upx in 1u32..3, rail in any::<bool>(),
            t in 0usize..Traffic::ALL.len(), r in 0usize..3, scattered in any::<bool>(), other_jobs in 0u32..3, qps in 1u32..3, channels in 1u32..3,
            nics_down in 0u32..2, links_down in 0u32..2, seed in 0u64..1000,
        ) {
            let fab = tree(leaves, npl, nics, spines, spines * upx, rail);
            let o = Options {
                traffic: Traffic::ALL[t].1,
                routing: Routing::ALL[r].1,
                seeds: 3,
                first_seed: seed,
                placement: if scattered { Placement::Scattered } else { Placement::Contiguous },
                channels,
                qps,
                gpus_per_node: nics,
                failures: Failures { nics_down: nics_down.min(nics - 1), links_down, ..Failures::default() },
                other_jobs,
                duty_cycle: 0.5,
            };
            let (a, b) = (run_with(&fab, &o, false), run_with(&fab, &o, true));
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    prop_assert!(close(&a.throughput_fraction, &b.throughput_fraction), "{:?} vs {:?}", a.throughput_fraction, b.throughput_fraction);
                    prop_assert_eq!(a.collision_probability, b.collision_probability);
                    prop_assert_eq!(a.bottleneck_tier, b.bottleneck_tier);
                    prop_assert!((a.ideal_connection_rate.0 - b.ideal_connection_rate.0).abs() <= 1e-9);
                    if let (Some(x), Some(y)) = (&a.sharing, &b.sharing) {
                        prop_assert!(close(&x.best, &y.best) && close(&x.worst, &y.worst) && close(&x.expected, &y.expected));
                    }
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.field, b.field),
                (a, b) => prop_assert!(false, "{:?} vs {:?}", a.map(|x| x.throughput_fraction), b.map(|x| x.throughput_fraction)),
            }
        }
    }

    /// The symmetric all-to-all the speed rests on aggregates: 1,024 NICs, one class per pair
    /// of leaves, not one per NIC pair.
    #[test]
    fn a_symmetric_alltoall_is_one_class_per_leaf_pair() {
        let c = fabricscope_model::Cluster { nodes: 128, rail_optimized: false, ..fabricscope_model::Cluster::default() };
        let fab = Fabric::build(ClosSpec::from_topology(&c.topology().expect("a cluster")).expect("a fabric")).expect("a graph");
        let nodes: Vec<u32> = (0..128).collect();
        let shape = crate::traffic::Shape { traffic: Traffic::AllToAll, channels: 1, qps: 1, gpus_per_node: 8 };
        let ds = demands(&fab, 0, &nodes, shape, &mut crate::rng::Rng::new(1));
        let cl = crate::classes::Classes::find(&fab, &ds);
        let leaves = fab.spec.leaves_per_plane as usize * fab.spec.planes as usize;
        assert_eq!(ds.len(), 128 * 127 * 8);
        assert_eq!(cl.len(), leaves * leaves, "{} leaves", leaves);
    }

    /// A split demand counts as its equal-cost paths: on a two-tier tree, one per spine a leaf
    /// reaches (its uplinks); one leaf, one path.
    #[test]
    fn a_split_demand_counts_its_equal_cost_paths() {
        // 4 leaves of 2 nodes, 1 NIC, 3 spines, 3 uplinks a leaf.
        let fab = tree(4, 2, 1, 3, 3, false);
        let all: Vec<u32> = (0..8).collect();
        assert_eq!(split_paths(&fab, &all), 3);
        assert_eq!(split_paths(&fab, &all[..2]), 1, "two nodes under one leaf");
        // Issue 38: spray over the largest clusters was let through by a bound that counted a
        // split demand as one path, and ran 28-30 s; under the same work estimate as ECMP it is
        // refused before any routing, at once.
        let c = fabricscope_model::Cluster { nodes: 32768, gpus_per_node: 8, ..fabricscope_model::Cluster::default() };
        let fab = Fabric::build(ClosSpec::from_topology(&c.topology().expect("a cluster")).expect("a fabric")).expect("a graph");
        for routing in [Routing::Spray, Routing::Adaptive, Routing::Ecmp] {
            let o = Options { traffic: Traffic::Tree, routing, seeds: 4096, channels: 64, ..Options::default() };
            let t = std::time::Instant::now();
            let e = run(&fab, &o).map(|_| ()).expect_err("over the work bound");
            assert!(e.message.contains(&MAX_WORK.to_string()), "{routing:?}: {}", e.message);
            assert!(t.elapsed().as_secs_f64() < 5.0, "{routing:?} refused in {:?}", t.elapsed());
        }
    }
}
