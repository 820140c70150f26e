//! Fabricscope's flow-level network model: the middle fidelity between the analytical model
//! (one healthy job, oversubscription as a ratio) and packet simulation. A collective or a
//! traffic pattern becomes flows between NICs; flows are routed over the actual Clos the
//! model sizes (rails, planes, leaf/spine/core, oversubscription per tier) by policy (ECMP
//! as seeded hash draws, adaptive routing and spraying as even splits over equal-cost
//! paths); rates follow max-min fairness on directed links; studies repeat over seeds and
//! report distributions; sharing (other jobs) and failures (NICs, links, spines) are edits
//! of the demands and of the graph.
//!
//! Pure and deterministic: no I/O, no web types, no clock; natively a study's seeds run on
//! scoped threads (the figures do not depend on which thread solves a seed), never in wasm. May use
//! `fabricscope-model` (topology, fat-tree sizing, units, errors, the training step) and serde, nothing else;
//! nothing in `fabricscope-model` may use this crate.
//!
//! | module | what it holds |
//! |---|---|
//! | [`graph`] | the directed-link graph of a sized (or hand-written) Clos |
//! | [`traffic`] | ring, all-to-all and permutation demands; job placement |
//! | [`route`] | ECMP hash draws and even splits over equal-cost paths |
//! | [`maxmin`] | max-min fair rates by progressive filling (event-driven) |
//! | [`compose`] | the fraction composed with the analytical model: busbw over seeds |
//! | [`classes`] | interchangeable demands grouped into flow classes (exact) |
//! | [`early`] | ECMP's early answer: a collective's figures from the first filling level |
//! | [`solved`] | what a solve returns and what a study asks of it |
//! | [`solve`] | one solve: routing by policy, rates, the job's fraction and collisions |
//! | [`failures`] | NICs, links and spines down; NCCL's rerouting through surviving NICs |
//! | [`sim`] | a study over seeds: throughput fraction, collisions, bottleneck tier, sharing |
//! | [`stats`] | mean and percentiles over seeds |
//! | [`step`] | a training step over seeds, and with slow GPUs |
//! | [`seeds`] | a study one seed at a time (the page's slices), merged; the median seed |
//! | [`loads`] | each link's utilisation in one seed's solve (the loaded-links drawing) |
//! | [`transport`] | PFC, DCQCN, incast as labelled bands with sources (not applied) |
//! | [`rng`] | a small deterministic PRNG and the per-switch hash |

pub mod classes;
pub mod compose;
mod early;
pub mod failures;
pub mod graph;
pub mod loads;
pub mod maxmin;
pub mod rng;
pub mod route;
pub mod seeds;
pub mod sim;
mod solve;
mod solved;
pub mod stats;
pub mod step;
pub mod traffic;
pub mod transport;

pub use failures::Failures;
pub use graph::{ClosSpec, Fabric, LinkTier};
pub use loads::{failed_fabric, link_loads, Loads};
pub use route::Routing;
pub use seeds::Seeds;
pub use sim::{run, Options, Outcome, Sharing};
pub use stats::Dist;
pub use traffic::{Placement, Traffic};
