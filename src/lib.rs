//! Fabricscope's web app. `main.rs` only calls [`mount`]; browser tests mount [`App`] into
//! their own element.
//!
//! | folder | what it holds |
//! |---|---|
//! | [`pages`] | one folder per page (explorer, compare, serving, congestion, check, learn, embed): its root, state, panels and worker job |
//! | [`widgets`] | what pages share: the cluster's state and evaluation, the training job, controls, pickers, chart frame, export, shared panels |
//! | [`plumbing`] | the browser: the link, storage, the Web Worker, hooks (media queries, on-screen observation) |
//!
//! A page uses widgets and plumbing, never another page's files; widgets and plumbing never
//! name a page (`crates/model/tests/architecture.rs`).

// The explorer's index.html is built without `calibrate` (Cargo.toml): the widgets only the
// other pages use are then unused, and that is expected.
#![cfg_attr(not(feature = "calibrate"), allow(dead_code, unused_imports))]

pub mod pages;
pub mod plumbing;
pub mod widgets;

pub use pages::explorer::{mount, App};
