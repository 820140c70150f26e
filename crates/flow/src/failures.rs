//! Failures as capacity edits: NICs down on one node (NCCL moves their traffic to the node's
//! surviving NICs over NVLink), leaf-spine links down or degraded, spines down.

use crate::graph::{Fabric, LinkTier};
use crate::traffic::Demand;
use fabricscope_model::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

/// The smallest speed or capacity factor taken (dimensionless): a link or GPU at 0.1% of its
/// rate. Below it a time divided by the factor leaves f64's range (5e-324 gives inf), and no
/// throttled GPU or degraded link runs that slowly and stays in the job.
pub const MIN_FACTOR: f64 = 1e-3;

/// What is broken, and where.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failures {
    /// NICs down on one node (the job's first): rails 0..K.
    pub nics_down: u32,
    /// Leaf-to-spine links down (both directions), all on the leaf of the job's first NIC.
    pub links_down: u32,
    /// Spine switches down, the first of the job's plane and pod.
    pub spines_down: u32,
    /// Leaf-to-spine links running below their rate (both directions), on the leaf of the
    /// job's first NIC, after the links down: a port negotiated down, a dirty optic.
    pub degraded_links: u32,
    /// The capacity a degraded link keeps (dimensionless, from `MIN_FACTOR` to 1).
    pub degraded_factor: f64,
}

impl Default for Failures {
    fn default() -> Self {
        Failures { nics_down: 0, links_down: 0, spines_down: 0, degraded_links: 0, degraded_factor: 1.0 }
    }
}

/// `degraded_factor` is checked finite, so equality is total.
impl Eq for Failures {}

impl Failures {
    pub fn any(&self) -> bool {
        self.nics_down + self.links_down + self.spines_down > 0 || self.degraded()
    }

    /// Some link runs below its rate.
    pub fn degraded(&self) -> bool {
        self.degraded_links > 0 && self.degraded_factor < 1.0
    }

    /// Checks the counts against the fabric: a node keeps a NIC, a leaf an uplink, a pod a spine.
    pub fn check(&self, fab: &Fabric, node: u32) -> Result<()> {
        let r = fab.spec.nics_per_node;
        if self.nics_down >= r {
            return Err(ModelError::new(
                "nics_down",
                format!("a node has {r} NICs; with {} down it is cut off: use 0 to {}", self.nics_down, r - 1),
            ));
        }
        let leaf = fab.nic_leaf[fab.nic(node, 0) as usize] as usize;
        let up = fab.uplinks[leaf].len() as u32;
        if self.links_down > 0 && up == 0 {
            return Err(ModelError::new("links_down", "this fabric has no leaf-spine links (one leaf per plane): use 0"));
        }
        if self.links_down >= up.max(1) && self.links_down > 0 {
            return Err(ModelError::new(
                "links_down",
                format!("the job's first leaf has {up} uplinks; with {} down it is cut off: use 0 to {}", self.links_down, up - 1),
            ));
        }
        if !(self.degraded_factor >= MIN_FACTOR && self.degraded_factor <= 1.0) {
            return Err(ModelError::new(
                "degraded_factor",
                format!("a degraded link keeps a share of its capacity from {MIN_FACTOR} to 1; got {}", self.degraded_factor),
            ));
        }
        if self.degraded_links > 0 && self.links_down + self.degraded_links > up {
            return Err(ModelError::new(
                "degraded_links",
                format!("the job's first leaf has {up} uplinks, {} of them down: use 0 to {} degraded links", self.links_down, up.saturating_sub(self.links_down)),
            ));
        }
        let spines = pod_spines(fab, leaf).len() as u32;
        if self.spines_down > 0 && spines == 0 {
            return Err(ModelError::new("spines_down", "this fabric has no spine switches (one leaf per plane): use 0"));
        }
        if self.spines_down > 0 && self.spines_down >= spines.max(1) {
            return Err(ModelError::new(
                "spines_down",
                format!("the job's pod has {spines} spine switches: use 0 to {}", spines.saturating_sub(1)),
            ));
        }
        Ok(())
    }

    /// Takes the links and spines down in `fab` (the job's first node is `node`).
    pub fn apply(&self, fab: &mut Fabric, node: u32) {
        let leaf = fab.nic_leaf[fab.nic(node, 0) as usize] as usize;
        // `Fabric::wire` pushes a link's up direction, then its down direction.
        for l in fab.uplinks[leaf].clone().into_iter().take(self.links_down as usize) {
            fab.links[l as usize].alive = false;
            fab.links[l as usize + 1].alive = false;
        }
        let degraded = fab.uplinks[leaf].clone().into_iter().skip(self.links_down as usize).take(self.degraded_links as usize);
        for l in degraded {
            for x in [l as usize, l as usize + 1] {
                fab.links[x].cap = fabricscope_model::units::GBps(fab.links[x].cap.0 * self.degraded_factor);
            }
        }
        for spine in pod_spines(fab, leaf).into_iter().take(self.spines_down as usize) {
            for x in fab.links.iter_mut() {
                if x.tier.is_fabric() && (x.from == spine || x.to == spine) {
                    x.alive = false;
                }
            }
        }
    }

    /// Moves the demands of `node`'s dead NICs onto its surviving ones, round-robin per
    /// connection, and the peer end onto the same rail (NCCL keeps traffic rail-matched and
    /// the peer moves it over NVLink). Returns the demands split per connection where moved.
    pub fn reroute(&self, fab: &Fabric, node: u32, demands: Vec<Demand>) -> Vec<Demand> {
        if self.nics_down == 0 {
            return demands;
        }
        let r = fab.spec.nics_per_node;
        let dead = |nic: u32| nic / r == node && nic % r < self.nics_down;
        let alive: Vec<u32> = (self.nics_down..r).collect();
        let mut next = 0usize;
        let mut out = Vec::with_capacity(demands.len());
        for d in demands {
            if !dead(d.src) && !dead(d.dst) {
                out.push(d);
                continue;
            }
            for c in 0..d.conns {
                let rail = alive[next % alive.len()];
                next += 1;
                let (sn, dn) = (d.src / r, d.dst / r);
                out.push(Demand { src: fab.nic(sn, rail), dst: fab.nic(dn, rail), conns: 1, key: d.key ^ ((c as u64 + 1) << 56), ..d });
            }
        }
        out
    }
}

/// The spines the leaf's uplinks reach (its pod's), in id order.
fn pod_spines(fab: &Fabric, leaf: usize) -> Vec<u32> {
    let mut s: Vec<u32> = fab.uplinks[leaf].iter().map(|&l| fab.links[l as usize].to).collect();
    s.sort_unstable();
    s.dedup();
    debug_assert!(fab.uplinks[leaf].iter().all(|&l| fab.links[l as usize].tier == LinkTier::LeafToSpine));
    s
}
