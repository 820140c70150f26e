//! Test only: every field a model error names is a real input, a scenario field (its dotted
//! path exists in the scenario JSON) or a flag of this CLI, walked over the model's error cases.

use crate::error::flag_for_field;
use crate::Cli;
use clap::CommandFactory;
use fabricscope_model::catalog::{GpuKind, NicKind, PcieGen, ScaleUp};
use fabricscope_model::scenario::scenario_path;
use fabricscope_model::training::explore::workload;
use fabricscope_model::training::{search, Constraints, Evaluator, Framework, Moe, Parallel, Precision, RankOrder, SearchOptions, Workload};
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, ModelError, Placement, ProtoChoice, Scenario};
use serde_json::Value;

/// Every long flag of every subcommand.
fn flags() -> Vec<String> {
    let cmd = Cli::command();
    cmd.get_subcommands()
        .flat_map(|s| s.get_arguments().flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default()).map(|l| format!("--{l}")).collect::<Vec<_>>())
        .collect()
}

/// The model's errors for inputs that are wrong in every way the model checks.
fn error_cases() -> Vec<ModelError> {
    let c = Cluster::default();
    let topo = |c: Cluster| c.topology().err();
    let mut out: Vec<Option<ModelError>> = vec![
        topo(Cluster { nodes: 0, ..c.clone() }),
        fabricscope_design::bom::PriceBook::from_value(&serde_json::json!([{"item": "nope", "usd": 1}])).ok().and_then(|b| b.validate().err()),
        topo(Cluster { gpus_per_node: 99, ..c.clone() }),
        topo(Cluster { nics_per_node: 99, ..c.clone() }),
        topo(Cluster { leaf_switches: Some(0), ..c.clone() }),
        topo(Cluster { spine_switches: Some(1 << 20), ..c.clone() }),
        topo(Cluster { switch_radix: Some(2), ..c.clone() }),
        topo(Cluster { nodes: 65_536, ..c.clone() }),
        topo(Cluster { gpu: GpuKind::A100, ..c.clone() }),
        topo(Cluster { gpu: GpuKind::H100Pcie, ..c.clone() }),
        topo(Cluster { gpu: GpuKind::Gb200, ..c.clone() }),
        topo(Cluster { scale_up: ScaleUp::NvlinkBridge, ..c.clone() }),
        topo(Cluster { gpu: GpuKind::H100Pcie, scale_up: ScaleUp::NvlinkBridge, gpus_per_node: 3, ..c.clone() }),
        topo(Cluster { scale_up: ScaleUp::Nvl72, ..c.clone() }),
        topo(Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 5, ..c.clone() }),
        topo(Cluster { scale_up: ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true }, gpus_per_node: 72, ..c.clone() }),
        topo(Cluster { nics_per_node: 0, ..c.clone() }),
        topo(Cluster { sharp: true, nic: NicKind::Roce400, ..c.clone() }),
        topo(Cluster { leaf_switches: Some(1), switch_radix: Some(8), ..c.clone() }),
        topo(Cluster { leaf_switches: Some(4), spine_switches: Some(0), ..c.clone() }),
    ];
    let bad = |f: &dyn Fn(&mut Scenario)| {
        let mut s = Scenario::default();
        f(&mut s);
        s.validate().err()
    };
    out.extend([
        bad(&|s| s.version = 9),
        bad(&|s| s.view.min_bytes = Bytes(0)),
        bad(&|s| s.view.max_bytes = Bytes(u64::MAX)),
        bad(&|s| s.view.min_bytes = Bytes(1 << 35)),
        bad(&|s| s.view.ops = vec![Collective::AllReduce; 2]),
        bad(&|s| s.view.ops = vec![Collective::AllReduce; 8]),
        bad(&|s| s.training.tp = 0),
        bad(&|s| s.training.pp = u32::MAX),
        bad(&|s| s.training.cp = 0),
        bad(&|s| s.training.ep = 0),
        bad(&|s| s.training.micro_batch = u32::MAX),
        bad(&|s| s.training.zero = Some(9)),
        bad(&|s| s.training.workload = "x".repeat(1000)),
    ]);
    let t = c.topology().expect("default cluster");
    out.extend([Placement { ranks: 0, per_domain: 1 }, Placement { ranks: 12, per_domain: 5 }, Placement { ranks: 16, per_domain: 16 }, Placement { ranks: 64, per_domain: 8 }].map(|p| t.check(p).err()));
    // Workloads: custom ids and every shape check.
    out.extend(["nope", "custom:x:1:1:1", "custom:2:64:4:8:128:4:9"].map(|id| workload(id).err()));
    let w = workload("llama3-8b").expect("preset");
    let shape = |f: &dyn Fn(&mut Workload)| {
        let mut x = w.clone();
        f(&mut x);
        x.validate().err()
    };
    out.extend([
        shape(&|x| x.layers = 0),
        shape(&|x| x.hidden = 0),
        shape(&|x| x.heads = 0),
        shape(&|x| x.kv_heads = 0),
        shape(&|x| x.ffn = 0),
        shape(&|x| x.vocab = 0),
        shape(&|x| x.seq = 0),
        shape(&|x| x.global_batch = 0),
        shape(&|x| x.head_dim = 5000),
        shape(&|x| x.heads = 7),
        shape(&|x| x.kv_heads = 5),
        shape(&|x| x.moe = Some(Moe { experts: 0, top_k: 1, expert_ffn: 1, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 })),
        shape(&|x| x.moe = Some(Moe { experts: 8, top_k: 1, expert_ffn: 0, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 })),
        shape(&|x| x.moe = Some(Moe { experts: 8, top_k: 9, expert_ffn: 64, shared_ffn: 0, dense_layers: 0, max_nodes_per_token: 0 })),
        shape(&|x| x.moe = Some(Moe { experts: 8, top_k: 2, expert_ffn: 64, shared_ffn: 0, dense_layers: 99, max_nodes_per_token: 0 })),
    ]);
    // Layouts on the default 32 GPUs.
    let layout = |p: Parallel| p.validate(&w, 32).err();
    let base = Parallel { tp: 8, pp: 1, dp: 4, cp: 1, ..Parallel::default() };
    out.extend([
        layout(Parallel { tp: 0, ..base }),
        layout(Parallel { interleave: 0, ..base }),
        layout(Parallel { zero: 5, ..base }),
        layout(Parallel { tp: 3, ..base }),
        layout(Parallel { dp: 3, ..base }),
        layout(Parallel { tp: 1, pp: 64, dp: 1, ..base }),
        layout(Parallel { tp: 1, pp: 32, dp: 1, interleave: 2, ..base }),
        layout(Parallel { tp: 8, pp: 2, dp: 2, interleave: 2, micro_batch: 256, ..base }),
        layout(Parallel { interleave: 2, ..base }),
        layout(Parallel { micro_batch: 3, ..base }),
        Parallel { tp: 2, dp: 1, cp: 16, ..base }.validate(&Workload { seq: 1000, ..w.clone() }, 32).err(),
        layout(Parallel { ep: 2, ..base }),
        layout(Parallel { expert_tp: 2, ..base }),
        layout(Parallel { expert_tp: u32::MAX, ..base }),
    ]);
    let a100 = Cluster { gpu: GpuKind::A100, scale_up: ScaleUp::NvSwitch { gen: 3 }, ..c.clone() }.topology().expect("a100");
    let fp8 = Workload { precision: Precision::Fp8, ..w.clone() };
    out.push(Evaluator::new(&a100, &fp8, Framework::default()).err());
    out.push(RankOrder::parse("tp-tp").err());
    let mut ev = Evaluator::new(&t, &w, Framework::default()).expect("evaluator");
    out.push(search(&mut ev, &SearchOptions { fixed: Constraints { zero: Some(9), ..Constraints::default() }, ..SearchOptions::default() }).err());
    // (GB200 clusters of any whole number of trays, and groups spread unevenly over racks,
    // such as PP 9 over two racks, are valid: no case for them here.)
    // Collectives with a forced algorithm or protocol they cannot use.
    let comm = Comm::new(&a100, a100.whole()).expect("comm");
    out.extend([
        comm.predict(Collective::AllToAll, Bytes(1 << 20), AlgoChoice::Ring, ProtoChoice::Auto).err(),
        comm.predict(Collective::AllToAll, Bytes(1 << 20), AlgoChoice::Auto, ProtoChoice::Ll).err(),
        comm.predict(Collective::AllReduce, Bytes(1 << 20), AlgoChoice::Nvls, ProtoChoice::Auto).err(),
        fabricscope_model::explain(&t, t.whole(), Collective::AllToAll, Bytes(1 << 20)).err(),
    ]);
    // Each case is an error; an input the model accepts would make the walk vacuous.
    let missing: Vec<usize> = out.iter().enumerate().filter(|(_, e)| e.is_none()).map(|(i, _)| i).collect();
    assert!(missing.is_empty(), "cases {missing:?} are not errors");
    out.into_iter().flatten().collect()
}

