//! The Report: everything the explorer and the CLI show, computed from a Scenario. Plain data
//! (serde), no formatting decisions beyond the words of the claims.

use crate::catalog::{GpuKind, NicKind, ScaleUp, TierFacts};
use crate::collective::{sweep_sizes, AlgoChoice, Collective, Comm, Prediction, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::scenario::{Scenario, SCENARIO_VERSION};
use crate::topology::{FatTree, Placement, Tier, TierKind, Topology};
use crate::units::{Bytes, GBps, GBpsBidir, Micros};
use serde::Serialize;

/// Which group a curve is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The GPUs of one scale-up domain.
    Domain,
    /// Every GPU of the cluster.
    Cluster,
}

/// One collective swept over message sizes on one group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    pub op: Collective,
    pub scope: Scope,
    pub placement: Placement,
    pub points: Vec<Prediction>,
}

/// The bandwidth step between two neighbouring tiers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierRatio {
    pub upper: TierKind,
    pub lower: TierKind,
    /// upper / lower, both per GPU and per direction.
    pub ratio: f64,
}

/// A rule of thumb people repeat, and what the model says for this cluster.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Claim {
    pub id: &'static str,
    /// The claim as commonly stated.
    pub claim: &'static str,
    /// The model's answer for the current cluster, with numbers and directions.
    pub answer: String,
    /// The number the answer turns on (a ratio).
    pub value: f64,
}

/// Cluster-level figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub gpu: &'static str,
    pub scale_up: &'static str,
    pub nic: &'static str,
    pub total_gpus: u32,
    pub domain_gpus: u32,
    pub domains: u32,
    pub fabric: Option<FatTree>,
    /// Per direction.
    pub bisection: GBps,
    /// The collective library whose choice the predictions follow: "NCCL" or "RCCL".
    pub library: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub scenario_version: u32,
    pub summary: Summary,
    pub tiers: Vec<Tier>,
    pub ratios: Vec<TierRatio>,
    pub curves: Vec<Curve>,
    pub claims: Vec<Claim>,
}

/// Evaluates a scenario. Errors name the field at fault.
pub fn evaluate(s: &Scenario) -> Result<Report> {
    s.validate()?;
    let topo = s.cluster.topology()?;
    let curves = curves(&topo, s)?;
    Ok(Report {
        scenario_version: SCENARIO_VERSION,
        summary: Summary {
            library: topo.gpu.arch.library().name(),
            gpu: topo.gpu.name,
            scale_up: topo.cluster.scale_up.name(),
            nic: topo.nic.name,
            total_gpus: topo.total_gpus,
            domain_gpus: topo.domain_gpus,
            domains: topo.domains,
            fabric: topo.fabric.clone(),
            bisection: topo.bisection,
        },
        ratios: ratios(&topo.tiers),
        claims: claims(&topo)?,
        tiers: topo.tiers,
        curves,
    })
}

fn ratios(tiers: &[Tier]) -> Vec<TierRatio> {
    tiers
        .windows(2)
        .map(|w| TierRatio { upper: w[0].kind, lower: w[1].kind, ratio: w[0].bw_per_gpu / w[1].bw_per_gpu })
        .collect()
}

/// Sweeps each requested collective inside one domain and across the whole cluster.
pub fn curves(topo: &Topology, s: &Scenario) -> Result<Vec<Curve>> {
    let mut groups = Vec::new();
    if topo.domain_gpus >= 2 {
        groups.push((Scope::Domain, Placement { ranks: topo.domain_gpus, per_domain: topo.domain_gpus }));
    }
    if topo.domains > 1 {
        groups.push((Scope::Cluster, topo.whole()));
    }
    let mut out = Vec::with_capacity(groups.len() * s.view.ops.len());
    for (scope, placement) in groups {
        let comm = Comm::new(topo, placement)?;
        for &op in &s.view.ops {
            let points = sweep_sizes(s.view.min_bytes, s.view.max_bytes)
                .map(|b| comm.predict(op, b, AlgoChoice::Auto, ProtoChoice::Auto))
                .collect::<Result<Vec<_>>>()?;
            out.push(Curve { op, scope, placement, points });
        }
    }
    Ok(out)
}

