//! The serving planner (issue 39): which deployments of a model on a cluster meet a TTFT and a
//! TPOT target at a request rate, on the fewest GPUs. Aggregated replicas (in-flight batching,
//! chunked prefill interfering with decode) and disaggregated prefill and decode pools (each
//! its own layout, the KV cache handed over on the fabric the placement gives), over every
//! layout the deployment search tries (TP x EP over attention DP, plus PP) and every pool size
//! that fits; ranked by GPUs, then capacity per GPU; with the Pareto front of tokens/s per GPU
//! against tokens/s per user, and the reason when nothing meets the targets.
//!
//! The batch is not an input: the rate sets it (Little's law, a fixed point on the decode step
//! curve the step model gives at the search's batch grid). The queueing is an M/G/1 queue per
//! DP rank's prefill server ([`queue`]); the interference, MTP and handoff rules are in
//! [`pool`]. Pure: [`plan_request`] takes a plain serde input and returns a serde answer, for
//! the CLI and (later) the serving page's worker.
//!
//! | module | what it holds |
//! |---|---|
//! | [`input`] | the question (rate, targets, lengths, mode, engine knobs) with defaults and checks |
//! | [`layout`] | layouts tried; a layout's decode step curve, prompt-token cost, memory limit |
//! | [`queue`] | M/G/1 (Pollaczek–Khinchine) mean wait and its tail |
//! | [`pool`] | a pool at a rate: Little's-law batch, interference, TTFT, TPOT, capacity |
//! | [`eval`] | a deployment spec's figures, the KV handoff on the fabric |
//! | [`output`] | the answer's types, the Pareto front, intervals |
//! | [`explain`] | why nothing meets the targets; where the fabric is the difference |
//! | [`staged`] | the same answer with the layouts' curves built in slices, with progress (a page's worker) |

pub mod eval;
pub mod explain;
pub mod input;
pub mod layout;
pub mod output;
pub mod pool;
pub mod queue;
pub mod staged;

pub use input::{Mode, PlanInput, PlanRequest};
pub use output::{PlanDeployment, PlanIntervals, PlanResult, Pool};
pub use staged::StagedPlan;

use crate::engine::ENGINES;
use crate::model::ServingModel;
use crate::planner::eval::{Env, Spec};
use crate::planner::explain::Closest;
use crate::planner::layout::{curve, curves, LayoutCurve};
use crate::planner::output::{intervals_of, join_engines, pareto_front};
use crate::planner::pool::{aggregated, capacity, decode, prefill};
use crate::step::Server;
use fabricscope_model::error::Result;
use fabricscope_model::Topology;

/// The planner on plain data: the cluster's topology built, the model checked, then [`plan`].
pub fn plan_request(r: &PlanRequest) -> Result<PlanResult> {
    let topo = r.cluster.topology()?;
    plan(&topo, &r.model, &r.input)
}

/// Every (spec, TTFT ms, TPOT ms) the search met, and the bookkeeping for the answer.
struct Found {
    evaluated: u64,
    /// The smallest pool (or pool pair) of each layout (pair) meeting both targets.
    smallest: Vec<Spec>,
    /// Every spec meeting both targets, with (tokens/s per GPU, tokens/s per user).
    all: Vec<(Spec, (f64, f64))>,
    closest: Closest,
}

/// Answers `input` for `model` on `topo`.
pub fn plan(topo: &Topology, model: &ServingModel, input: &PlanInput) -> Result<PlanResult> {
    input.check()?;
    model.validate()?;
    let (cs, refused) = curves(topo, model, input, gpus_of(topo, input))?;
    Ok(answer(topo, model, input, cs, refused))
}

/// GPUs a deployment may use.
pub fn gpus_of(topo: &Topology, input: &PlanInput) -> u32 {
    input.max_gpus.unwrap_or(topo.total_gpus).min(topo.total_gpus)
}

