//! `--calibration FILE`: predict on a cluster as its own logs measured it (issue 40). The file
//! is what `fabricscope calibrate LOG... --json` printed; its cluster is the base, and the
//! cluster flags must describe the same cluster (GPU, GPUs per node, scale-up fabric, NIC and
//! NICs per node), except `--nodes`, which may differ: that is the question. Fabric flags
//! (leaves, spines, oversubscription, NCCL release, ...) apply on top.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use fabricscope_check::CalibrationFile;
use fabricscope_model::catalog::power::check_cap;
use fabricscope_model::{Cluster, Comm, Prediction, Topology};
use clap::Args;
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Calibration")]
pub struct CalibrationArg {
    /// A calibration file (`fabricscope calibrate LOG... --json > cluster.json`): predict with
    /// the cluster's measured parameters. The cluster flags must describe the file's cluster,
    /// except --nodes
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
}

const FLAG: &str = "--calibration";

/// Reads and checks a calibration file (version, bounds, staleness), naming `--calibration`.
pub fn load(path: &PathBuf) -> Result<CalibrationFile, CliError> {
    let shown = fabricscope_model::error::printable(&path.display().to_string(), 160);
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(fabricscope_check::calibrate::MAX_FILE_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| CliError::new(FLAG, format!("cannot read {shown}: {e}")))?;
    if text.len() as u64 > fabricscope_check::calibrate::MAX_FILE_BYTES {
        return Err(CliError::new(FLAG, format!("{shown} is larger than the {} MiB a calibration file may have", fabricscope_check::calibrate::MAX_FILE_BYTES >> 20)));
    }
    CalibrationFile::from_json(&text).map_err(|e| CliError::new(FLAG, format!("{shown}: {e}")))
}

/// The cluster the flags describe over the file's `base`: identity flags must agree with it.
pub fn cluster_over(a: &ClusterArgs, base: &Cluster) -> Result<Cluster, CliError> {
    let named = a.cluster();
    let refuse = |flag: &str, file: String, given: String| {
        Err(CliError::new(
            FLAG,
            format!("the calibration describes {file}, but {flag} gives {given}: another cluster; the cluster flags must describe the calibrated cluster (only --nodes may differ), or calibrate on that cluster's own logs"),
        ))
    };
    let gpu_given = a.gpu.is_some() || a.preset.is_some();
    if gpu_given && named.gpu != base.gpu {
        return refuse(if a.gpu.is_some() { "--gpu" } else { "--preset" }, base.gpu.spec().name.to_string(), named.gpu.spec().name.to_string());
    }
    if (a.gpus_per_node.is_some() || a.preset.is_some()) && named.gpus_per_node != base.gpus_per_node {
        return refuse("--gpus-per-node", format!("{} GPUs per node", base.gpus_per_node), format!("{}", named.gpus_per_node));
    }
    if a.scale_up.is_some() && named.scale_up != base.scale_up {
        return refuse("--scale-up", base.scale_up.name().to_string(), named.scale_up.name().to_string());
    }
    if (a.nic.is_some() || a.preset.is_some()) && named.nic != base.nic {
        return refuse(if a.nic.is_some() { "--nic" } else { "--preset" }, base.nic.spec().name.to_string(), named.nic.spec().name.to_string());
    }
    if a.nics_per_node.is_some() && named.nics_per_node != base.nics_per_node {
        return refuse("--nics-per-node", format!("{} NICs per node", base.nics_per_node), format!("{}", named.nics_per_node));
    }
    let mut c = base.clone();
    c.nodes = a.nodes.unwrap_or(base.nodes);
    c.sharp = a.sharp || base.sharp;
    c.nvls = a.nvls.unwrap_or(base.nvls);
    c.leaf_switches = a.leaf.or(base.leaf_switches);
    c.spine_switches = a.spine.or(base.spine_switches);
    c.switch_radix = a.radix.or(base.switch_radix);
    c.rail_optimized = a.rail_optimized.unwrap_or(base.rail_optimized);
    c.rail_only = a.rail_only || base.rail_only;
    c.oversubscription = a.oversubscription.or(base.oversubscription);
    c.core_oversubscription = a.core_oversubscription.or(base.core_oversubscription);
    c.cpu = a.cpu.unwrap_or(base.cpu);
    c.nccl = a.nccl.unwrap_or(base.nccl);
    c.power_cap_w = a.power_cap_w.or(base.power_cap_w);
    Ok(c)
}

