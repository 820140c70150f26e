//! serving.html: an LLM served on the link's cluster, the deployment's curve, breakdown and
//! search, and the planner (fewest GPUs meeting TTFT / TPOT targets at a request rate; on every
//! pinned design when framed in compare.html); the search and plans run in the page's worker.
//!
//! | module | what it holds |
//! |---|---|
//! | `page` | the root: the link's cluster (and compare.html's pinned designs) |
//! | `panel` | the serving panel: deployment, numbers, chart, breakdown, search |
//! | `job` | a deployment's evaluation and the search as a staged job |
//! | `plan_job`, `plan_panel` | the planner's question, its run and its section |
//! | `plan_compare` | the planner on every pinned design, overlaid |
//! | `plan_text` | the planner's command line and figures with intervals |
//! | `wire`, `worker_jobs` | the worker's jobs as data, and what runs each |

pub mod job;
pub mod plan_compare;
pub mod plan_job;
mod plan_panel;
mod plan_text;
mod wire;
mod worker_jobs;
mod page;
mod panel;

pub use page::*;
pub use worker_jobs::worker_task;
pub use panel::{Props as ServingProps, ServingPanel};
