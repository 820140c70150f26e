//! Step schedules of collectives on a small instance of a cluster, for teaching: which chunk
//! moves over which link in which step, the bytes each link carries, each step's duration.
//!
//! The instance keeps the cluster's own scale-up fabric and NICs (their per-GPU bandwidth and
//! latency from [`Topology::tiers`]) on 1-4 domains of 2-8 GPUs, so the animation shows the
//! user's links. Steps are not pipelined: a step lasts as long as its slowest transfer, which
//! is how the slow link holds everyone back. Timing is the simple alpha-beta cost of each
//! transfer (latency + bytes / bandwidth), not the calibrated prediction of `collective`.

use crate::error::{ModelError, Result};
use crate::catalog::ScaleUp;
use crate::topology::{TierKind, Topology};
use crate::units::{Bytes, GBps, Micros};
use serde::Serialize;

/// Algorithms the teaching panel can play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Play {
    /// Ring AllReduce: reduce-scatter, then all-gather, n-1 steps each.
    Ring,
    /// Double binary tree AllReduce: a chain in each domain, two binary trees of domains.
    Tree,
    /// NVLS AllReduce: the NVSwitch reduces what every GPU sends and multicasts the sum.
    Nvls,
    /// NVLSTree: NVLS reduce-scatter in each domain, a tree of domains per rail, NVLS gather.
    NvlsTree,
    /// AllToAll: n-1 rounds, rank i sends its (i+r)-th slice to rank i+r.
    AllToAll,
    /// KV handoff of disaggregated serving: every GPU of the prefill node (domain 0) sends its
    /// shard of a prompt's KV cache to the same GPU of the decode node (domain 1) over its NIC,
    /// a group of layers per step, as engines move it layer by layer.
    KvHandoff,
}

impl Play {
    pub const ALL: [Play; 6] = [Play::Ring, Play::Tree, Play::Nvls, Play::NvlsTree, Play::AllToAll, Play::KvHandoff];
    pub fn id(self) -> &'static str {
        match self {
            Play::Ring => "ring",
            Play::Tree => "tree",
            Play::Nvls => "nvls",
            Play::NvlsTree => "nvlstree",
            Play::AllToAll => "alltoall",
            Play::KvHandoff => "kvhandoff",
        }
    }
    pub fn from_id(id: &str) -> Option<Play> {
        let id = id.to_ascii_lowercase().replace(['_', '-'], "");
        Self::ALL.into_iter().find(|p| p.id() == id)
    }
    pub fn ids() -> Vec<&'static str> {
        Self::ALL.iter().map(|p| p.id()).collect()
    }
    /// What the counter checks for this algorithm and its formula, in words.
    pub fn formula(self) -> (&'static str, &'static str) {
        match self {
            Play::Ring => ("bytes each GPU sent", "2(n-1)/n x S"),
            Play::AllToAll => ("bytes each GPU sent", "(n-1)/n x S"),
            Play::Nvls => ("bytes each GPU sent into the switch", "1 x S"),
            Play::Tree | Play::NvlsTree => ("network bytes each domain sent (mean)", "2(d-1)/d x S"),
            Play::KvHandoff => ("KV bytes each prefill GPU sent over its NIC", "1 x S"),
        }
    }
    /// The formula's value per byte of the buffer, for `n` ranks in `d` domains.
    pub fn factor(self, n: u32, d: u32) -> f64 {
        let (n, d) = (n as f64, d as f64);
        match self {
            Play::Ring => 2.0 * (n - 1.0) / n,
            Play::AllToAll => (n - 1.0) / n,
            Play::Nvls | Play::KvHandoff => 1.0,
            Play::Tree | Play::NvlsTree => 2.0 * (d - 1.0) / d,
        }
    }
}

/// Which link a transfer crosses: a GPU's scale-up port or its NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    ScaleUp,
    Nic,
}

/// One end of a transfer: a GPU (by rank) or a domain's switch (NVLS reduces and multicasts there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    Gpu(u32),
    Switch(u32),
}

/// One chunk moving in one step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Transfer {
    pub from: End,
    pub to: End,
    pub link: LinkKind,
    /// Which slice of the buffer (0..slices) the chunk is.
    pub chunk: u32,
    pub bytes: Bytes,
    /// Latency + bytes / bandwidth of its link.
    pub time: Micros,
}

/// One step: transfers that run at the same time; the step lasts as long as the slowest.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub phase: &'static str,
    pub transfers: Vec<Transfer>,
    pub duration: Micros,
}

