//! The serving model against validation/serving.csv (published serving measurements, every row
//! naming its source; validation/README-rackscale-moe.md). Each row the model can express is
//! mapped to a cluster, a served model and a deployment by the fixed rules below and compared on
//! the figure the source states (tokens/s per GPU, or TPOT where that is the measurement); rows it
//! cannot express are listed with the reason. Per class (dense TP inside one NVLink domain,
//! dense TP across nodes, wide-EP decode, KV transfer) and hardware class the median absolute
//! error is computed: those are the bands predictions carry (src/bands.rs `band_pct`); the
//! test fails when the checked-in bands or docs/serving-accuracy.md differ from what the data
//! gives. FABRICSCOPE_WRITE_DOCS=1 rewrites the doc; FABRICSCOPE_FIT=1 prints a grid search of
//! each hardware class's efficiencies (how src/hardware.rs's values were chosen).
//!
//! Mapping rules:
//! - Hardware: DGX H100/H200/B200 and 8-GPU H800 nodes as 8-GPU NVSwitch nodes with 8x NDR
//!   400G (the rows do not restate NICs); GB200/GB300 as NVL72 racks of 4-GPU trays; the 2xH100
//!   server of tenstorrent issue 143 as an H100 SXM node (form factor not stated).
//! - KV transfers: AWS p5en and p6-b200 as the catalog's presets, p6-b300 as 8 B300 with 16x
//!   400G EFA; bytes as the row states, over the GPU's own 200G NIC for NIXLBench on A3-Mega, all NICs for
//!   the Transfer Engine with buffers on every GPU, one NIC for a vLLM worker; host-memory
//!   (CPU-to-CPU) runs are listed, not evaluated.
//! - Precision: the row's weight precision (NVFP4 -> fp4); "not stated" -> bf16. KV cache in FP8
//!   where the row says so and for TensorRT-LLM's quantized checkpoints (their FP8 KV cache);
//!   otherwise BF16.
//! - offline-throughput -> `Phase::Offline` with the row's ISL/OSL (batch chosen by the model:
//!   as large as memory and the runtime allow). Online rows at a request rate (DataCrunch)
//!   -> decode at the concurrency the row implies (Little's law: output tokens/s x TPOT),
//!   compared on TPOT. DeepSeek's Day-6 decode -> decode at 1850 / 21 = 88 sequences per GPU
//!   (its per-GPU throughput over the per-user speed it states), compared on tokens/s per GPU.
//!   vLLM's GB200 decode ("batch fills GPU memory") -> the largest batch that fits.
//! - Engine: the one the source names (TensorRT-LLM's docs and tech blogs, Azure's TensorRT-LLM
//!   results; vLLM's posts and its NIXL connector's metrics; SGLang), else not stated (the default
//!   engine predicts it). TensorRT-LLM's max-load runs of quantized non-MLA checkpoints take an
//!   FP8 KV cache. The vLLM NIXL handoff of nixl issue 1240 (model not stated) goes through vLLM's
//!   connector with its bytes as Llama 3 8B's shape at one byte per element, as every KV row's
//!   bytes are scaled.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::{cluster_preset, Cluster, Topology};
use fabricscope_serving::bands::band_pct;
use fabricscope_serving::hardware::{efficiency, AccuracyClass, Efficiency, HwClass};
use fabricscope_serving::kv::{kv_transfer, KvPath, KvTransferInput};
use fabricscope_serving::step::Server;
use fabricscope_serving::engine::{fit_scale, layer_us_grid, scale_grid, Engine, EngineParams};
use fabricscope_serving::{serving_preset, Deployment, Phase, Precision, ServingModel};
use std::collections::BTreeMap;

#[path = "../../model/tests/common/calibration.rs"]
mod calibration;

#[derive(Clone, Debug)]
struct Row {
    source: String,
    model: String,
    hardware: String,
    gpus: Option<u32>,
    nodes: Option<u32>,
    tp: Option<u32>,
    ep: Option<u32>,
    dp: Option<u32>,
    phase: String,
    batch: Option<u32>,
    input_len: Option<u32>,
    output_len: Option<u32>,
    precision: String,
    tpot_ms: Option<f64>,
    tokens_per_s_per_gpu: Option<f64>,
    kv_bytes: Option<f64>,
    kv_ms: Option<f64>,
    notes: String,
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.split_whitespace().next().and_then(|t| t.parse().ok())
}

