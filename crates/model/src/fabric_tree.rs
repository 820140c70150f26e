//! Sizes a scale-out fat tree (folded Clos) that can be wired: one leaf switch, two tiers, or
//! pods of leaves and spines under core switches, and rail planes beyond that.
//!
//! Sizing rules. A folded Clos of radix-k switches, non-blocking, gives half of each leaf's
//! ports to endpoints and half to the tier above. Two tiers join at most k leaves (each spine
//! needs a port to every leaf): k * k/2 = k^2/2 endpoints. Three tiers group k/2 leaves and
//! their spines into a pod (k^2/4 endpoints) and join at most k pods through core switches:
//! k^3/4 endpoints, with k^2/4 cores when full (Al-Fares, Loukissas and Vahdat, "A Scalable,
//! Commodity Data Center Network Architecture", SIGCOMM 2008, section 3.2). Oversubscribing a
//! tier d:u gives d of its ports to the tier below and u to the one above.
//!
//! Rails. Rail-optimized leaves carry one rail (NIC k of each node) of up to k/2 nodes; all
//! rails join at the spine, and at the core in three tiers, as the NVIDIA DGX SuperPOD H100/
//! B200 reference architectures build them (SU = 32 nodes on 8 leaves; 4 SUs = 32 leaves + 16
//! spines; 16 SUs = 128 leaves, 128 spines, 64 cores; 32 SUs = 256, 256, 128). When all NICs
//! exceed what three tiers can join, the rails are split into planes, each its own tree; NCCL
//! keeps traffic on its rail and moves it between rails over NVLink inside the node (PXN), so
//! planes need no link between them. Not rail-optimized: all of a node's NICs share a leaf and
//! every NIC is in one tree.

use crate::error::{ModelError, Result};
use crate::units::Micros;
use serde::{Deserialize, Serialize};

/// A level of switches in the fat tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchLevel {
    Leaf,
    Spine,
    Core,
}

/// One tier of switches across every plane, as built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SwitchTier {
    pub tier: SwitchLevel,
    /// Switches in this tier, all planes together.
    pub switches: u32,
    /// Ports per switch at the NIC rate.
    pub radix: u32,
    /// Ports facing down (NICs at the leaf) on the busiest switch of the tier.
    pub ports_down: u32,
    /// Ports facing the tier above on that switch (0 at the top tier).
    pub ports_up: u32,
    /// Down:up bandwidth ratio at this tier (1 = non-blocking; the top tier is 1).
    pub oversubscription: f64,
}

/// The scale-out fabric as built.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FatTree {
    /// Switch tiers, bottom-up: leaf, then spine, then core.
    pub switch_tiers: Vec<SwitchTier>,
    /// Separate trees the fabric is made of (rail planes); 1 = every NIC in one tree.
    pub planes: u32,
    /// NIC rails of every node in each plane.
    pub rails_per_plane: u32,
    pub leaves: u32,
    /// Spine switches (0 with one leaf per plane).
    pub spines: u32,
    /// Core switches (0 below three tiers).
    pub cores: u32,
    /// Ports per switch at the NIC rate.
    pub radix: u32,
    /// NIC-facing ports used on the busiest leaf.
    pub down_per_leaf: u32,
    /// Spine-facing ports per leaf.
    pub up_per_leaf: u32,
    /// Down:up bandwidth ratio at the leaf (1 = non-blocking).
    pub oversubscription: f64,
    /// Nodes whose same-rail NICs meet under one leaf (traffic among them never reaches a spine).
    pub nodes_per_leaf: u32,
    /// Nodes whose same-rail NICs meet under one pod's spines (traffic among them never
    /// reaches a core); every node below three tiers.
    pub nodes_per_pod: u32,
    pub switch: &'static str,
    pub hop_latency: Micros,
}

impl FatTree {
    /// The tier at `level`, if the tree has one.
    pub fn tier(&self, level: SwitchLevel) -> Option<&SwitchTier> {
        self.switch_tiers.iter().find(|t| t.tier == level)
    }

    /// Down:up ratio at the spine (into the core); 1 below three tiers.
    pub fn spine_oversubscription(&self) -> f64 {
        match self.tier(SwitchLevel::Core) {
            Some(_) => self.tier(SwitchLevel::Spine).map_or(1.0, |t| t.oversubscription),
            None => 1.0,
        }
    }

