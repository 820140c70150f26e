//! The serving panel's inputs and work: the deployment the user chose (plain data), what the
//! serving model makes of it on the page's cluster (its report, its curve as batch grows and
//! the counterpart across the NVLink boundary), and the TP x EP x DP x batch search (over 10^4
//! deployments), run when asked in the page's Web Worker (src/plumbing/worker.rs) with progress, or,
//! where no worker runs, in main-thread slices ([`crate::plumbing::staged`]); the planner's job
//! ([`super::plan_job`]) runs in the same worker.

use super::wire::{SearchJob, WorkerJob};
use crate::plumbing::staged::{use_staged, Done, Staged, Staging};
use crate::widgets::serving_choice::ServingChoice;
use fabricscope_model::{Cluster, ModelError, Topology};
use fabricscope_model::fitted::Calibration;
use fabricscope_serving::curve::{counterpart_curves, group, Curve, Group};
use fabricscope_serving::search::StagedSearch;
use fabricscope_serving::calibration::{intervals_of, ServeIntervals};
use fabricscope_serving::step::{ServeReport, Server};
use fabricscope_serving::{serving_preset, Deployment, SearchOptions, SearchPoint, SearchResult, ServingDefaults, ServingModel, DEFAULTS};
use serde::{Deserialize, Serialize};
use yew::prelude::*;

/// What the model makes of a choice on a cluster.
#[derive(Debug, PartialEq)]
pub struct Served {
    pub report: ServeReport,
    /// What a node of the cluster is called (trays for NVL72), singular and plural.
    pub node_word: (&'static str, &'static str),
    /// The report's 90% intervals, as `fabricscope serve` states them (spanning the engines
    /// when the page gives none).
    pub intervals: Option<ServeIntervals>,
    /// The deployment's curve, then its counterpart across the NVLink boundary (if valid).
    pub curves: Vec<Curve>,
    pub group: Group,
    /// GPUs in one NVLink (scale-up) domain.
    pub domain_gpus: u32,
    /// The choice these numbers are for and its model's name (the preset id the picker shows): after a refused change the page
    /// keeps showing them under this name, not the refused choice's.
    pub choice: ServingChoice,
    pub name: String,
    /// On a cluster as measured (a link's `cal=`): what the numbers rest on.
    pub calibrated: Option<CalibratedNote>,
}

/// What a calibrated evaluation says of itself, as `serve --calibration` does.
#[derive(Debug, PartialEq)]
pub struct CalibratedNote {
    /// Logs the calibration was fitted on.
    pub logs: u32,
    /// "measured at 2 nodes, predicted at 4".
    pub scale: String,
    /// The same deployment on the catalog design (as designed).
    pub catalog_tokens_per_s_per_gpu: f64,
}

/// Evaluates `choice` on `cluster` (on the cluster as measured when a calibration is given):
/// about 30 configurations (the curve and its counterpart).
pub fn serve(cluster: &Cluster, choice: &ServingChoice, calibration: Option<&Calibration>) -> Result<Served, ModelError> {
    let topo = cluster.topology()?;
    let model = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {}", choice.model)))?;
    let d = choice.deployment();
    // A calibrated cluster carries its fit in the topology: every communicator applies it.
    let server = || Server::new(&topo, &model);
    let report = server()?.evaluate(&d)?;
    let curves = counterpart_curves(server()?, &d)?;
    let intervals = intervals_of(&topo, &model, &d, &report);
    let calibrated = match calibration {
        Some(c) => {
            // The same deployment on the catalog design: the cluster without its fit.
            let plain = Cluster { calibration: None, ..cluster.clone() }.topology()?;
            Some(CalibratedNote { logs: c.logs, scale: c.scale_note(topo.domains), catalog_tokens_per_s_per_gpu: Server::new(&plain, &model)?.evaluate(&d)?.tokens_per_s_per_gpu })
        }
        None => None,
    };
    Ok(Served { report, intervals, curves, group: group(&topo, &model, &d), domain_gpus: topo.domain_gpus, node_word: cluster.node_word(), choice: *choice, name: model.name().to_string(), calibrated })
}

/// A search's answer as the page shows it: the best point, not the ~10^4 it tried.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub best: Option<SearchPoint>,
    /// Deployments evaluated or refused.
    pub tried: usize,
    /// Refused (do not fit, invalid split).
    pub refused: u32,
}

impl Summary {
    fn of(r: &SearchResult) -> Summary {
        Summary { best: r.best.clone(), tried: r.points.len() + r.refused as usize, refused: r.refused }
    }
}

/// A search's key: the cluster, the choice without its layout and batch, the per-user target.
pub type SearchKey = (Cluster, ServingChoice, u32);
/// A search's answer and the key it answers.
pub type Found = Done<SearchKey, Summary>;

/// The answer for the current inputs (if asked for and done), the progress while running
/// (deployments tried, in all), and the callback that starts it.
pub type Search = Staging<SearchKey, Summary>;

/// Batches per octave the page's search tries (crates/serving's `batch_steps`, the CLI's
/// `serve --search` default): 144 batches up to 4,096, 12,672 deployments of DeepSeek-V3 on a
/// 1,024-GPU SuperPOD (issue 24's 10^4).
pub const BATCH_STEPS: u32 = DEFAULTS.batch_steps;
/// Largest batch per DP rank the page's search tries (the CLI's `--max-batch` default).
pub const MAX_BATCH: u32 = DEFAULTS.max_batch;