#[test]
fn every_error_names_a_scenario_field_or_a_flag() {
    // With a price book, a framework and an interleave: each is written only when set.
    let training = fabricscope_model::TrainingChoice { framework: "deepspeed".into(), interleave: Some(2), ..Default::default() };
    let schema = serde_json::to_value(Scenario { prices: serde_json::json!([]), training, ..Scenario::default() }).expect("serialises");
    let lookup = |path: &str| path.split('.').try_fold(&schema, |v: &Value, k| v.get(k)).is_some();
    let flags = flags();
    let errors = error_cases();
    let mut fields: Vec<&str> = errors.iter().map(|e| e.field).collect();
    fields.sort_unstable();
    fields.dedup();
    for e in &errors {
        let path = scenario_path(e.field);
        let in_schema = path.as_deref().is_some_and(lookup);
        let flag = flag_for_field(e);
        assert!(in_schema || flags.contains(&flag), "{e}: neither a scenario field ({path:?}) nor a CLI flag ({flag})");
        assert!(path.is_none() || in_schema, "{e}: {path:?} is not in the scenario JSON");
    }
    // The fields the issue found named no input are gone.
    for ghost in ["group", "dense_layers"] {
        assert!(!fields.contains(&ghost), "{ghost} is still named: {fields:?}");
    }
    // (The GB200 layout whose PP groups could not be placed is now placed unevenly and costed.)
    assert_eq!(scenario_path("precision").as_deref(), Some("training.workload"));
    assert_eq!(scenario_path("nodes").as_deref(), Some("cluster.nodes"));
    assert_eq!(scenario_path("max_bytes").as_deref(), Some("view.max_bytes"));
}