fn rows() -> Vec<Row> {
    let text = include_str!("../../../validation/serving.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    r.records()
        .map(|rec| {
            let rec = rec.expect("serving.csv parses");
            let g = |i: usize| rec.get(i).unwrap_or("").trim().to_string();
            Row {
                source: g(0),
                model: g(1),
                hardware: g(2),
                gpus: num(&g(3)),
                nodes: num(&g(4)),
                tp: num(&g(6)),
                ep: num(&g(8)),
                dp: num(&g(9)),
                phase: g(10),
                batch: num(&g(11)),
                input_len: num(&g(12)),
                output_len: num(&g(13)),
                precision: g(14),
                tpot_ms: num(&g(15)),
                tokens_per_s_per_gpu: num(&g(17)),
                kv_bytes: num(&g(18)),
                kv_ms: num(&g(19)),
                notes: g(20),
            }
        })
        .collect()
}

fn model_of(r: &Row) -> Result<ServingModel, String> {
    let m = r.model.to_ascii_lowercase();
    let id = if m.contains("v3.2") {
        return Err("DeepSeek-V3.2's sparse attention (DSA) is not modelled".into());
    } else if m.contains("glm") {
        return Err("no GLM-5 preset (its shape is not in a source read)".into());
    } else if m.contains("deepseek") {
        "deepseek-v3"
    } else if m.contains("405b") {
        "llama3-405b"
    } else if m.contains("70b") && m.contains("llama") {
        "llama3-70b"
    } else if m.contains("8b") && m.contains("llama") {
        "llama3-8b"
    } else if m.contains("qwen3-235b") {
        "qwen3-235b-a22b"
    } else if m.contains("qwen2.5-72b") {
        "qwen2.5-72b"
    } else {
        return Err(format!("no preset for '{}'", r.model));
    };
    serving_preset(id).ok_or_else(|| id.to_string())
}

fn cluster_of(r: &Row) -> Result<Topology, String> {
    let h = r.hardware.to_ascii_lowercase();
    let nodes = r.nodes.unwrap_or(1).max(1);
    let c = if h.contains("p6-b200") {
        cluster_preset("aws-p6-b200").ok_or("preset")?.cluster()
    } else if h.contains("p5en") {
        cluster_preset("aws-p5en").ok_or("preset")?.cluster()
    } else if h.contains("p6-b300") {
        // p6-b300.48xlarge: 8 B300 and 16 EFA interfaces of 400G (the source's instance list).
        Cluster { gpu: GpuKind::B300, nodes: 2, scale_up: ScaleUp::natural(GpuKind::B300), nics_per_node: 16, nic: NicKind::Efa400, ..Cluster::default() }
    } else if h.contains("gb200") || h.contains("gb300") {
        let gpu = if h.contains("gb300") { GpuKind::Gb300 } else { GpuKind::Gb200 };
        Cluster { gpu, gpus_per_node: 4, nodes: 18, scale_up: ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() }
    } else if h.contains("a3-mega") {
        cluster_preset("gcp-a3-mega").ok_or("preset")?.cluster()
    } else {
        let gpu = if h.contains("h800") {
            GpuKind::H800
        } else if h.contains("h200") {
            GpuKind::H200
        } else if h.contains("b300") {
            GpuKind::B300
        } else if h.contains("b200") {
            GpuKind::B200
        } else if h.contains("h100") {
            GpuKind::H100
        } else {
            return Err(format!("hardware '{}' not mapped", r.hardware));
        };
        Cluster { gpu, nodes, scale_up: ScaleUp::natural(gpu), ..Cluster::default() }
    };
    c.topology().map_err(|e| e.to_string())
}

fn precision_of(s: &str) -> Precision {
    let s = s.to_ascii_lowercase();
    if s.contains("fp4") {
        Precision::Fp4
    } else if s.starts_with("fp8") {
        Precision::Fp8
    } else {
        Precision::Bf16
    }
}

/// The engine a row's source names: TensorRT-LLM (its docs and tech blogs, Azure's TensorRT-LLM
/// results), vLLM (its blog posts, its NIXL connector's metrics), SGLang; `None` where the
/// source does not say (then the default engine predicts it).
fn engine_of(r: &Row) -> Option<Engine> {
    let s = r.source.to_ascii_lowercase();
    if s.contains("tensorrt-llm") {
        Some(Engine::Trtllm)
    } else if s.contains("vllm") {
        Some(Engine::Vllm)
    } else if s.contains("sglang") {
        // A row whose release is SGLang 0.4 (stated, or by its date) says so in its notes.
        Some(if r.notes.contains("--engine sglang-0.4") { Engine::Sglang04 } else { Engine::Sglang })
    } else {
        None
    }
}

/// What a row is compared on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    TokensPerGpu,
    Tpot,
    KvMs,
}

struct Case {
    row: Row,
    class: Option<AccuracyClass>,
    hw: HwClass,
    metric: Metric,
    measured: f64,
    /// Deployment (None for KV transfer).
    dep: Option<Deployment>,
    note: String,
}

