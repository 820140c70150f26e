//! The planner's question as the page asks it and its run: a request rate and latency targets
//! (the form), the model, precision and prompt length of the deployment above, the serving
//! defaults for the rest ([`DEFAULTS`]`.plan_input`, which `serve --search --rate` starts from
//! too), answered by `fabricscope_serving::planner` in the page's worker with progress.

use super::wire::WorkerJob;
use crate::plumbing::staged::{use_staged, Done, Staged, Staging};
use crate::widgets::serving_choice::ServingChoice;
use fabricscope_model::{Cluster, ModelError};
use fabricscope_serving::planner::{Mode, PlanInput, PlanRequest, PlanResult, StagedPlan};
use fabricscope_serving::{serving_preset, Engine, DEFAULTS};
use yew::prelude::*;

/// What the user asks the planner (the model, precision and prompt length come from the
/// deployment chosen above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanForm {
    /// Requests per second arriving (Poisson).
    pub rate: f64,
    /// Time-to-first-token target, ms.
    pub ttft_ms: f64,
    /// Time-per-output-token target, ms.
    pub tpot_ms: f64,
    pub mode: Mode,
    /// `None`: TensorRT-LLM's figures, the intervals spanning the three engines.
    pub engine: Option<Engine>,
    /// Percentile of the TTFT target; `None`: the mean.
    pub percentile: Option<f64>,
    /// Fraction of prompt tokens found in the prefix cache, 0 to below 1.
    pub prefix_cache_hit: f64,
    /// Tokens a sequence gains per decode step with MTP (1: off).
    pub mtp_acceptance: f64,
}

impl Default for PlanForm {
    /// The question issue 39 asks first: 20 requests/s, TTFT at most 2 s, TPOT at most 50 ms.
    fn default() -> Self {
        PlanForm { rate: 20.0, ttft_ms: 2000.0, tpot_ms: 50.0, mode: Mode::Auto, engine: None, percentile: None, prefix_cache_hit: 0.0, mtp_acceptance: 1.0 }
    }
}

/// The planner's input for `form` and the deployment `choice`: what `serve --search` with the
/// same flags builds.
pub fn plan_input(form: &PlanForm, choice: &ServingChoice) -> PlanInput {
    PlanInput {
        mode: form.mode,
        engine: form.engine,
        percentile: form.percentile,
        prefix_cache_hit: form.prefix_cache_hit,
        mtp_acceptance: form.mtp_acceptance,
        input_tokens: choice.input_len,
        precision: choice.precision,
        ..DEFAULTS.plan_input(form.rate, form.ttft_ms, form.tpot_ms)
    }
}

/// What a plan depends on in the choice: its model, precision and prompt length.
pub fn plan_key(c: &ServingChoice) -> ServingChoice {
    ServingChoice { model: c.model, precision: c.precision, input_len: c.input_len, ..ServingChoice::default() }
}

/// A plan's key: the cluster, the choice's part that matters, the form.
pub type PlanKey = (Cluster, ServingChoice, PlanForm);
pub type Planned = Done<PlanKey, PlanResult>;

/// The planner as a staged job.
pub struct PlanStage(StagedPlan);

impl PlanStage {
    pub fn new(r: &PlanRequest) -> Result<PlanStage, ModelError> {
        StagedPlan::new(r).map(PlanStage)
    }
}

impl Staged for PlanStage {
    type Answer = PlanResult;
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> Result<Option<PlanResult>, ModelError> {
        Ok(if self.0.run(more)? { self.0.result().cloned() } else { None })
    }
    fn progress(&self) -> (usize, usize) {
        self.0.progress()
    }
}

/// The request for `key`.
pub fn request((cluster, choice, form): &PlanKey) -> Result<PlanRequest, ModelError> {
    let model = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {}", choice.model)))?;
    Ok(PlanRequest { cluster: cluster.clone(), model, input: plan_input(form, choice) })
}

fn make(key: &PlanKey) -> Result<(PlanStage, String), ModelError> {
    let r = request(key)?;
    let stage = PlanStage::new(&r)?;
    Ok((stage, WorkerJob::Plan(r).text()))
}

/// A field named in the worker's answer, as the page's errors name it.
fn field_of(name: &str) -> &'static str {
    const FIELDS: [&str; 8] = ["model", "rate", "ttft_ms", "tpot_ms", "input_tokens", "prefix_cache_hit", "mtp_acceptance", "percentile"];
    FIELDS.into_iter().find(|f| *f == name).unwrap_or("planner")
}

/// The plan for `form` on `cluster` with `choice`'s model, started by the returned callback.
#[hook]
pub fn use_serving_plan(cluster: Cluster, choice: ServingChoice, form: PlanForm) -> Staging<PlanKey, PlanResult> {
    use_staged((cluster, plan_key(&choice), form), make, field_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plumbing::worker::Step;
    use fabricscope_serving::planner::plan_request;

    /// The page's first question is `serve --search --rate 20 --ttft-ms 2000 --tpot-ms 50
    /// --model llama3-70b` (crates/cli/tests/serve_plan.rs holds the CLI to the same input), and
    /// its worker job, run here natively to the end, answers it as the planner does.
    #[test]
    fn the_pages_plan_is_the_clis() {
        let choice = ServingChoice::default();
        assert_eq!(plan_input(&PlanForm::default(), &choice), DEFAULTS.plan_input(20.0, 2000.0, 50.0));
        let key = (Cluster { nodes: 8, ..Cluster::default() }, plan_key(&choice), PlanForm::default());
        let r = request(&key).unwrap();
        let mut task = super::super::worker_jobs::worker_task(&WorkerJob::Plan(r.clone()).text());
        let answer = loop {
            if let Step::Done(a) = task.run(&mut || true) {
                break a;
            }
        };
        let page: Result<PlanResult, (String, String)> = serde_json::from_str(&answer).unwrap();
        let (page, cli) = (page.unwrap(), plan_request(&r).unwrap());
        assert_eq!(page.deployments.len(), cli.deployments.len());
        assert!(!page.deployments.is_empty());
        for (p, c) in page.deployments.iter().zip(&cli.deployments) {
            assert_eq!((p.gpus, p.mode, p.label()), (c.gpus, c.mode, c.label()));
            assert!((p.tokens_per_s_per_gpu / c.tokens_per_s_per_gpu - 1.0).abs() < 1e-12);
        }
        // A bad question names its field.
        let bad = (key.0.clone(), key.1, PlanForm { mtp_acceptance: 0.5, ..PlanForm::default() });
        assert_eq!(PlanStage::new(&request(&bad).unwrap()).err().map(|e| e.field), Some("mtp_acceptance"));
    }
}
