//! Accuracy of the training-step model against published throughput (validation/training.csv,
//! validation/training-2.csv, validation/training-3.csv, validation/training-moe.csv and
//! validation/training-amd.csv, validation/training-blackwell.csv): every row the CLI's flags can
//! express, compared like with like (tokens/s where the source gives a time or a token rate; otherwise TFLOP/s per GPU in
//! the source's own FLOP convention). Asserts a median absolute error of at most 8% per
//! framework family, and that the error bands the model ships (`training/bands.csv`) are the
//! ones this test computes.
//!
//! Prints the per-row table; with `FABRICSCOPE_WRITE_DOCS=1` also writes
//! `docs/training-accuracy.md` and `crates/model/src/training/bands.csv`:
//!
//! ```text
//! FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test training_accuracy -- --nocapture
//! ```

mod common;
#[path = "common/calibration.rs"]
mod calibration;
#[path = "training_accuracy/doc.rs"]
mod doc;
use doc::render_doc;

use fabricscope_model::catalog::{GpuKind, GpuSpec, NicKind, ScaleUp};
use fabricscope_model::topology::Cluster;
use fabricscope_model::training::bands::{band_table, BandRow, ErrorClass};
use fabricscope_model::training::workload::gpt;
use fabricscope_model::training::{
    preset, search, Constraints, Evaluator, Framework, Mlp, Moe, Parallel, Positions, Precision, Recompute, SearchOptions, StepReport, Workload,
};
use fabricscope_model::units::GBps;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The A100 of 2020's DGX A100: 40 GB of HBM2 at 1,555 GB/s (NVIDIA A100 datasheet, SXM4
/// 40GB); the 80 GB part (HBM2e, 2,039 GB/s) shipped from November 2020. Same SMs and clocks.
fn a100_40gb() -> &'static GpuSpec {
    static SPEC: OnceLock<GpuSpec> = OnceLock::new();
    SPEC.get_or_init(|| GpuSpec { name: "A100-SXM4 40GB", hbm_gb: 40.0, hbm_bw: GBps(1555.0), ..*GpuKind::A100.spec() })
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Row<'a> {
    cols: &'a HashMap<String, usize>,
    v: &'a [String],
}

impl Row<'_> {
    fn s(&self, k: &str) -> &str {
        self.cols.get(k).and_then(|i| self.v.get(*i)).map_or("", |s| s.trim())
    }
    fn u(&self, k: &str) -> Option<u32> {
        self.s(k).parse::<f64>().ok().filter(|x| *x >= 1.0 && x.fract() == 0.0).map(|x| x as u32)
    }
    fn f(&self, k: &str) -> Option<f64> {
        self.s(k).parse().ok()
    }
}

/// What a row's measurement is compared on.
#[derive(Clone, Copy, PartialEq)]
enum Metric {
    /// Tokens per second (from a token rate or an iteration time).
    Tokens,
    /// TFLOP/s per GPU counting the recompute forward (Narayanan et al. eq. 3).
    Hardware,
    /// TFLOP/s per GPU of model FLOPs (no recompute), the papers' convention.
    Model,
    /// TFLOP/s per GPU as Megatron-LM's own counter prints it since March 2025: model FLOPs
    /// with the causal attention core halved ("Only half of the attention matrix is non-zero
    /// and needs to be multiplied with V", `num_floating_point_operations` in
    /// megatron/training/training.py, Megatron-LM commit 8873b55d, 2025-03-06; kept as
    /// "causal mask (only half of the mask is non-zero)" since).
    ModelCausal,
}

/// One evaluated row.
struct Outcome {
    file: &'static str,
    line: usize,
    source: &'static str,
    model: String,
    gpus: u32,
    gpu: &'static str,
    class: ErrorClass,
    par: Parallel,
    filled: Vec<&'static str>,
    metric: Metric,
    measured: f64,
    predicted: f64,
    report: StepReport,
    note: String,
}

impl Outcome {
    fn error(&self) -> f64 {
        self.predicted / self.measured - 1.0
    }
}

/// Megatron's FLOP conventions over a step of `w` (Korthikanti et al. 2022 §6 for model
/// FLOPs; Narayanan et al. 2021 eq. 3 adds the recompute forward): the workload's own counts,
/// which reproduce both formulas exactly for GPT (workload.rs tests).
fn convention_flops(w: &Workload, metric: Metric) -> f64 {
    match metric {
        Metric::Hardware => w.hardware_flops_per_step(Recompute::Full),
        Metric::ModelCausal => w.executed_flops_per_step(Recompute::None, true),
        _ => w.model_flops_per_step(),
    }
}

