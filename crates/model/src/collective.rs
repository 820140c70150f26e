//! Collective predictions for a group of GPUs on a topology: NCCL's own model for what it
//! models (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce), and Fabricscope's models
//! where NCCL is silent (AllToAll, SendRecv, oversubscribed fat trees, PCIe without P2P).
//!
//! Sizes follow nccl-tests: for AllGather and ReduceScatter `bytes` is the whole gathered
//! buffer, for AllToAll the buffer each rank sends, for the rest the buffer each rank holds.

use crate::catalog::fabric::pcie_nccl_bw;
use crate::catalog::{Arch, NetFamily, ScaleUp};
use crate::network::{self, NetPath};
use crate::calibration::apply::{collective_intervals, for_collective, CollectiveIntervals};
use crate::trust::{AlgoFamily, SizeRange, TierClass, Trust};
use crate::error::{ModelError, Result};
use crate::nccl::search::{Graphs, SearchInput};
use crate::nccl::tuning::{Algorithm, CommFacts, Func, Protocol, Tuning};
use crate::topology::{Placement, TierKind, Topology};
use crate::units::{Bytes, GBps, Micros};
use crate::rccl;
pub use crate::choice::{AlgoChoice, ProtoChoice};
use serde::Serialize;

pub use crate::op::Collective;

impl Collective {
    pub fn func(self) -> Option<Func> {
        match self {
            Collective::AllReduce => Some(Func::AllReduce),
            Collective::AllGather => Some(Func::AllGather),
            Collective::ReduceScatter => Some(Func::ReduceScatter),
            Collective::Broadcast => Some(Func::Broadcast),
            Collective::Reduce => Some(Func::Reduce),
            Collective::AllToAll | Collective::SendRecv => None,
        }
    }
}

pub use crate::fitted::Scales;

/// What limits a prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// Fixed per-operation latency dominates (small messages).
    Latency,
    /// Bandwidth of this tier dominates.
    Tier(TierKind),
}

impl Bottleneck {
    pub fn id(self) -> &'static str {
        match self {
            Bottleneck::Latency => "latency",
            Bottleneck::Tier(TierKind::Hbm) => "hbm",
            Bottleneck::Tier(TierKind::ScaleUp) => "scale_up",
            Bottleneck::Tier(TierKind::Pcie) => "pcie",
            Bottleneck::Tier(TierKind::Nic) => "nic",
            Bottleneck::Tier(TierKind::Leaf) => "leaf",
            Bottleneck::Tier(TierKind::Spine) => "spine",
            Bottleneck::Tier(TierKind::Core) => "core",
        }
    }
}

/// One predicted collective, in nccl-tests terms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub op: Collective,
    pub bytes: Bytes,
    pub ranks: u32,
    /// What nccl-tests would measure for one operation: NCCL's choice of algorithm and
    /// protocol timed by the tiers it crosses (`network`), host launch cost included.
    pub time: Micros,
    /// NCCL's own estimate (`ncclTopoGetAlgoTime`, unchanged, no host cost); `None` for
    /// AllToAll and SendRecv, which NCCL's tuning model does not cover.
    pub nccl_time: Option<Micros>,
    /// bytes / time, per direction.
    pub algbw: GBps,
    /// algbw x the nccl-tests factor for `op`.
    pub busbw: GBps,
    pub algorithm: &'static str,
    pub protocol: &'static str,
    pub bottleneck: Bottleneck,
    /// How far to trust `time` (its class's error against published measurements).
    pub trust: Trust,
}

impl Prediction {
    /// The 90% intervals of busbw (GB/s per direction) and time (µs), consistent with each other
    /// (time = bytes / algbw at each end), each with what it rests on.
    /// Computed on demand from the prediction's class (`calibration`), so the pages, which do
    /// not show them yet, carry neither the tables nor the code; `None` only where the shipped
    /// table has no level for the class.
    pub fn intervals(&self) -> Option<CollectiveIntervals> {
        for_collective(&self.trust).map(|c| collective_intervals(self.busbw.0, self.time.0, &self.trust, &c))
    }
}

/// Per-operation overhead of NCCL's grouped point-to-point all-to-all, and the extra cost of
/// each of its n-1 exchange rounds. Fitted once for the class "NCCL p2p over RDMA" to Meta's
/// published measurements (meta-pytorch/autoparallel nccl_cost_model.py: 37, 42, 60, 98, 290 us
/// at 2-32 H100 nodes), i.e. 21 us + 1.05 us per round; NVLink rounds take about half.
const A2A_BASE_US: f64 = 21.0;
const A2A_NET_ROUND_US: f64 = 1.05;
const A2A_NVLINK_ROUND_US: f64 = 0.5;
/// Fraction of NCCL's NVLink bandwidth that point-to-point copies reach: nccl-tests alltoall
/// busbw 210/320/640 GB/s on DGX A100/H100/B200 (NVIDIA GTC25 S72583) against NCCL's 240/370.8/
/// 721.8 GB/s NVLink figures gives 0.875/0.863/0.887; one value for the NVLink class.
const P2P_NVLINK_EFFICIENCY: f64 = 0.87;
/// PCIe GPUs hang four to a switch; traffic between switches crosses the host root complexes,
/// where many concurrent peer-to-peer streams reach a bit over half the link rate (fitted on
/// GTC25 S72583: 12 and 24 GB/s alltoall busbw for 2x4 GPUs on PCIe Gen5 and Gen6).
const PCIE_GPUS_PER_SWITCH: u32 = 4;
const PCIE_CROSS_SWITCH_EFFICIENCY: f64 = 0.57;

/// Why a forced LL or LL128 cannot run where the net plugin forces Simple (short: the
/// explorer's bundle is at its budget; `NicKind::forces_simple_protocol` says why at length).
const SIMPLE_ONLY: &str = " (aws-ofi-nccl forces NCCL_PROTO=simple here)";

