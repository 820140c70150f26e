//! A measured sweep set against the model: the cluster read from the log (the rest assumed
//! from the design), the expected busbw and its band per size, the plateau, and the likely
//! causes of a gap, ranked, each with the number behind it and what to run next.

use super::parse::{Log, Run};
use crate::catalog::GpuKind;
use crate::collective::{AlgoChoice, Collective, Comm, Prediction, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::topology::{Cluster, Placement, TierKind};
use crate::trust::AlgoFamily;
use crate::limits;
use crate::scenario::Scenario;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// A plateau within this fraction of expected counts as healthy, unless the class's band is
/// wider (then twice the band): the band is a median error, so half of the published
/// measurements behind it lie outside it.
const HEALTHY_FLOOR: f64 = 0.10;
/// Plateau rows: sizes from 64 MiB (where nccl-tests' busbw has flattened on every published
/// sweep in validation/), else the largest three of the run.
const PLATEAU_MIN_BYTES: u64 = 64 << 20;
/// Largest size counted as "small" for the latency check (the trust table's small range).
const SMALL_MAX_BYTES: u64 = 64 << 10;
/// Small-size times this many times the expected one point at host-side latency.
const SLOW_SMALL_FACTOR: f64 = 2.0;

/// One measured point: a size and what nccl-tests printed out-of-place.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub bytes: u64,
    /// µs per operation.
    pub time_us: f64,
    /// GB/s per direction, exactly as printed.
    pub busbw: f64,
}

/// One measured run, as kept with a scenario (links keep only its plateau points).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Measured {
    pub op: Collective,
    pub ranks: u32,
    /// Hosts and GPUs on each, where the header lists ranks.
    pub nodes: Option<u32>,
    pub gpus_per_node: Option<u32>,
    /// The GPU the header names, where the catalog knows it.
    pub gpu: Option<GpuKind>,
    /// The host of a one-host run (to name a slow node).
    pub host: Option<String>,
    /// GPUs one process drove (nccl-tests `-g`), where the header says.
    pub gpus_per_process: Option<u32>,
    /// In files and links one string, `bytes:time_us:busbw` per size, separated by spaces
    /// (see [`points_text`]).
    #[serde(with = "points_text")]
    pub points: Vec<Point>,
}

/// Measured points as one string (`"8:135.8:0 16:123.2:0"`): the page already reads and
/// writes strings, while a list of objects would bring its own JSON reader (3 KB of wasm).
/// Numbers are written shortest-exact, so they read back to the same values.
mod points_text {
    use super::Point;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Write;

