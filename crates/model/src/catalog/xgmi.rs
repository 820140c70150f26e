//! AMD Infinity Fabric (xGMI) scale-up: GPUs joined point to point in a full mesh, no switch,
//! no in-network reduction. Each link's bandwidth is per direction ([`GBps`]).

use super::gpu::GpuKind;
use crate::units::{GBps, GBpsBidir};

/// One GPU's Infinity Fabric links inside an 8-GPU node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XgmiSpec {
    /// Links per GPU to its peers: 7, one to each other GPU of a fully connected 8-GPU node
    /// (ROCm docs, "AMD Instinct MI300 series microarchitecture": "seven high-bandwidth,
    /// low-latency AMD Infinity Fabric links ... to form a fully connected 8-GPU node"; MI325X
    /// and MI355X the same per SECONDARY reports, validation/hardware-specs.csv).
    pub links: u32,
    /// Per-direction rate of one link as RCCL's topology assumes it, which its tuning and so the
    /// collective predictions use: 48 GB/s (ROCm/rccl src/graph/topo.h `GFX94X_XGMI_WIDTH`,
    /// `GFX95X_XGMI_WIDTH`; README-hardware.md item 8).
    pub rccl_link: GBps,
    /// Per-direction signalling rate of one link, shown to users and scaling the timing from
    /// the measured generation ([`XgmiSpec::speedup_over_measured`]). MI300X/MI325X: 64 GB/s,
    /// DERIVED from the SECONDARY 896 GB/s aggregate over 7 links, both directions (gpu.blog
    /// MI300X page; one Azure overview words it as 128 GB/s per link). MI355X: 76.8 GB/s, half
    /// the SECONDARY ~153.6 GB/s per link both directions (Hume Consulting's MI355X analysis,
    /// validation/hardware-specs.csv). AMD's own per-link figures were not found in text.
    pub line_link: GBps,
}

impl XgmiSpec {
    /// All of one GPU's links, one direction, as RCCL plans with them.
    pub fn rccl_total(&self) -> GBps {
        GBps(self.rccl_link.0 * self.links as f64)
    }
    /// All of one GPU's links, both directions: the vendor-style headline figure.
    pub fn line_total_bidir(&self) -> GBpsBidir {
        GBpsBidir(self.line_link.0 * 2.0 * self.links as f64)
    }
    /// Links a GPU has to the others of a group of `gpus` in the mesh (one per peer).
    pub fn links_to(&self, gpus: u32) -> u32 {
        gpus.saturating_sub(1).min(self.links)
    }
    /// How much faster this GPU's links signal than those of the generation whose rccl-tests
    /// runs the xGMI timing was fitted on (gfx942, [`MEASURED_XGMI`]): 1 there, 1.2 on MI355X.
    /// RCCL plans both generations at the same 48 GB/s, so its tables cannot carry the
    /// difference; how much of it gfx950's kernels turn into busbw is not measured (the timing
    /// takes the middle: `rccl::timing::GENERATION_BAND_PCT`).
    pub fn speedup_over_measured(&self) -> f64 {
        self.line_link.0 / MEASURED_XGMI.line_link.0
    }
}

/// GPUs one xGMI mesh joins: 8 (one node; the links are all spent on the 7 peers).
pub const XGMI_MESH_GPUS: u32 = 8;

/// CDNA 3 (gfx942: MI300X, MI325X), the generation the xGMI timing is measured on.
pub const MEASURED_XGMI: XgmiSpec = XgmiSpec { links: 7, rccl_link: GBps(48.0), line_link: GBps(64.0) };

/// CDNA 4 (gfx950: MI355X): the same mesh and RCCL figure, faster links (see `line_link`).
const CDNA4_XGMI: XgmiSpec = XgmiSpec { links: 7, rccl_link: GBps(48.0), line_link: GBps(76.8) };

/// The xGMI links of an AMD Instinct GPU; `None` for GPUs without Infinity Fabric.
pub fn xgmi_of(gpu: GpuKind) -> Option<&'static XgmiSpec> {
    match gpu {
        GpuKind::Mi300x | GpuKind::Mi325x => Some(&MEASURED_XGMI),
        GpuKind::Mi355x => Some(&CDNA4_XGMI),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mi300x_mesh_matches_the_docs() {
        let x = xgmi_of(GpuKind::Mi300x).unwrap();
        assert_eq!(x.links, XGMI_MESH_GPUS - 1);
        assert_eq!(x.rccl_total(), GBps(336.0));
        // The secondary aggregate figure, both directions over 7 links.
        assert_eq!(x.line_total_bidir(), GBpsBidir(896.0));
        assert_eq!(x.links_to(8), 7);
        assert_eq!(x.links_to(4), 3);
        assert!(xgmi_of(GpuKind::H100).is_none());
    }

    #[test]
    fn mi355x_links_signal_a_fifth_faster_on_the_same_mesh() {
        let (old, new) = (xgmi_of(GpuKind::Mi300x).unwrap(), xgmi_of(GpuKind::Mi355x).unwrap());
        assert_eq!((new.links, new.rccl_link), (old.links, old.rccl_link));
        assert!((new.speedup_over_measured() - 1.2).abs() < 1e-12);
        assert_eq!(xgmi_of(GpuKind::Mi325x).unwrap().speedup_over_measured(), 1.0);
        // 7 links x 153.6 GB/s, both directions.
        assert!((new.line_total_bidir().0 - 1075.2).abs() < 1e-9);
    }
}
