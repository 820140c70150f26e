//! Interconnect tiers: scale-up fabrics inside a domain, scale-out NICs between domains, switches.
//!
//! Two bandwidths are kept apart on purpose: the *signalling* rate a datasheet prints (shown
//! to users, always with its direction) and the *NCCL* rate, the per-direction figure that
//! NCCL's topology code assigns to the same link (src/graph/topo.h, topo.cc at v2.27.5-1),
//! which is what its tuning model and therefore the collective predictions use.

use super::gpu::{Arch, GpuKind, GpuSpec, PcieGen};
use crate::units::{GBps, Gbps, Micros};
use serde::{Deserialize, Serialize};

/// Per-direction bandwidth NCCL assigns to one PCIe x16 link: width x speed / 80 GB/s with
/// speed 60/120/240/480 for 8/16/32/64 GT/s (NVIDIA/nccl src/graph/topo.cc@v2.27.5-1, pciSpeed
/// table and `width*speed/80`): Gen3 12, Gen4 24, Gen5 48, Gen6 96 GB/s.
pub fn pcie_nccl_bw(gen: PcieGen) -> GBps {
    match gen {
        PcieGen::Gen3 => GBps(12.0),
        PcieGen::Gen4 => GBps(24.0),
        PcieGen::Gen5 => GBps(48.0),
        PcieGen::Gen6 => GBps(96.0),
    }
}

/// Per-direction signalling rate of a PCIe x16 link after line encoding (PCI-SIG: 8, 16, 32,
/// 64 GT/s per lane; 128b/130b for Gen3-5, FLIT for Gen6): about 15.75, 31.5, 63 and 121 GB/s.
/// Vendors often quote the doubled figure (e.g. "128 GB/s" for Gen5): that one is bidirectional.
pub fn pcie_line_bw(gen: PcieGen) -> GBps {
    match gen {
        PcieGen::Gen3 => GBps(15.75),
        PcieGen::Gen4 => GBps(31.5),
        PcieGen::Gen5 => GBps(63.0),
        PcieGen::Gen6 => GBps(121.0),
    }
}

impl PcieGen {
    pub fn name(self) -> &'static str {
        match self {
            PcieGen::Gen3 => "PCIe Gen3 x16",
            PcieGen::Gen4 => "PCIe Gen4 x16",
            PcieGen::Gen5 => "PCIe Gen5 x16",
            PcieGen::Gen6 => "PCIe Gen6 x16",
        }
    }
}

/// NVLink bandwidth NCCL assigns to one NVLink port, per direction, by compute capability
/// (NVIDIA/nccl src/graph/topo.h@v2.27.5-1: SM70 20.0, SM80 20.0, SM90 20.6, SM100 40.1 GB/s).
/// Below the 25/50 GB/s signalling rate: protocol overhead.
pub fn nvlink_port_nccl_bw(arch: Arch) -> GBps {
    match arch {
        Arch::Volta => GBps(20.0),
        Arch::Ampere => GBps(20.0),
        Arch::Hopper => GBps(20.6),
        Arch::Blackwell => GBps(40.1),
        // AMD GPUs have no NVLink; their xGMI links are in `catalog::xgmi`.
        Arch::Cdna3 | Arch::Cdna4 => GBps(0.0),
    }
}

/// The scale-up fabric: how GPUs inside one domain talk to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ScaleUp {
    /// NVLink of the given generation (2-5) through NVSwitch chips on the baseboard.
    NvSwitch { gen: u8 },
    /// Two PCIe cards joined by an NVLink bridge (H100 PCIe / H100 NVL).
    NvlinkBridge,
    /// GB200 NVL72: 72 GPUs in 18 trays of 4 on one NVLink5 switch domain.
    Nvl72,
    /// PCIe only; `p2p` says whether GPUs may DMA to each other directly.
    Pcie { gen: PcieGen, p2p: bool },
    /// AMD Infinity Fabric (xGMI): 8 GPUs fully connected point to point, 7 links per GPU,
    /// no switch and no in-network reduction ([`super::xgmi`]).
    Xgmi,
}

