//! The catalog of model shapes every subcommand and page uses (`train`, `search`, `serve`, `ep`,
//! `goodput`, compare, the pages): GPT-3, the Megatron-LM GPT family of the calibration data,
//! Llama 3, Qwen2.5/Qwen3 (dense and MoE), Mixtral, DeepSeek-V3 and Kimi-K2. Dense and MoE;
//! MHA, GQA and MLA ([`attention_of`]). Each entry cites where its shape comes from. Old names
//! stay as [`ALIASES`]. [`PRESETS`] is the pages' training menu; [`MODELS`] is every shape.

use super::workload::{gpt, Mlp, Moe, Positions, Precision, Workload};

#[allow(clippy::too_many_arguments)]
fn llama(name: &str, layers: u32, hidden: u32, heads: u32, kv_heads: u32, ffn: u32, vocab: u32, seq: u32, global_batch: u32) -> Workload {
    Workload {
        name: name.to_string(),
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim: 0,
        ffn,
        mlp: Mlp::Swiglu,
        vocab,
        seq,
        global_batch,
        positions: Positions::Rope,
        tied_embeddings: false,
        dropout: false,
        moe: None,
        precision: Precision::Bf16,
    }
}

/// A model shape's one-line description: only where the model's `sources` feature is on (the
/// CLI); the pages, which name models by id (the descriptions, with their citations, were only
/// an option's tooltip there), carry none.
#[cfg(feature = "sources")]
macro_rules! about {
    ($s:literal) => {
        $s
    };
}
#[cfg(not(feature = "sources"))]
macro_rules! about {
    ($s:literal) => {
        ""
    };
}

/// Preset ids with a one-line description, in display order.
pub const PRESETS: [(&str, &str); 19] = [
    ("gpt3-175b", about!("GPT-3 175B (96 x 12288, 96 heads, seq 2048, batch 1536; Brown et al. 2020)")),
    ("gpt-1.7b", about!("Megatron GPT 1.7B (Narayanan et al. 2021, Table 1)")),
    ("gpt-3.6b", about!("Megatron GPT 3.6B (Narayanan et al. 2021, Table 1)")),
    ("gpt-7.5b", about!("Megatron GPT 7.5B (Narayanan et al. 2021, Table 1)")),
    ("gpt-18.4b", about!("Megatron GPT 18.4B (Narayanan et al. 2021, Table 1)")),
    ("gpt-22b", about!("Megatron GPT 22B (Korthikanti et al. 2022, Table 5)")),
    ("gpt-39.1b", about!("Megatron GPT 39.1B (Narayanan et al. 2021, Table 1)")),
    ("gpt-76.1b", about!("Megatron GPT 76.1B (Narayanan et al. 2021, Table 1)")),
    ("gpt-145.6b", about!("Megatron GPT 145.6B (Narayanan et al. 2021, Table 1)")),
    ("gpt-310.1b", about!("Megatron GPT 310.1B (Narayanan et al. 2021, Table 1)")),
    ("gpt-530b", about!("Megatron-Turing NLG 530B shape (Narayanan et al. 2021, Table 1: 529.6B)")),
    ("gpt-1t", about!("Megatron GPT 1T (Narayanan et al. 2021, Table 1: 1008B)")),
    ("llama3-8b", about!("Llama 3 8B (GQA 8 KV heads, SwiGLU 14336, vocab 128256, seq 8192)")),
    ("llama3-70b", about!("Llama 3 70B (80 x 8192, GQA 8 KV heads, SwiGLU 28672)")),
    ("llama3-405b", about!("Llama 3 405B (126 x 16384, GQA 8 KV heads, SwiGLU 53248)")),
    ("mixtral-8x7b", about!("Mixtral 8x7B (32 x 4096, 8 experts top-2, expert FFN 14336)")),
    ("deepseek-v3-like", about!("DeepSeek-V3-like MoE, 671B (61 layers, 256 experts top-8 + 1 shared, FP8; MLA approximated by GQA)")),
    ("gpt-2-1.2b", about!("Megatron-LM README (2020) GPT-2-style 1.2B (24 x 1920, seq 1024)")),
    ("gpt-2-8.3b", about!("Megatron-LM README (2020) GPT-2-style 8.3B (72 x 3072)")),
];

