//! Physics of the goodput model: invariants that hold whatever the rates.

use super::*;
use crate::presets::cluster_preset;
use crate::topology::Cluster;

fn cluster(preset: &str, nodes: u32) -> Cluster {
    Cluster { nodes, ..cluster_preset(preset).expect("preset").cluster() }
}

fn job(params: u64) -> Job {
    Job { params, step_time_s: 10.0, tokens_per_s: 1.0e6, replicas: 16, network_share: 0.1 }
}

fn report(c: &Cluster, p: &Policy) -> GoodputReport {
    goodput(&c.topology().expect("valid cluster"), &job(70_000_000_000), p)
}

#[test]
fn mttf_falls_as_the_job_grows() {
    let mut last = f64::INFINITY;
    for nodes in [1, 2, 16, 128, 512, 2048] {
        let r = report(&cluster("dgx-h100-superpod", nodes), &Policy::default());
        assert!(r.mttf_hours < last, "{nodes} nodes: {} h after {last} h", r.mttf_hours);
        last = r.mttf_hours;
    }
}

#[test]
fn more_switch_tiers_or_optics_never_raise_mttf() {
    // The same 512 nodes on a non-blocking fabric and on a 3:1 one (fewer spines, same leaves),
    // and with 8 NICs against 4: more parts never fail less.
    let base = cluster("h100-roce", 512);
    let full = report(&Cluster { oversubscription: Some(1.0), ..base.clone() }, &Policy::default());
    let thin = report(&Cluster { oversubscription: Some(3.0), ..base.clone() }, &Policy::default());
    assert!(full.inventory.fabric_links >= thin.inventory.fabric_links);
    assert!(full.mttf_hours <= thin.mttf_hours + 1e-9, "{} vs {}", full.mttf_hours, thin.mttf_hours);
    let four = report(&Cluster { nics_per_node: 4, ..base.clone() }, &Policy::default());
    let eight = report(&Cluster { nics_per_node: 8, ..base }, &Policy::default());
    assert!(eight.inventory.node_links > four.inventory.node_links);
    assert!(eight.mttf_hours < four.mttf_hours);
}

#[test]
fn ettr_falls_as_the_restart_grows() {
    let c = cluster("dgx-h100-superpod", 1024);
    let mut last = 1.0;
    for restart_min in [1.0, 5.0, 10.0, 30.0, 120.0] {
        let r = report(&c, &Policy { restart_min, ..Policy::default() });
        assert!(r.ettr < last, "restart {restart_min} min: ETTR {} after {last}", r.ettr);
        last = r.ettr;
    }
}

#[test]
fn the_optimal_interval_follows_sqrt_2_delta_m_and_maximises_ettr() {
    // Daly's interval is Young's sqrt(2 delta M) to first order.
    for (delta, m) in [(60.0, 36_000.0), (10.0, 3_600.0), (300.0, 86_400.0)] {
        let young = (2.0f64 * delta * m).sqrt();
        let daly = daly_interval(delta, m);
        assert!((daly / young - 1.0).abs() < 0.1, "delta {delta} M {m}: Daly {daly} Young {young}");
    }
    // And the model's own ETTR peaks there: no fixed interval does better by more than a hair.
    let c = cluster("dgx-h100-superpod", 2048);
    let p = Policy { checkpoint: CheckpointMode::Sync, ..Policy::default() };
    let auto = report(&c, &p);
    let tau = auto.checkpoint_interval_min;
    for k in [0.25, 0.5, 0.8, 1.25, 2.0, 4.0] {
        let r = report(&c, &Policy { checkpoint_interval_min: Some(tau * k), ..p.clone() });
        assert!(r.ettr <= auto.ettr + 1e-4, "interval x{k}: {} > auto {}", r.ettr, auto.ettr);
    }
}

#[test]
fn a_replica_restart_never_loses_more_than_a_job_restart() {
    for nodes in [2, 64, 1024] {
        let c = cluster("dgx-h100-superpod", nodes);
        let job_r = report(&c, &Policy::default());
        let rep = report(&c, &Policy { recovery: Recovery::Replica, ..Policy::default() });
        assert!(rep.ettr >= job_r.ettr, "{nodes} nodes: replica {} < job {}", rep.ettr, job_r.ettr);
    }
}

