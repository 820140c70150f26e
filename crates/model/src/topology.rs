//! A cluster as the user describes it, checked, and what follows from it: per-GPU bandwidth
//! and latency at each tier (up to the core of a three-tier fat tree, sized in
//! [`crate::fabric_tree`]), oversubscription on a group's path, bisection bandwidth and hops.

use crate::catalog::fabric::{hbm_facts, pcie_line_bw, pcie_nccl_bw, HBM_LATENCY};
use crate::catalog::{Arch, GpuKind, GpuSpec, NetFamily, NicKind, NicSpec, ScaleUp, SwitchSpec, TierFacts};
use crate::error::{ModelError, Result};
use crate::limits;
pub use crate::fabric_tree::{FatTree, SwitchLevel, SwitchTier};
use crate::fabric_tree::TreeInput;
use crate::nccl::NcclVersion;
use crate::units::{GBps, Micros};
use serde::{Deserialize, Serialize};

/// Host CPU vendor: NCCL's LL bandwidth cap and network overhead depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuVendor {
    #[default]
    Intel,
    Amd,
}

/// The cluster as entered: counts and catalog names. Checked by [`Cluster::topology`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cluster {
    pub gpu: GpuKind,
    /// Hosts (for NVL72: compute trays).
    pub nodes: u32,
    pub gpus_per_node: u32,
    pub scale_up: ScaleUp,
    /// Scale-out NICs per node (rails).
    pub nics_per_node: u32,
    pub nic: NicKind,
    /// InfiniBand SHARP in-network reduction (NCCL CollNet) enabled.
    pub sharp: bool,
    /// NVLink SHARP (NVLS) allowed where the hardware has it, like `NCCL_NVLS_ENABLE`.
    pub nvls: bool,
    /// Leaf switches; `None` sizes a buildable fat tree (one, two or three tiers) automatically.
    pub leaf_switches: Option<u32>,
    /// Spine switches; `None` sizes them automatically.
    pub spine_switches: Option<u32>,
    /// Ports per switch at the NIC's rate; `None` takes the NIC's usual switch.
    pub switch_radix: Option<u32>,
    /// NIC k of every node goes to the leaves of rail k (else all of a node's NICs share a leaf).
    pub rail_optimized: bool,
    /// Rail-only (Wang et al., "How to Build Low-cost Networks for Large Language Models
    /// (without Sacrificing Performance)", arXiv:2307.12169): each rail is its own tree, with
    /// no spine between rails; traffic between rails crosses NVLink inside a node first (PXN).
    /// Needs `rail_optimized`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rail_only: bool,
    /// Down:up bandwidth ratio at the leaf when the tree is sized automatically; `None` = 1
    /// (non-blocking). Fixed by `spine_switches` when those are given.
    pub oversubscription: Option<f64>,
    /// Down:up ratio at the spine of a three-tier tree (into the core); `None` = 1.
    pub core_oversubscription: Option<f64>,
    pub cpu: CpuVendor,
    pub nccl: NcclVersion,
    /// Board power limit in watts (`nvidia-smi -pl`); `None` = the GPU's default (its TDP).
    /// Lowers the sustained tensor clock ([`crate::catalog::power`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cap_w: Option<u32>,
    /// The cluster as its own nccl-tests logs measured it (check.html's fit, `fabricscope
    /// calibrate`): every collective on it is timed with the fit's factors and its intervals
    /// carry the fit's uncertainty (module `fitted`). `None`: the catalog design.
    /// Only in builds with the `calibrate` feature (the explorer's index.html has none: a link
    /// that carries one opens measured.html, assets/pages.js).
    #[cfg(any(test, feature = "calibrate"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::fitted::Measured>,
}

impl Default for Cluster {
    /// A DGX H100-style node: 8 H100 on NVLink4/NVSwitch, 8x NDR 400G, rail-optimized.
    fn default() -> Self {
        Cluster {
            gpu: GpuKind::H100,
            nodes: 4,
            gpus_per_node: 8,
            scale_up: ScaleUp::NvSwitch { gen: 4 },
            nics_per_node: 8,
            nic: NicKind::IbNdr,
            sharp: false,
            nvls: true,
            leaf_switches: None,
            spine_switches: None,
            switch_radix: None,
            rail_optimized: true,
            rail_only: false,
            oversubscription: None,
            core_oversubscription: None,
            cpu: CpuVendor::Intel,
            nccl: NcclVersion::V2_27_5,
            power_cap_w: None,
            #[cfg(any(test, feature = "calibrate"))]
            calibration: None,
        }
    }
}