    /// Share of a NIC's bandwidth left to traffic that crosses the core, as a ratio (leaf
    /// ratio times spine ratio: the core sees the pod's NICs through both).
    pub fn core_path_oversubscription(&self) -> f64 {
        self.oversubscription * self.spine_oversubscription()
    }

    /// Switch hops of a path that climbs to `level` and back down (1, 3 or 5).
    pub fn hops_to(level: SwitchLevel) -> u32 {
        match level {
            SwitchLevel::Leaf => 1,
            SwitchLevel::Spine => 3,
            SwitchLevel::Core => 5,
        }
    }

    pub fn total_switches(&self) -> u32 {
        self.switch_tiers.iter().map(|t| t.switches).sum()
    }
}

/// What the sizing needs from a cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeInput {
    pub nodes: u32,
    /// NICs per node, at least 1.
    pub rails: u32,
    pub rail_optimized: bool,
    /// Every rail its own tree (no switch joins two rails).
    pub rail_only: bool,
    pub radix: u32,
    pub leaves: Option<u32>,
    pub spines: Option<u32>,
    /// Down:up at the leaf.
    pub leaf_oversubscription: Option<f64>,
    /// Down:up at the spine of a three-tier tree.
    pub core_oversubscription: Option<f64>,
    pub switch: &'static str,
    pub hop_latency: Micros,
}

/// Splits `k` ports into (down, up) for a down:up ratio of at most `o`.
fn split(k: u32, o: f64) -> (u32, u32) {
    let down = ((k as f64 * o / (1.0 + o)).floor() as u32).clamp(1, k - 1);
    (down, up_for(k, down, o))
}

/// Uplinks a switch with `down` ports in use needs for a ratio of at most `o`.
fn up_for(k: u32, down: u32, o: f64) -> u32 {
    ((down as f64 / o).ceil() as u32).clamp(1, k.saturating_sub(down).max(1))
}

fn ratio(down: u32, up: u32) -> f64 {
    if up == 0 {
        1.0
    } else {
        (down as f64 / up as f64).max(1.0)
    }
}

/// A down:up ratio as entered: 1 (non-blocking) to k - 1 (one uplink); `None` is 1.
pub(crate) fn check_ratio(field: &'static str, v: Option<f64>, k: u32) -> Result<f64> {
    let Some(o) = v else { return Ok(1.0) };
    let max = (k - 1) as f64;
    if !o.is_finite() || !(1.0..=max).contains(&o) {
        return Err(ModelError::new(
            field,
            format!("the down:up ratio must be between 1 (non-blocking) and {max} for {k}-port switches; got {o}"),
        ));
    }
    Ok(o)
}

/// Smallest even radix whose three-tier tree joins `nics` endpoints (k^3/4 >= nics).
fn radix_for_three_tiers(nics: u64) -> u64 {
    let mut k = 4u64;
    while k * k * k / 4 < nics {
        k += 2;
    }
    k
}

/// Sizes the fat tree: automatically, or from the user's leaf and spine counts.
pub fn size(t: &TreeInput) -> Result<FatTree> {
    let k = t.radix;
    let o_leaf = check_ratio("oversubscription", t.leaf_oversubscription, k)?;
    let o_core = check_ratio("core_oversubscription", t.core_oversubscription, k)?;
    if t.leaves.is_some() || t.spines.is_some() {
        if t.spines.is_some() && t.leaf_oversubscription.is_some() {
            return Err(ModelError::new(
                "oversubscription",
                "the spine switch count already fixes the leaf's down:up ratio: leave spine_switches or oversubscription on auto",
            ));
        }
        return two_tier_by_count(t, o_leaf);
    }
    if t.rail_only {
        if !t.rail_optimized || t.leaves.is_some() || t.spines.is_some() {
            return Err(ModelError::new(
                "rail_only",
                "a rail-only fabric puts NIC k of every node on rail k's own switches: it needs rail_optimized and leaf and spine counts on auto",
            ));
        }
        // One plane per rail: no spine joins two rails.
        return plane(t, t.rails, 1, o_leaf, o_core);
    }
    if !t.rail_optimized {
        return plane(t, 1, t.rails, o_leaf, o_core);
    }
    // Fewest rail planes (a divisor of the rail count) whose trees each fit in three tiers.
    let mut last = None;
    for planes in (1..=t.rails).filter(|p| t.rails.is_multiple_of(*p)) {
        match plane(t, planes, t.rails / planes, o_leaf, o_core) {
            Ok(f) => return Ok(f),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| ModelError::new("nics_per_node", "a fat tree needs at least one NIC per node")))
}

