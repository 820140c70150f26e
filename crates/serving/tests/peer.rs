//! The serving model side by side with a peer: validation/serving-peer.csv holds NVIDIA
//! aiconfigurator 0.12.0's (PyPI) decode estimates for 35 deployments (dense Llama 3.1 8B / 70B
//! / 405B and Qwen3-32B, wide-EP DeepSeek-V3; H100, H200, B200, GB200; TensorRT-LLM's
//! per-operation tables), produced by scripts/serving-peer.py (only the peer's printed outputs
//! are kept; validation/README.md). Every row runs through the serving model with engine trtllm
//! as `fabricscope serve --phase decode --engine trtllm` runs it: same cluster flags (--gpu,
//! --nodes), 1024 in / 1024 out, the decode context at its default (input + output / 2, the
//! mean over a request's decode, as the peer's figure is the mean over its output steps), FP8
//! weights and KV cache. Compared on output tokens/s per GPU of the decode step at the row's
//! batch per attention-DP rank (ours / the peer's; > 1: we predict faster).
//!
//! The table of docs/serving-peer.md between its `peer-table` markers is generated here:
//! FABRICSCOPE_WRITE_DOCS=1 rewrites it, otherwise the test fails when it is stale. The issue's
//! target (issue 39: median ratio 0.85-1.15 for dense and for MoE) is met for both and held
//! here. The MoE median is near the band's top (GB200's rows: the peer prices an all-to-all
//! TensorRT-LLM does not run there), and docs/serving-peer.md states it.

use fabricscope_model::catalog::{GpuKind, ScaleUp};
use fabricscope_model::Cluster;
use fabricscope_serving::{serving_preset, Deployment, Engine, Phase, Precision, ServingDefaults};
use std::collections::BTreeMap;

/// Issue 39's band for the median ratio (dimensionless), which the table says each median is in
/// or outside.
const TARGET: (f64, f64) = (0.85, 1.15);

struct Row {
    kind: String,
    model: String,
    gpu: String,
    nodes: u32,
    tp: u32,
    ep: u32,
    dp: u32,
    batch: u32,
    input_len: u32,
    output_len: u32,
    peer_tpot_ms: f64,
    peer_tps_gpu: f64,
}

struct Out {
    row: Row,
    tpot_ms: f64,
    tps_gpu: f64,
}

fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/serving-peer.csv");
    let mut rd = csv::Reader::from_path(path).expect("validation/serving-peer.csv");
    let h = rd.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap_or_else(|| panic!("column {name}"));
    let (kind, model, gpu, nodes, tp, ep, dp, batch, il, ol, tpot, tps) = (
        col("kind"),
        col("model"),
        col("gpu"),
        col("nodes"),
        col("tp"),
        col("ep"),
        col("dp"),
        col("batch"),
        col("input_len"),
        col("output_len"),
        col("peer_tpot_ms"),
        col("peer_tokens_per_s_per_gpu"),
    );
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            for (c, want) in [(col("precision"), "fp8"), (col("kv_precision"), "fp8")] {
                assert_eq!(&r[c], want, "every row is FP8 weights and KV cache");
            }
            let n = |i: usize| r[i].parse::<u32>().unwrap();
            let f = |i: usize| r[i].parse::<f64>().unwrap();
            Row {
                kind: r[kind].to_string(),
                model: r[model].to_string(),
                gpu: r[gpu].to_string(),
                nodes: n(nodes),
                tp: n(tp),
                ep: n(ep),
                dp: n(dp),
                batch: n(batch),
                input_len: n(il),
                output_len: n(ol),
                peer_tpot_ms: f(tpot),
                peer_tps_gpu: f(tps),
            }
        })
        .collect()
}

/// The cluster `serve --gpu G --nodes N` builds: 8-GPU nodes on their own NVLink fabric, NVL72
/// trays of 4 for Grace Blackwell; one NIC per GPU (at most 8).
fn cluster(gpu: GpuKind, nodes: u32) -> Cluster {
    let gpn = if gpu.is_grace_blackwell() { 4 } else { Cluster::default().gpus_per_node };
    Cluster { gpu, nodes, gpus_per_node: gpn, scale_up: ScaleUp::natural(gpu), nics_per_node: gpn.min(Cluster::default().nics_per_node), ..Cluster::default() }
}

