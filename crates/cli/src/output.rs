//! Rendering: human-readable text (every bandwidth with its unit and direction) and JSON
//! (field names carry the unit: `time_us`, `algbw_GBps`), plus writing to stdout.

use crate::error::CliError;
use fabricscope_model::calibration::apply::CollectiveIntervals;
use fabricscope_model::units::{format_size, Micros};
use fabricscope_model::{Placement, Prediction, Topology};
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;

/// One prediction as JSON. Bandwidths are GB/s (10^9 bytes/s) per direction, as nccl-tests
/// reports them.
#[derive(Clone, Debug, Serialize)]
pub struct PredictionJson {
    pub op: &'static str,
    pub bytes: u64,
    /// `bytes` with a power-of-two suffix, as nccl-tests labels sizes.
    pub size: String,
    pub ranks: u32,
    /// What nccl-tests would measure for one operation (NCCL's choice, timed by the tiers it
    /// crosses, host launch cost included).
    pub time_us: f64,
    /// NCCL's own estimate (`ncclTopoGetAlgoTime`, unchanged); null for all_to_all and
    /// send_recv, which NCCL's tuning model does not cover.
    pub nccl_model_time_us: Option<f64>,
    /// Median absolute busbw error of this prediction's class (tier crossed, algorithm
    /// family, size range) against published measurements, percent; null when none back it.
    pub error_band_pct: Option<f64>,
    /// Published measurements behind the class (0 = not validated).
    pub validated_cases: u32,
    /// The class the band is for, e.g. "multi-node, InfiniBand / ring / >= 64 MiB".
    pub trust_class: String,
    /// Outside the node and GPU counts the class was measured at: the band is extrapolated.
    pub extrapolated: bool,
    /// Where the class was measured, e.g. "2-64 nodes (16-512 GPUs)", and its worst error.
    pub measured_scale: String,
    pub worst_error_pct: Option<f64>,
    /// The band in words, as the page shows it.
    pub trust: String,
    #[serde(rename = "algbw_GBps")]
    pub algbw_gbps: f64,
    #[serde(rename = "busbw_GBps")]
    pub busbw_gbps: f64,
    pub algorithm: &'static str,
    pub protocol: &'static str,
    pub bottleneck: &'static str,
    /// 90% intervals of `busbw_GBps` and `time_us` (`{lo, hi, coverage, sources, rows, basis,
    /// extrapolated}`), held out by source (docs/calibration.md).
    pub intervals: Option<CollectiveIntervals>,
}

/// "(90%: 370-450)": an interval's ends to three significant figures.
pub fn range_text(lo: f64, hi: f64) -> String {
    format!("({})", fabricscope_charts::scale::interval_label(lo, hi))
}

impl From<&Prediction> for PredictionJson {
    fn from(p: &Prediction) -> Self {
        PredictionJson {
            op: p.op.id(),
            bytes: p.bytes.0,
            size: format_size(p.bytes),
            ranks: p.ranks,
            time_us: p.time.0,
            nccl_model_time_us: p.nccl_time.map(|t| t.0),
            error_band_pct: p.trust.error_band_pct,
            validated_cases: p.trust.validated_cases,
            trust_class: format!("{} / {} / {}", p.trust.tier.name(), p.trust.family.name(), p.trust.size.name()),
            extrapolated: p.trust.extrapolated,
            measured_scale: p.trust.measured_scale(),
            worst_error_pct: p.trust.worst_error_pct,
            trust: p.trust.describe(),
            algbw_gbps: p.algbw.0,
            busbw_gbps: p.busbw.0,
            algorithm: p.algorithm,
            protocol: p.protocol,
            bottleneck: p.bottleneck.id(),
            intervals: p.intervals(),
        }
    }
}

/// Pretty JSON with a trailing newline.
pub fn json<T: Serialize + ?Sized>(v: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| CliError::new("--json", format!("could not serialise the result: {e}")))
}