/// The leaves of one plane.
struct LeafLayout {
    leaves: u32,
    /// NIC ports used on the busiest leaf.
    down: u32,
    nodes_per_leaf: u32,
    /// Rail-optimized with more nodes than a leaf holds: blocks of `nodes_per_leaf` nodes,
    /// each on one leaf per rail.
    blocks: Option<u32>,
}

fn leaf_layout(t: &TreeInput, rails: u32, d: u32) -> Result<LeafLayout> {
    let n = t.nodes;
    if t.rail_optimized {
        if n <= d {
            // Few nodes: a leaf carries whole rails.
            let rails_per_leaf = (d / n).clamp(1, rails);
            return Ok(LeafLayout { leaves: rails.div_ceil(rails_per_leaf), down: rails_per_leaf * n, nodes_per_leaf: n, blocks: None });
        }
        // Nodes spread evenly over the blocks, so each leaf's uplinks are sized for the NICs it
        // has (32 nodes per leaf at 2:1 on 64 ports, not 42 ports' worth: 2:1 is 2:1).
        let blocks = n.div_ceil(d);
        let per = n.div_ceil(blocks);
        return Ok(LeafLayout { leaves: blocks * rails, down: per, nodes_per_leaf: per, blocks: Some(blocks) });
    }
    if rails > d {
        return Err(ModelError::new(
            "switch_radix",
            format!(
                "without rail optimization a node's {rails} NICs share one leaf, but a {}-port leaf has {d} ports for NICs at this oversubscription: use a radix of at least {}, rail_optimized, or a higher oversubscription",
                t.radix,
                2 * rails
            ),
        ));
    }
    let leaves = n.div_ceil(d / rails);
    // As even as whole nodes allow (the busiest leaf sets the uplinks of every leaf).
    let per = n.div_ceil(leaves);
    Ok(LeafLayout { leaves, down: per * rails, nodes_per_leaf: per, blocks: None })
}

/// One plane of `rails` rails per node, replicated `planes` times.
fn plane(t: &TreeInput, planes: u32, rails: u32, o_leaf: f64, o_core: f64) -> Result<FatTree> {
    let k = t.radix;
    let nics = t.nodes as u64 * rails as u64;
    let base = FatTree {
        switch_tiers: Vec::new(),
        planes,
        rails_per_plane: rails,
        leaves: planes,
        spines: 0,
        cores: 0,
        radix: k,
        down_per_leaf: nics as u32,
        up_per_leaf: 0,
        oversubscription: 1.0,
        nodes_per_leaf: t.nodes,
        nodes_per_pod: t.nodes,
        switch: t.switch,
        hop_latency: t.hop_latency,
    };
    if nics <= k as u64 {
        return Ok(finish(base, None, None));
    }
    let (d, _) = split(k, o_leaf);
    let lay = leaf_layout(t, rails, d)?;
    let u = up_for(k, lay.down, o_leaf);
    let leaf = SwitchTier {
        tier: SwitchLevel::Leaf,
        switches: lay.leaves * planes,
        radix: k,
        ports_down: lay.down,
        ports_up: u,
        oversubscription: ratio(lay.down, u),
    };
    let tree = FatTree {
        leaves: leaf.switches,
        down_per_leaf: lay.down,
        up_per_leaf: u,
        oversubscription: leaf.oversubscription,
        nodes_per_leaf: lay.nodes_per_leaf,
        ..base
    };
    if lay.leaves <= k {
        // Two tiers: every spine has a port to every leaf.
        let links = lay.leaves as u64 * u as u64;
        let spine = top_tier(SwitchLevel::Spine, k, links.div_ceil(k as u64) as u32, links, planes);
        return Ok(finish(tree, Some(leaf), Some((spine, None))));
    }
    // Three tiers: pods of leaves whose spines each reach every leaf of the pod.
    let (ds, _) = split(k, o_core);
    let (leaves_per_pod, pods, nodes_per_pod) = match lay.blocks {
        Some(blocks) => {
            let blocks_per_pod = ds / rails;
            if blocks_per_pod == 0 {
                return Err(too_big(t, nics, planes));
            }
            (blocks_per_pod * rails, blocks.div_ceil(blocks_per_pod), blocks_per_pod * lay.nodes_per_leaf)
        }
        None => (ds, lay.leaves.div_ceil(ds), ds * lay.nodes_per_leaf),
    };
    if pods > k {
        return Err(too_big(t, nics, planes));
    }
    let last_pod = lay.leaves - (pods - 1) * leaves_per_pod;
    let spines_for = |leaves: u32| (leaves as u64 * u as u64).div_ceil(ds as u64) as u32;
    let spp = spines_for(leaves_per_pod.min(lay.leaves));
    let spines = (pods - 1) * spp + spines_for(last_pod);
    let spine_down = (leaves_per_pod.min(lay.leaves) as u64 * u as u64).div_ceil(spp as u64) as u32;
    let us = up_for(k, spine_down, o_core);
    let core_links = spines as u64 * us as u64;
    let spine = SwitchTier {
        tier: SwitchLevel::Spine,
        switches: spines * planes,
        radix: k,
        ports_down: spine_down,
        ports_up: us,
        oversubscription: ratio(spine_down, us),
    };
    let core = top_tier(SwitchLevel::Core, k, core_links.div_ceil(k as u64) as u32, core_links, planes);
    Ok(finish(FatTree { nodes_per_pod: nodes_per_pod.min(t.nodes), ..tree }, Some(leaf), Some((spine, Some(core)))))
}

