//! Expert-parallel dispatch and combine as an operation of its own: the two exchanges of every
//! MoE layer (tokens to their top-k experts' ranks, results back), timed as an EP library's
//! kernels run them on the cluster's links ([`Library`]: DeepEP, pplx-kernels, pplx-garden,
//! NCCL EP, UCCL-EP, MoRI-EP, TensorRT-LLM; DeepEP on NVIDIA GPUs and MoRI on AMD by default).
//!
//! - **Normal kernels** (throughput, training and prefill): hierarchical. A token bound for
//!   another node crosses the network once per destination node, to the GPU with the same local
//!   index there (its rail), which forwards it over NVLink to the ranks that hold its experts.
//!   With node-limited routing a token reaches at most `max_nodes_per_token` nodes. The copy to
//!   the token's own node never leaves it: at 2 nodes half of DeepEP's counted RDMA bytes stay
//!   local, which is why its RDMA figure is higher at 2 and 4 nodes than at 8.
//! - **Low-latency kernels** (decode): one RDMA message per token-expert pair, straight to the
//!   expert's rank, no forwarding (over NVLink to peers of the sender's own node where the
//!   library does so, as DeepEP has since its PR #173); a fixed cost that dominates at decode
//!   batch sizes.
//!
//! An EP group that fits inside one scale-up domain (8 GPUs, or up to 72 in an NVL72 rack)
//! uses that domain's links only. `bottleneck_GBps` follows DeepEP's definition: the bytes that
//! cross the bottleneck link per GPU, divided by the kernel's time.
//!
//! | module | what it holds |
//! |---|---|
//! | [`routing`] | distinct ranks and nodes per token, busiest-rank load, in closed form |
//! | [`library`] | the libraries, their kernel kinds and source-derived parameters |
//! | [`params`] | DeepEP's and pplx-kernels' fitted parameters, with their sources |
//! | [`fit`] | the fit of a library's parameters on measured rows |

pub mod fit;
pub mod library;
pub mod params;
pub mod routing;

use crate::catalog::{Arch, ScaleUp};
use crate::error::{ModelError, Result};
use crate::topology::{Topology, NVL72_GPUS};
use library::{LowLatencyParams, NormalParams};
pub use library::{Library, LibraryParams};
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
    /// The library running the kernels; `None` for the platform's default (DeepEP on NVIDIA
    /// GPUs, MoRI on AMD: [`Library::default_for`]).
    #[serde(default)]
    pub library: Option<Library>,
}