/// How a domain's GPUs are joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fabric {
    /// Every GPU's links go to a switch (NVSwitch, NVL72): any pair at the GPU's full rate.
    Switch,
    /// Every pair of GPUs has its own link and there is no switch (AMD Infinity Fabric, xGMI):
    /// a transfer between two GPUs uses the one link between them, `1 / links` of the GPU's
    /// bandwidth; nothing in between can reduce.
    Mesh { links: u32 },
    /// A PCIe tree or an NVLink bridge through the host.
    Bus,
}

/// The small instance of a cluster the schedule runs on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Instance {
    pub domains: u32,
    pub per_domain: u32,
    /// How the GPUs of a domain meet: a switch, a point-to-point mesh or a bus.
    pub fabric: Fabric,
    /// The domain's switch can reduce and multicast (NVLS: Hopper or later on NVSwitch).
    pub nvls: bool,
    /// A domain spans several hosts (an NVL72 rack), not one node.
    pub rack: bool,
    pub scale_up_bw: GBps,
    pub scale_up_latency: Micros,
    pub nic_bw: GBps,
    pub nic_latency: Micros,
}

impl Instance {
    /// 1-4 domains of 2-8 GPUs with `topo`'s links (a 72-GPU rack plays as 8 GPUs).
    pub fn of(topo: &Topology) -> Instance {
        let tier = |k: TierKind| topo.tiers.iter().find(|t| t.kind == k);
        let up = tier(TierKind::ScaleUp).or_else(|| tier(TierKind::Pcie));
        let nic = tier(TierKind::Nic).or(up);
        let su = topo.cluster.scale_up;
        let per_domain = topo.domain_gpus.clamp(2, MAX_PLAYED_GPUS).min(topo.total_gpus.max(2));
        let fabric = match su {
            _ if su.has_nvswitch() => Fabric::Switch,
            ScaleUp::Xgmi => Fabric::Mesh { links: per_domain - 1 },
            _ => Fabric::Bus,
        };
        Instance {
            domains: topo.domains.clamp(1, MAX_PLAYED_DOMAINS),
            per_domain,
            fabric,
            nvls: su.has_nvswitch() && topo.gpu.arch.compute_capability() >= 90,
            rack: topo.domain_gpus > topo.cluster.gpus_per_node,
            scale_up_bw: up.map_or(GBps(1.0), |t| t.bw_per_gpu),
            scale_up_latency: up.map_or(Micros::ZERO, |t| t.latency),
            nic_bw: nic.map_or(GBps(1.0), |t| t.bw_per_gpu),
            nic_latency: nic.map_or(Micros::ZERO, |t| t.latency),
        }
    }
    pub fn ranks(&self) -> u32 {
        self.domains * self.per_domain
    }
    /// GPUs of a domain meet at a switch.
    pub fn switch(&self) -> bool {
        self.fabric == Fabric::Switch
    }
    /// Links per GPU of a point-to-point mesh, `None` for a switch or a bus.
    pub fn mesh_links(&self) -> Option<u32> {
        match self.fabric {
            Fabric::Mesh { links } => Some(links.max(1)),
            _ => None,
        }
    }
    pub fn domain_of(&self, rank: u32) -> u32 {
        rank / self.per_domain.max(1)
    }
    fn link_between(&self, a: u32, b: u32) -> LinkKind {
        if self.domain_of(a) == self.domain_of(b) {
            LinkKind::ScaleUp
        } else {
            LinkKind::Nic
        }
    }
    fn cost(&self, link: LinkKind, bytes: Bytes) -> Micros {
        let (bw, lat) = match link {
            // On a mesh a pair of GPUs has one of the GPU's links to itself.
            LinkKind::ScaleUp => (GBps(self.scale_up_bw.0 / self.mesh_links().unwrap_or(1) as f64), self.scale_up_latency),
            LinkKind::Nic => (self.nic_bw, self.nic_latency),
        };
        lat + bw.time_for(bytes)
    }
    fn gpu(&self, from: u32, to: u32, chunk: u32, bytes: Bytes) -> Transfer {
        let link = self.link_between(from, to);
        Transfer { from: End::Gpu(from), to: End::Gpu(to), link, chunk, bytes, time: self.cost(link, bytes) }
    }
    fn via_switch(&self, from: End, to: End, chunk: u32, bytes: Bytes) -> Transfer {
        Transfer { from, to, link: LinkKind::ScaleUp, chunk, bytes, time: self.cost(LinkKind::ScaleUp, bytes) }
    }
}

/// A played collective: the instance, its steps and the buffer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    pub play: Play,
    pub instance: Instance,
    /// The buffer each rank holds (AllReduce) or sends (AllToAll).
    pub bytes: Bytes,
    /// Slices the buffer is cut into (chunk ids run 0..slices).
    pub slices: u32,
    pub steps: Vec<Step>,
}