/// Most nodes in a cluster (see [`limits::NODES`], where every range lives).
pub const MAX_NODES: u32 = limits::NODES.max as u32;
/// Most GPUs in a cluster ([`limits::TOTAL_GPUS`]).
pub const MAX_GPUS: u32 = limits::TOTAL_GPUS.max as u32;
/// Most NICs per node ([`limits::NICS_PER_NODE`]).
pub const MAX_NICS_PER_NODE: u32 = limits::NICS_PER_NODE.max as u32;
/// Most leaf or spine switches ([`limits::LEAF_SWITCHES`]).
pub const MAX_SWITCHES: u32 = limits::LEAF_SWITCHES.max as u32;
/// Most ports per switch ([`limits::SWITCH_RADIX`]).
pub const MAX_RADIX: u32 = limits::SWITCH_RADIX.max as u32;

/// Which level of the hierarchy a tier is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TierKind {
    Hbm,
    ScaleUp,
    Pcie,
    Nic,
    Leaf,
    Spine,
    Core,
}

/// One rung of the bandwidth/latency ladder, per GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tier {
    pub kind: TierKind,
    pub name: String,
    /// Bandwidth one GPU can drive through this tier, per direction (HBM: read+write total).
    pub bw_per_gpu: GBps,
    /// Latency of a small transfer that reaches this tier.
    pub latency: Micros,
    pub facts: TierFacts,
}

/// A checked cluster and everything derived from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    pub cluster: Cluster,
    #[serde(skip)]
    pub gpu: &'static GpuSpec,
    #[serde(skip)]
    pub nic: &'static NicSpec,
    pub total_gpus: u32,
    /// GPUs per scale-up domain: what NCCL calls a node.
    pub domain_gpus: u32,
    pub domains: u32,
    /// `None` for a cluster of one domain without NICs.
    pub fabric: Option<FatTree>,
    pub tiers: Vec<Tier>,
    /// Bandwidth across the worst cut into two halves, per direction.
    pub bisection: GBps,
    /// The flow model's fractions of the network's bandwidth, when a caller ran it (routing,
    /// sharing and failures: crates/flow); `None`, the analytical model alone. Never part of
    /// a scenario: the CLI sets it per seed (docs/flow.md, "Composed with the analytical model").
    #[serde(skip)]
    pub flow: Option<crate::network::FlowFractions>,
    /// Queue pairs per NCCL connection every communicator on this cluster runs with
    /// (NCCL_IB_QPS_PER_CONNECTION; [`crate::network::DEFAULT_QPS_PER_CONNECTION`] unless a
    /// caller sets it, as `train --qps-per-connection` does). Never part of a scenario.
    #[serde(skip)]
    pub qps_per_connection: u32,
    /// The cluster's calibration, read and checked once (`Cluster::calibration`): what every
    /// communicator on it applies and every step's interval adds; `None`: the catalog's values.
    #[serde(skip)]
    #[cfg(any(test, feature = "calibrate"))]
    pub fitted: Option<crate::fitted::Calibration>,
}

fn nvlink_gen_of(gpu: GpuKind) -> u8 {
    match gpu.spec().arch {
        Arch::Volta => 2,
        Arch::Ampere => 3,
        Arch::Hopper => 4,
        Arch::Blackwell => 5,
        // No NVLink: checked before this is asked (xGMI or PCIe only).
        Arch::Cdna3 | Arch::Cdna4 => 0,
    }
}

/// GPUs in one NVL72 rack (count): 18 compute trays of 2 Grace CPUs and 4 Blackwell GPUs
/// (NVIDIA GB200 NVL72 product page and datasheet, 2024).
pub const NVL72_GPUS: u32 = 72;

