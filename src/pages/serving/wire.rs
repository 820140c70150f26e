//! serving.html's worker jobs as data (the page posts them as JSON; `worker_jobs` runs them):
//! the deployment search, the planner, and the planner on each of compare.html's designs.

use fabricscope_model::Cluster;
use fabricscope_serving::planner::PlanRequest;
use fabricscope_serving::Deployment;
use serde::{Deserialize, Serialize};

/// The search job: the cluster, the model's preset id, the base deployment, the per-user target.
#[derive(Serialize, Deserialize)]
pub struct SearchJob {
    pub cluster: Cluster,
    pub model: String,
    pub base: Deployment,
    pub target: f64,
}

/// One job of serving.html's worker.
#[derive(Serialize, Deserialize)]
pub enum WorkerJob {
    Search(SearchJob),
    Plan(PlanRequest),
    Plans(Vec<PlanRequest>),
}

impl WorkerJob {
    /// The job's text for the worker.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
