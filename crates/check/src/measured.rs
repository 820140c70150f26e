//! A measured run as kept with a scenario (files keep every point, links the plateau), read
//! from a parsed log with the reasons runs were left out, and the catalog GPU of a name.

use super::facts::{Library, NetPlugin};
use super::parse::{Log, Run};
use crate::catalog::GpuKind;
use crate::collective::Collective;
use crate::error::{printable, ModelError, Result};
use crate::limits;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// Plateau rows: sizes from 64 MiB (where nccl-tests' busbw has flattened on every published
/// sweep in validation/), else the largest three of the run.
pub(crate) const PLATEAU_MIN_BYTES: u64 = 64 << 20;
/// Longest text field of a measured run read from a link or file (characters): a host name
/// is at most 253, the rest much shorter; 256 keeps any real one.
const MAX_TEXT_CHARS: usize = 256;

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
    /// The GPU name as the header prints it, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_name: Option<String>,
    /// The rank count came from the busbw/algbw factor, not the header.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ranks_inferred: bool,
    /// GPUs per node as the highest rank's device index suggests (index + 1), where the
    /// header lists only some ranks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_per_node: Option<u32>,
    /// The library, its version, the network plugin and forced settings the log shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<Library>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net: Option<NetPlugin>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algo: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proto: Option<String>,
    /// EFA interfaces per node aws-ofi-nccl reported, where the log shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efa_nics: Option<u32>,
    /// NCCL fell back to sockets on an InfiniBand cluster (over an IPoIB interface).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub socket_on_ib: bool,
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
        Measured {
            op: Collective::AllReduce,
            ranks: 0,
            nodes: None,
            gpus_per_node: None,
            gpu: None,
            host: None,
            gpus_per_process: None,
            gpu_name: None,
            ranks_inferred: false,
            device_per_node: None,
            library: None,
            library_version: None,
            net: None,
            algo: None,
            proto: None,
            efa_nics: None,
            socket_on_ib: false,
            points: Vec::new(),
        }
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
    link_of_noted(s, runs).0
}

/// [`link_of`], kept under the [`crate::link::MAX_LINK_BYTES`] a link may hold: past it the
/// per-node runs (one host each) are left out, then every run, and the note says so (the
/// scenario file keeps them all).
pub fn link_of_noted(s: &Scenario, runs: &[Measured]) -> (String, Option<String>) {
    let encode = |runs: &[&Measured]| -> String {
        let plateau: Vec<Measured> = runs.iter().map(|m| m.plateau_only()).collect();
        match serde_json::to_value(&plateau) {
            Ok(m) if !plateau.is_empty() => crate::link::encode_with(s, m),
            _ => crate::link::encode(s),
        }
    };
    let fits = |l: &String| l.len() <= crate::link::MAX_LINK_BYTES;
    let all: Vec<&Measured> = runs.iter().collect();
    let full = encode(&all);
    if fits(&full) {
        return (full, None);
    }
    let kb = |l: &String| l.len().div_ceil(1024);
    let over = format!("the whole link would be {} KB, over the {} KB a link may hold", kb(&full), crate::link::MAX_LINK_BYTES / 1024);
    let shared: Vec<&Measured> = runs.iter().filter(|m| m.host.is_none()).collect();
    let per_node = runs.len() - shared.len();
    if per_node > 0 && !shared.is_empty() {
        let l = encode(&shared);
        if fits(&l) {
            return (l, Some(format!("The link leaves out the {per_node} per-node run(s) ({over}); save the scenario file to keep them.")));
        }
    }
    (encode(&[]), Some(format!("The link keeps the design only, not the {} measured run(s) ({over}); save the scenario file to keep them.", runs.len())))
}