    pub fn serialize<S: Serializer>(points: &[Point], s: S) -> Result<S::Ok, S::Error> {
        let mut t = String::new();
        for p in points {
            let _ = write!(t, "{}{}:{}:{}", if t.is_empty() { "" } else { " " }, p.bytes, p.time_us, p.busbw);
        }
        s.serialize_str(&t)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Point>, D::Error> {
        let t = String::deserialize(d)?;
        t.split_whitespace()
            .map(|w| {
                let mut f = w.split(':');
                let p = Point { bytes: f.next()?.parse().ok()?, time_us: f.next()?.parse().ok()?, busbw: f.next()?.parse().ok()? };
                f.next().is_none().then_some(p)
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| D::Error::custom("expected \"bytes:time_us:busbw\" per size, separated by spaces"))
    }
}

impl Default for Measured {
    fn default() -> Self {
        Measured { op: Collective::AllReduce, ranks: 0, nodes: None, gpus_per_node: None, gpu: None, host: None, gpus_per_process: None, points: Vec::new() }
    }
}

/// The measured runs of a link or file ([`crate::link::measured_in_link`],
/// [`crate::link::measured_in_file`]): each run that is
/// not one, or out of range, is dropped alone with a note in `warnings`, as are runs past the
/// limit.
pub fn runs_of(raw: Option<serde_json::Value>, warnings: &mut Vec<String>) -> Vec<Measured> {
    let items = match raw {
        None => return Vec::new(),
        Some(serde_json::Value::Array(a)) => a,
        Some(_) => {
            warnings.push("measured: not a list of runs; ignored".into());
            return Vec::new();
        }
    };
    let mut runs = Vec::new();
    for (i, v) in items.into_iter().enumerate() {
        // Absurd numbers (a busbw of 1e300 drew a negative-width bar) are brought down to
        // their bound with a note; what is still out of range drops the run.
        let run = serde_json::from_value::<Measured>(v).map_err(|e| e.to_string()).map(|m| m.clamped(i, warnings)).and_then(|m| m.validate().map(|()| m).map_err(|e| e.message));
        match run {
            Ok(m) if limits::MEASURED_RUNS.check(runs.len() as u64 + 1).is_ok() => runs.push(m),
            Ok(_) => warnings.push(format!("measured: run {} is past the {} runs a scenario keeps; dropped", i + 1, limits::MEASURED_RUNS.max)),
            Err(e) => warnings.push(format!("measured: run {}: {e}; dropped", i + 1)),
        }
    }
    runs
}

/// A scenario as its file holds it, with its measured `runs` if any (the explorer's files
/// have none).
pub fn file_value(s: &Scenario, runs: &[Measured]) -> serde_json::Value {
    let mut v = serde_json::to_value(s).unwrap_or(serde_json::Value::Null);
    if let (false, Ok(m), serde_json::Value::Object(o)) = (runs.is_empty(), serde_json::to_value(runs), &mut v) {
        o.insert("measured".into(), m);
    }
    v
}

/// A scenario's link with the plateau points of its measured `runs` (a whole sweep would not
/// fit a URL).
pub fn link_of(s: &Scenario, runs: &[Measured]) -> String {
    let plateau: Vec<Measured> = runs.iter().map(Measured::plateau_only).collect();
    match serde_json::to_value(&plateau) {
        Ok(m) if !plateau.is_empty() => crate::link::encode_with(s, m),
        _ => crate::link::encode(s),
    }
}

/// The catalog GPU of a name as nccl-tests prints it (`NVIDIA H100 80GB HBM3`).
pub fn gpu_of_name(name: &str) -> Option<GpuKind> {
    let n = name.to_ascii_uppercase();
    let has = |s: &str| n.contains(s);
    Some(if has("GB200") {
        GpuKind::Gb200
    } else if has("B200") {
        GpuKind::B200
    } else if has("H200") {
        GpuKind::H200
    } else if has("H800") {
        GpuKind::H800
    } else if has("H100") && (has("PCIE") || has("NVL")) {
        GpuKind::H100Pcie
    } else if has("H100") {
        GpuKind::H100
    } else if has("A100") {
        GpuKind::A100
    } else if has("V100") {
        GpuKind::V100
    } else {
        return None;
    })
}

/// Largest measured busbw a run may hold, GB/s per direction: 100 TB/s, over 100 times NVLink
/// 5's 900 GB/s per GPU per direction (B200 datasheet); above it a number is not a measurement.
pub const MAX_BUSBW_GBPS: f64 = 1e5;

/// Longest measured time a run may hold, µs (about 11.6 days for one collective).
pub const MAX_TIME_US: f64 = 1e12;

impl Measured {
    /// The run with every busbw above [`MAX_BUSBW_GBPS`] and time above [`MAX_TIME_US`] brought
    /// down to the bound, each with a note naming run `i` (0-based) and the size: what a decoded
    /// link or file gets (typed or pasted numbers are refused by [`Measured::validate`]).
    pub fn clamped(mut self, i: usize, notes: &mut Vec<String>) -> Measured {
        for p in &mut self.points {
            for (what, v, max, unit) in [("busbw", &mut p.busbw, MAX_BUSBW_GBPS, "GB/s"), ("time", &mut p.time_us, MAX_TIME_US, "µs")] {
                if *v > max {
                    notes.push(format!("measured: run {}: {what} {:e} {unit} at {} bytes is above the {max:e} {unit} allowed; using {max:e}", i + 1, *v, p.bytes));
                    *v = max;
                }
            }
        }
        self
    }

    /// Holds a run to the ranges files and links are held to.
    pub fn validate(&self) -> Result<()> {
        limits::MEASURED_POINTS.check(self.points.len() as u64)?;
        limits::MEASURED_RANKS.check(self.ranks as u64)?;
        let bad = |v: f64| !v.is_finite() || v < 0.0;
        if self.points.iter().any(|p| p.busbw > MAX_BUSBW_GBPS || p.time_us > MAX_TIME_US) {
            return Err(ModelError::new("measured", format!("a measured busbw is at most {MAX_BUSBW_GBPS:e} GB/s and a time at most {MAX_TIME_US:e} µs")));
        }
        if self.gpus_per_node == Some(0) || self.nodes == Some(0) || self.points.iter().any(|p| p.bytes == 0 || bad(p.time_us) || p.time_us == 0.0 || bad(p.busbw)) {
            return Err(ModelError::new("measured", "a measured run needs sizes of at least 1 byte, times above 0 µs, busbw of at least 0 GB/s and non-zero node and GPU counts"));
        }
        Ok(())
    }

    /// The runs of a log whose collective and rank count are known (others are reported by
    /// [`check`] as skipped), with their points (0-byte rows left out).
    pub fn from_log(log: &Log) -> Vec<Measured> {
        log.runs.iter().filter_map(Measured::from_run).collect()
    }

    fn from_run(r: &Run) -> Option<Measured> {
        let (op, _) = r.op()?;
        let ranks = r.rank_count()?;
        let layout = r.layout();
        Some(Measured {
            op,
            ranks,
            nodes: layout.map(|l| l.0),
            gpus_per_node: layout.map(|l| l.1),
            gpu: r.gpu_name.as_deref().and_then(gpu_of_name),
            host: (r.hosts.len() == 1).then(|| r.hosts[0].0.clone()),
            gpus_per_process: r.gpus_per_process,
            points: r
                .rows
                .iter()
                .filter(|w| w.bytes > 0 && w.out_of_place.time_us > 0.0)
                .map(|w| Point { bytes: w.bytes, time_us: w.out_of_place.time_us, busbw: w.out_of_place.busbw })
                .collect(),
        })
    }

    /// The same run with only its plateau points (what a link carries).
    pub fn plateau_only(&self) -> Measured {
        let keep = plateau_from(&self.points);
        Measured { points: self.points.iter().filter(|p| p.bytes >= keep).copied().collect(), ..self.clone() }
    }
}

/// The smallest size of the plateau rows of `points`: 64 MiB, or the third-largest size
/// when fewer than three sizes reach it. (No sort: each sort instance costs the page
/// kilobytes.)
fn plateau_from(points: &[Point]) -> u64 {
    let mut top = [0u64; 3];
    for p in points {
        if p.bytes > top[0] {
            top = [p.bytes, top[0], top[1]];
        } else if p.bytes > top[1] && p.bytes < top[0] {
            top = [top[0], p.bytes, top[1]];
        } else if p.bytes > top[2] && p.bytes < top[1] {
            top[2] = p.bytes;
        }
    }
    let third = if top[2] > 0 { top[2] } else if top[1] > 0 { top[1] } else { top[0] };
    third.min(PLATEAU_MIN_BYTES)
}

/// One field of the cluster: its value and whether the log said it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub value: String,
    pub read: bool,
}

/// One size: measured against expected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckRow {
    pub op: Collective,
    pub bytes: u64,
    /// The log's out-of-place busbw, as printed.
    pub measured_busbw: f64,
    pub expected_busbw: f64,
    /// measured / expected busbw, from the times (printed with more digits than small busbw).
    pub ratio: f64,
    /// Inside the class's error band; `None` where no measurement backs the class.
    pub within_band: Option<bool>,
    pub band_pct: Option<f64>,
    /// The run (0-based) the row comes from.
    pub run: usize,
}

