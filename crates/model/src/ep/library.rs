//! The EP communication library that runs dispatch and combine, and its physical parameters.
//!
//! Libraries differ in mechanism, not only in speed: DeepEP's normal kernels send a token once
//! per destination node over RDMA and forward it over NVLink there, its low-latency kernels
//! write every token-expert pair straight to the expert's rank (IBGDA); pplx-kernels has only
//! the second kind; TensorRT-LLM's one-sided AlltoAll stays inside a multi-node NVLink domain.
//! Each library is a [`LibraryParams`]: which kernel kinds it has, their fixed costs per phase,
//! the fraction of each link's rate their copies reach, and whether it can dispatch in FP8.
//!
//! DeepEP's and pplx-kernels' parameters are fitted on validation/ep-dispatch.csv by
//! [`crate::ep::fit`] (the constants, and `Library::params`, are in [`crate::ep::params`], and
//! crates/model/tests/ep_accuracy.rs refits them and fails when they differ). The other five
//! are modelled from their source code, papers and design notes only ([`Library::prior`]): their
//! published benchmark tables are kept aside to check the model, never fitted, so their
//! predictions say "not validated".

use crate::catalog::Arch;
use serde::{Deserialize, Serialize};

/// An expert-parallel dispatch/combine library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Library {
    /// deepseek-ai/DeepEP (V1 NVSHMEM kernels and the V2 ElasticBuffer on NCCL Gin).
    Deepep,
    /// perplexityai/pplx-kernels.
    Pplx,
    /// perplexityai/pplx-garden (TransferEngine RDMA, host proxy).
    PplxGarden,
    /// NVIDIA/nccl contrib/nccl_ep (NCCL Device API: LSA and GIN).
    NcclEp,
    /// uccl-project/uccl `ep/` (DeepEP's API over a GPU-to-CPU proxy).
    UcclEp,
    /// ROCm/mori MORI-EP (AMD).
    Mori,
    /// NVIDIA/TensorRT-LLM's MoE AlltoAll kernels.
    Trtllm,
}

/// How a library's kernels reach the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// The GPU rings the NIC's doorbell itself (IBGDA / GDAKI): no CPU on the path.
    GpuInitiated,
    /// The GPU posts commands to a host thread that issues RDMA verbs.
    CpuProxy,
    /// Load/store over the scale-up domain only (multi-node NVLink); no network transport.
    ScaleUpOnly,
}

/// Normal (high-throughput) kernels: hierarchical, one RDMA copy per destination node, then
/// NVLink forwarding to the ranks holding the token's experts there.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalParams {
    /// Fraction of the GPU's per-direction scale-up line rate the SM-driven copies reach
    /// (dimensionless).
    pub nvlink_efficiency: f64,
    /// Fraction of one NIC's achievable goodput the RDMA copies reach (dimensionless).
    pub rdma_efficiency: f64,
    /// Fixed cost of a phase inside one scale-up domain (launch, layout exchange, barrier), µs.
    pub nvlink_latency_us: f64,
    /// Fixed cost of a phase across the network, µs.
    pub rdma_latency_us: f64,
}

/// Low-latency kernels: one message per token-expert pair straight to the expert's rank.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LowLatencyParams {
    /// Fixed cost of dispatch across the network at EP 8, µs.
    pub dispatch_latency_us: f64,
    /// Fixed cost of combine across the network at EP 8, µs.
    pub combine_latency_us: f64,
    /// What each doubling of EP beyond 8 adds to either fixed cost (more peers to signal and
    /// wait for), µs.
    pub per_doubling_us: f64,
    /// Fraction of one NIC's achievable goodput the per-pair messages reach (dimensionless).
    pub rdma_efficiency: f64,
    /// Messages to ranks of the sender's own scale-up domain go over NVLink, not the NIC.
    pub nvlink_local: bool,
    /// Fixed cost of a phase inside one scale-up domain, µs.
    pub nvlink_latency_us: f64,
    /// Fraction of the per-direction scale-up line rate reached inside one domain
    /// (dimensionless).
    pub nvlink_efficiency: f64,
}

