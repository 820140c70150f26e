//! The serving engine as a model input, the cross-node all-reduce floor and the KV connector
//! costs, on real numbers: published rows the engines explain (tenstorrent issues 143 and 356,
//! the vLLM NIXL-connector handoff of ai-dynamo/nixl issue 1240), the order of TP layouts of a
//! Qwen2.5-72B-like model on two H100 nodes, and invariants over engines (a faster NIC never
//! slows cross-node decode; more HBM bandwidth never slows decode).

use fabricscope_model::catalog::{GpuKind, GpuSpec, NicKind, ScaleUp};
use fabricscope_model::{Cluster, Topology};
use fabricscope_serving::engine::ENGINES;
use fabricscope_serving::hardware::{CROSS_NODE_SMALL_ALLREDUCE_EFA_US, CROSS_NODE_SMALL_ALLREDUCE_IB_US};
use fabricscope_serving::kv::{kv_transfer, KvPath, KvTransferInput};
use fabricscope_serving::step::Server;
use fabricscope_serving::{search, serving_preset, Deployment, Engine, Precision, SearchOptions, ServingModel};
use proptest::prelude::*;

fn h100(nodes: u32, nic: NicKind) -> Topology {
    Cluster { gpu: GpuKind::H100, nodes, nic, ..Cluster::default() }.topology().expect("a valid cluster")
}

fn tpot(t: &Topology, m: &ServingModel, d: &Deployment) -> f64 {
    Server::new(t, m).and_then(|mut s| s.evaluate(d)).map(|r| r.tpot_ms.unwrap_or(f64::NAN)).unwrap_or(f64::NAN)
}

/// Qwen2.5-72B in BF16 at batch 1 on two H100 nodes: TP 8 inside one node gives more tokens/s
/// per user than TP 16 across both, under every engine, and the search's batch-1 points say so:
/// the 160 all-reduces per token that cross the nodes (47.6 µs each, the floor) cost more than
/// halving each GPU's weight reads saves. TP 4 and TP 16 also both stay slower than TP 8.
#[test]
fn tp8_inside_a_node_beats_tp16_across_two_for_qwen72b() {
    let topo = h100(2, NicKind::IbNdr);
    let m = serving_preset("qwen2.5-72b").expect("preset");
    for e in ENGINES {
        let d = |tp: u32| Deployment { tp, batch: 1, context: 1024, input_len: 512, output_len: 1024, engine: Some(e), ..Deployment::default() };
        let (t4, t8, t16) = (tpot(&topo, &m, &d(4)), tpot(&topo, &m, &d(8)), tpot(&topo, &m, &d(16)));
        assert!(t8 < t16 && t8 < t4, "{e:?}: TP4 {t4:.2} ms, TP8 {t8:.2} ms, TP16 {t16:.2} ms");
        // TP 16's all-reduces: 80 layers x 2, each at the InfiniBand floor.
        let r = Server::new(&topo, &m).and_then(|mut s| s.evaluate(&d(16))).expect("TP16 fits");
        assert!(r.tp_spans_domains);
        assert!((r.breakdown.tp_allreduce * 1e3 / 160.0 - CROSS_NODE_SMALL_ALLREDUCE_IB_US).abs() < 1e-6, "{}", r.breakdown.tp_allreduce);
        assert_eq!(r.engine, e);
    }
    let opts = SearchOptions { base: Deployment { context: 1024, input_len: 512, output_len: 1024, ..Deployment::default() }, min_tokens_per_s_per_user: 0.0, max_batch: 1, batch_steps: 1, max_gpus: None };
    let res = search(&topo, &m, &opts).expect("search");
    let user = |tp: u32| res.points.iter().filter(|p| p.tp == tp && p.dp == 1 && p.batch == 1).map(|p| p.tokens_per_s_per_user).fold(f64::NAN, f64::max);
    assert!(user(8) > user(16), "search at batch 1: TP8 {:.1} vs TP16 {:.1} tokens/s per user", user(8), user(16));
}