/// Maps a row to a case, or says why not.
fn case_of(r: &Row) -> Result<Case, String> {
    // Mooncake's EFA doc: host-memory (CPU-to-CPU) transfers are bounded by the hosts' DRAM
    // bandwidth, which the model does not carry; the handoff it models is GPU to GPU.
    if r.phase == "kv-transfer" && r.notes.contains("CPU-to-CPU") {
        return Err("host memory to host memory (CPU-to-CPU, or a series the source reports as such): bounded by the hosts' DRAM bandwidth, not modelled; the KV handoff modelled is GPU memory to GPU memory".into());
    }
    let topo = cluster_of(r)?;
    let hw = HwClass::of(topo.gpu);
    if r.phase == "kv-transfer" {
        let (b, ms) = (r.kv_bytes.ok_or("no bytes")?, r.kv_ms.ok_or("no time")?);
        return Ok(Case { row: r.clone(), class: Some(AccuracyClass::KvTransfer), hw, metric: Metric::KvMs, measured: ms, dep: None, note: format!("{b} bytes") });
    }
    model_of(r)?;
    // DataCrunch's SGLang v0.4.1 DeepSeek-V3 runs (the release of the model's first day, CUDA
    // graphs disabled) deliver 16-17 output tokens/s per GPU on two nodes and 63-80 on one
    // (throughput x TPOT = concurrency: every rate saturates the server). Inside one NVLink
    // domain, where the fabric plays no part, the same write-up misses the model by 79-94%
    // like the two-node runs: the gap is that release's software, not the fabric, and a step
    // model of a given batch has no term for it. Reported here, not in any band.
    if r.source.contains("DataCrunch") && r.model.contains("DeepSeek") {
        return Err(format!(
            "software-bound: SGLang v0.4.1 on DeepSeek-V3's first day, CUDA graphs off, {} output tokens/s per GPU saturated on {} node(s); the single-node runs of the same write-up miss by as much, so the gap is not the fabric",
            r.tokens_per_s_per_gpu.map_or("?".into(), |v| format!("{v:.0}")),
            r.nodes.unwrap_or(1)
        ));
    }
    if r.notes.contains("weight offloading") {
        return Err("weights offloaded to host memory (vLLM weight offloading v2): not modelled".into());
    }
    // DeepSeek-V3/R1's released checkpoint is FP8 (block-quantized linear layers); an engine run
    // "in BF16" keeps those weights and computes activations in BF16.
    let deepseek_bf16 = r.model.contains("DeepSeek") && r.precision == "BF16";
    let prec = if deepseek_bf16 { Precision::Fp8 } else { precision_of(&r.precision) };
    // trtllm-bench's max-load runs (TensorRT-LLM's perf tables, Azure's TensorRT-LLM results)
    // serve NVIDIA's quantized checkpoints, whose KV cache is FP8; DeepSeek's MLA latent stays
    // BF16 as before.
    let engine = engine_of(r);
    let trt_quant = engine == Some(Engine::Trtllm) && r.phase == "offline-throughput" && prec != Precision::Bf16 && !r.model.contains("DeepSeek");
    let kv = if r.precision.to_ascii_lowercase().contains("fp8 kv") || r.precision.contains("(e5m2) KV") || r.precision.contains("FP8 KV") || trt_quant { Some(Precision::Fp8) } else { None };
    let (tp, ep, dp) = (r.tp.ok_or("layout not stated")?, r.ep.unwrap_or(1), r.dp.unwrap_or(1));
    // DeepSeek's Day-6 decode states the mean KV length (4989), not the request lengths.
    let day6 = r.source.contains("open-infra-index") && r.phase == "decode";
    let (input_len, output_len) = if day6 { (4096, 1024) } else { (r.input_len.ok_or("lengths not stated")?, r.output_len.ok_or("lengths not stated")?) };
    // DeepSeek's Day-6 decode names no engine of the three: the default engine predicts it, with
    // its default (no two-micro-batch overlap). DeepSeek's own engine does overlap (its "5-stage
    // overlap pipeline"), but hiding the whole EP exchange behind compute, as `--overlap true`
    // models it, predicts that production average 70% faster than measured (docs/serving-peer.md).
    let mut d = Deployment { tp, ep, dp, input_len, output_len, precision: prec, kv_precision: kv, context: input_len + output_len / 2, engine, ..Deployment::default() };
    let mut note = String::new();
    let (metric, measured) = match r.phase.as_str() {
        "offline-throughput" => {
            if r.source.contains("ND H200 v5") {
                return Err("engine, precision and token definition not stated (128 in / 8 out)".into());
            }
            d.phase = Phase::Offline;
            (Metric::TokensPerGpu, r.tokens_per_s_per_gpu.ok_or("no throughput")?)
        }
        "prefill" => {
            if r.source.contains("open-infra-index") {
                return Err("56% of its input tokens hit an on-disk KV cache; batch and lengths not stated".into());
            }
            d.phase = Phase::Prefill;
            d.batch = r.batch.map(|b| b / dp.max(1)).unwrap_or((8192 / input_len).max(1)).max(1);
            (Metric::TokensPerGpu, r.tokens_per_s_per_gpu.ok_or("no throughput")?)
        }
        "decode" => {
            d.phase = Phase::Decode;
            if r.source.contains("open-infra-index") {
                // 1850 tokens/s per GPU at 20-22 tokens/s per user: 88 sequences per GPU.
                d.batch = 88;
                d.context = num(&r.output_len.map(|v| v.to_string()).unwrap_or_default()).unwrap_or(4989);
                note = "batch 1850/21 = 88 per GPU (derived)".into();
                (Metric::TokensPerGpu, r.tokens_per_s_per_gpu.ok_or("no throughput")?)
            } else if let (Some(tpot), Some(tps)) = (r.tpot_ms, r.tokens_per_s_per_gpu) {
                // Online at a request rate: concurrency from Little's law.
                let gpus = r.gpus.unwrap_or(tp * dp);
                let conc = (tps * gpus as f64 * tpot / 1e3).round().max(1.0);
                let ranks = if r.source.contains("DataCrunch") && r.tp == Some(8) && r.nodes == Some(1) {
                    // SGLang --enable-dp-attention: attention DP 8, MoE TP 8.
                    d.tp = 1;
                    d.dp = 8;
                    8.0
                } else {
                    dp as f64
                };
                d.batch = (conc / ranks).ceil() as u32;
                note = format!("concurrency {conc} from throughput x TPOT{}", if deepseek_bf16 { "; FP8 checkpoint weights, BF16 activations" } else { "" });
                (Metric::Tpot, tpot)
            } else if r.batch.is_some() && r.tpot_ms.is_some() {
                d.batch = r.batch.unwrap_or(1);
                if r.source.contains("#143") {
                    d.memory_fraction = Some(0.95);
                    note = "engine not stated: memory fraction 0.95 assumed so BF16 weights fit".into();
                }
                (Metric::Tpot, r.tpot_ms.unwrap_or(0.0))
            } else if r.source.contains("WideEP") {
                d.batch = 0;
                note = "batch: the largest that fits (source: fills GPU memory)".into();
                (Metric::TokensPerGpu, r.tokens_per_s_per_gpu.ok_or("no throughput")?)
            } else {
                return Err("neither batch nor a per-user figure with throughput is stated".into());
            }
        }
        p => return Err(format!("phase {p}")),
    };
    let class = if d.phase == Phase::Prefill {
        None
    } else if d.wide_ep() {
        Some(AccuracyClass::WideEp)
    } else if d.tp > topo.domain_gpus {
        Some(AccuracyClass::DenseTpCross)
    } else {
        Some(AccuracyClass::DenseTpNvlink)
    };
    Ok(Case { row: r.clone(), class, hw, metric, measured, dep: Some(d), note })
}

