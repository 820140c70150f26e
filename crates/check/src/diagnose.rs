//! A measured sweep set against the model: the cluster read from the log (the rest assumed
//! from the design), the expected busbw and its band per size, the plateau, and the likely
//! causes of a gap, ranked, each with the number behind it and what to run next.

use super::facts::NetPlugin;
use super::measured::{plateau_from, Measured};
use super::sources::{infer, Field, Given, Inferred, Overruled, Source};
use crate::calibration::apply::collective_ratios;
use crate::catalog::{NetFamily, NicKind, ScaleUp};
use crate::collective::{AlgoChoice, Collective, Comm, Prediction, ProtoChoice};
use crate::error::{printable, ModelError, Result};
use crate::topology::{Cluster, Placement, TierKind};
use crate::trust::{AlgoFamily, TierClass};
use crate::units::Bytes;
use serde::Serialize;

/// A plateau within this fraction of expected counts as healthy, unless the class's band is
/// wider (then twice the band): the band is a median error, so half of the published
/// measurements behind it lie outside it. The band is the measurements' own
/// (`Trust::measured_band_pct`), not the one widened for a scale beyond them: a wide band says
/// how far the model may be off, so a run far below the expectation there is "cannot judge",
/// never passed as healthy. Not the 90% interval each row is placed in: that interval holds 9
/// in 10 published runs of the class, misconfigured ones included (one source's run at half
/// the model's busbw sets the low end of single-node NVLink rings), so a plateau judged by it
/// would pass a node at 65% of its expectation as healthy; a health check asks what a typical
/// run of the class reaches.
const HEALTHY_FLOOR: f64 = 0.10;
/// A tolerance wider than this cannot tell a healthy run from a slow one: the class's own
/// measurements lie that far from the model (NVLSTree across 20 NVL72 racks measured half of
/// it), so a run outside [`HEALTHY_FLOOR`] there is "cannot judge", not healthy.
const DECISIVE_TOLERANCE: f64 = 0.5;
/// Below this measured busbw (GB/s) the printed figure has fewer than two significant
/// digits, too few to place a row inside or outside a band.
const MIN_BAND_BUSBW: f64 = 0.1;
/// Largest size counted as "small" for the latency check (the trust table's small range).
const SMALL_MAX_BYTES: u64 = 64 << 10;
/// Small-size times this many times the expected one point at host-side latency.
const SLOW_SMALL_FACTOR: f64 = 2.0;

/// One size: measured against expected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckRow {
    pub op: Collective,
    pub bytes: u64,
    /// The log's out-of-place busbw, as printed.
    pub measured_busbw: f64,
    pub expected_busbw: f64,
    /// measured / expected busbw: the two numbers beside it.
    pub ratio: f64,
    /// Inside the expectation's 90% interval (the one the explorer and the CLI show); `None`
    /// where no measurement backs the class or the measured busbw has too few digits (under
    /// 0.1 GB/s).
    pub within_band: Option<bool>,
    /// The class's median error, percent (the old band, kept for the CSV and JSON).
    pub band_pct: Option<f64>,
    /// The expectation's 90% interval, GB/s per direction `[lo, hi]`.
    pub interval: Option<[f64; 2]>,
    /// The run (0-based) the row comes from.
    pub run: usize,
}

/// A run's large-message plateau: the figures people quote.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plateau {
    pub op: Collective,
    pub run: usize,
    /// The plateau row at the median measured/expected (sizes from 64 MiB, else the largest
    /// three): its size, its busbw and the model's busbw there.
    pub bytes: u64,
    pub measured_busbw: f64,
    pub expected_busbw: f64,
    /// `measured_busbw / expected_busbw`.
    pub ratio: f64,
    /// The smallest size above the small ones from which every row is below the healthy
    /// tolerance, if any.
    pub departs_at: Option<u64>,
    pub tolerance: f64,
    pub validated: bool,
    /// The run lies outside the scale (nodes, racks, GPUs) its class was measured at.
    pub extrapolated: bool,
    /// No measurement backs the class; its parts are measured (`Trust::composed`).
    pub composed: bool,
    /// Measured only on the GPU's predecessor (`Trust::successor`: MI355X from MI300X).
    pub successor: bool,
    /// How far the expectation can be trusted, in words ([`crate::trust::Trust::describe`]).
    pub trust: String,
    pub algorithm: &'static str,
}

