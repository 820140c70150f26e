//! Goodput under failures: how often a job spanning a design stops, what each stop costs, and
//! the share of wall-clock time it trains (effective training time ratio, ETTR).
//!
//! Failure rates per component come from published field data ([`rates`]), counted over the
//! design's own parts ([`inventory`]); each failure either stops the job (and costs the restart,
//! the work since the last durable checkpoint, and any wait for a spare) or only slows it until
//! the repair. Checkpoints cost a stall every interval; the interval is Daly's optimum unless
//! given. docs/goodput.md states every assumption and source.

pub mod inventory;
pub mod rates;
#[cfg(test)]
mod tests;

use crate::catalog::fabric::pcie_line_bw;
use crate::catalog::Arch;
use crate::interval::Interval;
use crate::topology::Topology;
pub use inventory::{effect, Effect, Inventory};
pub use rates::Component;
use serde::Serialize;

/// Bytes a checkpoint holds per parameter: BF16 weights (2), FP32 master weights (4) and two
/// FP32 Adam moments (8), the state mixed-precision Adam training restores from.
pub const CHECKPOINT_BYTES_PER_PARAM: f64 = 14.0;

/// Default checkpoint write bandwidth per node, GB/s: Llama 3's storage sustained 2 TB/s for
/// checkpoints of up to 16,384 GPUs (2,048 servers), about 1 GB/s per server (arXiv:2407.21783
/// sec. 3.3.4; validation/failures.csv).
pub const STORAGE_GBPS_PER_NODE: f64 = 1.0;

/// Fixed stall of an asynchronous checkpoint, s: PyTorch DCP's async save of a 7B model stalled
/// training 6.3 s (Pasqualin et al., validation/failures.csv), most of it coordination rather
/// than the copy to host memory, which is added at the host link's rate.
pub const ASYNC_STALL_S: f64 = 6.3;

/// Default stall per interruption, minutes, from the failure to training again (detect,
/// reschedule, reload), excluding the work lost since the checkpoint. No source in
/// validation/failures.csv measures it: an assumption, and an input (`--restart-min`).
pub const RESTART_MIN: f64 = 10.0;

/// Site-to-site factor of the MTTF interval for hardware the field data measured (Hopper and
/// Ampere): each modern site's own interruption rate, predicted from the other site's rates
/// alone, lands within 1.2x (tests/goodput_data.rs), rounded up to 2x for the sites' 2.5x
/// spread per component.
pub const MTTF_FACTOR: f64 = 2.0;

/// The same for hardware no field data covers (Volta, Blackwell, AMD): its rates are Hopper's.
pub const MTTF_FACTOR_EXTRAPOLATED: f64 = 2.5;

/// Held-out coverage of the MTTF interval: of three sites with whole-cluster interruption
/// figures (Llama 3, StepFun, OPT-175B), each predicted from the others, two fell inside; the
/// 2021 OPT-175B cloud run failed 6.6x more often than predicted (tests/goodput_data.rs).
pub const MTTF_COVERAGE: f64 = 2.0 / 3.0;

/// Largest job the field data measured, GPUs (Llama 3's 16,384).
pub const MEASURED_GPUS: u64 = 16_384;

/// How a job comes back from a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// The whole job restarts from the last durable checkpoint.
    Job,
    /// A failure inside one node replaces that node's data-parallel replica from a healthy
    /// peer's memory (losing only the step in flight); other failures restart the job.
    Replica,
}

/// How a checkpoint is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointMode {
    /// Copy to host memory, then persist in the background (stall: the copy).
    Async,
    /// Write to storage while training waits (stall: the whole write).
    Sync,
}

/// The operator's choices; `None` means the model's default.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub checkpoint_interval_min: Option<f64>,
    pub restart_min: f64,
    pub recovery: Recovery,
    pub spares: Option<u64>,
    pub mttf_hours: Option<f64>,
    /// Aggregate checkpoint write bandwidth, GB/s.
    pub storage_gbps: Option<f64>,
    pub checkpoint: CheckpointMode,
    pub nic_failover: bool,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            checkpoint_interval_min: None,
            restart_min: RESTART_MIN,
            recovery: Recovery::Job,
            spares: None,
            mttf_hours: None,
            storage_gbps: None,
            checkpoint: CheckpointMode::Async,
            nic_failover: false,
        }
    }
}

