//! TensorRT-LLM's MoE kernels as measured: validation/trtllm-moe-kernels.csv holds rows of NVIDIA
//! aiconfigurator 0.12.0's TensorRT-LLM 1.3.0rc20 MoE tables (systems/data/<gpu>/moe/trtllm/
//! 1.3.0rc20/moe_perf.parquet; Apache-2.0; validation/README.md): one rank's MoE layer of
//! DeepSeek-V3's shape (7168 hidden, 2048 intermediate, 256 experts, top 8), block FP8,
//! balanced load, MoE TP 1, EP 8-256, 32-4096 tokens over the EP group, on H100, H200, B200 and
//! GB200. `engine::fit_moe_kernels` decomposes each GPU's rows into a cost per layer whatever
//! the experts per rank and a streaming share; src/engine.rs's per-class values must be what
//! it gives (the mean of the class's GPUs, rounded to 1 µs and 0.01).
//! The rows were taken from the parquet files by filtering on exactly these columns (kernel
//! `moe_torch_flow_cutlass` on Hopper, `deepgemm` on Blackwell: the block-FP8 kernels each
//! GPU's table holds for this shape); `source_file` names each row's file.

use fabricscope_model::catalog::GpuKind;
use fabricscope_serving::engine::{fit_moe_kernels, fit_moe_kernels_upto, Engine, MoeKernelRow, MoeKernels, TRTLLM_MOE_BLACKWELL, TRTLLM_MOE_HOPPER};
use fabricscope_serving::hardware::HwClass;
use std::collections::BTreeMap;

/// The rows, by GPU id.
fn rows() -> BTreeMap<String, Vec<MoeKernelRow>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/trtllm-moe-kernels.csv");
    let mut rd = csv::Reader::from_path(path).expect("validation/trtllm-moe-kernels.csv");
    let h = rd.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap_or_else(|| panic!("column {name}"));
    let mut out: BTreeMap<String, Vec<MoeKernelRow>> = BTreeMap::new();
    for r in rd.records() {
        let r = r.unwrap();
        let n = |c: &str| r[col(c)].parse::<u32>().unwrap();
        assert_eq!((&r[col("moe_dtype")], &r[col("distribution")], n("moe_tp_size")), ("fp8_block", "balanced", 1));
        // Gated experts: gate and up (hidden x 2 intermediate) and down (intermediate x hidden),
        // one byte per FP8 weight (the block scales, 1/16384 of it, left out).
        let expert_bytes = 3.0 * n("hidden_size") as f64 * n("inter_size") as f64;
        out.entry(r[col("gpu")].to_string()).or_default().push(MoeKernelRow {
            tokens: n("num_tokens"),
            ep: n("moe_ep_size"),
            experts: n("num_experts"),
            top_k: n("topk"),
            expert_bytes,
            latency_us: r[col("latency_ms")].parse::<f64>().unwrap() * 1e3,
        });
    }
    out
}

fn fits() -> BTreeMap<String, MoeKernels> {
    rows()
        .into_iter()
        .map(|(g, v)| {
            let gpu = GpuKind::from_id(&g).unwrap_or_else(|| panic!("gpu {g}")).spec();
            let f = fit_moe_kernels(&v, gpu.hbm_bw.0).unwrap_or_else(|| panic!("{g}: too few rows"));
            (g, f)
        })
        .collect()
}

fn class_mean(f: &BTreeMap<String, MoeKernels>, gpus: [&str; 2]) -> MoeKernels {
    let (a, b) = (f[gpus[0]], f[gpus[1]]);
    MoeKernels { fixed_us: ((a.fixed_us + b.fixed_us) / 2.0).round(), fp8_stream_share: ((a.fp8_stream_share + b.fp8_stream_share) / 2.0 * 100.0).round() / 100.0 }
}