/// A JSON object with a `calibration` sentence beside its own fields ("calibrated from 1 log:
/// measured at 2 nodes, ..."; `serve --search --calibration`), the object alone without one.
#[derive(Serialize)]
pub struct Noted<'a, T: Serialize> {
    #[serde(flatten)]
    pub inner: &'a T,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<&'a str>,
}

/// One line describing the cluster.
pub fn cluster_line(t: &Topology) -> String {
    let c = &t.cluster;
    // NVL72 racks are counted in GPUs and compute trays, as the explorer's GPUs control does
    // ("72 GPUs, 18 trays of 4"; `--gpus` or `--nodes`), and their NICs per tray ("NICs per tray").
    let (node, nodes) = if c.scale_up == fabricscope_model::catalog::ScaleUp::Nvl72 { ("tray", "trays") } else { ("node", "nodes") };
    let net = if c.nics_per_node == 0 {
        "no scale-out NICs".to_string()
    } else {
        format!(
            "{}x {} per {node}{}",
            c.nics_per_node,
            t.nic.name,
            if c.sharp { " with SHARP" } else { "" }
        )
    };
    format!(
        "{} GPUs = {} {nodes} x {} {}; {} domains of {} GPUs ({} domain{}{}); {}; {}",
        t.total_gpus,
        c.nodes,
        c.gpus_per_node,
        t.gpu.name,
        c.scale_up.name(),
        t.domain_gpus,
        t.domains,
        if t.domains == 1 { "" } else { "s" },
        if t.last_domain_gpus() < t.domain_gpus { format!(", the last of {}", t.last_domain_gpus()) } else { String::new() },
        net,
        c.library_label()
    )
}