fn split(bytes: Bytes, parts: u32) -> Bytes {
    Bytes(bytes.0 / parts.max(1) as u64)
}

fn step(phase: &'static str, transfers: Vec<Transfer>) -> Step {
    let duration = transfers.iter().map(|t| t.time).fold(Micros::ZERO, Micros::max);
    Step { phase, transfers, duration }
}

/// Why `play` cannot run on `inst`, if it cannot.
pub fn unavailable(play: Play, inst: &Instance) -> Option<&'static str> {
    match play {
        Play::Nvls | Play::NvlsTree if inst.mesh_links().is_some() => {
            Some("an xGMI mesh has no switch to reduce in or multicast from (RCCL has no NVLS): every GPU adds what its peers send")
        }
        Play::Nvls | Play::NvlsTree if !inst.nvls => Some("NVLS needs Hopper or later GPUs on an NVSwitch: the switch must reduce and multicast"),
        Play::NvlsTree if inst.domains < 2 => Some("NVLSTree joins several domains; this cluster has one"),
        Play::Tree if inst.domains < 2 => Some("NCCL's (and RCCL's) tree joins domains; inside one domain it runs a chain, which the ring shows better"),
        Play::KvHandoff if inst.domains < 2 => Some("a KV handoff moves a prompt's cache from a prefill node to a decode node; this cluster has one node"),
        _ => None,
    }
}

/// The schedule of `play` with a buffer of `bytes` on `inst` (at least 1 byte per slice).
pub fn schedule(play: Play, inst: Instance, bytes: Bytes) -> Result<Schedule> {
    if let Some(why) = unavailable(play, &inst) {
        return Err(ModelError::new("algo", format!("{} cannot play here: {why}", play.id())));
    }
    // NVLS proper runs inside one domain (across domains it is NVLSTree or needs SHARP).
    let inst = if play == Play::Nvls { Instance { domains: 1, ..inst } } else { inst };
    let n = inst.ranks();
    // A whole number of bytes in every slice of every algorithm, so counters match formulas.
    let unit = 2 * n as u64 * inst.per_domain as u64;
    let bytes = Bytes((bytes.0 / unit).max(1) * unit);
    let (slices, steps) = match play {
        Play::Ring => (n, ring(&inst, bytes)),
        Play::AllToAll => (n, all_to_all(&inst, bytes)),
        Play::Nvls => (inst.per_domain, nvls(&inst, bytes)),
        Play::Tree => (2, tree(&inst, bytes)),
        Play::NvlsTree => (inst.per_domain, nvls_tree(&inst, bytes)),
        Play::KvHandoff => (KV_LAYER_GROUPS, kv_handoff(&inst, bytes)),
    };
    Ok(Schedule { play, instance: inst, bytes, slices, steps })
}

/// Steps a KV handoff is played in: the layers in this many groups (count; a drawing choice,
/// not an engine's: each group stands for a run of layers sent as their prefill finishes).
pub const KV_LAYER_GROUPS: u32 = 4;

/// GPU k of domain 0 (prefill) sends its `bytes` of KV cache to GPU k of domain 1 (decode),
/// a quarter of the layers per step; the other domains stay idle.
fn kv_handoff(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let g = inst.per_domain;
    let c = split(bytes, KV_LAYER_GROUPS);
    (0..KV_LAYER_GROUPS).map(|l| step("KV handoff", (0..g).map(|k| inst.gpu(k, g + k, l, c)).collect())).collect()
}

/// Ring through every rank in order (the domain's last GPU sends to the next domain over its NIC).
/// Reduce-scatter: in step s rank i sends slice (i - s) mod n; all-gather passes the reduced slices on.
fn ring(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let n = inst.ranks();
    let c = split(bytes, n);
    let mut out = Vec::new();
    for (phase, start) in [("reduce-scatter", 0), ("all-gather", n - 1)] {
        for s in 0..n - 1 {
            let t = (0..n).map(|i| inst.gpu(i, (i + 1) % n, (i + 2 * n - s - start) % n, c)).collect();
            out.push(step(phase, t));
        }
    }
    out
}

fn all_to_all(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let n = inst.ranks();
    let c = split(bytes, n);
    (1..n)
        .map(|r| step("exchange", (0..n).map(|i| inst.gpu(i, (i + r) % n, (i + r) % n, c)).collect()))
        .collect()
}

