//! `fabricscope check LOG`: a real cluster's nccl-tests output set against the model: the
//! cluster read from the log, measured vs expected per size, the plateau, and the likely
//! causes of a gap with what to run next.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_charts::check::check_chart;
use fabricscope_charts::Theme;
use fabricscope_model::check::{check, parse, CheckReport, Log, Measured};
use fabricscope_model::units::format_size;
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;

/// Logs larger than this are refused before reading: a verbose NCCL_DEBUG=INFO log of a
/// 64-node sweep is a few MiB.
const MAX_LOG_BYTES: u64 = 64 << 20;

#[derive(Args, Clone, Debug)]
pub struct CheckArgs {
    /// nccl-tests output (all_reduce_perf, all_gather_perf, ...; several runs and NCCL_DEBUG
    /// lines may be mixed in); `-` reads standard input
    #[arg(value_name = "LOG")]
    pub log: PathBuf,

    /// Print one JSON object {rows, verdict, unread_lines} instead of text
    #[arg(long)]
    pub json: bool,

    /// Also write the measured-vs-expected chart as SVG to this file
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// The cluster to compare with: the log's GPU, nodes and GPUs per node win unless
    /// --gpu / --gpus-per-node are given; NIC, rails and fabric come from these flags
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Serialize)]
struct RowJson {
    op: &'static str,
    bytes: u64,
    #[serde(rename = "measured_busbw_GBps")]
    measured: f64,
    #[serde(rename = "expected_busbw_GBps")]
    expected: f64,
    ratio: f64,
    within_band: Option<bool>,
}

#[derive(Serialize)]
struct CheckJson<'a> {
    rows: Vec<RowJson>,
    verdict: &'a [fabricscope_model::check::Cause],
    unread_lines: &'a [fabricscope_model::check::Unread],
}

fn read_log(path: &PathBuf) -> Result<String, CliError> {
    let err = |m: String| CliError::new("LOG", m);
    let mut bytes = Vec::new();
    let shown = path.display().to_string();
    let res = if shown == "-" {
        std::io::stdin().take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes))
    };
    res.map_err(|e| err(format!("cannot read {}: {e}", fabricscope_model::error::printable(&shown, 160))))?;
    if bytes.len() as u64 > MAX_LOG_BYTES {
        return Err(err(format!("the log is larger than {} MiB; pass the part with the results", MAX_LOG_BYTES >> 20)));
    }
    // Logs from other tools may carry stray bytes: read what is text.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn run(a: &CheckArgs) -> Result<String, CliError> {
    let text = read_log(&a.log)?;
    let log = parse(&text).map_err(|e| CliError::new("LOG", e.message))?;
    let mut runs = Measured::from_log(&log);
    // Flags given on the command line win over the log.
    for m in &mut runs {
        if a.cluster.gpu.is_some() {
            m.gpu = None;
        }
        if a.cluster.gpus_per_node.is_some() {
            (m.nodes, m.gpus_per_node) = (None, None);
        }
    }
    let r = check(&runs, &a.cluster.cluster())?;
    if let Some(path) = &a.svg {
        std::fs::write(path, check_chart(&r, &Theme::light(), 0))
            .map_err(|e| CliError::new("--svg", format!("cannot write {}: {e}", path.display())))?;
    }
    if a.json {
        let rows = r
            .rows
            .iter()
            .map(|w| RowJson { op: w.op.id(), bytes: w.bytes, measured: w.measured_busbw, expected: w.expected_busbw, ratio: w.ratio, within_band: w.within_band })
            .collect();
        return output::json(&CheckJson { rows, verdict: &r.verdict, unread_lines: &log.unread });
    }
    Ok(text_report(&r, &log))
}

fn text_report(r: &CheckReport, log: &Log) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let list = |read: bool| r.fields.iter().filter(|f| f.read == read).map(|f| format!("{} {}", f.name, f.value)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(s, "Read from the log: {}", if r.fields.iter().any(|f| f.read) { list(true) } else { "nothing (no '#  Rank' lines)".into() });
    let _ = writeln!(s, "Assumed (flags or defaults): {}", list(false));
    for p in &r.plateaus {
        let _ = writeln!(s, "\nRun {}: {} ({} expected)", p.run + 1, p.op.id(), p.algorithm);
        let _ = writeln!(s, "{:>14} {:>7} {:>16} {:>16} {:>7} {:>10}", "size (B)", "size", "measured GB/s", "expected GB/s", "ratio", "in band");
        for w in r.rows.iter().filter(|w| w.run == p.run) {
            let band = match (w.within_band, w.band_pct) {
                (Some(true), Some(b)) => format!("yes ±{b:.0}%"),
                (Some(false), Some(b)) => format!("no ±{b:.0}%"),
                _ => "no band".into(),
            };
            let _ = writeln!(s, "{:>14} {:>7} {:>16.2} {:>16.2} {:>7.2} {:>10}", w.bytes, format_size(fabricscope_model::units::Bytes(w.bytes)), w.measured_busbw, w.expected_busbw, w.ratio, band);
        }
        let _ = writeln!(
            s,
            "Plateau: {:.2} GB/s busbw measured at {} vs {:.2} expected ({:.0}%; healthy within ±{:.0}%)",
            p.measured_busbw,
            format_size(fabricscope_model::units::Bytes(p.bytes)),
            p.expected_busbw,
            p.ratio * 100.0,
            p.tolerance * 100.0
        );
    }
    let _ = writeln!(s, "\nVerdict ({}):", if r.healthy { "healthy" } else { "not healthy" });
    for (i, c) in r.verdict.iter().enumerate() {
        let _ = writeln!(s, "{}. {}\n   evidence: {}\n   next: {}", i + 1, c.cause, c.evidence, c.next_step);
    }
    if log.unread_count > 0 {
        let _ = writeln!(s, "\n{} line(s) not read as nccl-tests output:", log.unread_count);
        for u in &log.unread {
            let _ = writeln!(s, "  line {}: {}", u.line, u.text);
        }
    }
    if log.chatter > 0 {
        let _ = writeln!(s, "{} NCCL_DEBUG / launcher line(s) skipped.", log.chatter);
    }
    s
}
