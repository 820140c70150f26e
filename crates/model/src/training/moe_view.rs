//! The MoE view of a training layout: where each EP group sits (NVLink only, or across the
//! network) and what one MoE layer's dispatch and combine cost, from the EP module.

use super::mapping::{Group, SpanTier};
use super::step::StepReport;
use super::workload::Workload;
use crate::ep::{self, EpInput, EpPlacement, Kernel, Link};
use crate::topology::Topology;
use serde::Serialize;

/// Where the EP groups of a layout sit and what their exchange costs per MoE layer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoeView {
    /// GPUs per EP group, and how they lie on the scale-up domains.
    pub ep: u32,
    pub per_domain: u32,
    pub domains: u32,
    pub tier: SpanTier,
    /// The groups stay inside one scale-up domain (NVLink only).
    pub scale_up_only: bool,
    /// Tokens each rank sends per micro-batch.
    pub tokens_per_rank: f64,
    /// One MoE layer, one micro-batch, forward: dispatch and combine, µs.
    pub dispatch_us: f64,
    pub combine_us: f64,
    pub dispatch_link: Link,
    pub combine_link: Link,
    /// DeepEP's bottleneck bandwidth of each phase, GB/s per GPU.
    pub dispatch_gbps: f64,
    pub combine_gbps: f64,
    /// MoE layers per pipeline stage of the chosen layout's model (all stages together).
    pub moe_layers: u32,
    /// "validated ..." or "not validated: ...".
    pub trust: String,
    /// The phases' 90% interval as ratios measured / predicted of their GB/s (times: the
    /// reciprocal), for the default library's normal kernels at this placement: it spans the
    /// libraries the data has, since the step names none.
    pub interval: Option<[f64; 2]>,
    /// When the job takes rack segments so that no EP group straddles two racks
    /// ([`super::placement`]): how many GPUs of each rack and how many racks.
    pub segments: Option<String>,
}

/// The MoE view of `r` on `topo`, or `None` for a dense job or EP 1.
pub fn moe_view(topo: &Topology, w: &Workload, r: &StepReport) -> Option<MoeView> {
    let m = w.moe?;
    let g = r.groups.iter().find(|g| g.group == Group::Ep)?;
    if g.ranks <= 1 {
        return None;
    }
    let p = &r.mapping;
    // Per rank: the micro-batch's tokens, split over CP, and over TP by sequence parallelism.
    let tokens = p.micro_batch as f64 * w.seq as f64 / p.cp.max(1) as f64 / if p.tp > 1 { p.tp as f64 } else { 1.0 };
    let input = EpInput::training(g.ranks, tokens, w.hidden, m.top_k, m.experts, m.max_nodes_per_token, None);
    let domains = g.ranks.div_ceil(g.per_domain.max(1));
    let placed = EpPlacement { ranks: g.ranks, per_domain: g.per_domain, domains, scale_up_only: g.tier == SpanTier::ScaleUp };
    let e = ep::evaluate_placed(topo, &input, placed).ok()?;
    Some(MoeView {
        ep: g.ranks,
        per_domain: g.per_domain,
        domains: g.domains,
        tier: g.tier,
        scale_up_only: g.tier == SpanTier::ScaleUp,
        tokens_per_rank: tokens,
        dispatch_us: e.dispatch.time_us,
        combine_us: e.combine.time_us,
        dispatch_link: e.dispatch.bottleneck,
        combine_link: e.combine.bottleneck,
        dispatch_gbps: e.dispatch.bottleneck_gbps,
        combine_gbps: e.combine.bottleneck_gbps,
        moe_layers: w.layers.saturating_sub(m.dense_layers),
        trust: e.trust,
        interval: crate::calibration::apply::ep_ratios(None, Kernel::Normal, placed.scale_up_only).map(|(lo, hi)| [lo, hi]),
        segments: super::placement::segment_fill(topo, p).map(|fill| {
            let gpn = topo.cluster.gpus_per_node.max(1);
            format!(
                "The job takes {} trays ({fill} GPUs) in each of {} racks, so that no EP group straddles two racks (a block scheduler's segments).",
                fill / gpn,
                topo.total_gpus.div_ceil(fill)
            )
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuKind, NicKind, ScaleUp};
    use crate::topology::Cluster;
    use crate::training::{evaluate, preset, Framework, Parallel};

    #[test]
    fn ep_in_an_nvl72_rack_is_nvlink_only_and_across_b200_nodes_is_not() {
        let w = preset("deepseek-v3-like").unwrap();
        let p = Parallel { tp: 1, pp: 9, dp: 64, ep: 64, micro_batch: 2, ..Parallel::default() };
        let gb = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 144, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }.topology().unwrap();
        let r = evaluate(&gb, &w, &p, Framework::default()).unwrap();
        let v = moe_view(&gb, &w, &r).unwrap();
        assert!(v.scale_up_only);
        assert_eq!((v.ep, v.per_domain, v.dispatch_link), (64, 64, Link::Nvlink));
        assert_eq!(v.tokens_per_rank, 8192.0);
        assert!(v.segments.as_deref().is_some_and(|s| s.contains("16 trays (64 GPUs) in each of 9 racks")), "{:?}", v.segments);
        let b = Cluster { gpu: GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, nodes: 72, nic: NicKind::IbXdr, ..Cluster::default() }.topology().unwrap();
        let rb = evaluate(&b, &w, &p, Framework::default()).unwrap();
        let vb = moe_view(&b, &w, &rb).unwrap();
        assert!(!vb.scale_up_only && vb.dispatch_us > v.dispatch_us);
        // A dense job has no MoE view.
        let dense = preset("llama3-8b").unwrap();
        let rd = evaluate(&b, &dense, &Parallel { tp: 8, pp: 9, dp: 8, ..Parallel::default() }, Framework::default()).unwrap();
        assert!(moe_view(&b, &dense, &rd).is_none());
    }
}