/// GPUs per rack when `total` GPUs in trays of `gpn` fill the fewest NVL72 racks as evenly as
/// whole trays allow: racks get `ceil(trays / racks)` trays each, the last one the rest
/// (128 GPUs: two racks of 64; 200 GPUs in 4-GPU trays: 68, 68 and 64). Ranks fill the racks
/// in order, so rank `r` sits in rack `r / nvl72_rack_gpus(..)`.
pub fn nvl72_rack_gpus(total: u32, gpn: u32) -> u32 {
    let gpn = gpn.clamp(1, NVL72_GPUS);
    let trays = total.div_ceil(gpn).max(1);
    let racks = total.div_ceil(NVL72_GPUS).max(1);
    (trays.div_ceil(racks) * gpn).min(total.max(1))
}

impl Cluster {
    /// The collective library and its tables as the cluster runs them: "NCCL 2.27.5", or
    /// "RCCL tuning model 5 (gfx942)" on AMD Instinct GPUs.
    pub fn library_label(&self) -> String {
        match crate::rccl::model_for(self.gpu.spec().arch) {
            Some(m) => m.name.to_string(),
            None => format!("NCCL {}", self.nccl.id()),
        }
    }

    /// The hardware can run NVLS: NVSwitch chips and an NVIDIA GPU of Hopper or later
    /// (NCCL's rule). RCCL has no NVLS; PCIe, bridges and xGMI have no switch to reduce in.
    pub fn nvls_hardware(&self) -> bool {
        self.scale_up.has_nvswitch() && self.gpu.spec().arch.compute_capability() >= 90
    }

    pub fn total_gpus(&self) -> u32 {
        self.nodes.saturating_mul(self.gpus_per_node)
    }

    /// What one of its nodes is called, singular and plural: a GB200/GB300 NVL72 cluster counts
    /// compute trays (its model's nodes), as the explorer's controls and the CLI's cluster line do.
    pub fn node_word(&self) -> (&'static str, &'static str) {
        if self.scale_up == ScaleUp::Nvl72 {
            ("tray", "trays")
        } else {
            ("node", "nodes")
        }
    }

    /// The cluster's calibration read and checked for its hardware (`None`: the catalog design).
    #[cfg(any(test, feature = "calibrate"))]
    pub fn measured(&self) -> Option<std::result::Result<crate::fitted::Calibration, String>> {
        self.calibration.as_ref().map(|m| m.calibration(self.gpu, self.nic, self.gpus_per_node))
    }

    /// This cluster as `calibration` measured it (fitted on its GPU, NIC and GPUs per node).
    #[cfg(any(test, feature = "calibrate"))]
    pub fn as_measured(&self, calibration: &crate::fitted::Calibration) -> Cluster {
        Cluster { calibration: Some(crate::fitted::Measured::new(self.gpu, self.nic, self.gpus_per_node, calibration)), ..self.clone() }
    }

    /// Checks the cluster can be built and derives its topology.
    pub fn topology(&self) -> Result<Topology> {
        let gpu = self.gpu.spec();
        let nic = self.nic.spec();
        self.check_counts()?;
        let total = self.total_gpus();
        self.check_scale_up(gpu)?;
        #[cfg(any(test, feature = "calibrate"))]
        let fitted = self.measured().transpose().map_err(|why| ModelError::new("calibration", format!("the calibration does not apply: {why}")))?;

        let domain_gpus = match self.scale_up {
            ScaleUp::Nvl72 => nvl72_rack_gpus(total, self.gpus_per_node),
            _ => self.gpus_per_node,
        };
        let domains = total.div_ceil(domain_gpus);
        if domains > 1 && self.nics_per_node == 0 {
            return Err(ModelError::new(
                "nics_per_node",
                format!("{domains} scale-up domains need a scale-out network: use at least 1 NIC per node"),
            ));
        }
        if self.sharp && nic.family != NetFamily::InfiniBand {
            return Err(ModelError::new(
                "sharp",
                format!("SHARP in-network reduction needs InfiniBand (ib-hdr, ib-ndr, ib-xdr); {} has none", nic.name),
            ));
        }
        let fabric = if self.nics_per_node > 0 {
            Some(self.fat_tree(nic)?)
        } else {
            // No fabric to size, but the ratios are still held to their range.
            crate::fabric_tree::check_ratio("oversubscription", self.oversubscription, MAX_RADIX)?;
            crate::fabric_tree::check_ratio("core_oversubscription", self.core_oversubscription, MAX_RADIX)?;
            None
        };
        let tiers = self.tiers(gpu, nic, fabric.as_ref());
        let scale_up_half = GBps(self.scale_up.line_bw(gpu).0 * (domain_gpus / 2) as f64);
        Ok(Topology {
            cluster: self.clone(),
            gpu,
            nic,
            total_gpus: total,
            domain_gpus,
            domains,
            fabric,
            tiers,
            bisection: scale_up_half,
            flow: None,
            qps_per_connection: crate::network::DEFAULT_QPS_PER_CONNECTION,
            #[cfg(any(test, feature = "calibrate"))]
            fitted,
        }
        .with_bisection(nic))
    }