#[test]
fn trtllm_moe_kernels_are_the_fit() {
    let f = fits();
    for (g, k) in &f {
        println!("{g}: {:.1} µs per MoE layer, FP8 experts streamed at {:.3} of HBM", k.fixed_us, k.fp8_stream_share);
        // Every GPU shows the cost: 25-40 µs per layer, whatever the experts per rank.
        assert!(k.fixed_us > 25.0 && k.fixed_us < 45.0, "{g}: {k:?}");
    }
    assert_eq!(class_mean(&f, ["h100", "h200"]), TRTLLM_MOE_HOPPER, "Hopper: src/engine.rs against the fit");
    assert_eq!(class_mean(&f, ["b200", "gb200"]), TRTLLM_MOE_BLACKWELL, "Blackwell: src/engine.rs against the fit");
    assert_eq!(Engine::Trtllm.moe_kernels(HwClass::Hopper), Some(TRTLLM_MOE_HOPPER));
    assert_eq!(Engine::Trtllm.moe_kernels(HwClass::Blackwell), Some(TRTLLM_MOE_BLACKWELL));
    assert_eq!(Engine::Vllm.moe_kernels(HwClass::Hopper), None);
    assert_eq!(Engine::Sglang.moe_kernels(HwClass::Blackwell), None);
}

/// The layer as decomposed (fixed cost + expert bytes streamed at the share) against the table
/// at the decode steps of the side-by-side set (256-4,096 tokens over the EP group, EP 8-32):
/// the fit over decode token counts (up to 128 tokens per expert) misses it by less than the
/// former model (the class's FP8-experts share alone, no fixed cost: Hopper 0.7, Blackwell
/// 0.65) and less than a fit over the smallest counts alone (up to 8 tokens per expert, where
/// the intercept is flattest). Median |error| per GPU, printed and held.
#[test]
fn the_decomposition_fits_the_decode_steps() {
    let former = |g: &str| if g.starts_with('h') { 0.7 } else { 0.65 };
    for (g, v) in rows() {
        let gpu = GpuKind::from_id(&g).unwrap().spec();
        let bw = gpu.hbm_bw.0 * 1e3; // bytes per µs
        let wide = fit_moe_kernels(&v, gpu.hbm_bw.0).unwrap();
        let narrow = fit_moe_kernels_upto(&v, gpu.hbm_bw.0, 8).unwrap();
        let cells: Vec<&MoeKernelRow> = v.iter().filter(|r| r.ep <= 32 && r.tokens >= 256).collect();
        let med = |f: &dyn Fn(&MoeKernelRow) -> f64| {
            let mut e: Vec<f64> = cells.iter().map(|r| (f(r) / r.latency_us - 1.0).abs()).collect();
            e.sort_by(|a, b| a.total_cmp(b));
            let n = e.len();
            if n % 2 == 1 { e[n / 2] } else { (e[n / 2 - 1] + e[n / 2]) / 2.0 }
        };
        let bytes = |r: &MoeKernelRow| r.experts as f64 / r.ep as f64 * r.expert_bytes;
        let e_wide = med(&|r| wide.fixed_us + bytes(r) / (bw * wide.fp8_stream_share));
        let e_narrow = med(&|r| narrow.fixed_us + bytes(r) / (bw * narrow.fp8_stream_share));
        let e_former = med(&|r| bytes(r) / (bw * former(&g)));
        println!(
            "{g}: {} cells; median |error|: decode fit ({:.1} µs, {:.2}) {:.1}%, smallest counts ({:.1} µs, {:.2}) {:.1}%, former share alone {:.1}%",
            cells.len(),
            wide.fixed_us,
            wide.fp8_stream_share,
            100.0 * e_wide,
            narrow.fixed_us,
            narrow.fp8_stream_share,
            100.0 * e_narrow,
            100.0 * e_former
        );
        assert!(e_wide < e_narrow && e_wide < e_former, "{g}: {e_wide} vs {e_narrow}, {e_former}");
    }
}