/// The top tier of one plane: `switches` switches with every port facing down, sharing
/// `links` links from the tier below; replicated over `planes`.
fn top_tier(tier: SwitchLevel, k: u32, switches: u32, links: u64, planes: u32) -> SwitchTier {
    SwitchTier {
        tier,
        switches: switches * planes,
        radix: k,
        ports_down: links.div_ceil(switches.max(1) as u64) as u32,
        ports_up: 0,
        oversubscription: 1.0,
    }
}

fn too_big(t: &TreeInput, nics: u64, planes: u32) -> ModelError {
    let k = t.radix as u64;
    let what = if t.rail_optimized && planes > 1 {
        format!("each rail of {} nodes", t.nodes)
    } else {
        format!("{nics} NICs ({} nodes x {})", t.nodes, t.rails)
    };
    ModelError::new(
        "switch_radix",
        format!(
            "{what} is more than a three-tier tree of {k}-port switches joins ({} at most, k^3/4): use a radix of at least {}{}",
            k * k * k / 4,
            radix_for_three_tiers(nics),
            if t.rail_optimized { "" } else { ", or rail_optimized (one tree per rail group)" }
        ),
    )
}

/// Fills in the tier list and the summary counts.
fn finish(mut f: FatTree, leaf: Option<SwitchTier>, upper: Option<(SwitchTier, Option<SwitchTier>)>) -> FatTree {
    let leaf = leaf.unwrap_or(SwitchTier {
        tier: SwitchLevel::Leaf,
        switches: f.leaves,
        radix: f.radix,
        ports_down: f.down_per_leaf,
        ports_up: 0,
        oversubscription: 1.0,
    });
    f.switch_tiers = vec![leaf];
    if let Some((spine, core)) = upper {
        f.spines = spine.switches;
        f.switch_tiers.push(spine);
        if let Some(core) = core {
            f.cores = core.switches;
            f.switch_tiers.push(core);
        }
    }
    f
}