/// The search the CLI's `serve --search` runs with its defaults (one function for both).
fn search_options(base: Deployment, target: f64) -> SearchOptions {
    ServingDefaults::search_options(base, target, MAX_BATCH, BATCH_STEPS)
}

/// The search as a staged job: the topology, the model and the search under way.
pub struct SearchStage {
    topo: Topology,
    model: ServingModel,
    search: StagedSearch,
}

impl Staged for SearchStage {
    type Answer = Summary;
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> Result<Option<Summary>, ModelError> {
        Ok(if self.search.run(&self.topo, &self.model, more)? { Some(Summary::of(self.search.result())) } else { None })
    }
    fn progress(&self) -> (usize, usize) {
        self.search.progress()
    }
}

fn prepare(cluster: &Cluster, model: &str, opts: SearchOptions) -> Result<SearchStage, ModelError> {
    let topo = cluster.topology()?;
    let m = serving_preset(model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {model}")))?;
    let search = StagedSearch::new(&topo, &m, opts)?;
    Ok(SearchStage { topo, model: m, search })
}

/// The search a worker job asks for.
pub fn search_stage(j: &SearchJob) -> Result<SearchStage, ModelError> {
    prepare(&j.cluster, &j.model, search_options(j.base, j.target))
}

/// A field named in the worker's answer, as the page's errors name it.
fn field_of(name: &str) -> &'static str {
    const FIELDS: [&str; 9] = ["model", "tp", "ep", "dp", "batch", "context", "input_len", "precision", "min_tokens_per_s_per_user"];
    FIELDS.into_iter().find(|f| *f == name).unwrap_or("search")
}

fn make_search((cluster, choice, target): &SearchKey) -> Result<(SearchStage, String), ModelError> {
    let stage = prepare(cluster, choice.model, search_options(choice.deployment(), *target as f64))?;
    let job = WorkerJob::Search(SearchJob { cluster: cluster.clone(), model: choice.model.to_string(), base: choice.deployment(), target: *target as f64 });
    Ok((stage, job.text()))
}

/// The search for `choice`'s model on `cluster` at `target` output tokens/s per user (decode,
/// [`BATCH_STEPS`] batches per octave up to [`MAX_BATCH`]), started by the returned callback in
/// the page's worker (else in main-thread slices); a change of input stops it.
#[hook]
pub fn use_serving_search(cluster: Cluster, choice: ServingChoice, target: u32) -> Search {
    use_staged((cluster, choice.search_key(), target), make_search, field_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::super::worker_jobs::worker_task;
    use crate::plumbing::worker::Step;
    #[test]
    fn the_default_choice_serves_on_the_default_cluster_with_its_counterpart() {
        let c = Cluster { nodes: 2, ..Cluster::default() };
        let s = serve(&c, &ServingChoice::default(), None).unwrap();
        assert_eq!(s.curves.len(), 2);
        assert!(!s.group.crosses && s.curves[1].group.crosses);
        // An invalid split names its field.
        let e = serve(&c, &ServingChoice { tp: 3, ..ServingChoice::default() }, None).unwrap_err();
        assert_eq!(e.field, "tp");
        assert_eq!((s.choice, s.name.as_str()), (ServingChoice::default(), "llama3-70b"));
    }

    /// Issue 37: the page's search (its worker job, run here natively to the end) gives the
    /// best deployment `fabricscope_serving::search` gives with the serving defaults, which
    /// `serve --search` runs with no flags (crates/cli/tests/serve.rs holds the CLI to it).
    #[test]
    fn the_pages_search_is_the_clis_default_search() {
        let cluster = Cluster { nodes: 2, ..Cluster::default() };
        let choice = ServingChoice::default();
        let job = WorkerJob::Search(SearchJob { cluster: cluster.clone(), model: choice.model.to_string(), base: choice.search_key().deployment(), target: DEFAULTS.min_tokens_per_s_per_user });
        let mut task = worker_task(&job.text());
        let answer = loop {
            if let Step::Done(a) = task.run(&mut || true) {
                break a;
            }
        };
        let page: Result<Summary, (String, String)> = serde_json::from_str(&answer).unwrap();
        let page = page.unwrap();
        let topo = cluster.topology().unwrap();
        let m = serving_preset(choice.model).unwrap();
        let cli = fabricscope_serving::search(&topo, &m, &ServingDefaults::search_options(DEFAULTS.deployment(), DEFAULTS.min_tokens_per_s_per_user, DEFAULTS.max_batch, DEFAULTS.batch_steps)).unwrap();
        // The same deployment; its figures equal but for the last digit serde_json's float
        // printing may drop on the way back from the worker.
        let (p, c) = (page.best.unwrap(), cli.best.unwrap());
        assert_eq!((p.tp, p.ep, p.dp, p.batch), (c.tp, c.ep, c.dp, c.batch));
        assert!((p.tokens_per_s_per_gpu / c.tokens_per_s_per_gpu - 1.0).abs() < 1e-12);
        assert_eq!(page.tried, cli.points.len() + cli.refused as usize);
        assert_eq!(choice.search_key().deployment().context, 1536);
    }
}