/// The answer from the layouts' curves (`refused`: layouts the step model refused): the
/// queueing arithmetic, ranking, front, reason and intervals ([`staged::StagedPlan`] builds the
/// curves in slices first).
pub fn answer(topo: &Topology, model: &ServingModel, input: &PlanInput, cs: Vec<LayoutCurve>, refused: usize) -> PlanResult {
    let gmax = gpus_of(topo, input);
    let layouts = cs.len() + refused;
    let curves: Vec<Option<LayoutCurve>> = cs.into_iter().map(Some).collect();
    let mut env = Env::new(topo, model, input);
    let mut found = Found { evaluated: 0, smallest: Vec::new(), all: Vec::new(), closest: Closest::new() };
    if input.mode != Mode::Disaggregated {
        search_aggregated(&env, &curves, gmax, &mut found);
    }
    if input.mode != Mode::Aggregated {
        search_disaggregated(&mut env, &curves, gmax, &mut found);
    }
    // The list: the smallest of each layout (pair), fewest GPUs first, then most capacity.
    let mut listed: Vec<(Spec, PlanDeployment)> = found.smallest.iter().filter_map(|s| env.figures(&curves, *s).map(|d| (*s, d))).collect();
    listed.sort_by(|a, b| {
        a.1.gpus
            .cmp(&b.1.gpus)
            .then(b.1.capacity_tokens_per_s_per_gpu.total_cmp(&a.1.capacity_tokens_per_s_per_gpu))
            .then(a.1.tpot_ms.total_cmp(&b.1.tpot_ms))
    });
    let tried_across = curves.iter().flatten().filter(|c| c.tp_spans_domains).map(|c| c.layout.tp).min();
    let fabric_note = explain::fabric_note(topo, &listed.iter().map(|x| x.1.clone()).collect::<Vec<_>>(), tried_across);
    let meeting = found.all.len() as u64;
    let meeting_layouts = listed.len();
    listed.truncate(input.max_results);
    let pts: Vec<(f64, f64)> = found.all.iter().map(|x| x.1).collect();
    let mut pareto: Vec<(Spec, PlanDeployment)> = pareto_front(&pts).into_iter().filter_map(|i| env.figures(&curves, found.all[i].0).map(|d| (found.all[i].0, d))).collect();
    pareto.truncate(input.max_results.max(1) * 2);
    let reason = listed.is_empty().then(|| {
        let sustainable = (found.closest.stable == 0).then(|| most_sustainable(&env, &curves, gmax)).flatten();
        explain::reason(&found.closest, input.rate, input.ttft_ms, input.tpot_ms, gmax, sustainable)
    });
    add_intervals(topo, model, input, &curves, &mut listed, &mut pareto);
    PlanResult {
        model: model.name().to_string(),
        gpu: topo.gpu.id.to_string(),
        gpus_available: gmax,
        input: input.clone(),
        deployments: listed.into_iter().map(|x| x.1).collect(),
        pareto: pareto.into_iter().map(|x| x.1).collect(),
        reason,
        fabric_note,
        evaluated: found.evaluated,
        meeting,
        meeting_layouts,
        layouts,
        layouts_refused: refused,
    }
}

fn search_aggregated(env: &Env, curves: &[Option<LayoutCurve>], gmax: u32, f: &mut Found) {
    let (t, p) = (env.input.ttft_ms, env.input.tpot_ms);
    let out = env.load.output;
    for (i, c) in curves.iter().enumerate() {
        let Some(c) = c else { continue };
        let g = c.layout.gpus();
        let mut first = true;
        for n in 1..=gmax / g {
            f.evaluated += 1;
            let Ok(q) = aggregated(c, env.lam / (n as f64 * c.layout.dp as f64), &env.load) else { continue };
            let (ttft, tpot) = (q.ttft_us / 1e3, q.tpot_us / 1e3);
            f.closest.see(ttft, tpot, (t, p), n * g, || format!("aggregated {n} x {}", c.layout.label()));
            if ttft <= t && tpot <= p {
                let spec = Spec::Aggregated { layout: i, replicas: n };
                if first {
                    f.smallest.push(spec);
                    first = false;
                }
                f.all.push((spec, (env.input.rate * out / (n * g) as f64, 1e3 / tpot)));
            }
        }
    }
}

