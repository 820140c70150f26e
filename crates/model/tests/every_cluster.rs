//! Every cluster gets a training answer: the presets and sizes users reported as silent
//! (GB200 NVL72 racks whole and partial, the 140-node DGX A100 and 127-node DGX H100
//! SuperPODs, 96 DGX H100 nodes), and the pickers offer exactly what the search can pick.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::presets::cluster_preset;
use fabricscope_model::scenario::TrainingChoice;
use fabricscope_model::training::explore::{cp_values, ep_values, explore, pp_values, tp_values, workload, TrainingView};
use fabricscope_model::training::search::idle_gpus;
use fabricscope_model::Cluster;

fn gb200(gpus: u32) -> Cluster {
    Cluster { nodes: gpus / 4, ..cluster_preset("gb200-nvl72").unwrap().cluster() }
}

fn answer(c: &Cluster, job: &str) -> TrainingView {
    let v = explore(c, &TrainingChoice { workload: job.into(), ..TrainingChoice::default() }).unwrap();
    assert!(v.layouts > 0, "{job}: the search tried layouts");
    v
}

/// The chosen layout's sizes are ones the pickers offer (TP, PP, CP, EP lists), the MFU grid
/// has its cell filled with its MFU, and every offered (TP, PP) pair has a row and a column.
fn check_pickers(c: &Cluster, v: &TrainingView) {
    let total = c.total_gpus();
    let w = workload(&v.workload).unwrap();
    let r = v.chosen.as_ref().expect("a layout");
    let m = r.mapping;
    assert!(tp_values(total, &w).contains(&m.tp), "TP{} offered", m.tp);
    assert!(pp_values(total, m.tp, &w).contains(&m.pp), "PP{} offered with TP{}: {:?}", m.pp, m.tp, pp_values(total, m.tp, &w));
    assert!(cp_values(total, &w, m.tp, m.pp).contains(&m.cp));
    assert!(ep_values(total, &w, m.tp, m.pp, m.cp).contains(&m.ep));
    assert!(v.tps.contains(&m.tp) && v.pps.contains(&m.pp), "the MFU grid has the chosen layout's cell");
    let i = v.tps.iter().position(|t| *t == m.tp).unwrap();
    let j = v.pps.iter().position(|p| *p == m.pp).unwrap();
    let cell = v.mfu[j * v.tps.len() + i].expect("the chosen layout's cell is filled");
    assert!((cell - r.mfu).abs() < 1e-12, "its cell shows the chosen layout's MFU: {cell} vs {}", r.mfu);
    // Every offered (TP, PP) pair has a row and a column.
    for tp in tp_values(total, &w) {
        for pp in pp_values(total, tp, &w) {
            assert!(v.tps.contains(&tp) && v.pps.contains(&pp));
        }
    }
}

#[test]
fn gb200_nvl72_preset_trains_gpt3_175b() {
    // 72 trays = 288 GPUs in 4 racks: before, a 9-stage pipeline over the 4 racks (3, 2, 2, 2
    // stages per rack) made the whole search fail.
    let c = gb200(288);
    let t = c.topology().unwrap();
    assert_eq!((t.domain_gpus, t.domains), (72, 4));
    for job in ["gpt3-175b", "llama3-8b", "llama3-70b"] {
        let v = answer(&c, job);
        let r = v.chosen.as_ref().unwrap();
        assert!(r.fits, "{job}: {:?}", v.note);
        assert_eq!(r.mapping.gpus(), 288, "{job}: 288 = 4 x 72 GPUs divide the batch");
        check_pickers(&c, &v);
    }
}

#[test]
fn gb200_128_gpus_is_two_racks_of_64() {
    let c = gb200(128);
    let t = c.topology().unwrap();
    assert_eq!((t.domain_gpus, t.domains, t.last_domain_gpus()), (64, 2, 64));
    let v = answer(&c, "llama3-70b");
    assert!(v.chosen.as_ref().unwrap().fits);
    assert_eq!(v.idle_gpus, 0);
    check_pickers(&c, &v);
    // 50 trays fill three racks as 17, 17 and 16 trays.
    let t = gb200(200).topology().unwrap();
    assert_eq!((t.domain_gpus, t.domains, t.last_domain_gpus()), (68, 3, 64));
    assert_eq!(t.whole().per_domain, 64, "the partial rack paces a whole-cluster collective");
}

#[test]
fn dgx_a100_superpod_trains_llama3_8b_leaving_gpus_idle() {
    // 140 x 8 = 1120 GPUs = 2^5 x 35: no DP that divides Llama 3 8B's 512-sequence batch
    // uses them all with at most 32 pipeline stages.
    let c = cluster_preset("dgx-a100-superpod").unwrap().cluster();
    let v = answer(&c, "llama3-8b");
    let r = v.chosen.as_ref().unwrap();
    assert!(r.fits, "{:?}", v.note);
    assert_eq!(v.idle_gpus, idle_gpus(1120, r));
    assert!(v.idle_gpus > 0 && r.mapping.gpus() + v.idle_gpus as u64 == 1120);
    assert!(512 % r.mapping.dp == 0);
    let note = v.note.as_deref().unwrap();
    assert!(note.contains(&format!("{} of 1120 GPUs stay idle", v.idle_gpus)), "{note}");
    check_pickers(&c, &v);
}

#[test]
fn dgx_h100_127_nodes_train_gpt3_175b() {
    let c = Cluster { nodes: 127, ..cluster_preset("dgx-h100-superpod").unwrap().cluster() };
    let v = answer(&c, "gpt3-175b");
    let r = v.chosen.as_ref().unwrap();
    assert!(r.fits, "{:?}", v.note);
    assert!(1536 % r.mapping.dp == 0 && v.idle_gpus > 0, "1016 = 8 x 127: DP 127 does not divide 1536");
    check_pickers(&c, &v);
}

#[test]
fn llama3_70b_on_96_nodes_is_shown_as_the_pickers_show_it() {
    let c = Cluster { nodes: 96, ..Cluster::default() };
    let v = answer(&c, "llama3-70b");
    assert!(v.chosen.as_ref().unwrap().fits);
    assert!(v.mfu.iter().flatten().count() > 1, "the MFU grid has layouts to compare");
    check_pickers(&c, &v);
}

#[test]
fn nothing_fits_says_why_with_numbers() {
    // GPT-3 175B on one 8-GPU node: 175e9 parameters' weights, gradients and optimizer
    // states cannot fit in 8 x 80 GiB.
    let c = Cluster { nodes: 1, ..Cluster::default() };
    let v = answer(&c, "gpt3-175b");
    assert!(!v.chosen.as_ref().unwrap().fits);
    let note = v.note.unwrap();
    assert!(note.starts_with("No layout fits in GPU memory: the closest") && note.contains("GiB per GPU of 80 GiB") && note.contains("its largest term is optimizer states") && note.contains("after trying 20 layouts"), "{note}");
}

#[test]
fn partial_nvl72_racks_are_accepted_in_whole_trays() {
    let c = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nics_per_node: 4, nic: NicKind::IbXdr, nodes: 19, ..Cluster::default() };
    let t = c.topology().unwrap();
    assert_eq!((t.total_gpus, t.domain_gpus, t.domains, t.last_domain_gpus()), (76, 40, 2, 36));
}