    /// Every count within its range ([`limits`]), before anything is derived from them:
    /// what a file, a link and the CLI's flags are all held to.
    pub fn check_counts(&self) -> Result<()> {
        limits::NODES.check_u32(self.nodes)?;
        limits::GPUS_PER_NODE.check_u32(self.gpus_per_node)?;
        let total = self.total_gpus();
        if total > MAX_GPUS {
            return Err(ModelError::new(
                "nodes",
                format!("{total} GPUs is more than the {MAX_GPUS} the model handles; use at most {} nodes", MAX_GPUS / self.gpus_per_node),
            ));
        }
        limits::NICS_PER_NODE.check_u32(self.nics_per_node)?;
        // The power cap's bound by the GPU's own limit is `catalog::power::check_cap`'s (the
        // CLI's); a cap at or above the default changes nothing here.
        for (limit, v) in [
            (limits::LEAF_SWITCHES, self.leaf_switches),
            (limits::SPINE_SWITCHES, self.spine_switches),
            (limits::SWITCH_RADIX, self.switch_radix),
            (limits::POWER_CAP_W, self.power_cap_w),
        ] {
            if let Some(v) = v {
                limit.check_u32(v)?;
            }
        }
        Ok(())
    }

    fn check_scale_up(&self, gpu: &GpuSpec) -> Result<()> {
        let su = self.scale_up;
        let gpn = self.gpus_per_node;
        let want = nvlink_gen_of(self.gpu);
        let amd = gpu.arch.is_amd();
        if amd && !matches!(su, ScaleUp::Xgmi | ScaleUp::Pcie { .. }) {
            return Err(ModelError::new(
                "scale_up",
                format!("{} has no NVLink: use xgmi (its Infinity Fabric mesh) or a pcie fabric", gpu.name),
            ));
        }
        match su {
            ScaleUp::Xgmi => {
                if !amd {
                    return Err(ModelError::new("scale_up", "the xGMI mesh joins AMD Instinct GPUs only (--gpu mi300x, mi325x, mi355x)"));
                }
            }
            ScaleUp::NvSwitch { gen } => {
                if self.gpu.is_bridged_card() {
                    return Err(ModelError::new(
                        "scale_up",
                        "PCIe cards (h100-pcie, h100-nvl, h200-nvl) have no NVSwitch baseboard: use nvlink-bridge or a pcie fabric",
                    ));
                }
                if self.gpu.is_grace_blackwell() {
                    return Err(ModelError::new("scale_up", format!("{} comes in NVL72 racks: use --scale-up nvl72", gpu.name)));
                }
                if gen != want {
                    return Err(ModelError::new(
                        "scale_up",
                        format!("{} has NVLink{want}, not NVLink{gen}: use nvlink{want} or a pcie fabric", gpu.name),
                    ));
                }
            }
            ScaleUp::NvlinkBridge => {
                if !self.gpu.is_bridged_card() {
                    return Err(ModelError::new("scale_up", "the NVLink bridge joins PCIe cards only (--gpu h100-pcie, h100-nvl, h200-nvl)"));
                }
                if !gpn.is_multiple_of(2) {
                    return Err(ModelError::new("gpus_per_node", format!("bridged cards come in pairs: use an even count, not {gpn}")));
                }
            }
            ScaleUp::Nvl72 => {
                if !self.gpu.is_grace_blackwell() {
                    return Err(ModelError::new("scale_up", "NVL72 racks hold GB200 or GB300 GPUs only (--gpu gb200, gb300)"));
                }
                if !72u32.is_multiple_of(gpn) {
                    return Err(ModelError::new(
                        "gpus_per_node",
                        format!("an NVL72 rack splits into trays of 1, 2, 4, 8, 9, 18, 36 or 72 GPUs; {gpn} does not divide 72"),
                    ));
                }
            }
            ScaleUp::Pcie { .. } => {}
        }
        if su != ScaleUp::NvlinkBridge && su != ScaleUp::Nvl72 && gpn > su.max_domain() {
            return Err(ModelError::new(
                "gpus_per_node",
                format!("{} holds at most {} GPUs per node; got {gpn}", su.name(), su.max_domain()),
            ));
        }
        if su == ScaleUp::NvlinkBridge && gpn > 8 {
            return Err(ModelError::new("gpus_per_node", format!("a PCIe server holds at most 8 bridged cards; got {gpn}")));
        }
        Ok(())
    }

