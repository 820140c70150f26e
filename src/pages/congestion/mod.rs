//! congestion.html: the flow model's congestion, sharing and failures for the link's design and
//! compare's pinned designs; its studies run in the page's worker.

mod compare_congestion;
mod page;
mod panel;
pub mod study;

pub use page::*;
pub use study::worker_task;
pub use compare_congestion::{CompareCongestion, Props as CompareCongestionProps};
pub use panel::{CongestionPanel, Props as CongestionProps};
