//! What can fail in a design, counted as its bill of materials counts it (the same fat tree:
//! `fabricscope-design`'s BOM test holds the two equal), and what each failure does to a job
//! that spans the cluster: stop it, or only slow it.

use super::rates::Component;
use crate::catalog::ScaleUp;
use crate::fabric_tree::SwitchLevel;
use crate::topology::Topology;
use serde::Serialize;

/// NVLink switch trays in a GB200/GB300 NVL72 rack (NVIDIA Mission Control docs: 9 trays).
pub const NVL72_SWITCH_TRAYS: u64 = 9;

/// Units of each component class in the design.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inventory {
    pub gpus: u64,
    /// Servers, or NVL72 compute trays.
    pub nodes: u64,
    pub nics: u64,
    /// NIC-to-leaf links (one per NIC).
    pub node_links: u64,
    /// Links between switch tiers (leaf-spine plus spine-core).
    pub fabric_links: u64,
    pub leaves: u64,
    pub spines: u64,
    pub cores: u64,
    /// NVLink switch trays (NVL72 racks only).
    pub nvlink_trays: u64,
    pub racks: u64,
    pub nics_per_node: u32,
    pub gpus_per_node: u32,
    /// Nodes that lose a NIC when one leaf fails (a leaf's rail of nodes).
    pub nodes_per_leaf: u32,
}

impl Inventory {
    pub fn of(topo: &Topology) -> Inventory {
        let c = &topo.cluster;
        let nodes = c.nodes as u64;
        let nics = nodes * c.nics_per_node as u64;
        let (mut leaves, mut spines, mut cores, mut fabric_links) = (0, 0, 0, 0);
        let mut nodes_per_leaf = 0;
        let mut node_links = 0;
        if let Some(f) = &topo.fabric {
            node_links = nics;
            nodes_per_leaf = f.nodes_per_leaf;
            let n = f.switch_tiers.len();
            for (i, t) in f.switch_tiers.iter().enumerate() {
                let switches = t.switches as u64;
                match t.tier {
                    SwitchLevel::Leaf => leaves = switches,
                    SwitchLevel::Spine => spines = switches,
                    SwitchLevel::Core => cores = switches,
                }
                if i + 1 < n {
                    fabric_links += switches * t.ports_up as u64;
                }
            }
        }
        let racks = if c.scale_up == ScaleUp::Nvl72 { topo.domains as u64 } else { 0 };
        Inventory {
            gpus: topo.total_gpus as u64,
            nodes,
            nics,
            node_links,
            fabric_links,
            leaves,
            spines,
            cores,
            nvlink_trays: racks * NVL72_SWITCH_TRAYS,
            racks,
            nics_per_node: c.nics_per_node,
            gpus_per_node: c.gpus_per_node,
            nodes_per_leaf,
        }
    }

    /// Units of a component class.
    pub fn count(&self, c: Component) -> u64 {
        match c {
            Component::Gpu | Component::Hbm | Component::Software | Component::Unknown => self.gpus,
            Component::Host | Component::Power => self.nodes,
            Component::Nic => self.nics,
            Component::Optics => self.node_links,
            Component::FabricLink => self.fabric_links,
            Component::LeafSwitch => self.leaves,
            Component::SpineSwitch => self.spines,
            Component::CoreSwitch => self.cores,
            Component::NvlinkTray => self.nvlink_trays,
        }
    }
}

/// What one failure of a component does to a synchronous job spanning the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Effect {
    /// The job stops; `nodes_out` nodes leave service until repaired (what spares must cover);
    /// `replica_recoverable` when the failure is confined to one node, so one data-parallel
    /// replica can be replaced while the others keep their state.
    Stop { nodes_out: u64, replica_recoverable: bool },
    /// The job goes on at `throughput` of its rate until the part is repaired or the job next
    /// restarts.
    Slow { throughput: f64 },
}

/// Blast radius of `c` in `inv`. `nic_failover`: a NIC (or its link) down moves the node's
/// traffic to its other NICs instead of aborting the job; `network_share` is the share of the
/// step spent in exposed scale-out traffic (what a lost NIC or spine slows).
pub fn effect(c: Component, inv: &Inventory, nic_failover: bool, network_share: f64) -> Effect {
    let share = network_share.clamp(0.0, 1.0);
    match c {
        Component::Gpu | Component::Hbm | Component::Host | Component::Power => Effect::Stop { nodes_out: 1, replica_recoverable: true },
        Component::Nic | Component::Optics => {
            if nic_failover && inv.nics_per_node > 1 {
                // The node's traffic shares its other NICs: its scale-out time grows by
                // k/(k-1), and a synchronous step waits for the slowest node.
                let k = inv.nics_per_node as f64;
                Effect::Slow { throughput: 1.0 / (1.0 + share * (k / (k - 1.0) - 1.0)) }
            } else {
                Effect::Stop { nodes_out: 1, replica_recoverable: true }
            }
        }
        // A leaf takes a NIC from each node under it: in a rail-optimized fabric that is one rail
        // of many nodes, so the job stops and those nodes wait for the leaf.
        Component::LeafSwitch => Effect::Stop { nodes_out: inv.nodes_per_leaf.max(1) as u64, replica_recoverable: false },
        // Above the leaf, routing moves flows to the tier's other switches and links: the
        // leaves' uplinks lose 1/n of their bandwidth until the repair.
        Component::SpineSwitch => slow_tier(inv.spines, share),
        Component::CoreSwitch => slow_tier(inv.cores, share),
        Component::FabricLink => slow_tier(inv.fabric_links.max(1) / inv.leaves.max(1), share),
        // An NVLink switch tray takes its rack's NVLink domain down: the job stops and the
        // rack's 18 trays wait for it.
        Component::NvlinkTray => Effect::Stop { nodes_out: 18, replica_recoverable: false },
        Component::Software | Component::Unknown => Effect::Stop { nodes_out: 0, replica_recoverable: false },
    }
}

fn slow_tier(parallel: u64, share: f64) -> Effect {
    let n = parallel.max(1) as f64;
    let lost = if n <= 1.0 { 1.0 } else { 1.0 / n };
    Effect::Slow { throughput: 1.0 / (1.0 + share * (1.0 / (1.0 - lost.min(0.999)) - 1.0)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::cluster_preset;

    #[test]
    fn a_superpod_counts_one_link_per_nic_and_every_tier() {
        let topo = cluster_preset("dgx-h100-superpod").expect("preset").cluster().topology().expect("valid");
        let inv = Inventory::of(&topo);
        assert_eq!(inv.gpus, topo.total_gpus as u64);
        assert_eq!(inv.node_links, inv.nics);
        assert!(inv.leaves > 0 && inv.spines > 0);
        assert!(inv.fabric_links >= inv.leaves);
        assert_eq!(inv.nvlink_trays, 0);
    }

    #[test]
    fn a_nic_stops_the_job_unless_it_fails_over_and_then_slows_it_less_with_more_nics() {
        let topo = cluster_preset("dgx-h100-superpod").expect("preset").cluster().topology().expect("valid");
        let inv = Inventory::of(&topo);
        assert!(matches!(effect(Component::Nic, &inv, false, 0.2), Effect::Stop { .. }));
        let Effect::Slow { throughput: t8 } = effect(Component::Nic, &inv, true, 0.2) else { panic!("slows") };
        let two = Inventory { nics_per_node: 2, ..inv.clone() };
        let Effect::Slow { throughput: t2 } = effect(Component::Nic, &two, true, 0.2) else { panic!("slows") };
        assert!(t8 > t2 && t8 < 1.0, "8 NICs {t8}, 2 NICs {t2}");
    }
}
