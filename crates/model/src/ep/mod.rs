//! Expert-parallel dispatch and combine as an operation of its own: the two exchanges of every
//! MoE layer (tokens to their top-k experts' ranks, results back), timed as DeepEP-style
//! kernels run them on the cluster's links.
//!
//! - **Normal kernels** (throughput, training and prefill): hierarchical. A token bound for
//!   another node crosses the network once per destination node, to the GPU with the same local
//!   index there (its rail), which forwards it over NVLink to the ranks that hold its experts.
//!   With node-limited routing a token reaches at most `max_nodes_per_token` nodes.
//! - **Low-latency kernels** (decode): one RDMA message per token-expert pair, straight to the
//!   expert's rank, no forwarding; a fixed cost that dominates at decode batch sizes.
//!
//! An EP group that fits inside one scale-up domain (8 GPUs, or up to 72 in an NVL72 rack)
//! uses that domain's links only. `bottleneck_GBps` follows DeepEP's definition: the bytes that
//! cross the bottleneck link per GPU, divided by the kernel's time.
//!
//! | module | what it holds |
//! |---|---|
//! | [`routing`] | distinct ranks and nodes per token, busiest-rank load, in closed form |
//! | [`params`] | the fitted per-class parameters, with their sources |

pub mod params;
pub mod routing;

use crate::catalog::Arch;
use crate::error::{ModelError, Result};
use crate::topology::{Topology, NVL72_GPUS};
use serde::{Deserialize, Serialize};

/// The kernel family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernel {
    Normal,
    LowLatency,
}

impl Kernel {
    pub fn from_id(s: &str) -> Option<Kernel> {
        match s.to_ascii_lowercase().as_str() {
            "normal" => Some(Kernel::Normal),
            "low-latency" | "low_latency" | "ll" => Some(Kernel::LowLatency),
            _ => None,
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            Kernel::Normal => "normal",
            Kernel::LowLatency => "low-latency",
        }
    }
}

/// Element type of the exchanged activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp8,
    Bf16,
    Fp4,
}

impl Dtype {
    pub fn from_id(s: &str) -> Option<Dtype> {
        match s.to_ascii_lowercase().as_str() {
            "fp8" => Some(Dtype::Fp8),
            "bf16" => Some(Dtype::Bf16),
            "fp4" | "nvfp4" => Some(Dtype::Fp4),
            _ => None,
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            Dtype::Fp8 => "fp8",
            Dtype::Bf16 => "bf16",
            Dtype::Fp4 => "fp4",
        }
    }
    /// Bytes per hidden element sent, scales included: FP8 with one FP32 scale per 128
    /// elements (DeepSeek-V3 §3.3.1, DeepEP's FP8 dispatch); NVFP4 with one FP8 scale per 16
    /// elements (NVIDIA Blackwell NVFP4 format); BF16 plain.
    pub fn bytes_per_element(self) -> f64 {
        match self {
            Dtype::Fp8 => 1.0 + 4.0 / 128.0,
            Dtype::Bf16 => 2.0,
            Dtype::Fp4 => 0.5 + 1.0 / 16.0,
        }
    }
}

/// Routing imbalance: how much more than the mean the busiest rank receives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Imbalance {
    /// Uniform random routing, as kernel benchmarks use it: the expected busiest rank in
    /// closed form ([`routing::max_over_mean`]).
    Uniform,
    /// The busiest rank's load over the mean (1 = perfectly balanced; 1.5 = a realistic skew).
    Factor(f64),
}

/// One dispatch/combine question.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpInput {
    /// Ranks in the EP group.
    pub ep: u32,
    /// Tokens per rank.
    pub tokens: u32,
    pub hidden: u32,
    pub top_k: u32,
    /// Routed experts (over all ranks).
    pub experts: u32,
    pub dispatch_dtype: Dtype,
    pub combine_dtype: Dtype,
    pub kernel: Kernel,
    /// Node-limited routing: each token's experts on at most this many nodes (normal kernels).
    pub max_nodes_per_token: Option<u32>,
    pub imbalance: Imbalance,
}

