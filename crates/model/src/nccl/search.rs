//! Channel count and per-channel bandwidth, as NCCL's topology search would find them.
//!
//! NCCL (src/graph/search.cc, `ncclTopoCompute`) walks the real PCIe/NVLink graph trying
//! per-channel speeds from a table, keeping the graph with the most channels x speed. For the
//! symmetric nodes Fabricscope models, the number of channels a speed admits has a closed
//! form (how many times the speed fits into each link it must cross), so the walk becomes
//! arithmetic while the order of attempts, the acceptance rules, channel duplication and the
//! second "raise the speed" pass follow search.cc step by step.

use super::constants::NcclConstants;
use crate::catalog::Arch;

/// What the search needs to know about one node of a communicator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchInput {
    pub arch: Arch,
    /// Ranks of the communicator in one node (NVLink domain).
    pub gpus: u32,
    /// The communicator spans more than one node.
    pub has_net: bool,
    /// Per-GPU, per-direction bandwidth into the intra-node fabric (NCCL's view), GB/s.
    pub intra_bw: f64,
    /// The intra-node fabric is NVLink (else PCIe).
    pub intra_nvlink: bool,
    /// NVSwitch present (NVLS needs it).
    pub nvswitch: bool,
    /// NICs the communicator can use in one node.
    pub nics: u32,
    /// Per-NIC, per-direction bandwidth the search may plan with, GB/s.
    pub nic_bw: f64,
    /// Per-direction bandwidth of the PCIe path between a GPU and its NIC, GB/s.
    pub gpu_nic_bw: f64,
    /// The GPU's own PCIe link, GB/s (enters NCCL's `totalBw`).
    pub gpu_pcie_bw: f64,
}

/// The patterns NCCL searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Ring,
    Tree,
    Nvls,
    CollNetDirect,
}

/// One search result: NCCL's `ncclTopoGraph` reduced to what the tuning model reads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Graph {
    pub n_channels: u32,
    pub bw_intra: f64,
    pub bw_inter: f64,
}

/// All graphs one communicator gets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Graphs {
    pub ring: Graph,
    pub tree: Graph,
    pub collnet_direct: Graph,
    pub collnet_chain: Graph,
    /// `None` where NVLS is impossible (no NVSwitch, before Hopper, one GPU).
    pub nvls: Option<Graph>,
    /// NCCL's `maxTreePattern == NCCL_TOPO_PATTERN_TREE`: Hopper and later fall back from the
    /// balanced tree to the simple tree, which the tuning model penalises by 0.85.
    pub simple_tree: bool,
}

/// Absorbs float noise the way NCCL's SUB_ROUND does (1e-3 resolution).
fn fits(capacity: f64, per_channel: f64) -> u32 {
    if per_channel <= 0.0 {
        return 0;
    }
    ((capacity / per_channel) + 1e-6).floor().max(0.0) as u32
}

