//! One folder per page (a Trunk entry and its own wasm): its root component, its state, its
//! panels and its worker job. A page uses widgets and plumbing, never another page's files.

pub mod check;
pub mod compare;
pub mod congestion;
pub mod embed;
pub mod explorer;
pub mod learn;
pub mod serving;
