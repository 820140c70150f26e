//! Right-sizer tests: the option space, the front's invariants, slices agreeing with one run.

use super::*;
use crate::training::preset;

fn candidate(label: &str, step: f64, x: f64) -> Candidate {
    Candidate {
        label: label.into(),
        option: FabricOption { nic: NicKind::IbNdr, nics_per_node: 8, rail_optimized: true, oversubscription: 1.0, core_oversubscription: 1.0 },
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
    }
}

#[test]
fn the_space_is_every_nic_count_rail_and_ratio() {
    // 4 NICs x {8, 4, 2} per node x rails or not x 3 leaf ratios x 3 spine ratios.
    assert_eq!(options(&Cluster::default()).len(), 4 * 3 * 2 * 3 * 3);
    // A cluster on HDR adds its own NIC.
    let hdr = Cluster { nic: NicKind::IbHdr, ..Cluster::default() };
    assert_eq!(options(&hdr).len(), 5 * 3 * 2 * 3 * 3);
}

#[test]
fn front_pick_and_steps_from_known_numbers() {
    // (step s, kW): C is dominated by B (slower and dearer).
    let r = summarize(
        vec![candidate("A", 1.00, 100.0), candidate("B", 1.01, 90.0), candidate("C", 1.05, 95.0), candidate("D", 1.30, 60.0)],
        0,
        Vec::new(),
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
            let same = |o: &FabricOption| o.nic == c.option.nic && o.nics_per_node == c.option.nics_per_node && o.rail_optimized == c.option.rail_optimized && o.core_oversubscription == c.option.core_oversubscription;
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
    assert!(r.candidates.iter().all(|c| c.unpowered.contains(&"gb200-nvl72-rack")));
}
