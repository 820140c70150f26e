//! Accuracy of the training-step model against published Megatron-LM / DeepSpeed throughput
//! (validation/training.csv): every row the model can express, compared like with like
//! (hardware FLOPs incl. recompute where the source counts them, model FLOPs where it reports
//! MFU). Asserts a median absolute error of at most 10% on TFLOP/s per GPU.
//!
//! Prints the per-row table; with `FABRICSCOPE_WRITE_DOCS=1` also writes
//! `docs/training-accuracy.md`:
//!
//! ```text
//! FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test training_accuracy -- --nocapture
//! ```

mod common;

use fabricscope_model::catalog::{GpuKind, GpuSpec, NicKind, ScaleUp};
use fabricscope_model::units::GBps;
use fabricscope_model::topology::Cluster;
use fabricscope_model::training::presets::gpt;
use fabricscope_model::training::{search, Constraints, Evaluator, Framework, Parallel, Recompute, SearchOptions, StepReport, Workload};
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
        self.s(k).parse().ok()
    }
    fn f(&self, k: &str) -> Option<f64> {
        self.s(k).parse().ok()
    }
}

/// One evaluated row.
struct Outcome {
    line: usize,
    source: &'static str,
    model: String,
    gpus: u32,
    gpu: &'static str,
    par: Parallel,
    filled: Vec<&'static str>,
    metric: &'static str,
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

/// Korthikanti et al. 2022 §6 model FLOPs per iteration (no recompute).
fn model_flops(w: &Workload) -> f64 {
    let (b, s, l, h, v) = (w.global_batch as f64, w.seq as f64, w.layers as f64, w.hidden as f64, w.vocab as f64);
    72.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h))
}

/// The cluster a row ran on, in the model's catalog.
fn cluster(gpu: GpuKind, gpus: u32) -> Cluster {
    match gpu {
        // DGX A100 (Selene): 8 A100 on NVLink3/NVSwitch, 8x HDR 200G InfiniBand per node.
        GpuKind::A100 => {
            let per = gpus.min(8);
            Cluster {
                gpu,
                nodes: gpus / per,
                gpus_per_node: per,
                scale_up: ScaleUp::NvSwitch { gen: 3 },
                nics_per_node: per,
                nic: NicKind::IbHdr,
                ..Cluster::default()
            }
        }
        // DGX-2: 16 V100 on NVLink2/NVSwitch; the rows use one node.
        _ => Cluster {
            gpu,
            nodes: 1,
            gpus_per_node: gpus,
            scale_up: ScaleUp::NvSwitch { gen: 2 },
            nics_per_node: 0,
            nic: NicKind::IbHdr,
            ..Cluster::default()
        },
    }
}

