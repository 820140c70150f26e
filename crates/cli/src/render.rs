//! `fabricscope render scenario.json --out dir/`: every chart the explorer draws, as SVG files
//! titled with the scenario, so documents can regenerate their figures in a pipeline: the
//! collective charts of the Report and the training charts of the scenario's job. The same
//! renderers as the web app (`fabricscope_charts::report`), plus the right-sizer's chart
//! (`pareto`, `fabricscope_charts::pareto`). Given two to four scenario files, the comparison
//! charts of those designs instead (`fabricscope_charts::compare`).

use crate::error::CliError;
use crate::eval::{model_error, read_and_evaluate, read_training};
use fabricscope_charts::pareto::pareto_chart;
use fabricscope_design::rightsize::rightsize;
use fabricscope_model::training::explore::{constraints, workload};
use clap::{Args, ValueEnum};
use fabricscope_charts::report::{render_chart, CHART_IDS};
use fabricscope_charts::training::TRAINING_CHART_IDS;
use fabricscope_charts::compare::{compare_chart, compare_title, design_label, DesignData, COMPARE_CHART_IDS};
use fabricscope_charts::Theme;
use fabricscope_design::compare::{default_name, scale_points, ScalePoint};
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::{Report, Scenario};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    Light,
    Dark,
}

#[derive(Args, Clone, Debug)]
pub struct RenderArgs {
    /// Scenario file (JSON); `-` reads stdin. Two to four files: the comparison charts of
    /// those designs (compare-busbw, compare-hierarchy, compare-step, compare-memory,
    /// compare-scaling-busbw, compare-scaling-step), the first file's job on each
    #[arg(required = true, num_args = 1..=4)]
    pub scenario: Vec<String>,
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
    let ids: &[&str] = if a.scenario.len() > 1 { &COMPARE_CHART_IDS } else { &CHART_IDS };
    for id in &a.only {
        if !(ids.contains(&id.as_str()) || (id == PARETO && a.scenario.len() == 1)) {
            return Err(CliError::new(
                "--only",
                format!("no chart \"{id}\"; allowed: {}{}", ids.join(", "), if a.scenario.len() == 1 { ", pareto" } else { "" }),
            ));
        }
    }
    let theme = Theme::for_dark(a.theme == ThemeArg::Dark);
    // Nothing is created for a scenario that does not evaluate.
    let designs = if a.scenario.len() > 1 { compare(a)? } else { Vec::new() };
    let single = match designs.is_empty() {
        true => {
            let (s, r) = read_and_evaluate(&a.scenario[0])?;
            // The training charts cost a layout search; skip it when none of them is asked for.
            let wants_training = a.only.is_empty() || a.only.iter().any(|o| TRAINING_CHART_IDS.contains(&o.as_str()));
            let training = if wants_training { Some(read_training(&a.scenario[0], &s)?) } else { None };
            Some((s, r, training))
        }
        false => None,
    };
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::new("--out", format!("cannot create {}: {e}", a.out.display())))?;
    let wanted = |id: &str| a.only.is_empty() || a.only.iter().any(|o| o == id);
    let mut listing = String::new();
    let mut write = |id: &str, title: &str, svg: &str| -> Result<(), CliError> {
        let path = a.out.join(format!("{id}.svg"));
        std::fs::write(&path, svg.as_bytes())
            .map_err(|e| CliError::new("--out", format!("cannot write {}: {e}", path.display())))?;
        listing.push_str(&format!("{}\t{title}\n", path.display()));
        Ok(())
    };
    let Some((s, r, training)) = single else {
        let labels: Vec<String> = designs.iter().enumerate().map(|(i, d)| design_label(i, &d.0)).collect();
        let data: Vec<DesignData> = designs
            .iter()
            .zip(&labels)
            .map(|((_, _, r, t, sc), name)| DesignData { name, report: r, training: Some(t), scaling: sc })
            .collect();
        let view = &designs[0].1.view;
        for id in COMPARE_CHART_IDS.into_iter().filter(|id| wanted(id)) {
            if let Some(svg) = compare_chart(id, &data, view, &theme, a.width, false) {
                write(id, compare_title(id).unwrap_or(id), &svg)?;
            }
        }
        return Ok(listing);
    };
    for id in CHART_IDS.into_iter().filter(|id| wanted(id)) {
        if let Some(chart) = render_chart(id, &s, &r, training.as_ref(), &theme, a.width, 0, true) {
            write(id, &chart.title, &chart.svg)?;
        }
    }
    if a.only.is_empty() || a.only.iter().any(|o| o == PARETO) {
        let w = workload(&s.training.workload).map_err(|e| model_error(&a.scenario[0], &e))?;
        let fixed = constraints(&s.training, s.cluster.total_gpus(), &w);
        let book = fabricscope_design::bom::PriceBook::from_value(&s.prices).map_err(|e| model_error(&a.scenario[0], &e))?;
        let r = rightsize(&s.cluster, w, fixed, book).map_err(|e| model_error(&a.scenario[0], &e))?;
        let width = if a.width == 0 { 720 } else { a.width };
        let svg = pareto_chart(&r, width, width * 9 / 16, &theme);
        let path = a.out.join(format!("{PARETO}.svg"));
        std::fs::write(&path, svg.as_bytes()).map_err(|e| CliError::new("--out", format!("cannot write {}: {e}", path.display())))?;
        listing.push_str(&format!("{}\tFabric options against step time (right-sizer)\n", path.display()));
    }
    Ok(listing)
}

type Evaluated = (String, Scenario, Report, TrainingView, Vec<ScalePoint>);

/// Each file as a design: its default name beside the earlier ones, its Report, the first
/// file's job searched on it, and its scaling points.
fn compare(a: &RenderArgs) -> Result<Vec<Evaluated>, CliError> {
    let mut out: Vec<Evaluated> = Vec::new();
    for path in &a.scenario {
        let (s, r) = read_and_evaluate(path)?;
        let mut job = s.clone();
        if let Some(first) = out.first() {
            job.training = first.1.training.clone();
        }
        let t = read_training(path, &job)?;
        let bytes = s.view.headline_bytes();
        let op = out.first().map_or(s.view.selected_op, |f| f.1.view.selected_op);
        let scaling = scale_points(&s.cluster, op, bytes, Some(&job.training.workload));
        let others: Vec<&Scenario> = out.iter().map(|d| &d.1).collect();
        let name = default_name(&s, &others);
        out.push((name, s, r, t, scaling));
    }
    Ok(out)
}

/// The right-sizer's chart id (not an `?embed=` chart: it costs a right-sizing run).
const PARETO: &str = "pareto";
