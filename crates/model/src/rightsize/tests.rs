//! Right-sizer tests: the option space, the front's invariants, slices agreeing with one run.

use super::*;
use crate::training::preset;

fn candidate(label: &str, step: f64, x: f64) -> Candidate {
    Candidate {
        label: label.into(),
        option: FabricOption { domain: Domain::of(&Cluster::default()), nic: NicKind::IbNdr, nics_per_node: 8, rail_optimized: true, oversubscription: 1.0, core_oversubscription: 1.0 },
        domain_gpus: 8,
        step_time_s: step,
        tokens_per_s: 1.0 / step,
        mfu: 0.5,
        layout: String::new(),
        power_kw: x,
        unpowered: Vec::new(),
        unpowered_network: Vec::new(),
        cost_usd: None,
        switches: 0,
        transceivers: 0,
        power_ranked: true,
        bill: None,
    }
}

#[test]
fn the_space_is_every_nic_count_rail_and_ratio() {
    // H100: 8-GPU NVSwitch and 4-GPU NVLink baseboards x 4 NICs x {8, 4, 2} or {4, 2, 1} per
    // node x rails or not x 3 leaf ratios x 3 spine ratios.
    assert_eq!(options(&Cluster::default()).len(), 2 * 4 * 3 * 2 * 3 * 3);
    // A cluster on HDR adds its own NIC.
    let hdr = Cluster { nic: NicKind::IbHdr, ..Cluster::default() };
    assert_eq!(options(&hdr).len(), 2 * 5 * 3 * 2 * 3 * 3);
    // A PCIe server keeps its own shape.
    let pcie = Cluster { gpu: GpuKind::H100Pcie, scale_up: ScaleUp::Pcie { gen: crate::catalog::PcieGen::Gen5, p2p: true }, ..Cluster::default() };
    assert_eq!(domains(&pcie), vec![Domain::of(&pcie)]);
}

#[test]
fn front_pick_and_steps_from_known_numbers() {
    // (step s, kW): C is dominated by B (slower and dearer).
    let r = summarize(
        vec![candidate("A", 1.00, 100.0), candidate("B", 1.01, 90.0), candidate("C", 1.05, 95.0), candidate("D", 1.30, 60.0)],
        0,
        Vec::new(),
        vec![Domain::of(&Cluster::default())],
    );
    assert_eq!(r.axis, Axis::PowerKw);
    assert_eq!(r.pareto, vec![0, 1, 3]);
    assert_eq!(r.fastest, Some(0));
    // B is 1% slower than A and cheaper: the pick within 2%.
    assert_eq!(r.pick, Some(1));
    assert_eq!(r.steps.len(), 2);
    assert!((r.steps[0].saves - 10.0).abs() < 1e-12 && (r.steps[0].saves_frac - 0.1).abs() < 1e-12);
    assert!((r.steps[1].slower_frac - (1.30 / 1.01 - 1.0)).abs() < 1e-12);
}

fn superpod_run(more_every: Option<usize>) -> RightSize {
    let base = Cluster { nodes: 128, ..Cluster::default() };
    let w = preset("llama3-8b").unwrap();
    let mut s = RightSizer::new(&base, w, Constraints::default(), PriceBook::default()).unwrap();
    match more_every {
        None => assert!(s.run(&mut || true).unwrap()),
        Some(k) => {
            let mut calls = 0;
            let mut slices = 0;
            while !s.run(&mut || {
                calls += 1;
                calls % k != 0
            })
            .unwrap()
            {
                slices += 1;
                let (done, total) = s.progress();
                assert!(done <= total);
            }
            assert!(slices > 1, "ran in slices");
        }
    }
    s.result().unwrap().clone()
}