/// The model's figure for a case under `eff` and engine parameters `eng` (None: the fitted
/// values of its hardware class and engine).
fn predict(c: &Case, eff: Option<Efficiency>, eng: Option<EngineParams>) -> Result<f64, String> {
    let topo = cluster_of(&c.row)?;
    if c.metric == Metric::KvMs {
        let m = serving_preset("llama3-8b").ok_or("preset")?;
        // Bytes are the row's: ask for the transfer of that many bytes of a 1-byte-per-token
        // shape by scaling (the time is linear in bytes past the latency).
        let per_token = m.kv_bytes_per_token(1.0);
        let tokens = (c.row.kv_bytes.unwrap_or(0.0) / per_token).round().max(1.0) as u32;
        // NIXLBench on A3-Mega: one GPU per VM, over its own 200G TCPXO NIC (the preset's one
        // NIC per GPU); the Transfer Engine benchmarks with buffers on every GPU
        // (--gpu_id=-1): all of them; a single vLLM worker: one.
        let rails = if c.row.notes.contains("--gpu_id=-1") {
            None
        } else {
            Some(1)
        };
        // Every published transfer is between nodes over NICs (the GB200 one says NIXL did not
        // use MNNVL), so the path is pinned to another domain.
        // Through an engine's connector (vLLM's NIXL connector on GB200) the engine's request
        // and paged-block costs apply; a transfer engine's own benchmark is contiguous.
        let engine = engine_of(&c.row);
        let t = kv_transfer(&topo, &m, &KvTransferInput { tokens, kv_precision: Precision::Fp8, rails, block_tokens: None, decode_tp: None, path: Some(KvPath::OtherDomain), engine }).map_err(|e| e.to_string())?;
        let scale = c.row.kv_bytes.unwrap_or(0.0) / t.bytes.0 as f64;
        return Ok((t.latency.0 + t.request.0 + (t.time.0 - t.latency.0 - t.request.0) * scale) / 1e3);
    }
    let model = model_of(&c.row)?;
    let mut d = c.dep.ok_or("no deployment")?;
    let mut s = Server::new(&topo, &model).map_err(|e| e.to_string())?;
    if let Some(e) = eff {
        s = s.with_efficiency(e);
    }
    if let Some(p) = eng {
        s = s.with_engine_params(p);
    }
    // A batch the row implies beyond what fits runs at what fits (the cases' notes say so).
    let want = d.batch;
    d.batch = 1;
    let probe = s.evaluate(&d).map_err(|e| format!("{}: {}", e.field, e.message))?;
    d.batch = if want == 0 { probe.max_batch.max(1) } else { want.min(probe.max_batch.max(1)) };
    let r = s.evaluate(&d).map_err(|e| format!("{}: {}", e.field, e.message))?;
    Ok(match c.metric {
        Metric::Tpot => r.tpot_ms.unwrap_or(0.0),
        _ => r.tokens_per_s_per_gpu,
    })
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn cases() -> (Vec<Case>, Vec<(Row, String)>) {
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for r in rows() {
        match case_of(&r) {
            Ok(c) => ok.push(c),
            Err(why) => skipped.push((r, why)),
        }
    }
    (ok, skipped)
}

/// FABRICSCOPE_FIT=1: each hardware class's efficiencies over a grid, by median |log error|
/// over its rows of the TP and wide-EP classes (one set per class, never per row).
#[test]
fn fit_efficiencies() {
    if std::env::var_os("FABRICSCOPE_FIT").is_none() {
        return;
    }
    let (cases, _) = cases();
    for hw in [HwClass::Hopper, HwClass::Blackwell] {
        // The hardware classes' values are TensorRT-LLM's: fitted on its rows and those whose
        // engine is not stated (the default engine predicts them).
        let mine: Vec<&Case> = cases.iter().filter(|c| c.hw == hw && c.metric != Metric::KvMs && c.class.is_some() && matches!(engine_of(&c.row), None | Some(Engine::Trtllm))).collect();
        let mut best = (f64::MAX, efficiency(hw));
        for hbm in [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] {
            for compute in [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7] {
                for oh in [5.0, 20.0, 40.0] {
                  for kv in [0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
                   for so in [0.0, 2.0, 4.0, 8.0, 12.0, 16.0] {
                    let e = Efficiency { hbm, hbm_fp8: if hw == HwClass::Hopper { efficiency(hw).hbm_fp8 } else { hbm }, hbm_fp8_experts: if hw == HwClass::Hopper { hbm } else { efficiency(hw).hbm_fp8_experts }, compute, layer_overhead_us: oh, kv_hbm: kv, seq_overhead_us: so };
                    let mut errs: Vec<f64> = mine.iter().filter_map(|c| predict(c, Some(e), None).ok().map(|p| (p / c.measured).ln().abs())).collect();
                    let m = median(&mut errs);
                    if m < best.0 {
                        best = (m, e);
                    }
                   }
                  }
                }
            }
        }
        println!("{hw:?}: {} rows, best median |log err| {:.3} at {:?}", mine.len(), best.0, best.1);
        // The per-layer cost is what a step costs beyond its roofline when the roofline is
        // small: only small-batch decode rows can tell it (at max load it is lost in the
        // per-sequence cost), so it is refitted on them, the other values held.
        let small: Vec<&&Case> = mine.iter().filter(|c| c.metric == Metric::Tpot && c.dep.is_some_and(|d| d.batch <= 8)).collect();
        let mut layer = (f64::MAX, best.1.layer_overhead_us);
        for oh in [5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 50.0, 60.0, 80.0] {
            let e = Efficiency { layer_overhead_us: oh, ..best.1 };
            let mut errs: Vec<f64> = small.iter().filter_map(|c| predict(c, Some(e), None).ok().map(|p| (p / c.measured).ln().abs())).collect();
            let m = median(&mut errs);
            if m < layer.0 {
                layer = (m, oh);
            }
        }
        println!("{hw:?}: per-layer cost on its {} small-batch decode rows: {} µs (median |log err| {:.3})", small.len(), layer.1, layer.0);
    }
}

/// Each engine's host costs (src/engine.rs), fitted on its own rows of every class (the
/// hardware classes' values fixed): the added per-MoE-layer cost first, then the per-sequence factor at
/// it, each the grid value of least median |log error| (one pair per engine, never per row).
/// TensorRT-LLM is the reference (1, 1). Returns the fitted pairs.
fn fit_engines(cases: &[Case]) -> Vec<(Engine, usize, f64, f64)> {
    let (grid, layer_grid) = (scale_grid(), layer_us_grid());
    let mut out = Vec::new();
    for engine in [Engine::Vllm, Engine::Sglang, Engine::Sglang04] {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.metric != Metric::KvMs && c.class.is_some() && engine_of(&c.row) == Some(engine)).collect();
        let base = engine.params();
        // Each cost from the rows that can tell it: the per-layer cost from small-batch decode
        // (batch <= 8), the per-sequence factor from the large batches; neutral without rows.
        let small = |c: &&&Case| c.metric == Metric::Tpot && c.dep.is_some_and(|d| d.batch <= 8);
        let errs = |p: EngineParams, want_small: bool| mine.iter().filter(|c| small(c) == want_small).filter_map(|c| predict(c, None, Some(p)).ok().map(|v| (v / c.measured).ln())).collect::<Vec<f64>>();
        let layer = fit_scale(&layer_grid, 0.0, |s| errs(EngineParams { moe_layer_us: s, seq_scale: 1.0, ..base }, true)).unwrap_or(0.0);
        let seq = fit_scale(&grid, 1.0, |s| errs(EngineParams { moe_layer_us: layer, seq_scale: s, ..base }, false)).unwrap_or(1.0);
        out.push((engine, mine.len(), layer, seq));
    }
    out
}

