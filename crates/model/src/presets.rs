//! Named clusters people compare against: plain [`Cluster`] values, shared by the explorer's
//! preset buttons and the CLI.
//!
//! Sources: NVIDIA DGX SuperPOD reference architectures (DGX A100: 140 nodes in 7 scalable
//! units of 20, 8x HDR 200G compute rails per node; DGX H100: 127 nodes in 4 SUs of 32, 8x NDR
//! 400G, rounded here to 128 so the node slider lands on it); the Spectrum-X reference design
//! (8x 400GbE RoCE per HGX H100 node); GB200 NVL72 (18 compute trays of 4 GPUs per rack, one
//! ConnectX-7 400G per GPU); a PCIe Gen5 server with 8 H100 PCIe cards; cloud A100 VMs with one
//! 100GbE interface (TCP sockets).
//!
//! Sources of the presets added for buyers (read 2026-11-30): DGX B200 user guide (8 B200,
//! 8 ConnectX-7 400G behind 4 OSFP cages, https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html)
//! and the DGX SuperPOD B200 reference architecture (scalable units of 32 systems on 8x NDR
//! rails); NVIDIA's Enterprise Reference Architecture for HGX H100/H200/B200 (rail-optimized
//! Spectrum-X Ethernet with one 400G SuperNIC per GPU,
//! https://docs.nvidia.com/enterprise-reference-architectures/hgx-ai-factory-h100-h200-b200/latest/network-logical-architecture.html);
//! the DGX SuperPOD GB200 reference architecture (scalable units of 8 NVL72 racks, one
//! ConnectX-7 400G per GPU); Microsoft's ND H100 v5 size page (8 H100 on NVLink4, one 400 Gb/s
//! Quantum-2 ConnectX-7 InfiniBand link per GPU, https://learn.microsoft.com/azure/virtual-machines/nd-h100-v5-series).
//!
//! Issue 23's presets (validation/hardware-specs.csv and README-hardware.md name each source):
//! AWS p4d/p4de, p5, p5en and p6-b200 (EFA network-card counts from the AWS EC2 User Guide;
//! node counts chosen here), GCP A3 Mega (8x 200G TCPXO, see [`gcp_a3_mega`]), MI300X and
//! MI355X servers with 8x 400G RoCE (AMD ROCm docs' multi-node validation; Pollara 400 product
//! page), a GB300 NVL72 rack (Azure ND GB300 v6) and an HGX B300 cluster (secondary copy of
//! NVIDIA's HGX B300 table). Each carries its source in [`ClusterPreset::source`].
//!
//! Cloud shapes added later (read 2026-12-01): GCP A3 Ultra and A4 (Compute Engine "Networking
//! and GPU machines": 8 ConnectX-7 NICs per VM, 3,200 Gbps of GPUDirect RDMA over RoCE, one NIC
//! per GPU, rail-aligned), Azure ND GB200 v6 (Microsoft Learn: 4 GB200 per VM, 18 VMs per NVL72
//! rack, 4x 400 Gb/s Quantum-2 ConnectX-7 InfiniBand per VM), OCI BM.GPU.GB200.4 / GB300.4 (OCI
//! docs "GPU Memory Cluster and Memory Fabric": 18 hosts per NVLink 72 fabric, RoCE or
//! InfiniBand cluster networks between fabrics; the NIC count is not in a page read, so one
//! NIC per GPU is assumed) and OCI's MI355X shape (NIC count assumed). All approximations:
//! node counts are chosen here and no cloud publishes its switch layout.

use crate::catalog::{GpuKind, NicKind, PcieGen, ScaleUp};
use crate::topology::Cluster;

/// One named cluster.
#[derive(Clone, Copy, Debug)]
pub struct ClusterPreset {
    /// Stable id (URL, CLI `--preset`).
    pub id: &'static str,
    /// Short name for a button.
    pub name: &'static str,
    /// One line about what it is. Only with the `sources` feature (the CLI), like `source`:
    /// the pages' buttons say the kind and point to README's table.
    #[cfg(feature = "sources")]
    pub about: &'static str,
    /// A vendor's reference design (counts as published) rather than an approximation of a
    /// shape whose fabric is not fully published (node count or rail layout chosen here).
    pub reference: bool,
    /// Where the shape comes from (document or page), short. Only where the model's `sources`
    /// feature is on (the CLI): the pages point to README's preset table instead (the 25
    /// sources cost the explorer's bundle about 0.9 KB gzipped).
    #[cfg(feature = "sources")]
    pub source: &'static str,
    make: fn() -> Cluster,
}

