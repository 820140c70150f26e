//! Permalinks and the JSON file format on random input: scenario -> link -> scenario and
//! scenario -> JSON -> scenario are identity for valid scenarios, and neither parser panics
//! on any bytes or text. Hostile values (sizes up to 2^64-1, counts past any cluster, control
//! characters, 100 KB strings) come back within the ranges of [`limits`] and as short,
//! escaped messages.

use fabricscope_model::catalog::{GpuKind, NetFamily, NicKind, PcieGen, ScaleUp};
use fabricscope_model::limits;
use fabricscope_model::link::{decode, decode_file, encode, MAX_LINK_BYTES};
use fabricscope_model::nccl::NcclVersion;
use fabricscope_model::units::Bytes;
use fabricscope_model::{Cluster, Collective, CpuVendor, Scenario, SizeRange, TrainingChoice, View, YAxis};
use fabricscope_model::training::{Framework, Recompute};
use proptest::prelude::*;

/// The scale-up fabric a GPU is built with (its NVLink switch, bridge, rack or xGMI mesh).
fn native_fabric(gpu: GpuKind) -> ScaleUp {
    ScaleUp::natural(gpu)
}

fn pcie() -> impl Strategy<Value = ScaleUp> {
    (
        prop::sample::select(vec![
            PcieGen::Gen3,
            PcieGen::Gen4,
            PcieGen::Gen5,
            PcieGen::Gen6,
        ]),
        any::<bool>(),
    )
        .prop_map(|(gen, p2p)| ScaleUp::Pcie { gen, p2p })
}

fn opt(s: impl Strategy<Value = u32>) -> impl Strategy<Value = Option<u32>> {
    prop_oneof![3 => Just(None), 1 => s.prop_map(Some)]
}

