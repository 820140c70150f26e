//! `fabricscope check LOG`: a real cluster's nccl-tests output set against the model: the
//! cluster read from the log, measured vs expected per size, the plateau, and the likely
//! causes of a gap with what to run next.

use crate::cluster_args::{algo_parser, proto_parser, ClusterArgs};
use crate::error::{flag_for_field, CliError};
use crate::output;
use clap::Args;
use fabricscope_charts::check::check_chart;
use fabricscope_charts::Theme;
use fabricscope_check::{check_with, parse, CheckReport, Given, Log, Measured, Source};
use fabricscope_model::units::format_size;
use fabricscope_model::{AlgoChoice, ModelError, ProtoChoice};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

/// Logs larger than this are refused before reading: a verbose NCCL_DEBUG=INFO log of a
/// 64-node sweep is a few MiB.
pub(crate) const MAX_LOG_BYTES: u64 = 64 << 20;

#[derive(Args, Clone, Debug)]
pub struct CheckArgs {
    /// nccl-tests output (all_reduce_perf, all_gather_perf, ...; several runs and NCCL_DEBUG
    /// lines may be mixed in); `-` reads standard input
    #[arg(value_name = "LOG")]
    pub log: PathBuf,

    /// Print one JSON object {cluster, healthy, not_modelled, rows, verdict, unread_lines,
    /// unread_rows, skipped_runs} instead of text
    #[arg(long)]
    pub json: bool,

    /// The algorithm the run forced (as NCCL_ALGO), judged against that algorithm instead of
    /// NCCL's choice [default: what the log's NCCL_ALGO says, else NCCL's choice]
    #[arg(long, value_name = "ALGO", value_parser = algo_parser())]
    pub algo: Option<AlgoChoice>,

    /// The protocol the run forced (as NCCL_PROTO) [default: the log's NCCL_PROTO, else
    /// NCCL's choice]
    #[arg(long, value_name = "PROTO", value_parser = proto_parser())]
    pub proto: Option<ProtoChoice>,

    /// Also write the measured-vs-expected chart as SVG to this file
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// The cluster to compare with: flags win over the log (--gpu, --nodes, --gpus-per-node,
    /// --nic); what neither says is assumed from the defaults
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

/// One field of the cluster in the JSON: its value and where it came from.
#[derive(Serialize)]
struct FieldJson<'a> {
    value: &'a str,
    source: Source,
}

#[derive(Serialize)]
struct CheckJson<'a> {
    cluster: BTreeMap<&'static str, FieldJson<'a>>,
    /// Flags the log says otherwise about: {name, log, given}.
    overruled: &'a [fabricscope_check::Overruled],
    /// true, false, or null when the check cannot judge.
    healthy: Option<bool>,
    not_modelled: &'a [String],
    rows: Vec<RowJson>,
    verdict: &'a [fabricscope_check::Cause],
    unread_lines: &'a [fabricscope_check::Unread],
    /// Result rows that are not measurements, each with the reason.
    unread_rows: &'a [fabricscope_check::Unread],
    skipped_runs: &'a [String],
}

/// The flags `check` has: a model error about any other field is about the log.
const CHECK_FLAGS: [&str; 19] = [
    "--gpu", "--gpus-per-node", "--nodes", "--scale-up", "--nic", "--nics-per-node", "--sharp", "--nvls", "--leaf", "--spine", "--radix",
    "--rail-optimized", "--oversubscription", "--core-oversubscription", "--cpu", "--nccl", "--power-cap-w", "--algo", "--proto",
];

/// A model error as a CLI error naming a flag `check` has, else the LOG.
fn cli_error(e: ModelError) -> CliError {
    let flag = flag_for_field(&e);
    CliError::new(if CHECK_FLAGS.contains(&flag.as_str()) { flag } else { "LOG".into() }, e.message)
}

/// What the flags give (they win over the log), for `check` and `calibrate`.
pub(crate) fn given(c: &ClusterArgs, algo: Option<AlgoChoice>, proto: Option<ProtoChoice>) -> Given {
    Given {
        gpu: c.gpu.is_some(),
        nodes: c.nodes.is_some(),
        gpus_per_node: c.gpus_per_node.is_some(),
        scale_up: c.scale_up.is_some(),
        nic: c.nic.is_some() || c.nics_per_node.is_some(),
        nics_per_node: c.nics_per_node.is_some(),
        algo,
        proto,
    }
}

fn read_log(path: &PathBuf) -> Result<String, CliError> {
    let err = |m: String| CliError::new("LOG", m);
    let mut bytes = Vec::new();
    let shown = path.display().to_string();
    let res = if shown == "-" {
        std::io::stdin().take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes)
    } else {
        // A file's size is known before it is read: one over the limit is refused unread.
        std::fs::File::open(path).and_then(|f| match f.metadata() {
            Ok(m) if m.len() > MAX_LOG_BYTES => Ok(m.len() as usize),
            _ => f.take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes),
        })
    };
    let n = res.map_err(|e| err(format!("cannot read {}: {e}", fabricscope_model::error::printable(&shown, 160))))?;
    if n as u64 > MAX_LOG_BYTES {
        return Err(err(format!("the log is too large: over the {} MiB a log may have; pass the part with the results", MAX_LOG_BYTES >> 20)));
    }
    // UTF-8 (stray bytes from other tools replaced) or UTF-16; valid UTF-8 is not copied.
    Ok(fabricscope_check::decode(bytes))
}

