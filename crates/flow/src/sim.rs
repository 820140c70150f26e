//! One congestion study: the jobs' demands routed by policy over the (failed) fabric, rates
//! by max-min fairness, repeated over seeds; the job's throughput fraction against an ideal
//! non-blocking fabric, how often flows collide, and which tier limits it.

use crate::failures::Failures;
use crate::graph::{Fabric, LinkTier};
use crate::maxmin::{max_min, Allocation, Paths};
use crate::rng::Rng;
use crate::route::{Router, Routing};
use crate::stats::Dist;
use crate::traffic::{demands, node_order, Demand, Placement, Shape, Traffic};
use crate::transport::{derates, Derate};
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::GBps;
use serde::Serialize;
use std::collections::HashMap;

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
/// an even split per demand). About 3 us each natively (an all-to-all over 1,024 GPUs under
/// ECMP: 1 M connections, 3 s a seed, measured on the release CLI), so about 30 s at most.
pub const MAX_WORK: u64 = 10_000_000;
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sharing {
    pub other_jobs: u32,
    pub nodes_per_job: u32,
    pub duty_cycle: f64,
    pub best: Dist,
    pub worst: Dist,
    pub expected: Dist,
}

/// What a study finds.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Share of seeds in which two or more connections share a switch-to-switch link that
    /// then limits them below their rate on an ideal fabric (with every neighbour active).
    pub collision_probability: f64,
    /// Where the job's slowest connection is limited, most often over seeds: "nic",
    /// "leaf-spine" or "spine-core".
    pub bottleneck_tier: &'static str,
    /// A connection's rate on the ideal fabric, per direction.
    #[serde(rename = "ideal_connection_GBps_per_direction")]
    pub ideal_connection_rate: GBps,
    #[serde(rename = "line_rate_GBps_per_direction")]
    pub line_rate: GBps,
    pub failures: Failures,
    pub sharing: Option<Sharing>,
    /// What a flow model cannot see, as labelled bands (not applied to the fraction).
    pub transport: Vec<Derate>,
    pub evidence: &'static str,
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

/// One solve of some demands: the flows (merged connections), their demand and weight.
struct Solved {
    alloc: Allocation,
    /// Per flow: (demand index, connections it stands for).
    owner: Vec<(usize, u32)>,
    /// Per flow: its rate with only NIC links (what it would get on an ideal fabric).
    nic_only: Vec<f64>,
    /// Connections on each link.
    conns_on: Vec<u32>,
}