/// The catalog GPU of a name as nccl-tests and rccl-tests print it on their `#  Rank` lines:
/// the CUDA or HIP device name, which is what `nvidia-smi -L` and `rocm-smi --showproductname`
/// also show (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-80GB`, `NVIDIA GB200`, `NVIDIA B300
/// SXM6 AC`, `AMD Instinct MI300X`, `AMD Instinct MI300X VF` on a virtual machine). `None`
/// for a GPU the catalog does not hold (MI250X, MI350X, A100 PCIe, L40S, ...).
pub fn gpu_of_name(name: &str) -> Option<GpuKind> {
    let n = name.to_ascii_uppercase();
    let has = |s: &str| n.contains(s);
    // AMD Instinct: the part number is the whole model (memory and form factor follow it).
    if has("MI355X") {
        return Some(GpuKind::Mi355x);
    } else if has("MI325X") {
        return Some(GpuKind::Mi325x);
    } else if has("MI300X") {
        return Some(GpuKind::Mi300x);
    } else if has("MI") && (has("AMD") || has("INSTINCT")) {
        return None;
    }
    // NVIDIA: longest names first (GB300 before B300, GB200 before B200, GH200 before H200).
    Some(if has("GB300") {
        GpuKind::Gb300
    } else if has("B300") {
        GpuKind::B300
    } else if has("GB200") {
        GpuKind::Gb200
    } else if has("B200") {
        GpuKind::B200
    } else if has("GH200") && (has("144") || has("HBM3E")) {
        GpuKind::Gh200Hbm3e
    } else if has("GH200") {
        GpuKind::Gh200
    } else if has("H200") && has("NVL") {
        GpuKind::H200Nvl
    } else if has("H200") {
        GpuKind::H200
    } else if has("H800") && (has("PCIE") || has("NVL")) {
        // The H800 PCIe is not the catalog's H800 (SXM5 on NVSwitch).
        return None;
    } else if has("H800") {
        GpuKind::H800
    } else if has("H100") && has("NVL") {
        GpuKind::H100Nvl
    } else if has("H100") && has("PCIE") {
        GpuKind::H100Pcie
    } else if has("H100") {
        GpuKind::H100
    } else if has("A100") && has("PCIE") {
        // A100 PCIe cards have no NVSwitch: not the catalog's A100 (SXM4 on NVLink3).
        return None;
    } else if has("A100") {
        // SXM4 40GB and 80GB: the same NVLink3 and NVSwitch (memory does not enter the model).
        GpuKind::A100
    } else if has("V100") && !has("PCIE") {
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
        let texts = [&self.host, &self.gpu_name, &self.library_version, &self.algo, &self.proto];
        if self.efa_nics.is_some_and(|n| limits::NICS_PER_NODE.check(n as u64).is_err() || n == 0) {
            return Err(ModelError::new("measured", format!("a measured run's efa_nics is 1 to {}", limits::NICS_PER_NODE.max)));
        }
        if self.device_per_node == Some(0) || texts.iter().any(|t| t.as_ref().is_some_and(|t| t.chars().count() > MAX_TEXT_CHARS)) {
            return Err(ModelError::new("measured", format!("a measured run's host, GPU name, library version and settings are at most {MAX_TEXT_CHARS} characters, and device_per_node at least 1")));
        }
        Ok(())
    }

    /// The runs of a log whose collective and rank count are known (others are reported by
    /// [`check`](super::check) as skipped), with their points.
    pub fn from_log(log: &Log) -> Vec<Measured> {
        Measured::from_log_noted(log).0
    }

    /// [`Measured::from_log`] and why each other run was left out.
    pub fn from_log_noted(log: &Log) -> (Vec<Measured>, Vec<String>) {
        let mut notes = Vec::new();
        let mut runs = Vec::new();
        for (i, r) in log.runs.iter().enumerate() {
            match Measured::from_run(r, log) {
                Ok(m) => runs.push(m),
                Err(why) => notes.push(format!("run {} (line {}): {why}; not checked", i + 1, r.rows.first().map_or(0, |w| w.line))),
            }
        }
        (runs, notes)
    }

    fn from_run(r: &Run, log: &Log) -> std::result::Result<Measured, String> {
        let (op, _) = r.op().ok_or("the collective is not named and cannot be told from the columns")?;
        let (ranks, ranks_inferred) = r.rank_count().ok_or("no '#  Rank' lines and the busbw/algbw factor does not give the rank count")?;
        if ranks > limits::MEASURED_RANKS.max {
            return Err(format!("the header claims {ranks} ranks, above the {} a check reads", limits::MEASURED_RANKS.max));
        }
        if ranks <= 1 {
            return Err("one rank: no communication to check".into());
        }
        let ranks = ranks as u32;
        let layout = r.layout();
        let f = &log.facts;
        Ok(Measured {
            op,
            ranks,
            nodes: layout.map(|l| l.0),
            gpus_per_node: layout.map(|l| l.1),
            gpu: r.gpu_name.as_deref().and_then(gpu_of_name),
            host: (r.hosts.len() == 1 && layout.is_some()).then(|| r.hosts[0].0.clone()),
            gpus_per_process: r.gpus_per_process,
            gpu_name: r.gpu_name.as_deref().map(|n| printable(n, 80)),
            ranks_inferred,
            device_per_node: (!r.all_ranks_listed()).then_some(r.max_rank_device).flatten().map(|d| d.saturating_add(1)).filter(|&p| p >= 1 && ranks.is_multiple_of(p)),
            library: f.library,
            library_version: f.library_version.clone(),
            net: f.net,
            algo: f.algo.clone(),
            proto: f.proto.clone(),
            efa_nics: f.efa_nics,
            socket_on_ib: f.socket_on_ib,
            points: r.rows.iter().map(|w| Point { bytes: w.bytes, time_us: w.out_of_place.time_us, busbw: w.out_of_place.busbw }).collect(),
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
pub(crate) fn plateau_from(points: &[Point]) -> u64 {
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