fn evaluate_row(line: usize, r: &Row) -> Result<Outcome, String> {
    let source_field = r.s("source");
    let source: &'static str = if source_field.starts_with("Narayanan") {
        "Narayanan 2021"
    } else if source_field.starts_with("Korthikanti") {
        "Korthikanti 2022"
    } else {
        "Megatron README 2020"
    };
    let gpu = if r.s("gpu_type").contains("A100") {
        GpuKind::A100
    } else if r.s("gpu_type").contains("V100") {
        GpuKind::V100
    } else {
        return Err(format!("GPU {} not in the calibration set", r.s("gpu_type")));
    };
    let gpus = r.u("gpus").ok_or("no GPU count")?;
    let notes = r.s("notes");
    let table = r.s("table_ref");
    let zero3 = table.contains("ZeRO-3");
    let mut w = gpt(r.s("model"), r.u("layers").ok_or("layers")?, r.u("hidden").ok_or("hidden")?, r.u("heads").ok_or("heads")?, r.u("global_batch").ok_or("batch")?);
    w.seq = r.u("seq_len").ok_or("seq")?;
    let dp = r.u("dp").ok_or("dp")?;
    let mut filled = Vec::new();
    let (tp, pp) = match (r.u("tp"), r.u("pp")) {
        (Some(t), Some(p)) => (t, p),
        _ => {
            // Table 2 gives only the model-parallel size: TP 8 inside the DGX node (the
            // paper's practice), PP the rest.
            let mp = gpus / dp;
            filled.push("tp=8");
            (8, mp / 8)
        }
    };
    let selective = notes.contains("selective");
    let recompute = if selective { Recompute::Selective } else { Recompute::Full };
    let fw = if zero3 {
        Framework::deepspeed_2021()
    } else if source == "Korthikanti 2022" {
        Framework::megatron_2022()
    } else {
        Framework::megatron_2021()
    };
    let interleave = notes.split("chunks=").nth(1).and_then(|s| s.chars().next()).and_then(|c| c.to_digit(10));
    let mut fixed = Constraints {
        tp: Some(tp),
        pp: Some(pp),
        dp: Some(dp),
        cp: Some(1),
        ep: Some(1),
        micro_batch: r.u("micro_batch"),
        interleave,
        recompute: Some(recompute),
        zero: Some(if zero3 { 3 } else { 0 }),
    };
    if source == "Megatron README 2020" {
        // No interleaving in 2020 (and PP is 1 anyway).
        fixed.interleave = Some(1);
    }
    if fixed.micro_batch.is_none() {
        filled.push("mb");
    }
    if fixed.interleave.is_none() {
        filled.push("v");
    }
    let mut topo = cluster(gpu, gpus).topology().map_err(|e| e.to_string())?;
    // The 2020 README ran on DGX A100s of 2020 (40 GB); the papers state 80 GB.
    let a100_40 = gpu == GpuKind::A100 && !r.s("gpu_type").contains("80GB");
    if a100_40 {
        topo.gpu = a100_40gb();
    }
    let mut ev = Evaluator::new(&topo, &w, fw).map_err(|e| e.to_string())?;
    let opts = SearchOptions { top: 1, fixed, sequence_parallel: selective, ..SearchOptions::default() };
    let res = search(&mut ev, &opts).map_err(|e| e.to_string())?;
    let report = match res.best.into_iter().next() {
        Some(b) => b,
        None => return Err(format!("no layout fits ({})", res.closest_unfit.map_or(String::new(), |c| c.bottleneck))),
    };
    let metric_field = r.s("utilization_metric");
    let (metric, measured, predicted) = if metric_field.contains("MFU") {
        let step = r.f("step_time_s").ok_or("no step time")?;
        ("model", model_flops(&w) / step / gpus as f64 / 1e12, report.model_tflops_per_gpu)
    } else {
        let m = r.f("measured_tflops_per_gpu").ok_or("no TFLOP/s")?;
        ("hardware", m, report.hardware_tflops_per_gpu)
    };
    Ok(Outcome {
        line,
        source,
        model: r.s("model").to_string(),
        gpus,
        gpu: if a100_40 { "A100-40GB" } else if gpu == GpuKind::A100 { "A100" } else { "V100" },
        par: report.mapping,
        filled,
        metric,
        measured,
        predicted,
        note: if selective { "SP+selective".into() } else if zero3 { "ZeRO-3".into() } else { "full recompute".into() },
        report,
    })
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
    let mut s = String::new();
    s.push_str("| line | source | model | GPUs | TP/PP/DP | mb | v | recompute | metric | measured TFLOP/s | predicted | error | memory GiB | largest overhead |\n");
    s.push_str("|---:|---|---|---:|---|---:|---:|---|---|---:|---:|---:|---:|---|\n");
    for o in outs {
        let p = &o.par;
        let filled = |k: &str, v: u32| if o.filled.contains(&k) { format!("{v}*") } else { v.to_string() };
        let tp = if o.filled.contains(&"tp=8") { format!("{}*", p.tp) } else { p.tp.to_string() };
        let b = &o.report.breakdown;
        let step = o.report.step_time_s * 1e6;
        let mut parts: Vec<(&str, f64)> = b.parts().iter().filter(|x| x.0 != "compute").map(|x| (x.1, x.2 .0)).collect();
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let over = parts.first().map_or(String::new(), |(n, v)| format!("{n} {:.0}%", 100.0 * v / step));
        s.push_str(&format!(
            "| {} | {} | {} | {} {} | {}/{}/{} | {} | {} | {} | {} | {:.1} | {:.1} | {:+.1}% | {:.1} | {} |\n",
            o.line,
            o.source,
            o.model,
            o.gpus,
            o.gpu,
            tp,
            p.pp,
            p.dp,
            filled("mb", p.micro_batch),
            filled("v", p.interleave),
            o.note,
            o.metric,
            o.measured,
            o.predicted,
            100.0 * o.error(),
            o.report.memory_gib_per_gpu,
            over
        ));
    }
    s
}

