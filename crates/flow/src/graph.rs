//! The directed-link graph of a Clos as built: every NIC port, leaf, spine and core switch,
//! and every physical link in each direction, wired from the fat tree the model sizes.
//!
//! Wiring. NICs fill leaves in the model's order: rail-optimized, a leaf holds one rail (or a
//! few whole rails) of a block of `nodes_per_leaf` nodes; otherwise all NICs of
//! `nodes_per_leaf` whole nodes. Uplink `u` of the `i`-th leaf of a pod goes to spine
//! `(i * up + u) mod spines`, so a leaf reaches every spine of its pod, with parallel links
//! when it has more uplinks than there are spines (each kept as its own link, as ECMP sees
//! it). Uplink `v` of spine `j` goes to core `(j * spine_up + v) mod cores`, the k-ary
//! fat-tree pattern (Al-Fares et al., SIGCOMM 2008): core groups reach the same spine
//! position in every pod. A pod's spines are the plane's spines split evenly (the last pod
//! takes the rest), which is how `fabric_tree` counts them.

use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::topology::{SwitchLevel, Topology};
use fabricscope_model::units::GBps;
use serde::Serialize;

/// Where a directed link sits in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkTier {
    NicToLeaf,
    LeafToNic,
    LeafToSpine,
    SpineToLeaf,
    SpineToCore,
    CoreToSpine,
}

impl LinkTier {
    /// A switch-to-switch link (ECMP and adaptive routing choose among these).
    pub fn is_fabric(self) -> bool {
        !matches!(self, LinkTier::NicToLeaf | LinkTier::LeafToNic)
    }

    /// The tier a user would name: "nic", "leaf-spine" or "spine-core".
    pub fn label(self) -> &'static str {
        match self {
            LinkTier::NicToLeaf | LinkTier::LeafToNic => "nic",
            LinkTier::LeafToSpine | LinkTier::SpineToLeaf => "leaf-spine",
            LinkTier::SpineToCore | LinkTier::CoreToSpine => "spine-core",
        }
    }
}

/// One direction of one physical link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Switch id, or NIC id for [`LinkTier::NicToLeaf`].
    pub from: u32,
    /// Switch id, or NIC id for [`LinkTier::LeafToNic`].
    pub to: u32,
    /// Capacity in this direction.
    pub cap: GBps,
    pub tier: LinkTier,
    /// False once failed: no capacity, no route.
    pub alive: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Switch {
    pub level: SwitchLevel,
    pub plane: u32,
    pub pod: u32,
}

/// What the graph needs from a fat tree: counts per plane and per leaf. Build it from a
/// checked [`Topology`] with [`ClosSpec::from_topology`], or write one by hand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClosSpec {
    pub nodes: u32,
    /// NICs (rails) per node.
    pub nics_per_node: u32,
    /// Every port's rate per direction (switch ports run at the NIC rate, as `fabric_tree`).
    #[serde(rename = "line_GBps_per_direction")]
    pub line: GBps,
    pub rail_optimized: bool,
    /// Separate trees; rail `r` is in plane `r / rails_per_plane`.
    pub planes: u32,
    pub rails_per_plane: u32,
    pub leaves_per_plane: u32,
    /// NIC ports on the busiest leaf.
    pub down_per_leaf: u32,
    /// Spine-facing ports per leaf (0 with one leaf per plane).
    pub up_per_leaf: u32,
    pub nodes_per_leaf: u32,
    pub spines_per_plane: u32,
    /// Core-facing ports per spine (0 below three tiers).
    pub spine_up: u32,
    pub cores_per_plane: u32,
    /// Nodes under one pod's spines (every node below three tiers).
    pub nodes_per_pod: u32,
}

impl ClosSpec {
    /// A hand-written two-tier tree, not rail-optimized: `leaves` leaves of `nodes_per_leaf`
    /// nodes with `nics` NICs each, `spines` spines, `up_per_leaf` uplinks a leaf, ports at `line`.
    pub fn two_tier(leaves: u32, nodes_per_leaf: u32, nics: u32, spines: u32, up_per_leaf: u32, line: GBps) -> ClosSpec {
        ClosSpec {
            nodes: leaves * nodes_per_leaf,
            nics_per_node: nics,
            line,
            rail_optimized: false,
            planes: 1,
            rails_per_plane: nics,
            leaves_per_plane: leaves,
            down_per_leaf: nodes_per_leaf * nics,
            up_per_leaf,
            nodes_per_leaf,
            spines_per_plane: spines,
            spine_up: 0,
            cores_per_plane: 0,
            nodes_per_pod: leaves * nodes_per_leaf,
        }
    }