/// A communicator: one group of GPUs on one topology, with NCCL's tables filled in.
/// Building it runs the topology search; predictions afterwards are a few dozen flops.
#[derive(Clone, Debug)]
pub struct Comm {
    pub placement: Placement,
    pub graphs: Graphs,
    /// NCCL's tables as NCCL fills them (with its net plugin's reported latency): they choose.
    tuning: Tuning,
    /// The same tables with no plugin latency, where the plugin reports one (EFA): the base of
    /// the expected time, to which the network's physical per-step latency is added. `None`:
    /// `tuning` is that base too.
    timing: Option<Tuning>,
    /// Per-GPU per-direction bandwidth for point-to-point copies inside a domain.
    pub(crate) p2p_intra: GBps,
    /// The network as this group sees it (None inside one domain).
    pub(crate) net: Option<NetPath>,
    oversubscribed: bool,
    intra_tier: TierKind,
    pcie_switches: bool,
    arch: Arch,
    tier_class: TierClass,
    /// GPUs one host process drives (nccl-tests `-g`): host launch cost is paid per GPU.
    gpus_per_process: u32,
    /// What one domain of the group can inject for an all-to-all, GB/s per direction: every
    /// NIC of the domain (PXN sends each peer's data through the NIC on the peer's rail, so an
    /// all-to-all is not limited to the rings' channels), capped by the GPUs' links to them.
    pub(crate) a2a_inject: f64,
    /// NVLS possible on this group (for error messages).
    nvls_possible: bool,
    nvls_enabled: bool,
    sharp: bool,
    /// The platform runs RCCL (AMD Instinct): its tables and timing terms.
    pub(crate) rccl: Option<RcclComm>,
    /// aws-ofi-nccl's region tuner, on the EFA platforms whose table is ported.
    ofi_tuner: Option<crate::nccl::ofi_tuner::OfiPlatform>,
    /// The net plugin forces NCCL's Simple protocol (`CommFacts::simple_only`).
    simple_only: bool,
    /// Host cost per further GPU one process drives (`network::HOST_LAUNCH_STAGGER` on NVIDIA,
    /// `rccl::timing::HIP_LAUNCH_STAGGER` on AMD).
    launch_stagger: Micros,
    /// A user's cluster as measured, per collective (`Collective::ALL` order): applied by
    /// [`Comm::predict`] (set by `Comm::with_calibration`, module `fitted`).
    pub(crate) calibration: Option<[Scales; 7]>,
    /// The measured share of the catalog's bandwidth inside one domain, and the latency added per
    /// operation, µs (`crate::fitted`).
    pub(crate) intra_fit: (f64, f64),
}

/// An RCCL communicator's model and the latency table its timing reads.
#[derive(Clone, Debug)]
pub(crate) struct RcclComm {
    model: &'static rccl::RcclModel,
    facts: rccl::RcclFacts,
    timing_lat: crate::nccl::tuning::FuncTable,
    /// One pair of GPUs in an xGMI mesh shares a single link (GB/s per direction, RCCL's
    /// figure, scaled as the rings are): what a send/receive between two GPUs of one node gets.
    pub(crate) pair_bw: Option<f64>,
    /// The square root of this GPU's xGMI link rate against the measured generation's
    /// (`XgmiSpec::speedup_over_measured`): scales the timing inside a node, never RCCL's choice.
    link_speedup: f64,
}

/// EFA interfaces aws-ofi-nccl stripes one NCCL device over: all a node has per GPU when there
/// are more interfaces than GPUs (p5: 4, p5en: 2), else 1 (p4d's 4 for 8 GPUs, p6-b200's 8).
fn efa_rails(family: NetFamily, nics: u32, gpus: u32) -> u32 {
    if family == NetFamily::Efa && gpus > 0 && nics > gpus {
        (nics / gpus).max(1)
    } else {
        1
    }
}

impl Comm {
    pub fn new(topo: &Topology, p: Placement) -> Result<Comm> {
        Self::build(topo, p, 1.0, false)
    }

    /// Like [`Comm::new`], for one of several groups that run at the same time and share the
    /// domain's NICs (or an oversubscribed path the group's rank count does not reveal): this
    /// group gets `1 / net_share` of the network bandwidth it would have alone. `net_share`
    /// below 1 is treated as 1. Intra-domain links are not shared (NVSwitch is non-blocking).
    /// NCCL itself never sees the sharing or the spine: its choice is made on the bare NICs.
    ///
    /// The groups like this one tile each domain (every GPU is in one, as a training layout's
    /// groups are), so their rings' flows all cross the fabric together: what ECMP hashes
    /// ([`NetPath::ring_routing_fraction`]). [`Comm::new`] is one group alone.
    pub fn new_shared(topo: &Topology, p: Placement, net_share: f64) -> Result<Comm> {
        Self::build(topo, p, net_share, true)
    }

