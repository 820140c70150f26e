//! Bill of materials of a cluster: systems (or NVL72 racks), NICs, switches per tier with ports
//! used and free, transceivers and cables by reach, with power and cost per line and in total.
//!
//! Counts come from the fat tree as [`crate::fabric_tree`] sized it (never sized twice here).
//! Cabling rules: one cable per link at the NIC's rate. Node to leaf is passive copper inside a
//! rack when a leaf serves only the nodes of its own rack (not rail-optimized, at most
//! [`RACK_NODES`] nodes per leaf); otherwise it is multimode optics (50 m), as rail-optimized
//! leaves reach nodes in many racks. Leaf to spine runs between racks of a row: multimode
//! (50 m). Spine to core runs between rows: single-mode (500 m). At 400G, switches take
//! twin-port OSFP modules (two links per module) and so do DGX systems (8 NICs behind 4 OSFP
//! cages); other servers take one single-port module per NIC.

pub mod csv;
pub mod parts;
pub mod prices;

use crate::catalog::{NicKind, ScaleUp};
use crate::error::Result;
use crate::fabric_tree::SwitchLevel;
use crate::topology::Topology;
use parts::{Part, PartKind};
pub use csv::{bom_csv, BOM_COLUMNS};
pub use prices::{Price, PriceBook, MAX_POWER_W, MAX_USD};
use serde::Serialize;

/// Nodes of 8 GPUs in one rack: 4 (NVIDIA DGX SuperPOD data-center design for DGX H100, 4 DGX
/// per rack, https://docs.nvidia.com/dgx-superpod/design-guides/dgx-superpod-data-center-design-h100/latest/planning.html, 2026-11-30).
pub const RACK_NODES: u32 = 4;

/// NVLink switch trays per GB200 NVL72 rack (see [`parts::NVL72_RACK`]).
pub const NVL72_SWITCH_TRAYS: u64 = 9;

/// Power shelves per GB200 NVL72 rack: 8 in NVIDIA's reference design (see
/// [`parts::NVL72_POWER_SHELF`]).
pub const NVL72_POWER_SHELVES: u64 = 8;

/// DGX B200 systems per air-cooled rack: 2 (see [`parts::RACK`]).
pub const RACK_NODES_B200: u64 = 2;

/// Ports of an out-of-band management switch (see [`parts::OOB_SWITCH`]).
pub const OOB_SWITCH_PORTS: u64 = 48;

/// Where a line belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Systems, GPUs and the scale-up switches inside them.
    Compute,
    /// Scale-out NICs.
    Nic,
    /// A switch tier with the links that come up into it.
    Leaf,
    Spine,
    Core,
    /// Storage and in-band management network (count only).
    Storage,
    /// Out-of-band management network and fabric managers (count only).
    Management,
    /// Racks, PDUs, power shelves (count only unless inside a system).
    Facility,
}

/// Whether a line is in the model (its power and cost in the totals, the compute fabric timed)
/// or counted only (listed as a reference architecture lists it; outside the totals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Modelled,
    CountOnly,
}

impl Scope {
    pub fn id(self) -> &'static str {
        match self {
            Scope::Modelled => "modelled",
            Scope::CountOnly => "count only",
        }
    }
}

/// What the bill's power total covers (the same boundary for every design).
pub const POWER_BOUNDARY: &str = "compute systems at their published maximum (NVL72: the rack's stated load) and the compute fabric (NICs, switches, optics); storage, management networks and facility items are counted only";

impl Group {
    /// Name as in JSON and CSV.
    pub fn id(self) -> &'static str {
        match self {
            Group::Compute => "compute",
            Group::Nic => "nic",
            Group::Leaf => "leaf",
            Group::Spine => "spine",
            Group::Core => "core",
            Group::Storage => "storage",
            Group::Management => "management",
            Group::Facility => "facility",
        }
    }
    /// Part of the scale-out compute fabric (the network's share of power and cost).
    pub fn is_network(self) -> bool {
        matches!(self, Group::Nic | Group::Leaf | Group::Spine | Group::Core)
    }
}

impl From<SwitchLevel> for Group {
    fn from(l: SwitchLevel) -> Group {
        match l {
            SwitchLevel::Leaf => Group::Leaf,
            SwitchLevel::Spine => Group::Spine,
            SwitchLevel::Core => Group::Core,
        }
    }
}