fn solve(fab: &Fabric, router: &mut Router, routing: Routing, seed: u64, ds: &[Demand]) -> Result<Solved> {
    let mut paths = Paths::new();
    let mut nic_paths = Paths::new();
    let mut owner = Vec::new();
    let mut conns_on = vec![0u32; fab.links.len()];
    let mut buf: Vec<(u32, f64)> = Vec::new();
    let mut drawn: Vec<Vec<u32>> = Vec::new();
    // Leaf pair -> (pattern id, connections using it).
    let mut patterns: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
    for (i, d) in ds.iter().enumerate() {
        let (sl, dl) = (fab.nic_leaf[d.src as usize], fab.nic_leaf[d.dst as usize]);
        let ends = [(fab.nic_up[d.src as usize], 1.0), (fab.nic_down[d.dst as usize], 1.0)];
        let cut = || ModelError::new("links_down", "the failures cut the fabric in two: a flow has no path left");
        match routing {
            Routing::Ecmp => {
            let mut add = |fabric: &[(u32, f64)], w: u32, paths: &mut Paths| {
                buf.clear();
                buf.extend(ends.iter().map(|&(l, s)| (l, s * w as f64)));
                buf.extend(fabric.iter().map(|&(l, s)| (l, s * w as f64)));
                paths.push(&buf);
                nic_paths.push(&[(ends[0].0, w as f64), (ends[1].0, w as f64)]);
                for &(l, _) in buf.iter() {
                    conns_on[l as usize] += w;
                }
                owner.push((i, w));
            };
                drawn.clear();
                for c in 0..d.conns {
                    let mut p = Vec::new();
                    if !router.ecmp(sl, dl, seed, d.key ^ ((c as u64) << 40), &mut p) {
                        return Err(cut());
                    }
                    drawn.push(p.into_iter().map(|(l, _)| l).collect());
                }
                drawn.sort_unstable();
                let mut k = 0;
                while k < drawn.len() {
                    let mut j = k;
                    while j < drawn.len() && drawn[j] == drawn[k] {
                        j += 1;
                    }
                    let links: Vec<(u32, f64)> = drawn[k].iter().map(|&l| (l, 1.0)).collect();
                    add(&links, (j - k) as u32, &mut paths);
                    k = j;
                }
            }
            Routing::Adaptive | Routing::Spray => {
                // One shared pattern per leaf pair; the flow carries its NIC links itself.
                let pat = match patterns.get(&(sl, dl)) {
                    Some(&(p, _)) => p,
                    None => {
                        let mut p = Vec::new();
                        if !router.split(sl, dl, &mut p) {
                            return Err(cut());
                        }
                        let id = paths.pattern(&p);
                        patterns.insert((sl, dl), (id, 0));
                        id
                    }
                };
                let w = d.conns as f64;
                paths.push_with(&[(ends[0].0, w), (ends[1].0, w)], pat, w);
                nic_paths.push(&[(ends[0].0, w), (ends[1].0, w)]);
                conns_on[ends[0].0 as usize] += d.conns;
                conns_on[ends[1].0 as usize] += d.conns;
                if let Some(e) = patterns.get_mut(&(sl, dl)) {
                    e.1 += d.conns;
                }
                owner.push((i, d.conns));
            }
        }
    }
    for &(p, conns) in patterns.values() {
        for &(l, _) in paths.pattern_links(p) {
            conns_on[l as usize] += conns;
        }
    }
    let caps: Vec<f64> = fab.links.iter().map(|l| if l.alive { l.cap.0 } else { 0.0 }).collect();
    let alloc = max_min(&caps, &paths);
    let nic_only = max_min(&caps, &nic_paths).rates;
    Ok(Solved { alloc, owner, nic_only, conns_on })
}

/// The job's fraction from one solve: `ideal` is its slowest connection on an ideal fabric.
fn fraction(s: &Solved, ds: &[Demand], traffic: Traffic, ideal: f64, line: f64) -> f64 {
    if traffic.is_collective() {
        let slowest = s.owner.iter().zip(&s.alloc.rates).filter(|((d, _), _)| ds[*d].job == 0).map(|(_, &r)| r).fold(f64::INFINITY, f64::min);
        return if slowest.is_finite() && ideal > 0.0 { (slowest / ideal).clamp(0.0, 1.0) } else { 1.0 };
    }
    let mut per = vec![0.0; ds.len()];
    for (&(d, w), &r) in s.owner.iter().zip(&s.alloc.rates) {
        per[d] += r * w as f64;
    }
    let mine: Vec<f64> = ds.iter().zip(&per).filter(|(d, _)| d.job == 0).map(|(_, &r)| (r / line).min(1.0)).collect();
    if mine.is_empty() { 1.0 } else { mine.iter().sum::<f64>() / mine.len() as f64 }
}

/// Did two or more connections share a switch link that limited them below their ideal rate?
fn collided(fab: &Fabric, s: &Solved) -> bool {
    s.alloc.bottleneck.iter().zip(&s.alloc.rates).zip(&s.nic_only).any(|((&b, &r), &ideal)| {
        b != u32::MAX && fab.links[b as usize].tier.is_fabric() && s.conns_on[b as usize] >= 2 && r < ideal * (1.0 - 1e-6)
    })
}