/// Published TPOTs the engines explain, within 10%: SGLang's DeepSeek-R1-0528 at concurrency 1
/// on 16 H100 over InfiniBand (tenstorrent issue 356: 23.1 ms at 128/128, a 0.4 release by its
/// date), the model before engines gave 6.6 ms; SGLang 0.5.12's on one B200 node (InferenceX
/// pull request 3363: 7.18 ms at concurrency 1, 1k/1k), within 30%; and the 2xH100 Qwen2.5-72B decode of tenstorrent issue 143 (30.9 ms at
/// 128/128, engine not stated: the default engine).
#[test]
fn published_batch_one_decodes_within_ten_percent() {
    let ds = serving_preset("deepseek-v3").expect("preset");
    let topo = h100(2, NicKind::IbNdr);
    let d = Deployment { tp: 16, batch: 1, context: 192, input_len: 128, output_len: 128, precision: Precision::Fp8, engine: Some(Engine::Sglang04), ..Deployment::default() };
    let t = tpot(&topo, &ds, &d);
    assert!((t / 23.1 - 1.0).abs() < 0.10, "SGLang 0.4 DeepSeek-R1 TP16: {t:.2} ms vs 23.1 ms");
    // Today's SGLang on one B200 node: a third of 0.4's step, near TensorRT-LLM's.
    let b200 = Cluster { gpu: GpuKind::B200, nodes: 1, scale_up: ScaleUp::natural(GpuKind::B200), ..Cluster::default() }.topology().expect("B200 node");
    let now = Deployment { tp: 8, context: 1024 + 512, input_len: 1024, output_len: 1024, engine: Some(Engine::Sglang), ..d };
    let t_now = tpot(&b200, &ds, &now);
    assert!((t_now / 7.18 - 1.0).abs() < 0.30, "SGLang 0.5 DeepSeek-R1 TP8 on B200: {t_now:.2} ms vs 7.18 ms");
    assert!(t_now < 0.5 * tpot(&b200, &ds, &Deployment { engine: Some(Engine::Sglang04), ..now }));
    // The default engine (TensorRT-LLM) on the same layout is faster: SGLang's per-MoE-layer
    // cost, which sets SGLang's step; TensorRT-LLM's is set by the cross-node all-reduces.
    assert!(tpot(&topo, &ds, &Deployment { engine: None, ..d }) < 0.6 * t);
    let bound = |d: &Deployment| Server::new(&topo, &ds).and_then(|mut s| s.evaluate(d)).map(|r| r.bound).unwrap_or("");
    assert_eq!((bound(&d), bound(&Deployment { engine: None, ..d })), ("overhead", "network"));
    let q = serving_preset("qwen2.5-72b").expect("preset");
    let one = h100(1, NicKind::IbNdr);
    let t = tpot(&one, &q, &Deployment { tp: 2, batch: 1, context: 192, input_len: 128, output_len: 128, memory_fraction: Some(0.95), ..Deployment::default() });
    assert!((t / 30.9 - 1.0).abs() < 0.10, "Qwen2.5-72B TP2: {t:.2} ms vs 30.9 ms");
}

/// The vLLM NIXL-connector handoff on GB200 of ai-dynamo/nixl issue 1240 (4.781 MB in 1.49 ms,
/// 1.15 ms of it posting): through vLLM's connector the model gives 1.2 ms (16-token blocks,
/// 3.75 µs per descriptor), where a bare contiguous transfer takes 0.1 ms. At 128 tokens of
/// Llama 3 70B between two DGX H100 nodes every engine's connector is several times the wire.
#[test]
fn short_prompts_through_an_engine_connector_are_software_bound() {
    let gb = Cluster { gpu: GpuKind::Gb200, gpus_per_node: 4, nodes: 18, scale_up: ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() }.topology().expect("NVL72");
    let m8 = serving_preset("llama3-8b").expect("preset");
    // 4.781 MB as Llama 3 8B's shape at one byte per element (65,536 bytes per token): 73 tokens.
    let go = |engine: Option<Engine>| kv_transfer(&gb, &m8, &KvTransferInput { tokens: 73, kv_precision: Precision::Fp8, rails: Some(1), block_tokens: None, decode_tp: None, path: Some(KvPath::OtherDomain), engine }).expect("transfer");
    let (bare, vllm) = (go(None), go(Some(Engine::Vllm)));
    assert_eq!(vllm.descriptors, 32 * 5 * 2);
    let ms = vllm.time.0 / 1e3;
    assert!((ms / 1.49 - 1.0).abs() < 0.25, "vLLM connector: {ms:.3} ms vs 1.49 ms measured");
    assert!(bare.time.0 / 1e3 < 0.2 && bare.request.0 == 0.0 && bare.descriptors == 0);
    let topo = h100(2, NicKind::IbNdr);
    let m70 = serving_preset("llama3-70b").expect("preset");
    let go = |engine: Option<Engine>| kv_transfer(&topo, &m70, &KvTransferInput { tokens: 128, kv_precision: Precision::Bf16, rails: None, block_tokens: None, decode_tp: None, path: None, engine }).expect("transfer");
    let bare = go(None).time.0;
    for e in ENGINES {
        let t = go(Some(e));
        assert!(t.time.0 > 4.0 * bare, "{e:?}: {} µs vs bare {bare} µs", t.time.0);
        assert_eq!(t.engine, Some(e));
    }
}