impl Plateau {
    /// Whether the model can place this run: its tolerance is narrow enough to tell a healthy
    /// run from a slow one, the run meets the expectation within the healthy floor, or it lies
    /// below even a wide tolerance (outside the 90% interval: slow, whatever the width).
    pub fn judgeable(&self) -> bool {
        self.tolerance <= DECISIVE_TOLERANCE || (self.ratio - 1.0).abs() <= HEALTHY_FLOOR || self.ratio < 1.0 - self.tolerance
    }
}

/// A likely cause, with the number that supports it and what to run to confirm it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cause {
    pub cause: String,
    pub evidence: String,
    pub next_step: String,
}

/// The whole check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    pub cluster: Cluster,
    /// Each field of the cluster with where it came from.
    pub fields: Vec<Field>,
    /// Fields the user gave that the log says otherwise about (the given value is judged).
    pub overruled: Vec<Overruled>,
    pub rows: Vec<CheckRow>,
    pub plateaus: Vec<Plateau>,
    /// Ranked, most likely first.
    pub verdict: Vec<Cause>,
    /// Hardware or software of the run the model does not cover ("GPU AMD Instinct MI300X").
    pub not_modelled: Vec<String>,
    /// `Some(true)`: every plateau within tolerance of a validated expectation; `Some(false)`:
    /// one is not, on hardware the log or the user named; `None`: the check cannot judge
    /// (not modelled, not validated, or below the band on assumed hardware).
    pub healthy: Option<bool>,
}

struct RunEval<'a> {
    m: &'a Measured,
    comm: Comm,
    preds: Vec<Prediction>,
}

fn tolerance(p: &Prediction) -> f64 {
    p.trust.measured_band_pct.map_or(HEALTHY_FLOOR, |b| (2.0 * b / 100.0).max(HEALTHY_FLOOR))
}

/// The index of the upper median of `v` (None when empty). A selection, not a sort of `v`:
/// linear on average, so 20,000 plateau rows cost milliseconds.
fn median_index(v: &[f64]) -> Option<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    let k = v.len() / 2;
    if idx.is_empty() {
        return None;
    }
    idx.select_nth_unstable_by(k, |a, b| v[*a].total_cmp(&v[*b]));
    Some(idx[k])
}

/// The upper median of `v` (NaN when empty).
#[cfg(test)]
fn median(v: &[f64]) -> f64 {
    median_index(v).map_or(f64::NAN, |i| v[i])
}

/// Sets measured runs against `design` (with the log's fields read in) and diagnoses.
pub fn check(runs: &[Measured], design: &Cluster) -> Result<CheckReport> {
    check_with(runs, design, &Given::default())
}