/// The training job's figures the goodput needs (from its step report).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    pub params: u64,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    /// Data-parallel replicas (1: no replica can be replaced alone).
    pub replicas: u32,
    /// Share of the step spent in exposed scale-out traffic.
    pub network_share: f64,
}

/// One component class's part in the job's interruptions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComponentLine {
    pub component: Component,
    pub label: &'static str,
    pub count: u64,
    pub failures_per_unit_year: f64,
    pub failures_per_day: f64,
    /// Share of the job's stops (0 for a component that only slows it).
    pub share_of_stops: f64,
    pub effect: Effect,
    /// Hours of training lost per failure (restart, rolled-back work, wait for a spare), or
    /// the throughput lost while it lasts, in hours of full-rate training.
    pub hours_lost_per_failure: f64,
    pub source: &'static str,
}

/// Intervals of the report's predicted fields, keyed by field name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoodputIntervals {
    pub mttf_hours: Interval,
    pub interruptions_per_day: Interval,
    pub checkpoint_interval_min: Interval,
    pub ettr: Interval,
    pub goodput_tokens_per_s: Interval,
}

/// Goodput of a job on a design.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoodputReport {
    pub mttf_hours: f64,
    /// Where the MTTF comes from: "predicted" or "given".
    pub mttf_basis: &'static str,
    pub interruptions_per_day: f64,
    pub checkpoint_interval_min: f64,
    /// "auto" (Daly's optimum) or "given".
    pub checkpoint_interval_basis: &'static str,
    pub checkpoint_gb: f64,
    pub checkpoint_stall_s: f64,
    pub checkpoint_save_s: f64,
    pub storage_gbps: f64,
    pub restart_min: f64,
    pub recovery: Recovery,
    pub spares: u64,
    /// "auto" (the fewest that keep waiting for one under 0.1% of the time) or "given".
    pub spares_basis: &'static str,
    /// Share of wall-clock time spent training new steps.
    pub ettr: f64,
    pub tokens_per_s: f64,
    pub goodput_tokens_per_s: f64,
    /// Where the time goes, as shares of wall-clock time.
    pub lost_to_checkpoints: f64,
    pub lost_to_restarts: f64,
    pub lost_to_rollback: f64,
    pub lost_to_waiting_for_spares: f64,
    pub lost_to_slowdowns: f64,
    pub components: Vec<ComponentLine>,
    pub inventory: Inventory,
    pub intervals: GoodputIntervals,
    /// Words for the reader: the sites' disagreement, what is extrapolated.
    pub notes: Vec<String>,
}

/// Daly's optimum checkpoint interval (Daly 2006 eq. 37, as SCR implements it): for a checkpoint
/// costing `delta` and a mean time to interruption `m` (same unit), sqrt(2 delta m) x (1 +
/// sqrt(delta / 2m) / 3 + (delta / 2m) / 9) - delta while delta < 2m, else m. To first order it
/// is Young's sqrt(2 delta m).
pub fn daly_interval(delta: f64, m: f64) -> f64 {
    if delta <= 0.0 {
        return 0.0;
    }
    if delta >= 2.0 * m {
        return m;
    }
    let f = delta / (2.0 * m);
    ((2.0 * delta * m).sqrt() * (1.0 + f.sqrt() / 3.0 + f / 9.0) - delta).max(delta)
}

/// P(X >= k) for X ~ Poisson(mu).
fn poisson_at_least(mu: f64, k: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    let (mut term, mut below) = ((-mu).exp(), 0.0);
    for i in 0..k {
        below += term;
        term *= mu / (i + 1) as f64;
    }
    (1.0 - below).clamp(0.0, 1.0)
}