    /// The fat tree `fabric_tree` sized for this cluster.
    pub fn from_topology(t: &Topology) -> Result<ClosSpec> {
        let f = t.fabric.as_ref().ok_or_else(|| {
            ModelError::new("nics_per_node", "one scale-up domain without NICs has no scale-out fabric to route flows over")
        })?;
        let c = &t.cluster;
        let spine_up = match f.tier(SwitchLevel::Core) {
            Some(_) => f.tier(SwitchLevel::Spine).map_or(0, |s| s.ports_up),
            None => 0,
        };
        Ok(ClosSpec {
            nodes: c.nodes,
            nics_per_node: c.nics_per_node,
            line: t.nic.line_rate.to_gbytes(),
            rail_optimized: c.rail_optimized,
            planes: f.planes.max(1),
            rails_per_plane: f.rails_per_plane.max(1),
            leaves_per_plane: f.leaves / f.planes.max(1),
            down_per_leaf: f.down_per_leaf,
            up_per_leaf: f.up_per_leaf,
            nodes_per_leaf: f.nodes_per_leaf.max(1),
            spines_per_plane: f.spines / f.planes.max(1),
            spine_up,
            cores_per_plane: f.cores / f.planes.max(1),
            nodes_per_pod: f.nodes_per_pod.max(1),
        })
    }
}

/// The graph: switches, directed links, and where each NIC plugs in.
#[derive(Clone, Debug)]
pub struct Fabric {
    pub spec: ClosSpec,
    pub switches: Vec<Switch>,
    pub links: Vec<Link>,
    /// Leaf switch of NIC `node * nics_per_node + rail`.
    pub nic_leaf: Vec<u32>,
    /// Link NIC -> leaf, per NIC.
    pub nic_up: Vec<u32>,
    /// Link leaf -> NIC, per NIC.
    pub nic_down: Vec<u32>,
    /// Switch-to-switch links leaving each switch.
    pub out: Vec<Vec<u32>>,
    /// Switch-to-switch links entering each switch.
    pub inn: Vec<Vec<u32>>,
    /// Leaf -> spine links of each leaf (failures take these down).
    pub uplinks: Vec<Vec<u32>>,
    /// Spine ids per plane, pod by pod.
    pub spines: Vec<u32>,
}

impl Fabric {
    pub fn nics(&self) -> u32 {
        self.spec.nodes * self.spec.nics_per_node
    }

    pub fn nic(&self, node: u32, rail: u32) -> u32 {
        node * self.spec.nics_per_node + rail
    }

    pub fn plane_of_rail(&self, rail: u32) -> u32 {
        rail / self.spec.rails_per_plane.max(1)
    }

    fn add_switch(&mut self, level: SwitchLevel, plane: u32, pod: u32) -> u32 {
        self.switches.push(Switch { level, plane, pod });
        self.out.push(Vec::new());
        self.inn.push(Vec::new());
        self.uplinks.push(Vec::new());
        self.switches.len() as u32 - 1
    }

    /// Both directions of a switch-to-switch link (`lo` below `hi`).
    fn wire(&mut self, lo: u32, hi: u32, up: LinkTier, down: LinkTier) {
        let cap = self.spec.line;
        for (from, to, tier) in [(lo, hi, up), (hi, lo, down)] {
            let id = self.links.len() as u32;
            self.links.push(Link { from, to, cap, tier, alive: true });
            self.out[from as usize].push(id);
            self.inn[to as usize].push(id);
        }
        if up == LinkTier::LeafToSpine {
            let id = self.links.len() as u32 - 2;
            self.uplinks[lo as usize].push(id);
        }
    }

    /// Builds every switch and link of `spec`.
    pub fn build(spec: ClosSpec) -> Result<Fabric> {
        check(&spec)?;
        let nics = (spec.nodes * spec.nics_per_node) as usize;
        let mut f = Fabric {
            spec,
            switches: Vec::new(),
            links: Vec::new(),
            nic_leaf: vec![0; nics],
            nic_up: vec![0; nics],
            nic_down: vec![0; nics],
            out: Vec::new(),
            inn: Vec::new(),
            uplinks: Vec::new(),
            spines: Vec::new(),
        };
        for plane in 0..f.spec.planes {
            f.build_plane(plane)?;
        }
        // NIC links last, so switch-to-switch ids come first (cheaper scans of the fabric).
        for nic in 0..nics {
            let leaf = f.nic_leaf[nic];
            let cap = f.spec.line;
            f.nic_up[nic] = f.links.len() as u32;
            f.links.push(Link { from: nic as u32, to: leaf, cap, tier: LinkTier::NicToLeaf, alive: true });
            f.nic_down[nic] = f.links.len() as u32;
            f.links.push(Link { from: leaf, to: nic as u32, cap, tier: LinkTier::LeafToNic, alive: true });
        }
        Ok(f)
    }