impl SearchInput {
    fn speeds<'a>(&self, k: &'a NcclConstants) -> &'a [f64] {
        let s = &k.speeds;
        match (self.arch, self.has_net) {
            (Arch::Blackwell, false) => s.sm100_intra,
            (Arch::Blackwell, true) => s.sm100_inter,
            (Arch::Hopper, false) => s.sm90_intra,
            (Arch::Hopper, true) => s.sm90_inter,
            (_, false) => s.intra,
            (_, true) => s.inter,
        }
    }

    /// NCCL's `system->maxBw`: the best single path a channel can take.
    fn max_bw(&self) -> f64 {
        if self.has_net {
            self.gpu_nic_bw.min(self.nic_bw)
        } else {
            self.intra_bw
        }
    }

    /// NCCL's `system->totalBw`: all of one GPU's NVLinks, or its PCIe link.
    fn total_bw(&self) -> f64 {
        if self.intra_nvlink {
            self.intra_bw.max(self.gpu_pcie_bw)
        } else {
            self.gpu_pcie_bw.max(self.intra_bw)
        }
    }

    /// Channels that fit at per-channel speeds `si` (intra) and `se` (inter).
    fn capacity(&self, pattern: Pattern, si: f64, se: f64) -> u32 {
        let g = self.gpus.max(1);
        let net = if self.has_net {
            self.nics * fits(self.nic_bw.min(self.gpu_nic_bw), se)
        } else {
            u32::MAX
        };
        match pattern {
            Pattern::Ring | Pattern::Tree | Pattern::CollNetDirect => {
                let intra = if g == 1 {
                    u32::MAX
                } else if self.intra_nvlink && self.has_net {
                    // An open chain NET -> g GPUs -> NET crosses g-1 NVLink hops per channel.
                    fits(self.intra_bw * g as f64, si * (g - 1) as f64)
                } else {
                    // A closed ring (or any PCIe ring) loads every GPU's link once per channel.
                    fits(self.intra_bw, si)
                };
                net.min(intra)
            }
            Pattern::Nvls => {
                // Each channel has a head GPU that moves twice its share through the switch.
                let heads = fits(self.intra_bw, si).saturating_sub(1).min(g);
                heads.min(net)
            }
        }
    }

    /// `ncclTopoCompute` for one pattern.
    fn compute(&self, k: &NcclConstants, pattern: Pattern, min_ch: u32, max_ch: u32) -> Option<Graph> {
        let speeds = self.speeds(k);
        let n = speeds.len();
        let g = self.gpus.max(1);
        let system_total = self.total_bw();
        let total = if g > 1 && pattern != Pattern::Ring {
            system_total * g as f64 / (g - 1) as f64
        } else {
            system_total
        };
        let max_bw = self.max_bw();
        let better = |cand: &Graph, best: &Option<Graph>| match best {
            None => true,
            Some(b) => match pattern {
                Pattern::Nvls => {
                    (cand.n_channels > b.n_channels && cand.n_channels <= g)
                        || cand.n_channels as f64 * cand.bw_inter > b.n_channels as f64 * b.bw_inter
                }
                _ => cand.n_channels as f64 * cand.bw_intra > b.n_channels as f64 * b.bw_intra,
            },
        };

        // Pass 1: start at the fastest plausible speed, step down until a solution.
        let mut i = 0;
        while i < n - 1 && (speeds[i] > max_bw || speeds[i] * min_ch as f64 > total) {
            i += 1;
        }
        let mut best: Option<Graph> = None;
        loop {
            let s = speeds[i];
            let c = self.capacity(pattern, s, s).min(max_ch);
            let mut perfect = false;
            if c >= min_ch.max(1) {
                let cand = Graph { n_channels: c, bw_intra: s, bw_inter: s };
                if better(&cand, &best) {
                    best = Some(cand);
                }
                perfect = c == max_ch;
            }
            if perfect {
                break;
            }
            if let Some(b) = best {
                if b.n_channels as f64 * b.bw_inter >= system_total {
                    break;
                }
            }
            let may_step_down = match best {
                None => true,
                Some(b) => speeds.get(i + 1).is_some_and(|next| next / b.bw_inter > 0.49),
            };
            if i < n - 1 && may_step_down {
                i += 1;
            } else {
                break;
            }
        }
        let mut graph = best?;

        // ncclTopoDupChannels: fast channels are split in two to use more SMs.
        let cc = self.arch.compute_capability();
        if pattern != Pattern::Nvls
            && graph.bw_intra >= 25.0
            && !(cc > 80 && graph.bw_intra < 50.0 && graph.n_channels > 4)
        {
            let dup = (graph.n_channels * 2).min(max_ch);
            let div = dup.div_ceil(graph.n_channels) as f64;
            graph.bw_intra /= div;
            graph.bw_inter /= div;
            graph.n_channels = dup;
        }

        // Pass 2: keep the channel count, try to raise the speed.
        let mut i = speeds.iter().position(|&s| s <= graph.bw_inter).unwrap_or(n - 1);
        let min_ch = graph.n_channels;
        let (mut t_intra, mut t_inter) = (speeds[i], speeds[i]);
        while i > 0 {
            match pattern {
                Pattern::Ring => {
                    i -= 1;
                    t_intra = speeds[i];
                    t_inter = speeds[i];
                }
                Pattern::Nvls => {
                    if !(t_inter == graph.bw_inter && t_inter < t_intra * 2.0) {
                        break;
                    }
                    i -= 1;
                    t_inter = speeds[i];
                }
                Pattern::Tree | Pattern::CollNetDirect => {
                    if !(t_intra == graph.bw_intra && t_intra < t_inter * 2.0) {
                        break;
                    }
                    i -= 1;
                    t_intra = speeds[i];
                }
            }
            let c = self.capacity(pattern, t_intra, t_inter).min(max_ch);
            if c >= min_ch {
                let cand = Graph { n_channels: c, bw_intra: t_intra, bw_inter: t_inter };
                if better(&cand, &Some(graph)) {
                    graph = cand;
                }
            }
        }
        Some(graph)
    }

    /// Every graph of one communicator, as `initTransportsRank` asks for them.
    pub fn graphs(&self, k: &NcclConstants) -> Graphs {
        // NCCL's fallback when nothing fits: one channel at 0.1 GB/s.
        let fallback = Graph { n_channels: 1, bw_intra: 0.1, bw_inter: 0.1 };
        let ring = self.compute(k, Pattern::Ring, 1, k.max_channels / 2).unwrap_or(fallback);
        let tree = self
            .compute(k, Pattern::Tree, ring.n_channels, ring.n_channels)
            .unwrap_or(ring);
        let cc = self.arch.compute_capability();
        let nvls = if self.nvswitch && cc >= 90 && self.gpus >= 2 {
            let max = self.gpus.min(32);
            let min = if self.has_net { 1 } else { max };
            self.compute(k, Pattern::Nvls, min, max)
        } else {
            None
        };
        let collnet_direct = self
            .compute(k, Pattern::CollNetDirect, 1, self.gpus.min(8))
            .unwrap_or(fallback);
        Graphs {
            ring,
            tree,
            collnet_direct,
            collnet_chain: tree,
            nvls,
            simple_tree: cc >= 90,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nccl::constants::V2_27_5;

    fn h100(has_net: bool, nics: u32, nic_bw: f64) -> SearchInput {
        SearchInput {
            arch: Arch::Hopper,
            gpus: 8,
            has_net,
            intra_bw: 18.0 * 20.6,
            intra_nvlink: true,
            nvswitch: true,
            nics,
            nic_bw,
            gpu_nic_bw: 48.0,
            gpu_pcie_bw: 48.0,
        }
    }

    #[test]
    fn h100_with_eight_ndr_nics_finds_eight_channels_of_48() {
        // shared/validation/nccl-golden.csv: "NCCL's topology search found 8 channels of 48 GB/s".
        let g = h100(true, 8, 48.0).graphs(&V2_27_5);
        assert_eq!(g.ring, Graph { n_channels: 8, bw_intra: 48.0, bw_inter: 48.0 });
        assert_eq!(g.tree, Graph { n_channels: 8, bw_intra: 48.0, bw_inter: 48.0 });
    }

    #[test]
    fn single_h100_node_ring_is_twelve_channels_of_30() {
        // 6 x 60 GB/s found first, then duplicated: 12 x 30 = 360 GB/s of 370.8.
        let g = h100(false, 0, 0.0).graphs(&V2_27_5);
        assert_eq!(g.ring.n_channels, 12);
        assert_eq!(g.ring.bw_intra, 30.0);
        let nvls = g.nvls.expect("H100 with NVSwitch has NVLS");
        assert_eq!(nvls.n_channels, 8);
        assert_eq!(nvls.bw_intra, 40.0);
    }

    #[test]
    fn a100_with_hdr_nics_gets_24_per_channel() {
        let a100 = SearchInput {
            arch: Arch::Ampere,
            intra_bw: 12.0 * 20.0,
            gpu_nic_bw: 24.0,
            gpu_pcie_bw: 24.0,
            ..h100(true, 8, 24.0)
        };
        let g = a100.graphs(&V2_27_5);
        assert_eq!(g.ring, Graph { n_channels: 8, bw_intra: 24.0, bw_inter: 24.0 });
        assert!(g.nvls.is_none());
    }
}