/// The switch reduces slice k of every GPU's buffer (multimem reduce), then multicasts the sum.
fn nvls(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let g = inst.per_domain;
    let c = split(bytes, g);
    let mut up = Vec::new();
    let mut down = Vec::new();
    for d in 0..inst.domains {
        for k in 0..g {
            let r = d * g + k;
            for s in 0..g {
                up.push(inst.via_switch(End::Gpu(r), End::Switch(d), s, c));
                down.push(inst.via_switch(End::Switch(d), End::Gpu(r), s, c));
            }
        }
    }
    // Each GPU's port carries its g slices one after another: the step is g slices long.
    let long = |mut s: Step| {
        s.duration = inst.cost(LinkKind::ScaleUp, Bytes(c.0 * g as u64));
        s
    };
    vec![long(step("switch reduces", up)), long(step("switch multicasts", down))]
}

/// Parent of domain `d` in a binary tree of `n` domains rooted at `root`, numbered in
/// heap order from the root (`flip` mirrors the numbering for NCCL's second tree).
fn tree_parent(d: u32, n: u32, flip: bool) -> Option<u32> {
    let pos = if flip { n - 1 - d } else { d };
    (pos > 0).then(|| {
        let p = (pos - 1) / 2;
        if flip {
            n - 1 - p
        } else {
            p
        }
    })
}

/// Levels of the binary tree of `n` domains (root = level 0).
fn tree_depth(n: u32) -> u32 {
    32 - n.max(1).leading_zeros() - 1
}

fn level(d: u32, n: u32, flip: bool) -> u32 {
    let pos = if flip { n - 1 - d } else { d };
    32 - (pos + 1).leading_zeros() - 1
}

/// Double binary tree: two trees, each carrying half the buffer (chunk 0 and 1). In each
/// domain a chain reduces to its first GPU, which joins the tree of domains over its NIC;
/// the sum comes back down the tree and the chain. Not pipelined, so each hop is one step.
fn tree(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let (d, g) = (inst.domains, inst.per_domain);
    let half = split(bytes, 2);
    let head = |dom: u32, t: u32| dom * g + if t == 0 { 0 } else { g - 1 };
    // Chain ranks from the far end toward the head, per tree (tree 1 runs the chain backwards).
    let chain = |dom: u32, t: u32, i: u32| if t == 0 { dom * g + i } else { dom * g + g - 1 - i };
    let mut out = Vec::new();
    // Chain reduce: hop i moves from chain position i+1 to i, from the far end.
    for hop in (0..g - 1).rev() {
        let mut tr = Vec::new();
        for dom in 0..d {
            for t in 0..2 {
                tr.push(inst.gpu(chain(dom, t, hop + 1), chain(dom, t, hop), t, half));
            }
        }
        out.push(step("chain reduce", tr));
    }
    let depth = tree_depth(d);
    for lv in (1..=depth).rev() {
        let mut tr = Vec::new();
        for t in 0..2 {
            for dom in 0..d {
                if level(dom, d, t == 1) == lv {
                    if let Some(p) = tree_parent(dom, d, t == 1) {
                        tr.push(inst.gpu(head(dom, t), head(p, t), t, half));
                    }
                }
            }
        }
        out.push(step("tree reduce", tr));
    }
    for lv in 1..=depth {
        let mut tr = Vec::new();
        for t in 0..2 {
            for dom in 0..d {
                if level(dom, d, t == 1) == lv {
                    if let Some(p) = tree_parent(dom, d, t == 1) {
                        tr.push(inst.gpu(head(p, t), head(dom, t), t, half));
                    }
                }
            }
        }
        out.push(step("tree broadcast", tr));
    }
    for hop in 0..g - 1 {
        let mut tr = Vec::new();
        for dom in 0..d {
            for t in 0..2 {
                tr.push(inst.gpu(chain(dom, t, hop), chain(dom, t, hop + 1), t, half));
            }
        }
        out.push(step("chain broadcast", tr));
    }
    out
}

