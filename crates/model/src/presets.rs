//! Named clusters people compare against: plain [`Cluster`] values, shared by the explorer's
//! preset buttons and the CLI.
//!
//! Sources: NVIDIA DGX SuperPOD reference architectures (DGX A100: 140 nodes in 7 scalable
//! units of 20, 8x HDR 200G compute rails per node; DGX H100: 127 nodes in 4 SUs of 32, 8x NDR
//! 400G, rounded here to 128 so the node slider lands on it); the Spectrum-X reference design
//! (8x 400GbE RoCE per HGX H100 node); GB200 NVL72 (18 compute trays of 4 GPUs per rack, one
//! ConnectX-7 400G per GPU); a PCIe Gen5 server with 8 H100 PCIe cards; cloud A100 VMs with one
//! 100GbE interface (TCP sockets).

use crate::catalog::{GpuKind, NicKind, PcieGen, ScaleUp};
use crate::topology::Cluster;

/// One named cluster.
#[derive(Clone, Copy, Debug)]
pub struct ClusterPreset {
    /// Stable id (URL, CLI `--preset`).
    pub id: &'static str,
    /// Short name for a button.
    pub name: &'static str,
    /// One line about what it is.
    pub about: &'static str,
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

/// Every preset, in the order a page lists them.
pub const CLUSTER_PRESETS: [ClusterPreset; 6] = [
    ClusterPreset {
        id: "dgx-a100-superpod",
        name: "DGX A100 SuperPOD",
        about: "140 nodes x 8 A100, NVLink3, 8x InfiniBand HDR 200G per node",
        make: dgx_a100_hdr,
    },
    ClusterPreset {
        id: "dgx-h100-superpod",
        name: "DGX H100 SuperPOD",
        about: "128 nodes x 8 H100, NVLink4, 8x InfiniBand NDR 400G per node",
        make: dgx_h100_ndr,
    },
    ClusterPreset {
        id: "h100-roce",
        name: "H100, 8x 400G RoCE",
        about: "64 nodes x 8 H100, NVLink4, 8x RoCEv2 400GbE per node",
        make: h100_roce,
    },
    ClusterPreset {
        id: "gb200-nvl72",
        name: "GB200 NVL72 racks",
        about: "4 racks of 72 GB200 (trays of 4), NVLink5 rack domain, 1x NDR 400G per GPU",
        make: gb200_nvl72,
    },
    ClusterPreset {
        id: "pcie-server",
        name: "8-GPU PCIe server",
        about: "one server, 8 H100 PCIe on PCIe Gen5 with P2P, no NVLink, 2x 400GbE",
        make: pcie_server,
    },
    ClusterPreset {
        id: "cloud-100g",
        name: "Cloud VMs, 100GbE",
        about: "16 VMs x 8 A100, NVLink3 inside, one 100GbE (TCP) interface each",
        make: cloud_100g,
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
        assert_eq!(cluster_preset_ids().len(), 6);
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
        let pcie = cluster_preset("pcie-server").unwrap().cluster().topology().unwrap();
        assert_eq!(pcie.domains, 1);
        assert!(!pcie.cluster.scale_up.is_nvlink());
    }
}
