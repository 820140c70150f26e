//! `fabricscope search`: every valid parallel layout of a job on a cluster (TP, PP, DP, CP,
//! EP, micro-batch, interleave, recompute, ZeRO stage), minus what does not fit in HBM,
//! ranked by step time. Layout flags given here fix that dimension. `--rules` adds the
//! model's answers to the usual rules of thumb for this job and cluster.

use crate::cluster_args::{count_parser, ClusterArgs};
use fabricscope_model::limits;
use crate::error::CliError;
use crate::output;
use crate::train::{layout_line, workload_line, ParallelArgs, WorkloadArgs};
use clap::Args;
use fabricscope_model::training::search::idle_note;
use fabricscope_model::training::{rules_of_thumb, search, Constraints, Evaluator, RuleOfThumb, SearchOptions, SearchStats, StepReport};
use serde::Serialize;
use std::time::Instant;

#[derive(Args, Clone, Debug)]
pub struct SearchArgs {
    /// How many of the best layouts to show
    #[arg(long, value_name = "N", value_parser = count_parser(limits::TOP), default_value_t = 10)]
    pub top: u32,

    /// Also answer the rules of thumb (TP inside NVLink, PP across the network, DP across the
    /// spine, PCIe-only vs NVLink) for this job and cluster
    #[arg(long)]
    pub rules: bool,

    /// Print JSON (an array of reports, best first; with --rules an object) instead of text
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print CSV instead of text: one row per layout, best first, every field of the report
    /// flattened into dotted columns (for spreadsheets and docs pipelines)
    #[arg(long)]
    pub csv: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub workload: WorkloadArgs,

    #[command(flatten)]
    pub parallel: ParallelArgs,

    #[command(flatten)]
    pub calibration: crate::calibration_arg::CalibrationArg,
}

/// `search --calibration --json`: the layouts timed on the cluster as measured, and where
/// that was measured.
#[derive(Serialize)]
struct Calibrated<'a> {
    best: &'a [StepReport],
    calibration: SearchCalibration,
}

#[derive(Serialize)]
struct SearchCalibration {
    logs: u32,
    measured_nodes: Vec<u32>,
    predicted_nodes: u32,
    /// "measured at 2 nodes, predicted at 64" (and what is the catalog's).
    note: String,
    /// Every tier the layouts' collectives cross is calibrated.
    calibrated: bool,
}

#[derive(Serialize)]
struct WithRules<'a> {
    best: &'a [StepReport],
    stats: SearchStats,
    rules: &'a [RuleOfThumb],
}

pub fn run(a: &SearchArgs) -> Result<String, CliError> {
    let (topo, cal) = a.calibration.topology(&a.cluster)?;
    let w = a.workload.workload()?;
    let p = &a.parallel;
    let fixed = Constraints {
        tp: p.tp,
        pp: p.pp,
        dp: p.dp,
        cp: p.cp,
        ep: p.ep,
        expert_tp: p.expert_tp,
        micro_batch: p.micro_batch,
        interleave: p.interleave,
        recompute: p.recompute,
        zero: p.zero,
    };
    let opts = SearchOptions { top: a.top as usize, fixed, sequence_parallel: p.sequence_parallel, order: p.order, ..SearchOptions::default() };
    let fw = a.workload.framework(topo.gpu.kind);
    // On the cluster as measured the fit rides in the topology, as the pages run it.
    let measured = cal.as_ref().map(|f| crate::calibration_arg::measured_topology(&topo, f)).transpose()?;
    let mut ev = Evaluator::new(measured.as_ref().unwrap_or(&topo), &w, fw)?;
    let note = cal.as_ref().map(|f| SearchCalibration {
        logs: f.calibration.logs,
        measured_nodes: f.calibration.measured_nodes.clone(),
        predicted_nodes: topo.domains,
        note: f.calibration.scale_note(topo.domains),
        calibrated: f.calibration.covers(topo.domains),
    });
    let started = Instant::now();
    let res = search(&mut ev, &opts)?;
    let elapsed = started.elapsed();
    let rules = if a.rules { rules_of_thumb(&topo, &w, fw)? } else { Vec::new() };
    if a.csv {
        return Ok(fabricscope_model::export::layouts_csv(&res.best));
    }
    if a.json {
        if let Some(n) = note {
            return output::json(&Calibrated { best: &res.best, calibration: n });
        }
        if a.rules {
            return output::json(&WithRules { best: &res.best, stats: res.stats, rules: &rules });
        }
        return output::json(&res.best);
    }
    let mut s = String::new();
    s.push_str(&format!("Cluster: {}\n", output::cluster_line(&topo)));
    s.push_str(&format!("Job: {}\n", workload_line(&w)));
    if let Some(n) = &note {
        s.push_str(&format!("Calibrated from {} log{}: {} (collectives timed on the cluster as measured)\n", n.logs, if n.logs == 1 { "" } else { "s" }, n.note));
    }
    let st = &res.stats;
    s.push_str(&format!(
        "Searched {} layouts ({} candidates: {} evaluated, {} pruned by bound, {} not fitting in HBM) in {:.1} ms\n",
        st.layouts,
        st.candidates,
        st.evaluated,
        st.pruned_bound,
        st.unfit,
        elapsed.as_secs_f64() * 1e3
    ));
    if let Some(why) = &res.invalid {
        s.push_str(&format!("Skipped {} layouts the model could not cost; the first: {}\n", st.invalid, why));
    }
    s.push('\n');
    if let Some(why) = res.why_none(topo.total_gpus) {
        s.push_str(&format!("{why}\n"));
        if let Some(c) = &res.closest_unfit {
            s.push_str(&format!("Closest: {}\n  {}\n", layout_line(&c.mapping), c.bottleneck));
        }
    } else {
        s.push_str("  #    TP   PP    DP  CP  EP   mb   v  recompute  ZeRO   step s   MFU   TFLOP/s  mem GiB  largest overhead\n");
        for (i, r) in res.best.iter().enumerate() {
            let m = &r.mapping;
            let step_us = r.step_time_s * 1e6;
            let mut parts: Vec<(&str, f64)> = r.breakdown.parts().iter().filter(|x| x.0 != "compute").map(|x| (x.1, x.2 .0)).collect();
            parts.sort_by(|x, y| y.1.total_cmp(&x.1));
            let over = parts.first().map_or(String::new(), |(n, v)| format!("{n} {:.0}%", 100.0 * v / step_us));
            s.push_str(&format!(
                "{:>3}  {:>4} {:>4} {:>5} {:>3} {:>3} {:>4} {:>3}  {:<9}  {:>4}  {:>7.3}  {:>4.1}%  {:>7.1}  {:>7.1}  {}\n",
                i + 1,
                m.tp,
                m.pp,
                m.dp,
                m.cp,
                m.ep,
                m.micro_batch,
                m.interleave,
                m.recompute.id(),
                m.zero,
                r.step_time_s,
                100.0 * r.mfu,
                r.model_tflops_per_gpu,
                r.memory_gib_per_gpu,
                over
            ));
        }
        if let Some(b) = res.best.first() {
            s.push_str(&format!("\nBest: {}\n  {}\n", layout_line(&b.mapping), b.bottleneck));
            if let Some(note) = idle_note(topo.total_gpus, &w, b) {
                s.push_str(&format!("  {note}\n"));
            }
        }
    }
    for r in &rules {
        s.push_str(&format!("\n{}\n  Rule: {}\n  Here: {}\n", r.question, r.claim, r.answer));
    }
    Ok(s)
}