/// Everything the EP model needs to know about a library.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LibraryParams {
    /// Its normal (high-throughput) kernels, if it has any.
    pub normal: Option<NormalParams>,
    /// Its low-latency kernels, if it has any.
    pub low_latency: Option<LowLatencyParams>,
    /// Dispatches FP8 activations (with their scales); otherwise FP8 and FP4 go out as BF16.
    pub fp8_dispatch: bool,
    /// How its kernels reach the network.
    pub transport: Transport,
    /// Largest EP group it runs across the network (ranks); `None` for no stated limit.
    pub max_network_ranks: Option<u32>,
    /// Largest EP group its one-sided scale-up kernel runs (ranks); `None` for no stated
    /// limit. A larger group inside one domain runs its two-sided kernel: TensorRT-LLM's
    /// WideEP MoE (fused_moe_wide_ep.py selects `AlltoallMethodType.MNNVL` wherever MNNVL is
    /// supported) writes packets into a FIFO in each receiver's memory (moeCommKernels.h: 8
    /// entries of 256 KiB per peer and channel, no rank limit), which the receiver copies out:
    /// the same stores over NVLink with [`TWO_SIDED_PAYLOAD`] of each packet carrying tokens,
    /// fixed costs as the one-sided kernel's (not fitted: its tables are reserved).
    pub max_scale_up_ranks: Option<u32>,
}

/// Share of each packet of TensorRT-LLM's two-sided MNNVL AlltoAll that carries tokens: a
/// packet is one warp's 32 lanes of eight 64-bit words, two lanes' words of which are flags
/// (cpp/tensorrt_llm/kernels/moeCommKernels.h, `DATA_PAYLOAD_SIZE_PER_PACKET_IN_U64 =
/// (WARP_SIZE - 2) * U64_DATA_REG_PER_THREAD`); dimensionless.
pub const TWO_SIDED_PAYLOAD: f64 = 30.0 / 32.0;

/// [`NormalParams`] in its fields' order: NVLink and RDMA efficiency, NVLink and RDMA fixed
/// cost (µs).
pub const fn normal(nvlink_efficiency: f64, rdma_efficiency: f64, nvlink_latency_us: f64, rdma_latency_us: f64) -> Option<NormalParams> {
    Some(NormalParams { nvlink_efficiency, rdma_efficiency, nvlink_latency_us, rdma_latency_us })
}

/// [`LowLatencyParams`] in its fields' order: dispatch and combine fixed cost (µs), growth per
/// doubling of EP (µs), RDMA efficiency, NVLink for same-domain peers, NVLink fixed cost (µs)
/// and efficiency.
pub const fn low_latency(dispatch_latency_us: f64, combine_latency_us: f64, per_doubling_us: f64, rdma_efficiency: f64, nvlink_local: bool, nvlink_latency_us: f64, nvlink_efficiency: f64) -> LowLatencyParams {
    LowLatencyParams { dispatch_latency_us, combine_latency_us, per_doubling_us, rdma_efficiency, nvlink_local, nvlink_latency_us, nvlink_efficiency }
}

impl Library {
    pub const ALL: [Library; 7] = [Library::Deepep, Library::Pplx, Library::PplxGarden, Library::NcclEp, Library::UcclEp, Library::Mori, Library::Trtllm];

    /// The id the CLI and links use.
    pub fn id(self) -> &'static str {
        match self {
            Library::Deepep => "deepep",
            Library::Pplx => "pplx",
            Library::PplxGarden => "pplx-garden",
            Library::NcclEp => "nccl-ep",
            Library::UcclEp => "uccl-ep",
            Library::Mori => "mori",
            Library::Trtllm => "trtllm",
        }
    }

    pub fn from_id(s: &str) -> Option<Library> {
        let s = s.trim().to_ascii_lowercase();
        Library::ALL.into_iter().find(|l| l.id() == s)
    }

    /// The ids, in order.
    pub fn ids() -> Vec<&'static str> {
        Library::ALL.iter().map(|l| l.id()).collect()
    }

    /// The name in words.
    pub fn name(self) -> &'static str {
        match self {
            Library::Deepep => "DeepEP",
            Library::Pplx => "pplx-kernels",
            Library::PplxGarden => "pplx-garden",
            Library::NcclEp => "NCCL EP",
            Library::UcclEp => "UCCL-EP",
            Library::Mori => "MoRI-EP",
            Library::Trtllm => "TensorRT-LLM AlltoAll",
        }
    }

    /// The library a prediction uses when none is named: DeepEP on NVIDIA GPUs, MoRI on AMD.
    pub fn default_for(arch: Arch) -> Library {
        if arch.is_amd() {
            Library::Mori
        } else {
            Library::Deepep
        }
    }

    /// Its parameters from source code, papers and design notes only, before any fit: what a
    /// library with no validation rows (or whose rows are held out) is predicted with.
    pub fn prior(self) -> LibraryParams {
        match self {
            Library::Deepep => DEEPEP_PRIOR,
            Library::Pplx => PPLX_PRIOR,
            Library::PplxGarden => PPLX_GARDEN,
            Library::NcclEp => NCCL_EP,
            Library::UcclEp => UCCL_EP,
            Library::Mori => MORI,
            Library::Trtllm => TRTLLM,
        }
    }

}