    fn build_plane(&mut self, plane: u32) -> Result<()> {
        let s = self.spec.clone();
        let npl = s.nodes_per_leaf.max(1);
        let rpl = s.rails_per_plane;
        let rails_per_leaf = if s.rail_optimized { (s.down_per_leaf / npl).clamp(1, rpl) } else { rpl };
        // (block, rail group, node, rail) for rail-optimized leaves; (block, node, rail) else.
        let mut order: Vec<(u32, u32, u32, u32)> = Vec::with_capacity((s.nodes * rpl) as usize);
        for node in 0..s.nodes {
            for lr in 0..rpl {
                let group = if s.rail_optimized { lr / rails_per_leaf } else { 0 };
                order.push((node / npl, group, node, lr));
            }
        }
        order.sort_unstable();
        let pods = if s.cores_per_plane > 0 { s.nodes.div_ceil(s.nodes_per_pod).max(1) } else { 1 };
        // Leaves in order, each with its pod.
        let mut leaves: Vec<u32> = Vec::new();
        let mut fill = 0;
        let mut last_key = None;
        for &(block, group, node, lr) in &order {
            let key = (block, group);
            if last_key != Some(key) || fill == s.down_per_leaf.max(1) {
                if leaves.len() as u32 == s.leaves_per_plane.max(1) {
                    return Err(ModelError::new(
                        "leaf_switches",
                        format!("the flow model cannot place {} NICs per plane on {} leaves of {} NIC ports", s.nodes * rpl, s.leaves_per_plane, s.down_per_leaf),
                    ));
                }
                let pod = if pods > 1 { node / s.nodes_per_pod } else { 0 };
                leaves.push(self.add_switch(SwitchLevel::Leaf, plane, pod));
                fill = 0;
                last_key = Some(key);
            }
            fill += 1;
            let nic = (node * s.nics_per_node + plane * rpl + lr) as usize;
            self.nic_leaf[nic] = *leaves.last().unwrap_or(&0);
        }
        if s.spines_per_plane == 0 {
            return Ok(());
        }
        // Spines, pod by pod; then leaf uplinks.
        let per_pod = s.spines_per_plane.div_ceil(pods);
        let mut pod_spines: Vec<Vec<u32>> = Vec::new();
        for pod in 0..pods {
            let n = per_pod.min(s.spines_per_plane.saturating_sub(pod * per_pod)).max(1);
            let ids: Vec<u32> = (0..n).map(|_| self.add_switch(SwitchLevel::Spine, plane, pod)).collect();
            self.spines.extend(&ids);
            pod_spines.push(ids);
        }
        let mut index_in_pod = vec![0u32; pods as usize];
        for &leaf in &leaves {
            let pod = self.switches[leaf as usize].pod as usize;
            let i = index_in_pod[pod];
            index_in_pod[pod] += 1;
            let sp = &pod_spines[pod];
            for u in 0..s.up_per_leaf {
                let spine = sp[((i * s.up_per_leaf + u) % sp.len() as u32) as usize];
                self.wire(leaf, spine, LinkTier::LeafToSpine, LinkTier::SpineToLeaf);
            }
        }
        if s.cores_per_plane == 0 {
            return Ok(());
        }
        let cores: Vec<u32> = (0..s.cores_per_plane).map(|_| self.add_switch(SwitchLevel::Core, plane, 0)).collect();
        for sp in &pod_spines {
            for (j, &spine) in sp.iter().enumerate() {
                for v in 0..s.spine_up {
                    let core = cores[((j as u32 * s.spine_up + v) % s.cores_per_plane) as usize];
                    self.wire(spine, core, LinkTier::SpineToCore, LinkTier::CoreToSpine);
                }
            }
        }
        Ok(())
    }
}

/// Counts a graph can be built from (a hand-written spec is held to the same as a sized one).
fn check(s: &ClosSpec) -> Result<()> {
    let bad = |field: &'static str, what: String| Err(ModelError::new(field, what));
    if s.nodes == 0 {
        return bad("nodes", "the flow model needs at least 1 node".into());
    }
    if s.nics_per_node == 0 {
        return bad("nics_per_node", "the flow model routes over NICs: use at least 1 NIC per node".into());
    }
    if s.planes * s.rails_per_plane != s.nics_per_node {
        return bad("nics_per_node", format!("{} planes of {} rails do not make {} NICs per node", s.planes, s.rails_per_plane, s.nics_per_node));
    }
    if !(s.line.0.is_finite() && s.line.0 > 0.0) {
        return bad("nic", format!("a port needs a positive line rate; got {} GB/s", s.line.0));
    }
    if s.leaves_per_plane > 1 && (s.spines_per_plane == 0 || s.up_per_leaf == 0) {
        return bad("spine_switches", format!("{} leaves per plane need spines and uplinks to reach each other", s.leaves_per_plane));
    }
    // Keeps a hand-written spec from asking for a graph larger than the model's largest cluster.
    let links = s.nodes as u64 * s.nics_per_node as u64 * 6;
    if links > 4_000_000 {
        return bad("nodes", format!("{} NICs is more than the flow model handles (at most about 600,000)", s.nodes as u64 * s.nics_per_node as u64));
    }
    Ok(())
}