/// Clusters the model accepts: every GPU, fabric, NIC, count and option.
fn cluster() -> impl Strategy<Value = Cluster> {
    let hw = (
        prop::sample::select(GpuKind::ALL.to_vec()),
        any::<bool>(),
        pcie(),
    )
        .prop_flat_map(|(gpu, native, pcie)| {
            let su = if native { native_fabric(gpu) } else { pcie };
            let gpn = match su {
                ScaleUp::Nvl72 => prop::sample::select(vec![4u32, 8, 18, 36, 72]).boxed(),
                ScaleUp::NvlinkBridge => prop::sample::select(vec![2u32, 4, 8]).boxed(),
                s => (1..=s.max_domain()).boxed(),
            };
            (Just(gpu), Just(su), gpn)
        });
    let net = (
        0u32..=32,
        prop::sample::select(NicKind::ALL.to_vec()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    );
    let ratio = || prop_oneof![3 => Just(None), 1 => prop::sample::select(vec![1.0, 1.25, 1.5, 2.0, 3.0]).prop_map(Some)];
    let tree = (opt(1u32..64), opt(0u32..32), opt(4u32..=128), ratio(), ratio());
    let misc = (
        prop::sample::select(vec![CpuVendor::Intel, CpuVendor::Amd]),
        prop::sample::select(NcclVersion::ALL.to_vec()),
    );
    (hw, 1u32..=256, net, tree, misc)
        .prop_map(
            |(
                (gpu, scale_up, gpus_per_node),
                nodes,
                (nics, nic, sharp, nvls, rail),
                (leaf, spine, radix, oversubscription, core_oversubscription),
                (cpu, nccl),
            )| Cluster {
                gpu,
                nodes,
                gpus_per_node,
                scale_up,
                nics_per_node: nics,
                nic,
                sharp: sharp && nic.spec().family == NetFamily::InfiniBand,
                nvls,
                leaf_switches: leaf,
                spine_switches: spine,
                switch_radix: radix,
                rail_optimized: rail,
                rail_only: false,
                oversubscription,
                core_oversubscription,
                cpu,
                nccl,
                // Not carried by links (the page has no power-cap control).
                power_cap_w: None,
                // A calibration (builds with `calibrate`) is the catalog's: none.
                ..Cluster::default()
            },
        )
        .prop_filter("the model accepts the cluster", |c| c.topology().is_ok())
}

fn view() -> impl Strategy<Value = View> {
    (
        prop::sample::subsequence(Collective::ALL.to_vec(), 0..=Collective::ALL.len()),
        0u32..20,
        0u32..15,
        prop::sample::select(Collective::ALL.to_vec()),
        any::<bool>(),
        (prop::sample::select(vec![YAxis::Linear, YAxis::Log]), prop::sample::select(vec![SizeRange::BandwidthBound, SizeRange::All]), 0u32..40),
    )
        .prop_map(|(ops, lo, span, selected_op, algbw, (y_axis, sizes, key))| View {
            ops,
            min_bytes: Bytes(1 << lo),
            max_bytes: Bytes(1u64 << (lo + span + 10).min(limits::MAX_MESSAGE.ilog2())),
            selected_op,
            algbw,
            y_axis,
            sizes,
            key_bytes: Bytes(1u64 << key),
        })
}

fn training() -> impl Strategy<Value = TrainingChoice> {
    (
        prop::sample::select(vec!["llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b", "custom:24:2048:16:256:4096:8:2"]),
        any::<bool>(),
        prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        prop::sample::select(vec![1u32, 2, 4, 8]),
        prop::sample::select(vec![1u32, 2]),
        prop::sample::select(vec![1u32, 2, 8]),
        prop::sample::select(vec![0u32, 1, 2, 4]),
        prop::option::of(prop::sample::select(Recompute::ALL.to_vec())),
        prop::option::of(0u8..=3),
        prop::sample::select(Framework::ids().to_vec()),
        prop::option::of(prop::sample::select(vec![1u32, 2, 4, 8])),
    )
        .prop_map(|(w, best, tp, pp, cp, ep, micro_batch, recompute, zero, framework, interleave)| TrainingChoice {
            workload: w.to_string(),
            best,
            tp,
            pp,
            cp,
            ep,
            micro_batch,
            recompute,
            zero,
            framework: framework.to_string(),
            interleave,
        })
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (cluster(), view(), training()).prop_map(|(cluster, view, training)| Scenario {
        view,
        training,
        ..Scenario::new(cluster)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn link_round_trips(s in scenario()) {
        let link = encode(&s);
        prop_assert!(link.starts_with("v1."));
        prop_assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "URL-safe: {link}");
        // Worst case: every cluster, view and training field changed at once (~520 bytes since
        // the power cap, GPU variants and MoE routing fields); a typical link carries a handful
        // of fields (the default one is "v1.e30"). Browsers and chat apps keep 2,000+.
        prop_assert!(link.len() < 768, "compact: {} bytes", link.len());
        let d = decode(&link);
        prop_assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        prop_assert_eq!(d.scenario, s);
    }

    #[test]
    fn json_round_trips(s in scenario()) {
        let json = serde_json::to_string_pretty(&s).expect("serialises");
        let back: Scenario = serde_json::from_str(&json).expect("parses");
        prop_assert_eq!(&back, &s);
        // A JSON file is also a (version 0) link.
        let d = decode(&json);
        prop_assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        prop_assert_eq!(d.scenario, s);
    }

    #[test]
    fn decode_never_panics_on_text(chars in prop::collection::vec(any::<char>(), 0..300)) {
        let text: String = chars.into_iter().collect();
        for input in [text.clone(), format!("v1.{text}"), format!("{{{text}"), format!("%7B{text}")] {
            let d = decode(&input);
            // Whatever came in, the result is a scenario that serialises again.
            let _ = encode(&d.scenario);
        }
    }

    #[test]
    fn decode_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let payload = fabricscope_model::link::base64url_encode(&bytes);
        let d = decode(&format!("v1.{payload}"));
        prop_assert!(!d.warnings.is_empty() || bytes.starts_with(b"{"), "garbage reported");
        let _ = decode(&String::from_utf8_lossy(&bytes));
        let _ = serde_json::from_slice::<Scenario>(&bytes);
    }

    /// Structured garbage: real field names (short and long) with random JSON values.
    #[test]
    fn decode_keeps_good_fields_and_names_bad_ones(
        entries in prop::collection::vec((prop::sample::select(vec!["g", "n", "p", "u", "k", "i", "sh", "nv", "l", "s", "r", "ro", "c", "v", "o", "lo", "hi", "cluster.nodes", "cluster", "view", "zz", "cluster.zz", "version"]), json_value()), 0..12)
    ) {
        let mut m = serde_json::Map::new();
        for (k, v) in entries {
            m.insert(k.to_string(), v);
        }
        let link = format!("v1.{}", fabricscope_model::link::base64url_encode(serde_json::to_string(&m).unwrap().as_bytes()));
        let d = decode(&link);
        let again = decode(&encode(&d.scenario));
        prop_assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        prop_assert_eq!(again.scenario, d.scenario);
        let _ = serde_json::from_str::<Scenario>(&serde_json::to_string(&m).unwrap());
    }

    #[test]
    fn json_parser_never_panics(chars in prop::collection::vec(any::<char>(), 0..300)) {
        let text: String = chars.into_iter().collect();
        let _ = serde_json::from_str::<Scenario>(&text);
        let _ = serde_json::from_str::<Scenario>(&format!("{{\"cluster\":{text}}}"));
    }
}

/// Numbers a hostile file or link may carry in a count or size field.
fn huge() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(1u64 << 63),
        Just(u32::MAX as u64),
        Just(limits::MAX_MESSAGE + 1),
        any::<u64>(),
        0u64..=4,
    ]
}