    fn fat_tree(&self, nic: &NicSpec) -> Result<FatTree> {
        let sw: &SwitchSpec = self.nic.default_switch().spec();
        let radix = self.switch_radix.unwrap_or_else(|| sw.radix_at(nic.line_rate));
        limits::SWITCH_RADIX.check_u32(radix)?;
        if let Some(l) = self.leaf_switches {
            limits::LEAF_SWITCHES.check_u32(l)?;
        }
        if let Some(s) = self.spine_switches {
            limits::SPINE_SWITCHES.check_u32(s)?;
        }
        crate::fabric_tree::size(&TreeInput {
            nodes: self.nodes,
            rails: self.nics_per_node,
            rail_optimized: self.rail_optimized,
            rail_only: self.rail_only,
            radix,
            leaves: self.leaf_switches,
            spines: self.spine_switches,
            leaf_oversubscription: self.oversubscription,
            core_oversubscription: self.core_oversubscription,
            switch: sw.name,
            hop_latency: sw.hop_latency,
        })
    }

    fn tiers(&self, gpu: &'static GpuSpec, nic: &NicSpec, fabric: Option<&FatTree>) -> Vec<Tier> {
        let su = self.scale_up;
        let mut tiers = vec![
            Tier {
                kind: TierKind::Hbm,
                name: format!("HBM ({} GB)", gpu.hbm_gb),
                bw_per_gpu: gpu.hbm_bw,
                latency: HBM_LATENCY,
                facts: hbm_facts(),
            },
            Tier {
                kind: TierKind::ScaleUp,
                name: su.name().to_string(),
                bw_per_gpu: su.line_bw(gpu),
                latency: su.latency(),
                facts: su.facts(),
            },
        ];
        let Some(f) = fabric else { return tiers };
        let gpn = self.gpus_per_node as f64;
        let nics = self.nics_per_node as f64;
        let pcie_gen = gpu.pcie.min(nic.pcie);
        // A GPU reaches the network through its own x16 link, or a share of the NICs' links.
        let pcie = pcie_line_bw(gpu.pcie).min(pcie_line_bw(pcie_gen) * (nics / gpn));
        let nic_bw = GBps(nic.line_bw().0 * nics / gpn);
        tiers.push(Tier {
            kind: TierKind::Pcie,
            name: format!("{} to NIC", pcie_gen.name()),
            bw_per_gpu: pcie,
            latency: Micros(0.5),
            facts: TierFacts {
                domain: "one host: GPU and NIC under the same PCIe switch",
                congestion_control: "PCIe credit-based flow control",
                best_fit: "carries every byte that leaves the scale-up domain",
            },
        });
        tiers.push(Tier {
            kind: TierKind::Nic,
            name: format!("{} x{}", nic.name, self.nics_per_node),
            bw_per_gpu: nic_bw,
            latency: nic.latency,
            facts: nic.facts(),
        });
        tiers.push(Tier {
            kind: TierKind::Leaf,
            // Rail-only: the leaf of each rail is the whole path; another rail's GPU is reached
            // over NVLink first (PXN), whose extra NVLink load the model does not time.
            name: if self.rail_only {
                format!("rail-only leaf: {} ({} nodes per rail switch; other rails via NVLink, not timed)", f.switch, f.nodes_per_leaf)
            } else {
                format!("leaf: {} ({} nodes per leaf)", f.switch, f.nodes_per_leaf)
            },
            bw_per_gpu: nic_bw,
            latency: nic.latency,
            facts: TierFacts {
                domain: "nodes whose NICs share a leaf switch",
                congestion_control: nic.facts().congestion_control,
                best_fit: "DP and PP among the nodes of one leaf",
            },
        });
        let three = f.cores > 0;
        if f.spines > 0 {
            tiers.push(Tier {
                kind: TierKind::Spine,
                name: format!("spine: {} x{} ({:.2}:1)", f.switch, f.spines, f.oversubscription),
                bw_per_gpu: nic_bw / f.oversubscription,
                latency: nic.latency + f.hop_latency * 2.0,
                facts: TierFacts {
                    domain: if three { "one pod: the nodes under one group of spines" } else { "the whole cluster" },
                    congestion_control: nic.facts().congestion_control,
                    best_fit: if three { "DP and PP among the nodes of one pod" } else { "DP/FSDP gradient traffic, overlapped with compute" },
                },
            });
        }
        if three {
            let o = f.core_path_oversubscription();
            tiers.push(Tier {
                kind: TierKind::Core,
                name: format!("core: {} x{} ({:.2}:1)", f.switch, f.cores, o),
                bw_per_gpu: nic_bw / o,
                latency: nic.latency + f.hop_latency * 4.0,
                facts: TierFacts {
                    domain: "the whole cluster: pods joined by core switches",
                    congestion_control: nic.facts().congestion_control,
                    best_fit: "DP/FSDP gradient traffic, overlapped with compute",
                },
            });
        }
        tiers
    }
}

