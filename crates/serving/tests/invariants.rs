//! Physical invariants of the serving model, over random deployments: more HBM bandwidth never
//! slows decode; TP that crosses the NVLink boundary is never faster than the same TP inside one
//! domain at batch 1; a larger batch never lowers tokens/s per GPU while it fits; and the KV
//! cache of DeepSeek-like dimensions is smallest with MLA, then GQA, then MHA; a KV transfer
//! never gets faster as its bytes grow, nor slower with more NICs or a faster NIC, and a
//! disaggregated request's first token never comes sooner than the same request served whole.

use fabricscope_model::catalog::{GpuKind, GpuSpec};
use fabricscope_model::{Cluster, Topology};
use fabricscope_model::catalog::ScaleUp;
use fabricscope_serving::model::DEEPSEEK_MLA;
use fabricscope_serving::step::Server;
use fabricscope_model::catalog::NicKind;
use fabricscope_serving::kv::{kv_transfer, KvTransferInput};
use fabricscope_serving::{serving_preset, Attention, Deployment, Precision, ServingModel};
use proptest::prelude::*;

const DENSE: [&str; 4] = ["llama3-8b", "llama3-70b", "qwen2.5-72b", "qwen3-32b"];
const ALL: [&str; 6] = ["llama3-8b", "llama3-70b", "qwen3-32b", "qwen3-235b-a22b", "deepseek-v3", "kimi-k2"];

fn topo(gpu: GpuKind, nodes: u32, gpn: u32) -> Topology {
    Cluster { gpu, nodes, gpus_per_node: gpn, scale_up: ScaleUp::natural(gpu), nics_per_node: gpn.min(8), ..Cluster::default() }
        .topology()
        .expect("a valid cluster")
}

/// `t` with its GPU's HBM bandwidth scaled by `f` (the spec is leaked: tests only).
fn with_hbm(t: &Topology, f: f64) -> Topology {
    let spec: &'static GpuSpec = Box::leak(Box::new(GpuSpec { hbm_bw: fabricscope_model::units::GBps(t.gpu.hbm_bw.0 * f), ..*t.gpu }));
    Topology { gpu: spec, ..t.clone() }
}