/// Text with terminal control characters (ESC sequences, BEL, NUL, line breaks, DEL, C1).
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{1b}[31m".to_string()),
        Just("\u{1b}]0;title\u{7}".to_string()),
        Just("\u{7}".to_string()),
        Just("\u{0}".to_string()),
        Just("\r\n".to_string()),
        Just("\u{7f}\u{9b}".to_string()),
        "[a-z0-9]{0,6}",
    ];
    (prop::collection::vec(piece, 1..8), 0usize..3).prop_map(|(parts, big)| {
        // Sometimes a 100 KB string, which no message may quote whole.
        let tail = if big == 0 { "x".repeat(100_000) } else { String::new() };
        parts.concat() + &tail
    })
}

/// Whether a message is safe to print: no control characters, bounded length.
fn printable_note(w: &str) -> bool {
    !w.chars().any(char::is_control) && w.chars().count() < 1_000
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A file or link with sizes up to 2^64-1 decodes to a scenario within the ranges, whose
    /// sweep ends (it used to loop forever once the doubling saturated at u64::MAX).
    #[test]
    fn huge_sizes_and_counts_come_back_within_range(lo in huge(), hi in huge(), nodes in huge(), tp in huge(), mb in huge()) {
        let file = serde_json::json!({
            "view": { "min_bytes": lo, "max_bytes": hi },
            "cluster": { "nodes": nodes },
            "training": { "tp": tp, "micro_batch": mb },
        }).to_string();
        let from_file = decode_file(&file).expect("a JSON object is a scenario file");
        let from_link = decode(&file);
        for d in [&from_file, &from_link] {
            prop_assert!(d.scenario.validate().is_ok(), "{:?}", d.scenario.validate());
            prop_assert!(d.warnings.iter().all(|w| printable_note(w)), "{:?}", d.warnings);
            let sizes = fabricscope_model::sweep_sizes(d.scenario.view.min_bytes, d.scenario.view.max_bytes).count();
            prop_assert!(sizes <= 41, "{sizes} sizes");
        }
        // Whatever is out of range is named, not silently dropped.
        let out = |v: u64, l: limits::Limit| l.check(v).is_err();
        if out(hi, limits::MAX_BYTES) {
            prop_assert!(from_file.warnings.iter().any(|w| w.starts_with("view.max_bytes: ")), "{:?}", from_file.warnings);
        }
        if out(nodes, limits::NODES) {
            prop_assert!(from_file.warnings.iter().any(|w| w.starts_with("cluster.nodes: ")), "{:?}", from_file.warnings);
        }
        prop_assert!(fabricscope_model::evaluate(&from_file.scenario).is_ok());
    }

    #[test]
    fn sweeps_end_for_any_bounds(lo in any::<u64>(), hi in any::<u64>()) {
        let v: Vec<u64> = fabricscope_model::sweep_sizes(Bytes(lo), Bytes(hi)).map(|b| b.0).collect();
        prop_assert!(v.len() <= 64);
        prop_assert!(v.windows(2).all(|w| w[1] == 2 * w[0]), "{v:?}");
        prop_assert!(v.iter().all(|b| *b >= lo.max(1) && *b <= hi));
    }

    /// Control characters and 100 KB strings in any string field never reach a message raw.
    #[test]
    fn control_characters_are_escaped_in_every_note(text in hostile_text(), field in prop::sample::select(vec!["gpu", "nic", "scale_up", "cpu", "nccl", "zz"]), key in prop::sample::select(vec!["cluster", "training", "view", "top"])) {
        let mut section = serde_json::Map::new();
        section.insert(field.to_string(), serde_json::Value::String(text.clone()));
        section.insert(text.clone(), serde_json::json!(1));
        let mut workload = serde_json::Map::new();
        workload.insert("workload".into(), serde_json::Value::String(text.clone()));
        let file = serde_json::json!({ key: section, "training": workload, "version": text }).to_string();
        let link = format!("v1.{}", fabricscope_model::link::base64url_encode(serde_json::json!({ "g": text, "w": text, &text: 1 }).to_string().as_bytes()));
        for d in [decode_file(&file).expect("an object"), decode(&link), decode(&file)] {
            prop_assert!(!d.warnings.is_empty());
            prop_assert!(d.warnings.iter().all(|w| printable_note(w)), "{:?}", d.warnings);
            prop_assert!(d.scenario.validate().is_ok());
        }
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value};
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u32>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        prop::sample::select(vec![
            "h100",
            "b200",
            "nvlink4",
            "nvl72",
            "ib-ndr",
            "amd",
            "2.30-dev",
            "all_reduce",
            ""
        ])
        .prop_map(|s| json!(s)),
        prop::collection::vec(any::<char>(), 0..8)
            .prop_map(|c| Value::String(c.into_iter().collect())),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "gpu", "nodes", "ops", "cluster", "x_y"])
                    .prop_map(String::from),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn oversized_links_are_refused_before_parsing() {
    let huge = format!("v1.{}", "A".repeat(MAX_LINK_BYTES));
    let d = decode(&huge);
    assert_eq!(d.scenario, Scenario::default());
    assert!(d.warnings[0].contains("longer than"), "{:?}", d.warnings);
}

