//! The fit: each measured row's own estimate of the parameter it constrains (the value that
//! makes the model's prediction of that row equal the measurement, found by bisection within
//! the parameter's physical bounds), then the median over the rows and a robust spread.
//!
//! Order: the scale-up bandwidth share from one-node runs' plateau rows, then the scale-up
//! latency from their small rows, then the network bandwidth share from multi-node runs'
//! plateau rows (timed with the scale-up share found), then the network latency from their
//! small rows. A row whose prediction does not move with a parameter (a multi-node row bound
//! inside the node, say) does not constrain it.

use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::fitted::{Calibration, Latency, OpShare, Scales, Share, MAX_INTRA_LATENCY_US, MAX_NET_LATENCY_US, MAX_SHARE, MIN_INTRA_LATENCY_US, MIN_NET_LATENCY_US, MIN_SHARE};
use crate::measured::{plateau_from, Measured};
use crate::topology::Placement;
use crate::units::{format_size, Bytes};
use serde::{Deserialize, Serialize};

/// Largest size whose time constrains a latency, bytes: the trust table's small range (64 KiB),
/// where every published sweep in validation/ is latency bound.
pub const LATENCY_MAX_BYTES: u64 = 64 << 10;
/// Smallest relative uncertainty of a bandwidth share (dimensionless): nccl-tests' run-to-run
/// spread of a plateau. The two runs of validation/logs/b200-2node-sendrecv-two-runs.txt
/// measured 64 MiB at 42.82 and 41.78 GB/s (2.5%); 3% rounds it up.
pub const MIN_REL_UNCERTAINTY: f64 = 0.03;
/// Smallest uncertainty of an added latency, µs: small-message times in the same log scatter
/// by several µs from one size to the next (23.4-35.7 µs from 1 KiB to 64 KiB); 2 µs is the
/// least a fit on a few of them can claim.
pub const MIN_LATENCY_UNCERTAINTY_US: f64 = 2.0;
/// A row constrains a parameter only if its prediction moves by this much (relative) across
/// the parameter's bounds: a row bound elsewhere tells nothing about it.
const MIN_SENSITIVITY: f64 = 0.01;
/// A row constrains a bandwidth share where the model's prediction at the catalog's share
/// responds to it: an elasticity d ln(busbw) / d ln(share) of at least this (dimensionless;
/// 1 where the tier alone binds, 0 where another does; chosen halfway, not fitted).
const MIN_ELASTICITY: f64 = 0.5;
/// A row the tier does not bind (elasticity under [`MIN_ELASTICITY`]) and whose measurement is
/// within this fraction of the catalog's prediction is consistent with the catalog's share: its
/// estimate is the catalog's (dimensionless; the check's healthy floor, `diagnose`'s 10%). A
/// gap that small is the model's own error where another tier binds, not this tier's.
const CONSISTENT_TOLERANCE: f64 = 0.10;
/// Plateau rows: sizes from the check's plateau (64 MiB, else the largest three) whose busbw is
/// at least this share of the run's highest (dimensionless): the flat part of the curve, where
/// bandwidth alone sets the time (mid sizes carry pipeline fill the shares must not absorb).
const PLATEAU_SHARE_OF_MAX: f64 = 0.9;
/// Bisection steps: 2^-50 of the bounds' span, far below any printed digit.
const BISECTION_STEPS: usize = 50;
/// MAD to standard deviation for normal data (dimensionless): 1 / Φ^-1(3/4).
const MAD_TO_SD: f64 = 1.4826;

/// The parameters a row can constrain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    ScaleUpBandwidth,
    ScaleUpLatency,
    NetworkBandwidth,
    NetworkLatency,
}