    fn build(topo: &Topology, p: Placement, net_share: f64, tiled: bool) -> Result<Comm> {
        topo.check(p)?;
        let c = &topo.cluster;
        let domains = p.domains();
        let oversub = topo.oversubscription_for(domains);
        let (intra_bw, intra_nvlink) = topo.intra_nccl_bw(p.per_domain);
        let physical_nics = topo.nics_for(p.per_domain);
        // aws-ofi-nccl's RDMA protocol joins the EFA interfaces behind one GPU's PCIe switch
        // into one NCCL device striped over them (its "rails") and reports their summed speed
        // (`port_speed *= max_group_size`, nccl_ofi_rdma.cpp get_properties, aws/aws-ofi-nccl
        // @2daf7d30): NCCL plans p5's 32x 100G and p5en's 16x 200G as 8 devices of 400G, one
        // per GPU, exactly as 8 NDR NICs. Other transports show NCCL every NIC.
        let rails = efa_rails(topo.nic.family, physical_nics, p.per_domain);
        let nics = physical_nics / rails;
        let share = if net_share.is_finite() { net_share.max(1.0) } else { 1.0 };
        let input = SearchInput {
            arch: topo.gpu.arch,
            gpus: p.per_domain,
            has_net: domains > 1,
            intra_bw: intra_bw.0,
            intra_nvlink,
            nvswitch: c.scale_up.has_nvswitch(),
            nics,
            nic_bw: topo.nic.nccl_bw().0 * rails as f64,
            gpu_nic_bw: topo.gpu_nic_nccl_bw().0,
            gpu_pcie_bw: pcie_nccl_bw(topo.gpu.pcie).0,
        };
        let k = c.nccl.constants();
        let rccl_model = rccl::model_for(topo.gpu.arch);
        let rccl_comm = rccl_model.map(|model| {
            // RCCL plans with the GPU's links to its peers inside a node and, across nodes,
            // with the NICs as well (one ring per NIC, each through one peer link).
            let net_bw = nics as f64 * topo.nic.nccl_bw().0.min(topo.gpu_nic_nccl_bw().0);
            let (bus_bw, channels) = if domains > 1 { (intra_bw.0.min(net_bw), nics) } else { (intra_bw.0, p.per_domain.saturating_sub(1).max(1)) };
            let facts = rccl::RcclFacts {
                n_ranks: p.ranks,
                n_nodes: domains,
                per_node: p.per_domain,
                intra_xgmi: intra_nvlink,
                amd_cpu: c.cpu == crate::topology::CpuVendor::Amd,
                bus_bw,
                channels,
            };
            let xgmi = crate::catalog::xgmi_of(topo.gpu.kind).filter(|_| c.scale_up == ScaleUp::Xgmi);
            // Half the faster links' gain (in ratio): the middle of the two readings the data
            // cannot tell apart (`rccl::timing::GENERATION_BAND_PCT`); 1 on the measured generation.
            let link_speedup = xgmi.map_or(1.0, |x| x.speedup_over_measured().sqrt());
            let pair_bw = xgmi.map(|x| x.rccl_link.0 * link_speedup);
            RcclComm { model, facts, timing_lat: rccl::timing_latency(model, &facts, rccl::timing::PHYSICAL), pair_bw, link_speedup }
        });
        let graphs = match &rccl_comm {
            Some(r) => rccl::graphs(&r.facts),
            None => input.graphs(k),
        };
        let nvls_possible = rccl_comm.is_none() && input.nvswitch && topo.gpu.arch.compute_capability() >= 90 && p.per_domain >= 2;
        let facts = CommFacts {
            arch: topo.gpu.arch,
            n_ranks: p.ranks,
            n_nodes: domains,
            amd_cpu: c.cpu == crate::topology::CpuVendor::Amd,
            intra_nvlink,
            nvls_support: nvls_possible && c.nvls,
            collnet: c.sharp && domains > 1,
            nvswitch: input.nvswitch,
            latency_inter: 0.0,
            simple_only: topo.nic.kind.forces_simple_protocol(topo.gpu.arch),
        };
        // NCCL chooses with the latency its net plugin reports on every network step
        // (aws-ofi-nccl's platform figure on EFA, 0 on IB and sockets); the expected time is
        // timed with the physical latency instead (`timing`, NetPath::step_extra).
        let plugin_latency = if domains > 1 { topo.nic.kind.plugin_latency().0 } else { 0.0 };
        let chooser = CommFacts { latency_inter: plugin_latency, ..facts };
        let (tuning, timing) = match &rccl_comm {
            Some(r) => (rccl::tuning(r.model, &r.facts), None),
            None if plugin_latency > 0.0 => (Tuning::new(k, &chooser, &graphs), Some(Tuning::new(k, &facts, &graphs))),
            None => (Tuning::new(k, &facts, &graphs), None),
        };
        let nvl72 = c.scale_up == ScaleUp::Nvl72;
        // NVLSTree's first and last stages are NVLS inside each domain: its rate, from NCCL's
        // table for one domain of this group, with the measured Blackwell efficiency.
        let nvls_intra_algbw = if domains > 1 && nvls_possible && c.nvls {
            let single = SearchInput { has_net: false, nics: 0, ..input };
            let g1 = single.graphs(k);
            let f1 = CommFacts { n_ranks: p.per_domain, n_nodes: 1, collnet: false, ..facts };
            Tuning::new(k, &f1, &g1)
                .entry(Func::AllReduce, Algorithm::Nvls, Protocol::Simple)
                .map(|(_, bw)| bw * network::nvls_intra_efficiency(topo.gpu.arch, p.per_domain))
                .unwrap_or(f64::INFINITY)
        } else {
            f64::INFINITY
        };
        // Across nodes an xGMI node's links cap the rings at their signalling rate, not at
        // RCCL's 48 GB/s planning figure: 2-node MI300X rings measure 354-361 GB/s busbw
        // (validation/collectives-amd-efa.csv), above the 7 x 48 = 336 that figure allows.
        let xgmi_line = (rccl_comm.is_some() && c.scale_up == ScaleUp::Xgmi)
            .then(|| crate::catalog::xgmi_of(topo.gpu.kind).map(|x| x.line_link.0 * x.links_to(p.per_domain).max(1) as f64))
            .flatten();
        let net = (domains > 1).then(|| {
            // NCCL opens one channel per ring; a domain's traffic leaves through at most as
            // many NICs as it has channels (an NVL72 rack has 72 NICs but far fewer rings).
            let used = nics.min(graphs.ring.n_channels.max(1)) as f64;
            let one_nic = topo.nic.achievable_bw().0 * rails as f64;
            // NVLSTree leaves the domain through its NVLS heads, each on its own NIC: the NVLS
            // search makes one head per NIC and never two on one GPU (NCCL 2.27.5
            // src/graph/search.cc:671-686), at most NCCL_MAX_NVLS_ARITY = 32 (search.cc:1014,
            // src/include/device.h:206); connect.cc:73-88 keeps them as `nHeads`; the kernel
            // gives each head its 1/nHeads of every channel to send up and down the tree
            // (src/device/all_reduce.h:521-627, `nvls->headRank`), and getNvlsNetDev
            // (search.cc:1223-1246) sends a head's connections through the NIC of the NVLS
            // channel it heads. So NVLSTree crosses the network on as many NICs as heads: 32
            // of an NVL72 rack's 72 (the rings use 16), 8 of a 12-NIC B200 node's 12.
            let heads = graphs.nvls.map_or(used, |g| nics.min(g.n_channels.max(1)) as f64);
            // Hops beyond the one leaf switch of a group inside one leaf: 2 via a spine, 4 via a core.
            let leaf_hops = topo.hops_for(domains).saturating_sub(1) as f64;
            let hop = topo.fabric.as_ref().map(|f| f.hop_latency.0).unwrap_or(0.0);
            let fabric = topo.fabric.as_ref();
            // The NICs whose ring connections leave a domain (those a group's rings use, for
            // every group tiling the domain), over the leaves they sit under (one without
            // rails, one per rail group with). One connection per NIC, as crates/flow's ring
            // (groups sharing a NIC would each have their own: not counted, by either model).
            let node_nics = c.nics_per_node.max(1);
            let domain_nics = node_nics * (topo.domain_gpus / c.gpus_per_node.max(1)).max(1);
            let leaf_groups = fabric.map_or(1, |f| node_nics / (f.down_per_leaf / f.nodes_per_leaf.max(1)).clamp(1, node_nics)).max(1);
            let groups = if tiled { (topo.domain_gpus / p.per_domain.max(1)).max(1) } else { 1 };
            let ring_nics = (groups * used as u32).min(domain_nics);
            let mut path = NetPath {
                domains,
                per_domain: p.per_domain,
                ranks: p.ranks,
                nic_side: one_nic * used / share,
                gpu_side: topo.gpu_nic_nccl_bw().0 * (p.per_domain as f64).min(used * p.per_domain as f64 / nics as f64) / share,
                one_nic: one_nic / share,
                nvls_tree_nic_side: one_nic * heads / share,
                nvls_tree_gpu_side: topo.gpu_nic_nccl_bw().0 * heads.min(p.per_domain as f64) / share,
                nvls_channels: graphs.nvls.map_or(0, |_| crate::nccl::constants::nvls_channels(topo.gpu.arch.compute_capability())),
                nvls_heads: heads as u32,
                nvls_tree_stores: network::NVLS_TREE_STORE_AND_FORWARD,
                intra: xgmi_line.unwrap_or(intra_bw.0),
                nvls_intra_algbw,
                step_extra: (topo.nic.latency.0 - network::IB_REFERENCE_LATENCY.0) + leaf_hops * hop,
                domains_per_leaf: topo.domains_per_leaf(),
                oversubscription: fabric.map(|f| f.oversubscription).unwrap_or(1.0),
                domains_per_pod: topo.domains_per_pod(),
                core_path_oversubscription: fabric.map(|f| f.core_path_oversubscription()).unwrap_or(1.0),
                routing: topo.nic.routing,
                uplinks: fabric.map(|f| f.up_per_leaf.max(1)).unwrap_or(1),
                leaf_flows: ring_nics.div_ceil(leaf_groups),
                leaf_groups,
                ring_routing: 1.0,
                family: topo.nic.family,
                qps_per_connection: topo.qps_per_connection.max(1),
                host_staged: topo.gpu.kind.is_grace_blackwell(),
                flow: topo.flow,
                channels: tuning.comm_channels().max(1),
                amd_cpu: facts.amd_cpu,
                rail_bw: topo.nic.achievable_bw().0 / share,
            };
            path.ring_routing = path.ring_routing_fraction();
            path
        });
        // All-to-all injection: all of the domain's NICs, not only as many as NCCL has rings.
        let a2a_inject = {
            let one_nic = topo.nic.achievable_bw().0;
            let nic_side = one_nic * physical_nics as f64 / share;
            let gpu_side = topo.gpu_nic_nccl_bw().0 * p.per_domain as f64 / share;
            nic_side.min(gpu_side)
        };
        let rccl_on = rccl_comm.is_some();
        let tier_class = match (&net, nvl72) {
            (None, true) => TierClass::Nvl72Rack,
            (None, false) if c.scale_up == ScaleUp::Xgmi => TierClass::XgmiNode,
            (None, false) if intra_nvlink => TierClass::NvlinkNode,
            (None, false) => TierClass::PcieNode,
            (Some(_), true) => TierClass::Nvl72Racks,
            (Some(_), false) if rccl_on => TierClass::RcclNodes,
            (Some(n), false) => match n.family {
                NetFamily::InfiniBand => TierClass::InfiniBand,
                NetFamily::RoceV2 => TierClass::Roce,
                NetFamily::TcpSockets => TierClass::Tcp,
                NetFamily::Efa => TierClass::Efa,
            },
        };
        Ok(Comm {
            placement: p,
            graphs,
            tuning,
            timing,
            p2p_intra: GBps(intra_bw.0 * if intra_nvlink { P2P_NVLINK_EFFICIENCY } else { 1.0 }),
            net,
            oversubscribed: oversub > 1.0,
            intra_tier: if matches!(c.scale_up, ScaleUp::Pcie { .. }) || !intra_nvlink { TierKind::Pcie } else { TierKind::ScaleUp },
            pcie_switches: !intra_nvlink,
            arch: topo.gpu.arch,
            tier_class,
            gpus_per_process: 1,
            a2a_inject,
            nvls_possible,
            nvls_enabled: c.nvls,
            sharp: c.sharp,
            ofi_tuner: (topo.nic.family == NetFamily::Efa)
                .then(|| crate::nccl::ofi_tuner::OfiPlatform::of(topo.gpu.arch == Arch::Hopper, p.per_domain, physical_nics, topo.nic.line_rate.0))
                .flatten(),
            simple_only: facts.simple_only,
            launch_stagger: if rccl_comm.is_some() { rccl::timing::HIP_LAUNCH_STAGGER } else { network::HOST_LAUNCH_STAGGER },
            rccl: rccl_comm,
            // A cluster as measured times every group with its fit (module `fitted`).
            #[cfg(any(test, feature = "calibrate"))]
            calibration: topo.fitted.as_ref().map(|f| Collective::ALL.map(|op| f.scales_for(op))),
            #[cfg(not(any(test, feature = "calibrate")))]
            calibration: None,
            intra_fit: (1.0, 0.0),
        })
    }

