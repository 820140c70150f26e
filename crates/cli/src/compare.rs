//! `fabricscope compare A.json B.json [...]`: the delta table of two to four scenario files
//! (GPUs, busbw, step time, MFU, tokens/s, power, cost, per GPU and per 1,000 GPUs,
//! efficiency), the better design marked per row with its ratio over the worse, where the
//! model can tell; a warning when the designs differ in size, and `--same-gpus` to scale them
//! to one GPU count.

use crate::error::CliError;
use crate::eval::{model_error, read_scenario};
use crate::output;
use clap::Args;
use fabricscope_design::compare::{scale_designs, scale_points, SameGpus, ScalePoint};
use fabricscope_design::design::{delta_table, design_numbers, warnings, DesignNumbers, UNRANKED_BAND, UNRANKED_POWER, UNRANKED_SIZE};
use fabricscope_model::figures::{thousands, usd};
use serde::Serialize;

#[derive(Args, Clone, Debug)]
pub struct CompareArgs {
    /// Scenario files (JSON, the schema the explorer exports), two to four
    #[arg(required = true, num_args = 2..=4, value_name = "SCENARIO")]
    pub scenarios: Vec<String>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Scale every design to one GPU count before comparing: `largest` (the largest design's)
    /// or a count such as 1024 (whole nodes; the fat tree re-sized, the same job)
    #[arg(long, value_name = "N|largest")]
    pub same_gpus: Option<String>,
    /// A calibration file (`fabricscope calibrate LOG... --json`): each design whose cluster is
    /// the calibrated one (GPU, GPUs per node, scale-up, NIC and NICs per node; any node count)
    /// is shown twice, as designed and "as measured"
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<std::path::PathBuf>,
    /// Also the scaling curves compare.html draws: each design from 2 to 4096 nodes, its busbw
    /// (the first file's collective and message size) and the first file's job on the best
    /// layout searched at each size (as `search --nodes N`)
    #[arg(long)]
    pub scaling: bool,
}

#[derive(Serialize)]
struct CompareJson<'a> {
    /// What a reader must know before reading the rows: designs of different GPU counts
    /// ("designs differ in GPU count: 1,024 vs 288"), or how they were scaled.
    warnings: &'a [String],
    designs: &'a [DesignNumbers],
    /// With `--scaling`: each design's points, in the order of `designs`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scaling: Vec<DesignScaling>,
}

/// One design's scaling curves (`--scaling`).
#[derive(Serialize)]
struct DesignScaling {
    name: String,
    /// The job whose step is searched at each size.
    workload: String,
    points: Vec<ScalePoint>,
}

/// The same cluster but for its node count and fabric: what a calibration may describe.
fn same_cluster(a: &fabricscope_model::Cluster, b: &fabricscope_model::Cluster) -> bool {
    (a.gpu, a.gpus_per_node, a.scale_up, a.nic, a.nics_per_node) == (b.gpu, b.gpus_per_node, b.scale_up, b.nic, b.nics_per_node)
}

/// A design's name: its file name without directory and `.json`.
fn name_of(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    base.strip_suffix(".json").unwrap_or(base).to_string()
}

pub fn run(a: &CompareArgs) -> Result<String, CliError> {
    let mut list = Vec::new();
    for path in &a.scenarios {
        list.push((name_of(path), read_scenario(path)?));
    }
    let mut notes = Vec::new();
    if let Some(same) = &a.same_gpus {
        let same = SameGpus::parse(same).map_err(|e| CliError::new("--same-gpus", e.message))?;
        let (scaled, n) = scale_designs(&list, same).map_err(|e| CliError::new("--same-gpus", e.message))?;
        (list, notes) = (scaled, n);
    }
    let cal = a.calibration.as_ref().map(crate::calibration_arg::load).transpose()?;
    let mut designs = Vec::new();
    for (i, (name, s)) in list.iter().enumerate() {
        designs.push(design_numbers(name, s).map_err(|e| model_error(&a.scenarios[i], &e))?);
        if let Some(f) = cal.as_ref().filter(|f| same_cluster(&f.cluster, &s.cluster)) {
            // The cluster as measured, as compare.html's "As measured" design carries it.
            let measured = fabricscope_model::Scenario { cluster: s.cluster.as_measured(&f.calibration), ..s.clone() };
            designs.push(design_numbers(&format!("{name} (as measured)"), &measured).map_err(|e| model_error(&a.scenarios[i], &e))?);
            notes.push(format!("{name} (as measured): calibrated from {} log(s), {}", f.calibration.logs, f.calibration.scale_note(s.cluster.nodes)));
        }
    }
    if let (Some(f), false) = (&cal, designs.iter().any(|d| d.name.ends_with(" (as measured)"))) {
        let c = &f.cluster;
        return Err(CliError::new(
            "--calibration",
            format!(
                "no design is the calibrated cluster ({} x {} per node, {}, {} x {}); compare a design of that cluster, or calibrate on the logs of the one compared",
                c.gpus_per_node,
                c.gpu.spec().name,
                c.scale_up.name(),
                c.nics_per_node,
                c.nic.spec().name
            ),
        ));
    }
    notes.extend(warnings(&designs));
    let scaling = if a.scaling { scaling_of(&list) } else { Vec::new() };
    if a.json {
        return output::json(&CompareJson { warnings: &notes, designs: &designs, scaling });
    }
    let mut s = text(&designs, &notes);
    if !scaling.is_empty() {
        s.push_str(&scaling_text(&scaling));
    }
    Ok(s)
}