#[test]
fn oversubscribing_never_speeds_the_job_and_the_front_is_ordered() {
    let r = superpod_run(None);
    assert!(r.candidates.len() > 20, "{} options", r.candidates.len());
    // 1024 NDR NICs make two tiers: spine ratios other than 1:1 are skipped as duplicates.
    assert!(r.candidates.iter().all(|c| c.option.core_oversubscription == 1.0 || c.option.nics_per_node * 128 > 2048));
    for c in &r.candidates {
        if c.option.oversubscription > 1.0 {
            let same = |o: &FabricOption| o.domain == c.option.domain && o.nic == c.option.nic && o.nics_per_node == c.option.nics_per_node && o.rail_optimized == c.option.rail_optimized && o.core_oversubscription == c.option.core_oversubscription;
            if let Some(nb) = r.candidates.iter().find(|d| same(&d.option) && d.option.oversubscription == 1.0) {
                assert!(c.step_time_s >= nb.step_time_s - 1e-12, "{} faster than {}", c.label, nb.label);
                assert!(c.switches <= nb.switches, "{} needs more switches than {}", c.label, nb.label);
            }
        }
    }
    // Fastest first, each point cheaper (here: less power) than every faster one.
    for w in r.pareto.windows(2) {
        let (a, b) = (&r.candidates[w[0]], &r.candidates[w[1]]);
        assert!(a.step_time_s <= b.step_time_s && r.x(b) < r.x(a));
    }
    let (f, p) = (r.fastest.unwrap(), r.pick.unwrap());
    assert!(r.candidates[p].step_time_s <= r.candidates[f].step_time_s * 1.02);
    assert!(r.x(&r.candidates[p]) <= r.x(&r.candidates[f]));
    // No switch power is published: the power axis is a lower bound and says so; 800G options
    // (ConnectX-8, optics without a published figure here) are listed but not ranked.
    assert!(r.lower_bound);
    assert!(r.pareto.iter().all(|&i| matches!(r.candidates[i].option.nic, NicKind::IbNdr | NicKind::Roce400)));
    assert!(r.candidates.iter().any(|c| c.option.nic == NicKind::IbXdr && !c.comparable(Axis::PowerKw)));
}

#[test]
fn slices_give_the_same_answer() {
    assert_eq!(superpod_run(Some(7)), superpod_run(None));
}

#[test]
fn nvl72_racks_are_ranked_though_their_draw_is_unpublished() {
    // The rack's draw is the same in every option; the NICs sit in its trays.
    let base = Cluster { gpu: crate::catalog::GpuKind::Gb200, nodes: 144, gpus_per_node: 4, scale_up: crate::catalog::ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() };
    let r = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), PriceBook::default()).unwrap();
    assert!(!r.pareto.is_empty() && r.pick.is_some());
    assert!(r.candidates.iter().filter(|c| c.domain_gpus == 72).all(|c| c.unpowered.contains(&"gb200-nvl72-rack")));
    assert!(r.pareto.iter().all(|&i| r.candidates[i].domain_gpus == 72));
}

#[test]
fn a_bigger_nvlink_domain_never_slows_the_job_at_equal_fabric() {
    // 1024 H100 as 8-GPU NVSwitch or 4-GPU NVLink baseboards: with the same NICs per GPU, rails
    // and ratios, the 8-GPU domain keeps twice as many ranks of each TP/DP group on NVLink.
    let r = superpod_run(None);
    let sizes: Vec<u32> = r.candidates.iter().map(|c| c.domain_gpus).collect();
    assert!(sizes.contains(&8) && sizes.contains(&4), "{sizes:?}");
    assert!(r.candidates.iter().any(|c| c.label.starts_with("H100 4-GPU NVLink · ")));
    let mut pairs = 0;
    for small in r.candidates.iter().filter(|c| c.domain_gpus == 4) {
        let (o, s) = (&small.option, small);
        let big = r.candidates.iter().find(|c| {
            let b = &c.option;
            c.domain_gpus == 8 && b.nic == o.nic && b.nics_per_node == 2 * o.nics_per_node && b.rail_optimized == o.rail_optimized && b.oversubscription == o.oversubscription && b.core_oversubscription == o.core_oversubscription
        });
        if let Some(b) = big {
            pairs += 1;
            assert!(b.step_time_s <= s.step_time_s * (1.0 + 1e-9), "{} ({}) slower than {} ({})", b.label, b.step_time_s, s.label, s.step_time_s);
        }
    }
    assert!(pairs > 10, "{pairs} pairs");
    // The 4-GPU servers' own draw is not published: on the power axis only the user's system
    // (8-GPU, DGX H100 at 10.2 kW) is ranked, and the page says what is missing.
    assert!(r.pareto.iter().all(|&i| r.candidates[i].domain_gpus == 8));
    assert!(r.missing_power().contains(&"gpu-server"), "{:?}", r.missing_power());
}