/// [`check`] with what the user gave (flags win over the log).
pub fn check_with(runs: &[Measured], design: &Cluster, given: &Given) -> Result<CheckReport> {
    if runs.iter().all(|m| m.points.is_empty()) {
        return Err(ModelError::new("log", "no run with a known collective and rank count and a non-empty size to check"));
    }
    let inf = infer(runs, design, given);
    let cluster = inf.cluster.clone();
    let topo = cluster.topology().map_err(|e| {
        // A field the user did not give came from the log (or the design): say so.
        let given_field = match e.field {
            "nodes" => given.nodes,
            "gpus_per_node" => given.gpus_per_node,
            "gpu" => given.gpu,
            "nic" | "nics_per_node" => given.nic,
            _ => true,
        };
        if given_field {
            e
        } else {
            ModelError::new("log", format!("the cluster the log describes ({} nodes x {} GPUs) is outside what the model covers: {}", cluster.nodes, cluster.gpus_per_node, e.message))
        }
    })?;
    let own_layout = !given.nodes && !given.gpus_per_node;
    let mut evals = Vec::new();
    for m in runs.iter().filter(|m| !m.points.is_empty()) {
        // An NVL72 rack is one domain of many trays (hosts): its ranks fill racks, not trays.
        let p = match (m.nodes, m.gpus_per_node) {
            (Some(_), Some(per)) if own_layout && cluster.scale_up != ScaleUp::Nvl72 => Placement { ranks: m.ranks, per_domain: per },
            _ => topo.first(m.ranks),
        };
        let g = m.gpus_per_process.unwrap_or(1).clamp(1, crate::limits::GPUS_PER_PROCESS.max as u32);
        let comm = Comm::new(&topo, p).map_err(|e| {
            ModelError::new(
                "log",
                format!(
                    "the log's {} ranks ({} per node) do not fit the cluster checked against ({} nodes x {} GPUs): {}; give the nodes and GPUs per node (--nodes, --gpus-per-node)",
                    m.ranks, p.per_domain, cluster.nodes, cluster.gpus_per_node, e.message
                ),
            )
        })?;
        let comm = comm.with_gpus_per_process(g);
        // NCCL_ALGO and NCCL_PROTO steer NCCL's collectives, not its point-to-point sends.
        let (algo, proto) = if m.op.func().is_some() { (inf.algo, inf.proto) } else { (AlgoChoice::Auto, ProtoChoice::Auto) };
        let preds = m
            .points
            .iter()
            .map(|pt| comm.predict(m.op, Bytes(pt.bytes), algo, proto))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| ModelError::new(if algo != AlgoChoice::Auto { "algo" } else { "proto" }, format!("the run forced {} / {}: {}", algo.id(), proto.id(), e.message)))?;
        evals.push(RunEval { m, comm, preds });
    }
    let mut rows = Vec::new();
    let mut plateaus = Vec::new();
    for (run, e) in evals.iter().enumerate() {
        let first = rows.len();
        for (pt, p) in e.m.points.iter().zip(&e.preds) {
            let ratio = pt.busbw / p.busbw.0;
            let interval = collective_ratios(&p.trust).filter(|_| p.trust.validated_cases > 0);
            rows.push(CheckRow {
                op: e.m.op,
                bytes: pt.bytes,
                measured_busbw: pt.busbw,
                expected_busbw: p.busbw.0,
                ratio,
                within_band: interval.filter(|_| pt.busbw >= MIN_BAND_BUSBW).map(|(lo, hi)| (lo..=hi).contains(&ratio)),
                band_pct: p.trust.error_band_pct,
                interval: interval.map(|(lo, hi)| [p.busbw.0 * lo, p.busbw.0 * hi]),
                run,
            });
        }
        let run_rows = &rows[first..];
        let from = plateau_from(&e.m.points);
        let top: Vec<usize> = (0..run_rows.len()).filter(|&i| run_rows[i].bytes >= from && run_rows[i].ratio.is_finite()).collect();
        let ratios: Vec<f64> = top.iter().map(|&i| run_rows[i].ratio).collect();
        let Some(mid) = median_index(&ratios).map(|k| top[k]) else {
            continue;
        };
        let (w, lp) = (&run_rows[mid], &e.preds[mid]);
        let tol = tolerance(lp);
        let departs_at = {
            let mut at = None;
            for r in run_rows.iter().filter(|r| r.bytes > SMALL_MAX_BYTES) {
                at = if r.ratio < 1.0 - tol { at.or(Some(r.bytes)) } else { None };
            }
            at
        };
        plateaus.push(Plateau {
            op: e.m.op,
            run,
            bytes: w.bytes,
            measured_busbw: w.measured_busbw,
            expected_busbw: w.expected_busbw,
            ratio: w.ratio,
            departs_at,
            tolerance: tol,
            // A composed class (no measurement of its own, its parts measured) is judged like an
            // extrapolated one: healthy within its band, "cannot judge" outside it.
            validated: lp.trust.validated_cases > 0 || lp.trust.composed,
            composed: lp.trust.composed,
            successor: lp.trust.successor,
            extrapolated: lp.trust.extrapolated,
            trust: lp.trust.describe(),
            algorithm: lp.algorithm,
        });
    }
    let net = runs.iter().find_map(|m| m.net);
    let multi_domain = evals.iter().any(|e| e.comm.placement.domains() > 1);
    let assumed = assumption(&inf, net, multi_domain);
    let within = |p: &Plateau| (p.ratio - 1.0).abs() <= p.tolerance;
    // Sockets on a cluster with InfiniBand (IPoIB, or NCCL found no IB device) across nodes:
    // a fault whatever the numbers.
    // A design of TCP sockets (given or picked) is judged by its numbers.
    let fell_back = net == Some(NetPlugin::Socket) && cluster.nic != NicKind::Eth100Tcp && runs.iter().any(|m| m.socket_on_ib) && evals.iter().any(|e| e.comm.placement.domains() > 1);
    let healthy = if !inf.not_modelled.is_empty() || plateaus.is_empty() {
        None
    } else if fell_back {
        Some(false)
    } else if plateaus.iter().any(|p| !p.validated || !p.judgeable()) {
        None
    } else if plateaus.iter().all(within) {
        Some(true)
    } else if assumed.is_some() || plateaus.iter().any(|p| p.extrapolated && !within(p)) {
        None
    } else {
        Some(false)
    };
    let verdict = diagnose(&inf, net, fell_back, assumed, &evals, &plateaus);
    Ok(CheckReport { cluster, fields: inf.fields, overruled: inf.overruled, rows, plateaus, verdict, not_modelled: inf.not_modelled, healthy })
}