/// The link a phase waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    Nvlink,
    Rdma,
    Xgmi,
    Pcie,
}

/// One phase (dispatch or combine).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub time_us: f64,
    pub bottleneck: Link,
    /// Bytes over the bottleneck link per GPU / time, GB/s per direction (DeepEP's figure).
    #[serde(rename = "bottleneck_GBps")]
    pub bottleneck_gbps: f64,
    /// Bytes one GPU sends over the scale-up links and over the network (mean rank).
    pub scale_up_bytes: f64,
    pub network_bytes: f64,
    /// The fixed cost is more than the transfer: latency-bound.
    pub latency_bound: bool,
}

/// Where the EP group sits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpPlacement {
    pub ranks: u32,
    /// GPUs of the group in each scale-up domain.
    pub per_domain: u32,
    pub domains: u32,
    /// The group stays inside one scale-up domain (NVLink only).
    pub scale_up_only: bool,
}

/// Dispatch and combine of one MoE layer's EP exchange.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpReport {
    pub dispatch: Phase,
    pub combine: Phase,
    pub placement: EpPlacement,
    /// Busiest rank's load over the mean that the times include.
    pub imbalance: f64,
    /// Median absolute error of this kernel kind on published Hopper runs, percent; `None`
    /// where the class (GPU generation, link) was never measured.
    pub error_band_pct: Option<f64>,
    /// "validated" or why not.
    pub trust: String,
}

/// Places `ep` consecutive ranks on `topo`: domains filled in order; on rack-scale domains the
/// group takes whole trays of one rack when it fits one (as [`crate::training::placement`]).
pub fn place(topo: &Topology, ep: u32) -> EpPlacement {
    let gpn = topo.cluster.gpus_per_node.max(1);
    let rack_scale = topo.domain_gpus > gpn;
    let cap = if rack_scale { (NVL72_GPUS / gpn) * gpn } else { topo.domain_gpus };
    let per = if ep <= cap {
        ep
    } else {
        // The largest whole-tray share of a domain that tiles the group.
        (1..=cap).rev().find(|p| ep.is_multiple_of(*p) && p.is_multiple_of(gpn.min(*p))).unwrap_or(cap.min(ep))
    };
    let domains = ep.div_ceil(per.max(1));
    EpPlacement { ranks: ep, per_domain: per, domains, scale_up_only: domains <= 1 }
}

fn check(topo: &Topology, i: &EpInput) -> Result<()> {
    use crate::limits::{EP, EXPERTS, HIDDEN, TOP_K};
    EP.check_u32(i.ep)?;
    EXPERTS.check_u32(i.experts)?;
    HIDDEN.check_u32(i.hidden)?;
    TOP_K.check_u32(i.top_k)?;
    if i.tokens == 0 || i.tokens > 1 << 20 {
        return Err(ModelError::new("tokens", format!("tokens per rank must be 1 to {}; got {}", 1u32 << 20, i.tokens)));
    }
    if i.ep > topo.total_gpus {
        return Err(ModelError::new("ep", format!("ep {} is more than the cluster's {} GPUs", i.ep, topo.total_gpus)));
    }
    if !i.experts.is_multiple_of(i.ep) {
        let valid: Vec<String> = (1..=i.experts.min(topo.total_gpus)).filter(|e| i.experts.is_multiple_of(*e)).map(|e| e.to_string()).collect();
        return Err(ModelError::new("ep", format!("ep {} must divide the {} experts; valid ep: {}", i.ep, i.experts, valid.join(", "))));
    }
    if i.top_k > i.experts {
        return Err(ModelError::new("top_k", format!("top-k {} is more than the {} experts", i.top_k, i.experts)));
    }
    if let Imbalance::Factor(f) = i.imbalance {
        if !(1.0..=16.0).contains(&f) || !f.is_finite() {
            return Err(ModelError::new("imbalance", format!("the imbalance is the busiest rank's load over the mean, 1 to 16, or 'uniform'; got {f}")));
        }
    }
    if let Some(m) = i.max_nodes_per_token {
        if m == 0 {
            return Err(ModelError::new("max_nodes_per_token", "at least 1 node per token (or leave it unset for no limit)"));
        }
    }
    Ok(())
}

