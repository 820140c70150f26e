//! serving.html: an LLM served on the link's cluster, the deployment's curve, breakdown and
//! search (the search runs in the page's worker).

pub mod job;
mod page;
mod panel;

pub use page::*;
pub use job::worker_task;
pub use panel::{Props as ServingProps, ServingPanel};
