//! `fabricscope eval scenario.json`: the Report (`fabricscope_model::evaluate`) as JSON, and
//! reading scenario files (shared by `eval`, `render` and `link`). A bad file is one line
//! naming the file and the field, exit code 2.

use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::training::explore::{explore, pinned_replaced, workload, TrainingView, CUSTOM_FIELDS};
use fabricscope_model::scenario::scenario_path;
use fabricscope_model::{evaluate, link, ModelError, Report, Scenario};
use serde::Serialize;
use std::io::Read;

#[derive(Args, Clone, Debug)]
pub struct EvalArgs {
    /// Scenario file (JSON, the schema the explorer exports); `-` reads stdin
    pub scenario: String,
    /// Print the collective sweeps as CSV (one row per curve and size) instead of the JSON Report and training view
    #[arg(long)]
    pub csv: bool,
}

/// The Report and, beside it, the training view of the scenario's job (what the explorer's
/// training panels show).
#[derive(Serialize)]
struct Full<'a> {
    #[serde(flatten)]
    report: &'a Report,
    training: &'a TrainingView,
    /// The chosen layout under failures: the report whose sentence the explorer's training
    /// panel shows.
    goodput: Option<fabricscope_model::goodput::GoodputReport>,
    /// Pinned sizes the job cannot run and what ran instead (also on stderr); empty when none.
    pinned_replaced: Vec<String>,
}

pub fn run(a: &EvalArgs) -> Result<String, CliError> {
    let (s, report) = read_and_evaluate(&a.scenario)?;
    if a.csv {
        return Ok(fabricscope_model::export::curves_csv(&report));
    }
    let training = read_training(&a.scenario, &s)?;
    let w = workload(&s.training.workload).map_err(|e| model_error(&a.scenario, &e))?;
    let pinned_replaced = pinned_replaced(&s.training, s.cluster.total_gpus(), &w);
    // Said, not silent: a pinned layout the job cannot run is replaced as the page does.
    for line in &pinned_replaced {
        crate::error::note(line);
    }
    output::json(&Full { report: &report, training: &training, goodput: goodput_of(&s, w.params(), &training), pinned_replaced })
}

/// The training view of a scenario (search, MFU grid, rules); errors name the file and the
/// `training.*` field (a cluster where nothing fits is not an error: the view says so).
pub fn read_training(path: &str, s: &Scenario) -> Result<TrainingView, CliError> {
    explore(&s.cluster, &s.training).map_err(|e| {
        let name = if path == "-" { "<stdin>" } else { path };
        match e.field {
            f if CUSTOM_FIELDS.iter().any(|(c, _)| *c == f) => CliError::new(format!("{name}: training.workload ({f})"), e.message.clone()),
            _ => model_error(path, &e),
        }
    })
}

/// Reads a scenario file and evaluates it; errors name the file and the field.
pub fn read_and_evaluate(path: &str) -> Result<(Scenario, Report), CliError> {
    let s = read_scenario(path)?;
    let r = evaluate(&s).map_err(|e| model_error(path, &e))?;
    Ok((s, r))
}

/// Reads and parses a scenario file (`-` = stdin). Strict: any field it cannot use, or out
/// of its range, is an error, unlike the forgiving permalink decoder. Reads at most
/// [`link::MAX_FILE_BYTES`] (and one more, to tell a file that is too large), and accepts a
/// UTF-8 byte-order mark, as the explorer's import does ([`link::file_text`]).
pub fn read_scenario(path: &str) -> Result<Scenario, CliError> {
    let name = if path == "-" { "<stdin>" } else { path };
    let limit = link::MAX_FILE_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    read.map_err(|e| CliError::new(name, format!("cannot read the scenario file: {e}")))?;
    let text = link::file_text(&bytes).map_err(|m| CliError::new(name, m))?;
    parse_scenario(name, text)
}

/// Parses and validates scenario JSON with the model's strict reader ([`link::read_file`], the
/// explorer's import too); on failure, names the field at fault (`cluster.nodes`).
pub fn parse_scenario(name: &str, text: &str) -> Result<Scenario, CliError> {
    let (s, measured) = link::read_file(text).map_err(|e| match e.field.as_str() {
        "" => CliError::new(name, e.message),
        field => CliError::new(format!("{name}: {field}"), e.message),
    })?;
    // Measured runs are held to their ranges, as the page reads them (check::runs_of); the
    // commands reading scenarios do not use them.
    let mut notes = Vec::new();
    fabricscope_check::runs_of(measured, &mut notes);
    match notes.first() {
        Some(n) => Err(CliError::new(format!("{name}: measured"), n.trim_start_matches("measured: ").to_string())),
        None => Ok(s),
    }
}

/// A model error in a file names the scenario field (`cluster.nodes`, `training.tp`), not a
/// CLI flag; an input the scenario holds inside another field names that field.
pub fn model_error(name: &str, e: &ModelError) -> CliError {
    let field = scenario_path(e.field).unwrap_or_else(|| e.field.to_string());
    let name = if name == "-" { "<stdin>" } else { name };
    CliError::new(format!("{name}: {field}"), e.message.clone())
}

/// The goodput of the view's chosen layout (when it fits), as `train` and the explorer compute it.
fn goodput_of(s: &Scenario, params: u64, v: &TrainingView) -> Option<fabricscope_model::goodput::GoodputReport> {
    let c = v.chosen.as_ref().filter(|c| c.fits)?;
    let topo = s.cluster.topology().ok()?;
    Some(fabricscope_model::goodput::of_step(&topo, params, c))
}
