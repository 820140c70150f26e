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
    if s.version > SCENARIO_VERSION {
        return Err(ModelError::new(
            "version",
            format!("scenario version {} is newer than this build understands (up to {SCENARIO_VERSION})", s.version),
        ));
    }
    if s.view.min_bytes.0 == 0 || s.view.min_bytes > s.view.max_bytes {
        return Err(ModelError::new("min_bytes", "the sweep needs 1 <= min_bytes <= max_bytes"));
    }
    let topo = s.cluster.topology()?;
    let curves = curves(&topo, s)?;
    Ok(Report {
        scenario_version: SCENARIO_VERSION,
        summary: Summary {
            gpu: topo.gpu.name,
            scale_up: topo.cluster.scale_up.name(),
            nic: topo.nic.name,
            total_gpus: topo.total_gpus,
            domain_gpus: topo.domain_gpus,
            domains: topo.domains,
            fabric: topo.fabric,
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
    let k = topo.domain_gpus.min(8);
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
        assert!(tp.value > 1.5, "{}", tp.answer);
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
}