#[test]
fn spares_never_hurt_and_none_on_a_large_job_waits_for_repairs() {
    let c = cluster("dgx-h100-superpod", 1024);
    let auto = report(&c, &Policy::default());
    let none = report(&c, &Policy { spares: Some(0), ..Policy::default() });
    assert!(auto.spares > 0);
    assert!(none.ettr < auto.ettr);
    assert!(none.lost_to_waiting_for_spares > auto.lost_to_waiting_for_spares);
    let more = report(&c, &Policy { spares: Some(auto.spares + 8), ..Policy::default() });
    assert!(more.ettr >= auto.ettr);
}

#[test]
fn a_given_mttf_replaces_the_prediction_and_keeps_the_shares() {
    let c = cluster("dgx-h100-superpod", 1024);
    let pred = report(&c, &Policy::default());
    let given = report(&c, &Policy { mttf_hours: Some(2.0), ..Policy::default() });
    assert!((given.mttf_hours - 2.0).abs() < 1e-9);
    assert_eq!(given.intervals.mttf_hours.lo, given.intervals.mttf_hours.hi);
    let share = |r: &GoodputReport| r.components.iter().find(|l| l.component == Component::Gpu).map(|l| l.share_of_stops);
    assert!((share(&pred).unwrap_or(0.0) - share(&given).unwrap_or(1.0)).abs() < 1e-9);
}

#[test]
fn intervals_bracket_their_values() {
    for preset in ["dgx-h100-superpod", "gb200-nvl72", "mi300x-roce", "dgx-a100-superpod"] {
        let r = report(&cluster_preset(preset).expect("preset").cluster(), &Policy::default());
        let iv = &r.intervals;
        for (name, v, i) in [
            ("mttf", r.mttf_hours, &iv.mttf_hours),
            ("per day", r.interruptions_per_day, &iv.interruptions_per_day),
            ("ettr", r.ettr, &iv.ettr),
            ("goodput", r.goodput_tokens_per_s, &iv.goodput_tokens_per_s),
            ("interval", r.checkpoint_interval_min, &iv.checkpoint_interval_min),
        ] {
            assert!(i.lo <= v * (1.0 + 1e-12) && v <= i.hi * (1.0 + 1e-12), "{preset} {name}: {v} not in {}-{}", i.lo, i.hi);
        }
        assert!(iv.mttf_hours.hi / iv.mttf_hours.lo <= 4.0 + 1e-9 || iv.mttf_hours.extrapolated, "{preset}");
        assert!(r.ettr > 0.0 && r.ettr <= 1.0);
    }
}

#[test]
fn an_nvl72_switch_tray_stops_the_whole_rack() {
    let r = report(&cluster_preset("gb200-nvl72").expect("preset").cluster(), &Policy::default());
    let tray = r.components.iter().find(|l| l.component == Component::NvlinkTray).expect("trays counted");
    assert_eq!(tray.count, r.inventory.racks * 9);
    assert!(matches!(tray.effect, Effect::Stop { nodes_out: 18, .. }));
}

#[test]
fn a_huge_job_trains_about_one_minus_restart_over_mttf() {
    // 12,500 nodes (100,000 GPUs), 10-minute restarts, the site's own MTTF given: ETTR follows
    // 1 - R/M to within what rollback and checkpoints add, and never goes below zero.
    let c = cluster("dgx-h100-superpod", 12_500);
    for m_min in [200.0, 60.0, 30.0, 18.0] {
        let r = report(&c, &Policy { mttf_hours: Some(m_min / 60.0), ..Policy::default() });
        let first_order = 1.0 - 10.0 / m_min;
        assert!(r.ettr > 0.0 && (r.ettr - first_order).abs() < 0.12, "MTTF {m_min} min: ETTR {} vs {first_order}", r.ettr);
    }
    let r = report(&c, &Policy { mttf_hours: Some(0.05), ..Policy::default() });
    assert!(r.ettr >= 0.0 && r.ettr < 0.1, "a stop every 3 minutes: {}", r.ettr);
}