/// One line of the bill.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    pub group: Group,
    /// Part id (what a price book names).
    pub item: &'static str,
    pub name: &'static str,
    pub kind: PartKind,
    pub count: u64,
    /// Power of one unit in watts; `None` if not published.
    pub unit_power_w: Option<f64>,
    /// Price of one unit in US dollars; `None` if the price book has none.
    pub unit_price_usd: Option<f64>,
    /// Source of the power figure (and of the part); the user's book where it gave the power.
    pub source: &'static str,
    /// Inside another line's part (no power or price of its own).
    pub included: bool,
    /// In the model and its totals, or counted only.
    pub scope: Scope,
    /// The catalog's power figure and source, before a price book's `power_w` replaced them
    /// (what [`Bom::repriced`] starts again from).
    #[serde(skip)]
    part: (Option<f64>, &'static str),
}

impl Line {
    /// Whether the line's cost is known (priced, or inside another part).
    fn priced(&self) -> bool {
        self.included || self.unit_price_usd.is_some() || self.count == 0 || self.scope == Scope::CountOnly
    }
    /// In the bill's power and cost totals.
    pub fn counted(&self) -> bool {
        self.scope == Scope::Modelled
    }
}

/// One switch tier as built.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierBom {
    pub tier: SwitchLevel,
    /// Switch model.
    pub switch: &'static str,
    pub switches: u64,
    /// Ports per switch at the NIC's rate.
    pub radix: u32,
    /// Ports in use over the whole tier (links down and up).
    pub ports_used: u64,
    pub ports_free: u64,
    /// Links from the tier below (NICs at the leaf).
    pub links_down: u64,
    /// Links to the tier above.
    pub links_up: u64,
}

/// The bill of materials with power and cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bom {
    pub gpus: u64,
    pub nodes: u64,
    /// NVL72 racks (`None` for other scale-up fabrics).
    pub racks: Option<u64>,
    pub switch_tiers: Vec<TierBom>,
    pub switches_total: u64,
    pub nics: u64,
    pub transceivers: u64,
    pub cables: u64,
    pub lines: Vec<Line>,
    /// Sum over lines with a published figure.
    pub power_kw: f64,
    /// The scale-out network's part of `power_kw` (NICs, switches, optics, cables).
    pub network_power_kw: f64,
    /// Items whose power is not published (so `power_kw` is a lower bound).
    pub unpowered: Vec<&'static str>,
    /// Cost of the whole bill, `None` unless every line has a price.
    pub cost_usd: Option<f64>,
    /// Cost of the lines that have a price.
    pub priced_usd: f64,
    /// The scale-out network's cost, `None` unless every network line has a price.
    pub network_cost_usd: Option<f64>,
    /// Items without a price.
    pub unpriced: Vec<&'static str>,
}

/// What a design delivers for the job per unit of power and money.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Efficiency {
    pub tokens_per_s: f64,
    /// Tokens/s per MW of `power_kw` (a lower bound's reciprocal when power is incomplete).
    pub tokens_per_s_per_mw: Option<f64>,
    /// Tokens/s per million US dollars of cost (`None` without a complete cost).
    pub tokens_per_s_per_musd: Option<f64>,
}

impl Bom {
    pub fn cost_per_gpu(&self) -> Option<f64> {
        self.cost_usd.map(|c| c / self.gpus.max(1) as f64)
    }
    /// Whether every network item has a power figure (otherwise `network_power_kw` is a
    /// lower bound).
    pub fn network_power_complete(&self) -> bool {
        self.lines.iter().all(|l| !l.group.is_network() || l.included || l.unit_power_w.is_some())
    }
    /// The network's share of the power (0-1), when every network item's figure is known.
    pub fn network_power_share(&self) -> Option<f64> {
        (self.network_power_complete() && self.power_kw > 0.0).then(|| self.network_power_kw / self.power_kw)
    }
    /// "network 30.7 kW (4.0%)", or "network at least 0.0 kW" when a network item has no
    /// published figure (the share is then unknown). kW, per the bill's total.
    pub fn network_power_text(&self) -> String {
        match self.network_power_share() {
            Some(x) => format!("network {:.1} kW ({:.1}%)", self.network_power_kw, 100.0 * x),
            None => format!("network at least {:.1} kW", self.network_power_kw),
        }
    }
    /// The network's share of the cost (0-1), when both are known.
    pub fn network_cost_share(&self) -> Option<f64> {
        match (self.network_cost_usd, self.cost_usd) {
            (Some(n), Some(c)) if c > 0.0 => Some(n / c),
            _ => None,
        }
    }
    /// Tokens/s per MW and per million dollars for a job running at `tokens_per_s`.
    pub fn efficiency(&self, tokens_per_s: f64) -> Efficiency {
        Efficiency {
            tokens_per_s,
            tokens_per_s_per_mw: (self.power_kw > 0.0).then(|| tokens_per_s / (self.power_kw / 1000.0)),
            tokens_per_s_per_musd: self.cost_usd.filter(|c| *c > 0.0).map(|c| tokens_per_s / (c / 1e6)),
        }
    }
    /// The same bill priced from another book (counts unchanged): what a page does on every
    /// edit of its price book, and the right-sizer on its options, without building again.
    pub fn repriced(&self, book: &PriceBook) -> Bom {
        let mut lines = self.lines.clone();
        for l in &mut lines {
            (l.unit_power_w, l.source) = l.part;
        }
        Builder { lines }.finish(book, self.gpus, self.nodes, self.racks, self.switch_tiers.clone())
    }
    /// The lines of one group.
    pub fn group(&self, g: Group) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(move |l| l.group == g)
    }
}