impl Param {
    pub fn id(self) -> &'static str {
        match self {
            Param::ScaleUpBandwidth => "scale_up_bandwidth_share",
            Param::ScaleUpLatency => "scale_up_latency_us",
            Param::NetworkBandwidth => "network_bandwidth_share",
            Param::NetworkLatency => "network_latency_us",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Param::ScaleUpBandwidth | Param::NetworkBandwidth => "share of the catalog's bandwidth",
            Param::ScaleUpLatency => "µs added per operation",
            Param::NetworkLatency => "µs added per operation across nodes",
        }
    }
    fn bounds(self) -> (f64, f64) {
        match self {
            Param::ScaleUpBandwidth | Param::NetworkBandwidth => (MIN_SHARE, MAX_SHARE),
            Param::ScaleUpLatency => (MIN_INTRA_LATENCY_US, MAX_INTRA_LATENCY_US),
            Param::NetworkLatency => (MIN_NET_LATENCY_US, MAX_NET_LATENCY_US),
        }
    }
    fn set(self, s: &mut Scales, v: f64) {
        match self {
            Param::ScaleUpBandwidth => s.intra_bw = v,
            Param::ScaleUpLatency => s.intra_latency_us = v,
            Param::NetworkBandwidth => s.net_bw = v,
            Param::NetworkLatency => s.net_latency_us = v,
        }
    }
    fn is_bandwidth(self) -> bool {
        matches!(self, Param::ScaleUpBandwidth | Param::NetworkBandwidth)
    }
}

/// One measured row against the catalog's and the calibrated prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitRow {
    /// The log (0-based, in the order given) and its run (0-based).
    pub log: usize,
    pub run: usize,
    pub op: Collective,
    /// Scale-up domains and GPUs in each, as the run was placed.
    pub nodes: u32,
    pub per_node: u32,
    pub ranks: u32,
    #[serde(default = "one")]
    pub gpus_per_process: u32,
    pub bytes: u64,
    #[serde(rename = "measured_busbw_GBps")]
    pub measured_busbw: f64,
    pub measured_time_us: f64,
    #[serde(rename = "catalog_busbw_GBps")]
    pub catalog_busbw: f64,
    #[serde(rename = "calibrated_busbw_GBps")]
    pub calibrated_busbw: f64,
    /// The parameter this row constrains and its own estimate of it, if any.
    pub constrains: Option<Param>,
    pub estimate: Option<f64>,
}

fn one() -> u32 {
    1
}

impl FitRow {
    /// "log 1 run 2: all_reduce 2x8 at 256 MiB".
    pub fn label(&self) -> String {
        format!("log {} run {}: {} {}x{} at {}", self.log + 1, self.run + 1, self.op.id(), self.nodes, self.per_node, format_size(Bytes(self.bytes)))
    }
}

/// A fitted parameter with its uncertainty and the rows behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fitted {
    pub name: String,
    pub unit: String,
    pub value: f64,
    /// One standard deviation, in the parameter's unit.
    pub uncertainty: f64,
    /// The catalog's value (a share of 1, no latency added).
    pub catalog: f64,
    pub bounds: [f64; 2],
    /// Some row's estimate sat on a bound (the measurement is outside what the parameter can
    /// explain).
    pub at_bound: bool,
    /// The rows that constrain it (`FitRow::label`).
    pub constrained_by: Vec<String>,
}

/// A run set up for the fit: its communicator and what was forced.
pub struct RunSetup<'a> {
    pub log: usize,
    pub run: usize,
    pub m: &'a Measured,
    pub comm: Comm,
    pub placement: Placement,
    pub algo: AlgoChoice,
    pub proto: ProtoChoice,
}

impl RunSetup<'_> {
    fn predict(&self, s: Scales, bytes: u64) -> Option<crate::collective::Prediction> {
        self.comm.scaled(s).predict(self.m.op, Bytes(bytes), self.algo, self.proto).ok().filter(|p| p.time.0.is_finite() && p.time.0 > 0.0)
    }
}

/// The value in `[lo, hi]` at which the monotone `f` meets `target`, and whether it sits on a
/// bound (the target is beyond what the range reaches). `None` where `f` fails or barely moves.
fn solve(f: impl Fn(f64) -> Option<f64>, target: f64, lo: f64, hi: f64) -> Option<(f64, bool)> {
    let (flo, fhi) = (f(lo)?, f(hi)?);
    if (fhi - flo).abs() < MIN_SENSITIVITY * target.abs().max(1e-12) {
        return None;
    }
    let rising = fhi > flo;
    let below = |v: f64| if rising { v < target } else { v > target };
    if below(fhi) {
        return Some((hi, true));
    }
    if !below(flo) {
        return Some((lo, true));
    }
    let (mut a, mut b) = (lo, hi);
    for _ in 0..BISECTION_STEPS {
        let mid = 0.5 * (a + b);
        match f(mid) {
            Some(v) if below(v) => a = mid,
            Some(_) => b = mid,
            None => return None,
        }
    }
    Some((0.5 * (a + b), false))
}