impl ScaleUp {
    pub const ALL: [ScaleUp; 15] = [
        ScaleUp::NvSwitch { gen: 2 },
        ScaleUp::NvSwitch { gen: 3 },
        ScaleUp::NvSwitch { gen: 4 },
        ScaleUp::NvSwitch { gen: 5 },
        ScaleUp::NvlinkBridge,
        ScaleUp::Nvl72,
        ScaleUp::Pcie { gen: PcieGen::Gen3, p2p: true },
        ScaleUp::Pcie { gen: PcieGen::Gen4, p2p: true },
        ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true },
        ScaleUp::Pcie { gen: PcieGen::Gen6, p2p: true },
        ScaleUp::Pcie { gen: PcieGen::Gen3, p2p: false },
        ScaleUp::Pcie { gen: PcieGen::Gen4, p2p: false },
        ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: false },
        ScaleUp::Pcie { gen: PcieGen::Gen6, p2p: false },
        ScaleUp::Xgmi,
    ];

    /// Command-line name (`--scale-up`).
    pub fn id(self) -> &'static str {
        match self {
            ScaleUp::NvSwitch { gen: 2 } => "nvlink2",
            ScaleUp::NvSwitch { gen: 3 } => "nvlink3",
            ScaleUp::NvSwitch { gen: 4 } => "nvlink4",
            ScaleUp::NvSwitch { .. } => "nvlink5",
            ScaleUp::NvlinkBridge => "nvlink-bridge",
            ScaleUp::Nvl72 => "nvl72",
            ScaleUp::Pcie { gen: PcieGen::Gen3, p2p: true } => "pcie3",
            ScaleUp::Pcie { gen: PcieGen::Gen4, p2p: true } => "pcie4",
            ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true } => "pcie5",
            ScaleUp::Pcie { gen: PcieGen::Gen6, p2p: true } => "pcie6",
            ScaleUp::Pcie { gen: PcieGen::Gen3, p2p: false } => "pcie3-no-p2p",
            ScaleUp::Pcie { gen: PcieGen::Gen4, p2p: false } => "pcie4-no-p2p",
            ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: false } => "pcie5-no-p2p",
            ScaleUp::Pcie { gen: PcieGen::Gen6, p2p: false } => "pcie6-no-p2p",
            ScaleUp::Xgmi => "xgmi",
        }
    }

    pub fn from_id(id: &str) -> Option<ScaleUp> {
        let id = id.to_ascii_lowercase();
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    pub fn ids() -> Vec<&'static str> {
        Self::ALL.iter().map(|s| s.id()).collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            ScaleUp::NvSwitch { gen: 2 } => "NVLink2 + NVSwitch",
            ScaleUp::NvSwitch { gen: 3 } => "NVLink3 + NVSwitch",
            ScaleUp::NvSwitch { gen: 4 } => "NVLink4 + NVSwitch",
            ScaleUp::NvSwitch { .. } => "NVLink5 + NVSwitch",
            ScaleUp::NvlinkBridge => "NVLink bridge (2 GPUs)",
            ScaleUp::Nvl72 => "NVL72 rack (NVLink5, 72 GPUs)",
            ScaleUp::Pcie { gen, p2p: true } => match gen {
                PcieGen::Gen3 => "PCIe Gen3 (P2P)",
                PcieGen::Gen4 => "PCIe Gen4 (P2P)",
                PcieGen::Gen5 => "PCIe Gen5 (P2P)",
                PcieGen::Gen6 => "PCIe Gen6 (P2P)",
            },
            ScaleUp::Pcie { gen, p2p: false } => match gen {
                PcieGen::Gen3 => "PCIe Gen3 (no P2P)",
                PcieGen::Gen4 => "PCIe Gen4 (no P2P)",
                PcieGen::Gen5 => "PCIe Gen5 (no P2P)",
                PcieGen::Gen6 => "PCIe Gen6 (no P2P)",
            },
            ScaleUp::Xgmi => "Infinity Fabric xGMI mesh (8 GPUs)",
        }
    }

    /// The scale-up fabric a GPU normally ships on: SXM GPUs on their generation's NVSwitch
    /// baseboard (DGX-2, DGX A100, DGX H100/H200, DGX B200), H100 PCIe cards in bridged pairs,
    /// GB200 in NVL72 racks.
    pub fn natural(gpu: GpuKind) -> ScaleUp {
        match gpu {
            GpuKind::V100 => ScaleUp::NvSwitch { gen: 2 },
            GpuKind::A100 => ScaleUp::NvSwitch { gen: 3 },
            GpuKind::H100 | GpuKind::H200 | GpuKind::H800 | GpuKind::H20 | GpuKind::Gh200 | GpuKind::Gh200Hbm3e => ScaleUp::NvSwitch { gen: 4 },
            GpuKind::H100Pcie | GpuKind::H100Nvl | GpuKind::H200Nvl => ScaleUp::NvlinkBridge,
            GpuKind::B200 | GpuKind::B300 => ScaleUp::NvSwitch { gen: 5 },
            GpuKind::Gb200 | GpuKind::Gb300 => ScaleUp::Nvl72,
            GpuKind::Mi300x | GpuKind::Mi325x | GpuKind::Mi355x => ScaleUp::Xgmi,
        }
    }

    /// NVLink of some kind (not PCIe, not xGMI).
    pub fn is_nvlink(self) -> bool {
        !matches!(self, ScaleUp::Pcie { .. } | ScaleUp::Xgmi)
    }

    /// GPUs reach each other over dedicated GPU-to-GPU links (NVLink or xGMI), not PCIe: what
    /// NCCL's and RCCL's "NVLINK" link class means.
    pub fn is_gpu_link(self) -> bool {
        !matches!(self, ScaleUp::Pcie { .. })
    }

    /// Has NVSwitch chips (NVLS needs them; so does NCCL's CollNet Direct).
    pub fn has_nvswitch(self) -> bool {
        matches!(self, ScaleUp::NvSwitch { .. } | ScaleUp::Nvl72)
    }

    /// NVLink generation the fabric needs from the GPU, if any.
    pub fn nvlink_gen(self) -> Option<u8> {
        match self {
            ScaleUp::NvSwitch { gen } => Some(gen),
            ScaleUp::NvlinkBridge => Some(4),
            ScaleUp::Nvl72 => Some(5),
            ScaleUp::Pcie { .. } | ScaleUp::Xgmi => None,
        }
    }

    /// Most GPUs one domain of this fabric can hold.
    /// Sources: DGX-2 (16 V100 on 12 first-generation NVSwitches); DGX A100, DGX H100 and DGX
    /// B200 (8 GPUs per NVSwitch baseboard); H100 NVLink bridge (pairs); GB200 NVL72 (72);
    /// PCIe servers: 8 double-width GPUs per host is the common maximum (e.g. Supermicro
    /// SYS-421GE), 10 on a few designs.
    pub fn max_domain(self) -> u32 {
        match self {
            ScaleUp::NvSwitch { gen: 2 } => 16,
            ScaleUp::NvSwitch { .. } => 8,
            ScaleUp::NvlinkBridge => 2,
            ScaleUp::Nvl72 => 72,
            ScaleUp::Pcie { .. } => 10,
            ScaleUp::Xgmi => super::xgmi::XGMI_MESH_GPUS,
        }
    }

    /// Per-GPU, per-direction bandwidth into the domain as a datasheet states it.
    pub fn line_bw(self, gpu: &GpuSpec) -> GBps {
        match self {
            ScaleUp::Pcie { gen, .. } => pcie_line_bw(gen.min(gpu.pcie)),
            ScaleUp::Xgmi => super::xgmi::xgmi_of(gpu.kind).map_or(GBps(0.0), |x| GBps(x.line_link.0 * x.links as f64)),
            _ => gpu.nvlink_total(),
        }
    }

    /// Per-GPU, per-direction bandwidth NCCL's topology search works with.
    pub fn nccl_bw(self, gpu: &GpuSpec) -> GBps {
        match self {
            ScaleUp::Pcie { gen, p2p } => {
                let link = pcie_nccl_bw(gen.min(gpu.pcie));
                // Without P2P NCCL stages GPU-to-GPU data through host memory (SHM transport):
                // every byte crosses the root complex twice, halving what one direction carries.
                if p2p {
                    link
                } else {
                    link * 0.5
                }
            }
            // RCCL's view of the mesh: every link at its 48 GB/s model rate.
            ScaleUp::Xgmi => super::xgmi::xgmi_of(gpu.kind).map_or(GBps(0.0), |x| x.rccl_total()),
            _ => GBps(nvlink_port_nccl_bw(gpu.arch).0 * gpu.nvlinks as f64),
        }
    }

    /// One-way GPU-to-GPU latency of a small transfer inside the domain.
    /// NVLink through NVSwitch: 936.25 ns measured on HGX H100 (astra-sim
    /// inputs/network/HGX-H100-validated.yml@518bd51). PCIe peer-to-peer through a switch:
    /// about 1.5 us; through host memory (no P2P) about 3 us (two DMA hops plus a host flag).
    /// The latter two are representative figures, not measurements of one system.
    pub fn latency(self) -> Micros {
        match self {
            ScaleUp::Pcie { p2p: true, .. } => Micros(1.5),
            ScaleUp::Pcie { p2p: false, .. } => Micros(3.0),
            // One direct link, no switch hop: RCCL's xGMI ring hardware latency for the LL
            // protocol, 0.8 us (ROCm/rccl src/graph/tuning.cc, tuning models 5/6).
            ScaleUp::Xgmi => Micros(0.8),
            _ => Micros(0.94),
        }
    }

    pub fn facts(self) -> TierFacts {
        match self {
            ScaleUp::Pcie { .. } => TierFacts {
                domain: "one host: the PCIe switches and root complex of a server",
                congestion_control: "PCIe credit-based flow control; no loss, but peers share root-complex bandwidth",
                best_fit: "DP; at most TP 2 between GPUs on one PCIe switch",
            },
            ScaleUp::Nvl72 => TierFacts {
                domain: "one rack: 72 GPUs in 18 trays on a copper NVLink spine",
                congestion_control: "NVLink credit-based link-level flow control; lossless, non-blocking switches",
                best_fit: "TP and EP across up to 72 GPUs; CP",
            },
            ScaleUp::NvlinkBridge => TierFacts {
                domain: "one pair of cards",
                congestion_control: "NVLink credit-based link-level flow control; point to point",
                best_fit: "TP 2",
            },
            ScaleUp::Xgmi => TierFacts {
                domain: "one node: 8 GPUs joined point to point by Infinity Fabric links, no switch",
                congestion_control: "link-level flow control on each point-to-point link; no in-network reduction",
                best_fit: "TP and EP inside the node (every peer one hop away)",
            },
            ScaleUp::NvSwitch { .. } => TierFacts {
                domain: "one node: the GPUs on one NVSwitch baseboard",
                congestion_control: "NVLink credit-based link-level flow control; lossless, non-blocking switches",
                best_fit: "TP (with sequence parallelism) and EP inside the node",
            },
        }
    }
}