/// A price for every part of either system (test inputs, not prices anyone quoted): a DGX B200
/// at 300,000 USD, a GB200 NVL72 rack at 3,000,000 USD plus its GPUs at 10,000 each.
fn blackwell_book() -> PriceBook {
    let p = |item: &str, usd: f64| crate::bom::Price { item: item.into(), usd: Some(usd), power_w: None, source: "test input".into(), date: String::new() };
    let mut v = vec![p("dgx-b200", 300_000.0), p("gb200-nvl72-rack", 3_000_000.0), p("gpu", 10_000.0), p("fiber-mpo-mm", 50.0), p("fiber-mpo-sm", 80.0), p("fiber", 60.0), p("dac", 100.0)];
    for (id, usd) in [("mma4z00-ns", 1000.0), ("mms4x00-nm", 1500.0), ("mma4z00-ns400", 700.0), ("optic", 1200.0)] {
        v.push(p(id, usd));
    }
    for k in crate::bom::parts::SCALE_OUT_SWITCHES {
        v.push(p(crate::bom::parts::switch_part(k).id, 40_000.0));
    }
    for n in NicKind::ALL {
        v.push(p(crate::bom::parts::nic_part(n).id, 2_000.0));
    }
    PriceBook(v)
}

#[test]
fn blackwell_offers_8_gpu_servers_and_nvl72_racks_and_reprices_live() {
    // 576 GPUs: 72 DGX B200-class servers, or 8 full NVL72 racks.
    let base = Cluster { gpu: crate::catalog::GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, nodes: 72, ..Cluster::default() };
    let unpriced = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), PriceBook::default()).unwrap();
    assert_eq!(unpriced.domains.len(), 2);
    assert!(unpriced.candidates.iter().any(|c| c.label.starts_with("GB200 72-GPU NVL72 · ")));
    assert!(unpriced.candidates.iter().any(|c| c.label.starts_with("B200 8-GPU NVSwitch · ")));
    // The rack's draw is unpublished: by power, only the user's 8-GPU servers are ranked.
    assert_eq!(unpriced.axis, Axis::PowerKw);
    assert!(unpriced.pareto.iter().all(|&i| unpriced.candidates[i].domain_gpus == 8));
    assert!(unpriced.missing_power().contains(&"gb200-nvl72-rack"));
    // Priced, every option is ranked by cost, and the front holds both systems.
    let priced = unpriced.repriced(&blackwell_book());
    assert_eq!(priced.axis, Axis::CostUsd);
    let on_front: Vec<u32> = priced.pareto.iter().map(|&i| priced.candidates[i].domain_gpus).collect();
    assert!(on_front.contains(&8) && on_front.contains(&72), "{on_front:?}");
    // Repricing gives what a run with the book gives.
    let direct = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), blackwell_book()).unwrap();
    assert_eq!((&priced.pareto, priced.pick), (&direct.pareto, direct.pick));
    // A rack power figure in the book ranks both systems on power too.
    let mut book = PriceBook::default();
    book.0.push(crate::bom::Price { item: "gb200-nvl72-rack".into(), usd: None, power_w: Some(120_000.0), source: "test input".into(), date: String::new() });
    let powered = unpriced.repriced(&book);
    assert!(powered.candidates.iter().filter(|c| c.domain_gpus == 72).any(|c| c.comparable(Axis::PowerKw)));
}