/// A run's large-message plateau: the figures people quote.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plateau {
    pub op: Collective,
    pub run: usize,
    /// Largest size measured and its busbw, and the model's busbw there.
    pub bytes: u64,
    pub measured_busbw: f64,
    pub expected_busbw: f64,
    /// Median measured/expected over the plateau rows.
    pub ratio: f64,
    /// The smallest size above the small ones from which every row is below the healthy
    /// tolerance, if any.
    pub departs_at: Option<u64>,
    pub tolerance: f64,
    pub validated: bool,
    pub algorithm: &'static str,
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
    pub fields: Vec<Field>,
    pub rows: Vec<CheckRow>,
    pub plateaus: Vec<Plateau>,
    /// Ranked, most likely first.
    pub verdict: Vec<Cause>,
    /// Every plateau within tolerance of a validated expectation.
    pub healthy: bool,
}

/// The cluster to check against: `design` with what the largest run says (GPU, GPUs per
/// node, nodes), and which fields were read.
pub fn infer(runs: &[Measured], design: &Cluster) -> (Cluster, Vec<Field>) {
    let mut c = design.clone();
    let big = runs.iter().max_by_key(|m| m.ranks);
    let gpu = big.and_then(|m| m.gpu);
    if let Some(g) = gpu {
        if g != c.gpu {
            c.gpu = g;
            c.scale_up = crate::catalog::ScaleUp::natural(g);
        }
    }
    let layout = big.and_then(|m| Some((m.nodes?, m.gpus_per_node?)));
    if let Some((nodes, per)) = layout {
        c.nodes = nodes;
        c.gpus_per_node = per;
        c.nics_per_node = design.nics_per_node.min(per.max(1));
    } else if let Some(m) = big {
        // Ranks only: whole nodes of the design's size.
        let per = c.gpus_per_node.max(1);
        c.nodes = m.ranks.div_ceil(per).max(1);
    }
    let fields = vec![
        Field { name: "gpu", value: c.gpu.spec().name.to_string(), read: gpu.is_some() },
        Field { name: "nodes", value: c.nodes.to_string(), read: layout.is_some() },
        Field { name: "gpus_per_node", value: c.gpus_per_node.to_string(), read: layout.is_some() },
        Field { name: "scale_up", value: c.scale_up.name().to_string(), read: false },
        Field { name: "nic", value: format!("{} x {}", c.nics_per_node, c.nic.spec().name), read: false },
    ];
    (c, fields)
}