    /// Times the group as run with one host process driving `gpus` GPUs (nccl-tests `-g`);
    /// the default is one process per GPU, as MPI and torchrun launch it.
    pub fn with_gpus_per_process(mut self, gpus: u32) -> Comm {
        self.gpus_per_process = gpus.max(1);
        self
    }

    /// Times the network as run with `qps` queue pairs per connection
    /// (NCCL_IB_QPS_PER_CONNECTION; NCCL's default is 1). NCCL's own choice does not change.
    /// This communicator with `stores` chunk stores on NVLSTree's network path instead of
    /// [`network::NVLS_TREE_STORE_AND_FORWARD`]: the accuracy test's refit of that count.
    pub fn with_nvls_tree_stores(mut self, stores: f64) -> Comm {
        if let Some(n) = self.net.as_mut() {
            n.nvls_tree_stores = stores;
        }
        self
    }

    pub fn with_qps_per_connection(mut self, qps: u32) -> Comm {
        if let Some(n) = self.net.as_mut() {
            n.qps_per_connection = qps.max(1);
            n.ring_routing = n.ring_routing_fraction();
        }
        self
    }

    /// The EFA rendezvous in `p`'s expected time: the wait per network hop (us) and the hops
    /// that pay it (`network::NetPath::rendezvous`); (0, 0) where none is paid.
    pub fn rendezvous(&self, p: &Prediction) -> (f64, f64) {
        let a = Algorithm::ALL.into_iter().find(|a| a.name() == p.algorithm);
        let pr = Protocol::ALL.into_iter().find(|x| x.name() == p.protocol);
        match (&self.net, p.op.func(), a, pr) {
            (Some(net), Some(func), Some(a), Some(pr)) => net.rendezvous(func, a, pr, p.bytes.as_f64(), self.rccl.is_some()),
            _ => (0.0, 0.0),
        }
    }