#[test]
fn training_model_matches_published_megatron_runs() {
    let path = root().join("validation/training.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows = common::read_csv(&text);
    let header = &rows[0];
    let cols: HashMap<String, usize> = header.iter().enumerate().map(|(i, h)| (h.trim().to_string(), i)).collect();
    let mut outs = Vec::new();
    let mut skipped = Vec::new();
    for (i, v) in rows.iter().enumerate().skip(1) {
        if v.len() < 3 {
            continue;
        }
        let r = Row { cols: &cols, v };
        match evaluate_row(i + 1, &r) {
            Ok(o) => outs.push(o),
            Err(e) => skipped.push((i + 1, r.s("model").to_string(), e)),
        }
    }
    let errs: Vec<f64> = outs.iter().map(|o| o.error().abs()).collect();
    let med = median(errs.clone());
    let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
    let t = table(&outs);
    println!("{t}");
    println!("rows evaluated: {}, skipped: {}", outs.len(), skipped.len());
    for (l, m, e) in &skipped {
        println!("skipped line {l} ({m}): {e}");
    }
    println!("median |error| {:.1}%, mean {:.1}%", 100.0 * med, 100.0 * mean);
    let mut by_source: Vec<(&str, Vec<f64>)> = Vec::new();
    for o in &outs {
        match by_source.iter_mut().find(|x| x.0 == o.source) {
            Some(x) => x.1.push(o.error().abs()),
            None => by_source.push((o.source, vec![o.error().abs()])),
        }
    }
    for (s, v) in &by_source {
        println!("{s}: {} rows, median |error| {:.1}%", v.len(), 100.0 * median(v.clone()));
    }
    if std::env::var("FABRICSCOPE_WRITE_DOCS").is_ok_and(|v| v == "1") {
        let doc = render_doc(&t, &outs, &skipped, med, mean, &by_source);
        let out = root().join("docs/training-accuracy.md");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        std::fs::write(&out, doc).unwrap();
        println!("wrote {}", out.display());
    }
    assert!(outs.len() >= 40, "only {} rows expressible", outs.len());
    assert!(med <= 0.10, "median |error| {:.1}% > 10%", 100.0 * med);
}

fn render_doc(t: &str, outs: &[Outcome], skipped: &[(usize, String, String)], med: f64, mean: f64, by_source: &[(&str, Vec<f64>)]) -> String {
    let mut s = String::new();
    s.push_str(DOC_HEAD);
    s.push_str(&format!(
        "\n## Result\n\n{} of {} rows evaluated; median absolute error **{:.1}%**, mean {:.1}%.\n\n",
        outs.len(),
        outs.len() + skipped.len(),
        100.0 * med,
        100.0 * mean
    ));
    for (src, v) in by_source {
        s.push_str(&format!("- {src}: {} rows, median |error| {:.1}%\n", v.len(), 100.0 * median(v.clone())));
    }
    for (l, m, e) in skipped {
        s.push_str(&format!("- skipped line {l} ({m}): {e}\n"));
    }
    s.push_str("\n`*` marks a value the source does not state, filled by the model's own search (micro-batch `mb`, interleave `v`) or by the paper's practice (TP 8 inside a DGX node).\n\n");
    s.push_str(t);
    let mut worst: Vec<&Outcome> = outs.iter().collect();
    worst.sort_by(|a, b| b.error().abs().total_cmp(&a.error().abs()));
    s.push_str("\n## Worst rows and why\n\n");
    for o in worst.iter().take(8) {
        s.push_str(&format!("- line {} ({}, {}, {} GPUs): {:+.1}%. {}\n", o.line, o.source, o.model, o.gpus, 100.0 * o.error(), why(o)));
    }
    s.push_str(&h100_section());
    s.push_str(DOC_TAIL);
    s
}

/// Hopper is not in the calibration data: the model's MFU for H100 runs whose utilisation is
/// published, side by side (not fitted, not asserted: a record of how far the physics carries).
fn h100_section() -> String {
    let mfu = |preset: &str, nodes: u32, tp: u32, pp: u32, cp: u32| -> String {
        let w = fabricscope_model::training::preset(preset).expect("preset");
        let topo = Cluster { nodes, ..Cluster::default() }.topology().expect("DGX H100 cluster");
        let mut ev = Evaluator::new(&topo, &w, Framework::default()).expect("evaluator");
        let fixed = Constraints { tp: Some(tp), pp: Some(pp), cp: Some(cp), ..Constraints::default() };
        match search(&mut ev, &SearchOptions { top: 1, fixed, ..SearchOptions::default() }) {
            Ok(r) => r.best.first().map_or("no layout fits".into(), |b| format!("{:.0}%", 100.0 * b.mfu)),
            Err(e) => e.to_string(),
        }
    };
    format!(
        "\n## Hopper, against published utilisation (not calibrated)\n\n\
| run | published MFU | model |\n|---|---|---|\n\
| GPT-3 175B, TP4 PP8, 512 H100 | up to 47% for GPT models of 2B-462B on H100 (NVIDIA Megatron-LM README, Megatron-Core weak scaling) | {} |\n\
| Llama 3 405B, TP8 PP16, 8,192 H100, seq 8192 | 43% BF16 (Dubey et al. 2024, Llama 3 paper, Table 4) | {} |\n\
| Llama 3 405B, TP8 PP16, 16,384 H100, seq 8192 | 41% (same table) | {} |\n\n\
Best micro-batch, recompute and ZeRO stage by the model's search; DGX H100 nodes with 8x NDR 400G.\n\
The model is optimistic for compute-bound H100 jobs (GPT-3 175B) and close to or below the\n\
published figure for the communication-heavy 405B runs, so the gap is not one H100 factor and\n\
none was fitted. Likely causes, none modelled: H100 clocks below 1830 MHz under sustained\n\
700 W load, smaller effective GEMMs than the MAMF shape after TP splits, and kernel and\n\
launch overheads that grew relative to Hopper's faster matmuls.\n",
        mfu("gpt3-175b", 64, 4, 8, 1),
        mfu("llama3-405b", 1024, 8, 16, 1),
        mfu("llama3-405b", 2048, 8, 16, 1),
    )
}

/// The known reason a row is off, by category.
fn why(o: &Outcome) -> &'static str {
    if o.note == "ZeRO-3" {
        "DeepSpeed's 2021 ZeRO-3: measured step times are flat from 768 to 1536 GPUs (66.7 s) and imply ~21 GB/s of gather/scatter bandwidth per GPU, an eighth of what NCCL's rings reach on these nodes (the model's rate). The model predicts a ZeRO-3 whose per-layer collectives run at NCCL speed; the rows measure that implementation's overheads, not the fabric."
    } else if o.source == "Narayanan 2021" && o.filled.contains(&"mb") {
        "Micro-batch (and interleave) not stated: filled with the model's optimum, an upper bound; the 2021 release also predates gradient-accumulation fusion and other kernel work that the 2022 rows (within 6%) include."
    } else if o.source == "Narayanan 2021" {
        "The 2021 Megatron-LM release: the same hardware and configurations ran 5-10% faster a year later (Korthikanti 2022 rows), which the model, derived from kernel measurements, tracks."
    } else if o.gpu == "V100" {
        "V100 has no published MAMF; the matmul ceiling (0.80) and the sustained clock (0.91, from Summit's Rpeak) are estimates."
    } else {
        "Within the model's spread for its GPU class."
    }
}

