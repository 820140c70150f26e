//! Fabricscope's serving model: an LLM deployed for inference on a cluster, closed-form and
//! pure (no I/O, no web types). A decode or prefill step is a roofline of weights plus KV cache
//! read against FLOPs per GPU, plus the communication the layout puts on the fabric's tiers:
//! tensor-parallel all-reduces, expert-parallel dispatch and combine, pipeline hops, and the
//! KV transfer between disaggregated prefill and decode pools.
//!
//! May use: `fabricscope-model` (units, catalog, topology, collective, ep, training workload
//! shapes) and serde. Nothing depends on this crate but the front ends.
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | a served model: the training workload's shape plus attention kind (MHA, GQA, MLA), weights, KV bytes per token |
//! | [`presets`] | Llama 3, Qwen2.5/Qwen3 dense and MoE, DeepSeek-V3/R1 with MLA, a Kimi-K2-like MoE |
//! | [`precision`] | weight, KV and compute precision: bytes per element and the GPU's peak |
//! | [`hardware`] | calibrated efficiencies per hardware class, error bands (generated `bands.rs`), memory reserve |
//! | [`deploy`] | a deployment: phase, TP/PP/EP/DP, batch, lengths, overlap, checked |
//! | [`step`] | the step: roofline, TP all-reduce, EP dispatch/combine, pipeline, outputs |
//! | [`kv`] | KV transfer between prefill and decode nodes; prefill:decode balance |
//! | [`search`] | TP x EP x DP x batch for the best tokens/s per GPU at a per-user speed |

mod bands;
pub mod deploy;
pub mod hardware;
pub mod kv;
pub mod model;
pub mod precision;
pub mod presets;
pub mod search;
pub mod step;

pub use deploy::{Deployment, Phase};
pub use kv::{kv_transfer, KvTransfer, KvTransferInput};
pub use model::{Attention, ServingModel};
pub use precision::Precision;
pub use presets::{serving_preset, serving_preset_ids, SERVING_PRESETS};
pub use search::{search, SearchOptions, SearchPoint, SearchResult};
pub use step::{Breakdown, Server, ServeReport};
