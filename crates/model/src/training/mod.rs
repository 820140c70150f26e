//! The training-step model: a transformer job mapped with TP/CP/PP/DP/EP onto the fabric's
//! tiers, its step time, utilisation and memory, and a search for the best layout.
//!
//! | module | what it holds |
//! |---|---|
//! | [`workload`] | the job: shape, batch, precision; parameter and FLOP counts |
//! | [`presets`] | GPT-3, the Megatron GPT family, Llama 3, Mixtral, a DeepSeek-V3-like MoE |
//! | [`mapping`] | parallel sizes, rank order, and where each group's GPUs sit |
//! | [`placement`] | segments of NVL72 racks that keep EP/TP/CP blocks inside one rack |
//! | [`moe_view`] | where each EP group sits and its dispatch/combine per MoE layer |
//! | [`framework`] | what the training software overlaps and fuses |
//! | [`efficiency`] | kernel times from matrix shapes, one parameter set per GPU class |
//! | [`comm`] | cached collective predictions for the groups of a layout |
//! | [`bands`] | error bands per class from the validation (`bands.csv`) |
//! | [`step`] | per-layer costs, the pipeline schedule, exposed communication, the report |
//! | [`memory`] | weights, gradients, optimizer states, activations per GPU vs HBM |
//! | [`search`] | every valid layout, pruned, ranked |
//! | [`rules`] | the rules of thumb (TP inside NVLink, PP across IB, ...) answered as data |
//! | [`explain`] | the one-sentence bottleneck |
//! | [`assumptions`] | the framework, TP overlap, schedule and DP overlap behind a report, in words |
//! | [`explore`] | a scenario's training view: pinned layout, top layouts, MFU grid, rules |

pub mod assumptions;
pub mod bands;
pub mod comm;
pub mod efficiency;
pub mod explain;
pub mod explore;
pub mod framework;
pub mod mapping;
pub mod placement;
pub mod memory;
pub mod moe_view;
pub mod presets;
pub mod rank_order;
pub mod rules;
pub mod search;
pub mod step;
pub mod step_report;
pub mod workload;

pub use framework::{Framework, NemoRelease};
pub use mapping::{Dim, Group, GroupSpan, Parallel, RankOrder, Recompute, SpanTier};
pub use memory::MemoryBreakdown;
pub use presets::{attention_of, model_ids, preset, preset_ids, AttentionShape, ALIASES, MODELS, PRESETS};
pub use rules::{rules_of_thumb, RuleOfThumb};
pub use search::{interleave_values, search, Constraints, SearchOptions, SearchResult, SearchStats};
pub use step::{Breakdown, Evaluator, GroupReport, StepReport, Summary};
pub use workload::{Mlp, Moe, Positions, Precision, Workload};

use crate::error::Result;
use crate::topology::Topology;

/// Evaluates one layout of `work` on `topo`.
pub fn evaluate(topo: &Topology, work: &Workload, par: &Parallel, fw: Framework) -> Result<StepReport> {
    Evaluator::new(topo, work, fw)?.evaluate(par)
}

/// Searches every layout of `work` on `topo`.
pub fn search_layouts(topo: &Topology, work: &Workload, fw: Framework, opts: &SearchOptions) -> Result<SearchResult> {
    let mut ev = Evaluator::new(topo, work, fw)?;
    search::search(&mut ev, opts)
}