/// The median of `v` (sorted copy; `v` is small).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

/// The robust standard deviation of `v`: 1.4826 x the median absolute deviation.
fn robust_sd(v: &[f64]) -> f64 {
    let m = median(v);
    MAD_TO_SD * median(&v.iter().map(|x| (x - m).abs()).collect::<Vec<_>>())
}

/// Each row's estimate of `param` (rows of `setups` the `pick` keeps), with the other factors
/// at `base`: the rows updated in place.
fn estimates(setups: &[RunSetup], rows: &mut [FitRow], param: Param, base: &dyn Fn(Collective) -> Scales, pick: &dyn Fn(&RunSetup, &FitRow) -> bool) -> Vec<(usize, f64, bool)> {
    let (lo, hi) = param.bounds();
    let mut out = Vec::new();
    for (i, r) in rows.iter_mut().enumerate() {
        let Some(st) = setups.iter().find(|s| s.log == r.log && s.run == r.run) else { continue };
        if !pick(st, r) {
            continue;
        }
        let b = base(r.op);
        let f = |v: f64| {
            let mut s = b;
            param.set(&mut s, v);
            st.predict(s, r.bytes).map(|p| if param.is_bandwidth() { p.busbw.0 } else { p.time.0 })
        };
        let target = if param.is_bandwidth() { r.measured_busbw } else { r.measured_time_us };
        if param.is_bandwidth() {
            // Bound by another tier at the catalog's share and close to it: the catalog's share.
            let (Some(at), Some(below)) = (f(1.0), f(1.0 / 1.1)) else { continue };
            let elasticity = (at / below).ln() / 1.1f64.ln();
            if elasticity < MIN_ELASTICITY && (target / at - 1.0).abs() <= CONSISTENT_TOLERANCE {
                r.constrains = Some(param);
                r.estimate = Some(1.0);
                out.push((i, 1.0, false));
                continue;
            }
        }
        if let Some((v, at_bound)) = solve(f, target, lo, hi) {
            r.constrains = Some(param);
            r.estimate = Some(v);
            out.push((i, v, at_bound));
        }
    }
    out
}

/// The share (overall and per collective) the estimates give, and the parameter in words.
fn share_of(param: Param, est: &[(usize, f64, bool)], rows: &[FitRow]) -> Option<(Share, Fitted)> {
    if est.is_empty() {
        return None;
    }
    let all: Vec<f64> = est.iter().map(|e| e.1).collect();
    let share = median(&all);
    let rel = |v: &[f64], m: f64| (robust_sd(v) / m).max(MIN_REL_UNCERTAINTY);
    let mut by_op = Vec::new();
    for op in Collective::ALL {
        let v: Vec<f64> = est.iter().filter(|e| rows[e.0].op == op).map(|e| e.1).collect();
        if !v.is_empty() {
            let m = median(&v);
            by_op.push(OpShare { op, share: m, rel_uncertainty: rel(&v, m) });
        }
    }
    let rel_uncertainty = rel(&all, share);
    let (lo, hi) = param.bounds();
    let fitted = Fitted {
        name: param.id().into(),
        unit: param.unit().into(),
        value: share,
        uncertainty: share * rel_uncertainty,
        catalog: 1.0,
        bounds: [lo, hi],
        at_bound: est.iter().any(|e| e.2),
        constrained_by: est.iter().map(|e| rows[e.0].label()).collect(),
    };
    Some((Share { share, rel_uncertainty, by_op }, fitted))
}