/// Where a communicator's ranks sit: `ranks` GPUs, `per_domain` of them in each scale-up domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    pub ranks: u32,
    pub per_domain: u32,
}

impl Placement {
    pub fn domains(&self) -> u32 {
        self.ranks / self.per_domain.max(1)
    }
}

impl Topology {
    /// Every GPU of the cluster in one communicator.
    ///
    /// When the last NVL72 rack is partly filled, the collective runs at the pace of that
    /// rack's GPUs and NICs: the placement has that many in every domain.
    pub fn whole(&self) -> Placement {
        let last = self.last_domain_gpus();
        Placement { ranks: last * self.domains, per_domain: last }
    }

    /// GPUs in the last scale-up domain (fewer than `domain_gpus` when the last NVL72 rack is
    /// partly filled).
    pub fn last_domain_gpus(&self) -> u32 {
        self.total_gpus - (self.domains - 1) * self.domain_gpus
    }

    /// The first `ranks` GPUs in rank order (filling domains first).
    pub fn first(&self, ranks: u32) -> Placement {
        let per = ranks.min(self.domain_gpus).max(1);
        Placement { ranks, per_domain: per }
    }

    /// Checks a placement fits this cluster. Errors name the CLI's group flags
    /// (`group_ranks`, `group_per_node`); a caller that derives the placement from other
    /// inputs (a training layout) re-attributes them to those.
    pub fn check(&self, p: Placement) -> Result<()> {
        if p.ranks == 0 || p.per_domain == 0 || !p.ranks.is_multiple_of(p.per_domain) {
            return Err(ModelError::new(
                if p.ranks == 0 { "group_ranks" } else { "group_per_node" },
                format!("a group of {} GPUs cannot be split evenly with {} per domain", p.ranks, p.per_domain),
            ));
        }
        if p.per_domain > self.domain_gpus {
            return Err(ModelError::new(
                "group_per_node",
                format!("{} GPUs per domain, but a domain holds {}", p.per_domain, self.domain_gpus),
            ));
        }
        if p.domains() > self.domains {
            return Err(ModelError::new(
                "group_ranks",
                format!("the group spans {} domains; the cluster has {}", p.domains(), self.domains),
            ));
        }
        Ok(())
    }

