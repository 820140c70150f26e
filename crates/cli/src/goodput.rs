//! `fabricscope goodput`: how often a job spanning the cluster stops, what each stop costs, and
//! the share of the month it trains (ETTR) and its goodput tokens/s, each with its interval.
//! The job flags are `train`'s workload and layout flags; the step comes from the same model.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::failure_args::PolicyArgs;
use crate::output;
use crate::train::{ParallelArgs, WorkloadArgs};
use clap::Args;
use fabricscope_model::goodput::{self, hours_with_interval, Effect, GoodputReport, Recovery};
use fabricscope_model::training::Evaluator;
use fabricscope_model::Topology;
use serde::Serialize;

#[derive(Args, Clone, Debug)]
pub struct GoodputArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub workload: WorkloadArgs,

    #[command(flatten)]
    pub parallel: ParallelArgs,

    #[command(flatten)]
    pub policy: PolicyArgs,
}

use fabricscope_model::goodput::job_of;

#[derive(Serialize)]
struct GoodputJson<'a> {
    gpus: u32,
    gpu: &'static str,
    model: &'a str,
    step_time_s: f64,
    #[serde(flatten)]
    report: &'a GoodputReport,
}

pub fn run(a: &GoodputArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let w = a.workload.workload()?;
    let par = a.parallel.parallel(topo.total_gpus);
    let mut ev = Evaluator::new(&topo, &w, a.workload.framework(topo.gpu.kind))?;
    let step = ev.evaluate(&par)?;
    let r = goodput::goodput(&topo, &job_of(w.params(), &step), &a.policy.policy());
    if a.json {
        return output::json(&GoodputJson { gpus: topo.total_gpus, gpu: topo.gpu.id, model: &w.name, step_time_s: step.step_time_s, report: &r });
    }
    Ok(text(&topo, &w.name, step.step_time_s, &r))
}

/// The report in words, as `goodput` prints it and `train` appends.
pub fn text(topo: &Topology, model: &str, step_s: f64, r: &GoodputReport) -> String {
    let iv = &r.intervals;
    let mut s = String::new();
    s.push_str(&format!("{}\n", output::cluster_line(topo)));
    s.push_str(&format!("Job: {model} on all {} GPUs, {:.2} s a step\n\n", topo.total_gpus, step_s));
    s.push_str(&format!("Job MTTF           {}, {}\n", hours_with_interval(r.mttf_hours, &iv.mttf_hours), r.mttf_basis));
    s.push_str(&format!(
        "Interruptions/day  {:.2} (90%: {:.2}-{:.2})\n",
        r.interruptions_per_day, iv.interruptions_per_day.lo, iv.interruptions_per_day.hi
    ));
    s.push_str(&format!(
        "Checkpoint         every {:.1} min ({}); {:.0} GB, stall {:.1} s, saved in {:.1} s at {:.0} GB/s\n",
        r.checkpoint_interval_min, r.checkpoint_interval_basis, r.checkpoint_gb, r.checkpoint_stall_s, r.checkpoint_save_s, r.storage_gbps
    ));
    s.push_str(&format!(
        "Recovery           {} restart, {:.0} min a stop; {} hot spare nodes ({})\n",
        match r.recovery {
            Recovery::Job => "job",
            Recovery::Replica => "replica",
        },
        r.restart_min,
        r.spares,
        r.spares_basis
    ));
    s.push_str(&format!("ETTR               {:.1}% (90%: {:.1}-{:.1}%)\n", r.ettr * 100.0, iv.ettr.lo * 100.0, iv.ettr.hi * 100.0));
    s.push_str(&format!(
        "Goodput            {:.0} tokens/s of {:.0} (90%: {:.0}-{:.0})\n",
        r.goodput_tokens_per_s, r.tokens_per_s, iv.goodput_tokens_per_s.lo, iv.goodput_tokens_per_s.hi
    ));
    s.push_str(&format!(
        "Time lost          checkpoints {:.1}%, restarts {:.1}%, rolled-back work {:.1}%, waiting for spares {:.1}%, slowdowns {:.2}%\n\n",
        r.lost_to_checkpoints * 100.0,
        r.lost_to_restarts * 100.0,
        r.lost_to_rollback * 100.0,
        r.lost_to_waiting_for_spares * 100.0,
        r.lost_to_slowdowns * 100.0
    ));
    s.push_str("Component                     units  per unit-year  per day  share of stops  effect\n");
    for l in &r.components {
        let effect = match l.effect {
            Effect::Stop { nodes_out, .. } if nodes_out > 1 => format!("stops the job, {nodes_out} nodes out"),
            Effect::Stop { .. } => "stops the job".to_string(),
            Effect::Slow { throughput } => format!("slows the job to {:.1}%", throughput * 100.0),
        };
        s.push_str(&format!(
            "{:<28} {:>6}  {:>13.4}  {:>7.3}  {:>13.1}%  {}\n",
            l.label,
            l.count,
            l.failures_per_unit_year,
            l.failures_per_day,
            l.share_of_stops * 100.0,
            effect
        ));
    }
    for n in &r.notes {
        s.push_str(&format!("\n{n}"));
    }
    s.push('\n');
    s
}