/// Every model shape of the catalog: the training menu ([`PRESETS`]) and the models first added
/// for serving, in display order.
pub const MODELS: [(&str, &str); 23] = [
    PRESETS[0], PRESETS[1], PRESETS[2], PRESETS[3], PRESETS[4], PRESETS[5], PRESETS[6], PRESETS[7], PRESETS[8], PRESETS[9],
    PRESETS[10], PRESETS[11], PRESETS[12], PRESETS[13], PRESETS[14], PRESETS[15], PRESETS[16], PRESETS[17], PRESETS[18],
    ("qwen2.5-72b", about!("Qwen2.5 72B (80 x 8192, GQA 8 KV heads, FFN 29568)")),
    ("qwen3-32b", about!("Qwen3 32B dense (64 x 5120, 64 heads of 128, GQA 8 KV heads)")),
    ("qwen3-235b-a22b", about!("Qwen3-235B-A22B MoE (94 x 4096, 128 experts top-8, GQA 4 KV heads)")),
    ("kimi-k2", about!("Kimi-K2-like 1T MoE (61 layers, 384 experts top-8 + 1 shared, MLA 512 + 64)")),
];

/// Other names of catalog entries (alias, entry): serving's DeepSeek-V3 and -R1 are the
/// training entry's shape (served with MLA, see [`attention_of`]).
pub const ALIASES: [(&str, &str); 2] = [("deepseek-v3", "deepseek-v3-like"), ("deepseek-r1", "deepseek-v3-like")];

/// A model's attention as published: multi-head, grouped-query, or multi-head latent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttentionShape {
    Mha,
    Gqa,
    /// DeepSeek-V2 §2.1: a KV latent of `kv_latent` plus a RoPE key of `rope_dim` per token and
    /// layer; queries through a `q_latent` projection.
    Mla { kv_latent: u32, rope_dim: u32, q_latent: u32 },
}

/// DeepSeek-V3's MLA sizes (DeepSeek-V3 Technical Report §4.2: d_c = 512, d_h^R = 64,
/// d_c' = 1536); Kimi-K2 keeps them (moonshotai/Kimi-K2-Instruct config.json).
const DEEPSEEK_MLA: AttentionShape = AttentionShape::Mla { kv_latent: 512, rope_dim: 64, q_latent: 1536 };

/// The attention of catalog entry `id` (or an alias) as published. The training step models
/// MLA by the GQA approximation its workload carries (see `deepseek-v3-like`); serving uses this.
pub fn attention_of(id: &str) -> Option<AttentionShape> {
    let w = preset(id)?;
    Some(match canonical(id)?.as_str() {
        "deepseek-v3-like" | "kimi-k2" => DEEPSEEK_MLA,
        _ if w.kv_heads > 0 && w.kv_heads < w.heads => AttentionShape::Gqa,
        _ => AttentionShape::Mha,
    })
}

/// The catalog entry `id` names (lowercased, an alias resolved), if any.
fn canonical(id: &str) -> Option<String> {
    let id = id.to_ascii_lowercase();
    let id = ALIASES.iter().find(|(a, _)| *a == id).map_or(id, |(_, e)| e.to_string());
    MODELS.iter().any(|(m, _)| *m == id).then_some(id)
}

/// Ids of every catalog entry (not its aliases).
pub fn preset_ids() -> Vec<&'static str> {
    MODELS.iter().map(|(id, _)| *id).collect()
}

/// Ids of every catalog entry, then every alias: what `--model` accepts.
pub fn model_ids() -> Vec<&'static str> {
    MODELS.iter().map(|(id, _)| *id).chain(ALIASES.iter().map(|(a, _)| *a)).collect()
}