/// The cluster a row ran on, in the model's catalog.
fn cluster(gpu: GpuKind, gpus: u32, nic: NicKind, nics_per_node: u32) -> Cluster {
    if matches!(gpu, GpuKind::Gb200 | GpuKind::Gb300) {
        // DGX GB200/GB300 NVL72: 4-GPU compute trays in 72-GPU NVLink racks, one scale-out NIC
        // per GPU (GB200: ConnectX-7 400G; GB300: ConnectX-8 800G); racks filled as evenly as
        // whole trays allow (256 GPUs: four racks of 64).
        return Cluster { gpu, nodes: gpus / 4, gpus_per_node: 4, scale_up: ScaleUp::Nvl72, nics_per_node: 4, nic, ..Cluster::default() };
    }
    let per = gpus.min(if gpu == GpuKind::V100 { 16 } else { 8 });
    let scale_up = match gpu {
        // AMD Instinct platforms: 8 GPUs on the Infinity Fabric (xGMI) mesh.
        GpuKind::Mi300x | GpuKind::Mi325x | GpuKind::Mi355x => ScaleUp::Xgmi,
        GpuKind::V100 => ScaleUp::NvSwitch { gen: 2 },
        GpuKind::A100 => ScaleUp::NvSwitch { gen: 3 },
        GpuKind::B200 | GpuKind::B300 => ScaleUp::NvSwitch { gen: 5 },
        _ => ScaleUp::NvSwitch { gen: 4 },
    };
    Cluster {
        gpu,
        nodes: gpus / per,
        gpus_per_node: per,
        scale_up,
        nics_per_node: if gpu == GpuKind::V100 { 0 } else { nics_per_node.min(per) },
        nic,
        ..Cluster::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn llama_like(name: &str, layers: u32, hidden: u32, heads: u32, kv: u32, ffn: u32, vocab: u32) -> Workload {
    Workload {
        name: name.into(),
        kv_heads: kv,
        ffn,
        mlp: Mlp::Swiglu,
        vocab,
        positions: Positions::Rope,
        tied_embeddings: false,
        dropout: false,
        ..gpt(name, layers, hidden, heads, 1)
    }
}

/// The workload of a row: its shape from the row where given, else from the model's public
/// configuration (cited), else `Err` (not expressible).
fn workload(r: &Row, source: &str) -> Result<Workload, String> {
    let name = r.s("model");
    let up = name.to_ascii_uppercase();
    let seq = r.u("seq_len").ok_or("no sequence length")?;
    let batch = r.u("global_batch").ok_or("global batch not stated (OPT: '2M tokens' over 992 GPUs, TP degree not given)")?;
    let moe = |experts, top_k, expert_ffn| Some(Moe { experts, top_k, expert_ffn, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 });
    let mut w = if up.contains("LLAMA3") || up.contains("LLAMA 3") {
        // Llama 3 (Meta 2024, Table 3) / Llama 3.1: the presets.
        let id = if up.contains("405") { "llama3-405b" } else if up.contains("70") { "llama3-70b" } else { "llama3-8b" };
        preset(id).ok_or("preset")?
    } else if up.contains("LLAMA2") {
        // Llama 2 (Touvron et al. 2023, Table 1 and the released configs): 32000 vocab.
        match () {
            _ if up.contains("70B") => llama_like(name, 80, 8192, 64, 8, 28672, 32000),
            _ if up.contains("13B") => llama_like(name, 40, 5120, 40, 40, 13824, 32000),
            // The 34B of the family (Code Llama 34B's config.json: 48 x 8192, 64 heads, 8 KV
            // heads, FFN 22016), as IBM's fms-fsdp "llama2 34b" variant.
            _ if up.contains("34B") => llama_like(name, 48, 8192, 64, 8, 22016, 32000),
            _ => llama_like(name, 32, 4096, 32, 32, 11008, 32000),
        }
    } else if up.contains("NEMOTRON-340B") {
        // Nemotron-4 340B (NVIDIA 2024, Table 1): 96 x 18432, 96 heads, 8 KV heads, squared-ReLU
        // MLP of 73728 (two matrices, as GeLU), vocab 256000, RoPE, untied.
        Workload { mlp: Mlp::Gelu, ..llama_like(name, 96, 18432, 96, 8, 73728, 256000) }
    } else if up.contains("NEMOTRON-8B") {
        // Nemotron-3 8B (NVIDIA 2023 model card): 32 x 4096, 32 heads, squared-ReLU MLP 16384.
        Workload { mlp: Mlp::Gelu, ..llama_like(name, 32, 4096, 32, 32, 16384, 256000) }
    } else if up.contains("NEMOTRON-22B") {
        return Err("Nemotron-22B's shape is not published (internal model)".into());
    } else if up.contains("MIXTRAL 8X22B") {
        // Mixtral 8x22B (mistralai/Mixtral-8x22B-v0.1 config.json; Primus
        // mixtral_8x22B_v0.1.yaml): 56 x 6144, 48 heads, 8 KV heads, 8 experts top-2 of FFN
        // 16384, vocab 32768.
        Workload { moe: moe(8, 2, 16384), ..llama_like(name, 56, 6144, 48, 8, 16384, 32768) }
    } else if up.contains("MIXTRAL 8X7B") {
        // Mixtral 8x7B (Jiang et al. 2024, Table 1): the preset.
        preset("mixtral-8x7b").ok_or("preset")?
    } else if up.contains("NEMOTRON_3") || up.contains("NEMOTRON V3") {
        return Err("Nemotron 3 is a hybrid Mamba-2/attention MoE: the model has no state-space layers".into());
    } else if up.contains("QWEN3-NEXT") {
        return Err("Qwen3-Next mixes Gated DeltaNet (linear attention) layers: not a layer kind the model has".into());
    } else if up.contains("DEEPSEEKV4") {
        return Err("DeepSeek-V4 Flash's shape is not in a public configuration the project has".into());
    } else if up.contains("DEEPSEEKV3") || up.contains("DEEPSEEK-V3") || up.contains("DEEPSEEK V3") {
        // DeepSeek-V3 671B: the preset (technical report Table 1; MLA approximated by GQA).
        preset("deepseek-v3-like").ok_or("preset")?
    } else if up.contains("KIMI") {
        // Kimi K2 (moonshotai/Kimi-K2-Instruct config.json): DeepSeek-V3's architecture with
        // 64 MLA heads, 384 routed experts top-8 of FFN 2048 plus one shared, the first layer
        // dense (FFN 18432), vocab 163840, no group-limited routing (n_group 1). MLA
        // approximated by GQA as the DeepSeek preset does (head dim 128, 16 KV heads).
        Workload {
            head_dim: 128,
            kv_heads: 16,
            moe: Some(Moe { experts: 384, top_k: 8, expert_ffn: 2048, shared_ffn: 2048, dense_layers: 1, max_nodes_per_token: 0 }),
            ..llama_like(name, 61, 7168, 64, 16, 18432, 163840)
        }
    } else if up.contains("GPT-OSS 20B") {
        // gpt-oss-20b (config.json): 24 layers, hidden 2880, 64 query heads of 64, 8 KV heads,
        // 32 experts top-4 of FFN 2880, vocab 201088 (sliding windows costed as full).
        Workload { head_dim: 64, moe: moe(32, 4, 2880), ..llama_like(name, 24, 2880, 64, 8, 2880, 201088) }
    } else if up.contains("GPT OSS 120B") || up.contains("GPT-OSS 120B") {
        // gpt-oss-120b (OpenAI 2025 model card / config.json): 36 layers, hidden 2880, 64 query
        // heads of 64, 8 KV heads, 128 experts top-4 of FFN 2880, vocab 201088. Its
        // alternating 128-token sliding-window attention is costed as full attention.
        Workload { head_dim: 64, moe: moe(128, 4, 2880), ..llama_like(name, 36, 2880, 64, 8, 2880, 201088) }
    } else if up.contains("QWEN3_30B") || up.contains("QWEN3 MOE 30B") {
        // Qwen3-30B-A3B (Qwen 2025, config.json): 48 x 2048, 32 heads of 128, 4 KV heads,
        // 128 experts top-8 of FFN 768, vocab 151936.
        Workload { head_dim: 128, moe: moe(128, 8, 768), ..llama_like(name, 48, 2048, 32, 4, 6144, 151936) }
    } else if up.contains("QWEN3_235B") || up.contains("QWEN3-235B") {
        // Qwen3-235B-A22B (config.json): 94 x 4096, 64 heads of 128, 4 KV heads, 128 experts
        // top-8 of FFN 1536, vocab 151936.
        Workload { head_dim: 128, moe: moe(128, 8, 1536), ..llama_like(name, 94, 4096, 64, 4, 12288, 151936) }
    } else if up.contains("GPT3-20B") {
        // NeMo's gpt3 20B config: 44 x 6144, 48 heads.
        gpt(name, 44, 6144, 48, 1)
    } else {
        let layers = r.u("layers").ok_or("layers not stated")?;
        let hidden = r.u("hidden").ok_or("hidden not stated")?;
        let heads = r.u("heads").ok_or("heads not stated")?;
        let mut w = gpt(name, layers, hidden, heads, 1);
        let notes = r.s("notes");
        if let Some(v) = notes.split("vocab ").nth(1).and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next()).and_then(|s| s.parse().ok()) {
            w.vocab = v;
        }
        if source == "BLOOM" {
            // BLOOM: vocab 250880, ALiBi (no position table; costed as rotary-free learned).
            w.vocab = 250880;
        }
        w
    };
    w.name = name.to_string();
    w.seq = seq;
    w.global_batch = batch;
    let precision = r.s("precision").to_ascii_uppercase();
    // FP8 recipes (per-tensor, blockwise, MXFP8) all run FP8 tensor-core GEMMs; NVFP4 ones
    // (Transformer Engine's NVFP4 recipe) FP4 GEMMs.
    w.precision = match () {
        _ if precision.contains("FP4") => Precision::Nvfp4,
        _ if precision.contains("FP8") => Precision::Fp8,
        _ => Precision::Bf16,
    };
    Ok(w)
}

/// Who published the row, shortened.
fn source_of(r: &Row) -> &'static str {
    let s = r.s("source");
    if s.contains("Automodel") {
        "NeMo Automodel"
    } else if s.starts_with("Primus projection blog") {
        "AMD Primus-Megatron"
    } else if s.starts_with("MLCommons MLPerf Training") {
        "MLPerf Training (AMD)"
    } else if s.starts_with("NVIDIA/Megatron-LM discussion") {
        "Megatron-LM DeepSeek-V3 GB200 guide"
    } else if s.starts_with("yanring/Megatron-MoE-ModelZoo") {
        "Megatron-MoE-ModelZoo"
    } else if s.starts_with("Narayanan") {
        "Narayanan 2021"
    } else if s.starts_with("Korthikanti") {
        "Korthikanti 2022"
    } else if s.contains("Megatron-LM README (2020") {
        "Megatron README 2020"
    } else if s.contains("Megatron-LM README") {
        "Megatron-Core README (H100)"
    } else if s.starts_with("Jiang") {
        if r.s("notes").starts_with("MegaScale") { "MegaScale" } else { "MegaScale's Megatron-LM" }
    } else if s.starts_with("Llama") {
        "Llama 3"
    } else if s.contains("NeMo performance") {
        "NeMo 24.07"
    } else if s.contains("Megatron-Bridge") {
        "Megatron-Bridge"
    } else if s.starts_with("BigScience") {
        "BLOOM"
    } else if s.contains("megatron/core/transformer/moe") {
        "Megatron-Core MoE README"
    } else if s.contains("fms-fsdp") {
        "IBM fms-fsdp"
    } else {
        "OPT"
    }
}

