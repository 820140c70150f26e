//! An outcome survives its JSON (the page's Web Worker sends studies to the page as JSON):
//! every figure the page shows comes back equal, the labels are the crate's own, and the
//! failed fabric the page rebuilds around a worker's loads is the one `link_loads` loaded.

use fabricscope_flow::{failed_fabric, link_loads, run, ClosSpec, Fabric, Failures, Options, Outcome, Placement, Routing, Traffic};
use fabricscope_model::units::GBps;

#[test]
fn an_outcome_read_back_from_its_json_is_the_outcome_but_its_per_seed_list() {
    // 16 nodes of 8 NICs on 4 leaves, 2:1 to one spine: ECMP collides, neighbours share.
    let fab = Fabric::build(ClosSpec::two_tier(4, 4, 8, 1, 16, GBps(50.0))).unwrap();
    for (traffic, other_jobs, nics_down) in [(Traffic::Ring, 0, 1), (Traffic::RandomPermutation, 1, 0), (Traffic::AllToAll, 0, 0)] {
        let o = Options { traffic, routing: Routing::Ecmp, seeds: 6, placement: Placement::Scattered, other_jobs, failures: Failures { nics_down, ..Failures::default() }, ..Options::default() };
        let out = run(&fab, &o).unwrap();
        let mut back: Outcome = serde_json::from_str(&serde_json::to_string(&out).unwrap()).unwrap();
        assert!(back.per_seed.is_empty(), "per_seed is not in the JSON");
        back.per_seed = out.per_seed.clone();
        // Equal but for the last bit of a float (serde_json's default parser rounds within
        // an ulp): the labels, transport notes and evidence are the crate's own again.
        same(&serde_json::to_value(&back).unwrap(), &serde_json::to_value(&out).unwrap(), &format!("{traffic:?}"));
        assert_eq!((back.bottleneck_tier, back.evidence, &back.transport), (out.bottleneck_tier, out.evidence, &out.transport));
        // The drawing's fabric: failures applied as link_loads applies them.
        let loads = link_loads(&fab, &o, 1).unwrap();
        let failed = failed_fabric(&fab, &o).unwrap();
        assert_eq!(failed.links.iter().filter(|l| !l.alive).count(), loads.fabric.links.iter().filter(|l| !l.alive).count());
        assert_eq!(failed.links.len(), loads.utilisation.len());
    }
    let bad = serde_json::to_string(&run(&fab, &Options::default()).unwrap()).unwrap().replace("\"bottleneck_tier\":\"", "\"bottleneck_tier\":\"x");
    assert!(serde_json::from_str::<Outcome>(&bad).is_err(), "an unknown tier is refused");
}

fn same(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{at}: {x} vs {y}");
        }
        (Array(x), Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            x.iter().zip(y).for_each(|(x, y)| same(x, y, at));
        }
        (Object(x), Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}");
            x.iter().for_each(|(k, v)| same(v, &y[k], &format!("{at}.{k}")));
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}