/// Two tiers from the user's leaf and/or spine counts (one tree of every NIC).
fn two_tier_by_count(t: &TreeInput, o_leaf: f64) -> Result<FatTree> {
    let k = t.radix;
    let rails = t.rails;
    let nics = t.nodes as u64 * rails as u64;
    let half = k / 2;
    let leaves = match t.leaves {
        Some(l) => l,
        None if nics <= k as u64 => 1,
        None => {
            let (d, _) = split(k, o_leaf);
            let auto = leaf_layout(t, rails, d)?.leaves;
            if auto > k {
                return Err(ModelError::new(
                    "spine_switches",
                    format!(
                        "{nics} NICs need {auto} leaves, more than the {k} one spine tier of {k}-port switches can join; a three-tier tree sizes its spines with its pods: leave spine_switches on auto"
                    ),
                ));
            }
            auto
        }
    };
    let down = nics.div_ceil(leaves as u64);
    if down > k as u64 {
        let need = nics.div_ceil(half.max(1) as u64);
        return Err(ModelError::new(
            "leaf_switches",
            format!(
                "{leaves} leaf switch{} of {k} ports cannot host {nics} NICs ({} nodes x {rails}): {} ports short; use at least {need} leaf switches (half their ports for NICs) or a larger radix",
                if leaves == 1 { "" } else { "es" },
                t.nodes,
                nics - leaves as u64 * k as u64,
            ),
        ));
    }
    let down = down as u32;
    let nodes_per_leaf = if leaves == 1 {
        t.nodes
    } else if t.rail_optimized {
        (down / rails.div_ceil(leaves).max(1)).clamp(1, t.nodes)
    } else {
        (down / rails.max(1)).clamp(1, t.nodes)
    };
    let mut f = FatTree {
        switch_tiers: Vec::new(),
        planes: 1,
        rails_per_plane: rails,
        leaves,
        spines: 0,
        cores: 0,
        radix: k,
        down_per_leaf: down,
        up_per_leaf: 0,
        oversubscription: 1.0,
        nodes_per_leaf,
        nodes_per_pod: t.nodes,
        switch: t.switch,
        hop_latency: t.hop_latency,
    };
    if leaves == 1 {
        if let Some(s @ 1..) = t.spines {
            return Err(ModelError::new(
                "spine_switches",
                format!("one leaf switch reaches every NIC itself, so {s} spine switch{} would join nothing: use 0 spines, or at least 2 leaf switches", if s == 1 { "" } else { "es" }),
            ));
        }
        return Ok(finish(f, None, None));
    }
    if leaves > k {
        return Err(ModelError::new(
            "leaf_switches",
            format!(
                "a two-tier tree of {k}-port switches joins at most {k} leaves (each spine needs a port to every leaf); got {leaves}: use at most {k}, or leave leaf_switches and spine_switches on auto for a three-tier tree"
            ),
        ));
    }
    let free = k - down;
    if free == 0 {
        return Err(ModelError::new(
            "leaf_switches",
            format!(
                "each leaf uses all {k} ports for NICs, leaving none for uplinks: use at least {} leaf switches",
                nics.div_ceil(half.max(1) as u64)
            ),
        ));
    }
    let want_up = up_for(k, down, o_leaf).min(free);
    let spines = match t.spines {
        Some(0) => {
            return Err(ModelError::new(
                "spine_switches",
                format!("{leaves} leaf switches need spine switches to reach each other: use at least {}", (leaves as u64 * want_up as u64).div_ceil(k as u64)),
            ))
        }
        Some(s) if s > free => {
            return Err(ModelError::new(
                "spine_switches",
                format!("each leaf has {free} ports left for uplinks, so it reaches at most {free} spine switches; got {s}: use between {} and {free}", leaves.div_ceil(k).max(1)),
            ))
        }
        Some(s) => s,
        None => (leaves as u64 * want_up as u64).div_ceil(k as u64) as u32,
    };
    // The user's spines take every uplink they can reach; auto spines only the ratio's.
    let reach = (spines as u64 * k as u64 / leaves as u64) as u32;
    let up = reach.min(if t.spines.is_some() { free } else { want_up });
    if up == 0 {
        return Err(ModelError::new(
            "spine_switches",
            format!("{spines} spine switches of {k} ports cannot give each of {leaves} leaves an uplink: use at least {}", leaves.div_ceil(k)),
        ));
    }
    let leaf = SwitchTier { tier: SwitchLevel::Leaf, switches: leaves, radix: k, ports_down: down, ports_up: up, oversubscription: ratio(down, up) };
    let spine = top_tier(SwitchLevel::Spine, k, spines, leaves as u64 * up as u64, 1);
    f.up_per_leaf = up;
    f.oversubscription = leaf.oversubscription;
    Ok(finish(f, Some(leaf), Some((spine, None))))
}