/// The bill of materials of a checked cluster, priced from `book`.
pub fn bom(topo: &Topology, book: &PriceBook) -> Bom {
    let mut b = Builder::default();
    let c = &topo.cluster;
    let nodes = c.nodes as u64;
    let gpus = topo.total_gpus as u64;
    let nics = nodes * c.nics_per_node as u64;
    // A DGX-class chassis whatever NICs the design gives it, so every fabric option of the
    // same GPUs carries the same compute power; its own 8 ConnectX-7 are inside its figure.
    let dgx = parts::dgx_part(c.gpu, c.gpus_per_node).filter(|_| matches!(c.scale_up, ScaleUp::NvSwitch { .. }));
    // DGX B300's own are 8 ConnectX-8 (XDR InfiniBand or 800GbE); the others' 8 ConnectX-7.
    let own_nics = if c.gpu == crate::catalog::GpuKind::B300 {
        matches!(c.nic, NicKind::IbXdr | NicKind::Roce800)
    } else {
        matches!(c.nic, NicKind::IbNdr | NicKind::Roce400)
    } && c.nics_per_node <= 8;
    let own_nic_part = if c.gpu == crate::catalog::GpuKind::B300 { parts::CX8_IN_DGX } else { parts::CX7_IN_DGX };
    // AWS EFA interfaces come with a rented instance: counted, outside the power and cost totals.
    let rented = c.nic.spec().family == crate::catalog::NetFamily::Efa;
    let racks = (c.scale_up == ScaleUp::Nvl72).then_some(topo.domains as u64);
    // Compute.
    match (dgx, racks) {
        (Some(p), _) => {
            b.add(Group::Compute, p, nodes);
            b.add(Group::Compute, parts::NVSWITCH_CHIP, nodes * nvswitch_chips(c.scale_up));
            if own_nics {
                b.add(Group::Nic, own_nic_part, nics);
            } else if rented {
                b.add_count(Group::Nic, parts::nic_part(c.nic), nics);
            } else {
                b.add(Group::Nic, parts::nic_part(c.nic), nics);
            }
        }
        (None, Some(r)) => {
            let gb300 = c.gpu == crate::catalog::GpuKind::Gb300;
            b.add(Group::Compute, if gb300 { parts::GB300_NVL72_RACK } else { parts::NVL72_RACK }, r);
            b.add(Group::Compute, if gb300 { parts::GB300_COMPUTE_TRAY } else { parts::NVL72_COMPUTE_TRAY }, nodes);
            b.add(Group::Compute, parts::NVLINK_TRAY, r * NVL72_SWITCH_TRAYS);
            b.add(Group::Compute, parts::NVL72_POWER_SHELF, r * NVL72_POWER_SHELVES);
            b.add(Group::Compute, parts::GPU_IN_RACK, gpus);
            // The NICs sit in the compute trays: inside the rack's figure.
            b.add(Group::Nic, parts::Part { included: true, power_w: Some(0.0), ..parts::nic_part(c.nic) }, nics);
        }
        (None, None) => {
            let server = if c.scale_up == ScaleUp::Xgmi { parts::INSTINCT_SERVER } else { parts::GPU_SERVER };
            b.add(Group::Compute, server, nodes);
            b.add(Group::Compute, parts::gpu_part(c.gpu), gpus);
            if c.gpus_per_node == 8 {
                b.add(Group::Compute, parts::NVSWITCH_CHIP, nodes * nvswitch_chips(c.scale_up));
            }
            if rented {
                b.add_count(Group::Nic, parts::nic_part(c.nic), nics);
            } else {
                b.add(Group::Nic, parts::nic_part(c.nic), nics);
            }
        }
    }
    // Scale-out fabric.
    let mut tiers = Vec::new();
    if let Some(f) = &topo.fabric {
        let sw_kind = c.nic.default_switch();
        let sw = parts::switch_part(sw_kind);
        let ppc = parts::ports_per_cage(sw_kind, c.nic) as u64;
        let twin = c.nic.spec().line_rate.0 == 400.0 && ppc == 2;
        let mut below = nics;
        for (i, t) in f.switch_tiers.iter().enumerate() {
            let group = Group::from(t.tier);
            let switches = t.switches as u64;
            let up = if i + 1 < f.switch_tiers.len() { switches * t.ports_up as u64 } else { 0 };
            let used = below + up;
            tiers.push(TierBom {
                tier: t.tier,
                switch: sw.name,
                switches,
                radix: t.radix,
                ports_used: used,
                ports_free: (switches * t.radix as u64).saturating_sub(used),
                links_down: below,
                links_up: up,
            });
            b.add(group, sw, switches);
            // The links that come up into this tier.
            match t.tier {
                SwitchLevel::Leaf => {
                    let copper = !c.rail_optimized && racks.is_none() && f.nodes_per_leaf <= RACK_NODES;
                    if copper {
                        b.add(group, parts::DAC, below.div_ceil(ppc));
                    } else if twin {
                        let node_side = match dgx {
                            Some(_) if own_nics => (parts::TWIN_SR4, nodes * (c.nics_per_node as u64).div_ceil(2)),
                            _ => (parts::SINGLE_SR4, below),
                        };
                        b.add(group, node_side.0, node_side.1);
                        b.add(group, parts::TWIN_SR4, below.div_ceil(2));
                        b.add(group, parts::FIBER_MM, below);
                    } else {
                        b.add(group, parts::OPTIC_OTHER, below + below.div_ceil(ppc));
                        b.add(group, parts::FIBER_OTHER, below);
                    }
                }
                SwitchLevel::Spine | SwitchLevel::Core => {
                    let (optic, fiber) = match (twin, t.tier) {
                        (true, SwitchLevel::Spine) => (parts::TWIN_SR4, parts::FIBER_MM),
                        (true, _) => (parts::TWIN_DR4, parts::FIBER_SM),
                        (false, _) => (parts::OPTIC_OTHER, parts::FIBER_OTHER),
                    };
                    b.add(group, optic, 2 * below.div_ceil(ppc));
                    b.add(group, fiber, below);
                }
            }
            below = up;
        }
    }
    // The networks and facility items a reference architecture lists beside the compute
    // fabric: counted only.
    let systems_with_storage_ports = if dgx.is_some() || racks.is_some() { nodes } else { 0 };
    b.add_count(Group::Storage, parts::STORAGE_PORT, 2 * systems_with_storage_ports);
    let switches: u64 = tiers.iter().map(|t| t.switches).sum();
    let oob = nodes + racks.map_or(0, |r| r * NVL72_SWITCH_TRAYS) + switches;
    b.add_count(Group::Management, parts::OOB_PORT, oob);
    b.add_count(Group::Management, parts::OOB_SWITCH, oob.div_ceil(OOB_SWITCH_PORTS));
    if matches!(c.nic, NicKind::IbHdr | NicKind::IbNdr | NicKind::IbXdr) && topo.fabric.is_some() {
        b.add_count(Group::Management, parts::UFM, 2);
    }
    match racks {
        Some(r) => b.add_count(Group::Management, parts::NVL72_MGMT_TOR, 2 * r),
        None => {
            let per = if c.gpu == crate::catalog::GpuKind::B200 && dgx.is_some() { RACK_NODES_B200 } else { RACK_NODES as u64 };
            let n_racks = nodes.div_ceil(per);
            b.add_count(Group::Facility, parts::RACK, n_racks);
            b.add_count(Group::Facility, parts::PDU, 3 * n_racks);
        }
    }
    b.finish(book, gpus, nodes, racks, tiers)
}