fn latency_of(param: Param, est: &[(usize, f64, bool)], rows: &[FitRow]) -> Option<(Latency, Fitted)> {
    if est.is_empty() {
        return None;
    }
    let all: Vec<f64> = est.iter().map(|e| e.1).collect();
    let added = median(&all);
    let sd = robust_sd(&all).max(MIN_LATENCY_UNCERTAINTY_US);
    let (lo, hi) = param.bounds();
    let fitted = Fitted {
        name: param.id().into(),
        unit: param.unit().into(),
        value: added,
        uncertainty: sd,
        catalog: 0.0,
        bounds: [lo, hi],
        at_bound: est.iter().any(|e| e.2),
        constrained_by: est.iter().map(|e| rows[e.0].label()).collect(),
    };
    Some((Latency { added_us: added, uncertainty_us: sd }, fitted))
}

/// The rows of every run, predicted on the catalog.
pub fn rows_of(setups: &[RunSetup]) -> Vec<FitRow> {
    let mut rows = Vec::new();
    for st in setups {
        for pt in &st.m.points {
            let Some(p) = st.predict(Scales::default(), pt.bytes) else { continue };
            rows.push(FitRow {
                log: st.log,
                run: st.run,
                op: st.m.op,
                nodes: st.placement.domains(),
                per_node: st.placement.per_domain,
                ranks: st.placement.ranks,
                gpus_per_process: st.m.gpus_per_process.unwrap_or(1).max(1),
                bytes: pt.bytes,
                measured_busbw: pt.busbw,
                measured_time_us: pt.time_us,
                catalog_busbw: p.busbw.0,
                calibrated_busbw: p.busbw.0,
                constrains: None,
                estimate: None,
            });
        }
    }
    rows
}

/// Fits the four parameters on `rows` (from [`rows_of`]); fills each row's calibrated busbw.
pub fn fit(setups: &[RunSetup], rows: &mut [FitRow], logs: u32) -> (Calibration, Vec<Fitted>) {
    let plateau = |st: &RunSetup, r: &FitRow| {
        let top = st.m.points.iter().map(|p| p.busbw).fold(0.0, f64::max);
        r.bytes >= plateau_from(&st.m.points) && r.measured_busbw > 0.0 && r.measured_busbw >= PLATEAU_SHARE_OF_MAX * top
    };
    let small = |r: &FitRow| r.bytes <= LATENCY_MAX_BYTES;
    let mut params = Vec::new();
    let mut cal = Calibration { logs, ..Calibration::default() };
    let mut nodes: Vec<u32> = rows.iter().map(|r| r.nodes).collect();
    nodes.sort_unstable();
    nodes.dedup();
    cal.measured_nodes = nodes;

    let one = |st: &RunSetup| st.placement.domains() == 1;
    let e = estimates(setups, rows, Param::ScaleUpBandwidth, &|_| Scales::default(), &|st, r| one(st) && plateau(st, r));
    if let Some((s, f)) = share_of(Param::ScaleUpBandwidth, &e, rows) {
        cal.scale_up.bandwidth = Some(s);
        params.push(f);
    }
    let c1 = cal.clone();
    let e = estimates(setups, rows, Param::ScaleUpLatency, &|op| c1.scales_for(op), &|st, r| one(st) && small(r));
    if let Some((l, f)) = latency_of(Param::ScaleUpLatency, &e, rows) {
        cal.scale_up.latency = Some(l);
        params.push(f);
    }
    let c2 = cal.clone();
    let e = estimates(setups, rows, Param::NetworkBandwidth, &|op| c2.scales_for(op), &|st, r| !one(st) && plateau(st, r));
    if let Some((s, f)) = share_of(Param::NetworkBandwidth, &e, rows) {
        cal.network.bandwidth = Some(s);
        params.push(f);
    }
    let c3 = cal.clone();
    let e = estimates(setups, rows, Param::NetworkLatency, &|op| c3.scales_for(op), &|st, r| !one(st) && small(r));
    if let Some((l, f)) = latency_of(Param::NetworkLatency, &e, rows) {
        cal.network.latency = Some(l);
        params.push(f);
    }
    for r in rows.iter_mut() {
        if let Some(st) = setups.iter().find(|s| s.log == r.log && s.run == r.run) {
            if let Some(p) = st.predict(cal.scales_for(r.op), r.bytes) {
                r.calibrated_busbw = p.busbw.0;
            }
        }
    }
    (cal, params)
}