/// Expected wait for spares after a stop that takes `nodes_out` nodes out, with `spares` hot
/// spares and `mu` nodes down on average: none while a spare set is free; when every spare is
/// in use, until the first of the down nodes is repaired (exponential repairs: the repair time
/// over the nodes in repair); with fewer spares than the stop takes out, the part's own repair.
fn spare_wait_hours(nodes_out: u64, spares: u64, mu: f64) -> f64 {
    if nodes_out == 0 {
        0.0
    } else if spares < nodes_out {
        rates::REPAIR_HOURS
    } else {
        let free = spares - nodes_out;
        poisson_at_least(mu, free + 1) * rates::REPAIR_HOURS / (free + 2) as f64
    }
}

/// Largest share of wall-clock time `--spares auto` lets the job spend waiting for spares.
pub const SPARE_WAIT_SHARE: f64 = 0.001;

/// The report's notes: the sites' disagreement, what is extrapolated, the spares assumed.
fn notes_for(notes: &mut Vec<String>, topo: &Topology, inv: &Inventory, measured: bool, beyond_scale: bool, auto_spares: Option<u64>) {
    notes.push(
        "Field data disagree between sites: per component up to 2.5x, in total 1.2x between Llama 3 and StepFun; OPT-175B's 2021 cloud run stopped 6.6x more often than this model predicts for its size."
            .to_string(),
    );
    if !measured {
        notes.push(format!("No published field data for {}: Hopper's rates, extrapolated.", topo.gpu.name));
    }
    if beyond_scale {
        notes.push(format!("{} GPUs is beyond the 16,384 the sources ran: rates per part are assumed to hold at scale.", inv.gpus));
    }
    if let Some(k) = auto_spares {
        notes.push(format!("Assumes {k} hot spare nodes beyond the design (the fewest that keep waiting for one under 0.1% of the time); --spares 0 shows the job waiting for repairs."));
    }
}

/// Whether the field data measured this GPU's generation.
fn measured_hardware(arch: Arch) -> bool {
    matches!(arch, Arch::Hopper | Arch::Ampere)
}

struct Costs {
    ettr: f64,
    checkpoints: f64,
    restarts: f64,
    rollback: f64,
    waiting: f64,
    slowdowns: f64,
    per_failure: Vec<f64>,
}

/// What the job loses at stop rates scaled by `scale` (1 = as predicted), with the interval
/// `tau_h` fixed: the ETTR and its parts, as shares of wall-clock time. Each stop costs its
/// restart and any wait for spares as time down, and rolls back the running time since the
/// last durable checkpoint.
#[allow(clippy::too_many_arguments)]
fn costs(lines: &[(Component, u64, f64, Effect)], scale: f64, tau_h: f64, stall_h: f64, save_h: f64, p: &Policy, job: &Job, spares: u64, mu: f64) -> Costs {
    let stop_rate: f64 = lines.iter().filter(|l| matches!(l.3, Effect::Stop { .. })).map(|l| l.2 * scale).sum();
    let restart_h = p.restart_min / 60.0;
    let segment = tau_h + stall_h;
    let rollback_h = segment / 2.0 + if p.checkpoint == CheckpointMode::Async { save_h } else { 0.0 };
    // Per running hour: hours down (restart, wait), hours rolled back, throughput lost.
    let (mut restarts, mut rollback, mut waiting, mut slow) = (0.0, 0.0, 0.0, 0.0);
    let mut per_failure = Vec::with_capacity(lines.len());
    for &(_, _, rate, eff) in lines {
        let rate = rate * scale;
        let lost = match eff {
            Effect::Stop { nodes_out, replica_recoverable } => {
                let replica = p.recovery == Recovery::Replica && replica_recoverable && job.replicas > 1;
                let back = if replica { job.step_time_s / 3600.0 / 2.0 } else { rollback_h };
                let wait = spare_wait_hours(nodes_out, spares, mu * scale);
                restarts += rate * restart_h;
                rollback += rate * back;
                waiting += rate * wait;
                restart_h + back + wait
            }
            Effect::Slow { throughput } => {
                // Until the repair or the next restart, whichever comes first.
                let lasts = 1.0 / (1.0 / rates::REPAIR_HOURS + stop_rate);
                let lost = lasts * (1.0 - throughput);
                slow += rate * lost;
                lost
            }
        };
        per_failure.push(lost);
    }
    let checkpoint_share = if segment > 0.0 { stall_h / segment } else { 0.0 };
    // Shares of wall-clock time: parts fail whether the job runs or restarts, and a failure
    // during a restart starts it again, so a restart of length R completes only after a
    // failure-free R: the job runs exp(-sum l_i (R + wait_i)) of the time (1 - R/M to first
    // order). Of the running time: rolled back, then checkpoint stalls, then slowdowns.
    let running = (-(restarts + waiting)).exp();
    let kept = (1.0 - rollback).max(0.0);
    let after_checkpoints = kept * (1.0 - checkpoint_share);
    let ettr = (running * after_checkpoints * (1.0 - slow).max(0.0)).clamp(0.0, 1.0);
    Costs {
        ettr,
        checkpoints: running * kept * checkpoint_share,
        restarts: (1.0 - running) * restarts / (restarts + waiting).max(f64::MIN_POSITIVE),
        rollback: running * (1.0 - kept),
        waiting: (1.0 - running) * waiting / (restarts + waiting).max(f64::MIN_POSITIVE),
        slowdowns: running * after_checkpoints * slow.min(1.0),
        per_failure,
    }
}

