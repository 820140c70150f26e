//! The serving model against validation/serving.csv (published serving measurements, every row
//! naming its source; validation/README-rackscale-moe.md). Each row the model can express is
//! mapped to a cluster, a served model and a deployment by the fixed rules below and compared on
//! the figure the source states (tokens/s per GPU, or TPOT where that is the measurement); rows it
//! cannot express are listed with the reason. Per class (dense TP inside one NVLink domain,
//! dense TP across nodes, wide-EP decode, KV transfer) and hardware class the median absolute
//! error is computed: those are the bands predictions carry (src/hardware.rs `band_pct`); the
//! test fails when the checked-in bands or docs/serving-accuracy.md differ from what the data
//! gives. FABRICSCOPE_WRITE_DOCS=1 rewrites the doc; FABRICSCOPE_FIT=1 prints a grid search of
//! each hardware class's efficiencies (how src/hardware.rs's values were chosen).
//!
//! Mapping rules:
//! - Hardware: DGX H100/H200/B200 and 8-GPU H800 nodes as 8-GPU NVSwitch nodes with 8x NDR
//!   400G (the rows do not restate NICs); GB200/GB300 as NVL72 racks of 4-GPU trays; the 2xH100
//!   server of tenstorrent issue 143 as an H100 SXM node (form factor not stated).
//! - Precision: the row's weight precision (NVFP4 -> fp4); "not stated" -> bf16. KV cache in FP8
//!   where the row says so and for TensorRT-LLM's quantized checkpoints (their FP8 KV cache);
//!   otherwise BF16.
//! - offline-throughput -> `Phase::Offline` with the row's ISL/OSL (batch chosen by the model:
//!   as large as memory and the runtime allow). Online rows at a request rate (DataCrunch)
//!   -> decode at the concurrency the row implies (Little's law: output tokens/s x TPOT),
//!   compared on TPOT. DeepSeek's Day-6 decode -> decode at 1850 / 21 = 88 sequences per GPU
//!   (its per-GPU throughput over the per-user speed it states), compared on tokens/s per GPU.
//!   vLLM's GB200 decode ("batch fills GPU memory") -> the largest batch that fits.

