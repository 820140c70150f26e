//! `fabricscope`: the command-line face of the cost model. This file only parses and
//! dispatches; each subcommand lives in its own module, the numbers in `fabricscope-model`.

mod bom;
mod calibrate;
mod calibration_arg;
mod check;
mod cluster_args;
mod compare;
mod collective;
mod congestion;
mod ep;
mod error;
mod failure_args;
mod eval;
#[cfg(test)]
mod field_names;
mod flow_args;
mod goodput;
mod link;
mod output;
mod render;
mod rightsize;
mod search;
mod serve;
mod serve_chart;
mod serve_plan;
mod sweep;
mod teach;
mod tiers;
mod train;
mod train_flow;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Predict GPU-cluster collective performance with NCCL's own cost model.
#[derive(Parser, Debug)]
#[command(name = "fabricscope", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Predict one collective of one size (time, algbw, busbw, algorithm, bottleneck).
    Collective(collective::CollectiveArgs),
    /// Expert-parallel dispatch and combine of one MoE layer (normal or low-latency kernels).
    Ep(Box<ep::EpArgs>),
    /// An nccl-tests-style table of one collective over sizes in powers of two.
    Sweep(sweep::SweepArgs),
    /// The per-GPU bandwidth and latency hierarchy, the fat tree and the bisection bandwidth.
    Tiers(tiers::TiersArgs),
    /// Evaluate a scenario file (JSON) and print the whole Report as JSON.
    Eval(eval::EvalArgs),
    /// Write every chart of a scenario file as SVG; of 2-4 files, the comparison charts.
    Render(render::RenderArgs),
    /// Print the explorer permalink of a scenario file, or (--decode) the scenario of a link.
    Link(link::LinkArgs),
    /// One training step of a transformer job: step time, MFU, memory, bottleneck.
    Train(Box<train::TrainArgs>),
    /// Fit a cluster's effective parameters from its own nccl-tests / rccl-tests logs (print
    /// `--json` to a file and pass it back with --calibration).
    Calibrate(Box<calibrate::CalibrateArgs>),
    /// Check a real cluster: read nccl-tests output, set it against the model, say what is wrong.
    Check(Box<check::CheckArgs>),
    /// Rank every parallel layout (TP, PP, DP, CP, EP, micro-batch, ...) of a job by step time.
    Search(Box<search::SearchArgs>),
    /// Bill of materials: systems, NICs, switches per tier, optics and cables, power and cost.
    Bom(bom::BomArgs),
    /// Compare two to four scenario files: busbw, step time, MFU, tokens/s, power, cost.
    Compare(compare::CompareArgs),
    /// Right-size the fabric for a job: options' cost (or power) against step time, Pareto front.
    Rightsize(Box<rightsize::RightsizeArgs>),
    /// Play a collective step by step on a small copy of the cluster: transcript, bytes per GPU
    /// against the formula, and (--svg) one frame of the explorer's animation.
    Teach(Box<teach::TeachArgs>),
    /// Flow-level congestion on the cluster's Clos: a traffic pattern routed by ECMP, adaptive
    /// routing or spraying over seeds, with neighbours and failures; throughput fraction
    /// (mean, p10, p50, p90), collision probability, bottleneck tier.
    Congestion(Box<congestion::CongestionArgs>),
    /// Serve an LLM on the cluster: time per output token, time to first token, tokens/s per
    /// GPU, node and user, the step's breakdown (weights/KV read, compute, TP all-reduce, EP
    /// dispatch/combine, pipeline, KV transfer) and the network's share.
    Serve(Box<serve::ServeArgs>),
    /// Goodput under failures: job MTTF, interruptions a day, checkpoint interval, the share of
    /// time the job trains (ETTR) and goodput tokens/s, with the stops by component.
    Goodput(Box<goodput::GoodputArgs>),
    /// The KV cache of a prompt moved from a prefill node to a decode node: bytes, time, GB/s.
    KvTransfer(Box<serve::KvTransferArgs>),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let names: Vec<String> = Cli::command()
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            return error::clap_exit(e, &names);
        }
    };
    let result = match &cli.command {
        Command::Collective(a) => collective::run(a),
        Command::Ep(a) => ep::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Tiers(a) => tiers::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Render(a) => render::run(a),
        Command::Link(a) => link::run(a),
        Command::Train(a) => train::run(a),
        Command::Search(a) => search::run(a),
        Command::Bom(a) => bom::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Rightsize(a) => rightsize::run(a),
        Command::Check(a) => check::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Teach(a) => teach::run(a),
        Command::Congestion(a) => congestion::run(a),
        Command::Serve(a) => serve::run(a),
        Command::KvTransfer(a) => serve::run_kv(a),
        Command::Goodput(a) => goodput::run(a),
    };
    match result {
        Ok(text) => output::emit(&text),
        Err(e) => e.exit(),
    }
}