impl TryFrom<String> for ScaleUp {
    type Error = String;
    fn try_from(id: String) -> Result<Self, String> {
        ScaleUp::from_id(&id).ok_or_else(|| {
            format!("unknown scale-up fabric '{id}'; allowed: {}", ScaleUp::ids().join(", "))
        })
    }
}

impl From<ScaleUp> for String {
    fn from(s: ScaleUp) -> String {
        s.id().to_string()
    }
}

/// Scale-out network interface cards: one per rail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NicKind {
    IbHdr,
    IbNdr,
    IbXdr,
    #[serde(rename = "roce-400")]
    Roce400,
    #[serde(rename = "roce-800")]
    Roce800,
    #[serde(rename = "eth-100")]
    Eth100Tcp,
    #[serde(rename = "efa-100")]
    Efa100,
    #[serde(rename = "efa-200")]
    Efa200,
    #[serde(rename = "efa-400")]
    Efa400,
    #[serde(rename = "roce-100")]
    Roce100,
    #[serde(rename = "roce-200")]
    Roce200,
    #[serde(rename = "tcpxo-200")]
    Tcpxo200,
}

/// Wire protocol family of a NIC: decides what NCCL transport and congestion control apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetFamily {
    InfiniBand,
    RoceV2,
    TcpSockets,
    /// AWS Elastic Fabric Adapter: the SRD transport (multipath, out of order, reliable) through
    /// libfabric and the aws-ofi-nccl plugin; no in-network reduction.
    Efa,
}