/// The numbers of an answer, without its words: what [`goodput`] reports and the pages'
/// [`Summary`] are both made of.
struct Core {
    inv: Inventory,
    lines: Vec<(Component, u64, f64, Effect)>,
    given: Option<f64>,
    given_tau: Option<f64>,
    stop_rate: f64,
    mttf: f64,
    checkpoint_gb: f64,
    storage: f64,
    save_s: f64,
    stall_s: f64,
    tau_h: f64,
    spares: u64,
    costs: Costs,
    measured: bool,
    beyond_scale: bool,
    /// The MTTF's interval and what the ETTR and the auto interval are at its ends.
    mttf_range: (f64, f64),
    ettr_range: (f64, f64),
    tau_range_h: (f64, f64),
}

fn core(topo: &Topology, job: &Job, p: &Policy) -> Core {
    let inv = Inventory::of(topo);
    let mut lines: Vec<(Component, u64, f64, Effect)> = Component::ALL
        .iter()
        .map(|&c| {
            let n = inv.count(c);
            (c, n, c.rate_per_hour() * n as f64, effect(c, &inv, p.nic_failover, job.network_share))
        })
        .filter(|l| l.1 > 0)
        .collect();
    let stops = |lines: &[(Component, u64, f64, Effect)]| -> f64 { lines.iter().filter(|l| matches!(l.3, Effect::Stop { .. })).map(|l| l.2).sum() };
    // A given MTTF scales every stopping component alike (the shares stay the field data's).
    let given = p.mttf_hours.filter(|m| m.is_finite() && *m > 0.0);
    if let Some(m) = given {
        let k = (1.0 / m) / stops(&lines).max(f64::MIN_POSITIVE);
        for l in lines.iter_mut().filter(|l| matches!(l.3, Effect::Stop { .. })) {
            l.2 *= k;
        }
    }
    let stop_rate = stops(&lines);
    let mttf = 1.0 / stop_rate.max(f64::MIN_POSITIVE);
    // Rollbacks to a checkpoint: every stop under job recovery; under replica recovery only
    // those no single replica can absorb.
    let rollback_rate: f64 = lines
        .iter()
        .filter(|l| match l.3 {
            Effect::Stop { replica_recoverable, .. } => !(p.recovery == Recovery::Replica && replica_recoverable && job.replicas > 1),
            Effect::Slow { .. } => false,
        })
        .map(|l| l.2)
        .sum();

    // Checkpoint cost.
    let checkpoint_gb = job.params as f64 * CHECKPOINT_BYTES_PER_PARAM / 1e9;
    let storage = p.storage_gbps.filter(|b| b.is_finite() && *b > 0.0).unwrap_or(STORAGE_GBPS_PER_NODE * inv.nodes.max(1) as f64);
    let save_s = checkpoint_gb / storage;
    let per_gpu_gb = checkpoint_gb / inv.gpus.max(1) as f64;
    let stall_s = match p.checkpoint {
        CheckpointMode::Async => ASYNC_STALL_S + per_gpu_gb / pcie_line_bw(topo.gpu.pcie).0,
        CheckpointMode::Sync => save_s,
    };
    let (stall_h, save_h) = (stall_s / 3600.0, save_s / 3600.0);
    let daly = |rollback_rate: f64| {
        let m = 1.0 / rollback_rate.max(f64::MIN_POSITIVE);
        let t = daly_interval(stall_h, m);
        // One checkpoint in flight at a time: the next starts once the last is durable.
        if p.checkpoint == CheckpointMode::Async { t.max(save_h) } else { t }
    };
    let given_tau = p.checkpoint_interval_min.filter(|t| t.is_finite() && *t > 0.0).map(|t| t / 60.0);
    let tau_h = given_tau.unwrap_or_else(|| daly(rollback_rate));

    // Spares: nodes down at a time ~ Poisson(failures that take nodes out x repair time).
    let mu: f64 = lines
        .iter()
        .map(|l| match l.3 {
            Effect::Stop { nodes_out, .. } => l.2 * nodes_out as f64 * rates::REPAIR_HOURS,
            Effect::Slow { .. } => 0.0,
        })
        .sum();
    // Auto: the fewest spares that keep the waiting under SPARE_WAIT_SHARE of the time.
    let waiting_share = |k: u64| -> f64 {
        lines
            .iter()
            .map(|l| match l.3 {
                Effect::Stop { nodes_out, .. } => l.2 * spare_wait_hours(nodes_out, k, mu),
                Effect::Slow { .. } => 0.0,
            })
            .sum()
    };
    let spares = p.spares.unwrap_or_else(|| (0..=inv.nodes.max(1)).find(|&k| waiting_share(k) <= SPARE_WAIT_SHARE).unwrap_or(inv.nodes.max(1)));
    let costs_at = |scale: f64| costs(&lines, scale, tau_h, stall_h, save_h, p, job, spares, mu);
    let c = costs_at(1.0);

    // Intervals: the failure rate's site-to-site spread, carried through at the chosen interval
    // (and, for the auto interval, what Daly's rule gives at each end).
    let measured = measured_hardware(topo.gpu.arch);
    let factor = if measured { MTTF_FACTOR } else { MTTF_FACTOR_EXTRAPOLATED };
    let mttf_range = if given.is_some() { (mttf, mttf) } else { (mttf / factor, mttf * factor) };
    let (e_lo, e_hi) = (costs_at(mttf / mttf_range.0).ettr, costs_at(mttf / mttf_range.1).ettr);
    let (t_lo, t_hi) = (daly(rollback_rate * mttf / mttf_range.0), daly(rollback_rate * mttf / mttf_range.1));
    Core {
        beyond_scale: inv.gpus > MEASURED_GPUS,
        inv,
        given,
        given_tau,
        stop_rate,
        mttf,
        checkpoint_gb,
        storage,
        save_s,
        stall_s,
        tau_h,
        spares,
        measured,
        mttf_range,
        ettr_range: (e_lo.min(c.ettr), e_hi.max(c.ettr)),
        tau_range_h: (t_lo.min(t_hi).min(tau_h), t_lo.max(t_hi).max(tau_h)),
        costs: c,
        lines,
    }
}

