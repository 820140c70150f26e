//! ECMP collisions against the closed form (issue 25, item 4): n flows hashed uniformly onto m
//! uplinks leave every uplink with at most one flow with probability m! / ((m - n)! m^n); a
//! collective runs at the pace of its slowest flow, 1 / (the fullest uplink's flow count).
//! The model's collision probability and mean fraction over seeds must match both within
//! Monte-Carlo error (4 standard deviations at the seed count used).

use fabricscope_flow::{run, ClosSpec, Fabric, Options, Placement, Routing, Traffic};
use fabricscope_model::units::GBps;

/// Two leaves of `n` one-NIC nodes, each leaf with one link to each of `m` spines: a
/// scattered ring alternates leaves, so `n` flows leave each leaf and are hashed once (at the
/// leaf; a spine has one link down to each leaf).
fn two_leaves(n: u32, m: u32) -> Fabric {
    Fabric::build(ClosSpec::two_tier(2, n, 1, m, m, GBps(50.0))).expect("a graph")
}

/// P(max load = k) for `n` flows hashed uniformly onto `m` links, by enumerating all m^n draws.
fn max_load(n: u32, m: u32) -> Vec<f64> {
    let total = (m as u64).pow(n);
    let mut p = vec![0.0; n as usize + 1];
    for draw in 0..total {
        let mut load = vec![0u32; m as usize];
        let mut x = draw;
        for _ in 0..n {
            load[(x % m as u64) as usize] += 1;
            x /= m as u64;
        }
        p[*load.iter().max().unwrap_or(&0) as usize] += 1.0 / total as f64;
    }
    p
}

#[test]
fn ecmp_collision_probability_and_slowdown_match_the_closed_form() {
    let seeds = 400u32;
    for (n, m) in [(2, 2), (3, 4), (4, 8), (4, 2)] {
        // No collision at one leaf: m! / ((m - n)! m^n) (0 when n > m); two leaves hash independently.
        let q: f64 = if n > m { 0.0 } else { (0..n).map(|i| (m - i) as f64 / m as f64).product() };
        let p_collide = 1.0 - q * q;
        // The ring's fraction is 1 / max(fullest uplink of either leaf).
        let pk = max_load(n, m);
        assert!((pk[1] - q).abs() < 1e-12, "enumeration and closed form disagree at n {n}, m {m}");
        let (mut e, mut e2) = (0.0, 0.0);
        for (a, pa) in pk.iter().enumerate().skip(1) {
            for (b, pb) in pk.iter().enumerate().skip(1) {
                let x = 1.0 / a.max(b) as f64;
                e += pa * pb * x;
                e2 += pa * pb * x * x;
            }
        }
        let o = Options { traffic: Traffic::Ring, routing: Routing::Ecmp, seeds, placement: Placement::Scattered, gpus_per_node: 1, ..Options::default() };
        let out = run(&two_leaves(n, m), &o).expect("a study");
        let sd_p = (p_collide * (1.0 - p_collide) / seeds as f64).sqrt();
        let sd_f = ((e2 - e * e).max(0.0) / seeds as f64).sqrt();
        assert!(
            (out.collision_probability - p_collide).abs() <= 4.0 * sd_p + 1e-12,
            "n {n} flows on m {m} uplinks: model {} vs closed form {p_collide:.4} (sd {sd_p:.4})",
            out.collision_probability
        );
        assert!(
            (out.throughput_fraction.mean - e).abs() <= 4.0 * sd_f + 1e-12,
            "n {n}, m {m}: mean fraction {} vs expected 1/max load {e:.4} (sd {sd_f:.4})",
            out.throughput_fraction.mean
        );
    }
}

#[test]
fn more_seeds_keep_the_mean_within_its_confidence_interval() {
    // The same study at 64 and 512 seeds (the first 64 shared): the means differ by less than
    // 4 standard errors of the smaller sample.
    let fab = two_leaves(4, 8);
    let o = Options { traffic: Traffic::Ring, routing: Routing::Ecmp, seeds: 64, placement: Placement::Scattered, gpus_per_node: 1, ..Options::default() };
    let few = run(&fab, &o).expect("a study");
    let many = run(&fab, &Options { seeds: 512, ..o }).expect("a study");
    let v: Vec<f64> = few.per_seed.clone();
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
    let se = sd / (v.len() as f64).sqrt();
    assert!((few.throughput_fraction.mean - many.throughput_fraction.mean).abs() <= 4.0 * se + 1e-12, "{} vs {} (se {se})", few.throughput_fraction.mean, many.throughput_fraction.mean);
    assert_eq!(&many.per_seed[..64], &few.per_seed[..], "seeds 1..64 draw the same in both");
}