const DOC_HEAD: &str = "# Training-step model: accuracy against published runs

Generated by `crates/model/tests/training_accuracy.rs`. Regenerate with

```text
FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test training_accuracy -- --nocapture
```

Data: `validation/training.csv`, 42 published Megatron-LM and DeepSpeed runs on DGX A100 (Selene)
and DGX-2 V100 (Narayanan et al. 2021, Korthikanti et al. 2022, the Megatron-LM README of 2020).
Every row is expressible and evaluated. The test asserts a median absolute error of at most 10%
on TFLOP/s per GPU.

How each row is evaluated:

- **Cluster**: the catalog's DGX A100 (8x A100 80GB on NVLink3/NVSwitch, 8x HDR 200G per node,
  rail-optimised non-blocking fat tree) or one DGX-2 node (V100 on NVLink2/NVSwitch). The
  README's 2020 A100 rows use the A100 of 2020's DGX A100, 40 GB of HBM2 at 1,555 GB/s (the
  80 GB part shipped from November 2020; the papers state 80 GB).
- **Software**: the framework release the source used: `megatron-lm-2021` (materialised
  attention with fused softmax, gradients all-reduced after the pipeline flush, blocking p2p
  with scatter/gather, 16-bit gradient all-reduce, no gradient-accumulation fusion),
  `megatron-lm-2022` for Korthikanti (the same plus gradient-accumulation fusion), and
  `deepspeed-2021` for the ZeRO-3 rows. Full recompute everywhere except Korthikanti's
  sequence-parallel + selective rows.