/// What a page shows of a job's goodput: the sentence's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub ettr: f64,
    /// The ETTR's 90% interval (the MTTF's site-to-site spread carried through).
    pub ettr_range: (f64, f64),
    pub mttf_hours: f64,
    /// Shares of the stops from GPUs and HBM, and from the network (NICs, optics, switches,
    /// NVLink switch trays).
    pub gpu_share: f64,
    pub network_share: f64,
}

impl Core {
    fn summary(&self) -> Summary {
        let share = |f: fn(Component) -> bool| {
            self.lines.iter().filter(|l| f(l.0) && matches!(l.3, Effect::Stop { .. })).map(|l| l.2).sum::<f64>() / self.stop_rate.max(f64::MIN_POSITIVE)
        };
        Summary {
            ettr: self.costs.ettr,
            ettr_range: self.ettr_range,
            mttf_hours: self.mttf,
            gpu_share: share(|c| matches!(c, Component::Gpu | Component::Hbm)),
            network_share: share(|c| {
                matches!(c, Component::Nic | Component::Optics | Component::FabricLink | Component::LeafSwitch | Component::SpineSwitch | Component::CoreSwitch | Component::NvlinkTray)
            }),
        }
    }
}

/// The sentence's numbers of `job` spanning `topo` under `p` (what the pages show).
pub fn summary(topo: &Topology, job: &Job, p: &Policy) -> Summary {
    core(topo, job, p).summary()
}