/// The engines' shipped factors are what the fit gives.
#[test]
fn engine_factors_are_fitted() {
    let (cases, _) = cases();
    for (engine, rows, layer, seq) in fit_engines(&cases) {
        let p = engine.params();
        println!("{engine:?}: {rows} rows, +{layer} µs per MoE layer, sequence x{seq}");
        assert!(rows > 0, "{engine:?} has no rows");
        assert_eq!((p.moe_layer_us, p.seq_scale), (layer, seq), "{engine:?}: src/engine.rs holds ({}, {}), the fit over its {rows} rows gives ({layer}, {seq})", p.moe_layer_us, p.seq_scale);
    }
    assert_eq!((Engine::Trtllm.params().moe_layer_us, Engine::Trtllm.params().seq_scale), (0.0, 1.0));
}

/// Hardware name as the docs print it.
fn hw_name(h: HwClass) -> &'static str {
    match h {
        HwClass::Hopper => "Hopper",
        HwClass::Blackwell => "Blackwell",
        HwClass::Other => "other",
    }
}

const CLASSES: [AccuracyClass; 4] = [AccuracyClass::DenseTpNvlink, AccuracyClass::DenseTpCross, AccuracyClass::WideEp, AccuracyClass::KvTransfer];

/// The targets (median absolute error), percent.
fn target(c: AccuracyClass) -> f64 {
    match c {
        AccuracyClass::DenseTpNvlink | AccuracyClass::DenseTpCross => 30.0,
        AccuracyClass::WideEp => 25.0,
        AccuracyClass::KvTransfer => 15.0,
    }
}

fn class_key(c: AccuracyClass) -> &'static str {
    match c {
        AccuracyClass::DenseTpNvlink => "DenseTpNvlink",
        AccuracyClass::DenseTpCross => "DenseTpCross",
        AccuracyClass::WideEp => "WideEp",
        AccuracyClass::KvTransfer => "KvTransfer",
    }
}

/// Kendall-style check: do the predictions order the group as the measurements do?
fn same_order(pairs: &[(String, f64, f64)]) -> bool {
    let mut m: Vec<usize> = (0..pairs.len()).collect();
    let mut p = m.clone();
    m.sort_by(|a, b| pairs[*b].1.total_cmp(&pairs[*a].1));
    p.sort_by(|a, b| pairs[*b].2.total_cmp(&pairs[*a].2));
    m == p
}