#[test]
fn deeply_nested_json_does_not_overflow() {
    let deep = format!("{}{}", "[".repeat(4000), "]".repeat(4000));
    let _ = decode(&deep);
    let _ = decode(&format!("{{\"cluster\":{deep}}}"));
    let _ = decode(&format!(
        "v1.{}",
        fabricscope_model::link::base64url_encode(format!("{{\"n\":{deep}}}").as_bytes())
    ));
    let _ = serde_json::from_str::<Scenario>(&deep);
}

/// Issue 23's GPUs and NICs, each on its own fabric and with the interface counts cloud
/// shapes have (32 EFA per p5 node), come back from a link and from JSON unchanged, and a
/// link naming them reads without warnings.
#[test]
fn new_gpus_and_nics_round_trip() {
    for gpu in [GpuKind::Mi300x, GpuKind::Mi325x, GpuKind::Mi355x, GpuKind::B300, GpuKind::Gb300] {
        for (nic, nics) in [(NicKind::Roce400, 8), (NicKind::Efa100, 32), (NicKind::Efa200, 16), (NicKind::Efa400, 8), (NicKind::IbXdr, 4)] {
            let su = ScaleUp::natural(gpu);
            let gpn = if su == ScaleUp::Nvl72 { 4 } else { 8 };
            let c = Cluster { gpu, scale_up: su, gpus_per_node: gpn, nodes: 18, nics_per_node: nics, nic, nvls: !gpu.spec().arch.is_amd(), ..Cluster::default() };
            assert!(c.topology().is_ok(), "{gpu:?} {nic:?}");
            let s = Scenario::new(c);
            let d = decode(&encode(&s));
            assert!(d.warnings.is_empty(), "{gpu:?} {nic:?}: {:?}", d.warnings);
            assert_eq!(d.scenario, s);
            let json = serde_json::to_string(&s).unwrap();
            assert!(json.contains(gpu.id()) && json.contains(nic.id()), "{json}");
            assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), s);
        }
    }
    // The xGMI fabric by its id.
    assert_eq!(serde_json::to_string(&ScaleUp::Xgmi).unwrap(), "\"xgmi\"");
}

/// The framework and virtual-stage pickers: a link written before them reads as Megatron-Core
/// with the interleave left to the search (and writes the same link again); one that sets
/// them comes back unchanged; an unknown framework is named in a warning, the rest kept.
#[test]
fn framework_and_interleave_round_trip() {
    let s = Scenario::default();
    let old = encode(&s);
    assert_eq!(old, "v1.e30", "defaults add nothing to the link");
    let d = decode(&old);
    assert_eq!((d.scenario.training.framework.as_str(), d.scenario.training.interleave), ("megatron-core", None));
    let set = Scenario { training: TrainingChoice { framework: "pytorch-fsdp2".into(), interleave: Some(4), pp: 4, best: false, ..TrainingChoice::default() }, ..Scenario::default() };
    let link = encode(&set);
    let d = decode(&link);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.scenario, set);
    let json = serde_json::to_string(&set).unwrap();
    assert!(json.contains("\"framework\":\"pytorch-fsdp2\"") && json.contains("\"interleave\":4"), "{json}");
    assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), set);
    let bad = format!("v1.{}", fabricscope_model::link::base64url_encode(br#"{"fw":"nope","n":8}"#));
    let d = decode(&bad);
    assert!(d.warnings.iter().any(|w| w.contains("framework") && w.contains("megatron-core")), "{:?}", d.warnings);
    assert_eq!((d.scenario.cluster.nodes, d.scenario.training.framework.as_str()), (8, "megatron-core"));
    assert!(Scenario { training: TrainingChoice { interleave: Some(0), ..TrainingChoice::default() }, ..Scenario::default() }.validate().is_err_and(|e| e.field == "interleave"));
}
