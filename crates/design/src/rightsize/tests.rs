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
    // H100: 8-GPU NVSwitch and 4-GPU NVLink baseboards x the 2 NICs H100 systems ship with
    // (NDR, 400GbE) x {8, 4, 2} or {4, 2, 1} per node x rails or not x 3 leaf x 3 spine ratios.
    assert_eq!(platform_nics(GpuKind::H100), vec![NicKind::IbNdr, NicKind::Roce400]);
    assert_eq!(options(&Cluster::default()).len(), 2 * 2 * 3 * 2 * 3 * 3);
    // Every NIC when asked.
    assert_eq!(options_with(&Cluster::default(), RightSizeOptions { any_nic: true }).len(), 2 * 4 * 3 * 2 * 3 * 3);
    // A cluster on HDR adds its own NIC to its own system only.
    let hdr = Cluster { nic: NicKind::IbHdr, ..Cluster::default() };
    assert_eq!(options(&hdr).len(), (3 + 2) * 3 * 2 * 3 * 3);
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

/// Switch and server power for every part the H100 options use (test inputs, not published
/// figures: none is published for these switches).
fn power_book() -> PriceBook {
    let p = |item: &str, w: f64| crate::bom::Price { item: item.into(), usd: None, power_w: Some(w), source: "test input".into(), date: String::new() };
    let mut v = vec![p("gpu-server", 2_000.0), p("connectx-7-ndr", 25.0), p("connectx-7-400gbe", 25.0), p("optic", 15.0)];
    for k in crate::bom::parts::SCALE_OUT_SWITCHES {
        v.push(p(crate::bom::parts::switch_part(k).id, 1_000.0));
    }
    PriceBook(v)
}

fn superpod_run(more_every: Option<usize>) -> RightSize {
    let base = Cluster { nodes: 128, ..Cluster::default() };
    let w = preset("llama3-8b").unwrap();
    let mut s = RightSizer::new(&base, w, Constraints::default(), power_book()).unwrap();
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
    // Only NICs DGX/HGX H100 systems ship with are offered.
    assert!(r.candidates.iter().all(|c| matches!(c.option.nic, NicKind::IbNdr | NicKind::Roce400)));
    // Ranked on power only with every part powered (the switches from the test book).
    assert!(r.pareto.iter().all(|&i| r.candidates[i].unpowered.is_empty() && r.candidates[i].power_ranked));
    assert!(r.candidates.iter().all(|c| c.power_ranked == c.unpowered.is_empty()));
    // The fastest is the fastest of all options.
    let min = r.candidates.iter().map(|c| c.step_time_s).fold(f64::INFINITY, f64::min);
    assert!(r.candidates[f].step_time_s <= min * (1.0 + 1e-6));
}

/// An option with a part whose power is unpublished (SN5600, a generic GPU server) is never
/// ranked on power (a lower bound is not compared); the fully powered ones (DGX H100 on NDR with
/// QM9700) are, the fastest of all is still named, and the missing parts are listed.
#[test]
fn nothing_is_ranked_on_power_while_a_part_lacks_a_figure() {
    let base = Cluster { nodes: 128, ..Cluster::default() };
    let r = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), PriceBook::default()).unwrap();
    assert_eq!(r.axis, Axis::PowerKw);
    for c in &r.candidates {
        assert_eq!(c.power_ranked, c.unpowered.is_empty(), "{}", c.label);
    }
    assert!(r.candidates.iter().any(|c| c.power_ranked) && r.candidates.iter().any(|c| !c.power_ranked));
    assert!(!r.pareto.is_empty() && r.pareto.iter().all(|&i| r.candidates[i].power_ranked));
    assert!(r.fastest.is_some());
    assert!(r.missing_power().contains(&"sn5600"), "{:?}", r.missing_power());
    assert!(!r.missing_power().contains(&"qm9700"), "{:?}", r.missing_power());
}

#[test]
fn slices_give_the_same_answer() {
    assert_eq!(superpod_run(Some(7)), superpod_run(None));
}