impl PartialEq for ClusterPreset {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl ClusterPreset {
    /// The preset's cluster.
    pub fn cluster(&self) -> Cluster {
        (self.make)()
    }

    /// "reference design: ... Source: ..." or "approximation: ... Source: ...": what it is,
    /// whether it is published as such, and where it comes from (without the `sources`
    /// feature: its name and kind, and where README lists the rest).
    pub fn describe(&self) -> String {
        let kind = if self.reference { "reference design" } else { "approximation" };
        #[cfg(feature = "sources")]
        let text = {
            let about = ["reference design: ", "approximation: "].iter().fold(self.about, |a, p| a.strip_prefix(p).unwrap_or(a));
            format!("{kind}: {about}. Source: {}", self.source)
        };
        #[cfg(not(feature = "sources"))]
        let text = format!("{}, {kind}: what it is and its source in README, Presets", self.name);
        text
    }
}

fn dgx_a100_hdr() -> Cluster {
    Cluster {
        gpu: GpuKind::A100,
        nodes: 140,
        gpus_per_node: 8,
        scale_up: ScaleUp::NvSwitch { gen: 3 },
        nics_per_node: 8,
        nic: NicKind::IbHdr,
        ..Cluster::default()
    }
}

fn dgx_h100_ndr() -> Cluster {
    Cluster { nodes: 128, ..Cluster::default() }
}

fn h100_roce() -> Cluster {
    Cluster { nodes: 64, nic: NicKind::Roce400, nvls: true, ..Cluster::default() }
}

fn gb200_nvl72() -> Cluster {
    Cluster {
        gpu: GpuKind::Gb200,
        nodes: 72,
        gpus_per_node: 4,
        scale_up: ScaleUp::Nvl72,
        nics_per_node: 4,
        nic: NicKind::IbNdr,
        ..Cluster::default()
    }
}

fn pcie_server() -> Cluster {
    Cluster {
        gpu: GpuKind::H100Pcie,
        nodes: 1,
        gpus_per_node: 8,
        scale_up: ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true },
        nics_per_node: 2,
        nic: NicKind::Roce400,
        nvls: false,
        ..Cluster::default()
    }
}

fn cloud_100g() -> Cluster {
    Cluster {
        gpu: GpuKind::A100,
        nodes: 16,
        gpus_per_node: 8,
        scale_up: ScaleUp::NvSwitch { gen: 3 },
        nics_per_node: 1,
        nic: NicKind::Eth100Tcp,
        rail_optimized: false,
        ..Cluster::default()
    }
}

fn dgx_b200() -> Cluster {
    Cluster { gpu: GpuKind::B200, nodes: 128, scale_up: ScaleUp::NvSwitch { gen: 5 }, ..Cluster::default() }
}

fn hgx_h200_spectrum_x() -> Cluster {
    Cluster { gpu: GpuKind::H200, nodes: 32, nic: NicKind::Roce400, ..Cluster::default() }
}

fn gb200_nvl72_su() -> Cluster {
    Cluster { nodes: 144, ..gb200_nvl72() }
}

fn azure_nd_h100_v5() -> Cluster {
    Cluster { nodes: 32, ..Cluster::default() }
}

/// An AWS instance shape: `gpus` on the GPU's own NVLink fabric, `efa` EFA interfaces of one
/// class (network-card counts from the AWS EC2 User Guide; validation/hardware-specs.csv).
fn aws(gpu: GpuKind, nodes: u32, efa: u32, nic: NicKind) -> Cluster {
    Cluster { gpu, nodes, gpus_per_node: 8, scale_up: ScaleUp::natural(gpu), nics_per_node: efa, nic, ..Cluster::default() }
}

fn aws_p4d() -> Cluster {
    aws(GpuKind::A100, 16, 4, NicKind::Efa100)
}