/// Times dispatch and combine of `i` on `topo`.
pub fn evaluate(topo: &Topology, i: &EpInput) -> Result<EpReport> {
    evaluate_placed(topo, i, place(topo, i.ep))
}

/// [`evaluate`] for a group already placed (a training layout's EP span).
pub fn evaluate_placed(topo: &Topology, i: &EpInput, pl: EpPlacement) -> Result<EpReport> {
    check(topo, i)?;
    let n = i.ep;
    let nodes = pl.domains;
    let su = topo.cluster.scale_up;
    let su_link = if su.is_nvlink() { Link::Nvlink } else { Link::Pcie };
    let su_bw = su.line_bw(topo.gpu).0;
    let c = &topo.cluster;
    // Each GPU's share of its node's NICs, capped by its links to them.
    let nics = c.nics_per_node as f64;
    let gpn = c.gpus_per_node.max(1) as f64;
    let nic_bw = (topo.nic.achievable_bw().0 * nics).min(topo.gpu_nic_nccl_bw().0 * nics.min(gpn)) / gpn;
    if !pl.scale_up_only && nic_bw <= 0.0 {
        return Err(ModelError::new("nics_per_node", format!("an EP group of {n} spans {nodes} domains and needs a network: use at least 1 NIC per node")));
    }
    let t = i.tokens as f64;
    let h = i.hidden as f64;
    let k = i.top_k;
    let ranks_per_token = routing::distinct(i.experts, n, k);
    let imbalance = match i.imbalance {
        Imbalance::Factor(f) => f,
        // A rank receives on average `tokens x distinct ranks` copies (normal) or
        // `tokens x top-k` messages (low latency).
        Imbalance::Uniform => {
            let mean = match i.kernel {
                Kernel::Normal => t * ranks_per_token,
                Kernel::LowLatency => t * k as f64,
            };
            routing::max_over_mean(n, mean)
        }
    };
    let phase = |bytes_el: f64, dispatch: bool| -> Phase {
        match i.kernel {
            Kernel::Normal => {
                // Bytes as DeepEP's benchmarks count them (their NVL/RDMA figures keep a 3.27
                // ratio at 2 nodes and 2.0 at 4 in every user report, as D_r / D_n does): one
                // copy per distinct rank over the scale-up links, one per distinct node, the
                // token's own included, over RDMA; the RDMA efficiency is fitted on that count.
                let su_bytes = t * ranks_per_token * h * bytes_el;
                let net_bytes = if nodes <= 1 { 0.0 } else { t * routing::distinct_nodes(i.experts, nodes, k, i.max_nodes_per_token) * h * bytes_el };
                let t_su = su_bytes / (params::NORMAL_NVLINK_EFFICIENCY * su_bw * 1e3);
                let t_net = if net_bytes > 0.0 { net_bytes / (params::NORMAL_RDMA_EFFICIENCY * nic_bw * 1e3) } else { 0.0 };
                let lat = if nodes <= 1 { params::NORMAL_NVLINK_LATENCY_US } else { params::NORMAL_RDMA_LATENCY_US };
                let xfer = imbalance * t_su.max(t_net);
                let time = lat + xfer;
                let (link, bytes) = if t_net >= t_su && net_bytes > 0.0 { (Link::Rdma, net_bytes) } else { (su_link, su_bytes) };
                Phase { time_us: time, bottleneck: link, bottleneck_gbps: bytes / (time * 1e3), scale_up_bytes: su_bytes, network_bytes: net_bytes, latency_bound: lat >= xfer }
            }
            Kernel::LowLatency => {
                let all = t * k as f64 * h * bytes_el;
                if nodes <= 1 {
                    let xfer = imbalance * all * (n as f64 - 1.0) / n as f64 / (params::LL_NVLINK_EFFICIENCY * su_bw * 1e3);
                    let time = params::LL_NVLINK_LATENCY_US + xfer;
                    Phase { time_us: time, bottleneck: su_link, bottleneck_gbps: all / (time * 1e3), scale_up_bytes: all, network_bytes: 0.0, latency_bound: params::LL_NVLINK_LATENCY_US >= xfer }
                } else {
                    // Every token-expert pair is its own RDMA write, the local ones included.
                    let base = if dispatch { params::LL_DISPATCH_LATENCY_US } else { params::LL_COMBINE_LATENCY_US };
                    let lat = base + params::LL_LATENCY_PER_DOUBLING_US * (n as f64 / 8.0).log2().max(0.0);
                    let xfer = imbalance * all / (params::LL_RDMA_EFFICIENCY * nic_bw * 1e3);
                    let time = lat + xfer;
                    Phase { time_us: time, bottleneck: Link::Rdma, bottleneck_gbps: all / (time * 1e3), scale_up_bytes: 0.0, network_bytes: all, latency_bound: lat >= xfer }
                }
            }
        }
    };
    let dispatch = phase(i.dispatch_dtype.bytes_per_element(), true);
    let combine = phase(i.combine_dtype.bytes_per_element(), false);
    let hopper = topo.gpu.arch == Arch::Hopper;
    let (error_band_pct, trust) = if !hopper {
        (None, format!("not validated: no published {} dispatch/combine measurement outside reserved sources; Hopper-fitted parameters used", topo.gpu.name))
    } else if !su.is_nvlink() {
        (None, "not validated: no published measurement over PCIe".to_string())
    } else {
        let band = match i.kernel {
            Kernel::Normal => params::BAND_NORMAL_PCT,
            Kernel::LowLatency => params::BAND_LOW_LATENCY_PCT,
        };
        (Some(band), "validated on Hopper (validation/ep-dispatch.csv, docs/ep-accuracy.md)".to_string())
    };
    Ok(EpReport { dispatch, combine, placement: pl, imbalance, error_band_pct, trust })
}