/// How switches spread a NIC's flows over equal-cost paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// InfiniBand adaptive routing: each packet takes the least-loaded uplink (NVIDIA
    /// Quantum switches; DGX SuperPOD reference architectures run with it on).
    Adaptive,
    /// Static ECMP: each flow (5-tuple hash) sticks to one uplink, so flows can collide
    /// (RoCEv2 and TCP on Ethernet leaf/spine fabrics unless packet spraying is deployed).
    Ecmp,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NicSpec {
    pub kind: NicKind,
    /// Command-line name (`--nic`).
    pub id: &'static str,
    pub name: &'static str,
    pub family: NetFamily,
    /// Line rate per direction.
    pub line_rate: Gbps,
    /// Goodput: the fraction of the line rate a large RDMA transfer delivers end to end
    /// (headers, PCIe TLP overhead). InfiniBand: 0.955, from DGX Cloud B200 NVLS-over-SHARP
    /// AllReduce at 2 nodes, 717.2 GB/s busbw = 382.5 GB/s per node over 8 NDR NICs of 50 GB/s
    /// (validation/collectives-2.csv). RoCEv2: 1% less, for the Ethernet, IP and UDP framing
    /// (82 bytes per 4 KiB MTU against InfiniBand's ~40). NCCL's socket transport over 100GbE
    /// (several sockets per thread): 0.92, from NVIDIA GTC24 S62129 slide 12 (10 GB/s all_reduce
    /// busbw at 4 nodes) through the ring's efficiency (`network`), in line with the 92-94 Gb/s
    /// multi-stream TCP throughput commonly measured on 100GbE.
    pub efficiency: f64,
    /// How the fabric routes this NIC's flows.
    pub routing: Routing,
    /// One-way small-message latency NIC to NIC through one switch. Representative figures:
    /// about 1 us for InfiniBand RDMA (ib_write_lat class), 2 us for RoCEv2, 15 us for kernel
    /// TCP sockets. NCCL's net plugins report 0 here and fold this into hwLat[NET].
    pub latency: Micros,
    /// SHARP in-network reduction is possible (InfiniBand Quantum switches only).
    pub sharp_capable: bool,
    /// Host interface the NIC sits on.
    pub pcie: PcieGen,
}