/// What differs from the catalog, a sentence per tier ("NICs deliver 81% of 400G line rate
/// ..."), and what the logs could not constrain. `goodput_of_line` is the catalog's NIC
/// goodput as a share of its line rate (`NicSpec::efficiency`).
pub fn words(cal: &Calibration, rows: &[FitRow], nic: &str, scale_up: &str, goodput_of_line: f64) -> (Vec<String>, Vec<String>) {
    let mut said = Vec::new();
    let mut not = Vec::new();
    let whence = |p: Param| {
        let mut ops: Vec<String> = Vec::new();
        let mut nodes: Vec<u32> = Vec::new();
        for r in rows.iter().filter(|r| r.constrains == Some(p)) {
            if !ops.contains(&r.op.name().to_string()) {
                ops.push(r.op.name().to_string());
            }
            if !nodes.contains(&r.nodes) {
                nodes.push(r.nodes);
            }
        }
        nodes.sort_unstable();
        let n: Vec<String> = nodes.iter().map(u32::to_string).collect();
        format!("{}-node {}", n.join("/"), ops.join(" and "))
    };
    let close = |s: &Share| (s.share - 1.0).abs() <= 2.0 * s.rel_uncertainty.max(MIN_REL_UNCERTAINTY);
    match &cal.network.bandwidth {
        Some(s) if close(s) => said.push(format!(
            "The network delivers {:.0}% of the catalog's {nic} goodput, {:.0}% of line rate ({} plateau): as designed",
            s.share * 100.0,
            s.share * goodput_of_line * 100.0,
            whence(Param::NetworkBandwidth)
        )),
        Some(s) => said.push(format!(
            "The NICs deliver {:.0}% (±{:.0}%) of the catalog's {nic} goodput, {:.0}% of line rate ({} plateau)",
            s.share * 100.0,
            s.share * s.rel_uncertainty * 100.0,
            s.share * goodput_of_line * 100.0,
            whence(Param::NetworkBandwidth)
        )),
        None => not.push("the network: no log crosses it (one-node runs only, or no multi-node plateau), so predictions across nodes use the catalog's network".to_string()),
    }
    match &cal.scale_up.bandwidth {
        Some(s) if close(s) => said.push(format!("Inside the node as designed: {:.0}% of the catalog's {scale_up} bandwidth ({} plateau)", s.share * 100.0, whence(Param::ScaleUpBandwidth))),
        Some(s) => said.push(format!("Inside the node {:.0}% (±{:.0}%) of the catalog's {scale_up} bandwidth ({} plateau)", s.share * 100.0, s.share * s.rel_uncertainty * 100.0, whence(Param::ScaleUpBandwidth))),
        None if cal.network.bandwidth.is_some() => said.push("Inside the node: no one-node run, so the scale-up bandwidth is the catalog's (multi-node runs time it as designed)".to_string()),
        None => not.push("the scale-up bandwidth: no one-node plateau".to_string()),
    }
    for (p, l) in [(Param::NetworkLatency, cal.network.latency), (Param::ScaleUpLatency, cal.scale_up.latency)] {
        let what = if p == Param::NetworkLatency { "per operation across nodes" } else { "per operation inside a node" };
        let bound = if p == Param::NetworkLatency { MIN_NET_LATENCY_US } else { MIN_INTRA_LATENCY_US };
        match l {
            Some(l) if l.added_us <= bound => said.push(format!("Small messages run faster than the catalog expects {what}, beyond the {bound} µs a fit may take away ({} up to 64 KiB): kept at that bound", whence(p))),
            Some(l) if l.added_us.abs() <= 2.0 * l.uncertainty_us => said.push(format!("Small-message latency {what} as designed ({:+.1} ± {:.1} µs; {} up to 64 KiB)", l.added_us, l.uncertainty_us, whence(p))),
            Some(l) => said.push(format!("Small messages pay {:+.1} µs (±{:.1}) {what} beyond the catalog ({} up to 64 KiB)", l.added_us, l.uncertainty_us, whence(p))),
            None => not.push(format!("the latency {what}: no small-size rows of that kind")),
        }
    }
    (said, not)
}