#[test]
fn nvl72_racks_count_their_stated_draw() {
    // The rack's 120 kW is in every NVL72 option; the NICs sit in its trays. Only the switches
    // lack a figure, and a book's switch figure ranks the options.
    let base = Cluster { gpu: crate::catalog::GpuKind::Gb200, nodes: 144, gpus_per_node: 4, scale_up: crate::catalog::ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() };
    let r = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), PriceBook::default()).unwrap();
    assert!(r.candidates.iter().filter(|c| c.domain_gpus == 72).all(|c| c.unpowered.iter().all(|id| crate::bom::parts::is_switch(id))));
    assert!(r.candidates.iter().filter(|c| c.domain_gpus == 72).all(|c| c.power_kw >= 8.0 * 120.0));
    // GB200 and B200 systems ship with ConnectX-7 (NDR): no 800G XDR unless asked.
    assert!(r.candidates.iter().all(|c| c.option.nic == NicKind::IbNdr), "{:?}", r.candidates.iter().map(|c| c.option.nic).collect::<Vec<_>>());
    let powered = r.repriced(&power_book());
    assert!(!powered.pareto.is_empty() && powered.pick.is_some());
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
    // Every part powered (the test book gives the 4-GPU servers a figure): both systems ranked.
    assert!(r.pareto.iter().all(|&i| r.candidates[i].power_ranked));
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
    // Only fully powered options are ranked by power; the fastest is still named.
    assert_eq!(unpriced.axis, Axis::PowerKw);
    assert!(unpriced.pareto.iter().all(|&i| unpriced.candidates[i].power_ranked) && unpriced.fastest.is_some());
    assert!(unpriced.candidates.iter().all(|c| c.power_ranked == c.unpowered.is_empty()));
    // No 800G XDR with B200 or GB200 unless asked.
    assert!(unpriced.candidates.iter().all(|c| c.option.nic == NicKind::IbNdr));
    // Priced, every option is ranked by cost, and the front holds both systems.
    let priced = unpriced.repriced(&blackwell_book());
    assert_eq!(priced.axis, Axis::CostUsd);
    let on_front: Vec<u32> = priced.pareto.iter().map(|&i| priced.candidates[i].domain_gpus).collect();
    assert!(on_front.contains(&8) && on_front.contains(&72), "{on_front:?}");
    // Repricing gives what a run with the book gives.
    let direct = rightsize(&base, preset("llama3-8b").unwrap(), Constraints::default(), blackwell_book()).unwrap();
    assert_eq!((&priced.pareto, priced.pick), (&direct.pareto, direct.pick));
    // Switch figures in the book rank both systems on power too.
    let powered = unpriced.repriced(&power_book());
    let on_front: Vec<u32> = powered.pareto.iter().map(|&i| powered.candidates[i].domain_gpus).collect();
    assert!(!on_front.is_empty(), "{on_front:?}");
    assert!(powered.candidates.iter().filter(|c| c.domain_gpus == 72).all(|c| c.comparable(Axis::PowerKw)));
}

/// Each system is timed with the layouts searched for it: a MoE job on NVL72 racks may use
/// expert parallelism inside a rack, which the 8-GPU servers' search would not rank best.
#[test]
fn each_system_gets_its_own_layout_search() {
    let base = Cluster { gpu: crate::catalog::GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, nodes: 72, ..Cluster::default() };
    let w = preset("mixtral-8x7b").unwrap();
    let w2 = w.clone();
    let mut s = RightSizer::new(&base, w, Constraints::default(), PriceBook::default()).unwrap();
    assert!(s.run(&mut || true).unwrap());
    assert!(s.systems.len() == 2 && s.systems.iter().all(|x| !x.1.is_empty()), "both systems searched");
    let r = s.result().unwrap();
    // The NVL72 options' layouts come from the NVL72 search (or the user's, if better there).
    let nvl: Vec<&Candidate> = r.candidates.iter().filter(|c| c.domain_gpus == 72).collect();
    assert!(!nvl.is_empty());
    // The NVL72 search ranks other layouts best, and some NVL72 option runs faster with them
    // than with the 8-GPU servers' layouts alone (what reusing one layout list lost).
    assert_ne!(s.systems[0].1, s.systems[1].1);
    let faster = nvl.iter().filter(|c| {
        let own = cost_and_time(&base, &c.option, &w2, &s.systems[0].1, &PriceBook::default()).map_or(f64::INFINITY, |o| o.step_time_s);
        c.step_time_s < own * (1.0 - 1e-9)
    });
    assert!(faster.count() > 0, "no NVL72 option gained from its own search");
}