/// Claims about collectives that every cluster can answer.
fn claims(topo: &Topology) -> Result<Vec<Claim>> {
    let mut out = Vec::new();
    let find = |k: TierKind| topo.tiers.iter().find(|t| t.kind == k);
    if let (Some(up), Some(nic)) = (find(TierKind::ScaleUp), find(TierKind::Nic)) {
        let r = up.bw_per_gpu / nic.bw_per_gpu;
        out.push(Claim {
            id: "nvlink-vs-network",
            claim: "NVLink is 18x faster than InfiniBand",
            answer: format!(
                "Per GPU and per direction, {} gives {:.0} GB/s and the network {:.0} GB/s: {:.1}x. \
                 Comparing the bidirectional NVLink figure ({:.0} GB/s) with one direction of a NIC doubles the ratio.",
                up.name,
                up.bw_per_gpu.0,
                nic.bw_per_gpu.0,
                r,
                up.bw_per_gpu.bidirectional().0
            ),
            value: r,
        });
    }
    // A tensor-parallel AllReduce (64 MiB, a typical per-layer activation size) inside one
    // domain versus the same group size spread over two domains.
    // An even group, so it splits into two equal halves (7 GPUs per node would not).
    let k = topo.domain_gpus.min(8) & !1;
    if k >= 2 && topo.domains >= 2 {
        let bytes = Bytes(64 << 20);
        let inside = Comm::new(topo, Placement { ranks: k, per_domain: k })?;
        let across = Comm::new(topo, Placement { ranks: k, per_domain: k / 2 })?;
        let a = inside.predict(Collective::AllReduce, bytes, AlgoChoice::Auto, ProtoChoice::Auto)?;
        let b = across.predict(Collective::AllReduce, bytes, AlgoChoice::Auto, ProtoChoice::Auto)?;
        let r = b.time / a.time;
        out.push(Claim {
            id: "tp-inside-scale-up",
            claim: "Keep tensor parallelism inside the NVLink domain",
            answer: format!(
                "A 64 MiB AllReduce over {k} GPUs takes {} inside one domain and {} split over two: {:.1}x slower once it crosses the {}.",
                a.time,
                b.time,
                r,
                topo.nic.name
            ),
            value: r,
        });
    }
    Ok(out)
}

/// One row of the tier comparison table, generated from the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierRow {
    pub name: String,
    /// Per GPU (scale-up) or per NIC (scale-out), one direction.
    pub per_direction: GBps,
    pub bidirectional: GBpsBidir,
    pub latency: Micros,
    pub facts: TierFacts,
}

/// The catalog's tiers side by side: each scale-up fabric with the GPU it ships with, each NIC.
pub fn tier_table() -> Vec<TierRow> {
    let mut rows = Vec::new();
    for su in ScaleUp::ALL {
        let gpu = match su {
            ScaleUp::NvSwitch { gen: 2 } => GpuKind::V100,
            ScaleUp::NvSwitch { gen: 3 } => GpuKind::A100,
            ScaleUp::NvSwitch { gen: 4 } => GpuKind::H100,
            ScaleUp::NvSwitch { .. } => GpuKind::B200,
            ScaleUp::NvlinkBridge => GpuKind::H100Pcie,
            ScaleUp::Nvl72 => GpuKind::Gb200,
            ScaleUp::Pcie { .. } => GpuKind::H100Pcie,
            ScaleUp::Xgmi => GpuKind::Mi300x,
        };
        let bw = su.line_bw(gpu.spec());
        rows.push(TierRow {
            name: format!("{} (per {})", su.name(), gpu.spec().name),
            per_direction: bw,
            bidirectional: bw.bidirectional(),
            latency: su.latency(),
            facts: su.facts(),
        });
    }
    for nic in NicKind::ALL {
        let s = nic.spec();
        rows.push(TierRow {
            name: format!("{} (per NIC)", s.name),
            per_direction: s.line_bw(),
            bidirectional: s.line_bw().bidirectional(),
            latency: s.latency,
            facts: s.facts(),
        });
    }
    rows
}