struct RunEval<'a> {
    m: &'a Measured,
    comm: Comm,
    preds: Vec<Prediction>,
}

fn tolerance(p: &Prediction) -> f64 {
    p.trust.error_band_pct.map_or(HEALTHY_FLOOR, |b| (2.0 * b / 100.0).max(HEALTHY_FLOOR))
}

/// The upper median of `v` (NaN when empty), by counting rather than sorting: the lists are
/// a few dozen long, and a sort instance costs the page kilobytes.
fn median(v: Vec<f64>) -> f64 {
    let k = v.len() / 2;
    v.iter().copied().find(|x| v.iter().filter(|y| *y < x).count() <= k && v.iter().filter(|y| *y <= x).count() > k).unwrap_or(f64::NAN)
}

/// Sets measured runs against `design` (with the log's fields read in) and diagnoses.
pub fn check(runs: &[Measured], design: &Cluster) -> Result<CheckReport> {
    if runs.iter().all(|m| m.points.is_empty()) {
        return Err(ModelError::new("log", "no run with a known collective and rank count and a non-empty size to check"));
    }
    let (cluster, fields) = infer(runs, design);
    let topo = cluster.topology()?;
    let mut evals = Vec::new();
    for m in runs.iter().filter(|m| !m.points.is_empty()) {
        let p = match (m.nodes, m.gpus_per_node) {
            (Some(_), Some(per)) => Placement { ranks: m.ranks, per_domain: per },
            _ => topo.first(m.ranks),
        };
        let g = m.gpus_per_process.unwrap_or(1).clamp(1, crate::limits::GPUS_PER_PROCESS.max as u32);
        let comm = Comm::new(&topo, p)?.with_gpus_per_process(g);
        let preds = m.points.iter().map(|pt| comm.predict(m.op, Bytes(pt.bytes), AlgoChoice::Auto, ProtoChoice::Auto)).collect::<Result<Vec<_>>>()?;
        evals.push(RunEval { m, comm, preds });
    }
    let mut rows = Vec::new();
    let mut plateaus = Vec::new();
    for (run, e) in evals.iter().enumerate() {
        for (pt, p) in e.m.points.iter().zip(&e.preds) {
            let ratio = p.time.0 / pt.time_us;
            let band = p.trust.error_band_pct;
            rows.push(CheckRow {
                op: e.m.op,
                bytes: pt.bytes,
                measured_busbw: pt.busbw,
                expected_busbw: p.busbw.0,
                ratio,
                within_band: band.map(|b| (ratio - 1.0).abs() <= b / 100.0),
                band_pct: band,
                run,
            });
        }
        let from = plateau_from(&e.m.points);
        let ratios: Vec<f64> = e.m.points.iter().zip(&e.preds).filter(|(pt, _)| pt.bytes >= from).map(|(pt, p)| p.time.0 / pt.time_us).collect();
        let Some((last, lp)) = e.m.points.iter().zip(&e.preds).max_by_key(|(pt, _)| pt.bytes) else {
            continue;
        };
        let tol = tolerance(lp);
        let departs_at = {
            let mut at = None;
            for (pt, p) in e.m.points.iter().zip(&e.preds).filter(|(pt, _)| pt.bytes > SMALL_MAX_BYTES) {
                let low = p.time.0 / pt.time_us < 1.0 - tol;
                at = if low { at.or(Some(pt.bytes)) } else { None };
            }
            at
        };
        plateaus.push(Plateau {
            op: e.m.op,
            run,
            bytes: last.bytes,
            measured_busbw: last.busbw,
            expected_busbw: lp.busbw.0,
            ratio: median(ratios),
            departs_at,
            tolerance: tol,
            validated: lp.trust.validated_cases > 0,
            algorithm: lp.algorithm,
        });
    }
    let healthy = plateaus.iter().all(|p| p.validated && (p.ratio - 1.0).abs() <= p.tolerance);
    let verdict = diagnose(&cluster, &evals, &plateaus);
    Ok(CheckReport { cluster, fields, rows, plateaus, verdict, healthy })
}

