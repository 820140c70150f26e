//! One folder per page (a Trunk entry and its own wasm): its root component, its state, its
//! panels and its worker job. A page uses widgets and plumbing, never another page's files.

// The pages that take a cluster as measured need the model's `calibrate` (Cargo.toml): every
// page's build but the explorer's index.html, which uses none of these.
#[cfg(feature = "calibrate")]
pub mod check;
#[cfg(feature = "calibrate")]
pub mod compare;
#[cfg(feature = "calibrate")]
pub mod congestion;
pub mod embed;
pub mod explorer;
pub mod learn;
#[cfg(feature = "calibrate")]
pub mod serving;