/// The terms of NCCL's time formula for one prediction, with this cluster's numbers filled
/// in: `time = launch + latency + bytes / (1000 x bw)` (NCCL's `ncclTopoGetAlgoTime`, us and
/// GB/s), then `algbw = bytes / time` and `busbw = algbw x factor` (nccl-tests).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Formula {
    pub op: Collective,
    pub bytes: Bytes,
    pub ranks: u32,
    /// Scale-up domains the group spans (NCCL's nodes).
    pub domains: u32,
    pub algorithm: &'static str,
    pub protocol: &'static str,
    /// Channels NCCL's ring search found, and the bandwidth of one channel inside a domain
    /// and across the network (GB/s per direction).
    pub channels: u32,
    pub channel_bw_intra: GBps,
    pub channel_bw_inter: GBps,
    /// Latency from NCCL's table for the chosen algorithm and protocol.
    pub table_latency: Micros,
    /// Latency as used at this size (x1.4 or x1.9 on the ring plateau).
    pub latency: Micros,
    /// Algorithm bandwidth from NCCL's table.
    pub table_bw: GBps,
    /// Algorithm bandwidth as used at this size (Tree AllReduce applies a size correction).
    pub bw: GBps,
    /// NCCL's estimate: `latency + bytes / (1000 x bw)`.
    pub nccl_time: Micros,
    /// The expected (measured) time's terms: latency with the network family's extra per-step
    /// cost, and the algorithm bandwidth the tiers deliver (see `network`).
    pub expected_latency: Micros,
    pub expected_bw: GBps,
    /// What nccl-tests would measure: `expected_latency + bytes / (1000 x expected_bw)` (one
    /// process per GPU, so host launch work hides behind the kernels).
    pub time: Micros,
    /// How far to trust `time`.
    pub trust: crate::trust::Trust,
    pub algbw: GBps,
    /// nccl-tests' factor, e.g. 2(n-1)/n for AllReduce.
    pub busbw_factor: f64,
    pub busbw: GBps,
    /// One NIC's line rate, NICs and GPUs per node, and the per-GPU share of the NICs.
    pub nic_line: GBps,
    pub nics_per_node: u32,
    pub gpus_per_node: u32,
    pub nic_per_gpu: GBps,
}