/// What the check assumed that decides the expected plateau, if anything: the GPU, or on
/// several scale-up domains the NIC (unless the log shows sockets, which it judges on their
/// own; inside one NVL72 rack the NICs carry nothing).
fn assumption(inf: &Inferred, net: Option<NetPlugin>, multi: bool) -> Option<String> {
    let c = &inf.cluster;
    let nic = format!("{} x {}", c.nics_per_node, c.nic.spec().name);
    if inf.source("gpu") == Source::Assumed {
        let with = if multi { format!(" with {nic} per node") } else { String::new() };
        return Some(format!("assumed {}{with}: no GPU name in the log", c.gpu.spec().name));
    }
    (multi && inf.source("nic") == Source::Assumed && net != Some(NetPlugin::Socket)).then(|| format!("assumed {nic} per node: the log does not show the NIC"))
}

fn gb(v: f64) -> String {
    format!("{v:.2} GB/s")
}

/// `measured / expected` as a percentage, from the two figures as printed.
fn pct(measured: f64, expected: f64) -> String {
    format!("{:.0}%", measured / expected * 100.0)
}

/// Whose tools the advice names: each hardware's own (never NVIDIA's for an AMD run).
#[derive(Clone, Copy, PartialEq)]
struct Kit {
    /// AMD Instinct with RCCL: rocm-smi, rccl-tests, HSA and RCCL's NCCL_ variables.
    amd: bool,
    /// AWS EFA through aws-ofi-nccl: fi_info, FI_EFA_*, the plugin's version.
    efa: bool,
    /// GB200/GB300 NVL72 racks: MNNVL, IMEX, the NVLink fabric state.
    nvl72: bool,
}

impl Kit {
    fn of(c: &Cluster) -> Kit {
        Kit { amd: c.gpu.spec().arch.is_amd(), efa: c.nic.spec().family == NetFamily::Efa, nvl72: c.scale_up == ScaleUp::Nvl72 }
    }
    /// The test binary's suite.
    fn tests(self) -> &'static str {
        if self.amd { "rccl-tests" } else { "nccl-tests" }
    }
}

