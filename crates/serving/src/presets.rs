//! Named served models. Llama 3 and the DeepSeek-V3 shape come from the training presets
//! (`fabricscope_model::training::presets`); the rest are added here, each with its source.

use crate::model::{Attention, ServingModel, DEEPSEEK_MLA};
use fabricscope_model::training::{preset, Mlp, Moe, Positions, Precision, Workload};

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

/// Ids of every serving preset.
pub fn serving_preset_ids() -> Vec<&'static str> {
    SERVING_PRESETS.iter().map(|(id, _)| *id).collect()
}

fn base(name: &str) -> Workload {
    // Llama 3 8B's conventions (SwiGLU, RoPE, untied embeddings, no dropout); every shape
    // field is set by the caller.
    let mut w = preset("llama3-8b").unwrap_or_default();
    w.name = name.to_string();
    w.mlp = Mlp::Swiglu;
    w.positions = Positions::Rope;
    w.tied_embeddings = false;
    w.dropout = false;
    w.precision = Precision::Bf16;
    w
}

#[allow(clippy::too_many_arguments)]
fn shape(name: &str, layers: u32, hidden: u32, heads: u32, kv_heads: u32, head_dim: u32, ffn: u32, vocab: u32) -> Workload {
    Workload { layers, hidden, heads, kv_heads, head_dim, ffn, vocab, ..base(name) }
}

fn gqa(work: Workload) -> ServingModel {
    ServingModel { work, attention: Attention::Gqa }
}

/// A serving preset by id (case-insensitive).
pub fn serving_preset(id: &str) -> Option<ServingModel> {
    let id = id.to_ascii_lowercase();
    let m = match id.as_str() {
        // Meta, "The Llama 3 Herd of Models" (2024), Table 3 (the training presets' shapes);
        // Llama 3.1 and 3.3 keep them.
        "llama3-8b" | "llama3-70b" | "llama3-405b" => gqa(preset(&id)?),
        // Qwen/Qwen2.5-72B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads,
        // intermediate 29568, vocabulary 152064, untied (Qwen2.5 Technical Report, Table 1).
        "qwen2.5-72b" => gqa(shape("qwen2.5-72b", 80, 8192, 64, 8, 0, 29568, 152064)),
        // Qwen/Qwen3-32B config.json: 64 layers, hidden 5120, 64 heads of 128 (head_dim set
        // apart from hidden / heads = 80), 8 KV heads, intermediate 25600, vocabulary 151936
        // (Qwen3 Technical Report, Table 1).
        "qwen3-32b" => gqa(shape("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936)),
        // Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads of 128, 4 KV
        // heads, 128 experts with 8 active, expert intermediate 1536, no shared expert, every
        // layer MoE, vocabulary 151936 (Qwen3 Technical Report, Table 2: 235B total, 22B active).
        "qwen3-235b-a22b" => gqa(Workload {
            moe: Some(Moe { experts: 128, top_k: 8, expert_ffn: 1536, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 }),
            ..shape("qwen3-235b-a22b", 94, 4096, 64, 4, 128, 12288, 151936)
        }),
        // DeepSeek-V3 Technical Report §4.2 (the training preset `deepseek-v3-like` carries
        // the layers, experts and routing); served with its real attention, MLA: 128 heads with
        // 128-dim no-RoPE query/key and value heads, KV latent 512, RoPE key 64, query latent
        // 1536. DeepSeek-R1 shares the architecture (DeepSeek-R1 report §2).
        "deepseek-v3" | "deepseek-r1" => {
            let mut w = preset("deepseek-v3-like")?;
            w.name = id.clone();
            w.kv_heads = w.heads;
            w.precision = Precision::Bf16;
            ServingModel { work: w, attention: DEEPSEEK_MLA }
        }
        // moonshotai/Kimi-K2-Instruct config.json: the DeepSeek-V3 architecture with 64 heads,
        // 384 routed experts (top-8) of intermediate 2048 plus one shared expert, one leading
        // dense layer (intermediate 18432), vocabulary 163840, MLA 512 + 64 with query latent
        // 1536 (Kimi K2 technical report: 1.04T total, 32B activated).
        "kimi-k2" => ServingModel {
            work: Workload {
                moe: Some(Moe { experts: 384, top_k: 8, expert_ffn: 2048, shared_ffn: 2048, dense_layers: 1, max_nodes_per_token: 0 }),
                ..shape("kimi-k2", 61, 7168, 64, 64, 128, 18432, 163840)
            },
            attention: DEEPSEEK_MLA,
        },
        _ => return None,
    };
    Some(m)
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
    }
}