    /// What the network keeps for this group's rings and trees after routing: the flow
    /// model's fraction when one ran, else [`NetPath::ring_routing_fraction`] (1 without a network).
    pub fn ring_routing(&self) -> f64 {
        self.net.as_ref().map_or(1.0, |n| n.flow.and_then(|f| f.ring).unwrap_or(n.ring_routing))
    }

    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The channels NCCL runs `algorithm` (its name, as [`Prediction::algorithm`]) on at once:
    /// the NVLS graph's for NVLS and NVLSTree, the communicator's `nChannels` for the rest
    /// (Learn plays one of them and says so).
    pub fn channels(&self, algorithm: &str) -> u32 {
        match (algorithm, self.graphs.nvls) {
            ("NVLS" | "NVLSTree", Some(g)) => g.n_channels.max(1),
            _ => self.tuning.comm_channels().max(1),
        }
    }

    /// Predicts one collective of `bytes` on this group.
    pub fn predict(&self, op: Collective, bytes: Bytes, algo: AlgoChoice, proto: ProtoChoice) -> Result<Prediction> {
        let n = self.placement.ranks;
        if n <= 1 {
            return Ok(self.finish(op, bytes, Micros::ZERO, None, "none", "none", Bottleneck::Latency));
        }
        #[cfg(any(test, feature = "calibrate"))]
        if let Some(s) = self.calibration {
            let s = s[op as usize];
            let mut p = self.scaled(s).predict(op, bytes, algo, proto)?;
            p.trust.fit_u90 = if self.net.is_some() { s.net_u90 } else { s.intra_u90 };
            return Ok(p);
        }
        #[cfg(not(any(test, feature = "calibrate")))]
        debug_assert!(self.calibration.is_none(), "a calibration given to a build without the model's `calibrate` feature");
        match op.func() {
            Some(func) => self.predict_nccl(op, func, bytes, algo, proto),
            None => {
                if algo != AlgoChoice::Auto {
                    return Err(ModelError::new(
                        "algo",
                        format!("{} is built from point-to-point sends; only --algo auto applies", op.id()),
                    ));
                }
                match op {
                    Collective::AllToAll if proto == ProtoChoice::Auto || proto == ProtoChoice::Simple => {
                        Ok(self.predict_all_to_all(bytes))
                    }
                    Collective::AllToAll => Err(ModelError::new("proto", "all_to_all runs the Simple protocol; allowed: auto, simple")),
                    _ => self.predict_send_recv(bytes, proto),
                }
            }
        }
    }

    fn predict_nccl(&self, op: Collective, func: Func, bytes: Bytes, algo: AlgoChoice, proto: ProtoChoice) -> Result<Prediction> {
        // RCCL picks the protocol across nodes from a size table, then the algorithm by cost;
        // a protocol the user forces overrides the table.
        let table_proto = match (&self.rccl, proto) {
            (Some(r), ProtoChoice::Auto) => rccl::multi_node_protocol(r.model, &r.facts, func, bytes.0),
            _ => None,
        };
        // On EFA the plugin's tuner may name the algorithm and protocol (when nothing is forced).
        let tuned = match (self.ofi_tuner, algo, proto) {
            (Some(t), AlgoChoice::Auto, ProtoChoice::Auto) => t.choose(func, bytes.0, self.placement.ranks, self.placement.domains()),
            _ => None,
        };
        let allowed = |a: Algorithm, p: Protocol| algo.admits(a) && proto.admits(p) && table_proto.is_none_or(|t| t == p);
        let best = tuned
            .and_then(|(ta, tp)| self.tuning.best(func, bytes.0, |a, p| a == ta && p == tp && allowed(a, p)))
            .or_else(|| self.tuning.best(func, bytes.0, allowed));
        let Some((a, p, t_nccl)) = best else {
            return Err(self.unavailable(op, func, algo, proto));
        };
        let (lat, bw) = self.expected_terms(func, a, p, bytes);
        let bw = if self.net.is_none() { bw * self.intra_fit.0 } else { bw };
        let t = lat + bytes.as_f64() / (1000.0 * bw);
        // NVLS reduces in the NVSwitch: where the domain's side of the network model is the
        // smaller one, the switch, not the NICs, sets the bandwidth.
        let nvls_switch_bound = matches!(a, Algorithm::Nvls | Algorithm::NvlsTree)
            && self.net.as_ref().is_none_or(|n| n.intra_bound(func, a));
        let bottleneck = if lat * 2.0 >= t {
            Bottleneck::Latency
        } else if nvls_switch_bound {
            Bottleneck::Tier(TierKind::ScaleUp)
        } else {
            self.bandwidth_tier()
        };
        Ok(self.finish(op, bytes, Micros(t), Some(Micros(t_nccl)), a.name(), p.name(), bottleneck))
    }