/// The ranked causes.
fn diagnose(inf: &Inferred, net: Option<NetPlugin>, fell_back: bool, assumed: Option<String>, evals: &[RunEval], plateaus: &[Plateau]) -> Vec<Cause> {
    let c = &inf.cluster;
    let kit = Kit::of(c);
    let mut found: Vec<(f64, Cause)> = Vec::new();
    let mut add = |score: f64, cause: &str, evidence: String, next: &str| {
        found.push((score, Cause { cause: cause.into(), evidence, next_step: next.into() }));
    };
    // The worst plateau speaks for the log.
    let Some(p) = plateaus.iter().min_by(|a, b| a.ratio.total_cmp(&b.ratio)) else {
        return Vec::new();
    };
    let e = &evals[p.run];
    let multi = e.comm.placement.domains() > 1;
    let size = crate::units::format_size(Bytes(p.bytes));
    let fig = format!(
        "{} plateau {} measured vs {} expected at {size} ({} of expected; healthy within ±{:.0}%, what a typical run of its class reaches, where each row's 90% interval spans every published run of the class, misconfigured ones too)",
        p.op.name(),
        gb(p.measured_busbw),
        gb(p.expected_busbw),
        pct(p.measured_busbw, p.expected_busbw),
        p.tolerance * 100.0
    );
    let low = p.ratio < 1.0 - p.tolerance;
    // The causes after the first repeat only the gap and where it starts.
    let short = format!("{} at {} vs {} expected at {size}", p.op.name(), gb(p.measured_busbw), gb(p.expected_busbw));
    let (fig, short) = match p.departs_at.filter(|_| low) {
        Some(d) => {
            let from = format!("; below tolerance from {} up", crate::units::format_size(Bytes(d)));
            (fig + &from, short + &from)
        }
        None => (fig, short),
    };
    let design = format!("{} with {} x {}", c.gpu.spec().name, c.nics_per_node, c.nic.spec().name);
    if !inf.not_modelled.is_empty() {
        let what = inf.not_modelled.join(", ");
        let verb = if inf.not_modelled.len() == 1 { "is" } else { "are" };
        add(
            1.0,
            &format!("cannot judge: {what} {verb} not modelled"),
            format!("{fig}; the expected figures are the design's ({design}), not this hardware's"),
            "compare with a published result for the same hardware and library; the model covers NVIDIA GPUs with NCCL and AMD Instinct MI300X, MI325X and MI355X with RCCL, over InfiniBand, RoCE, AWS EFA or TCP sockets",
        );
        return found.into_iter().map(|f| f.1).collect();
    }
    let socket = multi && net == Some(NetPlugin::Socket) && c.nic != NicKind::Eth100Tcp;
    if socket && (low || fell_back) {
        let (lib, tool) = if kit.amd { ("RCCL", "ibv_devinfo") } else { ("NCCL", "ibv_devinfo") };
        let over = if fell_back { "; the log shows NET/Socket over IP-over-InfiniBand (ib0), so the cluster has InfiniBand" } else { "; the log shows NET/Socket" };
        add(
            1.1,
            &format!("{lib} fell back to TCP sockets (NET/Socket), not RDMA"),
            format!("{fig}{over}, while the expected figures are {}'s RDMA", c.nic.spec().name),
            &format!(
                "unset NCCL_IB_DISABLE and NCCL_NET; check {tool} lists the HCAs on every node (in a container: /dev/infiniband mounted, IPC_LOCK granted) and that NCCL_DEBUG=INFO then names the RDMA devices instead of NET/Socket; if the network is plain Ethernet, give --nic eth-100"
            ),
        );
    }
    if !p.validated {
        if e.comm.tier_class() == TierClass::Nvl72Racks {
            add(
                1.0,
                &format!("the expectation is extrapolated: no measurement backs {} across NVL72 racks", p.algorithm),
                format!("{fig}; no published measurement backs the model's {} prediction across NVL72 racks, so the gap may be the model's", p.algorithm),
                "compare with a published nccl-tests result for NVL72 across racks, or rerun on 2 racks with NCCL_ALGO=Ring, a class the model was measured on",
            );
        } else {
            add(
                1.0,
                "the model is not validated for this class",
                format!("{fig}; no published measurement backs the model's {} prediction here, so the gap may be the model's", p.algorithm),
                &format!("compare with a published {} result for the same hardware before blaming the cluster", kit.tests()),
            );
        }
        return rank(found);
    }
    let off = p.ratio > 1.0 + p.tolerance || low;
    if let Some(a) = assumed.as_deref().filter(|_| off || !p.judgeable()) {
        add(1.05, a, fig.clone(), "give the GPU and the NIC (--gpu, --nic, --nics-per-node; on check.html, the design's pickers), then check again");
    }
    if !p.judgeable() {
        add(
            1.04,
            &format!("cannot judge: the model's published error for {} at this scale is wider than the gap", p.algorithm),
            format!("{fig}; {}", p.trust),
            &format!("compare with a published {} result at the same scale, or rerun at a scale where the model's band is narrow (where its trust line says it was measured)", kit.tests()),
        );
        return rank(found);
    }
    if p.successor && off {
        add(
            1.04,
            "the expectation is extrapolated: no published rccl-tests result covers this GPU generation",
            format!("{fig}; {}", p.trust),
            "compare with a published rccl-tests result for this GPU, or run each node alone: a node far below the others points at the node, all nodes alike at the model",
        );
    } else if p.composed && off {
        add(
            1.04,
            &format!("the expectation is extrapolated: no measurement backs {} across NVL72 racks, only its parts", p.algorithm),
            format!("{fig}; {}", p.trust),
            "compare with a published nccl-tests result for NVL72 across racks, or rerun on 2 racks with NCCL_ALGO=Ring, a class the model was measured on",
        );
    } else if p.extrapolated && off {
        add(
            1.04,
            "the expectation is extrapolated: the run is outside the scale of the measurements behind the model",
            format!("{fig}; {}", p.trust),
            &format!("rerun at a scale the model was measured at ({}) and check that run; a healthy small run points at the scale, not the nodes", crate::trust::Trust::of(e.comm.tier_class(), crate::trust::AlgoFamily::of(p.algorithm), crate::trust::SizeRange::of(p.bytes)).measured_scale()),
        );
    }
    if p.ratio > 1.0 + p.tolerance {
        add(0.9, "faster than the design: the cluster has more than the design says", fig.clone(), "set the NIC, rails, SHARP and NVLS to what the cluster has, then check again");
    } else if !low {
        let note = if p.extrapolated { format!("; {}", p.trust) } else { String::new() };
        add(0.95, "healthy", format!("{fig}{note}"), "nothing to fix; keep this log as the cluster's baseline");
    }
    let rdma = net != Some(NetPlugin::Socket);
    if low {
        let nics = c.nics_per_node.max(1) as f64;
        let k = (p.ratio * nics).round();
        let net_bound = matches!(e.preds.last().map(|p| p.bottleneck), Some(crate::collective::Bottleneck::Tier(t)) if !matches!(t, TierKind::Hbm | TierKind::ScaleUp | TierKind::Pcie));
        if rdma && multi && net_bound && k >= 1.0 && k < nics && (p.ratio - k / nics).abs() <= 0.35 / nics {
            let (what, unit, next) = if kit.efa {
                (
                    "not all EFA interfaces in use",
                    "EFA interfaces",
                    "fi_info -p efa -t FI_EP_RDM on every node should list all of the instance's EFA interfaces, and NCCL_DEBUG=INFO 'Selected Provider is efa (found N nics)' the same count; check the security group lets all traffic pass between the instances",
                )
            } else if kit.amd {
                (
                    "not all NICs (rails) in use",
                    "NICs",
                    "run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and count the RDMA devices RCCL uses; check NCCL_IB_HCA, ibstat on every port, and rocm-smi --showtopo for each GPU's nearest NIC; ib_write_bw (built with ROCm) per NIC",
                )
            } else {
                (
                    "not all NICs (rails) in use",
                    "NICs",
                    "run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and count the NET/IB devices NCCL uses; check NCCL_IB_HCA and ibstat on every port; ib_write_bw per rail",
                )
            };
            add(0.9 - (p.ratio - k / nics).abs(), what, format!("{fig}: close to {k:.0}/{nics:.0}, as if {k:.0} of {nics:.0} {unit} per node carried the traffic"), next);
        }
        if !kit.amd && inf.algo == AlgoChoice::Auto && matches!(AlgoFamily::of(p.algorithm), AlgoFamily::Nvls | AlgoFamily::CollNet) {
            let bytes = Bytes(p.bytes);
            let ring = e.comm.predict(p.op, bytes, AlgoChoice::Ring, ProtoChoice::Auto).ok();
            if let Some(r) = ring.filter(|r| (p.measured_busbw / r.busbw.0 - 1.0).abs() <= p.tolerance) {
                let (what, next) = if AlgoFamily::of(p.algorithm) == AlgoFamily::Nvls {
                    ("NVLS (NVLink SHARP) not in effect", "check NCCL_NVLS_ENABLE is not 0, nvidia-fabricmanager runs and NCCL_DEBUG=INFO reports NVLS multicast support; rerun with NCCL_ALGO=NVLS on one node")
                } else {
                    ("SHARP (CollNet) not in effect", "set NCCL_COLLNET_ENABLE=1, check sharp_am runs and the SHARP plugin loads (NCCL_DEBUG=INFO); rerun with NCCL_ALGO=CollNet")
                };
                add(0.88, what, format!("{short}: the model expects {} at {}; its Ring figure {} matches the {} measured", p.algorithm, gb(p.expected_busbw), gb(r.busbw.0), gb(p.measured_busbw)), next);
            }
        }
        if multi && rdma {
            if kit.efa {
                add(
                    0.5,
                    "GPUDirect RDMA over EFA off, or an old aws-ofi-nccl",
                    format!("{short}; without device RDMA every byte crosses host memory"),
                    "set FI_EFA_USE_DEVICE_RDMA=1 and FI_PROVIDER=efa; NCCL_DEBUG=INFO names the aws-ofi-nccl version (use the release AWS lists for this NCCL) and should show GDRDMA on each channel; leave NCCL_PROTO unset or Simple: LL and LL128 assume in-order delivery, which EFA's SRD does not give (AWS's own launchers set NCCL_PROTO=simple)",
                );
            } else if kit.amd {
                add(
                    0.5,
                    "GPU-direct RDMA off or PCIe bound",
                    format!("{short}; without it every byte crosses host memory"),
                    "RCCL's NCCL_DEBUG=INFO lines should show GDRDMA on each channel; check the NIC driver's peer-memory support for AMD GPUs (dma-buf or the PeerDirect module), NCCL_NET_GDR_LEVEL, ACS off (lspci -vvv), and each GPU's nearest NIC with rocm-smi --showtopo",
                );
            } else {
                add(
                    0.5,
                    "GPUDirect RDMA off or PCIe bound",
                    format!("{short}; with GPUDirect RDMA off every byte crosses host memory"),
                    "NCCL_DEBUG=INFO should show 'via NET/IB/<n>/GDRDMA' on each channel; check nvidia-peermem is loaded, ACS is off and NCCL_NET_GDR_LEVEL; nvidia-smi topo -m for GPU-NIC affinity",
                );
            }
        }
        if multi {
            let domains = e.comm.placement.domains();
            let word = if kit.nvl72 { "racks" } else { "nodes" };
            let next = if kit.efa {
                "launch the instances in one cluster placement group and rerun on 2 of them: if that is healthy, the larger run crosses more of the network (compare with AWS's published figures for the instance)".to_string()
            } else {
                format!("rerun on 2 {word} under one leaf switch: if that is healthy, the spine is oversubscribed or mis-cabled (check link widths and speeds)")
            };
            // Sockets where RDMA was expected explain the gap by themselves.
            if !socket {
                add(if domains > 2 { 0.55 } else { 0.3 }, "oversubscribed or mis-cabled fabric", format!("{short} over {domains} {word}"), &next);
            }
            if rdma && !kit.amd && !kit.efa && matches!(p.op, Collective::AllToAll | Collective::SendRecv | Collective::AllGather) && c.rail_optimized {
                add(
                    0.4,
                    "PXN off: traffic to another rail crosses the spine",
                    format!("{short}; on a rail-optimized fabric NCCL reaches other rails through NVLink (PXN)"),
                    "make sure NCCL_PXN_DISABLE is unset (or 0) and compare with NCCL_P2P_PXN_LEVEL=2",
                );
            }
        }
        if kit.nvl72 {
            let inside = if multi { "the rack's NVLink domain" } else { "one rack" };
            add(
                if multi { 0.58 } else { 0.6 },
                "the NVLink fabric across the rack's trays not in effect (MNNVL, IMEX)",
                format!("{short} in {inside}; trays not joined by NVLink fall back to their NICs"),
                "nvidia-smi -q on every tray: the Fabric section should read State Completed, Status Success with one Clique ID per rack; the IMEX service runs with every tray in its nodes_config.cfg (nvidia-imex-ctl -N); NCCL_MNNVL_ENABLE not 0 and NCCL_DEBUG=INFO reporting MNNVL",
            );
        } else if !multi && kit.amd {
            add(
                0.6,
                "xGMI links slower than the design: a degraded Infinity Fabric link, P2P off or a virtual machine",
                format!("{short} inside one node"),
                "rocm-smi --showtopo on the node (every GPU pair XGMI, one hop) and rocm-smi --showxgmierr; unset NCCL_P2P_DISABLE and any forced NCCL_ALGO, NCCL_PROTO or RCCL_ variables; check HSA_ variables from old scripts; rerun rccl-tests all_reduce_perf -b 1G -e 8G -g 8 on that node alone",
            );
        } else if !multi {
            add(
                0.6,
                "scale-up links slower than the design: a degraded NVLink, P2P disabled or a virtualized node",
                format!("{short} inside one node"),
                "nvidia-smi nvlink -s and nvidia-smi topo -m on the node; unset NCCL_P2P_DISABLE; rerun all_reduce_perf -b 1G -e 8G -g 8 on that node alone",
            );
        }
    }
    // Small sizes: launch and proxy latency, quoted at the size of the median slowdown.
    for ev in evals {
        let small: Vec<(usize, f64)> = ev.m.points.iter().zip(&ev.preds).enumerate().filter(|(_, (pt, _))| pt.bytes <= SMALL_MAX_BYTES).map(|(i, (pt, p))| (i, pt.time_us / p.time.0)).collect();
        let factors: Vec<f64> = small.iter().map(|s| s.1).collect();
        let Some(k) = median_index(&factors) else {
            continue;
        };
        let (i, slow) = small[k];
        if slow >= SLOW_SMALL_FACTOR {
            let (pt, pr) = (ev.m.points[i], &ev.preds[i]);
            add(
                0.3,
                "CPU proxy or launch latency at small sizes",
                format!(
                    "{} at {}: {:.1} µs measured vs {:.1} µs expected ({:.1}x; the median over sizes up to 64 KiB)",
                    ev.m.op.name(),
                    crate::units::format_size(Bytes(pt.bytes)),
                    pt.time_us,
                    pr.time.0,
                    pt.time_us / pr.time.0
                ),
                "pin each rank to its GPU's NUMA node (mpirun --bind-to numa), one process per GPU instead of -g, CPU governor 'performance'; rerun -b 8 -e 64K",
            );
            break;
        }
    }
    // Per-node runs: a slow node among equals.
    let single: Vec<&Plateau> = plateaus.iter().filter(|q| evals[q.run].m.host.is_some() && q.op == p.op).collect();
    if single.len() >= 3 {
        let ratios: Vec<f64> = single.iter().map(|q| q.ratio).collect();
        let mid = median_index(&ratios).map(|k| single[k]);
        let worst = single.iter().min_by(|a, b| a.ratio.total_cmp(&b.ratio));
        if let (Some(m), Some(w)) = (mid, worst.filter(|w| mid.is_some_and(|m| w.ratio < m.ratio * (1.0 - w.tolerance)))) {
            let name = |q: &Plateau| printable(evals[q.run].m.host.as_deref().unwrap_or(""), 64);
            add(
                0.97,
                "a single slow node",
                format!(
                    "{}: plateau {} vs {} expected ({}), while the median node, {}, measures {} vs {} ({}) over {} per-node runs",
                    name(w),
                    gb(w.measured_busbw),
                    gb(w.expected_busbw),
                    pct(w.measured_busbw, w.expected_busbw),
                    name(m),
                    gb(m.measured_busbw),
                    gb(m.expected_busbw),
                    pct(m.measured_busbw, m.expected_busbw),
                    single.len()
                ),
                if kit.amd {
                    "drain that node; check rocm-smi (clocks, power, temperature) and amd-smi metric --ecc, dmesg and its NICs; rerun rccl-tests on it alone"
                } else {
                    "drain that node; check nvidia-smi -q (clocks, ECC, PCIe width), dmesg and its NICs; rerun the test on it alone"
                },
            );
        }
    }
    rank(found)
}