/// One MoE layer's exchange in a training step: an EP group already placed (`per_domain` GPUs
/// in each of `domains` scale-up domains, as the training layout's span says), `tokens` per
/// rank, `bytes_per_element` per hidden element; `max_nodes_per_token` 0 for no limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerExchange {
    pub per_domain: u32,
    pub domains: u32,
    pub tokens: f64,
    pub hidden: u32,
    pub top_k: u32,
    pub experts: u32,
    pub max_nodes_per_token: u32,
    pub bytes_per_element: f64,
}

/// Dispatch and combine of [`LayerExchange`], µs each, with normal kernels. The training step
/// calls this for node-limited routing (DeepSeek-V3's hierarchical dispatch); uniform random
/// routing (the step models expert-load imbalance in its compute).
pub fn layer_exchange_us(topo: &Topology, x: &LayerExchange) -> (f64, f64) {
    let n = (x.per_domain * x.domains).max(1);
    let nodes = x.domains.max(1);
    let su_bw = topo.cluster.scale_up.line_bw(topo.gpu).0;
    let c = &topo.cluster;
    let nics = c.nics_per_node as f64;
    let gpn = c.gpus_per_node.max(1) as f64;
    let nic_bw = (topo.nic.achievable_bw().0 * nics).min(topo.gpu_nic_nccl_bw().0 * nics.min(gpn)) / gpn;
    let h = x.hidden as f64;
    let limit = (x.max_nodes_per_token > 0).then_some(x.max_nodes_per_token);
    let su_bytes = x.tokens * routing::distinct(x.experts, n, x.top_k) * h * x.bytes_per_element;
    let net_bytes = if nodes <= 1 { 0.0 } else { x.tokens * routing::distinct_nodes(x.experts, nodes, x.top_k, limit) * h * x.bytes_per_element };
    let t_su = su_bytes / (params::NORMAL_NVLINK_EFFICIENCY * su_bw * 1e3);
    let t_net = if net_bytes > 0.0 && nic_bw > 0.0 { net_bytes / (params::NORMAL_RDMA_EFFICIENCY * nic_bw * 1e3) } else { 0.0 };
    let lat = if nodes <= 1 { params::NORMAL_NVLINK_LATENCY_US } else { params::NORMAL_RDMA_LATENCY_US };
    let t = lat + t_su.max(t_net);
    (t, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuKind, NicKind, ScaleUp};
    use crate::topology::Cluster;

    fn input(ep: u32, tokens: u32, kernel: Kernel) -> EpInput {
        EpInput {
            ep,
            tokens,
            hidden: 7168,
            top_k: 8,
            experts: 256,
            dispatch_dtype: Dtype::Fp8,
            combine_dtype: Dtype::Bf16,
            kernel,
            max_nodes_per_token: None,
            imbalance: Imbalance::Uniform,
        }
    }

    #[test]
    fn ep_inside_an_nvl72_rack_uses_nvlink_only() {
        let t = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 36, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }.topology().unwrap();
        for ep in [16, 32, 64] {
            let r = evaluate(&t, &input(ep, 4096, Kernel::Normal)).unwrap();
            assert!(r.placement.scale_up_only, "ep {ep}");
            assert_eq!(r.dispatch.bottleneck, Link::Nvlink);
            assert_eq!(r.dispatch.network_bytes, 0.0);
            assert!(r.error_band_pct.is_none(), "GB200 is not validated");
        }
        // 128 ranks: two racks; with 800G per GPU the network and the NVLink fan-out are close.
        let r = evaluate(&t, &input(128, 4096, Kernel::Normal)).unwrap();
        assert_eq!(r.placement.domains, 2);
        assert!(r.dispatch.network_bytes > 0.0);
    }

    #[test]
    fn low_latency_is_latency_bound_at_decode_sizes_and_normal_is_not_at_prefill() {
        let t = Cluster { nodes: 8, ..Cluster::default() }.topology().unwrap();
        let ll = evaluate(&t, &input(64, 1, Kernel::LowLatency)).unwrap();
        assert!(ll.dispatch.latency_bound && ll.combine.latency_bound);
        let n = evaluate(&t, &input(64, 4096, Kernel::Normal)).unwrap();
        assert!(!n.dispatch.latency_bound);
        assert_eq!(n.dispatch.bottleneck, Link::Rdma);
        // More tokens never take less time; a skew costs time.
        let more = evaluate(&t, &input(64, 8192, Kernel::Normal)).unwrap();
        assert!(more.dispatch.time_us > n.dispatch.time_us);
        let skew = evaluate(&t, &EpInput { imbalance: Imbalance::Factor(1.5), ..input(64, 4096, Kernel::Normal) }).unwrap();
        assert!(skew.dispatch.time_us > n.dispatch.time_us);
        // Node-limited routing sends fewer copies over the network.
        let limited = evaluate(&t, &EpInput { max_nodes_per_token: Some(4), ..input(64, 4096, Kernel::Normal) }).unwrap();
        assert!(limited.dispatch.network_bytes < n.dispatch.network_bytes);
        // FP8 dispatch moves about half the bytes of BF16 combine.
        assert!((n.combine.network_bytes / n.dispatch.network_bytes - 2.0 / (1.0 + 4.0 / 128.0)).abs() < 1e-9);
    }

    #[test]
    fn bad_inputs_name_their_field() {
        let t = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        assert_eq!(evaluate(&t, &input(32, 128, Kernel::Normal)).unwrap_err().field, "ep");
        assert_eq!(evaluate(&t, &EpInput { experts: 12, ..input(16, 128, Kernel::Normal) }).unwrap_err().field, "ep");
        assert_eq!(evaluate(&t, &input(16, 0, Kernel::Normal)).unwrap_err().field, "tokens");
        let e = evaluate(&t, &EpInput { imbalance: Imbalance::Factor(0.5), ..input(16, 128, Kernel::Normal) }).unwrap_err();
        assert_eq!(e.field, "imbalance");
    }
}