fn evaluate() -> Vec<Out> {
    rows()
        .into_iter()
        .map(|row| {
            let gpu = GpuKind::from_id(&row.gpu).unwrap_or_else(|| panic!("gpu {}", row.gpu));
            let topo = cluster(gpu, row.nodes).topology().unwrap();
            let m = serving_preset(&row.model).unwrap_or_else(|| panic!("model {}", row.model));
            let d = Deployment {
                phase: Phase::Decode,
                tp: row.tp,
                ep: row.ep,
                dp: row.dp,
                batch: row.batch,
                context: ServingDefaults::context(row.input_len, row.output_len),
                input_len: row.input_len,
                output_len: row.output_len,
                precision: Precision::Fp8,
                kv_precision: Some(Precision::Fp8),
                engine: Some(Engine::Trtllm),
                ..Deployment::default()
            };
            let r = fabricscope_serving::step::evaluate(&topo, &m, &d).unwrap_or_else(|e| panic!("{} on {} x{}: {e}", row.model, row.gpu, row.tp * row.dp));
            Out { tpot_ms: r.tpot_ms.unwrap(), tps_gpu: r.tokens_per_s_per_gpu, row }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    assert!(n > 0);
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ratio(o: &Out) -> f64 {
    o.tps_gpu / o.row.peer_tps_gpu
}

/// Median ratio per kind ("dense", "moe").
fn medians(outs: &[Out]) -> BTreeMap<String, (usize, f64)> {
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for o in outs {
        by.entry(o.row.kind.clone()).or_default().push(ratio(o));
    }
    by.into_iter().map(|(k, v)| (k, (v.len(), median(v)))).collect()
}

fn table(outs: &[Out]) -> String {
    let mut s = String::new();
    s.push_str("Generated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-serving --test peer` from `validation/serving-peer.csv`.\n\n");
    s.push_str("Median ratio, ours / the peer's output tokens/s per GPU (> 1: Fabricscope predicts the faster step):\n\n");
    s.push_str("| kind | GPU | rows | median ratio |\n|---|---|---|---|\n");
    let mut by: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for o in outs {
        by.entry((o.row.kind.clone(), o.row.gpu.clone())).or_default().push(ratio(o));
    }
    for ((k, g), v) in &by {
        s.push_str(&format!("| {k} | {g} | {} | {:.2} |\n", v.len(), median(v.clone())));
    }
    for (k, (n, m)) in medians(outs) {
        let inside = m >= TARGET.0 && m <= TARGET.1;
        s.push_str(&format!(
            "| **{k}** | all | {n} | **{m:.3}** ({} {:.2}-{:.2}) |\n",
            if inside { "inside" } else { "outside" },
            TARGET.0,
            TARGET.1
        ));
    }
    s.push_str("\nEvery row (TPOT: the decode step, ms; tokens/s per GPU of that step):\n\n");
    s.push_str("| kind | model | GPU | GPUs | TP | EP | DP | batch / rank | TPOT ours | TPOT peer | tok/s/GPU ours | tok/s/GPU peer | ratio |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for o in outs {
        let r = &o.row;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.0} | {:.0} | {:.2} |\n",
            r.kind,
            r.model,
            r.gpu,
            r.tp * r.dp,
            r.tp,
            r.ep,
            r.dp,
            r.batch,
            o.tpot_ms,
            r.peer_tpot_ms,
            o.tps_gpu,
            r.peer_tps_gpu,
            ratio(o)
        ));
    }
    s
}

const BEGIN: &str = "<!-- peer-table:begin -->\n";
const END: &str = "<!-- peer-table:end -->";

#[test]
fn peer_side_by_side() {
    let outs = evaluate();
    assert_eq!(outs.len(), 35, "rows in validation/serving-peer.csv");
    let m = medians(&outs);
    assert!(m.contains_key("dense") && m.contains_key("moe"), "{:?}", m.keys());
    for o in &outs {
        assert!(ratio(o).is_finite() && ratio(o) > 0.0);
    }
    let inside = |m: f64| m >= TARGET.0 && m <= TARGET.1;
    // Dense: inside issue 39's band.
    let dense = m["dense"].1;
    assert!(inside(dense), "dense median ratio {dense:.2} left {:.2}-{:.2}", TARGET.0, TARGET.1);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/serving-peer.md");
    let doc = std::fs::read_to_string(path).expect("docs/serving-peer.md");
    let (a, rest) = doc.split_once(BEGIN).expect("docs/serving-peer.md: the begin marker");
    let (_, b) = rest.split_once(END).expect("docs/serving-peer.md: the end marker");
    let want = format!("{a}{BEGIN}{}{END}{b}", table(&outs));
    if std::env::var_os("FABRICSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    assert_eq!(std::fs::read_to_string(path).unwrap(), want, "docs/serving-peer.md is stale: rerun with FABRICSCOPE_WRITE_DOCS=1");
    // MoE: inside the band since TensorRT-LLM's MoE kernels carry their measured fixed cost
    // (engine::TRTLLM_MOE_*); the document's prose states the median.
    let moe = m["moe"].1;
    assert!(inside(moe), "MoE median ratio {moe:.3} left {:.2}-{:.2}", TARGET.0, TARGET.1);
    let stated = format!("MoE {moe:.3}**");
    assert!(want.contains(&stated), "docs/serving-peer.md should state the MoE median as '{stated}'");
}