fn search_disaggregated(env: &mut Env, curves: &[Option<LayoutCurve>], gmax: u32, f: &mut Found) {
    let (t_us, p_us) = (env.input.ttft_ms * 1e3, env.input.tpot_ms * 1e3);
    let out = env.load.output;
    // Each prefill layout's TTFT (at the percentile, without the handoff) by replicas; each
    // decode layout's TPOT by replicas. Both fall as replicas grow.
    let mut pre: Vec<Vec<f64>> = Vec::with_capacity(curves.len());
    let mut dec: Vec<Vec<f64>> = Vec::with_capacity(curves.len());
    for c in curves {
        let (mut pv, mut dv) = (Vec::new(), Vec::new());
        if let Some(c) = c {
            for n in 1..=gmax / c.layout.gpus() {
                f.evaluated += 2;
                let ranks = n as f64 * c.layout.dp as f64;
                pv.push(prefill(c, env.lam / ranks, &env.load).map_or(f64::INFINITY, |x| x.0));
                dv.push(decode(c, env.lam / ranks, &env.load).map_or(f64::INFINITY, |x| x.tpot_us));
            }
        }
        pre.push(pv);
        dec.push(dv);
    }
    // Each prefill table's running best: (lowest TTFT among the first k pool sizes, at which).
    let pre_best: Vec<Vec<(f64, u32)>> = pre
        .iter()
        .map(|t| {
            let mut best = (f64::INFINITY, 0);
            t.iter()
                .enumerate()
                .map(|(k, &v)| {
                    if v < best.0 {
                        best = (v, k as u32 + 1);
                    }
                    best
                })
                .collect()
        })
        .collect();
    for (id, cd) in curves.iter().enumerate() {
        let Some(cd) = cd else { continue };
        let gd = cd.layout.gpus();
        let Some(nd_min) = dec[id].iter().position(|v| *v <= p_us) else {
            // Never meets TPOT: every pool size against each prefill layout's best, for the reason.
            for (k, &tpot) in dec[id].iter().enumerate().filter(|x| x.1.is_finite()) {
                record_pairs(env, curves, &pre_best, (id, k as u32 + 1), tpot, gmax, f);
            }
            continue;
        };
        for (k, &tpot) in dec[id].iter().enumerate().skip(nd_min) {
            if tpot > p_us {
                continue;
            }
            let nd = k as u32 + 1;
            for (ip, cp) in curves.iter().enumerate() {
                let Some(cp) = cp else { continue };
                let gp = cp.layout.gpus();
                if nd * gd + gp > gmax {
                    continue;
                }
                let Some((kv, _)) = env.kv_us(cd.layout.tp, env.same_domain(gp, gd)) else { continue };
                let table = &pre[ip];
                let budget = t_us - kv;
                // Fewest prefill replicas within the budget (TTFT falls as they grow).
                let k = table.partition_point(|v| *v > budget);
                let fits = (gmax - nd * gd) / gp;
                f.evaluated += 1;
                if k >= table.len() || k as u32 + 1 > fits {
                    let bests = &pre_best[ip];
                    if let Some(&(best, npb)) = bests.get((fits as usize).min(bests.len()).wrapping_sub(1)).filter(|b| b.0.is_finite()) {
                        f.closest.see((best + kv) / 1e3, tpot / 1e3, (env.input.ttft_ms, env.input.tpot_ms), npb * gp + nd * gd, || {
                            format!("disaggregated prefill {npb} x {} + decode {nd} x {}", cp.layout.label(), cd.layout.label())
                        });
                    }
                    continue;
                }
                let np = k as u32 + 1;
                let gpus = np * gp + nd * gd;
                f.closest.see((table[k] + kv) / 1e3, tpot / 1e3, (env.input.ttft_ms, env.input.tpot_ms), gpus, || {
                    format!("disaggregated prefill {np} x {} + decode {nd} x {}", cp.layout.label(), cd.layout.label())
                });
                let spec = Spec::Disaggregated { prefill: ip, prefill_replicas: np, decode: id, decode_replicas: nd };
                if nd == nd_min as u32 + 1 {
                    f.smallest.push(spec);
                }
                f.all.push((spec, (env.input.rate * out / gpus as f64, 1e6 / tpot)));
            }
        }
    }
}