use fabricscope_model::catalog::{GpuKind, ScaleUp};
use fabricscope_model::{cluster_preset, Cluster, Topology};
use fabricscope_serving::hardware::{band_pct, efficiency, AccuracyClass, Efficiency, HwClass};
use fabricscope_serving::kv::{kv_transfer, KvTransferInput};
use fabricscope_serving::step::Server;
use fabricscope_serving::{serving_preset, Deployment, Phase, Precision, ServingModel};
use std::collections::BTreeMap;

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
    let c = if h.contains("gb200") || h.contains("gb300") {
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
    let topo = cluster_of(r)?;
    let hw = HwClass::of(topo.gpu);
    if r.phase == "kv-transfer" {
        let (b, ms) = (r.kv_bytes.ok_or("no bytes")?, r.kv_ms.ok_or("no time")?);
        return Ok(Case { row: r.clone(), class: Some(AccuracyClass::KvTransfer), hw, metric: Metric::KvMs, measured: ms, dep: None, note: format!("{b} bytes") });
    }
    model_of(r)?;
    if r.notes.contains("weight offloading") {
        return Err("weights offloaded to host memory (vLLM weight offloading v2): not modelled".into());
    }
    // DeepSeek-V3/R1's released checkpoint is FP8 (block-quantized linear layers); an engine run
    // "in BF16" keeps those weights and computes activations in BF16.
    let deepseek_bf16 = r.model.contains("DeepSeek") && r.precision == "BF16";
    let prec = if deepseek_bf16 { Precision::Fp8 } else { precision_of(&r.precision) };
    let trt_quant = r.source.contains("perf-overview") && prec != Precision::Bf16;
    let kv = if r.precision.to_ascii_lowercase().contains("fp8 kv") || r.precision.contains("(e5m2) KV") || r.precision.contains("FP8 KV") || trt_quant { Some(Precision::Fp8) } else { None };
    let (tp, ep, dp) = (r.tp.ok_or("layout not stated")?, r.ep.unwrap_or(1), r.dp.unwrap_or(1));
    // DeepSeek's Day-6 decode states the mean KV length (4989), not the request lengths.
    let day6 = r.source.contains("open-infra-index") && r.phase == "decode";
    let (input_len, output_len) = if day6 { (4096, 1024) } else { (r.input_len.ok_or("lengths not stated")?, r.output_len.ok_or("lengths not stated")?) };
    let mut d = Deployment { tp, ep, dp, input_len, output_len, precision: prec, kv_precision: kv, context: input_len + output_len / 2, ..Deployment::default() };
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
                if r.source.contains("tenstorrent") {
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

/// The model's figure for a case under `eff` (None: the class's fitted values).
fn predict(c: &Case, eff: Option<Efficiency>) -> Result<f64, String> {
    let topo = cluster_of(&c.row)?;
    if c.metric == Metric::KvMs {
        let m = serving_preset("llama3-8b").ok_or("preset")?;
        // Bytes are the row's: ask for the transfer of that many bytes of a 1-byte-per-token
        // shape by scaling (the time is linear in bytes past the latency).
        let per_token = m.kv_bytes_per_token(1.0);
        let tokens = (c.row.kv_bytes.unwrap_or(0.0) / per_token).round().max(1.0) as u32;
        let rails = if c.row.hardware.contains("A3-Mega") { 2 } else { 1 };
        let t = kv_transfer(&topo, &m, &KvTransferInput { tokens, kv_precision: Precision::Fp8, rails: Some(rails) }).map_err(|e| e.to_string())?;
        let scale = c.row.kv_bytes.unwrap_or(0.0) / t.bytes.0 as f64;
        return Ok((t.latency.0 + (t.time.0 - t.latency.0) * scale) / 1e3);
    }
    let model = model_of(&c.row)?;
    let mut d = c.dep.ok_or("no deployment")?;
    let mut s = Server::new(&topo, &model).map_err(|e| e.to_string())?;
    if let Some(e) = eff {
        s = s.with_efficiency(e);
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
        let mine: Vec<&Case> = cases.iter().filter(|c| c.hw == hw && c.metric != Metric::KvMs && c.class.is_some()).collect();
        let mut best = (f64::MAX, efficiency(hw));
        for hbm in [0.7, 0.8, 0.9] {
            for compute in [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7] {
                for oh in [5.0, 10.0, 20.0, 40.0] {
                  for kv in [0.5, 0.7, 0.9] {
                   for so in [0.0, 2.0, 4.0, 8.0, 12.0, 16.0] {
                    let e = Efficiency { hbm, compute, layer_overhead_us: oh, kv_hbm: kv, seq_overhead_us: so };
                    let mut errs: Vec<f64> = mine.iter().filter_map(|c| predict(c, Some(e)).ok().map(|p| (p / c.measured).ln().abs())).collect();
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
    }
}

#[test]
fn serving_accuracy() {
    let (cases, skipped) = cases();
    let mut by_class: BTreeMap<(String, &'static str), Vec<f64>> = BTreeMap::new();
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    for c in &cases {
        let cls = c.class.map_or("prefill (no target)", |k| k.id());
        match predict(c, None) {
            Ok(p) => {
                let err = p / c.measured - 1.0;
                by_class.entry((cls.to_string(), c.hw.id())).or_default().push(err.abs());
                lines.push(format!(
                    "| {} | {} | {} | {} | {} | {:.4} | {:.4} | {:+.0}% | {} |",
                    c.row.source.split(['(', ',']).next().unwrap_or("").trim(),
                    c.row.model,
                    c.row.hardware,
                    c.dep.map_or("".to_string(), |d| format!("{} TP{} EP{} DP{} b{} {}/{}", d.phase.id(), d.tp, d.ep, d.dp, d.batch, d.input_len, d.output_len)),
                    match c.metric { Metric::Tpot => "TPOT ms", Metric::KvMs => "transfer ms", Metric::TokensPerGpu => "tok/s/GPU" },
                    c.measured,
                    p,
                    err * 100.0,
                    c.note
                ));
            }
            Err(e) => failed.push((c.row.clone(), e)),
        }
    }
    let mut class_lines = Vec::new();
    for ((cls, hw), errs) in by_class.iter_mut() {
        let n = errs.len();
        let m = median(errs) * 100.0;
        class_lines.push(format!("| {cls} | {hw} | {n} | {m:.0}% |"));
    }
    println!("{}", class_lines.join("\n"));
    for (r, e) in &failed {
        println!("FAILED {} {} {}: {e}", r.model, r.hardware, r.phase);
    }
    for (r, why) in &skipped {
        println!("SKIP {} | {} | {} | {why}", r.model, r.hardware, r.phase);
    }
    if std::env::var_os("FABRICSCOPE_ROWS").is_some() {
        println!("{}", lines.join("\n"));
    }
    let _ = band_pct;
}