    /// Switch hops between GPU `a` and GPU `b` (global ranks in node-major order).
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            return 0;
        }
        let (da, db) = (a / self.domain_gpus, b / self.domain_gpus);
        if da == db {
            return match self.cluster.scale_up {
                ScaleUp::NvlinkBridge if a / 2 == b / 2 => 0,
                _ => 1,
            };
        }
        let gpn = self.cluster.gpus_per_node;
        let (na, nb) = (a / gpn, b / gpn);
        // NCCL keeps traffic on its rail, so the nodes' blocks under a leaf and a pod decide.
        let top = match &self.fabric {
            Some(f) if na / f.nodes_per_leaf.max(1) == nb / f.nodes_per_leaf.max(1) => SwitchLevel::Leaf,
            Some(f) if f.cores > 0 && na / f.nodes_per_pod.max(1) != nb / f.nodes_per_pod.max(1) => SwitchLevel::Core,
            Some(_) => SwitchLevel::Spine,
            None => SwitchLevel::Leaf,
        };
        FatTree::hops_to(top)
    }

    fn nodes_per_domain(&self) -> u32 {
        (self.domain_gpus / self.cluster.gpus_per_node).max(1)
    }

    /// Domains whose traffic stays under one leaf (on their rail).
    pub fn domains_per_leaf(&self) -> u32 {
        match &self.fabric {
            Some(f) if f.leaves > 1 => (f.nodes_per_leaf / self.nodes_per_domain()).clamp(1, self.domains.max(1)),
            _ => self.domains.max(1),
        }
    }

    /// Domains whose traffic stays below the core tier (all of them below three tiers).
    pub fn domains_per_pod(&self) -> u32 {
        match &self.fabric {
            Some(f) if f.cores > 0 => (f.nodes_per_pod / self.nodes_per_domain()).clamp(1, self.domains.max(1)),
            _ => self.domains.max(1),
        }
    }

    /// The highest switch tier a group of `domains` contiguous domains crosses on its rail
    /// (`None` for one domain, or no fabric).
    pub fn top_tier_for(&self, domains: u32) -> Option<SwitchLevel> {
        match &self.fabric {
            Some(_) if domains <= 1 => None,
            Some(_) if domains <= self.domains_per_leaf() => Some(SwitchLevel::Leaf),
            Some(_) if domains <= self.domains_per_pod() => Some(SwitchLevel::Spine),
            Some(_) => Some(SwitchLevel::Core),
            None => None,
        }
    }

    /// Switch hops of the longest path in a group of `domains` contiguous domains (0, 1, 3, 5).
    pub fn hops_for(&self, domains: u32) -> u32 {
        self.top_tier_for(domains).map_or(0, FatTree::hops_to)
    }

    /// Worst down:up ratio on the path of a group of `domains` contiguous domains: 1 inside
    /// one leaf, the leaf's ratio inside one pod, leaf times spine ratio across the core.
    pub fn oversubscription_for(&self, domains: u32) -> f64 {
        match (&self.fabric, self.top_tier_for(domains)) {
            (Some(f), Some(SwitchLevel::Spine)) => f.oversubscription,
            (Some(f), Some(SwitchLevel::Core)) => f.core_path_oversubscription(),
            _ => 1.0,
        }
    }

    /// Bandwidth across the worst cut into two halves: half the NICs, through the tiers a
    /// cluster-wide group crosses; inside one domain, half its scale-up links.
    fn with_bisection(mut self, nic: &NicSpec) -> Topology {
        if self.fabric.is_some() && self.domains > 1 {
            let c = &self.cluster;
            let half = GBps(nic.line_bw().0 * (c.nodes as f64 * c.nics_per_node as f64) / 2.0);
            self.bisection = half / self.oversubscription_for(self.domains);
        }
        self
    }

    /// Per-GPU, per-direction NCCL bandwidth among `per_domain` GPUs of one domain.
    pub fn intra_nccl_bw(&self, per_domain: u32) -> (GBps, bool) {
        let su = self.cluster.scale_up;
        match su {
            // Bridged pairs talk over NVLink; larger groups in the host ring over PCIe.
            ScaleUp::NvlinkBridge if per_domain > 2 => (pcie_nccl_bw(self.gpu.pcie), false),
            // A full mesh: a GPU reaches the group's other GPUs over one link each.
            ScaleUp::Xgmi => match crate::catalog::xgmi_of(self.gpu.kind) {
                Some(x) => (GBps(x.rccl_link.0 * x.links_to(per_domain).max(1) as f64), true),
                None => (GBps(0.0), true),
            },
            _ => (su.nccl_bw(self.gpu), su.is_nvlink()),
        }
    }

    /// NICs per domain a group with `per_domain` GPUs per domain can use: the GPUs' own rails.
    pub fn nics_for(&self, per_domain: u32) -> u32 {
        let per_gpu = self.cluster.nics_per_node as f64 / self.cluster.gpus_per_node as f64;
        ((per_gpu * per_domain as f64).round() as u32).max(1)
    }

    /// Per-direction PCIe bandwidth between a GPU and its NIC, NCCL's view.
    pub fn gpu_nic_nccl_bw(&self) -> GBps {
        pcie_nccl_bw(self.gpu.pcie.min(self.nic.pcie))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_cluster_is_a_dgx_h100_pod() {
        let t = Cluster::default().topology().unwrap();
        assert_eq!(t.total_gpus, 32);
        assert_eq!(t.domain_gpus, 8);
        let su = &t.tiers[1];
        assert_eq!(su.bw_per_gpu, GBps(450.0));
        let nic = t.tiers.iter().find(|x| x.kind == TierKind::Nic).unwrap();
        assert_eq!(nic.bw_per_gpu, GBps(50.0));
        // 9x per direction between NVLink4 and one NDR NIC per GPU.
        assert_eq!(su.bw_per_gpu / nic.bw_per_gpu, 9.0);
        // 32 NICs fit one 64-port Quantum-2: one leaf, no spine.
        assert_eq!(t.fabric.unwrap().leaves, 1);
    }

    #[test]
    fn large_cluster_gets_a_non_blocking_two_level_tree() {
        let c = Cluster { nodes: 128, ..Cluster::default() };
        let t = c.topology().unwrap();
        let f = t.fabric.clone().unwrap();
        // 1024 NICs / 32 down-ports per leaf = 32 leaves; 32*32 uplinks / 64 = 16 spines.
        assert_eq!((f.leaves, f.spines, f.oversubscription), (32, 16, 1.0));
        assert_eq!(t.hops(0, 1), 1);
        assert_eq!(t.hops(0, 8), 1);
        assert!(t.hops(0, 1023) == 3);
    }

    #[test]
    fn oversubscribed_spine_is_reported() {
        // 64 NICs per leaf fill every port: no uplinks left.
        let c = Cluster { nodes: 128, leaf_switches: Some(16), spine_switches: Some(4), ..Cluster::default() };
        let e = c.topology().unwrap_err();
        assert_eq!(e.field, "leaf_switches");
        assert!(e.message.contains("none for uplinks"), "{}", e.message);
        let c = Cluster { nodes: 96, leaf_switches: Some(16), spine_switches: Some(4), ..Cluster::default() };
        let f = c.topology().unwrap().fabric.unwrap();
        // 48 down, 16 up: 3:1.
        assert_eq!((f.down_per_leaf, f.up_per_leaf), (48, 16));
        assert_eq!(f.oversubscription, 3.0);
    }

    #[test]
    fn impossible_clusters_name_what_is_short() {
        let e = Cluster { nodes: 128, leaf_switches: Some(8), ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "leaf_switches");
        assert!(e.message.contains("512 ports short"), "{}", e.message);
        let e = Cluster { gpus_per_node: 16, ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "gpus_per_node");
        let e = Cluster { gpu: GpuKind::A100, ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "scale_up");
        let e = Cluster { nic: NicKind::Roce400, sharp: true, ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "sharp");
        let e = Cluster { nics_per_node: 0, ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "nics_per_node");
        let e = Cluster { nodes: 0, ..Cluster::default() }.topology().unwrap_err();
        assert_eq!(e.field, "nodes");
    }

    #[test]
    fn nvl72_is_one_domain_per_rack() {
        let c = Cluster {
            gpu: GpuKind::Gb200,
            scale_up: ScaleUp::Nvl72,
            gpus_per_node: 4,
            nodes: 36,
            nics_per_node: 4,
            nic: NicKind::IbXdr,
            ..Cluster::default()
        };
        let t = c.topology().unwrap();
        assert_eq!((t.domain_gpus, t.domains), (72, 2));
        assert_eq!(t.hops(0, 71), 1);
        assert!(t.hops(0, 72) >= 1);
    }
}