fn tpot(t: &Topology, m: &ServingModel, d: &Deployment) -> Option<f64> {
    Server::new(t, m).ok()?.evaluate(d).ok()?.tpot_ms
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn more_hbm_bandwidth_never_slows_decode(
        mi in 0usize..ALL.len(), tp_exp in 0u32..4, batch in 1u32..256, context in 1u32..8192,
        f in 1.0f64..4.0, gpu in prop::sample::select(vec![GpuKind::H100, GpuKind::H200, GpuKind::B200]),
    ) {
        let m = serving_preset(ALL[mi]).unwrap();
        let t = topo(gpu, 16, 8);
        let tp = 1 << tp_exp;
        let moe = m.is_moe();
        // MoE: experts over a whole node (EP 8 over attention DP), else plain TP.
        let d = if moe {
            Deployment { tp, dp: 8 / tp, ep: 8, batch, context, precision: Precision::Fp8, ..Deployment::default() }
        } else {
            Deployment { tp, batch, context, precision: Precision::Fp8, ..Deployment::default() }
        };
        let (Some(a), Some(b)) = (tpot(&t, &m, &d), tpot(&with_hbm(&t, f), &m, &d)) else { return Ok(()) };
        prop_assert!(b <= a * (1.0 + 1e-12), "{}: {a} ms at 1x, {b} ms at {f}x", ALL[mi]);
    }

    #[test]
    fn tp_across_nodes_is_never_faster_than_inside_nvlink_at_batch_1(
        mi in 0usize..DENSE.len(), tp_exp in 1u32..4, context in 1u32..8192,
        gpu in prop::sample::select(vec![GpuKind::H100, GpuKind::H200, GpuKind::B200, GpuKind::A100]),
    ) {
        let m = serving_preset(DENSE[mi]).unwrap();
        let tp = 1u32 << tp_exp;
        let precision = if gpu == GpuKind::A100 { Precision::Bf16 } else { Precision::Fp8 };
        let d = Deployment { tp, batch: 1, context, precision, ..Deployment::default() };
        let inside = topo(gpu, 4, 8);
        // The same GPUs, nodes of tp/2: the TP group spans two scale-up domains.
        let across = topo(gpu, 16, tp / 2);
        let (Some(a), Some(b)) = (tpot(&inside, &m, &d), tpot(&across, &m, &d)) else { return Ok(()) };
        prop_assert!(b >= a, "{} TP{tp}: across {b} ms < inside {a} ms", DENSE[mi]);
    }

    #[test]
    fn a_larger_batch_never_lowers_tokens_per_gpu_while_it_fits(
        mi in 0usize..ALL.len(), tp_exp in 0u32..4, b1 in 1u32..256, grow in 1u32..256, context in 1u32..4096,
    ) {
        let m = serving_preset(ALL[mi]).unwrap();
        let t = topo(GpuKind::H200, 16, 8);
        let tp = 1 << tp_exp;
        let base = if m.is_moe() {
            Deployment { tp, dp: 8 / tp, ep: 8, context, precision: Precision::Fp8, ..Deployment::default() }
        } else {
            Deployment { tp, context, precision: Precision::Fp8, ..Deployment::default() }
        };
        let Ok(mut s) = Server::new(&t, &m) else { return Ok(()) };
        let (Ok(a), Ok(b)) = (s.evaluate(&Deployment { batch: b1, ..base }), s.evaluate(&Deployment { batch: b1 + grow, ..base })) else { return Ok(()) };
        prop_assert!(b.tokens_per_s_per_gpu >= a.tokens_per_s_per_gpu * (1.0 - 1e-12), "{} batch {b1}: {} vs batch {}: {}", ALL[mi], a.tokens_per_s_per_gpu, b1 + grow, b.tokens_per_s_per_gpu);
    }

    #[test]
    fn kv_bytes_mla_below_gqa_below_mha_for_deepseek_dims(layers in 1u32..200, kv_heads in prop::sample::select(vec![4u32, 8, 16, 32, 64]), bytes in prop::sample::select(vec![1.0f64, 2.0])) {
        let mut mla = serving_preset("deepseek-v3").unwrap();
        mla.work.layers = layers;
        mla.work.moe.as_mut().unwrap().dense_layers = 0;
        let mut gqa = mla.clone();
        gqa.attention = Attention::Gqa;
        gqa.work.kv_heads = kv_heads;
        let mut mha = mla.clone();
        mha.attention = Attention::Mha;
        prop_assert_eq!(mla.attention, DEEPSEEK_MLA);
        let (a, b, c) = (mla.kv_bytes_per_token(bytes), gqa.kv_bytes_per_token(bytes), mha.kv_bytes_per_token(bytes));
        prop_assert!(a < b && b < c, "MLA {a}, GQA {b}, MHA {c}");
        // DeepSeek-V2 Table 1: MLA's cache equals GQA with 2.25 groups of head_dim 128.
        prop_assert!((a / (2.0 * 2.25 * 128.0 * bytes * layers as f64) - 1.0).abs() < 1e-12);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn kv_transfer_time_never_falls_as_bytes_grow_nor_rises_with_more_or_faster_nics(
        mi in 0usize..ALL.len(), tokens in 1u32..200_000, more in 1u32..200_000, rails in 1u32..8,
        nic in prop::sample::select(vec![NicKind::IbHdr, NicKind::IbNdr, NicKind::Roce400, NicKind::IbXdr]),
        faster in prop::sample::select(vec![NicKind::IbNdr, NicKind::IbXdr]),
    ) {
        let m = serving_preset(ALL[mi]).unwrap();
        let t = |nic: NicKind| Cluster { nodes: 2, nic, ..Cluster::default() }.topology().unwrap();
        let go = |topo: &Topology, tokens: u32, rails: u32| kv_transfer(topo, &m, &KvTransferInput { tokens, kv_precision: Precision::Bf16, rails: Some(rails), block_tokens: None, decode_tp: None, path: None, engine: None }).unwrap();
        let base = t(nic);
        let a = go(&base, tokens, rails);
        let longer = go(&base, tokens + more, rails);
        prop_assert!(longer.time.0 >= a.time.0 && longer.bytes.0 >= a.bytes.0, "{} tokens {} µs, {} tokens {} µs", tokens, a.time.0, tokens + more, longer.time.0);
        let wider = go(&base, tokens, rails + 1);
        prop_assert!(wider.time.0 <= a.time.0, "{} rails {} µs, {} rails {} µs", rails, a.time.0, rails + 1, wider.time.0);
        let quick = t(faster);
        if quick.nic.achievable_bw().0 >= base.nic.achievable_bw().0 && quick.nic.latency.0 <= base.nic.latency.0 {
            prop_assert!(go(&quick, tokens, rails).time.0 <= a.time.0);
        }
    }

    #[test]
    fn a_paged_kv_transfer_is_never_faster_than_a_contiguous_one_nor_with_smaller_blocks(
        mi in 0usize..ALL.len(), tokens in 1u32..200_000, block in 1u32..1024, rails in 1u32..8,
    ) {
        let m = serving_preset(ALL[mi]).unwrap();
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        let go = |b: Option<u32>| kv_transfer(&topo, &m, &KvTransferInput { tokens, kv_precision: Precision::Bf16, rails: Some(rails), block_tokens: b, decode_tp: None, path: None, engine: None }).unwrap();
        let (bulk, paged, finer) = (go(None), go(Some(block)), go(Some((block / 2).max(1))));
        prop_assert_eq!(paged.bytes, bulk.bytes);
        prop_assert!(paged.time.0 >= bulk.time.0 && finer.time.0 >= paged.time.0);
        prop_assert!(finer.descriptors >= paged.descriptors && paged.descriptors > 0 && bulk.descriptors == 0);
        // Posting overlaps the wire: never more than their sum.
        prop_assert!(paged.time.0 <= bulk.time.0 + paged.posting.0 + 1e-9);
    }

    #[test]
    fn more_decode_ranks_never_move_fewer_bytes_and_one_rank_moves_the_cache_once(
        mi in 0usize..ALL.len(), tokens in 1u32..100_000, tp_exp in 0u32..6,
    ) {
        let m = serving_preset(ALL[mi]).unwrap();
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        let go = |t: Option<u32>| kv_transfer(&topo, &m, &KvTransferInput { tokens, kv_precision: Precision::Bf16, rails: None, block_tokens: None, decode_tp: t, path: None, engine: None }).unwrap();
        let (once, one, a, b) = (go(None), go(Some(1)), go(Some(1 << tp_exp)), go(Some(2 << tp_exp)));
        prop_assert_eq!(one.bytes, once.bytes);
        prop_assert!(b.bytes.0 >= a.bytes.0 && a.bytes.0 >= once.bytes.0);
        prop_assert!(a.rails <= 1 << tp_exp);
    }

    #[test]
    fn a_disaggregated_first_token_never_comes_sooner(mi in 0usize..DENSE.len(), input in 1u32..16_384, tp_exp in 0u32..4) {
        let m = serving_preset(DENSE[mi]).unwrap();
        let t = topo(GpuKind::H100, 4, 8);
        let d = Deployment { tp: 1 << tp_exp, batch: 1, input_len: input, context: input, precision: Precision::Fp8, ..Deployment::default() };
        let Ok(mut s) = Server::new(&t, &m) else { return Ok(()) };
        let (Ok(whole), Ok(split)) = (s.evaluate(&d), s.evaluate(&Deployment { disaggregated: true, ..d })) else { return Ok(()) };
        prop_assert!(split.ttft_ms.unwrap() > whole.ttft_ms.unwrap());
        prop_assert!(split.breakdown.kv_transfer > 0.0);
        prop_assert_eq!(split.tpot_ms, whole.tpot_ms);
    }
}

#[test]
fn a_batch_beyond_memory_is_refused_naming_the_batch() {
    let m = serving_preset("llama3-70b").unwrap();
    let t = topo(GpuKind::H100, 1, 8);
    let mut s = Server::new(&t, &m).unwrap();
    let d = Deployment { tp: 8, batch: 1, context: 8192, ..Deployment::default() };
    let max = s.evaluate(&d).unwrap().max_batch;
    assert!(s.evaluate(&Deployment { batch: max, ..d }).is_ok());
    let e = s.evaluate(&Deployment { batch: max + 1, ..d }).unwrap_err();
    assert_eq!(e.field, "batch");
    assert!(e.message.contains(&format!("at most {max}")), "{}", e.message);
}

/// The offline mix under wide EP: every rank waits for any rank's prefill chunk (TensorRT-LLM
/// tech blog 10), so a request's prefill costs the whole stage: tokens/s per GPU is
/// 1 / (decode step / (batch x dp) + prefill step / chunk / output_len) per GPU, from the same
/// model's own decode and prefill steps. Without attention DP the prefill is shared by dp ranks.
#[test]
fn offline_wide_ep_charges_a_prefill_chunk_to_the_whole_stage() {
    let m = serving_preset("deepseek-v3").unwrap();
    let t = topo(GpuKind::B200, 1, 8);
    let mut s = Server::new(&t, &m).unwrap();
    let (input_len, output_len) = (1024u32, 2048u32);
    let d = Deployment { phase: fabricscope_serving::Phase::Offline, tp: 1, dp: 8, ep: 8, input_len, output_len, precision: Precision::Fp4, kv_precision: Some(Precision::Fp8), ..Deployment::default() };
    let off = s.evaluate(&d).unwrap();
    let chunk = 8192 / input_len;
    let dec = s.evaluate(&Deployment { phase: fabricscope_serving::Phase::Decode, batch: off.batch, context: input_len + output_len / 2, ..d }).unwrap();
    let pre = s.evaluate(&Deployment { phase: fabricscope_serving::Phase::Prefill, batch: chunk, ..d }).unwrap();
    let per_token_ms = dec.step_ms / (off.batch as f64 * 8.0) + pre.step_ms / chunk as f64 / output_len as f64;
    let want = 1e3 / per_token_ms / 8.0;
    assert!((off.tokens_per_s_per_gpu / want - 1.0).abs() < 1e-9, "{} vs {want}", off.tokens_per_s_per_gpu);
    // Coupled ranks are never faster than ranks that share the prefill evenly would be.
    let even = 1e3 / (dec.step_ms / (off.batch as f64 * 8.0) + pre.step_ms / (chunk as f64 * 8.0) / output_len as f64) / 8.0;
    assert!(off.tokens_per_s_per_gpu < even);
}
