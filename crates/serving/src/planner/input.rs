//! The planner's question: a request rate, latency targets, prompt and output lengths, the
//! serving mode and the engine's knobs, each with a default and checked with an error that names
//! the field and the allowed values.

use crate::engine::Engine;
use crate::model::ServingModel;
use crate::precision::Precision;
use crate::step::PREFILL_CHUNK_TOKENS;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::Cluster;
use serde::{Deserialize, Serialize};

/// How prefill and decode share GPUs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every replica runs prefill and decode in the same iterations (in-flight batching with
    /// chunked prefill).
    Aggregated,
    /// A prefill pool and a decode pool, each with its own layout; the KV cache moves between.
    Disaggregated,
    /// Both, ranked together.
    #[default]
    Auto,
}

impl Mode {
    pub fn id(self) -> &'static str {
        match self {
            Mode::Aggregated => "aggregated",
            Mode::Disaggregated => "disaggregated",
            Mode::Auto => "auto",
        }
    }
    /// `--disaggregated true|false|auto`'s spellings, and the mode names.
    pub fn from_id(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "aggregated" | "false" | "no" => Some(Mode::Aggregated),
            "disaggregated" | "true" | "yes" => Some(Mode::Disaggregated),
            "auto" | "both" => Some(Mode::Auto),
            _ => None,
        }
    }
}

/// Default batches sampled per octave of the decode step curve (count): the step is close to
/// linear in the batch between samples (weights read once, KV and FLOPs per sequence), and
/// the planner interpolates linearly; 4 keeps a layout's curve under 60 evaluations.
pub const DEFAULT_BATCH_STEPS: u32 = 4;

/// Deployments listed by default (count), fewest GPUs first; the rest are counted.
pub const DEFAULT_MAX_RESULTS: usize = 20;

/// Largest MTP / speculative acceptance accepted (tokens per decode step): DeepSeek-V3's MTP
/// proposes one token (acceptance up to 2); EAGLE-style drafts of up to 8 tokens keep it well
/// under 16.
pub const MAX_MTP_ACCEPTANCE: f64 = 16.0;

/// Largest request rate accepted, requests/s: 10^6, far beyond any cluster the catalog builds.
pub const MAX_RATE: f64 = 1e6;

/// The question, plain and serde-able (the page's worker can send it as JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlanInput {
    /// Requests per second arriving (Poisson).
    pub rate: f64,
    /// Time-to-first-token target, ms.
    pub ttft_ms: f64,
    /// Time-per-output-token target, ms.
    pub tpot_ms: f64,
    /// Mean prompt tokens per request.
    pub input_tokens: u32,
    /// Mean output tokens per request (2 or more: TPOT is the time between output tokens).
    pub output_tokens: u32,
    /// Coefficient of variation of the prompt lengths (0: all the mean, M/D/1; 1: exponential).
    pub input_cv: f64,
    pub mode: Mode,
    /// `None`: TensorRT-LLM's figures, the intervals spanning the three engines.
    pub engine: Option<Engine>,
    /// Fraction of prompt tokens found in the prefix cache and not recomputed, 0 to below 1.
    pub prefix_cache_hit: f64,
    /// Token budget of one iteration's prefill chunk (TensorRT-LLM `max_num_tokens`, vLLM
    /// `max_num_batched_tokens`).
    pub chunk_tokens: u32,
    /// Mean tokens each sequence gains per decode step with MTP / speculative decoding (1: off).
    pub mtp_acceptance: f64,
    /// Percentile of the TTFT target, 0 to below 1 (0.9, 0.99); `None`: the mean. TPOT is a mean.
    pub percentile: Option<f64>,
    pub precision: Precision,
    pub kv_precision: Option<Precision>,
    pub memory_fraction: Option<f64>,
    pub reserve_gib: Option<f64>,
    /// Most GPUs a deployment may use; `None`: the cluster's.
    pub max_gpus: Option<u32>,
    /// Most sequences a DP rank runs at once (the engine's `max_batch_size`), below what memory
    /// holds and [`crate::hardware::MAX_RUNTIME_BATCH`].
    pub max_batch: u32,
    /// Batches sampled per octave of the decode step curve.
    pub batch_steps: u32,
    /// Deployments listed (fewest GPUs first); the rest are counted.
    pub max_results: usize,
}