/// What a bill does not count at all (named so the reader knows the boundary).
pub const NOT_COUNTED: [&str; 4] = [
    "storage arrays and the storage fabric's switches (sized by the storage vendor)",
    "network, management and storage racks and their PDUs",
    "coolant distribution units and facility cooling (NVL72 racks are liquid-cooled)",
    "fabric management servers for Ethernet compute fabrics (UFM is counted for InfiniBand)",
];

/// The bill of materials of a scenario's cluster, priced from the scenario's price book.
pub fn scenario_bom(s: &crate::Scenario) -> Result<Bom> {
    let book = PriceBook::from_value(&s.prices)?;
    book.validate()?;
    Ok(bom(&s.cluster.topology()?, &book))
}

/// NVSwitch chips on an 8-GPU baseboard: 6 NVLink3 (DGX A100), 4 NVLink4 (DGX H100), 2 NVLink5
/// (DGX B200) (NVIDIA DGX A100/H100/B200 user guides).
fn nvswitch_chips(su: ScaleUp) -> u64 {
    match su {
        ScaleUp::NvSwitch { gen: 3 } => 6,
        ScaleUp::NvSwitch { gen: 4 } => 4,
        ScaleUp::NvSwitch { gen: 5 } => 2,
        _ => 0,
    }
}