/// NVLSTree: the switch reduces slice k of the domain to GPU k; GPU k of each domain runs a
/// binary tree of domains over its own NIC (its rail) on slice k; the switch multicasts the
/// sums GPU k sends it.
fn nvls_tree(inst: &Instance, bytes: Bytes) -> Vec<Step> {
    let (d, g) = (inst.domains, inst.per_domain);
    let c = split(bytes, g);
    let mut out = Vec::new();
    let mut up = Vec::new();
    for dom in 0..d {
        for k in 0..g {
            for s in 0..g {
                up.push(inst.via_switch(End::Gpu(dom * g + k), End::Switch(dom), s, c));
            }
        }
    }
    let mut first = step("switch reduces", up);
    first.duration = inst.cost(LinkKind::ScaleUp, Bytes(c.0 * g as u64));
    out.push(first);
    let mut rs = Vec::new();
    for dom in 0..d {
        for k in 0..g {
            rs.push(inst.via_switch(End::Switch(dom), End::Gpu(dom * g + k), k, c));
        }
    }
    out.push(step("switch returns slice k to GPU k", rs));
    let depth = tree_depth(d);
    let edges = |lv: u32, upward: bool| -> Vec<Transfer> {
        let mut tr = Vec::new();
        for dom in 0..d {
            if level(dom, d, false) != lv {
                continue;
            }
            if let Some(p) = tree_parent(dom, d, false) {
                for k in 0..g {
                    let (a, b) = if upward { (dom, p) } else { (p, dom) };
                    tr.push(inst.gpu(a * g + k, b * g + k, k, c));
                }
            }
        }
        tr
    };
    for lv in (1..=depth).rev() {
        out.push(step("tree reduce across domains", edges(lv, true)));
    }
    for lv in 1..=depth {
        out.push(step("tree broadcast across domains", edges(lv, false)));
    }
    let mut gather = Vec::new();
    for dom in 0..d {
        for k in 0..g {
            gather.push(inst.via_switch(End::Gpu(dom * g + k), End::Switch(dom), k, c));
        }
    }
    out.push(step("GPU k sends its sum to the switch", gather));
    let mut mc = Vec::new();
    for dom in 0..d {
        for k in 0..g {
            for s in 0..g {
                mc.push(inst.via_switch(End::Switch(dom), End::Gpu(dom * g + k), s, c));
            }
        }
    }
    let mut last = step("switch multicasts", mc);
    last.duration = inst.cost(LinkKind::ScaleUp, Bytes(c.0 * g as u64));
    out.push(last);
    out
}

/// Most domains the animation draws (more would hide the chunks; the NIC tier looks the same).
pub const MAX_PLAYED_DOMAINS: u32 = 4;
/// Most GPUs of one domain the animation draws.
pub const MAX_PLAYED_GPUS: u32 = 8;

/// Why the played instance is smaller than the user's design (`topo`), in words, or `None`
/// when it plays the design as it is. Learn shows it beside the animation.
pub fn reduction(topo: &Topology, s: &Schedule) -> Option<String> {
    let inst = &s.instance;
    let unit = if inst.rack { "rack" } else { "node" };
    let units = |n: u32| if n == 1 { unit.to_string() } else { format!("{unit}s") };
    let mut why = Vec::new();
    if s.play == Play::Nvls && topo.domains > 1 {
        why.push(format!(
            "NVLS reduces inside one NVSwitch domain (across {}s NCCL runs NVLSTree, or needs SHARP), so it plays on one {unit}",
            unit
        ));
    } else if topo.domains > inst.domains {
        why.push(format!(
            "it draws at most {MAX_PLAYED_DOMAINS} {} so every chunk stays visible (each further {unit} adds the same NIC hops)",
            units(MAX_PLAYED_DOMAINS)
        ));
    }
    if topo.domain_gpus > inst.per_domain {
        why.push(format!(
            "each {unit} of {} GPUs plays as {} of them on the same links (the per-GPU bandwidth is the {unit}'s own)",
            topo.domain_gpus, inst.per_domain
        ));
    }
    if why.is_empty() {
        return None;
    }
    Some(format!(
        "Your design is {} {} × {} GPUs; the animation plays {} {} × {} GPUs: {}.",
        topo.domains,
        units(topo.domains),
        topo.domain_gpus,
        inst.domains,
        units(inst.domains),
        inst.per_domain,
        why.join("; ")
    ))
}

/// The state of a schedule at time `t` (µs from its start): the step under way, how far each
/// of its transfers has come (0..1), and what every GPU has sent so far, per link kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frame {
    pub t: Micros,
    pub step: usize,
    /// Fraction of each transfer of `step` done (a fast link's chunk arrives early and waits).
    pub progress: Vec<f64>,
    /// Bytes each GPU has sent so far over (scale-up, NIC).
    pub sent: Vec<(f64, f64)>,
    pub done: bool,
}