/// DeepEP before any fit (deepseek-ai/DeepEP README and csrc/kernels/internode.cu,
/// internode_ll.cu): normal kernels with NVLink forwarding, low-latency kernels over IBGDA that
/// use NVLink for same-node peers since PR #173. Efficiencies are the usual fraction of a link
/// an SM-driven copy reaches (3/4 of NVLink, 9/10 of an RDMA NIC); fixed costs are a kernel
/// launch and one round of signals across the network (tens of µs).
const DEEPEP_PRIOR: LibraryParams = LibraryParams { normal: normal(0.75, 0.9, 20.0, 40.0), low_latency: Some(low_latency(30.0, 40.0, 3.0, 0.9, true, 20.0, 0.6)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: None };

/// pplx-kernels before any fit (perplexityai/pplx-kernels csrc/all_to_all/, its inter-node
/// dispatch and combine kernels; its README now points to pplx-garden as the successor): one kind
/// only, NVSHMEM puts per token and destination expert, each phase split into a send and a
/// receive kernel (`DO_SEND`/`DO_RECV` template flags) with a host-side launch between them,
/// hence a larger fixed cost than DeepEP's single kernel. NVSHMEM may carry a same-node peer's
/// put over NVLink, but the kernel treats every destination alike and waits on all of them, so
/// every pair is modelled at the NIC's rate (`nvlink_local` false).
const PPLX_PRIOR: LibraryParams = LibraryParams { normal: None, low_latency: Some(low_latency(80.0, 50.0, 5.0, 0.7, false, 40.0, 0.4)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: None };

/// pplx-garden (arXiv 2510.27656, "RDMA Point-to-Point Communication for LLM Systems"; the
/// perplexityai/pplx-garden source): decode-oriented dispatch/combine on TransferEngine, whose
/// one-sided WriteImm writes are posted by a host proxy thread that a GPU kernel wakes through a
/// UVM flag, over ConnectX-7 or EFA; NVLink for same-node peers. No normal kind. The proxy hop
/// (a PCIe round trip and the thread's polling, ~10 µs per phase) is added to DeepEP's
/// prior fixed cost; the paper's TransferEngine reaches 400 Gb/s on one GPU's NICs, taken as
/// DeepEP's prior NIC efficiency. Not fitted: its benchmark docs are reserved.
const PPLX_GARDEN: LibraryParams = LibraryParams { normal: None, low_latency: Some(low_latency(40.0, 50.0, 3.0, 0.9, true, 25.0, 0.6)), fp8_dispatch: true, transport: Transport::CpuProxy, max_network_ranks: None, max_scale_up_ranks: None };

/// NCCL EP (NVIDIA/nccl contrib/nccl_ep, RELEASE.md and its kernels): DeepEP's two kinds
/// (low-latency and high-throughput "HT") on the NCCL Device API, LSA loads/stores inside the
/// NVLink domain and GIN (GPU-initiated networking, arXiv 2511.15076) across it. RELEASE.md:
/// no FP8 data types, at most 8 nodes x 8 GPUs, HT mode "being tuned ... may demonstrate
/// sub-optimal results": its HT network efficiency is taken at 0.7 of a NIC, below DeepEP's
/// prior 0.9; its GIN fixed cost one GIN signal round above DeepEP's (~10 µs). Not fitted: its
/// benchmark table is reserved.
const NCCL_EP: LibraryParams = LibraryParams { normal: normal(0.7, 0.7, 25.0, 50.0), low_latency: Some(low_latency(40.0, 50.0, 3.0, 0.85, true, 25.0, 0.6)), fp8_dispatch: false, transport: Transport::GpuInitiated, max_network_ranks: Some(64), max_scale_up_ranks: None };

/// UCCL-EP (uccl-project/uccl `ep/`, its README and the deep_ep_wrapper): DeepEP's API and both
/// kinds, but the GPU hands each RDMA write to a CPU proxy thread that posts it with plain
/// libibverbs (no NVSHMEM, no IBGDA), so it runs on EFA, Broadcom and AMD NICs; same-node peers
/// over cudaIpc/NVLink. The proxy adds a host hop per batch of writes (~15 µs per phase, a
/// PCIe round trip plus the proxy's polling); bandwidth as DeepEP's prior (the proxy batches
/// large writes). Not fitted: its EP benchmark tables are reserved.
const UCCL_EP: LibraryParams = LibraryParams { normal: normal(0.75, 0.85, 20.0, 55.0), low_latency: Some(low_latency(45.0, 55.0, 4.0, 0.85, true, 20.0, 0.6)), fp8_dispatch: true, transport: Transport::CpuProxy, max_network_ranks: None, max_scale_up_ranks: None };

/// MoRI-EP (ROCm/mori README, docs and src/ops/dispatch_combine/: IntraNode over xGMI P2P,
/// InterNode over xGMI + RDMA, InterNodeV1 the lower-latency inter-node kernel), GPU-initiated
/// RDMA through its own shmem/IBGDA layer on ConnectX-7, Broadcom Thor2 and Pensando NICs.
/// Copies over xGMI peer links reach less of their line rate than NVSwitch copies (each peer is
/// one 64 GB/s link, MI300X's mesh): 0.6 taken; network parameters as DeepEP's prior. Not
/// fitted: its EP benchmark tables are reserved.
const MORI: LibraryParams = LibraryParams { normal: normal(0.6, 0.85, 25.0, 45.0), low_latency: Some(low_latency(35.0, 45.0, 3.0, 0.85, true, 25.0, 0.5)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: None };

/// TensorRT-LLM (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/
/// moeAlltoAllKernels.cu and tensorrt_llm/_torch/modules/fused_moe/ communication strategies):
/// inside a multi-node NVLink domain (an NVL72 rack) its one-sided AlltoAll writes each token
/// straight into every destination rank's receive buffer with stores (no network, no
/// forwarding; MAX_RANKS 64 in moe_alltoall.py; a larger group runs the two-sided kernel,
/// `max_scale_up_ranks`), at 0.8 of NVLink's rate (one-sided stores, no
/// receiver-side copy); across the network TensorRT-LLM runs DeepEP's kernels (its DeepEP and
/// DeepEPLowLatency strategies), so those parameters are DeepEP's prior. Not fitted: its
/// wide-EP blog tables are reserved.
const TRTLLM: LibraryParams = LibraryParams { normal: normal(0.8, 0.9, 15.0, 40.0), low_latency: Some(low_latency(30.0, 40.0, 3.0, 0.9, true, 15.0, 0.8)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: Some(64) };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_defaults_follow_the_vendor() {
        for l in Library::ALL {
            assert_eq!(Library::from_id(l.id()), Some(l));
            let json = serde_json_free_id(l);
            assert_eq!(json, l.id());
        }
        assert_eq!(Library::from_id("DeepEP"), Some(Library::Deepep));
        assert_eq!(Library::from_id("pplx-kernels"), None);
        assert_eq!(Library::default_for(Arch::Hopper), Library::Deepep);
        assert_eq!(Library::default_for(Arch::Cdna3), Library::Mori);
        // Every library has at least one kernel kind; pplx-kernels and pplx-garden have no
        // normal kind.
        for l in Library::ALL {
            let p = l.params();
            assert!(p.normal.is_some() || p.low_latency.is_some(), "{l:?}");
        }
        assert!(Library::Pplx.params().normal.is_none() && Library::PplxGarden.params().normal.is_none());
    }

    /// The serde id is the CLI's id (kebab-case), without pulling serde_json into the model.
    fn serde_json_free_id(l: Library) -> String {
        format!("{l:?}").chars().fold(String::new(), |mut s, c| {
            if c.is_ascii_uppercase() && !s.is_empty() {
                s.push('-');
            }
            s.push(c.to_ascii_lowercase());
            s
        })
    }
}
