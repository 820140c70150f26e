//! serving.html's worker (its `main` in a worker serves these): each job of [`super::wire`] as
//! the staged job that answers it.

use super::job::search_stage;
use super::plan_compare::PlansStage;
use super::plan_job::PlanStage;
use super::wire::WorkerJob;
use crate::plumbing::staged::StagedTask;
use crate::plumbing::worker::Task;
use fabricscope_model::ModelError;

/// The job of `text` (the search, a plan, the plans of every pinned design).
pub fn worker_task(text: &str) -> Box<dyn Task> {
    match serde_json::from_str::<WorkerJob>(text) {
        Ok(WorkerJob::Search(j)) => Box::new(StagedTask(search_stage(&j))),
        Ok(WorkerJob::Plan(r)) => Box::new(StagedTask(PlanStage::new(&r))),
        Ok(WorkerJob::Plans(r)) => Box::new(StagedTask(Ok(PlansStage::new(&r)))),
        Err(e) => Box::new(StagedTask::<PlanStage>(Err(ModelError::new("worker", format!("unreadable request: {e}"))))),
    }
}