fn gb(v: f64) -> String {
    format!("{v:.1} GB/s")
}

/// The ranked causes.
fn diagnose(c: &Cluster, evals: &[RunEval], plateaus: &[Plateau]) -> Vec<Cause> {
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
    let fig = format!(
        "{} plateau {} measured vs {} expected at {} ({:.0}% of expected; tolerance ±{:.0}%)",
        p.op.name(),
        gb(p.measured_busbw),
        gb(p.expected_busbw),
        crate::units::format_size(Bytes(p.bytes)),
        p.ratio * 100.0,
        p.tolerance * 100.0
    );
    let low = p.ratio < 1.0 - p.tolerance;
    // The causes after the first repeat only the gap and where it starts.
    let short = format!("{} at {:.0}% of expected at {}", p.op.name(), p.ratio * 100.0, crate::units::format_size(Bytes(p.bytes)));
    let (fig, short) = match p.departs_at.filter(|_| low) {
        Some(d) => {
            let from = format!("; below tolerance from {} up", crate::units::format_size(Bytes(d)));
            (fig + &from, short + &from)
        }
        None => (fig, short),
    };
    if !p.validated {
        add(
            1.0,
            "the model is not validated for this class",
            format!("{fig}; no published measurement backs the model's {} prediction here, so the gap may be the model's", p.algorithm),
            "compare with a published nccl-tests result for the same hardware before blaming the cluster",
        );
        return found.into_iter().map(|f| f.1).collect();
    }
    if p.ratio > 1.0 + p.tolerance {
        add(0.9, "faster than the design: the cluster has more than the design says", fig.clone(), "set the NIC, rails, SHARP and NVLS to what the cluster has, then check again");
    } else if !low {
        add(0.95, "healthy", fig.clone(), "nothing to fix; keep this log as the cluster's baseline");
    }
    if low {
        let nics = c.nics_per_node.max(1) as f64;
        let k = (p.ratio * nics).round();
        let net_bound = matches!(e.preds.last().map(|p| p.bottleneck), Some(crate::collective::Bottleneck::Tier(t)) if !matches!(t, TierKind::Hbm | TierKind::ScaleUp | TierKind::Pcie));
        if multi && net_bound && k >= 1.0 && k < nics && (p.ratio - k / nics).abs() <= 0.35 / nics {
            add(
                0.9 - (p.ratio - k / nics).abs(),
                "not all NICs (rails) in use",
                format!("{fig}: close to {k:.0}/{nics:.0}, as if {k:.0} of {nics:.0} NICs per node carried the traffic"),
                "run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and count the NET/IB devices NCCL uses; check NCCL_IB_HCA and ibstat on every port; ib_write_bw per rail",
            );
        }
        if matches!(AlgoFamily::of(p.algorithm), AlgoFamily::Nvls | AlgoFamily::CollNet) {
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
        if multi {
            add(
                0.5,
                "GPUDirect RDMA off or PCIe bound",
                format!("{short}; with GPUDirect RDMA off every byte crosses host memory"),
                "NCCL_DEBUG=INFO should show 'via NET/IB/<n>/GDRDMA' on each channel; check nvidia-peermem is loaded, ACS is off and NCCL_NET_GDR_LEVEL; nvidia-smi topo -m for GPU-NIC affinity",
            );
            let nodes = e.comm.placement.domains();
            add(
                if nodes > 2 { 0.55 } else { 0.3 },
                "oversubscribed or mis-cabled fabric",
                format!("{short} over {nodes} nodes"),
                "rerun on 2 nodes under one leaf switch: if that is healthy, the spine is oversubscribed or mis-cabled (ibdiagnet, check link widths and speeds)",
            );
            if matches!(p.op, Collective::AllToAll | Collective::SendRecv | Collective::AllGather) && c.rail_optimized {
                add(
                    0.4,
                    "PXN off: traffic to another rail crosses the spine",
                    format!("{short}; on a rail-optimized fabric NCCL reaches other rails through NVLink (PXN)"),
                    "make sure NCCL_PXN_DISABLE is unset (or 0) and compare with NCCL_P2P_PXN_LEVEL=2",
                );
            }
        } else {
            add(
                0.6,
                "scale-up links slower than the design: a degraded NVLink, P2P disabled or a virtualized node",
                format!("{short} inside one node"),
                "nvidia-smi nvlink -s and nvidia-smi topo -m on the node; unset NCCL_P2P_DISABLE; rerun all_reduce_perf -b 1G -e 8G -g 8 on that node alone",
            );
        }
    }
    // Small sizes: launch and proxy latency.
    for ev in evals {
        let small: Vec<f64> = ev.m.points.iter().zip(&ev.preds).filter(|(pt, _)| pt.bytes <= SMALL_MAX_BYTES).map(|(pt, p)| pt.time_us / p.time.0).collect();
        if small.is_empty() {
            continue;
        }
        let slow = median(small);
        if slow >= SLOW_SMALL_FACTOR {
            let (pt, pr) = ev.m.points.iter().zip(&ev.preds).min_by_key(|(pt, _)| pt.bytes).map(|(a, b)| (*a, *b)).unwrap_or((ev.m.points[0], ev.preds[0]));
            add(
                0.3,
                "CPU proxy or launch latency at small sizes",
                format!("{} at {}: {:.1} µs measured vs {:.1} µs expected (median {slow:.1}x over sizes up to 64 KiB)", ev.m.op.name(), crate::units::format_size(Bytes(pt.bytes)), pt.time_us, pr.time.0),
                "pin each rank to its GPU's NUMA node (mpirun --bind-to numa), one process per GPU instead of -g, CPU governor 'performance'; rerun -b 8 -e 64K",
            );
            break;
        }
    }
    // Per-node runs: a slow node among equals.
    let single: Vec<&Plateau> = plateaus.iter().filter(|q| evals[q.run].m.host.is_some() && q.op == p.op).collect();
    if single.len() >= 3 {
        let med = median(single.iter().map(|q| q.ratio).collect());
        if let Some(w) = single.iter().min_by(|a, b| a.ratio.total_cmp(&b.ratio)).filter(|w| w.ratio < med * (1.0 - w.tolerance)) {
            let host = evals[w.run].m.host.clone().unwrap_or_default();
            add(
                0.97,
                "a single slow node",
                format!("{host}: plateau {} vs a median of {:.0}% of expected over {} per-node runs", gb(w.measured_busbw), med * 100.0, single.len()),
                "drain that node; check nvidia-smi -q (clocks, ECC, PCIe width), dmesg and its NICs; rerun the test on it alone",
            );
        }
    }
    // Highest score first (a selection, not a sort: see `median`).
    let mut ranked = Vec::new();
    while let Some(i) = (0..found.len()).reduce(|a, b| if found[b].0 > found[a].0 { b } else { a }) {
        ranked.push(found.remove(i).1);
    }
    ranked
}

/// The per-size table as CSV (busbw in GB/s per direction; `within_band` and `band_pct`
/// empty where no measurement backs the class).
pub fn check_csv(r: &CheckReport) -> String {
    use std::fmt::Write;
    let mut s = String::from("run,op,bytes,measured_busbw_GBps,expected_busbw_GBps,ratio,within_band,band_pct\n");
    for w in &r.rows {
        let within = w.within_band.map(|b| b.to_string()).unwrap_or_default();
        let band = w.band_pct.map(|b| b.to_string()).unwrap_or_default();
        let _ = writeln!(s, "{},{},{},{},{:.3},{:.4},{within},{band}", w.run + 1, w.op.id(), w.bytes, w.measured_busbw, w.expected_busbw, w.ratio);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_plateau_without_sorting() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(vec![1.0, 1.0, 5.0]), 1.0);
        assert!(median(Vec::new()).is_nan());
        let pts = |sizes: &[u64]| sizes.iter().map(|&bytes| Point { bytes, time_us: 1.0, busbw: 1.0 }).collect::<Vec<_>>();
        assert_eq!(plateau_from(&pts(&[8, 1 << 20, 1 << 30, 8 << 30, 4 << 30])), 64 << 20);
        assert_eq!(plateau_from(&pts(&[1 << 10, 1 << 20, 1 << 12, 1 << 14])), 1 << 12);
        assert_eq!(plateau_from(&pts(&[1 << 10])), 1 << 10);
        assert_eq!(plateau_from(&[]), 0);
    }
}