impl Default for PlanInput {
    fn default() -> Self {
        PlanInput {
            rate: 1.0,
            ttft_ms: 2000.0,
            tpot_ms: 50.0,
            input_tokens: 1024,
            output_tokens: 1024,
            input_cv: 0.0,
            mode: Mode::Auto,
            engine: None,
            prefix_cache_hit: 0.0,
            chunk_tokens: PREFILL_CHUNK_TOKENS,
            mtp_acceptance: 1.0,
            percentile: None,
            precision: Precision::Bf16,
            kv_precision: None,
            memory_fraction: None,
            reserve_gib: None,
            max_gpus: None,
            max_batch: crate::hardware::MAX_RUNTIME_BATCH,
            batch_steps: DEFAULT_BATCH_STEPS,
            max_results: DEFAULT_MAX_RESULTS,
        }
    }
}

fn bad(field: &'static str, msg: String) -> Result<()> {
    Err(ModelError::new(field, msg))
}

impl PlanInput {
    /// Checks every field; the error names it and the allowed values.
    pub fn check(&self) -> Result<()> {
        let positive = |field: &'static str, what: &str, v: f64, max: f64| {
            if v.is_finite() && v > 0.0 && v <= max {
                Ok(())
            } else {
                bad(field, format!("{what} is a number above 0 and at most {max}; got {v}"))
            }
        };
        positive("rate", "the request rate (requests/s)", self.rate, MAX_RATE)?;
        positive("ttft_ms", "the TTFT target (ms)", self.ttft_ms, 1e9)?;
        positive("tpot_ms", "the TPOT target (ms)", self.tpot_ms, 1e9)?;
        let max = crate::deploy::MAX_TOKENS;
        if self.input_tokens == 0 || self.input_tokens > max {
            return bad("input_tokens", format!("prompt tokens are 1 to {max}; got {}", self.input_tokens));
        }
        if self.output_tokens < 2 || self.output_tokens > max {
            return bad("output_tokens", format!("output tokens are 2 to {max} (TPOT is the time between output tokens); got {}", self.output_tokens));
        }
        if self.chunk_tokens == 0 || self.chunk_tokens > max {
            return bad("chunk_tokens", format!("the prefill chunk is 1 to {max} tokens; got {}", self.chunk_tokens));
        }
        for (field, v) in [("prefix_cache_hit", self.prefix_cache_hit), ("percentile", self.percentile.unwrap_or(0.5))] {
            if !(v.is_finite() && (0.0..1.0).contains(&v)) {
                return bad(field, format!("{} is a fraction from 0 to below 1; got {v}", field.replace('_', " ")));
            }
        }
        if !(self.input_cv.is_finite() && (0.0..=10.0).contains(&self.input_cv)) {
            return bad("input_cv", format!("the prompt lengths' coefficient of variation is 0 to 10; got {}", self.input_cv));
        }
        if !(self.mtp_acceptance.is_finite() && (1.0..=MAX_MTP_ACCEPTANCE).contains(&self.mtp_acceptance)) {
            return bad("mtp_acceptance", format!("MTP acceptance is tokens per decode step, 1 (off) to {MAX_MTP_ACCEPTANCE}; got {}", self.mtp_acceptance));
        }
        if self.batch_steps == 0 || self.batch_steps > 64 {
            return bad("batch_steps", format!("batches per octave are 1 to 64; got {}", self.batch_steps));
        }
        if self.max_batch == 0 || self.max_batch > crate::deploy::MAX_BATCH {
            return bad("max_batch", format!("the largest batch per DP rank is 1 to {}; got {}", crate::deploy::MAX_BATCH, self.max_batch));
        }
        if self.max_gpus == Some(0) {
            return bad("max_gpus", "a deployment needs at least 1 GPU".into());
        }
        Ok(())
    }

    /// Prompt tokens each request computes: the prompt less its prefix-cache hits, at least 1.
    pub fn computed_prompt(&self) -> u32 {
        ((self.input_tokens as f64 * (1.0 - self.prefix_cache_hit)).round() as u32).max(1)
    }
}

/// Everything the planner needs, as plain data: the page's worker receives this as JSON and
/// answers with [`crate::planner::PlanResult`] ([`crate::planner::plan_request`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRequest {
    pub cluster: Cluster,
    pub model: ServingModel,
    pub input: PlanInput,
}
