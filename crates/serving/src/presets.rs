//! Named served models: every shape of the model crate's one catalog
//! (`fabricscope_model::training::presets`, with sources), served with its published attention.

use crate::model::{Attention, ServingModel};
use fabricscope_model::training::{attention_of, model_ids, preset, AttentionShape, Precision};

/// Preset ids with a one-line description, in display order.
pub const SERVING_PRESETS: [(&str, &str); 9] = [
    ("llama3-8b", "Llama 3/3.1 8B (32 x 4096, GQA 8 KV heads)"),
    ("llama3-70b", "Llama 3/3.1/3.3 70B (80 x 8192, GQA 8 KV heads)"),
    ("llama3-405b", "Llama 3.1 405B (126 x 16384, GQA 8 KV heads)"),
    ("qwen2.5-72b", "Qwen2.5 72B (80 x 8192, GQA 8 KV heads, FFN 29568)"),
    ("qwen3-32b", "Qwen3 32B dense (64 x 5120, 64 heads of 128, GQA 8 KV heads)"),
    ("qwen3-235b-a22b", "Qwen3-235B-A22B MoE (94 x 4096, 128 experts top-8, GQA 4 KV heads)"),
    ("deepseek-v3", "DeepSeek-V3/R1 671B MoE (61 layers, 256 experts top-8 + 1 shared, MLA 512 + 64)"),
    ("deepseek-r1", "DeepSeek-R1: the DeepSeek-V3 architecture"),
    ("kimi-k2", "Kimi-K2-like 1T MoE (61 layers, 384 experts top-8 + 1 shared, MLA 512 + 64)"),
];

/// Ids of every model that serves: the model crate's whole catalog
/// (`fabricscope_model::training::MODELS`) and its aliases. [`SERVING_PRESETS`] is the pages'
/// serving menu.
pub fn serving_preset_ids() -> Vec<&'static str> {
    model_ids()
}

/// A catalog model by id or alias (case-insensitive), as served: its shape from the model
/// crate's catalog with its published attention. MLA models (DeepSeek-V3/R1, Kimi-K2) are served
/// with their real attention: K/V per head as the query heads (`kv_heads` = `heads`), in BF16
/// unless the deployment says otherwise. The name is the one asked for.
pub fn serving_preset(id: &str) -> Option<ServingModel> {
    let id = id.to_ascii_lowercase();
    let mut work = preset(&id)?;
    let attention = match attention_of(&id)? {
        AttentionShape::Mha | AttentionShape::Gqa => Attention::Gqa,
        AttentionShape::Mla { kv_latent, rope_dim, q_latent } => {
            work.kv_heads = work.heads;
            work.precision = Precision::Bf16;
            Attention::Mla { kv_latent, rope_dim, q_latent }
        }
    };
    work.name = id;
    Some(ServingModel { work, attention })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_with_its_published_size() {
        for (id, _) in SERVING_PRESETS {
            let m = serving_preset(id).unwrap_or_else(|| panic!("{id}"));
            m.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
        }
        // Published totals and active counts, billions (sources in the preset comments; Llama
        // 3: 8.03, 70.6, 405.9 per the model cards).
        for (id, total, active) in [
            ("llama3-8b", 8.03, 8.03),
            ("llama3-70b", 70.6, 70.6),
            ("llama3-405b", 405.9, 405.9),
            ("qwen2.5-72b", 72.7, 72.7),
            ("qwen3-32b", 32.8, 32.8),
            ("qwen3-235b-a22b", 235.0, 22.0),
            ("deepseek-v3", 671.0, 37.0),
            ("kimi-k2", 1040.0, 32.0),
        ] {
            let m = serving_preset(id).unwrap();
            let p = m.params() as f64 / 1e9;
            let a = m.active_params() as f64 / 1e9;
            assert!((p / total - 1.0).abs() < 0.02, "{id}: {p} vs {total}");
            assert!((a / active - 1.0).abs() < 0.06, "{id}: {a} vs {active}");
        }
        assert!(serving_preset("nope").is_none());
        // Each training model serves, under its own name.
        for id in model_ids() {
            let m = serving_preset(id).unwrap_or_else(|| panic!("{id}"));
            m.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(m.work.name, id);
        }
        assert_eq!(serving_preset("deepseek-v3-like").unwrap().attention, crate::model::DEEPSEEK_MLA);
    }
}