/// Goodput of `job` spanning `topo` under `p`.
pub fn goodput(topo: &Topology, job: &Job, p: &Policy) -> GoodputReport {
    let k = core(topo, job, p);
    let c = &k.costs;
    let components: Vec<ComponentLine> = k
        .lines
        .iter()
        .zip(&c.per_failure)
        .map(|(&(comp, n, rate, eff), &lost)| ComponentLine {
            component: comp,
            label: comp.label(),
            count: n,
            failures_per_unit_year: rate / n as f64 * 24.0 * 365.25,
            failures_per_day: rate * 24.0,
            share_of_stops: if matches!(eff, Effect::Stop { .. }) { rate / k.stop_rate.max(f64::MIN_POSITIVE) } else { 0.0 },
            effect: eff,
            hours_lost_per_failure: lost,
            source: comp.source(),
        })
        .collect();
    let mttf_iv = match k.given {
        Some(m) => Interval::exact(m, "given (--mttf-hours)"),
        None => Interval {
            lo: k.mttf_range.0,
            hi: k.mttf_range.1,
            coverage: MTTF_COVERAGE,
            sources: 3,
            rows: 3,
            basis: match (cfg!(feature = "sources"), k.measured) {
                (false, _) => "",
                (true, true) => "component rates of Llama 3 (16,384 H100) and StepFun's trace, geometric mean; each site predicted from the other within 1.2x; sites disagree up to 2.5x per component, the 2021 OPT-175B cloud run 6.6x",
                (true, false) => "no field data for this GPU generation: Hopper's rates, interval widened to 2.5x",
            }
            .to_string(),
            extrapolated: !k.measured || k.beyond_scale,
        },
    };
    let ettr_iv = Interval { lo: k.ettr_range.0, hi: k.ettr_range.1, ..mttf_iv.clone() };
    let tau_iv = match k.given_tau {
        Some(t) => Interval::exact(t * 60.0, "given (--checkpoint-interval)"),
        None => Interval { lo: k.tau_range_h.0 * 60.0, hi: k.tau_range_h.1 * 60.0, ..mttf_iv.clone() },
    };
    let mut notes = Vec::new();
    // The notes are the CLI's words; the pages show the sentence and the numbers.
    if cfg!(feature = "sources") {
        notes_for(&mut notes, topo, &k.inv, k.measured, k.beyond_scale, p.spares.is_none().then_some(k.spares));
    }
    GoodputReport {
        mttf_hours: k.mttf,
        mttf_basis: if k.given.is_some() { "given" } else { "predicted" },
        interruptions_per_day: 24.0 / k.mttf,
        checkpoint_interval_min: k.tau_h * 60.0,
        checkpoint_interval_basis: if k.given_tau.is_some() { "given" } else { "auto" },
        checkpoint_gb: k.checkpoint_gb,
        checkpoint_stall_s: k.stall_s,
        checkpoint_save_s: k.save_s,
        storage_gbps: k.storage,
        restart_min: p.restart_min,
        recovery: p.recovery,
        spares: k.spares,
        spares_basis: if p.spares.is_some() { "given" } else { "auto" },
        ettr: c.ettr,
        tokens_per_s: job.tokens_per_s,
        goodput_tokens_per_s: job.tokens_per_s * c.ettr,
        lost_to_checkpoints: c.checkpoints,
        lost_to_restarts: c.restarts,
        lost_to_rollback: c.rollback,
        lost_to_waiting_for_spares: c.waiting,
        lost_to_slowdowns: c.slowdowns,
        components,
        intervals: GoodputIntervals {
            interruptions_per_day: mttf_iv.map(|m| 24.0 / m),
            goodput_tokens_per_s: ettr_iv.map(|e| e * job.tokens_per_s),
            mttf_hours: mttf_iv,
            checkpoint_interval_min: tau_iv,
            ettr: ettr_iv,
        },
        inventory: k.inv,
        notes,
    }
}