/// A decode layout that never meets TPOT, at pool size `nd`, with each prefill layout's best
/// TTFT on the GPUs left (`pre_best`: running minima by pool size), for the reason.
fn record_pairs(env: &mut Env, curves: &[Option<LayoutCurve>], pre_best: &[Vec<(f64, u32)>], (id, nd): (usize, u32), tpot: f64, gmax: u32, f: &mut Found) {
    let Some(cd) = curves[id].as_ref() else { return };
    let gd = nd * cd.layout.gpus();
    for (ip, cp) in curves.iter().enumerate() {
        let Some(cp) = cp else { continue };
        let gp = cp.layout.gpus();
        let fits = (gmax.saturating_sub(gd) / gp) as usize;
        let Some(&(best, np)) = pre_best[ip].get(fits.min(pre_best[ip].len()).wrapping_sub(1)).filter(|b| b.0.is_finite()) else { continue };
        let Some((kv, _)) = env.kv_us(cd.layout.tp, env.same_domain(gp, cd.layout.gpus())) else { continue };
        f.closest.see((best + kv) / 1e3, tpot / 1e3, (env.input.ttft_ms, env.input.tpot_ms), np * gp + gd, || {
            format!("disaggregated prefill {np} x {} + decode {nd} x {}", cp.layout.label(), cd.layout.label())
        });
    }
}

/// The most requests/s any layout sustains aggregated on all the GPUs it may use, whatever
/// the targets, and which.
fn most_sustainable(env: &Env, curves: &[Option<LayoutCurve>], gmax: u32) -> Option<(f64, String)> {
    let mut best: Option<(f64, String)> = None;
    for c in curves.iter().flatten() {
        let n = gmax / c.layout.gpus();
        let ranks = n as f64 * c.layout.dp as f64;
        if n == 0 {
            continue;
        }
        let coupled = if c.wide_ep { c.layout.dp as f64 } else { 1.0 };
        let hi = ranks / (env.load.prompt * c.prefill_us_per_token * coupled);
        let lo = hi * 1e-9;
        if aggregated(c, lo / ranks, &env.load).is_err() {
            continue;
        }
        let cap = capacity(lo, hi, |l| aggregated(c, l / ranks, &env.load).is_ok()) * 1e6;
        if best.as_ref().is_none_or(|b| cap > b.0) {
            best = Some((cap, format!("{n} x {} on {} GPUs", c.layout.label(), n * c.layout.gpus())));
        }
    }
    best
}

/// The intervals of the listed deployments and the front: the step's calibration of their
/// decode class; with no engine named, joined with the same deployment's under each engine.
fn add_intervals(topo: &Topology, model: &ServingModel, input: &PlanInput, curves: &[Option<LayoutCurve>], listed: &mut [(Spec, PlanDeployment)], pareto: &mut [(Spec, PlanDeployment)]) {
    let class_of = |s: &Spec| {
        let i = match s {
            Spec::Aggregated { layout, .. } => *layout,
            Spec::Disaggregated { decode, .. } => *decode,
        };
        curves.get(i).and_then(|c| c.as_ref()).map(|c| (c.class, c.validated))
    };
    // Every engine's curves of the layouts the answer names, and its figures of each spec.
    let mut others: Vec<(PlanInput, Vec<Option<LayoutCurve>>)> = Vec::new();
    if input.engine.is_none() {
        let needed: Vec<usize> = listed
            .iter()
            .chain(pareto.iter())
            .flat_map(|(s, _)| match s {
                Spec::Aggregated { layout, .. } => vec![*layout],
                Spec::Disaggregated { prefill, decode, .. } => vec![*prefill, *decode],
            })
            .collect();
        for e in ENGINES {
            let ie = PlanInput { engine: Some(e), ..input.clone() };
            let Ok(mut server) = Server::new(topo, model) else { continue };
            let mut cs: Vec<Option<LayoutCurve>> = vec![None; curves.len()];
            for &i in &needed {
                if cs[i].is_none() {
                    if let Some(c) = curves[i].as_ref() {
                        cs[i] = curve(&mut server, c.layout, &ie);
                    }
                }
            }
            others.push((ie, cs));
        }
    }
    let mut envs: Vec<Env> = others.iter().map(|(ie, _)| Env::new(topo, model, ie)).collect();
    for (s, d) in listed.iter_mut().chain(pareto.iter_mut()) {
        let Some((class, validated)) = class_of(s) else { continue };
        let Some(mut iv) = intervals_of(d, class, validated) else { continue };
        for (k, env) in envs.iter_mut().enumerate() {
            let cs = &others[k].1;
            if let Some(o) = env.figures(cs, *s) {
                let oc = class_of(s).map_or((class, validated), |x| x);
                if let Some(oi) = intervals_of(&o, oc.0, oc.1) {
                    join_engines(&mut iv, &oi);
                }
            }
        }
        d.intervals = Some(iv);
    }
}