/// Highest score first (a selection, not a sort).
fn rank(mut found: Vec<(f64, Cause)>) -> Vec<Cause> {
    let mut ranked = Vec::new();
    while let Some(i) = (0..found.len()).reduce(|a, b| if found[b].0 > found[a].0 { b } else { a }) {
        ranked.push(found.remove(i).1);
    }
    ranked
}

/// The per-size table as CSV (busbw in GB/s per direction; `within_band` (inside the 90%
/// interval), `band_pct` and the interval's ends empty where no measurement backs the class).
pub fn check_csv(r: &CheckReport) -> String {
    use std::fmt::Write;
    let mut s = String::from("run,op,bytes,measured_busbw_GBps,expected_busbw_GBps,ratio,within_band,band_pct,expected_90pct_lo_GBps,expected_90pct_hi_GBps\n");
    for w in &r.rows {
        let within = w.within_band.map(|b| b.to_string()).unwrap_or_default();
        let band = w.band_pct.map(|b| b.to_string()).unwrap_or_default();
        let (lo, hi) = w.interval.map_or((String::new(), String::new()), |[lo, hi]| (format!("{lo:.3}"), format!("{hi:.3}")));
        let _ = writeln!(s, "{},{},{},{},{:.3},{:.4},{within},{band},{lo},{hi}", w.run + 1, w.op.id(), w.bytes, w.measured_busbw, w.expected_busbw, w.ratio);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_without_sorting_the_rows() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(&[1.0, 1.0, 5.0]), 1.0);
        assert!(median(&[]).is_nan());
        assert_eq!(median_index(&[5.0, 9.0, 7.0]), Some(2));
    }
}