    /// The latency (µs) and algorithm bandwidth (GB/s) of the expected time for NCCL's choice
    /// `(a, p)` at this size: NCCL's own terms inside one domain (NVLS and the Simple ring on
    /// Blackwell corrected),
    /// the network's physics across domains.
    pub fn expected_terms(&self, func: Func, a: Algorithm, p: Protocol, bytes: Bytes) -> (f64, f64) {
        let (lat, bw_nccl) = self.timing.as_ref().unwrap_or(&self.tuning).terms(func, a, p, bytes.0).unwrap_or((0.0, 1.0));
        if let Some(r) = &self.rccl {
            return self.rccl_terms(r, func, a, p, bw_nccl, bytes);
        }
        let (lat, bw) = match &self.net {
            None if a == Algorithm::Nvls => (lat, bw_nccl * network::nvls_intra_efficiency(self.arch, self.placement.per_domain)),
            // On NVLink only (a PCIe-switched node's ring is another link).
            None if a == Algorithm::Ring && p == Protocol::Simple && !self.pcie_switches => (lat, bw_nccl * network::ring_intra_efficiency(self.arch)),
            None => (lat, bw_nccl),
            // LL and LL128 carry flags inside the data: they reach at most NCCL's own
            // (protocol-limited) bandwidth; Simple reaches what the network delivers.
            Some(net) => {
                let cap = if p == Protocol::Simple { f64::INFINITY } else { bw_nccl };
                let bw = net.algbw(func, a).min(cap);
                let fill = match (a, p, func) {
                    (Algorithm::NvlsTree, Protocol::Simple, Func::AllReduce) => net.nvls_tree_fill_us(bytes.as_f64(), bw),
                    _ => 0.0,
                };
                let (wait, bw) = net.message_terms(func, a, p, bytes.as_f64(), bw, false);
                (lat + net.extra_latency(func, a) + fill + wait, bw)
            }
        };
        (lat, bw.max(1e-9))
    }

    /// RCCL's choice timed: its latency scaled to what an xGMI node measures; inside a node
    /// the Simple ring at the measured fraction of its planned bandwidth plus its pipeline
    /// fill (`rccl::timing::xgmi_ring_fill`), other entries at
    /// RCCL's own (protocol-limited) bandwidth; across nodes the network model, capped by RCCL's
    /// bandwidth for LL and LL128 (as NCCL's are): flags in the data limit them, not the wire.
    fn rccl_terms(&self, r: &RcclComm, func: Func, a: Algorithm, p: Protocol, bw_rccl: f64, bytes: Bytes) -> (f64, f64) {
        let lat = r.timing_lat[func as usize][a as usize][p as usize];
        let ring_simple = a == Algorithm::Ring && p == Protocol::Simple;
        let (lat, bw) = match &self.net {
            None if ring_simple => {
                let n = self.placement.ranks as f64;
                let steps = match func {
                    Func::AllReduce => 2.0 * (n - 1.0),
                    Func::AllGather | Func::ReduceScatter => n - 1.0,
                    Func::Broadcast | Func::Reduce => n,
                };
                (lat + rccl::timing::xgmi_ring_fill(steps, bytes).0, bw_rccl * rccl::timing::XGMI_RING_EFFICIENCY * r.link_speedup)
            }
            None => (lat, bw_rccl),
            Some(net) => {
                let cap = if p == Protocol::Simple { f64::INFINITY } else { bw_rccl };
                let (wait, bw) = net.message_terms(func, a, p, bytes.as_f64(), net.algbw(func, a).min(cap), true);
                (lat + net.extra_latency(func, a) + wait, bw)
            }
        };
        (lat, bw.max(1e-9))
    }

    fn bandwidth_tier(&self) -> Bottleneck {
        match &self.net {
            None => Bottleneck::Tier(self.intra_tier),
            // Rings, trees and SHARP cross an oversubscribed tier on few flows: the NICs or
            // the GPUs' PCIe links bind (all-to-all says Spine/Core itself when it pays),
            // unless ECMP hashes some of those flows onto one leaf uplink (`Leaf`).
            Some(n) if n.flow.is_none() && n.ring_routing < 1.0 => Bottleneck::Tier(TierKind::Leaf),
            Some(n) if n.gpu_side < n.nic_side * network::RING_EFFICIENCY => Bottleneck::Tier(TierKind::Pcie),
            Some(_) => Bottleneck::Tier(TierKind::Nic),
        }
    }
    /// Explains why a forced algorithm or protocol cannot run, listing what can: blames the
    /// algorithm when it cannot run with any protocol, else the protocol.
    fn unavailable(&self, op: Collective, func: Func, algo: AlgoChoice, proto: ProtoChoice) -> ModelError {
        let mut algos: Vec<&str> = Vec::new();
        let mut protos: Vec<&str> = Vec::new();
        for a in Algorithm::ALL {
            for p in Protocol::ALL {
                if self.tuning.entry(func, a, p).is_some() {
                    let id = AlgoChoice::of(a).id();
                    if !algos.contains(&id) {
                        algos.push(id);
                    }
                    if algo.admits(a) && !protos.contains(&p.name()) {
                        protos.push(p.name());
                    }
                }
            }
        }
        if protos.is_empty() {
            let why = match algo {
                AlgoChoice::Nvls | AlgoChoice::NvlsTree if self.rccl.is_some() => " (RCCL has no NVLS: xGMI has no switch to reduce in)",
                AlgoChoice::Collnet if self.rccl.is_some() => " (RCCL has no CollNet without a CollNet plugin)",
                AlgoChoice::Nvls | AlgoChoice::NvlsTree if !self.nvls_possible => " (NVLS needs Hopper or later GPUs on NVSwitch)",
                AlgoChoice::Nvls | AlgoChoice::NvlsTree if !self.nvls_enabled => " (NVLS is switched off for this cluster)",
                AlgoChoice::Nvls if self.placement.domains() > 1 && !self.sharp => " (NVLS across nodes needs --sharp)",
                AlgoChoice::Collnet if !self.sharp => " (CollNet needs SHARP on InfiniBand)",
                _ => "",
            };
            return ModelError::new(
                "algo",
                format!("{} cannot run {} on this group{why}; allowed: auto, {}", op.id(), algo.id(), algos.join(", ")),
            );
        }
        let why = if self.simple_only { SIMPLE_ONLY } else { "" };
        ModelError::new(
            "proto",
            format!(
                "{} with algorithm {} cannot use protocol {}{why}; allowed: auto, {}",
                op.id(),
                algo.id(),
                proto.id(),
                protos.join(", ").to_ascii_lowercase()
            ),
        )
    }

