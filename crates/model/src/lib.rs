//! Fabricscope's cost model of GPU cluster interconnects: the physics every page and command
//! builds on. Pure and deterministic: no I/O, no web types. Data flows Scenario -> evaluate ->
//! Report; this crate owns every number. It depends on serde only; the applications on top of
//! it are their own crates and may use it, never the reverse: `fabricscope-design` (bill of
//! materials, key numbers, compare, right-sizer), `fabricscope-check` (a real cluster's logs
//! judged), `fabricscope-teach` (lessons). See docs/architecture.md.
//!
//! | module | what it holds |
//! |---|---|
//! | [`units`] | bandwidth (per direction vs bidirectional, bits vs bytes), time, sizes |
//! | [`catalog`] | GPUs, scale-up fabrics, NICs, switches, with sources |
//! | [`limits`] | the allowed range of every count and size, for files, links and flags alike |
//! | [`fabric_tree`] | sizing a buildable fat tree: leaf, spine, core tiers; rail planes |
//! | [`figures`] | thousands separators and dollar amounts, as page and CLI print them |
//! | [`topology`] | a cluster, checked, and its tiers, fat tree, hops, bisection |
//! | [`nccl`] | NCCL's topology search and tuning model, versioned constants |
//! | [`collective`] | predictions for a group of GPUs, incl. AllToAll and SendRecv |
//! | [`ep`] | expert-parallel dispatch and combine (normal and low-latency kernels) |
//! | [`goodput`] | failures per component, blast radius, checkpoints: a job's ETTR and goodput |
//! | [`interval`] | a prediction's interval as every JSON prints it |
//! | [`training`] | transformer training steps: layout, step time, MFU, memory, search |
//! | [`presets`] | named clusters (DGX SuperPODs, RoCE, NVL72, PCIe, cloud) as plain values |
//! | [`scenario`] | everything a user can set, as one serde value |
//! | [`link`] | scenario <-> compact versioned permalink, forgiving decoder |
//! | [`export`] | CSV of sweeps and of any serialisable rows (search results) |
//! | [`reading`] | what a headline busbw means: its bound, NVLS/SHARP, scaling, in words |
//! | [`report`] | `evaluate(&Scenario) -> Report`: what the explorer and CLI show |

pub mod calibrated;
pub mod calibration;
pub mod catalog;
pub mod choice;
pub mod cluster_flags;
pub mod collective;
pub mod ep;
pub mod error;
pub mod export;
pub mod limits;
pub mod fabric_tree;
pub mod figures;
pub mod fitted;
pub mod goodput;
pub mod interval;
pub mod link;
pub mod nccl;
pub mod rccl;
pub mod network;
pub mod op;
pub mod presets;
pub mod reading;
pub mod report;
pub mod scenario;
pub mod sorting;
pub mod topology;
pub mod training;
pub mod trust;
mod trust_table;
pub mod units;

pub use collective::{sweep_sizes, AlgoChoice, Bottleneck, Collective, Comm, Prediction, ProtoChoice};
pub use error::{ModelError, Result};
pub use presets::{cluster_preset, ClusterPreset, CLUSTER_PRESETS};
pub use report::{evaluate, explain, Formula, Report};
pub use scenario::{Scenario, SizeRange, TrainingChoice, View, YAxis, SCENARIO_VERSION};
pub use topology::{Cluster, CpuVendor, Placement, Tier, TierKind, Topology};
