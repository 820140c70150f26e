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

/// Why NCCL's choice wins at this size, in the table's own numbers (issue 37): NCCL's row
/// against the fastest other algorithm's row, each by its time (latency term + size ÷
/// bandwidth term, the table's "time" column). Where another row is faster than NCCL's choice
/// (NCCL's tuning estimate and the model's time disagree), the sentence says so instead of
/// calling the choice the fastest.
pub fn reason(auto: &Terms, rows: &[Row]) -> String {
    let a = &auto.prediction;
    let rival = rows
        .iter()
        .filter_map(|r| r.run.as_ref().ok())
        .filter(|t| t.prediction.algorithm != a.algorithm)
        .min_by(|x, y| x.prediction.time.0.total_cmp(&y.prediction.time.0));
    let Some(r) = rival else {
        return format!("{} with {} is the only algorithm this group can run.", a.algorithm, a.protocol);
    };
    let (ta, tr) = (a.time.0, r.prediction.time.0);
    let terms = format!("latency terms {:.1} vs {:.1} µs, bandwidth terms {:.0} vs {:.0} GB/s", auto.latency.0, r.latency.0, auto.bandwidth, r.bandwidth);
    if ta <= tr {
        let side = if auto.latency.0 < r.latency.0 && auto.bandwidth <= r.bandwidth {
            "its smaller latency term outweighs the other's bandwidth"
        } else if auto.bandwidth > r.bandwidth && auto.latency.0 >= r.latency.0 {
            "its higher bandwidth outweighs the other's smaller latency term"
        } else {
            "both its terms are better"
        };
        format!(
            "NCCL picks {} {}, the fastest row here: {ta:.1} µs against {tr:.1} µs for {} {}, the next fastest; {side} ({terms}).",
            a.algorithm, a.protocol, r.prediction.algorithm, r.prediction.protocol
        )
    } else {
        format!(
            "NCCL picks {} {} by its own tuning estimate, but {} {} forced takes less time in the table: {tr:.1} µs against {ta:.1} µs ({terms}); at this size NCCL's estimate and the model's time disagree, and NCCL runs what its estimate favours.",
            a.algorithm, a.protocol, r.prediction.algorithm, r.prediction.protocol
        )
    }
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
            the_sentence_reads_the_table(&auto, &rows);
        }
        // DGX H100 without SHARP: CollNet cannot run, and the reason says so.
        let (_, rows) = compare(&comm, Collective::AllReduce, Bytes(1 << 20), ProtoChoice::Auto).unwrap();
        let collnet = rows.iter().find(|r| r.algo == AlgoChoice::Collnet).unwrap();
        assert!(collnet.run.as_ref().unwrap_err().contains("SHARP"), "{:?}", collnet.run);
        assert_eq!(curves(&comm, Collective::AllReduce, &[Bytes(1 << 20)], false).len(), rows.iter().filter(|r| r.run.is_ok()).count());
    }

    /// The sentence's times are the table's time column (NCCL's row, and the fastest other
    /// algorithm's row), and it calls NCCL's choice the fastest only when no row is faster.
    fn the_sentence_reads_the_table(auto: &Terms, rows: &[Row]) {
        let s = reason(auto, rows);
        let ok: Vec<&Terms> = rows.iter().filter_map(|r| r.run.as_ref().ok()).filter(|t| t.prediction.algorithm != auto.prediction.algorithm).collect();
        let Some(best) = ok.iter().min_by(|x, y| x.prediction.time.0.total_cmp(&y.prediction.time.0)) else { return };
        let (ta, tr) = (auto.prediction.time.0, best.prediction.time.0);
        assert!(s.contains(&format!("{ta:.1} µs")) && s.contains(&format!("{tr:.1} µs for {} {}", best.prediction.algorithm, best.prediction.protocol)) || s.contains(&format!("{} {} forced takes less time", best.prediction.algorithm, best.prediction.protocol)), "{s}");
        assert_eq!(s.contains("the fastest row here"), ta <= tr, "{s}");
    }

    /// Issue 37: at every size and protocol on two clusters, the sentence agrees with the table.
    #[test]
    fn the_sentence_never_contradicts_the_table() {
        for c in [Cluster::default(), Cluster { nodes: 16, ..Cluster::default() }] {
            let t = c.topology().unwrap();
            let comm = Comm::new(&t, t.whole()).unwrap();
            for exp in (3..=34).step_by(3) {
                for proto in [ProtoChoice::Auto, ProtoChoice::Ll, ProtoChoice::Simple] {
                    let (auto, rows) = compare(&comm, Collective::AllReduce, Bytes(1 << exp), proto).unwrap();
                    the_sentence_reads_the_table(&auto, &rows);
                }
            }
        }
    }
}