/// The floor over EFA is EFA's measured figure.
#[test]
fn cross_node_allreduce_over_efa_takes_efas_floor() {
    let topo = Cluster { gpu: GpuKind::H100, nodes: 2, nic: NicKind::Efa400, ..Cluster::default() }.topology().expect("cluster");
    let m = serving_preset("llama3-70b").expect("preset");
    let r = Server::new(&topo, &m).and_then(|mut s| s.evaluate(&Deployment { tp: 16, batch: 1, ..Deployment::default() })).expect("fits");
    assert!(r.breakdown.tp_allreduce * 1e3 / 160.0 >= CROSS_NODE_SMALL_ALLREDUCE_EFA_US - 1e-9, "{}", r.breakdown.tp_allreduce);
}

/// `t` with its GPU's HBM bandwidth scaled by `f` (the spec is leaked: tests only).
fn with_hbm(t: &Topology, f: f64) -> Topology {
    let spec: &'static GpuSpec = Box::leak(Box::new(GpuSpec { hbm_bw: fabricscope_model::units::GBps(t.gpu.hbm_bw.0 * f), ..*t.gpu }));
    Topology { gpu: spec, ..t.clone() }
}

const MODELS: [&str; 4] = ["llama3-70b", "qwen2.5-72b", "qwen3-235b-a22b", "deepseek-v3"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A faster NIC (HDR -> NDR -> XDR InfiniBand) never slows decode of a TP group that spans
    /// two or more nodes, under any engine, beyond NCCL's own re-pick of algorithm and protocol
    /// for the all-reduce (the collective model emulates NCCL's tuner): the cross-node floor is
    /// the same on every InfiniBand NIC and no other term of the step depends on the NIC, so the
    /// step is slower by at most the re-pick's gap, bounded here at 20%. The case kept in the
    /// regressions: Llama 3 70B at TP 16, batch 32 (512 KiB all-reduces on 2 H100 nodes: Tree
    /// LL128 56.5 µs on HDR, NVLSTree Simple 65.9 µs on NDR and XDR), 11.6 ms on HDR against
    /// 13.1 ms on NDR.
    #[test]
    fn a_faster_nic_never_slows_cross_node_decode(
        mi in 0usize..MODELS.len(), ei in 0usize..3, nodes in prop::sample::select(vec![2u32, 4]), batch_exp in 0u32..8, ctx in 128u32..8192,
    ) {
        let m = serving_preset(MODELS[mi]).expect("preset");
        let tp = 8 * nodes;
        let d = Deployment { tp, batch: 1 << batch_exp, context: ctx, precision: Precision::Fp8, engine: Some(ENGINES[ei]), ..Deployment::default() };
        let t: Vec<f64> = [NicKind::IbHdr, NicKind::IbNdr, NicKind::IbXdr].iter().map(|n| tpot(&h100(tp / 8, *n), &m, &d)).collect();
        if t.iter().all(|v| v.is_finite()) {
            prop_assert!(t[1] <= t[0] * 1.20 && t[2] <= t[1] * 1.20, "{:?} {:?}: {:?}", MODELS[mi], ENGINES[ei], t);
        }
    }

    /// More HBM bandwidth never slows decode, under any engine, inside a node or across nodes.
    #[test]
    fn more_hbm_bandwidth_never_slows_decode_under_any_engine(
        mi in 0usize..MODELS.len(), ei in 0usize..3, tp_exp in 0u32..5, batch_exp in 0u32..9, f in 1.0f64..3.0,
    ) {
        let m = serving_preset(MODELS[mi]).expect("preset");
        let topo = h100(2, NicKind::IbNdr);
        let d = Deployment { tp: 1 << tp_exp, batch: 1 << batch_exp, context: 2048, precision: Precision::Fp8, engine: Some(ENGINES[ei]), ..Deployment::default() };
        let (a, b) = (tpot(&topo, &m, &d), tpot(&with_hbm(&topo, f), &m, &d));
        if a.is_finite() && b.is_finite() {
            prop_assert!(b <= a * (1.0 + 1e-9), "{:?} {:?}: {a} -> {b} ms at x{f}", MODELS[mi], ENGINES[ei]);
        }
    }
}