fn aws_p5() -> Cluster {
    aws(GpuKind::H100, 16, 32, NicKind::Efa100)
}

fn aws_p5en() -> Cluster {
    aws(GpuKind::H200, 16, 16, NicKind::Efa200)
}

fn aws_p6_b200() -> Cluster {
    aws(GpuKind::B200, 16, 8, NicKind::Efa400)
}

/// GCP A3 Mega (a3-megagpu-8g): 8 H100 and 8x 200 Gb/s GPU NICs running GPUDirect-TCPXO, one
/// per GPU (Compute Engine "GPU machine types": 1,600 Gbps of GPU network bandwidth per VM),
/// as the catalog's `tcpxo-200` NIC. NVLS off: GCP's documented NCCL profile for TCPXO (the
/// cluster-toolkit a3-megagpu-8g examples and GKE's nccl-env-profile) sets NCCL_NVLS_ENABLE=0
/// and NCCL_ALGO=Ring,Tree. Rail-aligned: NCCL_CROSS_NIC=0 in the same profile.
/// Checked against the project's own A3 Mega log (validation/logs/h100-2node-a3mega-all-reduce.txt,
/// crates/model/tests/presets_vs_data.rs).
fn gcp_a3_mega() -> Cluster {
    Cluster { nodes: 16, nics_per_node: 8, nic: NicKind::Tcpxo200, nvls: false, ..Cluster::default() }
}

fn mi300x_roce() -> Cluster {
    Cluster {
        gpu: GpuKind::Mi300x,
        nodes: 16,
        gpus_per_node: 8,
        scale_up: ScaleUp::Xgmi,
        nics_per_node: 8,
        nic: NicKind::Roce400,
        nvls: false,
        cpu: crate::topology::CpuVendor::Amd,
        ..Cluster::default()
    }
}

fn mi355x_pollara() -> Cluster {
    Cluster { gpu: GpuKind::Mi355x, nodes: 64, ..mi300x_roce() }
}

fn gb300_nvl72() -> Cluster {
    Cluster {
        gpu: GpuKind::Gb300,
        nodes: 18,
        gpus_per_node: 4,
        scale_up: ScaleUp::Nvl72,
        nics_per_node: 4,
        nic: NicKind::IbXdr,
        ..Cluster::default()
    }
}

fn b300_hgx() -> Cluster {
    Cluster { gpu: GpuKind::B300, nodes: 32, scale_up: ScaleUp::NvSwitch { gen: 5 }, nic: NicKind::IbXdr, ..Cluster::default() }
}

/// GCP A3 Ultra (a3-ultragpu-8g): 8 H200 with one ConnectX-7 per GPU, 3,200 Gb/s of
/// GPUDirect RDMA over RoCE, rail-aligned (Compute Engine "Networking and GPU machines").
fn gcp_a3_ultra() -> Cluster {
    Cluster { gpu: GpuKind::H200, nodes: 16, nic: NicKind::Roce400, ..Cluster::default() }
}

/// GCP A4 (a4-highgpu-8g): 8 B200, otherwise A3 Ultra's network (same page).
fn gcp_a4() -> Cluster {
    Cluster { gpu: GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, ..gcp_a3_ultra() }
}

/// Azure ND GB200 v6: VMs of 4 GB200, 18 per NVL72 rack, 4x 400 Gb/s Quantum-2 ConnectX-7
/// InfiniBand per VM (Microsoft Learn, ND GB200 v6 sizes). Two racks, a size chosen here.
fn azure_nd_gb200_v6() -> Cluster {
    Cluster { nodes: 36, ..gb200_nvl72() }
}

/// OCI BM.GPU.GB200.4: 4 GB200 per host, 18 hosts per NVL72 memory fabric, hosts joined by a
/// RoCE cluster network; one 400G RoCE NIC per GPU is assumed (as NVIDIA's NVL72 design).
fn oci_gb200() -> Cluster {
    Cluster { nic: NicKind::Roce400, ..gb200_nvl72() }
}