/// One line describing the communicator.
pub fn group_line(t: &Topology, p: Placement) -> String {
    if p == t.whole() && p.ranks < t.total_gpus {
        // A partly filled last NVL72 rack: modelled at that rack's pace (see Topology::whole).
        format!(
            "all {} GPUs (racks of {} and a last one of {}: costed as {} per domain, {} domains)",
            t.total_gpus,
            t.domain_gpus,
            t.last_domain_gpus(),
            p.per_domain,
            p.domains()
        )
    } else if p == t.whole() {
        format!(
            "all {} GPUs ({} per domain, {} domain{})",
            p.ranks,
            p.per_domain,
            p.domains(),
            plural(p.domains())
        )
    } else {
        format!(
            "{} of {} GPUs ({} per domain, {} domain{})",
            p.ranks,
            t.total_gpus,
            p.per_domain,
            p.domains(),
            plural(p.domains())
        )
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What a bottleneck id means, for people.
pub fn bottleneck_text(id: &str) -> &'static str {
    match id {
        "latency" => "fixed per-operation latency (small message)",
        "hbm" => "GPU memory bandwidth",
        "scale_up" => "scale-up (NVLink or xGMI) bandwidth",
        "pcie" => "PCIe bandwidth",
        "nic" => "NIC bandwidth",
        "leaf" => "leaf uplinks: ECMP (the NIC's default routing) hash collisions",
        "spine" => "spine bandwidth: the fat tree is oversubscribed",
        _ => "",
    }
}

/// A single prediction, human-readable.
pub fn prediction_text(t: &Topology, placement: Placement, p: &Prediction) -> String {
    prediction_text_with(t, placement, p, &PredictionJson::from(p))
}

/// [`prediction_text`] with the intervals (and figures) of `j`: a calibrated prediction's.
pub fn prediction_text_with(t: &Topology, placement: Placement, p: &Prediction, j: &PredictionJson) -> String {
    let factor = p.op.busbw_factor(p.ranks);
    let mut s = String::new();
    s.push_str(&format!(
        "{} of {} ({} bytes) on {}\n",
        p.op.name(),
        j.size,
        p.bytes.0,
        group_line(t, placement)
    ));
    s.push_str(&format!("cluster     {}\n", cluster_line(t)));
    let time_range = j.intervals.as_ref().map_or(String::new(), |i| format!(" (90%: {} to {})", Micros(i.time_us.lo), Micros(i.time_us.hi)));
    match p.nccl_time {
        Some(n) => s.push_str(&format!(
            "time        {}{time_range}  expected as measured ({}'s own estimate: {})\n",
            p.time,
            if t.gpu.arch.is_amd() { "RCCL" } else { "NCCL" },
            n
        )),
        None => s.push_str(&format!("time        {}{time_range}  expected as measured\n", p.time)),
    }
    s.push_str(&format!(
        "trust       {}  ({} / {} / {})\n",
        p.trust.describe(),
        p.trust.tier.name(),
        p.trust.family.name(),
        p.trust.size.name()
    ));
    s.push_str(&format!("algbw       {}\n", p.algbw));
    let busbw_range = j.intervals.as_ref().map_or(String::new(), |i| format!(" {}", range_text(i.busbw_gbps.lo, i.busbw_gbps.hi)));
    s.push_str(&format!(
        "busbw       {}{busbw_range}  (algbw x {:.4}, nccl-tests convention)\n",
        p.busbw, factor
    ));
    if let Some(i) = &j.intervals {
        s.push_str(&format!("interval    {}\n", i.busbw_gbps.basis));
    }
    s.push_str(&format!(
        "algorithm   {}, protocol {}\n",
        p.algorithm, p.protocol
    ));
    s.push_str(&format!(
        "bottleneck  {} ({})\n",
        j.bottleneck,
        bottleneck_text(j.bottleneck)
    ));
    s
}

/// The reading of a headline busbw (model::reading), one labelled paragraph per line.
pub fn reading_text(r: &fabricscope_model::reading::Reading) -> String {
    let mut s = format!("limited by  {}\nmeaning     {}\n", r.limited_by, r.busbw);
    if let Some(a) = &r.algorithm {
        s.push_str(&format!("algorithm   {a}\n"));
    }
    if let Some(sc) = &r.scaling {
        s.push_str(&format!("scaling     {sc}\n"));
    }
    s
}

/// An nccl-tests-style table of predictions.
pub fn sweep_table(t: &Topology, placement: Placement, rows: &[Prediction]) -> String {
    let mut s = String::new();
    if let Some(first) = rows.first() {
        s.push_str(&format!(
            "# {} on {}\n",
            first.op.name(),
            group_line(t, placement)
        ));
        s.push_str(&format!("# {}\n", cluster_line(t)));
        s.push_str(&format!(
            "# algbw and busbw in GB/s (10^9 B/s) per direction; busbw = algbw x {:.4} (nccl-tests)\n",
            first.op.busbw_factor(first.ranks)
        ));
    }
    s.push_str(&format!(
        "#{:>14} {:>7} {:>12} {:>9} {:>9}  {:<13} {:<8} {:<10}  {}\n",
        "size (B)", "size", "time (us)", "algbw", "busbw", "algorithm", "protocol", "bottleneck", "busbw 90% interval"
    ));
    for p in rows {
        let interval = p.intervals().map_or_else(|| "not validated".to_string(), |i| fabricscope_charts::scale::interval_label(i.busbw_gbps.lo, i.busbw_gbps.hi));
        s.push_str(&format!(
            "{:>15} {:>7} {:>12.2} {:>9.2} {:>9.2}  {:<13} {:<8} {:<10}  {}\n",
            p.bytes.0,
            format_size(p.bytes),
            p.time.0,
            p.algbw.0,
            p.busbw.0,
            p.algorithm,
            p.protocol,
            p.bottleneck.id(),
            interval
        ));
    }
    s
}

/// Writes to stdout. A closed pipe (`fabricscope sweep | head`) is not an error.
pub fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "error: writing the output failed: {e}"
            );
            ExitCode::FAILURE
        }
    }
}