fn slowest_tier(fab: &Fabric, s: &Solved, ds: &[Demand]) -> LinkTier {
    let mut best: Option<(f64, u32, f64)> = None;
    for (((&(d, _), &r), &b), &ideal) in s.owner.iter().zip(&s.alloc.rates).zip(&s.alloc.bottleneck).zip(&s.nic_only) {
        if ds[d].job == 0 && b != u32::MAX && best.is_none_or(|(x, _, _)| r < x * (1.0 - 1e-9)) {
            best = Some((r, b, ideal));
        }
    }
    match best {
        // At its NICs' rate: whatever link froze it first, the NIC is what limits it.
        Some((r, b, ideal)) if r < ideal * (1.0 - 1e-6) => fab.links[b as usize].tier,
        _ => LinkTier::NicToLeaf,
    }
}

/// The slowest connection's rate when only NICs limit (an ideal non-blocking fabric).
fn ideal_slowest(fab: &Fabric, ds: &[Demand]) -> Option<f64> {
    let mut p = Paths::new();
    for d in ds {
        let w = d.conns as f64;
        p.push(&[(fab.nic_up[d.src as usize], w), (fab.nic_down[d.dst as usize], w)]);
    }
    let caps: Vec<f64> = fab.links.iter().map(|l| l.cap.0).collect();
    let r = max_min(&caps, &p).rates.into_iter().fold(f64::INFINITY, f64::min);
    r.is_finite().then_some(r)
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
    let per_demands = match o.traffic {
        Traffic::AllToAll => m * (m - 1),
        Traffic::Ring | Traffic::RandomPermutation => m,
    } * healthy.spec.nics_per_node as u64
        * jobs as u64;
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
    let mut router = Router::new(&fab);
    let line = healthy.spec.line.0;
    let shape = Shape { traffic: o.traffic, channels: o.channels, qps: o.qps, gpus_per_node: o.gpus_per_node };
    let deterministic = o.routing != Routing::Ecmp && o.traffic != Traffic::RandomPermutation;
    let runs = if deterministic { 1 } else { o.seeds };
    let cases = o.other_jobs as usize + 1;
    // Paths per solve: one per connection under ECMP, one per demand when split.
    let conns = match o.traffic {
        Traffic::Ring => o.channels * o.qps,
        Traffic::AllToAll => o.gpus_per_node * o.gpus_per_node.div_ceil(healthy.spec.nics_per_node).max(1) * o.qps,
        Traffic::RandomPermutation => o.qps,
    } as u64;
    let per_solve = if o.routing == Routing::Ecmp { per_demands * conns } else { per_demands };
    if per_solve * runs as u64 * cases as u64 > MAX_WORK {
        return Err(ModelError::new(
            "seeds",
            format!(
                "{runs} seeds x {cases} sharing case(s) x {per_solve} routed paths is more than the flow model's {MAX_WORK}: use at most {} seeds",
                (MAX_WORK / (per_solve * cases as u64)).max(1)
            ),
        ));
    }
    let mut by_case: Vec<Vec<f64>> = vec![Vec::new(); cases];
    let mut expected = Vec::new();
    let mut collisions = 0;
    let mut tiers: Vec<LinkTier> = Vec::new();
    let mut ideal_rate = line;
    for s in 0..runs {
        let seed = o.first_seed.wrapping_add(s as u64);
        let mut rng = Rng::new(seed);
        let per: Vec<Vec<Demand>> = (0..jobs).map(|j| demands(&fab, j, job_nodes[j as usize], shape, &mut rng)).collect();
        // Ideal: the job alone and healthy, limited only by its NICs.
        ideal_rate = ideal_slowest(healthy, &per[0]).unwrap_or(line);
        let mut ex = 0.0;
        for (a, case) in by_case.iter_mut().enumerate() {
            let ds: Vec<Demand> = per.iter().take(a + 1).flatten().copied().collect();
            let ds = o.failures.reroute(&fab, first, ds);
            let solved = solve(&fab, &mut router, o.routing, seed, &ds)?;
            let f = fraction(&solved, &ds, o.traffic, ideal_rate, line);
            case.push(f);
            ex += binom(o.other_jobs, a as u32, o.duty_cycle) * f;
            if a + 1 == cases {
                collisions += collided(&fab, &solved) as u32;
                tiers.push(slowest_tier(&fab, &solved, &ds));
            }
        }
        expected.push(ex);
    }
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