/// Sources: NVIDIA ConnectX-6 (HDR 200 Gb/s, PCIe Gen4), ConnectX-7 (NDR 400 Gb/s, PCIe Gen5),
/// ConnectX-8 SuperNIC (XDR 800 Gb/s, PCIe Gen6) product briefs; IEEE 802.3 for Ethernet rates.
pub const NICS: [NicSpec; 12] = [
    NicSpec {
        kind: NicKind::IbHdr,
        id: "ib-hdr",
        name: "InfiniBand HDR 200G",
        family: NetFamily::InfiniBand,
        line_rate: Gbps(200.0),
        efficiency: 0.955,
        routing: Routing::Adaptive,
        latency: Micros(1.0),
        sharp_capable: true,
        pcie: PcieGen::Gen4,
    },
    NicSpec {
        kind: NicKind::IbNdr,
        id: "ib-ndr",
        name: "InfiniBand NDR 400G",
        family: NetFamily::InfiniBand,
        line_rate: Gbps(400.0),
        efficiency: 0.955,
        routing: Routing::Adaptive,
        latency: Micros(1.0),
        sharp_capable: true,
        pcie: PcieGen::Gen5,
    },
    NicSpec {
        kind: NicKind::IbXdr,
        id: "ib-xdr",
        name: "InfiniBand XDR 800G",
        family: NetFamily::InfiniBand,
        line_rate: Gbps(800.0),
        efficiency: 0.955,
        routing: Routing::Adaptive,
        latency: Micros(1.0),
        sharp_capable: true,
        pcie: PcieGen::Gen6,
    },
    // 400G RDMA Ethernet of any maker: ConnectX-7 400GbE, AMD Pensando Pollara 400 (400 Gb/s,
    // PCIe Gen5 x16; AMD product page) and Broadcom Thor2 (400G) alike: no maker's published
    // figure changes the rate, goodput or latency here. A ConnectX-8 that a cloud exposes as two
    // 400GbE ports (it runs 800G only as XDR InfiniBand; firmware release notes v40.44) is two
    // of these per GPU.
    NicSpec {
        kind: NicKind::Roce400,
        id: "roce-400",
        name: "RoCEv2 400GbE",
        family: NetFamily::RoceV2,
        line_rate: Gbps(400.0),
        efficiency: 0.945,
        routing: Routing::Ecmp,
        latency: Micros(2.0),
        sharp_capable: false,
        pcie: PcieGen::Gen5,
    },
    NicSpec {
        kind: NicKind::Roce800,
        id: "roce-800",
        name: "RoCEv2 800GbE",
        family: NetFamily::RoceV2,
        line_rate: Gbps(800.0),
        efficiency: 0.945,
        routing: Routing::Ecmp,
        latency: Micros(2.0),
        sharp_capable: false,
        pcie: PcieGen::Gen6,
    },
    NicSpec {
        kind: NicKind::Eth100Tcp,
        id: "eth-100",
        name: "100GbE (TCP sockets)",
        family: NetFamily::TcpSockets,
        line_rate: Gbps(100.0),
        efficiency: 0.92,
        routing: Routing::Ecmp,
        latency: Micros(15.0),
        sharp_capable: false,
        pcie: PcieGen::Gen4,
    },
    // AWS EFA, one per EFA interface (network card): p4d/p4de 4x 100G, p5 32x 100G, p5en 16x
    // 200G, p6-b200 8x 400G (network-card counts from the AWS EC2 User Guide; per-interface
    // rates as issue 23 lists the shapes, consistent with AWS's 400 and 3,200 Gbps instance
    // totals). See [`EFA_EFFICIENCY`] and [`EFA_LATENCY`] for the class's fitted figures. SRD
    // sprays each flow over many paths: routed like adaptive routing. The host interface is
    // taken as PCIe Gen5 (not published per interface).
    efa(NicKind::Efa100, "efa-100", "AWS EFA 100G (SRD)", 100.0),
    efa(NicKind::Efa200, "efa-200", "AWS EFA 200G (SRD)", 200.0),
    efa(NicKind::Efa400, "efa-400", "AWS EFA 400G (SRD)", 400.0),
    // 100G and 200G RDMA Ethernet: ConnectX-6 Dx (100/200GbE, PCIe Gen4 x16; NVIDIA product
    // brief) and the other makers' 100/200G RoCE NICs. The same RoCEv2 goodput, latency and
    // ECMP routing as 400GbE: nothing published for these rates changes them.
    NicSpec {
        kind: NicKind::Roce100,
        id: "roce-100",
        name: "RoCEv2 100GbE",
        family: NetFamily::RoceV2,
        line_rate: Gbps(100.0),
        efficiency: 0.945,
        routing: Routing::Ecmp,
        latency: Micros(2.0),
        sharp_capable: false,
        pcie: PcieGen::Gen4,
    },
    NicSpec {
        kind: NicKind::Roce200,
        id: "roce-200",
        name: "RoCEv2 200GbE",
        family: NetFamily::RoceV2,
        line_rate: Gbps(200.0),
        efficiency: 0.945,
        routing: Routing::Ecmp,
        latency: Micros(2.0),
        sharp_capable: false,
        pcie: PcieGen::Gen4,
    },
    // GCP A3 Mega's GPU NICs (a3-megagpu-8g): 8x 200 Gb/s per VM running GPUDirect-TCPXO
    // (Google's FasTrak NCCL net plugin: TCP on the wire, the payload moved between the NIC and
    // GPU memory without a host copy; GCP's documented NCCL profile sets NCCL_NET_GDR_LEVEL=PIX,
    // the NIC on the GPU's own PCIe switch; Compute Engine "GPU machine types" and "Maximize GPU
    // network bandwidth with GPUDirect-TCPXO", cluster-toolkit a3-megagpu-8g examples). TCP, so
    // the socket family's goodput (0.92), congestion control and ECMP routing; kernel TCP's
    // 15 us latency is kept though TCPXO's own is not published (the 2-node all_reduce floor
    // is 123 us, validation/logs/h100-2node-a3mega-all-reduce.txt; not fitted). The host
    // interface is the HGX H100 board's PCIe Gen5 switch the GPU shares (PIX), taken as Gen5
    // x16: the NIC's own link width is not published.
    NicSpec {
        kind: NicKind::Tcpxo200,
        id: "tcpxo-200",
        name: "GCP GPUDirect-TCPXO 200G",
        family: NetFamily::TcpSockets,
        line_rate: Gbps(200.0),
        efficiency: 0.92,
        routing: Routing::Ecmp,
        latency: Micros(15.0),
        sharp_capable: false,
        pcie: PcieGen::Gen5,
    },
];

/// Goodput of an EFA interface against its line rate: InfiniBand's 0.955, checked for the class
/// "multi-node, EFA" on AWS p5.48xlarge (32x 100G EFA per node) nccl-tests all_gather at 1-2 GiB
/// on 2-32 nodes, which NCCL runs as a ring on every tuner (crazyguitar/aws-gpu-communication-
/// benchmark, validation/collectives-amd-efa.csv): with the ring's scale loss of `network` the
/// ten rows are within a median 5% (328.6 GB/s busbw measured against 340 at 2 nodes, 262.8
/// against 267 at 32). A separate EFA figure is not fitted: those rows do not ask for one.
pub const EFA_EFFICIENCY: f64 = 0.955;