    /// NCCL's all-to-all posts n-1 send/receive pairs. Peers in the same domain are reached
    /// over NVLink; the rest over the network, where a domain's GPUs share its NICs (NCCL's
    /// PXN sends through whichever NIC sits on the destination's rail, as MoE dispatch
    /// libraries do too). The two parts run at the same time: the slower one sets the time.
    fn predict_all_to_all(&self, bytes: Bytes) -> Prediction {
        let n = self.placement.ranks as f64;
        let ppn = self.placement.per_domain;
        let g = ppn as f64;
        let s = bytes.as_f64();
        let local = s * (g - 1.0) / n;
        let (bw_time, rounds_lat, tier) = match &self.net {
            Some(net) => {
                let remote = s * (n - g) / n;
                let per_gpu = self.a2a_inject / g * net.all_to_all_net_efficiency();
                let t_net = remote / (per_gpu * 1e3);
                let t_local = local / (self.p2p_intra.0 * 1e3);
                let tier = if net.all_to_all_net_efficiency() < 1.0 && self.oversubscribed {
                    Bottleneck::Tier(if net.domains > net.domains_per_pod { TierKind::Core } else { TierKind::Spine })
                } else {
                    self.bandwidth_tier()
                };
                let extra = (n - g) * net.step_extra;
                (t_net.max(t_local), (n - 1.0) * A2A_NET_ROUND_US + extra, tier)
            }
            None if self.pcie_switches && ppn > PCIE_GPUS_PER_SWITCH => {
                let k = PCIE_GPUS_PER_SWITCH as f64;
                let out = s * (n - 1.0) / n;
                let direct = out / (self.p2p_intra.0 * 1e3);
                let cross = k * s * (n - k) / n / (self.p2p_intra.0 * PCIE_CROSS_SWITCH_EFFICIENCY * 1e3);
                (direct.max(cross), (n - 1.0) * A2A_NVLINK_ROUND_US, Bottleneck::Tier(TierKind::Pcie))
            }
            None => {
                let t = s * (n - 1.0) / n / (self.p2p_intra.0 * 1e3);
                (t, (n - 1.0) * A2A_NVLINK_ROUND_US, Bottleneck::Tier(self.intra_tier))
            }
        };
        let lat = A2A_BASE_US + rounds_lat;
        let bottleneck = if lat >= bw_time { Bottleneck::Latency } else { tier };
        self.finish(Collective::AllToAll, bytes, Micros(lat + bw_time), None, "P2P", "Simple", bottleneck)
    }

    /// nccl-tests sendrecv: every rank sends `bytes` to the next rank and receives from the
    /// previous one; the pairs that cross a domain boundary go over one NIC each (through PXN,
    /// on the destination's rail). Costed with NCCL's ring step constants for each protocol.
    fn predict_send_recv(&self, bytes: Bytes, proto: ProtoChoice) -> Result<Prediction> {
        let (bw, hw, extra) = match &self.net {
            Some(net) => (net.p2p_bw(), 2, net.step_extra),
            None => match self.rccl.as_ref().and_then(|r| r.pair_bw) {
                Some(link) => (link * P2P_NVLINK_EFFICIENCY, 0, 0.0),
                None => (self.p2p_intra.0, if self.pcie_switches { 1 } else { 0 }, 0.0),
            },
        };
        let k = crate::nccl::NcclVersion::V2_27_5.constants();
        let ring = Algorithm::Ring as usize;
        let mut best = (f64::INFINITY, Protocol::Simple);
        for (pi, p) in Protocol::ALL.into_iter().enumerate() {
            if !proto.admits(p) || (p == Protocol::Ll128 && self.pcie_switches) || (p != Protocol::Simple && self.simple_only) {
                continue;
            }
            let eff = match p {
                Protocol::Ll => 0.5,
                Protocol::Ll128 => 0.92,
                Protocol::Simple => 1.0,
            };
            let t = k.base_lat[ring][pi] + k.hw_lat[hw][ring][pi] + extra + bytes.as_f64() / (bw * eff * 1e3);
            if t < best.0 {
                best = (t, p);
            }
        }
        if !best.0.is_finite() {
            let (why, allowed) = match (self.simple_only, self.pcie_switches) {
                (true, _) => (SIMPLE_ONLY, "auto, simple"),
                (false, true) => (" without NVLink", "auto, ll, simple"),
                (false, false) => (" without NVLink", "auto, ll, ll128, simple"),
            };
            return Err(ModelError::new("proto", format!("send_recv cannot use {}{why}; allowed: {allowed}", proto.id())));
        }
        let lat = k.base_lat[ring][best.1 as usize] + k.hw_lat[hw][ring][best.1 as usize] + extra;
        let bottleneck = if lat * 2.0 >= best.0 { Bottleneck::Latency } else { self.bandwidth_tier() };
        Ok(self.finish(Collective::SendRecv, bytes, Micros(best.0), None, "P2P", best.1.name(), bottleneck))
    }