impl Schedule {
    pub fn total(&self) -> Micros {
        self.steps.iter().fold(Micros::ZERO, |a, s| a + s.duration)
    }
    /// When step `i` starts, µs.
    pub fn start_of(&self, i: usize) -> Micros {
        self.steps.iter().take(i).fold(Micros::ZERO, |a, s| a + s.duration)
    }
    pub fn frame(&self, t: Micros) -> Frame {
        let n = self.instance.ranks() as usize;
        let mut sent = vec![(0.0, 0.0); n];
        let mut add = |tr: &Transfer, f: f64| {
            if let End::Gpu(r) = tr.from {
                let e = &mut sent[(r as usize).min(n - 1)];
                let b = tr.bytes.as_f64() * f;
                match tr.link {
                    LinkKind::ScaleUp => e.0 += b,
                    LinkKind::Nic => e.1 += b,
                }
            }
        };
        let mut start = Micros::ZERO;
        for (i, s) in self.steps.iter().enumerate() {
            let end = start + s.duration;
            if t.0 < end.0 {
                let el = (t.0 - start.0).max(0.0);
                let progress: Vec<f64> = s.transfers.iter().map(|tr| if tr.time.0 > 0.0 { (el / tr.time.0).min(1.0) } else { 1.0 }).collect();
                for (tr, f) in s.transfers.iter().zip(&progress) {
                    add(tr, *f);
                }
                return Frame { t, step: i, progress, sent, done: false };
            }
            s.transfers.iter().for_each(|tr| add(tr, 1.0));
            start = end;
        }
        let last = self.steps.len().saturating_sub(1);
        let progress = self.steps.get(last).map_or(Vec::new(), |s| vec![1.0; s.transfers.len()]);
        Frame { t: self.total(), step: last, progress, sent, done: true }
    }
    /// The counter's value in `f`: what [`Play::formula`] names, in bytes.
    pub fn measured(&self, f: &Frame) -> f64 {
        let inst = &self.instance;
        match self.play {
            Play::Ring | Play::AllToAll => f.sent.iter().map(|s| s.0 + s.1).fold(0.0, f64::max),
            Play::Nvls => f.sent.iter().map(|s| s.0).fold(0.0, f64::max),
            Play::KvHandoff => f.sent.iter().map(|s| s.1).fold(0.0, f64::max),
            Play::Tree | Play::NvlsTree => f.sent.iter().map(|s| s.1).sum::<f64>() / inst.domains as f64,
        }
    }
    /// The formula's value for this schedule, bytes.
    pub fn expected(&self) -> f64 {
        self.play.factor(self.instance.ranks(), self.instance.domains) * self.bytes.as_f64()
    }
    /// One line per step for the transcript (screen readers read it as it plays).
    pub fn describe(&self, i: usize) -> String {
        let Some(s) = self.steps.get(i) else { return String::new() };
        let nic = s.transfers.iter().filter(|t| t.link == LinkKind::Nic).count();
        let bytes = s.transfers.first().map_or(Bytes(0), |t| t.bytes);
        let slow = if nic > 0 && nic < s.transfers.len() { "; the NIC transfers set its length" } else { "" };
        format!(
            "Step {} of {}, {}: {} chunks of {} move, {} over the network, {:.1} µs{slow}.",
            i + 1,
            self.steps.len(),
            s.phase,
            s.transfers.len(),
            crate::units::format_size(bytes),
            nic,
            s.duration.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::catalog::{GpuKind, NicKind, PcieGen, ScaleUp};
    use crate::topology::Cluster;

    fn inst(nodes: u32, gpn: u32) -> Instance {
        Instance::of(&Cluster { nodes, gpus_per_node: gpn, nics_per_node: gpn, ..Cluster::default() }.topology().unwrap())
    }

    /// Plays the schedule on contributions: each (holder, slice) keeps the set of ranks whose
    /// data it has summed; a transfer merges the sender's set (read at the step's start).
    fn holds_everything(s: &Schedule) -> bool {
        let inst = s.instance;
        let n = inst.ranks() as usize;
        let key = |e: End| match e {
            End::Gpu(r) => r as usize,
            End::Switch(d) => n + d as usize,
        };
        let mut have = vec![vec![0u64; s.slices as usize]; n + inst.domains as usize];
        for (r, h) in have.iter_mut().enumerate().take(n) {
            h.iter_mut().for_each(|x| *x = 1 << r);
        }
        for st in &s.steps {
            let before = have.clone();
            for t in &st.transfers {
                have[key(t.to)][t.chunk as usize] |= before[key(t.from)][t.chunk as usize];
            }
        }
        let all = (1u64 << n) - 1;
        have.iter().take(n).all(|h| h.iter().all(|x| *x == all))
    }

    #[test]
    fn ring_sends_two_n_minus_one_over_n_and_ends_reduced() {
        for (nodes, gpn) in [(1, 4), (2, 4), (4, 8), (3, 8)] {
            let i = inst(nodes, gpn);
            let n = i.ranks();
            let s = schedule(Play::Ring, i, Bytes(n as u64 * 1024)).unwrap();
            assert_eq!(s.steps.len() as u32, 2 * (n - 1));
            let end = s.frame(s.total());
            assert!(end.done);
            for sent in &end.sent {
                // 2(n-1)/n x S, S = n KiB: 2(n-1) KiB from every GPU.
                assert_eq!(sent.0 + sent.1, 2.0 * (n - 1) as f64 * 1024.0);
            }
            assert_eq!(s.measured(&end), s.expected());
            assert!(holds_everything(&s), "{nodes}x{gpn}");
        }
    }

    #[test]
    fn the_nic_sets_the_step_time_of_a_ring_across_nodes() {
        // DGX H100: 450 GB/s NVLink per GPU and direction against one 50 GB/s NDR NIC: 9x.
        let i = inst(2, 8);
        let s = schedule(Play::Ring, i, Bytes(16 << 20)).unwrap();
        let st = &s.steps[0];
        let fast = st.transfers.iter().find(|t| t.link == LinkKind::ScaleUp).unwrap().time;
        let slow = st.transfers.iter().find(|t| t.link == LinkKind::Nic).unwrap().time;
        assert_eq!(st.duration, slow);
        let chunk = 1u64 << 20;
        assert!((fast.0 - (i.scale_up_latency.0 + chunk as f64 / 450e3)).abs() < 1e-9);
        assert!((slow.0 - (i.nic_latency.0 + chunk as f64 / 50e3)).abs() < 1e-9);
        // Mid-step, NVLink chunks have arrived while the NIC's is a ninth of the way.
        let f = s.frame(Micros(fast.0));
        assert_eq!(f.step, 0);
        assert!(f.progress.iter().any(|p| *p == 1.0) && f.progress.iter().any(|p| *p < 0.2));
    }

    #[test]
    fn all_to_all_sends_n_minus_one_over_n() {
        let i = inst(2, 4);
        let s = schedule(Play::AllToAll, i, Bytes(8 << 10)).unwrap();
        let end = s.frame(Micros(1e12));
        for sent in &end.sent {
            assert_eq!(sent.0 + sent.1, 7.0 * 1024.0);
        }
        // 3 of 7 peers in the own node: 3 KiB over NVLink, 4 KiB over the NIC.
        assert_eq!(end.sent[0], (3.0 * 1024.0, 4.0 * 1024.0));
        assert_eq!(s.measured(&end), s.expected());
    }

    #[test]
    fn nvls_sends_the_buffer_once_into_the_switch() {
        let s = schedule(Play::Nvls, inst(4, 8), Bytes(8 << 20)).unwrap();
        assert_eq!(s.instance.domains, 1);
        let end = s.frame(s.total());
        assert!(end.sent.iter().all(|x| *x == ((8u64 << 20) as f64, 0.0)));
        assert_eq!(s.measured(&end), s.expected());
        assert!(holds_everything(&s));
    }

    #[test]
    fn trees_send_two_d_minus_one_over_d_per_domain() {
        for nodes in [2, 3, 4] {
            for play in [Play::Tree, Play::NvlsTree] {
                let s = schedule(play, inst(nodes, 4), Bytes(1 << 20)).unwrap();
                let end = s.frame(s.total());
                let d = nodes as f64;
                assert!((s.measured(&end) - 2.0 * (d - 1.0) / d * s.bytes.as_f64()).abs() < 1e-6, "{play:?} {nodes}");
                assert!(holds_everything(&s), "{play:?} {nodes}");
            }
        }
    }

    #[test]
    fn counters_match_formulas_on_odd_sizes_and_nvl72_racks() {
        // 3 GPUs per node and a buffer no slice count divides: rounded to whole slices.
        let i = Instance::of(&Cluster { nodes: 3, gpus_per_node: 3, nics_per_node: 3, ..Cluster::default() }.topology().unwrap());
        for play in [Play::Ring, Play::AllToAll, Play::Tree, Play::Nvls, Play::NvlsTree] {
            let s = schedule(play, i, Bytes(1_000_003)).unwrap();
            assert_eq!(s.measured(&s.frame(s.total())), s.expected(), "{play:?}");
        }
        let rack = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 36, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() };
        let i = Instance::of(&rack.topology().unwrap());
        assert_eq!((i.domains, i.per_domain, i.rack, i.nvls), (2, 8, true, true));
    }

    #[test]
    fn what_the_hardware_cannot_play_says_why() {
        let pcie = Cluster {
            gpu: GpuKind::H100Pcie,
            nodes: 2,
            scale_up: ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true },
            nic: NicKind::IbNdr,
            ..Cluster::default()
        };
        let i = Instance::of(&pcie.topology().unwrap());
        let e = schedule(Play::Nvls, i, Bytes(1 << 20)).unwrap_err();
        assert!(e.message.contains("NVSwitch"), "{}", e.message);
        assert!(schedule(Play::Tree, inst(1, 8), Bytes(1 << 20)).is_err());
        assert!(schedule(Play::Ring, i, Bytes(1 << 20)).is_ok());
    }