fn topo_is_amd(gpu: GpuKind) -> bool {
    gpu.spec().arch.is_amd()
}

fn number_after(text: &str, key: &str) -> Option<u32> {
    text.split(key).nth(1).and_then(|s| s.trim_start().split(|c: char| !c.is_ascii_digit()).next()).and_then(|s| s.parse().ok())
}

fn evaluate_row(file: &'static str, line: usize, r: &Row) -> Result<Outcome, String> {
    evaluate_row_with(file, line, r, None, None)
}

/// `evaluate_row` with the MoE host time of a NeMo release without CUDA graphs set to
/// `moe_host_us` (for `fit_moe_host`) and the NVFP4 GEMM share set to `nvfp4_share` (for
/// `fit_nvfp4_share`).
fn evaluate_row_with(file: &'static str, line: usize, r: &Row, moe_host_us: Option<f64>, nvfp4_share: Option<f64>) -> Result<Outcome, String> {
    let source = source_of(r);
    let gpu_field = r.s("gpu_type");
    let gpu = if gpu_field.starts_with("MI300X") {
        GpuKind::Mi300x
    } else if gpu_field.starts_with("MI325X") {
        GpuKind::Mi325x
    } else if gpu_field.starts_with("MI355X") {
        GpuKind::Mi355x
    } else if gpu_field.contains("V100") {
        GpuKind::V100
    } else if gpu_field.starts_with("GB300") {
        GpuKind::Gb300
    } else if gpu_field.starts_with("GB200") {
        GpuKind::Gb200
    } else if gpu_field.starts_with("B300") {
        GpuKind::B300
    } else if gpu_field.starts_with("B200") {
        GpuKind::B200
    } else if gpu_field.contains("H100") {
        GpuKind::H100
    } else if gpu_field.contains("A100") || gpu_field.contains("Ampere") {
        GpuKind::A100
    } else {
        return Err(format!("GPU {gpu_field} not in the catalog"));
    };
    let gpus = r.u("gpus").ok_or("no GPU count")?;
    if source == "OPT" {
        return Err("TP degree and batch not stated; 992 GPUs give no DP that divides a 2M-token batch".into());
    }
    let notes = r.s("notes");
    if source == "IBM fms-fsdp" && notes.contains("HSDP") {
        return Err("hybrid sharding (FSDP within a node, replicated across nodes) is not a layout the model expresses".into());
    }
    let table = r.s("table_ref");
    // The guide's history: its steps before CUDA graphs are the software of the NeMo releases
    // that lacked them (`--framework nemo --release`): the NCCL all-to-all steps as 25.04 (and 25.07 off GB200),
    // "Enable DeepEP" (after the MoE fusions) as 25.09. Between CUDA graphs and the final step
    // the releases are not told apart; the final step is compared as today's.
    let guide_release = match () {
        _ if source != "Megatron-LM DeepSeek-V3 GB200 guide" || table.contains("final") => None,
        _ if table.contains("\"Baseline\"") || table.contains("Router fusion") => Some("nemo-25.07"),
        _ if table.contains("Enable DeepEP") => Some("nemo-25.07"),
        _ => return Err("a software step between CUDA graphs and the final one (the guide's optimisation history), which no release input tells apart; its final step is compared".into()),
    };
    if notes.contains("no forced balance") {
        return Err("learned routing without forced balance: its skew is not measured, and the model routes as the benchmarks force (uniform at random)".into());
    }
    let zero3 = table.contains("ZeRO-3");
    let w = workload(r, source)?;
    let mut filled = Vec::new();
    let cp = r.u("cp").unwrap_or(1);
    if w.moe.is_some() && r.s("ep").is_empty() && file == "training-moe.csv" {
        return Err("expert-parallel size not stated (\"-\" in the source's table)".into());
    }
    let ep = r.u("ep").unwrap_or(1);
    let (tp, pp) = match (r.u("tp"), r.u("pp")) {
        (Some(t), Some(p)) => (t, p),
        _ if source == "Narayanan 2021" => {
            // Table 2 gives only the model-parallel size: TP 8 inside the DGX node (the
            // paper's practice), PP the rest.
            let mp = gpus / r.u("dp").ok_or("dp")?;
            filled.push("tp");
            (8, mp / 8)
        }
        _ => {
            // The README's strong-scaling endpoints: the 177B row of its table (TP 8, PP 6).
            filled.push("tp");
            filled.push("pp");
            (8, 6)
        }
    };
    let dp = gpus / (tp * pp * cp).max(1);
    // What the source ran: the framework release and its settings.
    let (fw_id, recompute, zero, sp): (&str, Option<Recompute>, Option<u8>, bool) = match source {
        "Narayanan 2021" if zero3 => ("deepspeed-2021", Some(Recompute::Full), Some(3), false),
        "Narayanan 2021" | "Megatron README 2020" => ("megatron-lm-2021", Some(Recompute::Full), Some(0), false),
        "Korthikanti 2022" => {
            let sel = notes.contains("selective");
            ("megatron-lm-2022", Some(if sel { Recompute::Selective } else { Recompute::Full }), Some(0), sel)
        }
        // MegaScale's baseline is Megatron-LM of mid-2023 (commit 285068c8): SP, selective
        // recompute, distributed optimizer.
        "MegaScale's Megatron-LM" => ("megatron-lm-2022", Some(Recompute::Selective), Some(1), true),
        "MegaScale" => ("megatron-core", None, Some(1), true),
        "BLOOM" => ("megatron-deepspeed", Some(Recompute::Full), Some(1), false),
        // Meta's stack (Llama 3 §3.3.2): FSDP sharding optimizer states and gradients,
        // parameters kept after the forward (ZeRO-2 style), FP32 accumulation with one
        // reduce-scatter per step, flexible interleaving; no activation checkpointing at 8K.
        "Llama 3" => ("meta-llama3", Some(if w.seq > 8192 { Recompute::Selective } else { Recompute::None }), Some(2), true),
        // FSDP1 full shard, eager, SDPA FlashAttention-2 (fms-fsdp README): the eager FSDP
        // behaviour; "activation checkpointing True" does not say which blocks.
        "IBM fms-fsdp" => ("pytorch-fsdp2", if notes.contains("checkpointing False") { Some(Recompute::None) } else { None }, Some(3), false),
        // Megatron-Bridge's Qwen3 235B H100 preset overlaps the MoE all-to-all with compute
        // (scripts/performance/configs/qwen/qwen3_workload_base_configs.py:
        // `moe_a2a_overlap=True`, TP 2, PP 8, VP 4, EP 32, GBS 2048 on 256 GPUs).
        // (Earlier Blackwell recipes left it off; the 26.08 full-iteration MXFP8 ones below set it.)
        "Megatron-Bridge" if w.moe.is_some() && r.s("model").contains("235B") && gpu == GpuKind::H100 => ("megatron-core-a2a-overlap", None, Some(1), true),
        // The 26.08 GB200/GB300 MXFP8 runs of DeepSeek-V3, Qwen3 and GPT-OSS 120B use the
        // full-iteration MXFP8 recipes (Megatron-Bridge perf_recipes: deepseek/common.py
        // `_enable_deepseek_full_iteration_mxfp8`, qwen/common.py
        // `_enable_hybridep_full_iteration_mxfp8`, gpt_oss/common.py
        // `_apply_gpt_oss_120b_full_iter_fp8mx_configs`; added in June 2026, PRs #3983, #4226,
        // #4211, #4173), each setting `overlap_moe_expert_parallel_comm = True`; the recipes'
        // layouts are the rows' (e.g. DeepSeek-V3 GB300 PP 2, VP 8, EP 32, GBS 4096, MBS 1).
        // The 25.09 DeepSeek-V3 recipes ran without CUDA graphs on every system (Megatron-Bridge
        // v0.1.0rc4 scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml:
        // `cuda_graphs: false`); its Qwen3 recipes captured graphs on GB200 (token-drop).
        "Megatron-Bridge" if r.s("source").contains("NeMo 25.09") && r.s("model").to_ascii_uppercase().contains("DEEPSEEKV3") => ("nemo-25.09", None, Some(1), true),
        "Megatron-Bridge"
            if w.moe.is_some()
                && r.s("source").contains("NeMo 26.08")
                && matches!(gpu, GpuKind::Gb200 | GpuKind::Gb300)
                && r.s("precision").to_ascii_uppercase().contains("MXFP8")
                && ["DEEPSEEKV3", "QWEN3_", "GPT OSS 120B"].iter().any(|m| r.s("model").to_ascii_uppercase().contains(m)) =>
        {
            ("megatron-core-a2a-overlap", None, Some(1), true)
        }
        // NeMo Automodel's PyTorch backend: FSDP2 over the data-parallel ranks with
        // Transformer Engine kernels (fused elementwise) and DeepEP for the expert dispatch.
        "NeMo Automodel" => ("pytorch-fsdp2-compiled", None, Some(3), false),
        // Megatron-Core with the settings the row states: the 1F1B all-to-all overlap,
        // full recompute, Megatron-FSDP.
        "Megatron-MoE-ModelZoo" | "Megatron-LM DeepSeek-V3 GB200 guide" => {
            let overlap = notes.contains("A2A overlap on") || notes.contains("+1F1B A2A overlap");
            // Recompute as the row states it. Megatron-Core's fine-grained recompute
            // (`--recompute-granularity selective --recompute-modules ...`: layernorm, moe_act,
            // mlp, moe, mla_up_proj) reruns norms, activations or MLP blocks, never the attention
            // core, which is what the model's selective recompute reruns; their cost is not
            // itemised, so such rows are taken without recompute (the MoE block's forward that
            // "moe" reruns is left out). "No recompute listed" is none.
            let modules = ["recompute norm", "recompute layernorm", "recompute moe_act", "recompute mlp"].iter().any(|m| notes.contains(m));
            let rc = match () {
                _ if notes.contains("full recompute") => Some(Recompute::Full),
                _ if modules || notes.contains("no recompute listed") => Some(Recompute::None),
                _ => None,
            };
            (guide_release.unwrap_or(if overlap { "megatron-core-a2a-overlap" } else { "megatron-core" }), rc, Some(if notes.contains("FSDP on") { 3 } else { 1 }), true)
        }
        _ => {
            // Megatron-Core (README, NeMo, Megatron-Bridge): distributed optimizer, or
            // Megatron-FSDP where the row says FSDP=N.
            let fsdp = number_after(notes, "FSDP=").is_some_and(|n| n > 0);
            // Recompute where the row states its recipe's: Megatron-Bridge's Blackwell Llama
            // recipes recompute nothing (base configs set `recompute_granularity = None`;
            // perf_recipes/llama/{b200,gb200,gb300} add none; the FSDP ones offload 5-40 layers'
            // activations to host memory instead, `cpu_offloading_num_layers`, which the model
            // does not express: such rows may come out over HBM, noted).
            let rc = notes.contains("recompute none (the recipe's").then_some(Recompute::None);
            ("megatron-core", rc, Some(if fsdp { 3 } else { 1 }), true)
        }
    };
    let mut fw = Framework::from_id(fw_id).unwrap_or_default();
    if let Some(h) = moe_host_us.filter(|_| fw_id == "nemo-25.07" || fw_id == "nemo-25.09") {
        fw.moe_layer_host_us = h;
    }
    if let Some(share) = nvfp4_share {
        fw.nvfp4_share = share;
    }
    // The token dispatcher the row states (DeepEP, HybridEP), or that its Megatron-Bridge recipe
    // sets: `moe_token_dispatcher_type = "flex"` in perf_recipes/{deepseek,kimi,gpt_oss} for
    // the Blackwell systems (deepseek/b200 with backend "deepep", the rest "hybridep").
    // Qwen3 30B-A3B's configs set the flex dispatcher with HybridEP on H100 (Megatron-Bridge PR
    // #2477, 2026-02-23: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
    // QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_*, with qwen3_llm_pretrain.py setting
    // `moe_token_dispatcher_type = "flex"`) and on every Blackwell system; Qwen3 235B-A22B on
    // GB200, GB300 and B300 (PR #3490 for B300), while its B200 and H100 configs keep
    // "alltoall". It only matters where EP crosses nodes (Qwen3 30B at EP 16 on two H100 nodes).
    let up_model = r.s("model").to_ascii_uppercase();
    let blackwell = matches!(gpu, GpuKind::B200 | GpuKind::B300 | GpuKind::Gb200 | GpuKind::Gb300);
    let flex_recipe = source == "Megatron-Bridge"
        && ((blackwell && ["DEEPSEEK", "KIMI", "GPT OSS"].iter().any(|m| up_model.contains(m)))
            || up_model.contains("QWEN3_30B")
            || (up_model.contains("QWEN3_235B") && matches!(gpu, GpuKind::B300 | GpuKind::Gb200 | GpuKind::Gb300)));
    fw.ep_node_dispatch = notes.contains("DeepEP") || notes.contains("HybridEP") || flex_recipe;
    if source == "NeMo Automodel" {
        // Its benchmark configs (NVIDIA-NeMo/Automodel examples/benchmark/configs/*_te_deepep.yaml)
        // set `backend: attn: te`: Transformer Engine's DotProductAttention, i.e. cuDNN's fused
        // attention, a Hopper-generation kernel rather than SDPA's FlashAttention-2; and its MoE
        // parallelizer wraps blocks with `reshard_after_forward=False` (the default of
        // nemo_automodel/components/moe/parallelizer.py, set explicitly in deepseek_v3_te_deepep.yaml).
        fw.hopper_attention = true;
        fw.reshard_after_forward = false;
    }
    if notes.contains("FP16 mixed precision") {
        // BLOOM's benchmarks before its BF16 optimizer: FP16 gradients, accumulated in 16 bits.
        fw.fp32_grads = false;
    }
    let interleave = number_after(notes, "chunks=")
        .or_else(|| number_after(notes, "(VP)="))
        .or_else(|| number_after(notes, "VP="))
        .or_else(|| number_after(notes, "VPP="))
        .or_else(|| number_after(notes, "VPP "))
        .or_else(|| number_after(notes, "with ").filter(|_| notes.contains("chunks")))
        .or(if source.starts_with("Megatron README") { Some(1) } else { None });
    let mb = r.u("micro_batch");
    if mb.is_none() {
        filled.push("mb");
    }
    if interleave.is_none() {
        filled.push("v");
    }
    if recompute.is_none() {
        filled.push("rc");
    }
    // The expert TP is left to the model's default, 1: Megatron-Bridge's MoE presets fold the
    // experts with it (every MoE `WorkloadBaseConfig` sets `expert_tensor_parallel_size=1`),
    // the ModelZoo and the GB200 guide state ETP 1, and no other MoE row has TP > 1.
    let fixed = Constraints { tp: Some(tp), pp: Some(pp), dp: Some(dp), cp: Some(cp), ep: Some(ep), expert_tp: None, micro_batch: mb, interleave, recompute, zero };
    let (nic, nics) = match source {
        // DGX B300 and DGX GB300: ConnectX-8 SuperNICs, 800 Gb/s per GPU.
        _ if matches!(gpu, GpuKind::B300 | GpuKind::Gb300) => (NicKind::IbXdr, 8),
        // Meta's RoCE fabric, 400 Gb/s per GPU.
        "Llama 3" => (NicKind::Roce400, 8),
        // AMD's runs do not state their NICs: taken as one 400 Gb/s RoCE NIC per GPU (the
        // Pollara 400 / ConnectX-7 class of AMD's Instinct reference nodes, an assumption;
        // the dense rows are single-node or pure DP/FSDP, where it moves little).
        _ if topo_is_amd(gpu) => (NicKind::Roce400, 8),
        // Jean Zay's A100 nodes: 4 Omni-Path 100 Gb/s links, i.e. the bandwidth of 2 HDR ports.
        "BLOOM" => (NicKind::IbHdr, 2),
        // DGX H100; DGX B200 (8 ConnectX-7 400G, DGX B200 user guide, as the dgx-b200-superpod
        // preset); DGX GB200 NVL72 (one ConnectX-7 400G per GPU).
        _ if matches!(gpu, GpuKind::H100 | GpuKind::B200 | GpuKind::Gb200) => (NicKind::IbNdr, 8),
        _ => (NicKind::IbHdr, 8),
    };
    let mut topo = cluster(gpu, gpus, nic, nics).topology().map_err(|e| e.to_string())?;
    // The 2020 README ran on DGX A100s of 2020 (40 GB); the papers state 80 GB.
    let a100_40 = gpu == GpuKind::A100 && source == "Megatron README 2020";
    if a100_40 {
        topo.gpu = a100_40gb();
    }
    let mut ev = Evaluator::new(&topo, &w, fw).map_err(|e| e.to_string())?;
    // The search offers interleaving only where it splits the layers evenly; an unstated
    // interleave over an uneven split (Llama 3 405B: 126 layers on 16 stages) is searched here.
    // A row that says "interleaved" (Llama 3) is searched over interleaved schedules only.
    let first_v = if notes.contains("interleaved PP") { 2 } else { 1 };
    let vs: Vec<Option<u32>> = if interleave.is_none() && !w.layers.is_multiple_of(pp) { (first_v..=8).map(Some).collect() } else { vec![interleave] };
    let mut best: Option<StepReport> = None;
    // A run the source reports did fit: when the memory model says no candidate fits, the
    // closest one is compared and the overshoot is shown in the row's note.
    let mut unfit: Option<StepReport> = None;
    let mut last_err = String::new();
    for v in vs {
        let opts = SearchOptions { top: 1, fixed: Constraints { interleave: v, ..fixed }, sequence_parallel: sp, ..SearchOptions::default() };
        match search(&mut ev, &opts) {
            Ok(res) => match res.best.into_iter().next() {
                Some(b) if best.as_ref().is_none_or(|x| b.step_time_s < x.step_time_s) => best = Some(b),
                Some(_) => {}
                None => match res.closest_unfit {
                    Some(c) if unfit.as_ref().is_none_or(|x| c.step_time_s < x.step_time_s) => unfit = Some(c),
                    Some(_) => {}
                    None => last_err = "no layout fits".into(),
                },
            },
            Err(e) => last_err = e.to_string(),
        }
    }
    let report = best.or(unfit).ok_or(last_err)?;
    // Like with like: a token rate or iteration time where the source gives one (independent
    // of FLOP conventions), else TFLOP/s in the source's convention.
    let tokens = r.f("tokens_per_s_per_gpu").map(|t| t * gpus as f64).or(r.f("tokens_per_s")).or(r.f("step_time_s").map(|s| w.tokens_per_step() as f64 / s));
    let metric_field = r.s("utilization_metric").to_ascii_lowercase();
    let (metric, measured) = match tokens {
        Some(t) => (Metric::Tokens, t),
        None => {
            // Megatron-MoE-ModelZoo and the DeepSeek-V3 GB200 guide print Megatron-LM's counter of
            // 2025-2026 (causal attention halved): ModelZoo's Qwen3-235B H100 rows give both
            // TFLOP/s and step time, and 245 TFLOP/s at 19.7 s for 2048 x 4096 tokens on 256 GPUs
            // is 147.3 GFLOP per token, against 148.3 with the attention core halved and 167.2
            // counted in full.
            let causal = matches!(source, "Megatron-MoE-ModelZoo" | "Megatron-LM DeepSeek-V3 GB200 guide");
            let metric = match () {
                _ if causal => Metric::ModelCausal,
                _ if metric_field.contains("mfu") || metric_field.contains("model") => Metric::Model,
                _ => Metric::Hardware,
            };
            let peak = fabricscope_model::training::efficiency::dense_peak(topo.gpu, w.precision).0;
            let m = r.f("measured_tflops_per_gpu").or(r.f("measured_mfu_pct").map(|p| p / 100.0 * peak)).ok_or("no measurement")?;
            (metric, m)
        }
    };
    let predicted = match metric {
        Metric::Tokens => report.tokens_per_s,
        m => convention_flops(&w, m) / report.step_time_s / gpus as f64 / 1e12,
    };
    let class = ErrorClass::of(&fw, w.moe.is_some(), topo.gpu.arch);
    let over = report.memory.over().0 as f64 / (1u64 << 30) as f64;
    let note = format!(
        "{}{}{}",
        report.mapping.recompute.id(),
        if report.mapping.zero > 0 { format!(", ZeRO {}", report.mapping.zero) } else { String::new() },
        if report.fits { String::new() } else { format!(", model memory {over:.1} GiB over") }
    );
    Ok(Outcome {
        file,
        line,
        source,
        model: r.s("model").to_string(),
        gpus,
        gpu: if a100_40 { "A100-40GB" } else { topo.gpu.id },
        class,
        par: report.mapping,
        filled,
        metric,
        measured,
        predicted,
        note,
        report,
    })
}