/// Llama 3 8B's conventions (SwiGLU, RoPE, untied embeddings, no dropout, its sequence and
/// batch) with every shape field set by the caller: the models first added for serving.
#[allow(clippy::too_many_arguments)]
fn shape(name: &str, layers: u32, hidden: u32, heads: u32, kv_heads: u32, head_dim: u32, ffn: u32, vocab: u32) -> Workload {
    Workload { layers, hidden, heads, kv_heads, head_dim, ffn, vocab, ..llama(name, 32, 4096, 32, 8, 14336, 128256, 8192, 512) }
}

/// A catalog entry by id or alias (case-insensitive).
pub fn preset(id: &str) -> Option<Workload> {
    let id = canonical(id)?;
    let w = match id.as_str() {
        // Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads, context 2048,
        // batch 3.2M tokens (1536 sequences, as Narayanan et al. 2021 train it).
        "gpt3-175b" => gpt("gpt3-175b", 96, 12288, 96, 1536),
        // Narayanan et al. 2021, Table 1 (layers, hidden, heads, batch size).
        "gpt-1.7b" => gpt("gpt-1.7b", 24, 2304, 24, 512),
        "gpt-3.6b" => gpt("gpt-3.6b", 30, 3072, 32, 512),
        "gpt-7.5b" => gpt("gpt-7.5b", 36, 4096, 32, 512),
        "gpt-18.4b" => gpt("gpt-18.4b", 40, 6144, 48, 1024),
        "gpt-39.1b" => gpt("gpt-39.1b", 48, 8192, 64, 1536),
        "gpt-76.1b" => gpt("gpt-76.1b", 60, 10240, 80, 1792),
        "gpt-145.6b" => gpt("gpt-145.6b", 80, 12288, 96, 2304),
        "gpt-310.1b" => gpt("gpt-310.1b", 96, 16384, 128, 2160),
        "gpt-530b" => gpt("gpt-530b", 105, 20480, 128, 2520),
        "gpt-1t" => gpt("gpt-1t", 128, 25600, 160, 3072),
        // Korthikanti et al. 2022, Table 3: 22B = 48 x 6144, 64 heads.
        "gpt-22b" => gpt("gpt-22b", 48, 6144, 64, 4),
        // Meta, "The Llama 3 Herd of Models" (2024), Table 3; batch: 4M tokens for 8B/70B,
        // 16M tokens (2048 x 8192) for 405B in its main stage.
        "llama3-8b" => llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 512),
        "llama3-70b" => llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 512),
        "llama3-405b" => llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 2048),
        // Jiang et al. 2024, "Mixtral of Experts", Table 1 (vocab 32000); 4096-token
        // training sequences and 1024-sequence batches are this preset's choice.
        "mixtral-8x7b" => Workload {
            moe: Some(Moe { experts: 8, top_k: 2, expert_ffn: 14336, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 }),
            ..llama("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 1024)
        },
        // DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §4.2 and Table 1: 61 layers,
        // hidden 7168, 128 heads, first 3 layers dense (FFN 18432), 256 routed experts of FFN
        // 2048 with top-8 and 1 shared expert, vocab 129280, 4K sequences, batch 15360, FP8.
        // Multi-head latent attention is approximated by grouped-query attention with 128
        // query heads of 128 and 16 KV heads: 264M attention weights per layer against MLA's
        // ~187M (total 676B vs 671B; 42B active vs 37B), attention-core FLOPs ~20% low.
        // Node-limited routing to at most 4 nodes per token (§2.1.2, §3.2.2).
        "deepseek-v3-like" => Workload {
            head_dim: 128,
            kv_heads: 16,
            moe: Some(Moe { experts: 256, top_k: 8, expert_ffn: 2048, shared_ffn: 2048, dense_layers: 3, max_nodes_per_token: 4 }),
            precision: Precision::Fp8,
            ..llama("deepseek-v3-like", 61, 7168, 128, 128, 18432, 129280, 4096, 15360)
        },
        // Megatron-LM README (2020): GPT-2-style models, 1024-token sequences.
        "gpt-2-1.2b" => Workload { seq: 1024, global_batch: 512, ..gpt("gpt-2-1.2b", 24, 1920, 15, 512) },
        "gpt-2-8.3b" => Workload { seq: 1024, global_batch: 512, ..gpt("gpt-2-8.3b", 72, 3072, 24, 512) },
        // Qwen/Qwen2.5-72B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads,
        // intermediate 29568, vocabulary 152064, untied (Qwen2.5 Technical Report, Table 1).
        "qwen2.5-72b" => shape("qwen2.5-72b", 80, 8192, 64, 8, 0, 29568, 152064),
        // Qwen/Qwen3-32B config.json: 64 layers, hidden 5120, 64 heads of 128 (head_dim set
        // apart from hidden / heads = 80), 8 KV heads, intermediate 25600, vocabulary 151936
        // (Qwen3 Technical Report, Table 1).
        "qwen3-32b" => shape("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936),
        // Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads of 128, 4 KV
        // heads, 128 experts with 8 active, expert intermediate 1536, no shared expert, every
        // layer MoE, vocabulary 151936 (Qwen3 Technical Report, Table 2: 235B total, 22B active).
        "qwen3-235b-a22b" => Workload {
            moe: Some(Moe { experts: 128, top_k: 8, expert_ffn: 1536, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 }),
            ..shape("qwen3-235b-a22b", 94, 4096, 64, 4, 128, 12288, 151936)
        },
        // moonshotai/Kimi-K2-Instruct config.json: the DeepSeek-V3 architecture with 64 heads,
        // 384 routed experts (top-8) of intermediate 2048 plus one shared expert, one leading
        // dense layer (intermediate 18432), vocabulary 163840, MLA 512 + 64 with query latent
        // 1536 (Kimi K2 technical report: 1.04T total, 32B activated). Its MLA is carried as
        // 64 KV heads of 128 (the serving model replaces it by MLA, see `attention_of`).
        "kimi-k2" => Workload {
            moe: Some(Moe { experts: 384, top_k: 8, expert_ffn: 2048, shared_ffn: 2048, dense_layers: 1, max_nodes_per_token: 0 }),
            ..shape("kimi-k2", 61, 7168, 64, 64, 128, 18432, 163840)
        },
        _ => return None,
    };
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_listed() {
        for (id, _) in PRESETS {
            let w = preset(id).unwrap_or_else(|| panic!("{id}"));
            w.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(w.name, id);
        }
        assert!(preset("GPT3-175B").is_some());
        assert!(preset("nope").is_none());
        for (id, _) in MODELS {
            preset(id).unwrap_or_else(|| panic!("{id}")).validate().unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(attention_of(id).is_some(), "{id}");
        }
        assert_eq!(preset("deepseek-v3"), preset("deepseek-v3-like"));
        assert_eq!(attention_of("deepseek-r1"), Some(DEEPSEEK_MLA));
        assert_eq!(attention_of("llama3-70b"), Some(AttentionShape::Gqa));
        assert_eq!(attention_of("gpt3-175b"), Some(AttentionShape::Mha));
    }

    #[test]
    fn megatron_family_sizes_match_table_1() {
        // Narayanan et al. 2021, Table 1, parameter counts in billions.
        for (id, want) in [
            ("gpt-1.7b", 1.7),
            ("gpt-3.6b", 3.6),
            ("gpt-7.5b", 7.5),
            ("gpt-18.4b", 18.4),
            ("gpt-39.1b", 39.1),
            ("gpt-76.1b", 76.1),
            ("gpt-145.6b", 145.6),
            ("gpt-310.1b", 310.1),
            ("gpt-530b", 529.6),
            ("gpt-1t", 1008.0),
        ] {
            let p = preset(id).unwrap().params() as f64 / 1e9;
            assert!((p / want - 1.0).abs() < 0.03, "{id}: {p} vs {want}");
        }
        let p = preset("deepseek-v3-like").unwrap().params() as f64 / 1e9;
        assert!((p / 671.0 - 1.0).abs() < 0.03, "deepseek: {p}");
    }
}