    /// The class whose validation says how far to trust a prediction.
    /// Across domains NCCL's NVLS (not NVLSTree) reduces in the network switch (SHARP), so
    /// it is trusted as the CollNet/SHARP class its measurements belong to. On an RCCL platform
    /// no published measurement covers (MI355X) the class measured on its predecessor, always
    /// extrapolated and at least `rccl::timing::GENERATION_BAND_PCT` wide.
    pub fn trust(&self, algorithm: &str, bytes: Bytes) -> Trust {
        let family = match AlgoFamily::of(algorithm) {
            AlgoFamily::Nvls if algorithm == "NVLS" && self.net.is_some() => AlgoFamily::CollNet,
            f => f,
        };
        let p = self.placement;
        let t = Trust::at(self.tier_class, family, SizeRange::of(bytes.0), p.domains(), p.ranks);
        if self.rccl.is_some() && !rccl::timing::measured(self.arch) {
            t.on_successor(rccl::timing::GENERATION_BAND_PCT)
        } else {
            t
        }
    }

    pub fn tier_class(&self) -> TierClass {
        self.tier_class
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(&self, op: Collective, bytes: Bytes, gpu_time: Micros, nccl_time: Option<Micros>, algorithm: &'static str, protocol: &'static str, bottleneck: Bottleneck) -> Prediction {
        let n = self.placement.ranks;
        // One process driving several GPUs starts the last one's kernel late (`network`).
        let stagger = self.gpus_per_process.min(n).saturating_sub(1) as f64;
        let time = if n <= 1 { gpu_time } else { gpu_time + self.launch_stagger * stagger + Micros(self.intra_fit.1) };
        let algbw = if time.0 > 0.0 { bytes.per(time) } else { GBps(0.0) };
        let trust = self.trust(algorithm, bytes);
        Prediction {
            op,
            bytes,
            ranks: n,
            time,
            nccl_time,
            algbw,
            busbw: algbw * op.busbw_factor(n),
            algorithm,
            protocol,
            bottleneck,
            trust,
        }
    }
}

/// nccl-tests' default sweep sizes: powers of two from `min` to `max`. The sweep ends past
/// u64's range instead of repeating its largest value.
pub fn sweep_sizes(min: Bytes, max: Bytes) -> impl Iterator<Item = Bytes> {
    let mut next = Some(min.0.max(1));
    std::iter::from_fn(move || {
        let cur = next.filter(|s| *s <= max.0)?;
        next = cur.checked_mul(2);
        Some(Bytes(cur))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;

    fn comm(c: Cluster) -> Comm {
        let t = c.topology().unwrap();
        Comm::new(&t, t.whole()).unwrap()
    }

    #[test]
    fn more_bandwidth_never_makes_a_collective_slower() {
        let slow = comm(Cluster { nic: crate::catalog::NicKind::IbHdr, ..Cluster::default() });
        let fast = comm(Cluster::default());
        for op in Collective::ALL {
            for b in sweep_sizes(Bytes(8), Bytes(16 << 30)) {
                let s = slow.predict(op, b, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
                let f = fast.predict(op, b, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
                assert!(f.time.0 <= s.time.0 * (1.0 + 1e-9), "{op:?} {b:?}: {} > {}", f.time.0, s.time.0);
            }
        }
    }

    #[test]
    fn forced_nvls_on_a100_names_the_allowed_algorithms() {
        let c = comm(Cluster {
            gpu: crate::catalog::GpuKind::A100,
            scale_up: ScaleUp::NvSwitch { gen: 3 },
            nic: crate::catalog::NicKind::IbHdr,
            ..Cluster::default()
        });
        let e = c.predict(Collective::AllReduce, Bytes(1 << 20), AlgoChoice::Nvls, ProtoChoice::Auto).unwrap_err();
        assert_eq!(e.field, "algo");
        assert!(e.message.contains("ring") && e.message.contains("tree"), "{}", e.message);
    }

    #[test]
    fn forced_protocol_errors_blame_the_protocol() {
        let c = comm(Cluster {
            gpu: crate::catalog::GpuKind::H100Pcie,
            nodes: 1,
            scale_up: ScaleUp::Pcie { gen: crate::catalog::PcieGen::Gen5, p2p: true },
            ..Cluster::default()
        });
        let e = c.predict(Collective::AllReduce, Bytes(1 << 20), AlgoChoice::Auto, ProtoChoice::Ll128).unwrap_err();
        assert_eq!(e.field, "proto");
        assert!(e.message.contains("ll, simple"), "{}", e.message);
        let e = c.predict(Collective::SendRecv, Bytes(1 << 20), AlgoChoice::Auto, ProtoChoice::Ll128).unwrap_err();
        assert_eq!(e.field, "proto");
    }

    #[test]
    fn sweep_is_powers_of_two() {
        let v: Vec<_> = sweep_sizes(Bytes(8), Bytes(64)).collect();
        assert_eq!(v, vec![Bytes(8), Bytes(16), Bytes(32), Bytes(64)]);
        assert_eq!(sweep_sizes(Bytes(8), Bytes(16 << 30)).count(), 32);
        // The largest sizes end the sweep instead of repeating u64::MAX forever.
        assert_eq!(sweep_sizes(Bytes(1 << 62), Bytes(u64::MAX)).count(), 2);
        assert_eq!(sweep_sizes(Bytes(u64::MAX), Bytes(u64::MAX)).count(), 1);
        assert_eq!(sweep_sizes(Bytes(1), Bytes(u64::MAX)).count(), 64);
        assert_eq!(sweep_sizes(Bytes(0), Bytes(0)).count(), 0);
    }
}
