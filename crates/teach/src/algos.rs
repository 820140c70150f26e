//! Every algorithm NCCL could run for one collective on one group, side by side: each one
//! forced as with NCCL_ALGO (the reason where the hardware does not allow it), its latency and
//! bandwidth terms at a size, and why NCCL's own choice wins there.

use crate::collective::{AlgoChoice, Collective, Comm, Prediction, ProtoChoice};
use crate::error::Result;
use crate::nccl::tuning::{Algorithm, Protocol};
use crate::units::{Bytes, Micros};

/// The algorithms a user can force, in NCCL_ALGO's names.
pub const FORCIBLE: [AlgoChoice; 6] = [AlgoChoice::Ring, AlgoChoice::Tree, AlgoChoice::Nvls, AlgoChoice::NvlsTree, AlgoChoice::Collnet, AlgoChoice::Pat];

/// One algorithm at one size: its prediction and the terms of its time, or why it cannot run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub algo: AlgoChoice,
    pub run: std::result::Result<Terms, String>,
}

/// A prediction split as time = latency + bytes / bandwidth (the expected time's terms).
#[derive(Clone, Debug, PartialEq)]
pub struct Terms {
    pub prediction: Prediction,
    pub latency: Micros,
    /// Algorithm bandwidth of the bandwidth term, GB/s per direction.
    pub bandwidth: f64,
}

fn terms(comm: &Comm, op: Collective, p: Prediction) -> Terms {
    let a = Algorithm::ALL.into_iter().find(|a| a.name() == p.algorithm);
    let pr = Protocol::ALL.into_iter().find(|x| x.name() == p.protocol);
    let (lat, bw) = match (op.func(), a, pr) {
        (Some(f), Some(a), Some(pr)) => comm.expected_terms(f, a, pr, p.bytes),
        _ => (0.0, 0.0),
    };
    Terms { prediction: p, latency: Micros(lat), bandwidth: bw }
}

/// NCCL's own choice and every forcible algorithm (with protocol `proto`) at `bytes`.
pub fn compare(comm: &Comm, op: Collective, bytes: Bytes, proto: ProtoChoice) -> Result<(Terms, Vec<Row>)> {
    let auto = terms(comm, op, comm.predict(op, bytes, AlgoChoice::Auto, ProtoChoice::Auto)?);
    let rows = FORCIBLE
        .into_iter()
        .map(|algo| Row { algo, run: comm.predict(op, bytes, algo, proto).map(|p| terms(comm, op, p)).map_err(|e| e.message) })
        .collect();
    Ok((auto, rows))
}

/// Why NCCL's choice wins at this size, against the fastest other algorithm by NCCL's estimate.
pub fn reason(auto: &Terms, rows: &[Row]) -> String {
    let a = &auto.prediction;
    let est = |p: &Prediction| p.nccl_time.unwrap_or(p.time).0;
    let rival = rows
        .iter()
        .filter_map(|r| r.run.as_ref().ok())
        .filter(|t| t.prediction.algorithm != a.algorithm)
        .min_by(|x, y| est(&x.prediction).total_cmp(&est(&y.prediction)));
    let Some(r) = rival else {
        return format!("{} with {} is the only algorithm this group can run.", a.algorithm, a.protocol);
    };
    let side = if auto.latency.0 < r.latency.0 && auto.bandwidth <= r.bandwidth {
        "its smaller latency term outweighs the other's bandwidth"
    } else if auto.bandwidth > r.bandwidth && auto.latency.0 >= r.latency.0 {
        "its higher bandwidth outweighs the other's smaller latency term"
    } else {
        "both its terms are better"
    };
    format!(
        "NCCL picks {} {}: its own estimate is {:.1} µs against {:.1} µs for {} {}, the next best; {side} ({:.1} vs {:.1} µs, {:.0} vs {:.0} GB/s).",
        a.algorithm,
        a.protocol,
        est(a),
        est(&r.prediction),
        r.prediction.algorithm,
        r.prediction.protocol,
        auto.latency.0,
        r.latency.0,
        auto.bandwidth,
        r.bandwidth
    )
}

/// busbw (or algbw) against size for each algorithm that can run, forced.
pub fn curves(comm: &Comm, op: Collective, sizes: &[Bytes], algbw: bool) -> Vec<(AlgoChoice, Vec<(u64, f64)>)> {
    FORCIBLE
        .into_iter()
        .filter_map(|algo| {
            let pts: Vec<(u64, f64)> = sizes
                .iter()
                .filter_map(|b| comm.predict(op, *b, algo, ProtoChoice::Auto).ok())
                .map(|p| (p.bytes.0, if algbw { p.algbw.0 } else { p.busbw.0 }))
                .collect();
            (!pts.is_empty()).then_some((algo, pts))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;

    #[test]
    fn nccl_picks_the_fastest_by_its_own_estimate_and_says_why() {
        let t = Cluster::default().topology().unwrap();
        let comm = Comm::new(&t, t.whole()).unwrap();
        for bytes in [Bytes(4 << 10), Bytes(1 << 30)] {
            let (auto, rows) = compare(&comm, Collective::AllReduce, bytes, ProtoChoice::Auto).unwrap();
            let est = |p: &Prediction| p.nccl_time.unwrap().0;
            for r in rows.iter().filter_map(|r| r.run.as_ref().ok()) {
                assert!(est(&auto.prediction) <= est(&r.prediction) + 1e-9, "{bytes:?}");
            }
            // time = latency + bytes / bandwidth, as the terms say.
            let t = auto.latency.0 + bytes.as_f64() / (1e3 * auto.bandwidth);
            assert!((t - auto.prediction.time.0).abs() < 1e-6 * t, "{t} vs {}", auto.prediction.time.0);
            assert!(reason(&auto, &rows).starts_with(&format!("NCCL picks {}", auto.prediction.algorithm)));
        }
        // DGX H100 without SHARP: CollNet cannot run, and the reason says so.
        let (_, rows) = compare(&comm, Collective::AllReduce, Bytes(1 << 20), ProtoChoice::Auto).unwrap();
        let collnet = rows.iter().find(|r| r.algo == AlgoChoice::Collnet).unwrap();
        assert!(collnet.run.as_ref().unwrap_err().contains("SHARP"), "{:?}", collnet.run);
        assert_eq!(curves(&comm, Collective::AllReduce, &[Bytes(1 << 20)], false).len(), rows.iter().filter(|r| r.run.is_ok()).count());
    }
}