pub fn run(a: &CheckArgs) -> Result<String, CliError> {
    let text = read_log(&a.log)?;
    let log = parse(&text).map_err(|e| CliError::new("LOG", e.message))?;
    let (runs, skipped) = Measured::from_log_noted(&log);
    if runs.is_empty() {
        return Err(CliError::new("LOG", format!("no run can be checked: {}", skipped.join("; "))));
    }
    // Flags given on the command line win over the log.
    let r = check_with(&runs, &a.cluster.cluster(), &given(&a.cluster, a.algo, a.proto)).map_err(cli_error)?;
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
        let cluster = r.fields.iter().map(|f| (f.name, FieldJson { value: &f.value, source: f.source })).collect();
        return output::json(&CheckJson {
            cluster,
            overruled: &r.overruled,
            healthy: r.healthy,
            not_modelled: &r.not_modelled,
            rows,
            verdict: &r.verdict,
            unread_lines: &log.unread,
            unread_rows: &log.rejected,
            skipped_runs: &skipped,
        });
    }
    Ok(visible(&text_report(&r, &log, &skipped)))
}

/// The text with every control and bidi character but the line break escaped (`\u{1b}`):
/// strings from the log (host and GPU names, unread lines) never reach the terminal raw.
fn visible(text: &str) -> String {
    text.chars()
        .flat_map(|c| -> Box<dyn Iterator<Item = char>> {
            if fabricscope_model::error::is_unsafe_char(c) && c != '\n' {
                Box::new(c.escape_unicode())
            } else {
                Box::new(std::iter::once(c))
            }
        })
        .collect()
}

/// An expected busbw with two decimals, or three significant digits under 1 GB/s, so the
/// ratio beside it follows from the printed figures.
fn busbw_text(v: f64) -> String {
    if !(v > 0.0 && v < 1.0) {
        return format!("{v:.2}");
    }
    let decimals = (2.0 - v.log10().floor()).clamp(2.0, 9.0) as usize;
    format!("{v:.decimals$}")
}

fn text_report(r: &CheckReport, log: &Log, skipped: &[String]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    // Titled in check.html's words ("given" for a flag as for a pick on the page).
    for source in Source::ALL {
        let title = source.title();
        let list: Vec<String> = r.fields.iter().filter(|f| f.source == source).map(|f| format!("{} {}", f.name, f.value)).collect();
        if !list.is_empty() {
            let _ = writeln!(s, "{title}: {}", list.join(", "));
        } else if source == Source::Log {
            let _ = writeln!(s, "{title}: nothing about the cluster (no '#  Rank' lines)");
        }
    }
    for o in &r.overruled {
        let _ = writeln!(s, "{}", o.text());
    }
    for p in &r.plateaus {
        let _ = writeln!(s, "\nRun {}: {} ({} expected)", p.run + 1, p.op.id(), p.algorithm);
        let _ = writeln!(s, "{:>14} {:>7} {:>16} {:>16} {:>7} {:>10}", "size (B)", "size", "measured GB/s", "expected GB/s", "ratio", "in band");
        for w in r.rows.iter().filter(|w| w.run == p.run) {
            let band = match (w.within_band, w.band_pct) {
                (Some(true), Some(b)) => format!("yes ±{b:.0}%"),
                (Some(false), Some(b)) => format!("no ±{b:.0}%"),
                (None, Some(_)) => "< 0.1 GB/s".into(),
                _ => "no band".into(),
            };
            let _ = writeln!(s, "{:>14} {:>7} {:>16} {:>16} {:>7.2} {:>10}", w.bytes, format_size(fabricscope_model::units::Bytes(w.bytes)), w.measured_busbw, busbw_text(w.expected_busbw), w.ratio, band);
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
    let state = match r.healthy {
        Some(true) => "healthy",
        Some(false) => "not healthy",
        None => "cannot judge",
    };
    let _ = writeln!(s, "\nVerdict ({state}):");
    for (i, c) in r.verdict.iter().enumerate() {
        let _ = writeln!(s, "{}. {}\n   evidence: {}\n   next: {}", i + 1, c.cause, c.evidence, c.next_step);
    }
    if log.unread_count > 0 {
        let _ = writeln!(s, "\n{} line(s) not read as nccl-tests output:", log.unread_count);
        for u in &log.unread {
            let _ = writeln!(s, "  line {}: {}", u.line, u.text);
        }
    }
    if log.rejected_count > 0 {
        let _ = writeln!(s, "\n{} result row(s) not read as measurements:", log.rejected_count);
        for u in &log.rejected {
            let _ = writeln!(s, "  line {}: {}", u.line, u.text);
        }
    }
    for k in skipped {
        let _ = writeln!(s, "Skipped {k}.");
    }
    if log.chatter > 0 {
        let _ = writeln!(s, "{} NCCL_DEBUG / launcher line(s) skipped.", log.chatter);
    }
    s
}