/// Ids in first-seen order, each once.
fn distinct(ids: impl Iterator<Item = &'static str>) -> Vec<&'static str> {
    let mut v = Vec::new();
    for id in ids {
        if !v.contains(&id) {
            v.push(id);
        }
    }
    v
}

#[derive(Default)]
struct Builder {
    lines: Vec<Line>,
}

impl Builder {
    /// Adds `count` of `part` to `group`, merging with a line of the same part there.
    fn add(&mut self, group: Group, part: Part, count: u64) {
        self.add_scoped(group, part, count, Scope::Modelled);
    }
    /// Adds a count-only line (outside the power and cost totals).
    fn add_count(&mut self, group: Group, part: Part, count: u64) {
        self.add_scoped(group, part, count, Scope::CountOnly);
    }
    fn add_scoped(&mut self, group: Group, part: Part, count: u64, scope: Scope) {
        if count == 0 {
            return;
        }
        if let Some(l) = self.lines.iter_mut().find(|l| l.group == group && l.item == part.id) {
            l.count += count;
            return;
        }
        self.lines.push(Line {
            group,
            item: part.id,
            name: part.name,
            kind: part.kind,
            count,
            unit_power_w: part.power_w,
            unit_price_usd: None,
            source: part.source,
            included: part.included,
            scope,
            part: (part.power_w, part.source),
        });
    }

    fn finish(mut self, book: &PriceBook, gpus: u64, nodes: u64, racks: Option<u64>, switch_tiers: Vec<TierBom>) -> Bom {
        for l in &mut self.lines {
            l.unit_price_usd = book.usd(l.item);
            if let Some(w) = book.power_w(l.item) {
                l.unit_power_w = Some(w);
                l.source = "the user's price book";
            }
        }
        let lines = self.lines;
        let sum = |kind: PartKind| lines.iter().filter(|l| l.kind == kind && l.counted()).map(|l| l.count).sum::<u64>();
        let watts = |net: bool| lines.iter().filter(|l| l.counted() && (!net || l.group.is_network())).map(|l| l.count as f64 * l.unit_power_w.unwrap_or(0.0)).sum::<f64>();
        let dollars = |net: bool| lines.iter().filter(|l| l.counted() && (!net || l.group.is_network())).map(|l| l.count as f64 * l.unit_price_usd.unwrap_or(0.0)).sum::<f64>();
        // Only parts in the totals that draw power and lack a figure (passive parts have 0 W).
        let unpowered = distinct(lines.iter().filter(|l| l.counted() && l.unit_power_w.is_none()).map(|l| l.item));
        let unpriced = distinct(lines.iter().filter(|l| !l.priced()).map(|l| l.item));
        let all_priced = unpriced.is_empty();
        let net_priced = lines.iter().filter(|l| l.group.is_network()).all(Line::priced);
        Bom {
            gpus,
            nodes,
            racks,
            switches_total: switch_tiers.iter().map(|t| t.switches).sum(),
            switch_tiers,
            nics: sum(PartKind::Nic),
            transceivers: sum(PartKind::Transceiver),
            cables: sum(PartKind::Cable),
            power_kw: watts(false) / 1000.0,
            network_power_kw: watts(true) / 1000.0,
            unpowered,
            cost_usd: all_priced.then(|| dollars(false)),
            priced_usd: dollars(false),
            network_cost_usd: net_priced.then(|| dollars(true)),
            unpriced,
            lines,
        }
    }
}

#[cfg(test)]
mod tests;
