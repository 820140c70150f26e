//! The flow model's fraction composed with the analytical model (docs/flow.md, "Composed with
//! the analytical model"): per fraction, the network tier's routing factor is replaced (an
//! all-to-all's) or its bandwidth scaled (rings and trees), and NCCL's choice is timed again.
//! One copy for the CLI's `collective` and the page's busbw-over-seeds chart.

use crate::stats::Dist;
use crate::traffic::Traffic;
use fabricscope_model::error::Result;
use fabricscope_model::network::FlowFractions;
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Collective, Comm, ProtoChoice, Topology};

/// `topo` with the network at fraction `f` of what the analytical model gives it, for a study
/// of `traffic` (an all-to-all's fraction replaces its routing factor; every other pattern
/// scales the network bandwidth of rings and trees).
pub fn with_fraction(topo: &Topology, f: f64, traffic: Traffic) -> Topology {
    let f = Some(f.max(1e-9));
    let flow = if is_all_to_all(traffic) { FlowFractions { ring: None, all_to_all: f } } else { FlowFractions { ring: f, all_to_all: None } };
    Topology { flow: Some(flow), ..topo.clone() }
}

fn is_all_to_all(t: Traffic) -> bool {
    matches!(t, Traffic::AllToAll | Traffic::AllToAllNoPxn)
}

/// Whether a study of `traffic` is the network traffic of `op`: ring or tree edges for the
/// collectives NCCL runs as rings and trees, all-to-all pairs (with or without PXN) for
/// AllToAll; a random permutation is no collective's.
pub fn traffic_is_of(op: Collective, traffic: Traffic) -> bool {
    match traffic {
        Traffic::Ring | Traffic::Tree => !matches!(op, Collective::AllToAll | Collective::SendRecv),
        Traffic::AllToAll | Traffic::AllToAllNoPxn => op == Collective::AllToAll,
        Traffic::RandomPermutation => false,
    }
}

/// busbw (GB/s per direction) of one size: alone on the fabric (the analytical model) and at
/// the study's p10, median and p90 fractions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusbwSpread {
    pub bytes: u64,
    pub alone: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
}

/// [`BusbwSpread`] of `op` on the whole cluster at each of `sizes`, for a study of `traffic`
/// whose fractions over seeds are `d`. A lower fraction never gives a higher busbw (the
/// analytical model's invariant), so p10 <= p50 <= p90 <= alone.
pub fn busbw_spread(topo: &Topology, op: Collective, traffic: Traffic, d: &Dist, sizes: &[u64]) -> Result<Vec<BusbwSpread>> {
    let comm = |f: Option<f64>| -> Result<Comm> {
        let t = f.map_or_else(|| topo.clone(), |f| with_fraction(topo, f, traffic));
        Comm::new(&t, t.whole())
    };
    let (alone, lo, mid, hi) = (comm(None)?, comm(Some(d.p10))?, comm(Some(d.p50))?, comm(Some(d.p90))?);
    let busbw = |c: &Comm, b: u64| -> Result<f64> { Ok(c.predict(op, Bytes(b), AlgoChoice::Auto, ProtoChoice::Auto)?.busbw.0) };
    sizes
        .iter()
        .map(|&b| Ok(BusbwSpread { bytes: b, alone: busbw(&alone, b)?, p10: busbw(&lo, b)?, p50: busbw(&mid, b)?, p90: busbw(&hi, b)? }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::Cluster;

    fn dist(p10: f64, p50: f64, p90: f64) -> Dist {
        Dist { mean: p50, p10, p50, p90, min: p10, max: p90 }
    }

    #[test]
    fn a_lower_fraction_never_raises_busbw_and_one_leaves_it_alone() {
        let topo = Cluster { nodes: 16, ..Cluster::default() }.topology().expect("valid cluster");
        let sizes: Vec<u64> = (10..=34).step_by(2).map(|e| 1u64 << e).collect();
        for (op, traffic) in [(Collective::AllReduce, Traffic::Ring), (Collective::AllReduce, Traffic::Tree), (Collective::AllToAll, Traffic::AllToAll)] {
            let s = busbw_spread(&topo, op, traffic, &dist(0.4, 0.6, 0.9), &sizes).expect("spread");
            for x in &s {
                assert!(x.p10 <= x.p50 && x.p50 <= x.p90 && x.p90 <= x.alone * (1.0 + 1e-12), "{op:?} {traffic:?}: {x:?}");
            }
            // The network binds a large message across 16 nodes: a fraction of 0.4 shows.
            let big = s.last().expect("sizes");
            assert!(big.p10 < 0.8 * big.alone, "{op:?} {traffic:?}: {big:?}");
            let same = busbw_spread(&topo, op, traffic, &dist(1.0, 1.0, 1.0), &sizes).expect("spread");
            assert!(same.iter().all(|x| (x.p50 / x.alone - 1.0).abs() < 1e-9), "{op:?} {traffic:?}: a fraction of 1 is the analytical busbw");
        }
    }

    #[test]
    fn traffic_matches_the_collectives_it_carries() {
        assert!(traffic_is_of(Collective::AllReduce, Traffic::Tree) && traffic_is_of(Collective::AllGather, Traffic::Ring));
        assert!(traffic_is_of(Collective::AllToAll, Traffic::AllToAllNoPxn) && !traffic_is_of(Collective::AllToAll, Traffic::Ring));
        assert!(!traffic_is_of(Collective::AllReduce, Traffic::RandomPermutation));
    }
}