/// OCI BM.GPU.GB300.4: as [`oci_gb200`] with GB300 and one ConnectX-8 per GPU, taken as two
/// 400GbE ports (ConnectX-8 runs 800G only as XDR InfiniBand; see `catalog::fabric`).
fn oci_gb300() -> Cluster {
    Cluster { gpu: GpuKind::Gb300, nics_per_node: 8, ..oci_gb200() }
}

/// OCI BM.GPU.MI355X.8: 8 MI355X on Infinity Fabric, 8x 400G RoCE (assumed, as AMD's
/// MI355X platform), RCCL.
fn oci_mi355x() -> Cluster {
    Cluster { nodes: 128, ..mi355x_pollara() }
}

/// Every preset, in the order a page lists them.
pub const CLUSTER_PRESETS: [ClusterPreset; 25] = [
    ClusterPreset {
        id: "dgx-a100-superpod",
        name: "DGX A100 SuperPOD",
        #[cfg(feature = "sources")]
        about: "140 nodes x 8 A100, NVLink3, 8x InfiniBand HDR 200G per node",
        reference: true,
        #[cfg(feature = "sources")]
        source: "NVIDIA DGX SuperPOD reference architecture (DGX A100)",
        make: dgx_a100_hdr,
    },
    ClusterPreset {
        id: "dgx-h100-superpod",
        name: "DGX H100 SuperPOD",
        #[cfg(feature = "sources")]
        about: "128 nodes x 8 H100, NVLink4, 8x InfiniBand NDR 400G per node",
        reference: true,
        #[cfg(feature = "sources")]
        source: "NVIDIA DGX SuperPOD reference architecture (DGX H100)",
        make: dgx_h100_ndr,
    },
    ClusterPreset {
        id: "h100-roce",
        name: "H100, 8x 400G RoCE",
        #[cfg(feature = "sources")]
        about: "64 nodes x 8 H100, NVLink4, 8x RoCEv2 400GbE per node",
        reference: false,
        #[cfg(feature = "sources")]
        source: "NVIDIA Spectrum-X reference design (8x 400GbE per HGX H100 node)",
        make: h100_roce,
    },
    ClusterPreset {
        id: "gb200-nvl72",
        name: "GB200 NVL72 racks",
        #[cfg(feature = "sources")]
        about: "4 racks of 72 GB200 (trays of 4), NVLink5 rack domain, 1x NDR 400G per GPU",
        reference: false,
        #[cfg(feature = "sources")]
        source: "NVIDIA GB200 NVL72 product page (18 trays of 4 GPUs, one ConnectX-7 per GPU)",
        make: gb200_nvl72,
    },
    ClusterPreset {
        id: "pcie-server",
        name: "8-GPU PCIe server",
        #[cfg(feature = "sources")]
        about: "one server, 8 H100 PCIe on PCIe Gen5 with P2P, no NVLink, 2x 400GbE",
        reference: false,
        #[cfg(feature = "sources")]
        source: "a PCIe Gen5 server class (e.g. Supermicro SYS-421GE) with 8 H100 PCIe",
        make: pcie_server,
    },
    ClusterPreset {
        id: "cloud-100g",
        name: "Cloud VMs, 100GbE",
        #[cfg(feature = "sources")]
        about: "16 VMs x 8 A100, NVLink3 inside, one 100GbE (TCP) interface each",
        reference: false,
        #[cfg(feature = "sources")]
        source: "cloud A100 VMs with one 100GbE interface",
        make: cloud_100g,
    },
    ClusterPreset {
        id: "dgx-b200-superpod",
        name: "DGX B200 SuperPOD",
        #[cfg(feature = "sources")]
        about: "reference design: 128 DGX B200 (4 SUs of 32), NVLink5, 8x NDR 400G per node",
        reference: true,
        #[cfg(feature = "sources")]
        source: "NVIDIA DGX B200 user guide and DGX SuperPOD B200 reference architecture",
        make: dgx_b200,
    },
    ClusterPreset {
        id: "hgx-h200-spectrum-x",
        name: "HGX H200, Spectrum-X",
        #[cfg(feature = "sources")]
        about: "approximation of NVIDIA's Enterprise RA: 32 HGX H200, 8x 400GbE RoCE per node, rail-optimized",
        reference: false,
        #[cfg(feature = "sources")]
        source: "NVIDIA Enterprise Reference Architecture for HGX H100/H200/B200",
        make: hgx_h200_spectrum_x,
    },
    ClusterPreset {
        id: "gb200-nvl72-su",
        name: "GB200 NVL72 SU",
        #[cfg(feature = "sources")]
        about: "reference design: one SuperPOD scalable unit of 8 NVL72 racks (576 GB200), 1x NDR 400G per GPU",
        reference: true,
        #[cfg(feature = "sources")]
        source: "NVIDIA DGX SuperPOD GB200 reference architecture",
        make: gb200_nvl72_su,
    },
    ClusterPreset {
        id: "azure-nd-h100-v5",
        name: "Azure ND H100 v5",
        #[cfg(feature = "sources")]
        about: "approximation: 32 VMs of 8 H100, 8x 400G InfiniBand each; Azure does not publish its switch layout",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Microsoft Learn, ND H100 v5 sizes (8x 400 Gb/s Quantum-2 InfiniBand per VM)",
        make: azure_nd_h100_v5,
    },
    ClusterPreset {
        id: "aws-p4d",
        name: "AWS p4d/p4de",
        #[cfg(feature = "sources")]
        about: "approximation: 16 instances of 8 A100, 4x 100G EFA each; AWS does not publish its fabric",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AWS EC2 User Guide, network cards (p4d/p4de: 4 EFA interfaces, 400 Gbps)",
        make: aws_p4d,
    },
    ClusterPreset {
        id: "aws-p5",
        name: "AWS p5",
        #[cfg(feature = "sources")]
        about: "approximation: 16 p5.48xlarge of 8 H100, 32x 100G EFA each (3.2 Tb/s)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AWS EC2 User Guide, network cards (p5.48xlarge: 32 EFA interfaces, 3,200 Gbps)",
        make: aws_p5,
    },
    ClusterPreset {
        id: "aws-p5en",
        name: "AWS p5en",
        #[cfg(feature = "sources")]
        about: "approximation: 16 p5en.48xlarge of 8 H200, 16x 200G EFA each (3.2 Tb/s)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AWS EC2 User Guide, network cards (p5en.48xlarge: 16 EFA interfaces, 3,200 Gbps)",
        make: aws_p5en,
    },
    ClusterPreset {
        id: "aws-p6-b200",
        name: "AWS p6-b200",
        #[cfg(feature = "sources")]
        about: "approximation: 16 p6-b200.48xlarge of 8 B200, 8x 400G EFA each (3.2 Tb/s)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AWS EC2 User Guide, network cards (p6-b200.48xlarge: 8 EFA interfaces, 3,200 Gbps)",
        make: aws_p6_b200,
    },
    ClusterPreset {
        id: "gcp-a3-mega",
        name: "GCP A3 Mega",
        #[cfg(feature = "sources")]
        about: "approximation: 16 a3-megagpu-8g VMs of 8 H100, 8x 200G GPUDirect-TCPXO NICs each (1.6 Tb/s), NVLS off as GCP's NCCL profile sets it; GCP does not publish its switch layout",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Google Cloud, A3 Mega machine type (8x 200 Gbps GPU NICs, GPUDirect-TCPXO); GoogleCloudPlatform/cluster-toolkit a3-megagpu-8g NCCL profile (NCCL_NVLS_ENABLE=0, NCCL_ALGO=Ring,Tree)",
        make: gcp_a3_mega,
    },
    ClusterPreset {
        id: "mi300x-roce",
        name: "MI300X, 8x 400G RoCE",
        #[cfg(feature = "sources")]
        about: "approximation: 16 servers of 8 MI300X on Infinity Fabric, 8x 400G RoCE each (Pollara 400, Thor2 or ConnectX-7), RCCL",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AMD ROCm docs, multi-node rccl-tests validation (8 RDMA NICs per MI300X node)",
        make: mi300x_roce,
    },
    ClusterPreset {
        id: "mi355x-pollara",
        name: "MI355X, Pollara 400",
        #[cfg(feature = "sources")]
        about: "approximation: 64 servers of 8 MI355X on Infinity Fabric, 8x AMD Pensando Pollara 400 (RoCE) each, RCCL",
        reference: false,
        #[cfg(feature = "sources")]
        source: "AMD Pensando Pollara 400 product page; MLCommons inference v6.0 MI355X system",
        make: mi355x_pollara,
    },
    ClusterPreset {
        id: "gb300-nvl72",
        name: "GB300 NVL72 rack",
        #[cfg(feature = "sources")]
        about: "one rack of 72 GB300 (18 trays of 4), NVLink5 rack domain, 800 Gb/s (XDR) per GPU",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Microsoft Learn, ND GB300 v6 sizes (72 GPUs, 130 TB/s NVLink, 800 Gb/s per GPU)",
        make: gb300_nvl72,
    },
    ClusterPreset {
        id: "b300-hgx",
        name: "HGX B300 cluster",
        #[cfg(feature = "sources")]
        about: "approximation: 32 HGX B300 of 8 GPUs, NVLink5, 8x ConnectX-8 XDR 800G per node",
        reference: false,
        #[cfg(feature = "sources")]
        source: "NVIDIA HGX B300 table (secondary copy: 8x 800 Gb/s per baseboard)",
        make: b300_hgx,
    },
    ClusterPreset {
        id: "gcp-a3-ultra",
        name: "GCP A3 Ultra",
        #[cfg(feature = "sources")]
        about: "approximation: 16 a3-ultragpu-8g VMs of 8 H200, 8x ConnectX-7 400G RoCE each (3.2 Tb/s, rail-aligned); GCP does not publish its switch layout",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Google Cloud, Compute Engine 'Networking and GPU machines' (A3 Ultra: 8 CX-7 NICs, 3,200 Gbps GPUDirect RDMA, one per GPU)",
        make: gcp_a3_ultra,
    },
    ClusterPreset {
        id: "gcp-a4",
        name: "GCP A4",
        #[cfg(feature = "sources")]
        about: "approximation: 16 a4-highgpu-8g VMs of 8 B200, 8x ConnectX-7 400G RoCE each (3.2 Tb/s, rail-aligned)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Google Cloud, Compute Engine 'Networking and GPU machines' (A4: 8 CX-7 NICs, 3,200 Gbps GPUDirect RDMA, one per GPU)",
        make: gcp_a4,
    },
    ClusterPreset {
        id: "azure-nd-gb200-v6",
        name: "Azure ND GB200 v6",
        #[cfg(feature = "sources")]
        about: "approximation: 2 NVL72 racks (36 VMs of 4 GB200), 4x 400G InfiniBand per VM; Azure does not publish its switch layout",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Microsoft Learn, ND GB200 v6 sizes (4 GPUs per VM, 18 VMs per rack, 4x 400 Gb/s Quantum-2 CX7 InfiniBand per VM)",
        make: azure_nd_gb200_v6,
    },
    ClusterPreset {
        id: "oci-gb200",
        name: "OCI GB200",
        #[cfg(feature = "sources")]
        about: "approximation: 4 NVL72 racks of BM.GPU.GB200.4 hosts, one 400G RoCE NIC per GPU assumed (OCI does not publish the NIC count)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Oracle Cloud docs, GPU memory fabric (BM.GPU.GB200.4: 18 hosts per NVLink 72 fabric, RoCE cluster networks between fabrics)",
        make: oci_gb200,
    },
    ClusterPreset {
        id: "oci-gb300",
        name: "OCI GB300",
        #[cfg(feature = "sources")]
        about: "approximation: 4 NVL72 racks of BM.GPU.GB300.4 hosts, one ConnectX-8 per GPU as two 400G RoCE ports (assumed)",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Oracle Cloud docs, GPU memory fabric (BM.GPU.GB300.4: 18 hosts per NVLink 72 fabric, RoCE cluster networks)",
        make: oci_gb300,
    },
    ClusterPreset {
        id: "oci-mi355x",
        name: "OCI MI355X",
        #[cfg(feature = "sources")]
        about: "approximation: 128 BM.GPU.MI355X.8 hosts of 8 MI355X on Infinity Fabric, 8x 400G RoCE each (assumed), RCCL",
        reference: false,
        #[cfg(feature = "sources")]
        source: "Oracle Cloud MI355X superclusters (AMD/Oracle announcements); NIC count assumed as AMD's 8-GPU MI355X platform",
        make: oci_mi355x,
    },
];