impl CalibrationArg {
    /// The topology to predict on and the calibration, if a file is given.
    pub fn topology(&self, a: &ClusterArgs) -> Result<(Topology, Option<CalibrationFile>), CliError> {
        let Some(path) = &self.calibration else {
            return Ok((a.topology()?, None));
        };
        let f = load(path)?;
        let c = cluster_over(a, &f.cluster)?;
        check_cap(c.gpu.spec(), c.power_cap_w)?;
        Ok((c.topology()?, Some(f)))
    }
}

/// `topo`'s cluster as the file measured it: the fit travels in the topology
/// (`Topology::fitted`), so every communicator built on it, the flow model's and a training
/// step's included, is timed with it, as the pages run a calibrated link.
pub fn measured_topology(topo: &Topology, f: &CalibrationFile) -> Result<Topology, CliError> {
    let mut t = topo.cluster.as_measured(&f.calibration).topology()?;
    t.qps_per_connection = topo.qps_per_connection;
    Ok(t)
}


/// What a calibrated prediction says about its calibration, beside the prediction's fields.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrationNote {
    /// Logs the calibration was fitted on.
    pub logs: u32,
    pub measured_nodes: Vec<u32>,
    pub predicted_nodes: u32,
    /// "measured at 2 nodes, predicted at 64" (and what is the catalog's).
    pub note: String,
    /// Every tier this prediction crosses is calibrated (false: a one-node calibration asked
    /// about the network, whose part is the catalog's).
    pub calibrated: bool,
    /// The same prediction on the catalog's parameters.
    #[serde(rename = "catalog_busbw_GBps")]
    pub catalog_busbw_gbps: f64,
}

/// The prediction's JSON with the calibrated intervals in place, and its note.
pub fn prediction_json(comm: &Comm, p: &Prediction, catalog: &Prediction, f: &CalibrationFile) -> (crate::output::PredictionJson, CalibrationNote) {
    let domains = comm.placement.domains();
    let mut j = crate::output::PredictionJson::from(p);
    j.intervals = f.calibration.busbw_intervals(p, domains);
    let note = CalibrationNote {
        logs: f.calibration.logs,
        measured_nodes: f.calibration.measured_nodes.clone(),
        predicted_nodes: domains,
        note: f.calibration.scale_note(domains),
        calibrated: f.calibration.covers(domains),
        catalog_busbw_gbps: catalog.busbw.0,
    };
    (j, note)
}

/// The calibrated prediction's lines for the text output.
pub fn note_text(n: &CalibrationNote, p: &crate::output::PredictionJson) -> String {
    let mut s = format!("\nCalibrated from {} log{}: {}.\n", n.logs, if n.logs == 1 { "" } else { "s" }, n.note);
    s.push_str(&format!("Catalog (as designed): busbw {:.2} GB/s; calibrated: {:.2} GB/s", n.catalog_busbw_gbps, p.busbw_gbps));
    if let Some(i) = &p.intervals {
        s.push_str(&format!(" {}", crate::output::range_text(i.busbw_gbps.lo, i.busbw_gbps.hi)));
    }
    s.push('\n');
    s
}

/// `train --calibration`: what the step's collectives were timed on.
#[derive(Serialize)]
pub struct TrainCalibration {
    pub logs: u32,
    pub measured_nodes: Vec<u32>,
    pub predicted_nodes: u32,
    /// "measured at 2 nodes, predicted at 64" (and what is the catalog's).
    pub note: String,
    /// Every tier the job's collectives cross is calibrated.
    pub calibrated: bool,
    /// The same layout's step time and tokens/s on the catalog's parameters. The step's
    /// `intervals` are the training class's combined with the fit's uncertainty on the
    /// step's exposed collectives (`Calibration::step_intervals`).
    pub catalog_step_time_s: f64,
    pub catalog_tokens_per_s: f64,
}
