//! The calibration file: what `fabricscope calibrate --json` prints, plain JSON a user keeps
//! beside the cluster and passes back with `--calibration`. It holds the version, the logs'
//! digests, the cluster the logs describe, the fitted values with their uncertainties and
//! constraining rows, and every measured row against the catalog's and the calibrated
//! prediction; reading it back checks the version, the bounds and that the model still
//! predicts the rows as it did (else the file is stale).

use super::fit::{FitRow, Fitted};
use crate::collective::{AlgoChoice, Comm, ProtoChoice};
use crate::fitted::{Calibration, CALIBRATION_VERSION};
use crate::topology::{Cluster, Placement};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::hash::Hasher;

/// How far (relative) the catalog's prediction of a stored row may move before the file is
/// stale: 0.1%, above floating-point noise between builds, below any model change that matters.
const STALE_TOLERANCE: f64 = 1e-3;
/// Runs whose largest row the staleness check predicts again, at most: any change of the model
/// that matters moves every run's prediction, so a sample finds it; a file of thousands of runs
/// (each a topology search to rebuild) then costs no more than a usual one. Chosen.
const STALE_RUNS_CHECKED: usize = 16;
/// Largest calibration file read, bytes: a fit on 64 logs of 40 sizes each is about 1 MB.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// One log the fit read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogDigest {
    /// The name it was given (the path on the command line).
    pub name: String,
    /// `fnv1a64:` and the 64-bit FNV-1a hash of its bytes as read, in hex (the `fnv` crate).
    pub digest: String,
    /// Runs read and their collectives and node counts.
    pub runs: u32,
    pub ops: Vec<String>,
    pub nodes: Vec<u32>,
}

/// The whole calibration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationFile {
    /// [`CALIBRATION_VERSION`].
    pub version: u32,
    /// The Fabricscope release that wrote it.
    pub written_by: String,
    pub logs: Vec<LogDigest>,
    /// The cluster the logs describe (nodes: the most any log ran on).
    pub cluster: Cluster,
    /// The algorithm and protocol the runs forced, if any.
    #[serde(default)]
    pub algo: AlgoChoice,
    #[serde(default)]
    pub proto: ProtoChoice,
    /// What the model applies.
    pub calibration: Calibration,
    /// Each fitted parameter with its uncertainty and constraining rows.
    pub parameters: Vec<Fitted>,
    /// The fit in words: a sentence per difference from the catalog.
    pub summary: Vec<String>,
    /// What the logs could not constrain (the catalog's value stands).
    pub not_constrained: Vec<String>,
    /// NVLS, SHARP and GPUDirect as the logs show them.
    pub features: Vec<String>,
    pub rows: Vec<FitRow>,
}

/// The digest of a log's bytes.
pub fn digest(bytes: &[u8]) -> String {
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    format!("fnv1a64:{:016x}", h.finish())
}

/// How a calibration's `features` line starts when the logs show NVLS not in effect (the
/// check's finding, written by `calibrate` and read back by [`CalibrationFile::designed_cluster`]).
pub const NVLS_OFF: &str = "NVLS off: ";
/// The same for SHARP (CollNet).
pub const SHARP_OFF: &str = "SHARP off: ";

impl CalibrationFile {
    /// The cluster as designed: the file's cluster with NVLS and SHARP back on where the logs
    /// found them not in effect (`features` "NVLS off: ..."/"SHARP off: ...": the check names
    /// that only when the design has them), so "as designed" is the design the logs were
    /// judged against, not the cluster they showed.
    pub fn designed_cluster(&self) -> Cluster {
        let mut c = self.cluster.clone();
        for f in &self.features {
            if f.starts_with(NVLS_OFF) {
                c.nvls = true;
            } else if f.starts_with(SHARP_OFF) {
                c.sharp = true;
            }
        }
        c
    }

    /// The file's text, as `fabricscope calibrate --json` prints it and check.html downloads it
    /// (pretty JSON, a final newline): one writer for both.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).map(|s| s + "\n").unwrap_or_default()
    }

    /// Reads a calibration file's text: a clear reason if it is not JSON, not a calibration,
    /// of another version, out of bounds, or stale.
    pub fn from_json(text: &str) -> Result<CalibrationFile, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let version = v.get("version").ok_or("not a calibration file (no \"version\"); write one with `fabricscope calibrate LOG... --json`")?;
        match version.as_u64() {
            Some(n) if n == u64::from(CALIBRATION_VERSION) => {}
            _ => return Err(format!("calibration version {version} is not the {CALIBRATION_VERSION} this release reads; run `fabricscope calibrate` on the logs again")),
        }
        let f: CalibrationFile = serde_json::from_value(v).map_err(|e| format!("not a calibration file: {e}"))?;
        f.calibration.validate()?;
        f.cluster.topology().map_err(|e| format!("its cluster does not check: {}", e.message))?;
        if let Some(why) = f.stale() {
            return Err(why);
        }
        Ok(f)
    }

    /// Why the file no longer matches the model, if it does not: each run's largest row is
    /// predicted on the catalog again and must give the busbw the file holds.
    pub fn stale(&self) -> Option<String> {
        let topo = match self.cluster.topology() {
            Ok(t) => t,
            Err(e) => return Some(format!("stale: its cluster no longer checks ({})", e.message)),
        };
        let mut seen: std::collections::BTreeSet<(usize, usize)> = std::collections::BTreeSet::new();
        for r in self.rows.iter().rev() {
            if seen.len() >= STALE_RUNS_CHECKED {
                break;
            }
            if !seen.insert((r.log, r.run)) {
                continue;
            }
            let algo = if r.op.func().is_some() { self.algo } else { AlgoChoice::Auto };
            let proto = if r.op.func().is_some() { self.proto } else { ProtoChoice::Auto };
            let p = Comm::new(&topo, Placement { ranks: r.ranks, per_domain: r.per_node })
                .map(|c| c.with_gpus_per_process(r.gpus_per_process))
                .and_then(|c| c.predict(r.op, Bytes(r.bytes), algo, proto));
            match p {
                Ok(p) if (p.busbw.0 / r.catalog_busbw - 1.0).abs() <= STALE_TOLERANCE => {}
                Ok(p) => {
                    return Some(format!(
                        "stale: the model now predicts {} at {:.2} GB/s where the file says {:.2} (written by Fabricscope {}); run `fabricscope calibrate` on the logs again",
                        r.label(),
                        p.busbw.0,
                        r.catalog_busbw,
                        self.written_by
                    ))
                }
                Err(e) => return Some(format!("stale: the model no longer predicts {} ({})", r.label(), e.message)),
            }
        }
        None
    }
}
