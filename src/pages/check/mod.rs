//! check.html: a real cluster's nccl-tests/rccl-tests log read (in the page's worker) and judged.

mod calibrate;
mod page;
mod panel;

pub use page::*;
pub use panel::{check_panel, Props as CheckProps};