/// One-way small-message latency of EFA SRD through libfabric and aws-ofi-nccl, NIC to NIC,
/// fitted for the class on p5.48xlarge 2-node all_reduce at 16-128 B (68.4-69.3 us,
/// aws/aws-k8s-tester PR 585): 22 us per network step beyond InfiniBand's 1 us.
///
/// At mid sizes (p5 at 32 MiB, 2-32 nodes) LL128 and Simple messages above aws-ofi-nccl's
/// eager size also wait a rendezvous on each network hop of the critical path:
/// `network::EFA_RENDEZVOUS_WAIT`, one round trip of this latency, less the message's own time
/// on one rail (42 us more per inter-node ring step and 30 us more per tree hop than this
/// latency alone gave; 256 MiB-1 GiB messages hide most of it).
pub const EFA_LATENCY: Micros = Micros(23.0);

/// Internode latency aws-ofi-nccl reports to NCCL (`props->latency`, which NCCL's topology
/// search copies to `graph->latencyInter` and its tuning model adds to every network step, twice
/// for Simple: src/graph/search.cc and tuning.cc @v2.27.5-1) on instances with 100G EFA
/// interfaces: 75 us for p4d.24xlarge, p4de.24xlarge, p5.48xlarge and p5e
/// (`platform_data_map`, src/platform-aws.cpp, aws/aws-ofi-nccl @2daf7d30). A planning figure,
/// not a measured one: the plugin sets it because "NCCL's internal tuner choices work better
/// with this value" on P5, so it steers NCCL's choice of algorithm and protocol, while the
/// timing keeps [`EFA_LATENCY`].
pub const EFA_100_PLUGIN_LATENCY: Micros = Micros(75.0);

/// The same figure for instances with 200G and 400G EFA interfaces (p5en.48xlarge,
/// p6-b200.48xlarge, p6-b300 and the later P-series entries): 35 us (same source).
pub const EFA_200_400_PLUGIN_LATENCY: Micros = Micros(35.0);

/// One EFA interface of `gbps` line rate: the class's fitted goodput and latency, SRD's
/// multipath spraying routed like adaptive routing, a PCIe Gen5 host interface (not published
/// per interface).
const fn efa(kind: NicKind, id: &'static str, name: &'static str, gbps: f64) -> NicSpec {
    NicSpec {
        kind,
        id,
        name,
        family: NetFamily::Efa,
        line_rate: Gbps(gbps),
        efficiency: EFA_EFFICIENCY,
        routing: Routing::Adaptive,
        latency: EFA_LATENCY,
        sharp_capable: false,
        pcie: PcieGen::Gen5,
    }
}

impl NicKind {
    pub const ALL: [NicKind; 12] = [
        NicKind::IbHdr,
        NicKind::IbNdr,
        NicKind::IbXdr,
        NicKind::Roce400,
        NicKind::Roce800,
        NicKind::Eth100Tcp,
        NicKind::Efa100,
        NicKind::Efa200,
        NicKind::Efa400,
        NicKind::Roce100,
        NicKind::Roce200,
        NicKind::Tcpxo200,
    ];
    pub fn spec(self) -> &'static NicSpec {
        &NICS[self as usize]
    }
    pub fn id(self) -> &'static str {
        self.spec().id
    }
    pub fn from_id(id: &str) -> Option<NicKind> {
        let id = id.to_ascii_lowercase();
        NICS.iter().find(|n| n.id == id).map(|n| n.kind)
    }
    pub fn ids() -> Vec<&'static str> {
        NICS.iter().map(|n| n.id).collect()
    }
    /// The internode latency this NIC's NCCL net plugin reports (`ncclNetProperties_t::latency`),
    /// which NCCL's tuning model adds to each network step when choosing: 0 for NCCL's own IB
    /// and socket transports ("Not set", src/transport/net_ib.cc and net_socket.cc @v2.27.5-1),
    /// aws-ofi-nccl's platform figure on EFA.
    pub fn plugin_latency(self) -> Micros {
        match self {
            NicKind::Efa100 => EFA_100_PLUGIN_LATENCY,
            NicKind::Efa200 | NicKind::Efa400 => EFA_200_400_PLUGIN_LATENCY,
            _ => Micros::ZERO,
        }
    }
    /// Whether aws-ofi-nccl, on a platform with these interfaces and GPUs of `arch`, forces
    /// NCCL to the Simple protocol (it sets `NCCL_PROTO=simple` for the whole process). It does
    /// so where the EFA device cannot promise in-order delivery of aligned 128-byte blocks for
    /// the transport protocol the platform runs, since LL and LL128 read their flags from inside
    /// the data: A100 (p4d, p4de) and V100 (p3dn) instances run the SENDRECV protocol
    /// (`platform_data_map`, src/platform-aws.cpp @2daf7d30, the same since v1.13.0-aws), whose
    /// option `FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES` their EFA devices refuse. A p4d.24xlarge
    /// log of aws-ofi-nccl 1.16.2 prints "Setting FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES
    /// not supported", "Need to force simple protocol: byte delivery ordering not supported" and
    /// NCCL's matrix with LL and LL128 off. Hopper and later instances run the RDMA protocol,
    /// whose ordering their EFA devices give (LL128 is what the p5 rows run).
    pub fn forces_simple_protocol(self, arch: Arch) -> bool {
        matches!(self, NicKind::Efa100 | NicKind::Efa200 | NicKind::Efa400) && arch.compute_capability() < 90
    }
    /// The switch class a cluster with this NIC is normally built from.
    pub fn default_switch(self) -> SwitchKind {
        match self {
            NicKind::IbHdr => SwitchKind::QuantumHdr,
            NicKind::IbNdr => SwitchKind::Quantum2,
            NicKind::IbXdr => SwitchKind::QuantumX800,
            NicKind::Roce400 | NicKind::Roce800 => SwitchKind::Spectrum4,
            // AWS does not publish its EFA fabric: sized as a generic 800G-class Ethernet
            // leaf/spine for the tier ladder (not a bill of materials anyone can buy).
            NicKind::Efa100 | NicKind::Efa200 | NicKind::Efa400 => SwitchKind::Spectrum4,
            NicKind::Eth100Tcp | NicKind::Roce100 => SwitchKind::Eth100,
            // 200GbE: a 400G-class Ethernet switch split two ways (no 200G-native class here).
            NicKind::Roce200 => SwitchKind::Spectrum4,
            // GCP does not publish its fabric: sized as the 200G class above.
            NicKind::Tcpxo200 => SwitchKind::Spectrum4,
        }
    }
}