/// Issue 37: money prints one way in every table (the compare delta table's "$27,829,200"),
/// power with one decimal.
#[test]
fn amounts_print_as_every_table_prints_them() {
    assert_eq!(Axis::CostUsd.amount(15_600.0), "$15,600");
    assert_eq!(Axis::CostUsd.amount(27_829_200.4), "$27,829,200");
    assert_eq!(Axis::PowerKw.amount(12.34), "12.3 kW");
}

/// The right-sizer ranks on the step `train` prints (issue 37): for 512 H100 with 8x 400G
/// RoCE, no rails, 3:1, the option's figure is the model's step of the layout it names, which
/// under ECMP (the NIC's default) pays the rings' expected hash collisions; the same fabric
/// on InfiniBand (adaptive routing) does not, so the two no longer tie (7.436 and 7.435 s
/// before).
#[test]
fn the_roce_figure_is_trains_step_under_the_nics_routing() {
    let roce = FabricOption { domain: Domain::of(&Cluster::default()), nic: NicKind::Roce400, nics_per_node: 8, rail_optimized: false, oversubscription: 3.0, core_oversubscription: 1.0 };
    let base = roce.apply(&Cluster { nodes: 64, ..Cluster::default() });
    let w = preset("llama3-70b").unwrap();
    let mut s = RightSizer::new(&base, w.clone(), Constraints::default(), PriceBook::default()).unwrap();
    assert!(s.run(&mut || true).unwrap());
    let r = s.result().unwrap();
    let pick = |o: &FabricOption| r.candidates.iter().find(|c| c.option == *o).unwrap_or_else(|| panic!("{o:?} offered"));
    let c = pick(&roce);
    let topo = base.topology().unwrap();
    let steps: Vec<crate::training::StepReport> = s.systems[0].1.iter().filter_map(|p| crate::training::evaluate(&topo, &w, p, Framework::default()).ok()).filter(|x| x.fits).collect();
    let best = steps.iter().min_by(|a, b| a.step_time_s.total_cmp(&b.step_time_s)).unwrap();
    assert_eq!(c.step_time_s, best.step_time_s);
    assert_eq!(c.layout, layout_label(best));
    let frac = best.ecmp_ring_fraction.unwrap();
    assert!(frac > 0.3 && frac < 0.5, "{frac}");
    let ib = pick(&FabricOption { nic: NicKind::IbNdr, ..roce });
    assert!(c.step_time_s > 1.05 * ib.step_time_s, "RoCE {} s, IB {} s", c.step_time_s, ib.step_time_s);
}

/// Issue 37: the right-sizer's figure for the design as it stands is the step the layout
/// search gives on it (the explorer's headline and compare's row): 512 H100 on 8x 400G RoCE
/// without rails at 3:1 (ECMP, its NIC's routing) and the same GPUs on NDR rails.
#[test]
fn the_designs_own_option_is_its_searched_step() {
    let w = preset("llama3-70b").unwrap();
    for c in [
        Cluster { nodes: 64, nic: NicKind::Roce400, rail_optimized: false, oversubscription: Some(3.0), ..Cluster::default() },
        Cluster { nodes: 64, ..Cluster::default() },
    ] {
        let r = rightsize(&c, w.clone(), Constraints::default(), PriceBook::default()).unwrap();
        let own = r.own(&c).expect("the design's own fabric is one of the options");
        let topo = c.topology().unwrap();
        let mut ev = Evaluator::new(&topo, &w, Framework::default()).unwrap();
        let best = crate::training::search(&mut ev, &SearchOptions::default()).unwrap().best;
        assert_eq!(own.step_time_s, best[0].step_time_s, "{}", own.label);
    }
}