/// The scaling curves of every design with the first design's job, collective and message
/// size (compare.html's: one job for all), from [`scale_points`], the function the page runs.
fn scaling_of(list: &[(String, fabricscope_model::Scenario)]) -> Vec<DesignScaling> {
    let Some((_, first)) = list.first() else { return Vec::new() };
    let (op, bytes, job) = (first.view.selected_op, first.view.headline_bytes(), first.training.workload.clone());
    list.iter().map(|(name, s)| DesignScaling { name: name.clone(), workload: job.clone(), points: scale_points(&s.cluster, op, bytes, Some(&job)) }).collect()
}

/// The scaling points as a table: one row per node count, step time and busbw per design.
fn scaling_text(scaling: &[DesignScaling]) -> String {
    let mut s = format!("\nScaling ({} on the best layout at each size, searched as `search --nodes N`; busbw GB/s per direction over every GPU):\n", scaling[0].workload);
    s.push_str(&format!("{:>6}", "nodes"));
    for d in scaling {
        s.push_str(&format!("  {:>24}", format!("{} step s / busbw", d.name)));
    }
    s.push('\n');
    for (i, p) in scaling[0].points.iter().enumerate() {
        s.push_str(&format!("{:>6}", p.nodes));
        for d in scaling {
            let q = d.points.get(i);
            let step = q.and_then(|q| q.step_s).map_or("-".to_string(), |x| format!("{x:.3}"));
            let bw = q.and_then(|q| q.busbw_gbps).map_or("-".to_string(), |x| format!("{x:.1}"));
            s.push_str(&format!("  {:>24}", format!("{step} / {bw}")));
        }
        s.push('\n');
    }
    s
}

fn text(designs: &[DesignNumbers], notes: &[String]) -> String {
    let rows = delta_table(designs);
    let mut head = vec!["".to_string()];
    head.extend(designs.iter().map(|d| d.name.clone()));
    head.push("better".to_string());
    let mut table = vec![head];
    for r in &rows {
        // Money prints as on the page and in `bom`: "$42,092,800" (figures::usd).
        let money = r.unit == "USD";
        let mut line = vec![if r.unit.is_empty() || money { r.label.to_string() } else { format!("{} ({})", r.label, r.unit) }];
        for (i, v) in r.values.iter().enumerate() {
            let mark = if r.best == Some(i) { " *" } else { "" };
            line.push(v.map_or("-".to_string(), |x| format!("{}{mark}", if money { usd(x) } else { figure(x) })));
        }
        line.push(match (r.best, r.ratio, r.within_error_pct, r.unranked) {
            (Some(i), Some(x), _, _) => format!("{} ({x:.2}x)", designs[i].name),
            (None, Some(x), Some(e), _) => format!("~ ({x:.2}x, top two within +-{e:.0}%)"),
            (None, x, None, Some(why)) => format!("not ranked{}: {}", x.map_or(String::new(), |x| format!(" ({x:.2}x)")), short(why)),
            _ => "-".to_string(),
        });
        table.push(line);
    }
    let cols = table[0].len();
    let width: Vec<usize> = (0..cols).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for n in notes {
        s.push_str(&format!("warning: {n}\n"));
    }
    for r in &table {
        let cells: Vec<String> = r.iter().enumerate().map(|(c, x)| if c == 0 { format!("{x:<w$}", w = width[c]) } else { format!("{x:>w$}", w = width[c]) }).collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    s.push_str("* the better design of the row, only where every design's number can be ranked and their 90% intervals do not overlap; the ratio is its value over the worst design's (or the reverse where lower is better)\n");
    for why in [UNRANKED_SIZE, UNRANKED_POWER, UNRANKED_BAND] {
        if rows.iter().any(|r| r.unranked == Some(why)) {
            s.push_str(&format!("not ranked, {}: {why}\n", short(why)));
        }
    }
    if rows.iter().any(|r| r.within_error_pct.is_some()) {
        s.push_str("~ the 90% intervals of the two best designs overlap (held out by source, docs/calibration.md; the figure is the wider half-width): none is marked better\n");
    }
    if designs.iter().any(|d| d.cost_usd.is_none()) {
        s.push_str("cost: shown only for designs whose every item has a price (scenario field `prices`)\n");
    }
    s
}

/// The short reason of a row's "not ranked" (the full one is under the table).
fn short(why: &str) -> &'static str {
    match why {
        UNRANKED_SIZE => "sizes differ",
        UNRANKED_POWER => "power a lower bound",
        _ => "no 90% interval",
    }
}

/// Three significant figures, without exponent notation for the sizes seen here; thousands
/// separated ("1,024", "53,493,760").
fn figure(x: f64) -> String {
    let a = x.abs();
    if a >= 1000.0 {
        thousands(x)
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}