impl NicSpec {
    /// Per-direction bandwidth of one NIC at line rate.
    pub fn line_bw(&self) -> GBps {
        self.line_rate.to_gbytes()
    }
    /// Per-direction bandwidth one NIC delivers to a transfer.
    pub fn achievable_bw(&self) -> GBps {
        self.line_bw() * self.efficiency
    }
    /// Per-direction bandwidth of this NIC as NCCL's topology sees it (Gb/s / 8, capped by the
    /// NIC's PCIe link, src/graph/topo.cc@v2.27.5-1), scaled by the family's efficiency so
    /// kernel TCP does not look like RDMA.
    pub fn nccl_bw(&self) -> GBps {
        let wire = self.line_bw().min(pcie_nccl_bw(self.pcie));
        match self.family {
            NetFamily::TcpSockets => wire * self.efficiency,
            _ => wire,
        }
    }
    pub fn facts(&self) -> TierFacts {
        match self.family {
            NetFamily::InfiniBand => TierFacts {
                domain: "the cluster: a fat tree of leaf and spine switches",
                congestion_control: "credit-based lossless link layer, adaptive routing, IB congestion control (FECN/BECN)",
                best_fit: "PP and DP/FSDP; EP all-to-all when the rails are not oversubscribed",
            },
            NetFamily::RoceV2 => TierFacts {
                domain: "the cluster: an Ethernet leaf/spine (Clos) fabric",
                congestion_control: "lossless Ethernet: PFC pause frames plus ECN marking with DCQCN rate control",
                best_fit: "PP and DP/FSDP",
            },
            NetFamily::Efa => TierFacts {
                domain: "an AWS placement group: EC2's own Ethernet fabric, not visible to the user",
                congestion_control: "SRD: multipath packet spraying with sender-side congestion control; lossy fabric, reliable transport",
                best_fit: "DP/FSDP and PP; EP all-to-all at a fraction of the line rate",
            },
            NetFamily::TcpSockets => TierFacts {
                domain: "the data centre: an ordinary routed Ethernet network",
                congestion_control: "lossy; kernel TCP congestion control (CUBIC/BBR) and retransmission",
                best_fit: "DP with gradient communication fully overlapped; nothing latency-bound",
            },
        }
    }
}

/// Switch classes, for leaf/spine sizing and per-hop latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchKind {
    NvSwitch2,
    NvSwitch3,
    NvSwitch4,
    NvSwitch5,
    QuantumHdr,
    Quantum2,
    QuantumX800,
    Spectrum4,
    Eth100,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SwitchSpec {
    pub kind: SwitchKind,
    pub name: &'static str,
    /// Ports at `port_rate`.
    pub ports: u32,
    /// Rate of one port, per direction.
    pub port_rate: Gbps,
    /// Ports may be split in two at half the rate (e.g. 64x800G as 128x400G).
    pub splittable: bool,
    /// Port-to-port latency of one hop.
    pub hop_latency: Micros,
}