/// The MoE rows, predicted against measured: the self-check a closing note can quote.
fn moe_table(outs: &[Outcome]) -> String {
    let mut s = String::from("| file:line | source | model | GPUs | TP/PP/EP/CP | framework | metric | measured | predicted | error | compute/EP/bubble/PP/DP/TP % of step |\n|---|---|---|---:|---|---|---|---:|---:|---:|---|\n");
    for o in outs.iter().filter(|o| o.class.moe) {
        let p = &o.par;
        let metric = match o.metric {
            Metric::Tokens => "tokens/s",
            Metric::Hardware => "hw TFLOP/s",
            Metric::Model => "model TFLOP/s",
            Metric::ModelCausal => "model TFLOP/s (causal)",
        };
        let step = o.report.step_time_s * 1e6;
        let b = &o.report.breakdown;
        s.push_str(&format!(
            "| {}:{} | {} | {} | {} {} | {}/{}/{}/{} | {} | {} | {:.0} | {:.0} | {:+.1}% | {} |\n",
            o.file,
            o.line,
            o.source,
            o.model,
            o.gpus,
            o.gpu,
            p.tp,
            p.pp,
            p.ep,
            p.cp,
            o.report.framework,
            metric,
            o.measured,
            o.predicted,
            100.0 * o.error(),
            [b.compute, b.ep, b.bubble, b.pp_p2p, b.dp, b.tp].iter().map(|x| format!("{:.0}", 100.0 * x.0 / step)).collect::<Vec<_>>().join("/")
        ));
    }
    s
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn table(outs: &[Outcome]) -> String {
    let mut s = String::from(
        "| file:line | source | model | GPUs | class | TP/PP/DP/CP/EP | mb | v | recompute, ZeRO | metric | measured | predicted | error | memory GiB | largest overhead |\n|---|---|---|---:|---|---|---:|---:|---|---|---:|---:|---:|---:|---|\n",
    );
    for o in outs {
        let p = &o.par;
        let star = |k: &str, v: String| if o.filled.contains(&k) { format!("{v}*") } else { v };
        let b = &o.report.breakdown;
        let step = o.report.step_time_s * 1e6;
        let mut parts: Vec<(&str, f64)> = b.parts().iter().filter(|x| x.0 != "compute").map(|x| (x.1, x.2 .0)).collect();
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let over = parts.first().map_or(String::new(), |(n, v)| format!("{n} {:.0}%", 100.0 * v / step));
        let metric = match o.metric {
            Metric::Tokens => "tokens/s",
            Metric::Hardware => "hw TFLOP/s",
            Metric::Model => "model TFLOP/s",
            Metric::ModelCausal => "model TFLOP/s (causal)",
        };
        s.push_str(&format!(
            "| {}:{} | {} | {} | {} {} | {} | {}/{}/{}/{}/{} | {} | {} | {} | {} | {:.1} | {:.1} | {:+.1}% | {:.1} | {} |\n",
            o.file,
            o.line,
            o.source,
            o.model,
            o.gpus,
            o.gpu,
            o.class.id(),
            star("tp", p.tp.to_string()),
            star("pp", p.pp.to_string()),
            p.dp,
            p.cp,
            p.ep,
            star("mb", p.micro_batch.to_string()),
            star("v", p.interleave.to_string()),
            star("rc", o.note.clone()),
            metric,
            o.measured,
            o.predicted,
            100.0 * o.error(),
            o.report.memory_gib_per_gpu,
            over
        ));
    }
    s
}

/// Every row of both files, evaluated or skipped with the reason.
fn run_all() -> (Vec<Outcome>, Vec<(String, String, String)>) {
    let mut outs = Vec::new();
    let mut skipped = Vec::new();
    for file in ["training.csv", "training-2.csv", "training-3.csv", "training-moe.csv", "training-amd.csv", "training-blackwell.csv"] {
        let path = root().join("validation").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rows = common::read_csv(&text);
        let cols: HashMap<String, usize> = rows[0].iter().enumerate().map(|(i, h)| (h.trim().to_string(), i)).collect();
        for (i, v) in rows.iter().enumerate().skip(1) {
            if v.len() < 3 {
                continue;
            }
            let r = Row { cols: &cols, v };
            match evaluate_row(file, i + 1, &r) {
                Ok(o) => outs.push(o),
                Err(e) => skipped.push((format!("{file}:{}", i + 1), r.s("model").to_string(), e)),
            }
        }
    }
    (outs, skipped)
}

/// Median absolute error per class, as the model ships it.
fn bands(outs: &[Outcome]) -> Vec<BandRow> {
    let mut by: Vec<(ErrorClass, Vec<f64>, [u32; 2])> = Vec::new();
    for o in outs {
        match by.iter_mut().find(|x| x.0 == o.class) {
            Some(x) => {
                x.1.push(o.error().abs());
                x.2 = [x.2[0].min(o.gpus), x.2[1].max(o.gpus)];
            }
            None => by.push((o.class, vec![o.error().abs()], [o.gpus, o.gpus])),
        }
    }
    let mut rows: Vec<BandRow> = by
        .into_iter()
        .map(|(class, v, [min_gpus, max_gpus])| BandRow {
            class,
            cases: v.len() as u32,
            median_abs_error_pct: (1000.0 * median(v)).round() / 10.0,
            min_gpus,
            max_gpus,
        })
        .collect();
    rows.sort_by_key(|r| r.class.id());
    rows
}

/// Dense rows per framework family (MoE classes are judged on their own bounds).
fn by_family(outs: &[Outcome]) -> Vec<(&'static str, Vec<f64>)> {
    let mut by: Vec<(&'static str, Vec<f64>)> = Vec::new();
    for o in outs.iter().filter(|o| !o.class.moe) {
        match by.iter_mut().find(|x| x.0 == o.class.family) {
            Some(x) => x.1.push(o.error().abs()),
            None => by.push((o.class.family, vec![o.error().abs()])),
        }
    }
    by
}

#[test]
fn training_model_matches_published_runs() {
    let (outs, skipped) = run_all();
    let t = table(&outs);
    println!("{t}");
    println!("MoE self-check (predicted against measured):\n{}", moe_table(&outs));
    println!("rows evaluated: {}, not expressible: {}", outs.len(), skipped.len());
    for (l, m, e) in &skipped {
        println!("not expressible: {l} ({m}): {e}");
    }
    let fams = by_family(&outs);
    for (f, v) in &fams {
        println!("family {f}: {} rows, median |error| {:.1}%", v.len(), 100.0 * median(v.clone()));
    }
    let bands = bands(&outs);
    for b in &bands {
        println!("class {}: {} rows, median |error| {:.1}%", b.class.id(), b.cases, b.median_abs_error_pct);
    }
    if std::env::var("FABRICSCOPE_WRITE_DOCS").is_ok_and(|v| v == "1") {
        let doc = render_doc(&t, &outs, &skipped, &fams, &bands);
        let out = root().join("docs/training-accuracy.md");
        std::fs::write(&out, doc).unwrap();
        let csv = fabricscope_model::training::bands::to_csv(&bands);
        std::fs::write(root().join("crates/model/src/training/bands.csv"), csv).unwrap();
        println!("wrote {} and bands.csv", out.display());
    }
    assert!(outs.len() >= 190, "only {} rows expressible", outs.len());
    // MoE (issue 22's goal is 20% median over the held-out runs): every MoE row together,
    // and each MoE class, against bounds the model meets today, so a regression fails.
    let moe: Vec<f64> = outs.iter().filter(|o| o.class.moe).map(|o| o.error().abs()).collect();
    assert!(moe.len() >= 70, "only {} MoE rows expressible", moe.len());
    // 20%: today 18.2% over 79 rows (issue 22's goal, 20%, is over the held-out runs).
    assert!(median(moe.clone()) <= 0.20, "MoE rows: median |error| {:.1}%", 100.0 * median(moe));
    // Blackwell's dense runs set its sustained clock: 3.4% today over 25 rows.
    let bw = bands.iter().find(|b| b.class.id() == "megatron/dense/blackwell").expect("the Blackwell dense class");
    assert!(bw.cases >= 25 && bw.median_abs_error_pct <= 6.0, "megatron/dense/blackwell: {} rows, {:.1}%", bw.cases, bw.median_abs_error_pct);
    // Per class: 25% (today megatron/moe/blackwell 15.4%, megatron/moe/hopper 17.8%, on one
    // row: the next is 23.2%; fsdp/moe/hopper 22.8%; the bound was 35% while the Automodel rows
    // ran FlashAttention-2).
    for b in bands.iter().filter(|b| b.class.moe) {
        assert!(b.median_abs_error_pct <= 25.0, "class {}: median |error| {:.1}%", b.class.id(), b.median_abs_error_pct);
    }
    // The goal, 8% for every framework family, is met by each (the DeepSpeed family's worst
    // rows are the 2021 ZeRO-3 runs at their largest micro-batch and BLOOM's batch ramp-up).
    for (f, v) in &fams {
        let med = median(v.clone());
        let bound = 0.08;
        assert!(med <= bound, "family {f}: median |error| {:.1}% > {:.0}%", 100.0 * med, 100.0 * bound);
    }
}

/// The bands the model reads at compile time are the ones this data gives (regenerate with
/// FABRICSCOPE_WRITE_DOCS=1 when the model or the data change).
#[test]
fn shipped_error_bands_match_the_validation() {
    let (outs, _) = run_all();
    let want = bands(&outs);
    let shipped = band_table();
    assert_eq!(shipped, want.as_slice(), "crates/model/src/training/bands.csv is stale: regenerate it (see the module docs)");
    // The 90% intervals, held out by source (docs/calibration.md, src/calibration/training.csv):
    // the ratio measured / predicted of each row's throughput.
    let samples: Vec<_> = outs
        .iter()
        .map(|o| fabricscope_model::calibration::Sample {
            source: o.source.to_string(),
            keys: fabricscope_model::calibration::training_keys(&o.class),
            ratio: o.measured / o.predicted,
            gpus: o.gpus,
        })
        .collect();
    let cal = calibration::check("training", "Training steps", &samples);
    let all = cal.iter().find(|c| c.key == "all").expect("the family's row");
    // Issue 34's floor, 85%: 88.7% today over 231 rows (86.6% while a level of 3 sources had an
    // interval of its own; MIN_SOURCES is 7 now). Sources differ more from each other
    // than their own rows do (Narayanan 2021's 22 rows lie outside the other Ampere sources'
    // narrow spread); before borrowed intervals were stretched to their class's own rows the
    // held-out coverage was 84.0%.
    assert!(all.coverage >= calibration::FAMILY_COVERAGE_FLOOR, "training: held-out coverage {:.1}% of {} rows", 100.0 * all.coverage, all.rows);
}


/// The rows of validation/`file` (with their 1-based line numbers) that `keep` keeps, and the
/// file's column index, for the fits below.
fn rows_of(file: &str, keep: impl Fn(usize, &Row) -> bool) -> (HashMap<String, usize>, Vec<(usize, Vec<String>)>) {
    let text = std::fs::read_to_string(root().join("validation").join(file)).unwrap_or_default();
    let rows = common::read_csv(&text);
    let Some(head) = rows.first() else { return (HashMap::new(), Vec::new()) };
    let cols: HashMap<String, usize> = head.iter().enumerate().map(|(i, h)| (h.trim().to_string(), i)).collect();
    let kept = rows.iter().enumerate().skip(1).filter(|(i, v)| v.len() >= 3 && keep(i + 1, &Row { cols: &cols, v })).map(|(i, v)| (i + 1, v.clone())).collect();
    (cols, kept)
}

/// The MoE host time per micro-batch of NeMo release framework `id` ("nemo-25.07",
/// "nemo-25.09") that minimises the mean absolute log error of the MoE rows run as that release,
/// on a 250 µs grid, with those rows.
fn fit_moe_host(id: &str) -> (f64, Vec<String>) {
    let (cols, mine) = rows_of("training-moe.csv", |ln, r| evaluate_row("training-moe.csv", ln, r).is_ok_and(|o| o.report.framework == id));
    let cost = |h: f64| {
        let logs: Vec<f64> = mine.iter().filter_map(|(ln, v)| evaluate_row_with("training-moe.csv", *ln, &Row { cols: &cols, v }, Some(h), None).ok()).map(|o| (o.predicted / o.measured).ln().abs()).collect();
        logs.iter().sum::<f64>() / logs.len().max(1) as f64
    };
    let coarse = (0..=40).map(|k| k as f64 * 1000.0).min_by(|a, b| cost(*a).total_cmp(&cost(*b))).unwrap_or(0.0);
    let fine = (-4..=4).map(|k| coarse + k as f64 * 250.0).filter(|h| *h >= 0.0).min_by(|a, b| cost(*a).total_cmp(&cost(*b))).unwrap_or(coarse);
    (fine, mine.iter().map(|(ln, _)| format!("training-moe.csv:{ln}")).collect())
}

/// The host times of the NeMo releases without MoE CUDA graphs are what `fit_moe_host` gives
/// on their rows (the guide's steps before CUDA graphs; Megatron-Bridge 25.09's DeepSeek-V3).
#[test]
fn nemo_release_host_times_are_fitted() {
    use fabricscope_model::training::framework::{MOE_HOST_EARLY_US, MOE_HOST_FUSED_US};
    for (id, shipped, want_rows) in [("nemo-25.07", MOE_HOST_EARLY_US, 3), ("nemo-25.09", MOE_HOST_FUSED_US, 3)] {
        let (fit, rows) = fit_moe_host(id);
        println!("{id}: fitted {fit} us per MoE layer per micro-batch on {}", rows.join(", "));
        assert_eq!(rows.len(), want_rows, "{id}: rows run as this release: {rows:?}");
        assert!((fit - shipped).abs() <= 250.0, "{id}: shipped {shipped} us, the fit gives {fit} us");
    }
}


/// The NVFP4 GEMM share that minimises the mean absolute log error of the NVFP4 rows of
/// validation/training-blackwell.csv the model expresses, on a 0.01 grid from 0.2 to 1, with
/// those rows.
fn fit_nvfp4_share() -> (f64, Vec<String>) {
    let (cols, mine) = rows_of("training-blackwell.csv", |ln, r| r.s("precision").eq_ignore_ascii_case("NVFP4") && evaluate_row("training-blackwell.csv", ln, r).is_ok());
    let cost = |share: f64| {
        let logs: Vec<f64> = mine
            .iter()
            .filter_map(|(ln, v)| evaluate_row_with("training-blackwell.csv", *ln, &Row { cols: &cols, v }, None, Some(share)).ok())
            .map(|o| (o.predicted / o.measured).ln().abs())
            .collect();
        if logs.len() < mine.len() {
            return f64::INFINITY;
        }
        logs.iter().sum::<f64>() / logs.len().max(1) as f64
    };
    let best = (20..=100).map(|k| k as f64 / 100.0).min_by(|a, b| cost(*a).total_cmp(&cost(*b))).unwrap_or(1.0);
    (best, mine.iter().map(|(ln, _)| format!("training-blackwell.csv:{ln}")).collect())
}

/// The NVFP4 share shipped is what `fit_nvfp4_share` gives on the published NVFP4 rows.
#[test]
fn nvfp4_share_is_fitted() {
    use fabricscope_model::training::framework::NVFP4_SHARE;
    let (fit, rows) = fit_nvfp4_share();
    println!("NVFP4 share: fitted {fit} on {}", rows.join(", "));
    // 6 NVFP4 rows, of which GB200's 26.06 Llama 3.1 405B (PP 16 with 8 virtual stages over
    // 126 layers) is not a layout the model expresses, as its MXFP8 twin is not.
    assert_eq!(rows.len(), 5, "NVFP4 rows: {rows:?}");
    assert!((fit - NVFP4_SHARE).abs() <= 0.011, "shipped {NVFP4_SHARE}, the fit gives {fit}");
}
