//! `fabricscope calibrate LOG...`: a cluster's effective parameters fitted from its own
//! nccl-tests / rccl-tests logs (issue 40; docs/calibrate.md). `--json` prints the calibration
//! file itself, which `collective`, `sweep` and `train` take back with `--calibration`.

use crate::check::MAX_LOG_BYTES;
use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use clap::Args;
use fabricscope_check::calibrate::{calibrate, read_log};
use fabricscope_check::CalibrationFile;
use fabricscope_model::units::{format_size, Bytes};
use std::io::Read;
use std::path::PathBuf;

/// Logs (files) read at most in one calibration: a cluster's sweep of every collective at a
/// few node counts is a dozen or two; 64 keeps the worst case at 64 x the 64 MiB a log may
/// have (`check::MAX_LOG_BYTES`). Chosen, not measured.
const MAX_LOGS: usize = 64;

#[derive(Args, Clone, Debug)]
pub struct CalibrateArgs {
    /// nccl-tests / rccl-tests output of one cluster, one file per test run (different
    /// collectives, sizes and node counts); `-` reads standard input once
    #[arg(value_name = "LOG", required = true, num_args = 1..)]
    pub logs: Vec<PathBuf>,

    /// Print the calibration file (JSON) instead of text: save it and pass it back with
    /// --calibration on collective, sweep and train
    #[arg(long)]
    pub json: bool,

    /// The cluster the logs ran on: flags win over the logs (--gpu, --nodes, --gpus-per-node,
    /// --nic); what neither says is assumed from the defaults
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

fn read_bytes(path: &PathBuf) -> Result<Vec<u8>, CliError> {
    let shown = fabricscope_model::error::printable(&path.display().to_string(), 160);
    let mut bytes = Vec::new();
    let res = if shown == "-" {
        std::io::stdin().take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes))
    };
    let n = res.map_err(|e| CliError::new("LOG", format!("cannot read {shown}: {e}")))?;
    if n as u64 > MAX_LOG_BYTES {
        return Err(CliError::new("LOG", format!("{shown} is too large: over the {} MiB a log may have", MAX_LOG_BYTES >> 20)));
    }
    Ok(bytes)
}

/// Fits the logs: the calibration file.
pub fn fit(a: &CalibrateArgs) -> Result<CalibrationFile, CliError> {
    if a.logs.len() > MAX_LOGS {
        return Err(CliError::new("LOG", format!("{} logs: at most {MAX_LOGS} are read in one calibration", a.logs.len())));
    }
    if a.logs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(CliError::new("LOG", "standard input (-) can be read once"));
    }
    let mut logs = Vec::new();
    for p in &a.logs {
        let name = fabricscope_model::error::printable(&p.display().to_string(), 160);
        logs.push(read_log(&name, read_bytes(p)?).map_err(|e| CliError::new("LOG", e.message))?);
    }
    let c = &a.cluster;
    calibrate(&logs, &c.cluster(), &crate::check::given(c, None, None)).map_err(|e| {
        let flag = crate::error::flag_for_field(&e);
        CliError::new(if e.field == "log" || !flag.starts_with("--") { "LOG".to_string() } else { flag }, e.message)
    })
}

pub fn run(a: &CalibrateArgs) -> Result<String, CliError> {
    let f = fit(a)?;
    if a.json {
        // The writer check.html's download uses too: one file, byte for byte.
        return Ok(f.to_json());
    }
    Ok(text(&f))
}

/// The fit in words, each parameter with its uncertainty, and every measured row against the
/// calibrated and the catalog prediction.
pub fn text(f: &CalibrationFile) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let c = &f.cluster;
    let _ = writeln!(s, "Cluster: {} nodes x {} {} ({}), {} x {} per node", c.nodes, c.gpus_per_node, c.gpu.spec().name, c.scale_up.name(), c.nics_per_node, c.nic.spec().name);
    let _ = writeln!(s, "Logs: {}", f.logs.iter().map(|l| format!("{} ({}; {} run(s): {})", l.name, l.digest, l.runs, l.ops.join(", "))).collect::<Vec<_>>().join("; "));
    let _ = writeln!(s, "\nThe fit:");
    for w in &f.summary {
        let _ = writeln!(s, "- {w}.");
    }
    for w in &f.features {
        let _ = writeln!(s, "- {w}.");
    }
    if !f.not_constrained.is_empty() {
        let _ = writeln!(s, "\nNot constrained by these logs (the catalog's value stands):");
        for w in &f.not_constrained {
            let _ = writeln!(s, "- {w}");
        }
    }
    let _ = writeln!(s, "\nParameters:");
    for p in &f.parameters {
        let bound = if p.at_bound { "; some rows at the bound" } else { "" };
        let _ = writeln!(
            s,
            "  {:<26} {:>9.3} ± {:<7.3} ({}; catalog {}; bounds {} to {}{bound}; {} row(s))",
            p.name,
            p.value,
            p.uncertainty,
            p.unit,
            p.catalog,
            p.bounds[0],
            p.bounds[1],
            p.constrained_by.len()
        );
    }
    let mut run = None;
    for r in &f.rows {
        if run != Some((r.log, r.run)) {
            run = Some((r.log, r.run));
            let name = f.logs.get(r.log).map_or("", |l| l.name.as_str());
            let _ = writeln!(s, "\n{name} run {}: {} on {} node(s) x {}", r.run + 1, r.op.id(), r.nodes, r.per_node);
            let _ = writeln!(s, "{:>14} {:>7} {:>14} {:>14} {:>14}  constrains", "size (B)", "size", "measured GB/s", "calibrated", "catalog");
        }
        let what = r.constrains.map_or(String::new(), |p| p.id().to_string());
        let _ = writeln!(s, "{:>14} {:>7} {:>14.2} {:>14.2} {:>14.2}  {what}", r.bytes, format_size(Bytes(r.bytes)), r.measured_busbw, r.calibrated_busbw, r.catalog_busbw);
    }
    let _ = writeln!(s, "\nSave `fabricscope calibrate ... --json > cluster.json` and predict with `--calibration cluster.json` (collective, sweep, train).");
    s
}
