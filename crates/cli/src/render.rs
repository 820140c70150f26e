//! `fabricscope render scenario.json --out dir/`: every chart the explorer draws, as SVG files
//! titled with the scenario, so documents can regenerate their figures in a pipeline: the
//! collective charts of the Report and the training charts of the scenario's job. The same
//! renderers as the web app (`fabricscope_charts::report`).

use crate::error::CliError;
use crate::eval::{read_and_evaluate, read_training};
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
    /// Only these charts (comma-separated): busbw, hierarchy, topology, step, mfu, memory
    #[arg(long, value_delimiter = ',', value_name = "CHART")]
    pub only: Vec<String>,
    /// Width in pixels (default: each chart's own)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=4000))]
    pub width: u32,
}

/// Writes `<out>/<chart>.svg` for each chart and returns the list of files written.
pub fn run(a: &RenderArgs) -> Result<String, CliError> {
    for id in &a.only {
        if !CHART_IDS.contains(&id.as_str()) {
            return Err(CliError::new(
                "--only",
                format!("no chart \"{id}\"; allowed: {}", CHART_IDS.join(", ")),
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
    Ok(listing)
}