- **Unstated settings**: Table 2 gives only the model-parallel size (96, 280): TP 8 inside the
  node and PP the rest, the paper's stated practice. Micro-batch and interleave where not
  given are chosen by the model's own search among the values that fit (the paper notes the
  best micro-batch is model-dependent and that its analytical model can pick it); this makes
  those predictions an upper bound.
- **Like with like**: Narayanan et al. and the README count hardware FLOPs including the
  recompute forward pass (their eq. 3): compared with the model's hardware TFLOP/s, whose
  FLOP count equals eq. 3 exactly for these models. Korthikanti et al. report model FLOPs
  (MFU): the measured value is their model-FLOPs formula over the published iteration time
  and GPU count, compared with the model's model TFLOP/s.
";

const DOC_TAIL: &str = "
## Compute model (how the efficiency is derived)

No parameter is fitted to these rows. Per GPU class the model takes published hardware
figures; everything else follows from the matrix shapes and byte counts of the job
(`crates/model/src/training/efficiency.rs`, `step.rs`):

1. **Matmul efficiency from shape.** For `C[M x N] = A[M x K] B[K x N]` the model considers the
   tile shapes cuBLAS chooses among (256x128 ... 64x64) and split-K, and multiplies
   *tile intensity* `I / (I + c)` with `I = tm tn / (tm + tn)` and `c` = tensor FLOPs per
   shared-memory element / 4 (Volta 8, Ampere 16, Hopper/Blackwell 32), *wave quantisation*
   (tiles over SMs in whole waves, padding to whole tiles), and a *K pipeline* factor
   `K / (K + k0)` with `k0` = peak FLOP/s / HBM bytes/s (the fixed cost of writing a tile's
   output, in K-depth). The best choice is scaled so that at the shape where the **maximum
   achievable matmul FLOPS** (MAMF) was measured the model returns that measurement, and no
   shape exceeds it (Bekman, ml-engineering: A100 86.9%, H100 80.3%, B200 77.6%, GB200 72.9% of
   BF16 peak; FP8 H100 70.9%, H200 73.4%, B200 76.3%, GB200 72.3%). Time is the larger of the
   FLOPs at that efficiency and the bytes at HBM bandwidth. V100 and H100 PCIe have no
   published MAMF; their values (0.80, 0.75) are flagged estimates.