#[test]
fn serving_accuracy() {
    let (cases, skipped) = cases();
    let n_rows = cases.len() + skipped.len();
    let mut errs: BTreeMap<(AccuracyClass, &'static str), Vec<f64>> = BTreeMap::new();
    let mut prefill_errs = Vec::new();
    let mut lines = Vec::new();
    let mut not_evaluated: Vec<String> = skipped.iter().map(|(r, why)| format!("| {} | {} | {} | {} | {} |", short(&r.source), r.model, r.hardware, r.phase, why)).collect();
    // Groups for the order check: one model at one ISL/OSL deployed on every system of the
    // perf tables (H100 and H200 at their TP and FP8, B200 and GB200 at theirs and FP4), and
    // the four DeepSeek-V3/R1 deployments with EP over attention DP.
    let mut groups: BTreeMap<String, Vec<(String, f64, f64)>> = BTreeMap::new();
    let mut n_eval = 0;
    let mut samples = Vec::new();
    for c in &cases {
        let p = match predict(c, None, None) {
            Ok(p) => p,
            Err(e) => {
                not_evaluated.push(format!("| {} | {} | {} | {} | the model refuses it: {} |", short(&c.row.source), c.row.model, c.row.hardware, c.row.phase, e));
                continue;
            }
        };
        n_eval += 1;
        let err = p / c.measured - 1.0;
        // Calibration sample: measured / predicted of a rate (tokens/s per GPU as is, TPOT and
        // transfer time inverted).
        samples.push(fabricscope_model::calibration::Sample {
            source: short(&c.row.source),
            keys: fabricscope_serving::calibration::keys(c.class),
            ratio: if c.metric == Metric::TokensPerGpu { c.measured / p } else { p / c.measured },
            gpus: c.row.gpus.unwrap_or(1),
        });
        match c.class {
            Some(k) => errs.entry((k, hw_name(c.hw))).or_default().push(err.abs()),
            None => prefill_errs.push(err.abs()),
        }
        if let Some(d) = c.dep {
            if c.row.source.contains("perf-overview") {
                groups.entry(format!("{} {}/{}", c.row.model, d.input_len, d.output_len)).or_default().push((format!("{} TP{} {}", c.row.hardware, d.tp, d.precision.id()), c.measured, p));
            }
            if c.class == Some(AccuracyClass::WideEp) && c.metric == Metric::TokensPerGpu {
                groups.entry("DeepSeek-V3/R1, EP over attention DP (four published deployments)".into()).or_default().push((format!("{} {}", c.row.hardware, d.phase.id()), c.measured, p));
            }
        }
        lines.push(format!(
            "| {} | {} | {} | {} | {} | {} | {:.4} | {:.4} | {:+.0}% | {} |",
            short(&c.row.source),
            c.row.model,
            c.row.hardware,
            c.dep.map_or(format!("kv-transfer{}", engine_of(&c.row).map_or(String::new(), |e| format!(" via {}", e.id()))), |d| format!("{} TP{} EP{} DP{} {}{} {}/{} {} {}", d.phase.id(), d.tp, d.ep, d.dp, if d.batch > 0 { format!("b{} ", d.batch) } else { "b max ".into() }, if d.phase == Phase::Decode { format!("ctx {}", d.context) } else { String::new() }, d.input_len, d.output_len, d.precision.id(), d.engine.map_or("(engine not stated)", |e| e.id()))),
            c.class.map_or("prefill (no target)", |k| k.id()),
            match c.metric {
                Metric::Tpot => "TPOT ms",
                Metric::KvMs => "transfer ms",
                Metric::TokensPerGpu => "tok/s/GPU",
            },
            c.measured,
            p,
            err * 100.0,
            c.note
        ));
    }
    // Per class and hardware: the bands.
    let mut class_lines = Vec::new();
    let mut bands_rs = String::new();
    let mut medians: BTreeMap<(AccuracyClass, &'static str), f64> = BTreeMap::new();
    for k in CLASSES {
        let mut all = Vec::new();
        for hw in [HwClass::Hopper, HwClass::Blackwell] {
            if let Some(v) = errs.get(&(k, hw_name(hw))) {
                all.extend(v.iter().copied());
                let mut v = v.clone();
                let m = (median(&mut v) * 100.0).round();
                medians.insert((k, hw_name(hw)), m);
                class_lines.push(format!("| {} | {} | {} | {:.0}% | {:.0}% | {} |", k.id(), hw_name(hw), v.len(), m, target(k), if m <= target(k) { "met" } else { "**not met**" }));
                bands_rs.push_str(&format!("        (AccuracyClass::{}, HwClass::{:?}) => Some({m:.1}),\n", class_key(k), hw));
            } else {
                class_lines.push(format!("| {} | {} | 0 | no data (band: none) | {:.0}% | - |", k.id(), hw_name(hw), target(k)));
            }
        }
        let m = median(&mut all) * 100.0;
        if !all.is_empty() {
            class_lines.push(format!("| **{}** | all | {} | **{:.0}%** | {:.0}% | {} |", k.id(), all.len(), m, target(k), if m <= target(k) { "met" } else { "**not met**" }));
        }
    }
    let mut order_lines = Vec::new();
    let (mut exact, mut total) = (0, 0);
    for (g, pairs) in &groups {
        if pairs.len() < 2 {
            continue;
        }
        total += 1;
        let ok = same_order(pairs);
        exact += ok as u32;
        let mut by_m = pairs.clone();
        by_m.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut by_p = pairs.clone();
        by_p.sort_by(|a, b| b.2.total_cmp(&a.2));
        order_lines.push(format!(
            "| {g} | {} | {} | {} |",
            by_m.iter().map(|x| format!("{} ({:.0})", x.0, x.1)).collect::<Vec<_>>().join(" > "),
            by_p.iter().map(|x| format!("{} ({:.0})", x.0, x.2)).collect::<Vec<_>>().join(" > "),
            if ok { "yes" } else { "**no**" }
        ));
    }
    let mut pf = prefill_errs.clone();
    let eff_line = |h: HwClass| {
        let e = efficiency(h);
        format!("| {} | {} | {} | {} | {} | {} |", hw_name(h), e.hbm, e.kv_hbm, e.compute, e.layer_overhead_us, e.seq_overhead_us)
    };
    let engine_lines = fabricscope_serving::engine::ENGINES
        .iter()
        .map(|e| {
            let p = e.params();
            let n = cases.iter().filter(|c| c.metric != Metric::KvMs && c.class.is_some() && engine_of(&c.row) == Some(*e)).count();
            format!("| {} | {n} | {} | {} | {} | {} | {} |", e.id(), p.moe_layer_us, p.seq_scale, p.kv_block_tokens, p.kv_post_per_block_us, p.kv_request_us)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let doc = format!(
        "# Serving accuracy\n\nGenerated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-serving --test serving_accuracy`.\n\
         Published serving measurements in `validation/serving.csv` ({} rows, every row naming its source; see\n\
         `validation/README-rackscale-moe.md`) against `crates/serving` (the model: `docs/serving.md`). Rows are mapped to a\n\
         cluster, a served model and a deployment by the fixed rules in the test's header; each is compared on the figure\n\
         its source states (tokens/s per GPU, TPOT, or transfer time).\n\n\
         **{} of {} rows expressed and evaluated**; the other {} are listed at the end with the reason.\n\n\
         ## Parameters (one set per hardware class, fitted on these rows, never per row)\n\n\
         | class | weights HBM share | paged-KV HBM share | matmul share of peak | µs per layer per step | µs per sequence per step |\n|---|---|---|---|---|---|\n{}\n{}\n\n\
         GPUs of other generations (Ampere, AMD Instinct) take Hopper's values and carry no band. These are TensorRT-LLM's\n\
         values (fitted on its rows and those naming no engine); the per-layer cost on the small-batch decode rows alone.\n\n\
         Engines (src/engine.rs; the added per-MoE-layer cost fitted on an engine's small-batch decode rows, the per-sequence\n\
         factor on its other rows, by the test `engine_factors_are_fitted`):\n\n\
         | engine | rows | added µs per MoE layer per step | per-sequence factor | KV block tokens | KV µs per block | KV µs per request |\n|---|---|---|---|---|---|---|\n{}\n\n\
         ## Per class: median absolute error (the bands predictions carry)\n\n\
         | class | hardware | rows | median abs error | issue's target | |\n|---|---|---|---|---|---|\n{}\n\n\
         Prefill-only rows (no target in the issue): {} rows, median {:.0}%.\n\n\
         What these numbers say, honestly:\n\n\
         - **The step** is a roofline per operation (dense matmuls, touched experts, LM head, attention over the KV cache:\n\
           each the larger of its HBM read and its compute, the operations summed), not the larger of the whole step's read\n\
           and compute: kernels run one after another, so a compute-bound matmul does not hide a memory-bound attention.\n\
         - **Dense TP inside one NVLink domain** rests on TensorRT-LLM's max-load tables (H100, H200, B200, GB200), Azure's\n\
           GB200 TensorRT-LLM runs (FP8 checkpoints, so an FP8 KV cache, as the perf tables' rows), TensorRT-LLM's batch-1\n\
           DeepSeek-R1 on a B200 node, a batch-1 Qwen2.5-72B decode on 2 H100, and DeepSeek-R1-0528 FP8 on one node at\n\
           concurrency 1-128 as SemiAnalysis InferenceX published it (TensorRT-LLM 1.3.0rc14 on B200, within 0-11% of the\n\
           model; SGLang 0.5.12 on B200 and H200) with SGLang's cookbook run (0.5.6 on B200); it meets the target on both\n\
           hardware classes. Four of its eight sources are TensorRT-LLM, three SGLang, one names no engine. Its\n\
           widest held-out intervals come from two places the model does not explain: Azure's GB200 Llama 3.1 8B\n\
           rows, measured up to 1.5x faster than the model (the TensorRT-LLM perf tables on the same GPUs fit), and\n\
           TensorRT-LLM tech blog 1's batch-1 DeepSeek-R1 at TP8 x EP8, 1.6x slower than its own TP8 x EP4 row, which the model\n\
           times alike.\n\
         - **TP across nodes**: SGLang DeepSeek-R1-0528 on 16 H100 over InfiniBand at concurrency 1 (tenstorrent issue 356;\n\
           TP 16 assumed, the flag is not in the excerpt) measures 23-24 ms per token. Each of its 122 all-reduces crosses\n\
           the nodes and now costs what small all-reduces measure between two 8-GPU nodes (47.6 µs over InfiniBand, NVIDIA/nccl\n\
           issue 1244; 68.4 µs over EFA, aws-k8s-tester pull request 585) where NCCL's tuning model gives 26 µs: 5.8 ms. The\n\
           rest is that SGLang release's per-layer host and kernel cost at batch 1 (routing, grouped experts, many small\n\
           kernels), fitted as SGLang 0.4's added cost per MoE layer on these rows (`--engine sglang-0.4`; the run predates\n\
           0.5), in-sample for its one source (held out, they are judged against the other sources' interval). It is the\n\
           release's, not the network's: SGLang issue 3956 (v0.4.3) measured about 30 ms per token at batch 1 on one node and\n\
           27 ms on two H20 nodes at TP 16, while SGLang 0.5.6-0.5.12 on one node (its DeepSeek-R1 cookbook on 8 B200;\n\
           InferenceX's published baselines on 8 B200 and 8 H200) takes 7-14 ms at batch 1-8, within -1% to +28% of the\n\
           model with SGLang 0.5's fitted costs (60 µs per MoE layer, a quarter of TensorRT-LLM's per-sequence host cost).\n\
           With 0.4's cost on them they came out 2.4-3.2x slow. DataCrunch's SGLang v0.4.1 DeepSeek-V3 runs (two H200 nodes, and one\n\
           node with attention DP) are software-bound (16-80 output tokens/s per GPU, CUDA graphs off, every rate\n\
           saturating the server; the single-node runs miss by as much as the two-node ones) and are listed under Not\n\
           evaluated with that reason. No public decode measurement of a dense model with TP spanning two nodes was found.\n\
         - **Wide EP** has four public deployments (DeepSeek's Day-6 H800 decode, TensorRT-LLM's B200 DP8/EP8, vLLM's GB200\n\
           decode and GB300 EP2). The two offline (in-flight batching) rows run attention DP ranks coupled by the EP\n\
           exchange: a rank's prefill chunk holds every rank (TensorRT-LLM tech blog 10, \"ADP Balance Strategy\"), which the\n\
           model charges to the whole stage. vLLM's per-sequence factor is fitted on its two rows.\n\
         - **KV transfer** has eight rows, all between two hosts from GPU memory: NIXLBench between two A3-Mega H100 VMs\n\
           (64 MiB) within 1%; Mooncake Transfer Engine benchmarks with buffers on all 8 GPUs of AWS p5en (16x 200G EFA),\n\
           p6-b200 (8x 400G EFA) and p6-b300 (16x 400G EFA), which reach 76-94% of the EFA line rate where the model takes\n\
           95.5% (nccl-tests' goodput): 0-20% off; and a vLLM NIXL-connector handoff on GB200 (4.78 MB in 1.49 ms, 1.15 ms of\n\
           it posting), which the engine's connector now explains: vLLM's 16-token blocks, one descriptor per layer, block\n\
           and K/V region at 3.75 µs each (vLLM RFC 50913) plus its request cost; its model is not stated, so its bytes are\n\
           taken as Llama 3 8B's shape at one byte per element (73 tokens, 320 descriptors). Host-memory (CPU-to-CPU) runs\n\
           are listed below as not evaluated: the source bounds them by the hosts' DRAM bandwidth.\n\n\
         ## Order of deployments of one model\n\n\
         {exact} of {total} groups ordered exactly as measured.\n\n\
         | group | measured (tokens/s per GPU) | model | same order |\n|---|---|---|---|\n{}\n\n\
         ## Rows\n\n| source | model | hardware | deployment | class | metric | measured | model | error | note |\n|---|---|---|---|---|---|---|---|---|---|\n{}\n\n\
         ## Not evaluated\n\n| source | model | hardware | phase | why |\n|---|---|---|---|---|\n{}\n",
        n_rows,
        n_eval,
        n_rows,
        n_rows - n_eval,
        eff_line(HwClass::Hopper),
        eff_line(HwClass::Blackwell),
        engine_lines,
        class_lines.join("\n"),
        pf.len(),
        median(&mut pf) * 100.0,
        order_lines.join("\n"),
        lines.join("\n"),
        not_evaluated.join("\n"),
    );
    let bands_file = format!(
        "//! Generated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-serving --test serving_accuracy`:\n\
         //! median absolute error per accuracy class and hardware class on validation/serving.csv, percent.\n\n\
         use crate::hardware::{{AccuracyClass, HwClass}};\n\n\
         /// The band of `class` on `hw`; `None` where no published row covers it.\n\
         pub fn band_pct(class: AccuracyClass, hw: HwClass) -> Option<f64> {{\n    match (class, hw) {{\n{bands_rs}        _ => None,\n    }}\n}}\n"
    );
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc_path = format!("{root}/docs/serving-accuracy.md");
    let bands_path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/bands.rs");
    if std::env::var_os("FABRICSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(&doc_path, &doc).expect("write docs/serving-accuracy.md");
        std::fs::write(bands_path, &bands_file).expect("write src/bands.rs");
    }
    println!("{doc}");
    assert_eq!(std::fs::read_to_string(bands_path).unwrap_or_default(), bands_file, "src/bands.rs is stale: rerun with FABRICSCOPE_WRITE_DOCS=1");
    assert_eq!(std::fs::read_to_string(&doc_path).unwrap_or_default(), doc, "docs/serving-accuracy.md is stale: rerun with FABRICSCOPE_WRITE_DOCS=1");
    // What the data gives today, held: dense TP inside NVLink within the 30% on both
    // classes, and the bands the code carries equal to these medians (checked above).
    for hw in ["Hopper", "Blackwell"] {
        let m = medians.get(&(AccuracyClass::DenseTpNvlink, hw)).copied().unwrap_or(f64::NAN);
        assert!(m <= 30.0, "dense TP inside NVLink on {hw}: {m}%");
    }
    assert!(n_eval >= 160, "rows expressed: {n_eval}");
    // The 90% intervals, held out by source (docs/calibration.md, src/calibration.csv): the
    // family's floor held as for collectives and training, and issue 34's width target for
    // serving (median half-width at most 40% of the prediction). Both are met as a family, not
    // per class: dense TP across nodes has one source, so held out it is judged against the
    // other sources' interval.
    let cal = calibration::check_at("serving", "Serving and KV transfer", "crates/serving/src/calibration.csv", &samples, None);
    let all = cal.iter().find(|r| r.key == "all").expect("an 'all' level");
    assert!(all.coverage >= calibration::FAMILY_COVERAGE_FLOOR, "serving: held-out coverage {:.1}% of {} rows", 100.0 * all.coverage, all.rows);
    assert!(all.bounds.is_some(), "serving: {all:?}");
    assert!(all.median_half_width <= 0.40, "serving: median half-width {:.1}% of {} rows", 100.0 * all.median_half_width, all.rows);
    assert_eq!(band_pct(AccuracyClass::WideEp, HwClass::Other), None);
}

fn short(s: &str) -> String {
    s.split(['(', ',']).next().unwrap_or("").trim().replace('|', "/")
}