    /// Learn says why it plays less than the design (issue 20: NVLS on 1 node, a GB200 rack as
    /// 8 GPUs), and plays the design as it is when it fits.
    #[test]
    fn a_reduced_design_is_explained() {
        let four = Cluster { nodes: 4, ..Cluster::default() }.topology().unwrap();
        let ring = schedule(Play::Ring, Instance::of(&four), Bytes(1 << 24)).unwrap();
        assert_eq!(reduction(&four, &ring), None);
        let nvls = schedule(Play::Nvls, Instance::of(&four), Bytes(1 << 24)).unwrap();
        let why = reduction(&four, &nvls).unwrap();
        assert!(why.starts_with("Your design is 4 nodes × 8 GPUs; the animation plays 1 node × 8 GPUs: NVLS reduces inside one NVSwitch domain"), "{why}");
        let big = Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap();
        let why = reduction(&big, &schedule(Play::Ring, Instance::of(&big), Bytes(1 << 24)).unwrap()).unwrap();
        assert!(why.contains("128 nodes × 8 GPUs; the animation plays 4 nodes × 8 GPUs: it draws at most 4 nodes"), "{why}");
        let rack = Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: 72, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }.topology().unwrap();
        let why = reduction(&rack, &schedule(Play::Ring, Instance::of(&rack), Bytes(1 << 24)).unwrap()).unwrap();
        assert!(why.contains("4 racks × 72 GPUs; the animation plays 4 racks × 8 GPUs") && why.contains("each rack of 72 GPUs plays as 8 of them"), "{why}");
    }

    /// The animation plays one channel, not pipelined; NCCL runs several at once. On 4 DGX H100
    /// nodes (32 GPUs) with 32 MiB, the model's time of each forced algorithm is below the played
    /// one and NCCL runs more than one channel, which Learn states with both times. (At a few
    /// MiB the played channel, which draws no per-step latency and no pipeline fill, can be the
    /// shorter: NVLSTree's fill stores a whole chunk at every hop of its network path.)
    #[test]
    fn one_channel_of_several_is_slower_than_nccl() {
        use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
        let t = Cluster { nodes: 4, ..Cluster::default() }.topology().unwrap();
        let comm = Comm::new(&t, t.whole()).unwrap();
        for (play, algo) in [(Play::Ring, AlgoChoice::Ring), (Play::Tree, AlgoChoice::Tree), (Play::NvlsTree, AlgoChoice::NvlsTree)] {
            let s = schedule(play, Instance::of(&t), Bytes(1 << 25)).unwrap();
            let p = comm.predict(Collective::AllReduce, Bytes(1 << 25), algo, ProtoChoice::Auto).unwrap();
            assert!(p.time.0 < s.total().0, "{play:?}: model {} µs vs played {} µs", p.time.0, s.total().0);
            assert!(comm.channels(p.algorithm) > 1, "{play:?}: {} channels", comm.channels(p.algorithm));
        }
    }

    /// The KV handoff sends every prefill GPU's shard once, over its NIC only, to the GPU of the
    /// same index on the decode node; one node cannot play it.
    #[test]
    fn kv_handoff_crosses_the_nic_once_per_shard() {
        let s = schedule(Play::KvHandoff, inst(2, 8), Bytes(1 << 24)).unwrap();
        assert_eq!(s.steps.len(), KV_LAYER_GROUPS as usize);
        for st in &s.steps {
            assert_eq!(st.transfers.len(), 8);
            for t in &st.transfers {
                assert_eq!(t.link, LinkKind::Nic);
                let (End::Gpu(a), End::Gpu(b)) = (t.from, t.to) else { panic!("GPU to GPU") };
                assert_eq!((a / 8, b / 8, a % 8), (0, 1, b % 8));
            }
        }
        let end = s.frame(s.total());
        assert_eq!(s.measured(&end), s.expected());
        assert_eq!(s.expected(), s.bytes.as_f64());
        // Nothing moves over NVLink, and the decode node sends nothing.
        assert!(end.sent.iter().all(|x| x.0 == 0.0));
        assert!(end.sent[8..].iter().all(|x| x.1 == 0.0));
        assert!(schedule(Play::KvHandoff, inst(1, 8), Bytes(1 << 20)).unwrap_err().message.contains("one node"));
        // Twice the bytes never take less time.
        let two = schedule(Play::KvHandoff, inst(2, 8), Bytes(1 << 25)).unwrap();
        assert!(two.total().0 > s.total().0);
    }
}