2. **Sustained clock.** The V100 and A100 datasheet peaks assume the maximum boost clock, which
   they cannot hold at their power limit under dense tensor-core load: NVIDIA rates A100 Rpeak
   at 1305 MHz (0.926 of 1410); Summit's Rpeak implies ~0.91 for V100. The H100 peak is quoted
   at 1830 MHz, below its 1980 MHz boost, i.e. already at a sustainable clock (1.0, as for
   Blackwell).
3. **Memory-bound kernels** (norms, GeLU/SwiGLU, dropout, residual adds, rotary, softmax over
   materialised scores, the context permute, cross-entropy in FP32) move their bytes at 80% of
   HBM bandwidth; every kernel adds a 2 µs launch/tail gap. Without sequence parallelism the
   norms, dropouts and residuals run on the full `s b h` in every TP rank, which is why TP-only
   scaling loses efficiency on both A100 and V100. The optimizer streams 42 bytes per parameter
   of its shard with FP32 main grads, 54 with 16-bit grads (copy, unscale, norm, Adam, copy,
   zero); without gradient-accumulation fusion a separate pass adds each micro-batch's
   gradient.
4. **Attention**: materialised (2020-2022 Megatron: scores written, softmax, dropout, two
   batched matmuls with K = head dim) or fused FlashAttention (A100: 72%/55% of peak forward/
   backward, Hopper/Blackwell 70%/50%, times `s / (s + 160)`; causal blocks skipped).
5. **Communication** comes from the NCCL-faithful collective model on the tier each group
   crosses: TP all-reduce or all-gather/reduce-scatter per layer, exposed (with SP, the
   backward re-gather and reduce-scatter are exposed in 2021-22 releases and run under the
   matmuls in Megatron-Core, costing the SMs their NCCL channels take); PP send/receive per
   micro-batch per stage boundary; DP all-reduce or reduce-scatter + all-gather, with only the
   part that does not fit behind the last micro-batch's backward exposed (plus the last
   bucket and the SMs NCCL's channels take while it overlaps); ZeRO-3 gathers per layer
   behind the previous layer's compute; CP's K/V ring behind attention; EP all-to-all
   exposed.
6. **Sharing links**: every group of one kind communicates at once. A domain hosts
   `domain / per_domain` groups, each driving the NICs of its own GPUs' rails; when they ask
   for more NICs than the domain has (e.g. 8 DP groups on a node with 4 NICs) each group gets
   its share (`Comm::new_shared`). A strided group that crosses leaves with few domains gets
   the spine's oversubscription the collective model would not infer from its rank count.
7. **Pipeline**: `m x` the slowest stage (the last one carries the logits and loss, uneven
   splits give the first and last stages a layer fewer) plus the bubble `(p - 1) / v` of a
   typical stage; blocking p2p costs two transfers per micro-batch chunk, overlapped p2p only
   those of fill and drain.

## What the data cannot check

Every calibration row is on V100 or A100 with 2020-2022 software. Hopper and Blackwell
predictions rest on their MAMF measurements, FlashAttention-3-class kernel efficiencies and the
same physics; no Hopper or Blackwell training run was used to set or tune anything. Known simplifications: MoE routing is taken as balanced; DeepSeek-V3's
MLA is approximated by grouped-query attention; TP communication is never overlapped with
matmuls (Megatron-Core's userbuffer overlap would hide part of it); the runtime memory reserve
is a flat 2 GiB.
";
