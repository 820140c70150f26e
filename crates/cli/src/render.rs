//! `fabricscope render scenario.json --out dir/`: every chart the explorer draws, as SVG files
//! titled with the scenario, so documents can regenerate their figures in a pipeline: the
//! collective charts of the Report and the training charts of the scenario's job. The same
//! renderers as the web app (`fabricscope_charts::report`), plus the right-sizer's chart
//! (`pareto`, `fabricscope_charts::pareto`).

use crate::error::CliError;
use crate::eval::{model_error, read_and_evaluate, read_training};
use fabricscope_charts::pareto::pareto_chart;
use fabricscope_model::rightsize::rightsize;
use fabricscope_model::training::explore::{constraints, workload};
use clap::{Args, ValueEnum};
use fabricscope_charts::report::{render_chart, CHART_IDS};
use fabricscope_charts::training::TRAINING_CHART_IDS;
use fabricscope_charts::Theme;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    Light,
    Dark,
}

#[derive(Args, Clone, Debug)]
pub struct RenderArgs {
    /// Scenario file (JSON); `-` reads stdin
    pub scenario: String,
    /// Directory for the SVG files (created if missing)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Palette
    #[arg(long, value_enum, default_value = "light")]
    pub theme: ThemeArg,
    /// Only these charts (comma-separated): busbw, hierarchy, topology, step, mfu, memory, pareto
    #[arg(long, value_delimiter = ',', value_name = "CHART")]
    pub only: Vec<String>,
    /// Width in pixels (default: each chart's own)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=4000))]
    pub width: u32,
}

/// Writes `<out>/<chart>.svg` for each chart and returns the list of files written.
pub fn run(a: &RenderArgs) -> Result<String, CliError> {
    for id in &a.only {
        if !CHART_IDS.contains(&id.as_str()) && id != PARETO {
            return Err(CliError::new(
                "--only",
                format!("no chart \"{id}\"; allowed: {}, {PARETO}", CHART_IDS.join(", ")),
            ));
        }
    }
    let (s, r) = read_and_evaluate(&a.scenario)?;
    // The training charts cost a layout search; skip it when none of them is asked for.
    let wants_training = a.only.is_empty() || a.only.iter().any(|o| TRAINING_CHART_IDS.contains(&o.as_str()));
    let training = if wants_training { Some(read_training(&a.scenario, &s)?) } else { None };
    let theme = Theme::for_dark(a.theme == ThemeArg::Dark);
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::new("--out", format!("cannot create {}: {e}", a.out.display())))?;
    let mut listing = String::new();
    for id in CHART_IDS {
        if !a.only.is_empty() && !a.only.iter().any(|o| o == id) {
            continue;
        }
        let Some(chart) = render_chart(id, &s, &r, training.as_ref(), &theme, a.width, 0, true) else {
            continue;
        };
        let path = a.out.join(format!("{id}.svg"));
        std::fs::write(&path, chart.svg.as_bytes())
            .map_err(|e| CliError::new("--out", format!("cannot write {}: {e}", path.display())))?;
        listing.push_str(&format!("{}\t{}\n", path.display(), chart.title));
    }
    if a.only.is_empty() || a.only.iter().any(|o| o == PARETO) {
        let w = workload(&s.training.workload).map_err(|e| model_error(&a.scenario, &e))?;
        let fixed = constraints(&s.training, s.cluster.total_gpus(), &w);
        let r = rightsize(&s.cluster, w, fixed, s.prices.clone()).map_err(|e| model_error(&a.scenario, &e))?;
        let width = if a.width == 0 { 720 } else { a.width };
        let svg = pareto_chart(&r, width, width * 9 / 16, &theme);
        let path = a.out.join(format!("{PARETO}.svg"));
        std::fs::write(&path, svg.as_bytes()).map_err(|e| CliError::new("--out", format!("cannot write {}: {e}", path.display())))?;
        listing.push_str(&format!("{}\tFabric options against step time (right-sizer)\n", path.display()));
    }
    Ok(listing)
}

/// The right-sizer's chart id (not an `?embed=` chart: it costs a right-sizing run).
const PARETO: &str = "pareto";