/// Sources: NVSwitch generations from the DGX-2 (18 NVLink2 ports), DGX A100 (36 NVLink3),
/// DGX H100 (64 NVLink4) and GB200 NVL72 (72 NVLink5 ports) architecture white papers, hop
/// latency half the 936.25 ns GPU-switch-GPU figure of astra-sim HGX-H100-validated.yml;
/// Quantum QM8700 (40x HDR 200G, 130 ns port-to-port), Quantum-2 QM9700 (64x NDR 400G),
/// Quantum-X800 Q3400 (144x XDR 800G) product briefs, the Quantum-2 and X800 latency taken
/// as the HDR figure since NVIDIA publishes none; Spectrum-4 SN5600 (64x 800GbE, splittable to
/// 128x 400GbE); a 32x100GbE top-of-rack class. Ethernet hop latencies are representative
/// cut-through figures for their class.
pub const SWITCHES: [SwitchSpec; 9] = [
    SwitchSpec { kind: SwitchKind::NvSwitch2, name: "NVSwitch (NVLink2)", ports: 18, port_rate: Gbps(200.0), splittable: false, hop_latency: Micros(0.47) },
    SwitchSpec { kind: SwitchKind::NvSwitch3, name: "NVSwitch (NVLink3)", ports: 36, port_rate: Gbps(200.0), splittable: false, hop_latency: Micros(0.47) },
    SwitchSpec { kind: SwitchKind::NvSwitch4, name: "NVSwitch (NVLink4)", ports: 64, port_rate: Gbps(200.0), splittable: false, hop_latency: Micros(0.47) },
    SwitchSpec { kind: SwitchKind::NvSwitch5, name: "NVLink Switch (NVLink5)", ports: 72, port_rate: Gbps(400.0), splittable: false, hop_latency: Micros(0.47) },
    SwitchSpec { kind: SwitchKind::QuantumHdr, name: "InfiniBand Quantum QM8700", ports: 40, port_rate: Gbps(200.0), splittable: true, hop_latency: Micros(0.13) },
    SwitchSpec { kind: SwitchKind::Quantum2, name: "InfiniBand Quantum-2 QM9700", ports: 64, port_rate: Gbps(400.0), splittable: true, hop_latency: Micros(0.13) },
    SwitchSpec { kind: SwitchKind::QuantumX800, name: "InfiniBand Quantum-X800 Q3400", ports: 144, port_rate: Gbps(800.0), splittable: true, hop_latency: Micros(0.13) },
    SwitchSpec { kind: SwitchKind::Spectrum4, name: "Spectrum-4 SN5600 Ethernet", ports: 64, port_rate: Gbps(800.0), splittable: true, hop_latency: Micros(0.6) },
    SwitchSpec { kind: SwitchKind::Eth100, name: "100GbE top-of-rack switch", ports: 32, port_rate: Gbps(100.0), splittable: false, hop_latency: Micros(0.5) },
];

impl SwitchKind {
    pub fn spec(self) -> &'static SwitchSpec {
        &SWITCHES[self as usize]
    }
    /// The NVSwitch generation that carries NVLink generation `gen`.
    pub fn nvswitch_for(gen: u8) -> SwitchKind {
        match gen {
            0..=2 => SwitchKind::NvSwitch2,
            3 => SwitchKind::NvSwitch3,
            4 => SwitchKind::NvSwitch4,
            _ => SwitchKind::NvSwitch5,
        }
    }
}

impl SwitchSpec {
    /// Ports available to links of `rate` (splitting faster ports in two where allowed).
    pub fn radix_at(&self, rate: Gbps) -> u32 {
        if self.splittable && rate.0 * 2.0 <= self.port_rate.0 {
            self.ports * 2
        } else {
            self.ports
        }
    }
}

/// What the explorer shows about a tier besides numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TierFacts {
    /// The physical boundary of the tier.
    pub domain: &'static str,
    pub congestion_control: &'static str,
    /// The parallelism whose traffic suits this tier.
    pub best_fit: &'static str,
}

/// HBM: the tier every other one is compared against.
pub fn hbm_facts() -> TierFacts {
    TierFacts {
        domain: "one GPU package",
        congestion_control: "none: the memory controller schedules requests",
        best_fit: "everything local: weights, activations, optimizer state",
    }
}

/// Latency of a dependent HBM access, about 0.5 us (Jia et al. 2018, "Dissecting the NVIDIA
/// Volta GPU Architecture via Microbenchmarking": ~400-1000 cycles global-memory latency).
pub const HBM_LATENCY: Micros = Micros(0.5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::gpu::GpuKind;

    #[test]
    fn ids_round_trip() {
        for s in ScaleUp::ALL {
            assert_eq!(ScaleUp::from_id(s.id()), Some(s));
        }
        for n in NicKind::ALL {
            assert_eq!(n.spec().kind, n);
            assert_eq!(NicKind::from_id(n.id()), Some(n));
        }
        for (i, s) in SWITCHES.iter().enumerate() {
            assert_eq!(s.kind as usize, i);
        }
    }

    #[test]
    fn nccl_rates_match_nccl_topology_constants() {
        // 18 NVLink4 ports x 20.6 GB/s = 370.8 GB/s: NCCL's "effective NVLink bandwidth of
        // 370GB/s" (nccl-tests issue 212).
        let h100 = GpuKind::H100.spec();
        let nv = ScaleUp::NvSwitch { gen: 4 }.nccl_bw(h100);
        assert!((nv.0 - 370.8).abs() < 1e-9);
        assert_eq!(pcie_nccl_bw(PcieGen::Gen5), GBps(48.0));
        assert_eq!(NicKind::IbNdr.spec().nccl_bw(), GBps(48.0));
        assert_eq!(NicKind::IbHdr.spec().nccl_bw(), GBps(24.0));
        assert_eq!(NicKind::IbNdr.spec().line_bw(), GBps(50.0));
    }

    #[test]
    fn switch_radix_splits() {
        let s = SwitchKind::Spectrum4.spec();
        assert_eq!(s.radix_at(Gbps(400.0)), 128);
        assert_eq!(s.radix_at(Gbps(800.0)), 64);
        assert_eq!(SwitchKind::Quantum2.spec().radix_at(Gbps(400.0)), 64);
    }
}