impl EpInput {
    /// A training layer's exchange: `ranks` in the group, `tokens` per rank (rounded, at least
    /// 1), BF16 both ways, normal kernels, uniform routing (the step's compute carries the
    /// experts' load imbalance), `max_nodes_per_token` 0 for no limit.
    pub fn training(ranks: u32, tokens: f64, hidden: u32, top_k: u32, experts: u32, max_nodes_per_token: u32, library: Option<Library>) -> EpInput {
        EpInput {
            ep: ranks,
            tokens: tokens.round().clamp(1.0, f64::from(1u32 << 20)) as u32,
            hidden,
            top_k,
            experts,
            dispatch_dtype: Dtype::Bf16,
            combine_dtype: Dtype::Bf16,
            kernel: Kernel::Normal,
            max_nodes_per_token: (max_nodes_per_token > 0).then_some(max_nodes_per_token),
            imbalance: Imbalance::Uniform,
            library,
        }
    }
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
    /// DeepEP's "RDMA bandwidth": a token's copies to its distinct destination nodes (its own
    /// node included, normal kernels) or all its token-expert messages (low-latency kernels),
    /// bytes per GPU / time, GB/s; 0 inside one scale-up domain.
    #[serde(rename = "rdma_GBps")]
    pub rdma_gbps: f64,
    /// Bytes one GPU sends over the scale-up links and over the network (mean rank).
    pub scale_up_bytes: f64,
    /// (only what leaves the node: copies to other domains).
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
    /// The library whose kernels were timed (the one asked for, or the platform's default).
    pub library: Library,
    pub dispatch: Phase,
    pub combine: Phase,
    pub placement: EpPlacement,
    /// Busiest rank's load over the mean that the times include.
    pub imbalance: f64,
    /// Median absolute error of this kernel kind on published runs of fitted libraries,
    /// percent; `None` where the library is not fitted or the class (GPU generation, link) was
    /// never measured.
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
    if i.ep > i.experts {
        return Err(ModelError::new("ep", format!("ep {} is more than the {} experts: each rank holds at least one; ep 1 to {}", i.ep, i.experts, i.experts.min(topo.total_gpus))));
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

/// The library `i` names, or the platform's default ([`Library::default_for`]).
pub fn library_of(topo: &Topology, i: &EpInput) -> Library {
    i.library.unwrap_or_else(|| Library::default_for(topo.gpu.arch))
}

/// [`evaluate`] for a group already placed (a training layout's EP span).
pub fn evaluate_placed(topo: &Topology, i: &EpInput, pl: EpPlacement) -> Result<EpReport> {
    let lib = library_of(topo, i);
    evaluate_with(topo, i, pl, lib, &lib.params())
}

/// Per-GPU network bandwidth, GB/s per direction: its share of the node's NICs' achievable
/// goodput, capped by its links to them.
fn nic_bw_per_gpu(topo: &Topology) -> f64 {
    let c = &topo.cluster;
    let nics = c.nics_per_node as f64;
    let gpn = c.gpus_per_node.max(1) as f64;
    (topo.nic.achievable_bw().0 * nics).min(topo.gpu_nic_nccl_bw().0 * nics.min(gpn)) / gpn
}

/// The link the scale-up domain's copies take.
fn scale_up_link(topo: &Topology) -> Link {
    match topo.cluster.scale_up {
        ScaleUp::Xgmi => Link::Xgmi,
        su if su.is_nvlink() => Link::Nvlink,
        _ => Link::Pcie,
    }
}

/// One normal (hierarchical) phase of `tokens` per rank, `bytes_per_token` each, over `n` ranks
/// in `nodes` domains: one copy per distinct destination rank over the scale-up links, one per
/// distinct destination node over the network (only those to other nodes leave the NIC).
/// Returns (time µs, scale-up bytes, DeepEP's counted RDMA bytes (the token's own node
/// included, as its benchmarks count them), bytes that leave the node, NVLink-bound, fixed cost).
fn normal_phase(np: &NormalParams, su_bw: f64, nic_bw: f64, imbalance: f64, ranks_per_token: f64, nodes_per_token: f64, nodes: u32, tokens: f64, bytes_per_token: f64) -> (f64, f64, f64, f64, bool, f64) {
    let su_bytes = tokens * ranks_per_token * bytes_per_token;
    let counted = if nodes <= 1 { 0.0 } else { tokens * nodes_per_token * bytes_per_token };
    // By symmetry the token's own node is 1/nodes of its expected distinct nodes.
    let remote = counted * (nodes.max(1) - 1) as f64 / nodes.max(1) as f64;
    let t_su = su_bytes / (np.nvlink_efficiency * su_bw * 1e3);
    let t_net = if remote > 0.0 && nic_bw > 0.0 { remote / (np.rdma_efficiency * nic_bw * 1e3) } else { 0.0 };
    let lat = if nodes <= 1 { np.nvlink_latency_us } else { np.rdma_latency_us };
    (lat + imbalance * t_su.max(t_net), su_bytes, counted, remote, t_su > t_net, lat)
}

/// [`evaluate`] on a cluster as measured (`crate::fitted`): the scale-up bandwidth times
/// `scale_up_share` and the network's times `network_share` (dimensionless shares of the
/// catalog's); the kernels' latencies are the library's.
pub fn evaluate_scaled(topo: &Topology, i: &EpInput, scale_up_share: f64, network_share: f64) -> Result<EpReport> {
    let lib = library_of(topo, i);
    evaluate_inner(topo, i, place(topo, i.ep), lib, &lib.params(), (scale_up_share, network_share))
}

/// [`evaluate_placed`] with the parameters `p` of `lib` given (the fit's trial parameters).
/// On a cluster as measured (`Topology::fitted`) the links are scaled by its AllToAll shares,
/// as [`evaluate_scaled`] scales them for `ep --calibration`: a training step's or a serving
/// step's dispatch and combine are timed on the calibrated links too.
pub fn evaluate_with(topo: &Topology, i: &EpInput, pl: EpPlacement, lib: Library, p: &LibraryParams) -> Result<EpReport> {
    evaluate_inner(topo, i, pl, lib, p, fitted_shares(topo))
}

/// The calibrated cluster's (scale-up, network) bandwidth shares for AllToAll, (1, 1) as designed.
fn fitted_shares(topo: &Topology) -> (f64, f64) {
    #[cfg(any(test, feature = "calibrate"))]
    if let Some(f) = &topo.fitted {
        let s = f.scales_for(crate::Collective::AllToAll);
        return (s.intra_bw, s.net_bw);
    }
    let _ = topo;
    (1.0, 1.0)
}

/// Expert slots over an EP group of `ep` (count): the `experts` themselves when `ep` divides them,
/// else padded with redundant copies to the next multiple of `ep`, as wide-EP deployments place
/// them (DeepSeek's Day-6 decode runs 256 + 32 on EP 144; TensorRT-LLM's and SGLang's expert
/// load balancers take a slot count per rank, e.g. 288 slots for EP 72). A token still goes to
/// `top_k` slots, so the copies spread its destinations as more experts would.
pub fn expert_slots(experts: u32, ep: u32) -> u32 {
    experts.div_ceil(ep.max(1)) * ep.max(1)
}

fn evaluate_inner(topo: &Topology, i: &EpInput, pl: EpPlacement, lib: Library, p: &LibraryParams, (su_share, net_share): (f64, f64)) -> Result<EpReport> {
    check(topo, i)?;
    let padded = EpInput { experts: expert_slots(i.experts, i.ep), ..*i };
    let i = &padded;
    let n = i.ep;
    let nodes = pl.domains;
    let su = topo.cluster.scale_up;
    let su_link = scale_up_link(topo);
    // A group inside one domain above the one-sided kernel's limit runs the library's
    // two-sided kernel: the same stores, [`library::TWO_SIDED_PAYLOAD`] of each packet tokens.
    let two_sided = pl.scale_up_only && p.max_scale_up_ranks.is_some_and(|m| n > m);
    let su_bw = su.line_bw(topo.gpu).0 * su_share * if two_sided { library::TWO_SIDED_PAYLOAD } else { 1.0 };
    let nic_bw = nic_bw_per_gpu(topo) * net_share;
    if !pl.scale_up_only && nic_bw <= 0.0 {
        return Err(ModelError::new("nics_per_node", format!("an EP group of {n} spans {nodes} domains and needs a network: use at least 1 NIC per node")));
    }
    if i.kernel == Kernel::Normal && p.normal.is_none() {
        return Err(ModelError::new("kernel", format!("{} has no normal (high-throughput) kernels, only low-latency ones: use kernel low-latency or another library", lib.name())));
    }
    if i.kernel == Kernel::LowLatency && p.low_latency.is_none() {
        return Err(ModelError::new("kernel", format!("{} has no low-latency kernels: use kernel normal or another library", lib.name())));
    }
    if let (false, Some(m)) = (pl.scale_up_only, p.max_network_ranks) {
        if n > m {
            return Err(ModelError::new("ep", format!("{} runs EP groups of at most {m} GPUs across the network; got ep {n}", lib.name())));
        }
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
    // A library without FP8 dispatch sends FP8 and FP4 activations as BF16.
    let sent = |d: Dtype| if !p.fp8_dispatch && d != Dtype::Bf16 { Dtype::Bf16 } else { d };
    let phase = |bytes_el: f64, dispatch: bool| -> Phase {
        if let (Kernel::Normal, Some(np)) = (i.kernel, p.normal.as_ref()) {
            let nodes_per_token = if nodes <= 1 { 1.0 } else { routing::distinct_nodes(i.experts, nodes, k, i.max_nodes_per_token) };
            let (time, su_bytes, counted, remote, nvlink_bound, lat) = normal_phase(np, su_bw, nic_bw, imbalance, ranks_per_token, nodes_per_token, nodes, t, h * bytes_el);
            // DeepEP's figures: NVL bytes or counted RDMA bytes over the kernel's time.
            let (link, bytes) = if nvlink_bound || counted <= 0.0 { (su_link, su_bytes) } else { (Link::Rdma, counted) };
            return Phase {
                time_us: time,
                bottleneck: link,
                bottleneck_gbps: bytes / (time * 1e3),
                rdma_gbps: counted / (time * 1e3),
                scale_up_bytes: su_bytes,
                network_bytes: remote,
                latency_bound: lat >= time - lat,
            };
        }
        let lp = p.low_latency.unwrap_or(DEFAULT_LOW_LATENCY);
        let all = t * k as f64 * h * bytes_el;
        if nodes <= 1 {
            let xfer = imbalance * all * (n as f64 - 1.0) / n as f64 / (lp.nvlink_efficiency * su_bw * 1e3);
            let time = lp.nvlink_latency_us + xfer;
            return Phase { time_us: time, bottleneck: su_link, bottleneck_gbps: all / (time * 1e3), rdma_gbps: 0.0, scale_up_bytes: all, network_bytes: 0.0, latency_bound: lp.nvlink_latency_us >= xfer };
        }
        // Every token-expert pair is its own message: to peers of the sender's own domain over
        // NVLink where the library does so (at 4x or more the NIC's rate on every platform, and
        // at most half the messages, those copies hide under the RDMA writes), every other one
        // (all, where it does not) an RDMA write.
        let base = if dispatch { lp.dispatch_latency_us } else { lp.combine_latency_us };
        let lat = base + lp.per_doubling_us * (n as f64 / 8.0).log2().max(0.0);
        let (local, remote) = if lp.nvlink_local {
            let per = pl.per_domain.min(n) as f64;
            (all * (per - 1.0) / n as f64, all * (n as f64 - per) / n as f64)
        } else {
            (0.0, all)
        };
        let xfer = imbalance * remote / (lp.rdma_efficiency * nic_bw * 1e3);
        let time = lat + xfer;
        Phase { time_us: time, bottleneck: Link::Rdma, bottleneck_gbps: all / (time * 1e3), rdma_gbps: all / (time * 1e3), scale_up_bytes: local, network_bytes: remote, latency_bound: lat >= xfer }
    };
    let dispatch = phase(sent(i.dispatch_dtype).bytes_per_element(), true);
    let combine = phase(sent(i.combine_dtype).bytes_per_element(), false);
    let measured = match topo.gpu.arch {
        Arch::Hopper => true,
        // DeepEP's V2 table: normal kernels on 8-GPU Blackwell nodes (not rack-scale domains).
        Arch::Blackwell => lib == Library::Deepep && i.kernel == Kernel::Normal && topo.domain_gpus <= topo.cluster.gpus_per_node,
        _ => false,
    };
    let (error_band_pct, mut trust) = if !lib.fitted() {
        (None, format!("not validated: {}'s parameters come from its source code and papers only (its published tables are kept aside to check the model)", lib.name()))
    } else if !measured {
        (None, format!("not validated: no published {} measurement of {} {} kernels outside reserved sources; parameters fitted on other GPUs used", topo.gpu.name, lib.name(), i.kernel.id()))
    } else if !su.is_nvlink() {
        (None, "not validated: no published measurement over PCIe".to_string())
    } else {
        let band = match i.kernel {
            Kernel::Normal => params::BAND_NORMAL_PCT,
            Kernel::LowLatency => params::BAND_LOW_LATENCY_PCT,
        };
        (Some(band), format!("validated: {} fitted on published runs (validation/ep-dispatch.csv, docs/ep-accuracy.md)", lib.name()))
    };
    if two_sided {
        trust.push_str("; this EP group in one domain is above its one-sided AlltoAll's 64 ranks: timed as its two-sided MNNVL kernel");
    }
    if sent(i.dispatch_dtype) != i.dispatch_dtype || sent(i.combine_dtype) != i.combine_dtype {
        trust.push_str(&format!("; {} has no FP8 or FP4 exchange: sent as BF16", lib.name()));
    }
    Ok(EpReport { library: lib, dispatch, combine, placement: pl, imbalance, error_band_pct, trust })
}

/// Used only where a library's low-latency parameters are missing and the kernel was checked
/// to be normal: never reached for a low-latency phase (the check above refuses it).
const DEFAULT_LOW_LATENCY: LowLatencyParams = match params::DEEPEP.low_latency {
    Some(p) => p,
    None => panic!("DeepEP has low-latency kernels"),
};

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

/// Dispatch and combine of [`LayerExchange`], µs each, with hierarchical (normal) kernels as
/// the training step has always timed them: every distinct destination node's copy, the
/// token's own included, at [`params::TRAINING_RDMA_EFFICIENCY`] of a NIC. The training step
/// calls this for node-limited routing (DeepSeek-V3's hierarchical dispatch); uniform random
/// routing (the step models expert-load imbalance in its compute). This is the step's default:
/// the training calibration (bands.csv, training.csv) was made with these parameters, and
/// moving the default to the library model ([`evaluate_placed`]) changes its MoE predictions
/// (Megatron MoE on Hopper: median error 17.8% -> 23.2%). A library named for the step
/// (`train --ep-library`, `Framework::ep_library`) is timed by the library model instead.
pub fn layer_exchange_us(topo: &Topology, x: &LayerExchange) -> (f64, f64) {
    let n = (x.per_domain * x.domains).max(1);
    let nodes = x.domains.max(1);
    let su_bw = topo.cluster.scale_up.line_bw(topo.gpu).0;
    let nic_bw = nic_bw_per_gpu(topo);
    let h = x.hidden as f64;
    let limit = (x.max_nodes_per_token > 0).then_some(x.max_nodes_per_token);
    let su_bytes = x.tokens * routing::distinct(x.experts, n, x.top_k) * h * x.bytes_per_element;
    let net_bytes = if nodes <= 1 { 0.0 } else { x.tokens * routing::distinct_nodes(x.experts, nodes, x.top_k, limit) * h * x.bytes_per_element };
    let t_su = su_bytes / (params::TRAINING_NVLINK_EFFICIENCY * su_bw * 1e3);
    let t_net = if net_bytes > 0.0 && nic_bw > 0.0 { net_bytes / (params::TRAINING_RDMA_EFFICIENCY * nic_bw * 1e3) } else { 0.0 };
    let lat = if nodes <= 1 { params::TRAINING_NVLINK_LATENCY_US } else { params::TRAINING_RDMA_LATENCY_US };
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
            library: None,
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

    /// DeepEP's own V1 table (docs/legacy.md, H800, 8x 400G ConnectX-7 per node, 4,096 tokens
    /// for normal kernels with top-4 node groups, 128 for low-latency ones; hidden 7168, top-8 of
    /// 256, FP8 dispatch, BF16 combine) within the fitted class's tolerance (10%; the fit's median
    /// error is 4%).
    #[test]
    fn deepep_published_rows_are_reproduced() {
        let h800 = |nodes| Cluster { gpu: GpuKind::H800, nodes, ..Cluster::default() }.topology().unwrap();
        let deepep = |ep, tokens, kernel, limit| EpInput { tokens, max_nodes_per_token: limit, library: Some(Library::Deepep), ..input(ep, tokens, kernel) };
        let near = |got: f64, want: f64, what: &str| assert!((got / want - 1.0).abs() <= 0.10, "{what}: model {got:.1}, DeepEP {want}");
        // Normal kernels: NVLink GB/s inside a node, RDMA GB/s (DeepEP's count) across nodes.
        let r = evaluate(&h800(1), &deepep(8, 4096, Kernel::Normal, None)).unwrap();
        near(r.dispatch.bottleneck_gbps, 153.0, "EP8 dispatch NVLink");
        near(r.combine.bottleneck_gbps, 158.0, "EP8 combine NVLink");
        for (nodes, d, c) in [(2, 43.0, 43.0), (4, 58.0, 57.0), (8, 51.0, 50.0)] {
            let r = evaluate(&h800(nodes), &deepep(8 * nodes, 4096, Kernel::Normal, Some(4))).unwrap();
            near(r.dispatch.rdma_gbps, d, &format!("EP{} dispatch RDMA", 8 * nodes));
            near(r.combine.rdma_gbps, c, &format!("EP{} combine RDMA", 8 * nodes));
        }
        // Low-latency kernels: µs per phase.
        for (nodes, d, c) in [(2, 118.0, 195.0), (4, 155.0, 273.0), (8, 173.0, 314.0), (16, 192.0, 369.0), (32, 194.0, 360.0)] {
            let r = evaluate(&h800(nodes), &deepep(8 * nodes, 128, Kernel::LowLatency, None)).unwrap();
            near(r.dispatch.time_us, d, &format!("EP{} LL dispatch", 8 * nodes));
            near(r.combine.time_us, c, &format!("EP{} LL combine", 8 * nodes));
        }
    }

    /// For every library and kernel kind it has: faster NICs, or more of them, never make
    /// dispatch or combine slower.
    #[test]
    fn more_rdma_bandwidth_never_slows_any_library() {
        use crate::catalog::NicKind;
        for lib in Library::ALL {
            for kernel in [Kernel::Normal, Kernel::LowLatency] {
                for (ep, nodes) in [(16, 2), (32, 4), (64, 8)] {
                    for tokens in [1, 128, 4096] {
                        let mut last: Option<(f64, f64)> = None;
                        for (nic, nics) in [(NicKind::IbHdr, 4), (NicKind::IbHdr, 8), (NicKind::IbNdr, 8), (NicKind::IbXdr, 8)] {
                            let t = Cluster { nodes, nic, nics_per_node: nics, ..Cluster::default() }.topology().unwrap();
                            let Ok(r) = evaluate(&t, &EpInput { library: Some(lib), ..input(ep, tokens, kernel) }) else { continue };
                            if let Some((d, c)) = last {
                                assert!(r.dispatch.time_us <= d * (1.0 + 1e-12) && r.combine.time_us <= c * (1.0 + 1e-12), "{lib:?} {kernel:?} ep {ep} tokens {tokens} {nic:?} x{nics}");
                            }
                            last = Some((r.dispatch.time_us, r.combine.time_us));
                        }
                    }
                }
            }
        }
    }

    /// A library without the kernel kind asked for, or past its stated group size, is refused
    /// by field; the platform's default is DeepEP on NVIDIA and MoRI on AMD.
    #[test]
    fn libraries_refuse_what_they_do_not_run() {
        let t = Cluster { nodes: 16, ..Cluster::default() }.topology().unwrap();
        let e = evaluate(&t, &EpInput { library: Some(Library::Pplx), ..input(16, 128, Kernel::Normal) }).unwrap_err();
        assert_eq!(e.field, "kernel");
        let e = evaluate(&t, &EpInput { library: Some(Library::NcclEp), ..input(128, 128, Kernel::Normal) }).unwrap_err();
        assert_eq!(e.field, "ep");
        // NCCL EP has no FP8: the same bytes as a BF16 dispatch, and the trust says so.
        let nccl = evaluate(&t, &EpInput { library: Some(Library::NcclEp), ..input(16, 4096, Kernel::Normal) }).unwrap();
        let bf16 = evaluate(&t, &EpInput { library: Some(Library::NcclEp), dispatch_dtype: Dtype::Bf16, ..input(16, 4096, Kernel::Normal) }).unwrap();
        assert_eq!(nccl.dispatch.time_us, bf16.dispatch.time_us);
        assert!(nccl.trust.contains("sent as BF16") && nccl.error_band_pct.is_none(), "{}", nccl.trust);
        assert_eq!(evaluate(&t, &input(16, 128, Kernel::Normal)).unwrap().library, Library::Deepep);
        let amd = Cluster { gpu: GpuKind::Mi300x, scale_up: ScaleUp::Xgmi, nodes: 2, ..Cluster::default() }.topology().unwrap();
        let r = evaluate(&amd, &input(16, 128, Kernel::Normal)).unwrap();
        assert_eq!(r.library, Library::Mori);
        assert!(r.dispatch.bottleneck == Link::Xgmi || r.dispatch.bottleneck == Link::Rdma, "{:?}", r.dispatch.bottleneck);
    }

    #[test]
    fn bad_inputs_name_their_field() {
        let t = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        assert_eq!(evaluate(&t, &input(32, 128, Kernel::Normal)).unwrap_err().field, "ep");
        assert_eq!(evaluate(&t, &EpInput { experts: 12, ..input(16, 128, Kernel::Normal) }).unwrap_err().field, "ep");
        // An EP size that does not divide the experts runs them in padded slots (256 on EP 12:
        // 264 slots), timed as that many experts.
        let odd = evaluate(&t, &EpInput { experts: 256, ..input(12, 128, Kernel::Normal) }).unwrap();
        let slots = evaluate(&t, &EpInput { experts: 264, ..input(12, 128, Kernel::Normal) }).unwrap();
        assert_eq!((expert_slots(256, 12), odd.dispatch.time_us), (264, slots.dispatch.time_us));
        assert_eq!(expert_slots(256, 72), 288);
        assert_eq!(evaluate(&t, &input(16, 0, Kernel::Normal)).unwrap_err().field, "tokens");
        let e = evaluate(&t, &EpInput { imbalance: Imbalance::Factor(0.5), ..input(16, 128, Kernel::Normal) }).unwrap_err();
        assert_eq!(e.field, "imbalance");
    }
}