/// Fills in [`Formula`] for `op` of `bytes` on group `p` with NCCL's own choice. Only the
/// collectives NCCL's tuning model covers have a formula (not AllToAll or SendRecv).
pub fn explain(topo: &Topology, p: Placement, op: Collective, bytes: Bytes) -> Result<Formula> {
    use crate::nccl::{Algorithm, Func, Protocol};
    let func = match op {
        Collective::AllReduce => Func::AllReduce,
        Collective::AllGather => Func::AllGather,
        Collective::ReduceScatter => Func::ReduceScatter,
        Collective::Broadcast => Func::Broadcast,
        Collective::Reduce => Func::Reduce,
        Collective::AllToAll | Collective::SendRecv => {
            return Err(ModelError::new("op", format!("{} is built from point-to-point sends; NCCL's tuning formula does not cover it", op.id())))
        }
    };
    let comm = Comm::new(topo, p)?;
    let pred = comm.predict(op, bytes, AlgoChoice::Auto, ProtoChoice::Auto)?;
    let algo = Algorithm::ALL.into_iter().find(|a| a.name() == pred.algorithm);
    let proto = Protocol::ALL.into_iter().find(|x| x.name() == pred.protocol);
    let (table_lat, table_bw) = match (algo, proto) {
        (Some(a), Some(x)) => comm.tuning().entry(func, a, x).unwrap_or((0.0, 0.0)),
        _ => (0.0, 0.0),
    };
    let model = pred.nccl_time.map(|t| t.0).unwrap_or(0.0);
    let transfer = bytes.as_f64() / (1000.0 * table_bw);
    // NCCL adjusts one of the two terms at some sizes; recover which from its own time.
    let (lat, bw) = match algo {
        Some(Algorithm::Tree) if table_bw > 0.0 && model > table_lat => (table_lat, bytes.as_f64() / (1000.0 * (model - table_lat))),
        Some(Algorithm::Ring) if table_bw > 0.0 => ((model - transfer).max(0.0), table_bw),
        _ => (table_lat, table_bw),
    };
    let (exp_lat, exp_bw) = match (algo, proto) {
        (Some(a), Some(x)) => comm.expected_terms(func, a, x, bytes),
        _ => (0.0, 1.0),
    };
    let c = &topo.cluster;
    let nic_line = topo.nic.line_bw();
    let ring = &comm.graphs.ring;
    Ok(Formula {
        op,
        bytes,
        ranks: p.ranks,
        domains: p.domains(),
        algorithm: pred.algorithm,
        protocol: pred.protocol,
        channels: ring.n_channels,
        channel_bw_intra: GBps(ring.bw_intra),
        channel_bw_inter: GBps(ring.bw_inter),
        table_latency: Micros(table_lat),
        latency: Micros(lat),
        table_bw: GBps(table_bw),
        bw: GBps(bw),
        nccl_time: Micros(model),
        expected_latency: Micros(exp_lat),
        expected_bw: GBps(exp_bw),
        time: pred.time,
        trust: pred.trust,
        algbw: pred.algbw,
        busbw_factor: op.busbw_factor(p.ranks),
        busbw: pred.busbw,
        nic_line,
        nics_per_node: c.nics_per_node,
        gpus_per_node: c.gpus_per_node,
        nic_per_gpu: GBps(nic_line.0 * c.nics_per_node as f64 / c.gpus_per_node.max(1) as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_report_has_tiers_curves_and_claims() {
        let r = evaluate(&Scenario::default()).unwrap();
        assert_eq!(r.summary.total_gpus, 32);
        // HBM, NVLink, PCIe, NIC, leaf (one leaf: no spine).
        assert_eq!(r.tiers.len(), 5);
        // 4 ops x (domain + cluster) x 32 sizes.
        assert_eq!(r.curves.len(), 8);
        assert!(r.curves.iter().all(|c| c.points.len() == 32));
        let nv = r.claims.iter().find(|c| c.id == "nvlink-vs-network").unwrap();
        assert_eq!(nv.value, 9.0);
        let tp = r.claims.iter().find(|c| c.id == "tp-inside-scale-up").unwrap();
        // NVLSTree over two domains runs at the NICs' full goodput (network.rs), so the split
        // group is still well over a third slower than NVLink alone.
        assert!(tp.value > 1.3, "{}", tp.answer);
    }

    #[test]
    fn bad_scenarios_name_the_field() {
        let mut s = Scenario::default();
        s.cluster.nodes = 0;
        assert_eq!(evaluate(&s).unwrap_err().field, "nodes");
        let s = Scenario { version: 99, ..Scenario::default() };
        assert_eq!(evaluate(&s).unwrap_err().field, "version");
    }

    #[test]
    fn scenario_json_round_trips() {
        let s = Scenario::default();
        let json = serde_json::to_string(&s).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(s, back);
        assert!(json.contains("\"scale_up\":\"nvlink4\""), "{json}");
        assert!(serde_json::from_str::<Scenario>("{\"cluster\":{\"gpu\":\"h900\"}}").is_err());
    }

    #[test]
    fn tier_table_states_both_directions() {
        let t = tier_table();
        let nv4 = t.iter().find(|r| r.name.starts_with("NVLink4")).unwrap();
        assert_eq!((nv4.per_direction.0, nv4.bidirectional.0), (450.0, 900.0));
        let ndr = t.iter().find(|r| r.name.starts_with("InfiniBand NDR")).unwrap();
        assert_eq!((ndr.per_direction.0, ndr.bidirectional.0), (50.0, 100.0));
    }
    #[test]
    fn formula_reproduces_the_prediction() {
        for nodes in [1, 2, 4, 128] {
            let c = crate::topology::Cluster { nodes, ..Default::default() };
            let t = c.topology().unwrap();
            for bytes in [Bytes(8), Bytes(1 << 20), Bytes(1 << 30)] {
                let f = explain(&t, t.whole(), Collective::AllReduce, bytes).unwrap();
                let nccl = f.latency.0 + bytes.as_f64() / (1000.0 * f.bw.0);
                assert!((nccl - f.nccl_time.0).abs() / f.nccl_time.0 < 1e-9, "{nodes} {bytes:?}: {nccl} vs {}", f.nccl_time.0);
                let t_us = f.expected_latency.0 + bytes.as_f64() / (1000.0 * f.expected_bw.0);
                assert!((t_us - f.time.0).abs() / f.time.0 < 1e-9, "{nodes} {bytes:?}: {t_us} vs {}", f.time.0);
                assert!((f.algbw.0 * f.busbw_factor - f.busbw.0).abs() < 1e-9);
                assert!(f.channels >= 1);
            }
        }
        // 2x8 H100, 8x NDR: NCCL's table says Ring Simple at 204.8 GB/s and 131.6 us (golden).
        let t = crate::topology::Cluster { nodes: 2, ..Default::default() }.topology().unwrap();
        let f = explain(&t, t.whole(), Collective::AllReduce, Bytes(1 << 30)).unwrap();
        if f.algorithm == "Ring" && f.protocol == "Simple" {
            assert!((f.table_bw.0 - 204.8).abs() < 0.05, "{}", f.table_bw.0);
            assert!((f.table_latency.0 - 131.6).abs() < 0.05, "{}", f.table_latency.0);
            assert!((f.latency.0 - 131.6 * 1.4).abs() < 0.05, "{}", f.latency.0);
        }
        assert_eq!(f.nic_per_gpu, GBps(50.0));
        assert_eq!(explain(&t, t.whole(), Collective::AllToAll, Bytes(8)).unwrap_err().field, "op");
    }
}
