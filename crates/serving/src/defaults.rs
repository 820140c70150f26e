//! The serving defaults every front end uses (issue 37): serving.html's panel and search and the
//! CLI's `serve` (and `serve --search`) start from these, so one design gives one answer on the
//! page and in the terminal, and `serve --search` with no flags reproduces the page's search.

use crate::deploy::{Deployment, Phase, MAX_BATCH, MAX_TOKENS};
use crate::planner::PlanInput;
use crate::search::SearchOptions;

/// What a deployment and a search start from when the user says nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServingDefaults {
    /// Prompt tokens per request.
    pub input_len: u32,
    /// Output tokens per request.
    pub output_len: u32,
    /// The search's per-user speed target, output tokens/s.
    pub min_tokens_per_s_per_user: f64,
    /// The search's largest batch per DP rank.
    pub max_batch: u32,
    /// Batches the search tries per octave ([`crate::search::batch_grid`]): 16 finds the
    /// largest batch meeting a per-user speed within 1/16 of an octave (12,672 deployments of
    /// DeepSeek-V3 on a 1,024-GPU SuperPOD, well under a second in release builds).
    pub batch_steps: u32,
}

/// The one set of defaults: 1,024 tokens in and out, 20 tokens/s per user, batches up to 4,096
/// at 16 an octave.
pub const DEFAULTS: ServingDefaults = ServingDefaults { input_len: 1024, output_len: 1024, min_tokens_per_s_per_user: 20.0, max_batch: 4096, batch_steps: 16 };

impl ServingDefaults {
    /// Tokens of KV cache per sequence at decode when none is given: the prompt plus half the
    /// output (the mean over a request's decode), at most [`MAX_TOKENS`]. 1,536 by default.
    pub fn context(input_len: u32, output_len: u32) -> u32 {
        input_len.saturating_add(output_len / 2).min(MAX_TOKENS)
    }

    /// The default deployment's lengths on top of `Deployment::default()`'s layout (decode, one
    /// GPU, batch 1, BF16, the default engine).
    pub fn deployment(&self) -> Deployment {
        Deployment { phase: Phase::Decode, input_len: self.input_len, output_len: self.output_len, context: Self::context(self.input_len, self.output_len), ..Deployment::default() }
    }

    /// The search both front ends run: decode deployments of `base` (its lengths, precision and
    /// engine; layout and batch searched) at `target` output tokens/s per user, `batch_steps`
    /// batches an octave up to `max_batch`, on the whole cluster.
    pub fn search_options(base: Deployment, target: f64, max_batch: u32, batch_steps: u32) -> SearchOptions {
        SearchOptions { base: Deployment { phase: Phase::Decode, ..base }, min_tokens_per_s_per_user: target, max_batch, batch_steps, max_gpus: None }
    }

    /// The planner's question both front ends start from (`serve --search --rate R --ttft-ms T
    /// --tpot-ms P` and serving.html's planner): these lengths and largest batch, every other
    /// knob at [`PlanInput`]'s default.
    pub fn plan_input(&self, rate: f64, ttft_ms: f64, tpot_ms: f64) -> PlanInput {
        PlanInput { rate, ttft_ms, tpot_ms, input_tokens: self.input_len, output_tokens: self.output_len, max_batch: self.max_batch.min(MAX_BATCH), ..PlanInput::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_context_is_the_prompt_and_half_the_output() {
        assert_eq!(DEFAULTS.deployment().context, 1536);
        assert_eq!(ServingDefaults::context(2048, 1024), 2560);
        assert_eq!(ServingDefaults::context(u32::MAX, 8), MAX_TOKENS);
        assert_eq!(DEFAULTS.deployment().phase, Phase::Decode);
    }
}
