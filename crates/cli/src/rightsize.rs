//! `fabricscope rightsize`: the fabric options for a job on a cluster's GPUs, cost (or power)
//! against step time: the Pareto front, the cheapest option within 2% of the fastest, and what
//! each step down the front saves.

use crate::bom::read_prices;
use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::eval::{model_error, read_scenario};
use crate::output;
use clap::Args;
use fabricscope_design::bom::PriceBook;
use fabricscope_design::rightsize::{rightsize_with, Axis, RightSize, RightSizeOptions, WITHIN};
use fabricscope_model::training::explore::{constraints, workload, DEFAULT_WORKLOAD};
use fabricscope_model::training::Constraints;
use fabricscope_model::Cluster;

#[derive(Args, Clone, Debug)]
pub struct RightsizeArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Workload preset id, or custom:<layers>:<hidden>:<heads>:<batch>[:<seq>[:<experts>:<top-k>]]
    #[arg(long, value_name = "WORKLOAD", default_value = DEFAULT_WORKLOAD)]
    pub model: String,
    /// Price book (see `fabricscope bom --help`); with every item priced the axis is cost, else power
    #[arg(long, value_name = "FILE")]
    pub prices: Option<String>,
    /// Offer every NIC (400G and 800G, InfiniBand and RoCE) with every system, not only those its platform ships with
    #[arg(long)]
    pub any_nic: bool,
    /// Take the cluster, job, pinned layout and prices from a scenario file instead of flags
    #[arg(long, value_name = "FILE", conflicts_with_all = ["model", "prices"])]
    pub scenario: Option<String>,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

pub fn run(a: &RightsizeArgs) -> Result<String, CliError> {
    let (cluster, job, fixed, book): (Cluster, String, Constraints, PriceBook) = match &a.scenario {
        Some(path) => {
            let s = read_scenario(path)?;
            let w = workload(&s.training.workload).map_err(|e| model_error(path, &e))?;
            let fixed = constraints(&s.training, s.cluster.total_gpus(), &w);
            let book = PriceBook::from_value(&s.prices).map_err(|e| model_error(path, &e))?;
            (s.cluster, s.training.workload, fixed, book)
        }
        None => {
            let book = match &a.prices {
                Some(p) => read_prices(p)?,
                None => PriceBook::default(),
            };
            (a.cluster.cluster(), a.model.clone(), Constraints::default(), book)
        }
    };
    // A field read from the scenario file is named as the file's field, not as a flag nobody gave.
    let blame = |e: fabricscope_model::ModelError| match &a.scenario {
        Some(path) => model_error(path, &e),
        None => CliError::from(e),
    };
    let w = workload(&job).map_err(|e| match &a.scenario {
        Some(path) => model_error(path, &e),
        None => CliError::new("--model", e.message),
    })?;
    let r = rightsize_with(&cluster, w, fixed, book, RightSizeOptions { any_nic: a.any_nic }).map_err(blame)?;
    if a.json {
        return output::json(&r);
    }
    Ok(text(&r, &job))
}

fn text(r: &RightSize, job: &str) -> String {
    let mut s = format!(
        "{job}: {} fabric options timed ({} skipped: not buildable, or the same fabric as a lower ratio); layouts timed: {}\n",
        r.candidates.len(),
        r.skipped,
        r.layouts.join(", ")
    );
    s.push_str(&format!("systems (scale-up domain sizes): {}\n", r.systems().join(", ")));
    let ranked = r.candidates.iter().filter(|c| c.comparable(r.axis)).count();
    let missing = r.missing_power();
    s.push_str(&format!(
        "axis: {}; {ranked} of {} options ranked{}\n\nPareto front, fastest first:\n",
        if r.axis == Axis::CostUsd { "cost (every item priced)" } else { "power (price every item to compare cost)" },
        r.candidates.len(),
        if r.axis == Axis::PowerKw && !missing.is_empty() {
            format!("; an option is ranked by power only when every part has a figure: no published power for {} (give power_w in --prices FILE)", missing.join(", "))
        } else {
            String::new()
        }
    ));
    for (k, &i) in r.pareto.iter().enumerate() {
        let c = &r.candidates[i];
        let mark = if Some(i) == r.pick { "  <- cheapest within 2% of the fastest" } else { "" };
        s.push_str(&format!(
            "  {:<54} {:>9.3} s/step  MFU {:>5.1}%  {:>14}  {:>5} switches  {}{mark}\n",
            c.label,
            c.step_time_s,
            100.0 * c.mfu,
            r.axis.amount(r.x(c)),
            c.switches,
            c.layout,
        ));
        if let Some(st) = r.steps.get(k) {
            s.push_str(&format!(
                "      step down saves {} ({:.1}%) for {:.1}% longer steps\n",
                r.axis.amount(st.saves),
                100.0 * st.saves_frac,
                100.0 * st.slower_frac
            ));
        }
    }
    if r.pareto.is_empty() {
        s.push_str(&format!("  none: no published power for {} (give power_w or prices in --prices FILE)\n", missing.join(", ")));
    }
    // The fastest of all options, ranked or not: the JSON's `fastest`.
    if let Some(f) = r.fastest {
        let f = &r.candidates[f];
        s.push_str(&format!("\nfastest: {} ({:.3} s, {}){}\n", f.label, f.step_time_s, f.layout, if f.comparable(r.axis) { "" } else { "; not ranked on the axis" }));
    }
    if let Some(p) = r.pick {
        let p = &r.candidates[p];
        let saves = r.pick_saves().map_or(String::new(), |x| format!(", saves {} against the fastest ranked option", r.axis.amount(x)));
        s.push_str(&format!("pick within {:.0}%: {} ({:.3} s{saves})\n", 100.0 * WITHIN, p.label, p.step_time_s));
    }
    s
}