/// The goodput inputs a step report gives: parameters, step, tokens/s, data-parallel replicas
/// and the share of the step in exposed scale-out traffic (DP, EP, CP, pipeline sends).
pub fn job_of(params: u64, r: &crate::training::StepReport) -> Job {
    let b = &r.breakdown;
    let step = b.total().0.max(f64::MIN_POSITIVE);
    Job {
        params,
        step_time_s: r.step_time_s,
        tokens_per_s: r.tokens_per_s,
        replicas: r.mapping.dp,
        network_share: ((b.dp.0 + b.ep.0 + b.cp.0 + b.pp_p2p.0) / step).clamp(0.0, 1.0),
    }
}

/// Goodput of a step report's job under the default policy (job restart, auto spares and
/// interval): what `train`, `eval` and compare show beside the step.
pub fn of_step(topo: &Topology, params: u64, r: &crate::training::StepReport) -> GoodputReport {
    goodput(topo, &job_of(params, r), &Policy::default())
}

/// The same answer's sentence numbers (what the explorer's training panel shows).
pub fn summary_of_step(topo: &Topology, params: u64, r: &crate::training::StepReport) -> Summary {
    summary(topo, &job_of(params, r), &Policy::default())
}

impl GoodputReport {
    /// The sentence's numbers of this answer.
    pub fn summary(&self) -> Summary {
        let sum = |f: fn(Component) -> bool| self.components.iter().filter(|l| f(l.component)).map(|l| l.share_of_stops).sum::<f64>();
        Summary {
            ettr: self.ettr,
            ettr_range: (self.intervals.ettr.lo, self.intervals.ettr.hi),
            mttf_hours: self.mttf_hours,
            gpu_share: sum(|c| matches!(c, Component::Gpu | Component::Hbm)),
            network_share: sum(|c| {
                matches!(c, Component::Nic | Component::Optics | Component::FabricLink | Component::LeafSwitch | Component::SpineSwitch | Component::CoreSwitch | Component::NvlinkTray)
            }),
        }
    }

    /// Share of stops from GPUs and HBM, and from the network.
    pub fn shares(&self) -> (f64, f64) {
        let s = self.summary();
        (s.gpu_share, s.network_share)
    }

    /// One sentence: see [`Summary::sentence`].
    pub fn sentence(&self) -> String {
        self.summary().sentence()
    }
}

impl Summary {
    /// "trains 91.2% of the time (90%: 85.0-95.1%; one stop every 3.1 h; GPUs 64%, network 10%
    /// of stops)".
    pub fn sentence(&self) -> String {
        format!(
            "trains {:.1}% of the time (90%: {:.1}-{:.1}%; one stop every {}; GPUs {:.0}%, network {:.0}% of stops)",
            self.ettr * 100.0,
            self.ettr_range.0 * 100.0,
            self.ettr_range.1 * 100.0,
            hours_text(self.mttf_hours),
            self.gpu_share * 100.0,
            self.network_share * 100.0
        )
    }
}

/// "3.1 h", "45 min", "12 days".
pub fn hours_text(h: f64) -> String {
    let (v, unit) = hours_unit(h, h);
    format!("{} {unit}", figure(v))
}

/// "3.1 h (90%: 2.0-8.0 h)": a value and its interval in the value's unit.
pub fn hours_with_interval(h: f64, iv: &Interval) -> String {
    let (v, unit) = hours_unit(h, h);
    let (lo, _) = hours_unit(iv.lo, h);
    let (hi, _) = hours_unit(iv.hi, h);
    format!("{} {unit} (90%: {}-{} {unit})", figure(v), figure(lo), figure(hi))
}

/// `h` hours in the unit `like` reads best in: minutes under an hour, days from two.
fn hours_unit(h: f64, like: f64) -> (f64, &'static str) {
    if like < 1.0 {
        (h * 60.0, "min")
    } else if like < 48.0 {
        (h, "h")
    } else {
        (h / 24.0, "days")
    }
}

/// Two significant figures, at least a whole number ("3.1", "45", "120").
fn figure(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}