/// The preset with this id.
pub fn cluster_preset(id: &str) -> Option<ClusterPreset> {
    CLUSTER_PRESETS.iter().copied().find(|p| p.id == id)
}

/// Ids of every preset.
pub fn cluster_preset_ids() -> Vec<&'static str> {
    CLUSTER_PRESETS.iter().map(|p| p.id).collect()
}

/// The preset whose cluster equals `c`, if any (to highlight the active button).
pub fn matching_preset(c: &Cluster) -> Option<&'static str> {
    CLUSTER_PRESETS.iter().find(|p| p.cluster() == *c).map(|p| p.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds() {
        for p in CLUSTER_PRESETS {
            let t = p.cluster().topology().unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert!(t.total_gpus >= 8, "{}", p.id);
            assert_eq!(cluster_preset(p.id).map(|q| q.id), Some(p.id));
            assert_eq!(matching_preset(&p.cluster()), Some(p.id));
        }
        assert_eq!(cluster_preset_ids().len(), 25);
    }

    #[test]
    fn presets_are_what_they_say() {
        let pod = cluster_preset("dgx-h100-superpod").unwrap().cluster().topology().unwrap();
        assert_eq!(pod.total_gpus, 1024);
        let f = pod.fabric.unwrap();
        assert!(f.leaves > 1 && f.spines > 0 && f.oversubscription == 1.0);
        let nvl = cluster_preset("gb200-nvl72").unwrap().cluster().topology().unwrap();
        assert_eq!((nvl.domain_gpus, nvl.domains), (72, 4));
        let a100 = cluster_preset("dgx-a100-superpod").unwrap().cluster().topology().unwrap();
        assert_eq!(a100.total_gpus, 1120);
        // DGX B200 SuperPOD: the H100 pod's 32 leaves and 16 spines (same 8x NDR rails).
        let b200 = cluster_preset("dgx-b200-superpod").unwrap().cluster().topology().unwrap();
        let f = b200.fabric.unwrap();
        assert_eq!((b200.total_gpus, f.leaves, f.spines), (1024, 32, 16));
        // A GB200 SuperPOD scalable unit: 8 racks of 72, 576 GPUs.
        let su = cluster_preset("gb200-nvl72-su").unwrap().cluster().topology().unwrap();
        assert_eq!((su.total_gpus, su.domain_gpus, su.domains), (576, 72, 8));
        // Azure ND H100 v5: 3.2 Tb/s of InfiniBand per VM.
        let nd = cluster_preset("azure-nd-h100-v5").unwrap().cluster();
        assert_eq!(nd.nics_per_node as f64 * nd.nic.spec().line_rate.0, 3200.0);
        let pcie = cluster_preset("pcie-server").unwrap().cluster().topology().unwrap();
        assert_eq!(pcie.domains, 1);
        assert!(!pcie.cluster.scale_up.is_nvlink());
    }

    #[test]
    fn cloud_and_amd_presets_match_their_shapes() {
        // AWS network-card counts and totals: p4d 4 x 100G; p5, p5en, p6-b200 3,200 Gbps.
        for (id, nics, total) in [("aws-p4d", 4, 400.0), ("aws-p5", 32, 3200.0), ("aws-p5en", 16, 3200.0), ("aws-p6-b200", 8, 3200.0)] {
            let c = cluster_preset(id).unwrap().cluster();
            assert_eq!(c.nics_per_node, nics, "{id}");
            assert_eq!(c.nics_per_node as f64 * c.nic.spec().line_rate.0, total, "{id}");
            assert_eq!(c.nic.spec().family, crate::catalog::NetFamily::Efa, "{id}");
        }
        // AMD servers: 8 GPUs on the xGMI mesh, 8x 400G RoCE, RCCL.
        for id in ["mi300x-roce", "mi355x-pollara"] {
            let t = cluster_preset(id).unwrap().cluster().topology().unwrap();
            assert_eq!((t.cluster.scale_up, t.domain_gpus, t.cluster.nics_per_node), (ScaleUp::Xgmi, 8, 8), "{id}");
            assert_eq!(t.gpu.arch.library(), crate::catalog::CollectiveLibrary::Rccl);
        }
        // GB300 NVL72: one rack of 72 and 800 Gb/s per GPU (Azure ND GB300 v6).
        let g = cluster_preset("gb300-nvl72").unwrap().cluster().topology().unwrap();
        assert_eq!((g.total_gpus, g.domains), (72, 1));
        assert_eq!(g.nic.line_rate.0 * g.cluster.nics_per_node as f64 / g.cluster.gpus_per_node as f64, 800.0);
        // GCP A3 Ultra and A4: 8 GPUs and 8x 400G RoCE, 3,200 Gbps per VM, one NIC per GPU.
        for (id, gpu) in [("gcp-a3-ultra", GpuKind::H200), ("gcp-a4", GpuKind::B200)] {
            let c = cluster_preset(id).unwrap().cluster();
            assert_eq!((c.gpu, c.nic, c.gpus_per_node, c.nics_per_node), (gpu, NicKind::Roce400, 8, 8), "{id}");
            assert_eq!(c.nics_per_node as f64 * c.nic.spec().line_rate.0, 3200.0, "{id}");
        }
        // Azure ND GB200 v6: 4x 400G InfiniBand per VM of 4, 18 VMs per rack of 72.
        let nd = cluster_preset("azure-nd-gb200-v6").unwrap().cluster().topology().unwrap();
        assert_eq!((nd.cluster.nic, nd.cluster.nics_per_node, nd.cluster.gpus_per_node, nd.domain_gpus), (NicKind::IbNdr, 4, 4, 72));
        // OCI GB200 / GB300 racks of 72 on RoCE; GB300 gets 800 Gb/s per GPU as two 400G ports.
        for (id, per_gpu) in [("oci-gb200", 400.0), ("oci-gb300", 800.0)] {
            let t = cluster_preset(id).unwrap().cluster().topology().unwrap();
            assert_eq!((t.domain_gpus, t.nic.family), (72, crate::catalog::NetFamily::RoceV2), "{id}");
            assert_eq!(t.nic.line_rate.0 * t.cluster.nics_per_node as f64 / t.cluster.gpus_per_node as f64, per_gpu, "{id}");
        }
        let oci = cluster_preset("oci-mi355x").unwrap().cluster().topology().unwrap();
        assert_eq!((oci.gpu.arch.library(), oci.domain_gpus), (crate::catalog::CollectiveLibrary::Rccl, 8));
        // Every preset says whether it is a reference design or an approximation, and its source.
        #[cfg(feature = "sources")]
        for p in CLUSTER_PRESETS {
            assert!(p.reference || p.about.starts_with("approximation") || !p.source.is_empty(), "{}", p.id);
            assert!(!p.source.is_empty(), "{}", p.id);
        }
    }

    /// README's preset table (what the pages' preset buttons point to for their sources) is
    /// the catalog's: written anew with FABRICSCOPE_WRITE_DOCS=1, failing when it differs.
    #[cfg(feature = "sources")]
    #[test]
    fn readme_lists_every_preset_with_its_source() {
        let mut table = String::from("| preset | what | kind | source |\n|---|---|---|---|\n");
        for p in CLUSTER_PRESETS {
            let about = ["reference design: ", "approximation: "].iter().fold(p.about, |a, x| a.strip_prefix(x).unwrap_or(a));
            table.push_str(&format!("| `{}` | {} | {} | {} |\n", p.id, about, if p.reference { "reference design" } else { "approximation" }, p.source));
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).expect("README.md");
        let (begin, end) = ("<!-- begin presets -->\n", "<!-- end presets -->");
        let (Some(i), Some(j)) = (readme.find(begin), readme.find(end)) else { panic!("README.md has no preset table markers") };
        let fresh = format!("{}{begin}{table}{}", &readme[..i], &readme[j..]);
        if std::env::var_os("FABRICSCOPE_WRITE_DOCS").is_some() {
            std::fs::write(&path, &fresh).expect("write README.md");
        }
        assert!(readme == fresh, "README.md's preset table is stale: FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --features sources --lib presets");
    }
}
