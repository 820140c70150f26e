//! Right-sizes the fabric for a job: every option a buyer chooses between (the scale-up domain
//! where the catalog builds several for the same GPUs, InfiniBand or RoCE, 400G or 800G NICs, NICs per node, rail-optimized or not, 1:1, 2:1 or 3:1 at the
//! leaf and, in three tiers, at the spine) costed by its bill of materials and timed on the
//! job; the Pareto front of cost (or power) against step time, the cheapest option within 2% of
//! the fastest, and what each step down the front saves.
//!
//! The job is timed on each option with the layouts the layout search ranks best for that
//! option's system: one search per scale-up domain (the user's cluster, and e.g. the NVL72
//! racks the same GPUs could come in, where expert parallelism fits inside a rack), its top
//! [`LAYOUTS`] (or the layout the user pinned), together with the user's own cluster's best,
//! each re-evaluated on the option. A search per option (a hundred or more) would cost seconds
//! in the page; the domain is what changes which layouts are best, the NICs and ratios change
//! their times.
//!
//! Scale-up domains ([`domains`]): Blackwell as 8-GPU NVSwitch servers (DGX/HGX B200) or GB200
//! NVL72 racks; Ampere and Hopper as 8-GPU NVSwitch baseboards or 4-GPU nodes (an
//! approximation of the 4-GPU HGX boards, see [`HGX_4GPU`]).
//! Each platform is offered only the NICs its systems ship with (the catalog's presets:
//! [`platform_nics`]); [`RightSizeOptions::any_nic`] offers every NIC.
//! An option is ranked on power only when every part of its bill has a power figure
//! ([`summarize`]).
//!
//! [`RightSizer::run`] works until its caller says stop, so a page can run it in slices.

use crate::bom::{bom, Bom, PriceBook};
use crate::catalog::{GpuKind, NicKind, ScaleUp};
use crate::error::{ModelError, Result};
use crate::topology::{Cluster, Topology};
use crate::training::explore::{layout_label, parallel_label, MAX_MICRO_BATCH};
use crate::training::search::{evaluate_idle, Search};
use crate::training::step::EvaluatorCaches;
use crate::training::{Constraints, Evaluator, Framework, Parallel, SearchOptions, Workload};
use serde::Serialize;

/// Layouts of the user's cluster re-evaluated on every option.
pub const LAYOUTS: usize = 8;

/// "Within 2% of the fastest": the step-time slack the pick may give up, as a fraction.
pub const WITHIN: f64 = 0.02;

/// Down:up ratios offered at each tier (1:1 non-blocking, 2:1, 3:1).
pub const RATIOS: [f64; 3] = [1.0, 2.0, 3.0];

/// NICs offered with [`RightSizeOptions::any_nic`]: InfiniBand and RoCE at 400G and 800G.
pub const NICS: [NicKind; 4] = [NicKind::IbNdr, NicKind::Roce400, NicKind::IbXdr, NicKind::Roce800];

/// What the right-sizer may offer beyond each platform's own parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RightSizeOptions {
    /// Offer every NIC in [`NICS`] with every system, not only those its presets ship with.
    pub any_nic: bool,
}

/// The NICs a GPU's systems ship with: those of the catalog's presets for that GPU (DGX H100
/// and H200: ConnectX-7 as NDR InfiniBand or 400GbE; DGX B200 and GB200 NVL72: ConnectX-7 NDR;
/// A100: HDR or 100GbE), in preset order. Transports that come only with rented cloud
/// instances are left out (AWS EFA; GCP A3 Mega's GPUDirect-TCPXO NICs, `tcpxo-200`; every
/// GCP, OCI and Azure shape, whose NICs a buyer does not choose): the
/// right-sizer sizes a system one buys and cables.
pub fn platform_nics(gpu: GpuKind) -> Vec<NicKind> {
    let mut v: Vec<NicKind> = Vec::new();
    for p in crate::presets::CLUSTER_PRESETS.iter() {
        let c = p.cluster();
        let same = c.gpu == gpu || (matches!(gpu, GpuKind::B200 | GpuKind::Gb200) && matches!(c.gpu, GpuKind::B200 | GpuKind::Gb200));
        let rented_only = c.nic.spec().family == crate::catalog::NetFamily::Efa || ["gcp-", "oci-", "azure-"].iter().any(|c| p.id.starts_with(c));
        if same && !rented_only && !v.contains(&c.nic) {
            v.push(c.nic);
        }
    }
    v
}

/// The system the GPUs come in: GPU, scale-up fabric and GPUs per node (or tray).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Domain {
    pub gpu: GpuKind,
    pub scale_up: ScaleUp,
    pub gpus_per_node: u32,
    /// NVLink SHARP where the system has NVSwitch chips (not on a 4-GPU baseboard).
    pub nvls: bool,
}

impl Domain {
    pub fn of(c: &Cluster) -> Domain {
        Domain { gpu: c.gpu, scale_up: c.scale_up, gpus_per_node: c.gpus_per_node, nvls: c.nvls }
    }

    /// "B200 8-GPU NVSwitch", "GB200 72-GPU NVL72", "H100 4-GPU NVLink", with the domain's
    /// size in GPUs as the topology made it.
    pub fn label(&self, domain_gpus: u32) -> String {
        let kind = match self.scale_up {
            ScaleUp::Nvl72 => "NVL72",
            ScaleUp::NvSwitch { .. } if self.gpus_per_node >= 8 => "NVSwitch",
            ScaleUp::NvSwitch { .. } | ScaleUp::NvlinkBridge => "NVLink",
            ScaleUp::Pcie { .. } => "PCIe",
            ScaleUp::Xgmi => "xGMI",
        };
        format!("{} {domain_gpus}-GPU {kind}", self.gpu.id().to_ascii_uppercase())
    }
}

/// GPUs per node of the smaller Ampere/Hopper domain (count): 4, as on NVIDIA's 4-GPU HGX
/// baseboards. An approximation: the catalog times it as a 4-GPU domain at the GPU's full
/// NVLink bandwidth (its NVSwitch model), where those boards join their GPUs directly, so
/// NVLS is off (no NVSwitch); the label says "NVLink", not "NVSwitch". The servers' own draw
/// is not in the catalog (their GPUs count at TDP).
pub const HGX_4GPU: u32 = 4;

/// GPUs per GB200 compute tray (count): 4 (NVIDIA GB200 NVL72: 18 trays of 2 Grace + 4
/// Blackwell, as `topology::NVL72_GPUS` and `bom::parts::NVL72_RACK` cite).
pub const GB200_TRAY_GPUS: u32 = 4;

/// The systems the same GPU count can be bought as, the user's own first: for B200 and GB200,
/// 8-GPU NVSwitch servers and NVL72 racks; for A100, H100 and H200 on NVSwitch, 8-GPU and
/// 4-GPU baseboards. Only those that divide the GPU count; other clusters keep their own.
pub fn domains(base: &Cluster) -> Vec<Domain> {
    let total = base.total_gpus();
    let own = Domain::of(base);
    let mut v = vec![own];
    let mut offer = |d: Domain| {
        if total.is_multiple_of(d.gpus_per_node) && !v.iter().any(|o| (o.gpu, o.scale_up, o.gpus_per_node) == (d.gpu, d.scale_up, d.gpus_per_node)) {
            v.push(d);
        }
    };
    match (base.gpu, base.scale_up) {
        (GpuKind::B200 | GpuKind::Gb200, _) => {
            offer(Domain { gpu: GpuKind::B200, scale_up: ScaleUp::NvSwitch { gen: 5 }, gpus_per_node: 8, nvls: true });
            offer(Domain { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: GB200_TRAY_GPUS, nvls: true });
        }
        (GpuKind::A100 | GpuKind::H100 | GpuKind::H200, ScaleUp::NvSwitch { gen }) if matches!(base.gpus_per_node, 4 | 8) => {
            offer(Domain { gpus_per_node: 8, nvls: true, ..own });
            offer(Domain { gpu: base.gpu, scale_up: ScaleUp::NvSwitch { gen }, gpus_per_node: HGX_4GPU, nvls: false });
        }
        _ => {}
    }
    v
}

/// One fabric a buyer could order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FabricOption {
    /// The system the GPUs come in (the scale-up domain).
    pub domain: Domain,
    pub nic: NicKind,
    pub nics_per_node: u32,
    pub rail_optimized: bool,
    /// Down:up at the leaf.
    pub oversubscription: f64,
    /// Down:up at the spine of a three-tier tree.
    pub core_oversubscription: f64,
}

impl FabricOption {
    /// The user's cluster with this fabric (switch counts sized automatically).
    pub fn apply(&self, base: &Cluster) -> Cluster {
        let d = self.domain;
        Cluster {
            gpu: d.gpu,
            scale_up: d.scale_up,
            gpus_per_node: d.gpus_per_node,
            nodes: base.total_gpus() / d.gpus_per_node.max(1),
            nvls: base.nvls && d.nvls,
            nic: self.nic,
            nics_per_node: self.nics_per_node,
            rail_optimized: self.rail_optimized,
            oversubscription: Some(self.oversubscription),
            core_oversubscription: Some(self.core_oversubscription),
            leaf_switches: None,
            spine_switches: None,
            switch_radix: None,
            sharp: base.sharp && self.nic.spec().sharp_capable,
            ..base.clone()
        }
    }

    /// "8x NDR IB, rails, 2:1" (with the spine's ratio in three tiers).
    pub fn label(&self, three_tiers: bool) -> String {
        let nic = match self.nic {
            NicKind::IbNdr => "NDR IB",
            NicKind::IbXdr => "XDR IB",
            NicKind::IbHdr => "HDR IB",
            NicKind::Roce400 => "400G RoCE",
            NicKind::Roce800 => "800G RoCE",
            NicKind::Eth100Tcp => "100GbE",
            NicKind::Efa100 => "100G EFA",
            NicKind::Efa200 => "200G EFA",
            NicKind::Efa400 => "400G EFA",
            NicKind::Roce100 => "100G RoCE",
            NicKind::Roce200 => "200G RoCE",
            NicKind::Tcpxo200 => "200G TCPXO",
        };
        let mut s = format!("{}x {nic}, {}, {}:1", self.nics_per_node, if self.rail_optimized { "rails" } else { "no rails" }, self.oversubscription);
        if three_tiers {
            s.push_str(&format!(" / {}:1", self.core_oversubscription));
        }
        s
    }
}

/// Every option for the user's cluster: each of its [`domains`] with the NICs its platform
/// ships with ([`platform_nics`]; the user's own NIC too on the user's own system; every NIC
/// in [`NICS`] with `any_nic`), one NIC per GPU of a node, half or a quarter as many, rails or
/// not, and [`RATIOS`] at the leaf and spine.
pub fn options(base: &Cluster) -> Vec<FabricOption> {
    options_with(base, RightSizeOptions::default())
}

/// [`options`] with the caller's [`RightSizeOptions`].
pub fn options_with(base: &Cluster, opt: RightSizeOptions) -> Vec<FabricOption> {
    let own = Domain::of(base);
    let mut out = Vec::new();
    for domain in domains(base) {
        let mut nics = if opt.any_nic { NICS.to_vec() } else { platform_nics(domain.gpu) };
        if domain == own && !nics.contains(&base.nic) {
            nics.push(base.nic);
        }
        let g = domain.gpus_per_node.max(1);
        let mut counts = vec![g, g / 2, g / 4];
        counts.retain(|c| *c >= 1);
        counts.dedup();
        for &nic in &nics {
            for &n in &counts {
                for rail in [true, false] {
                    for o in RATIOS {
                        for co in RATIOS {
                            out.push(FabricOption { domain, nic, nics_per_node: n, rail_optimized: rail, oversubscription: o, core_oversubscription: co });
                        }
                    }
                }
            }
        }
    }
    out
}

/// One option, costed and timed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    pub label: String,
    pub option: FabricOption,
    /// GPUs per scale-up domain as built (an NVL72 rack's share of the GPUs).
    pub domain_gpus: u32,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    pub mfu: f64,
    /// The layout that ran fastest on this option ("TP8 PP1 DP128").
    pub layout: String,
    pub power_kw: f64,
    /// Items without a power figure (then `power_kw` is a lower bound).
    pub unpowered: Vec<&'static str>,
    /// Those of them in the scale-out network (what differs between options: the compute
    /// side is the same GPUs in the same systems for every option).
    pub unpowered_network: Vec<&'static str>,
    pub cost_usd: Option<f64>,
    pub switches: u64,
    pub transceivers: u64,
    /// Ranked on the power axis: every part of its bill has a power figure (`unpowered` empty).
    pub power_ranked: bool,
    /// The option's bill of materials, for pricing it again ([`RightSize::repriced`]).
    #[serde(skip)]
    pub bill: Option<std::rc::Rc<Bom>>,
}

impl Candidate {
    /// Whether the option's value on `axis` is known well enough to rank it: fully priced for
    /// cost; for power, see [`summarize`].
    pub fn comparable(&self, axis: Axis) -> bool {
        match axis {
            Axis::CostUsd => self.cost_usd.is_some(),
            Axis::PowerKw => self.power_ranked,
        }
    }
}


/// What the x axis of the front is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// US dollars (every option fully priced).
    CostUsd,
    /// kW (no complete price for some option).
    PowerKw,
}

impl Axis {
    /// An amount on this axis as every table prints money and power: "$15,600" (whole dollars,
    /// thousands separated: `fabricscope_model::figures::usd`) or "12.3 kW".
    pub fn amount(self, x: f64) -> String {
        match self {
            Axis::CostUsd => crate::figures::usd(x),
            Axis::PowerKw => format!("{x:.1} kW"),
        }
    }
}

/// One step down the Pareto front, from a faster option to the next cheaper one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepDown {
    pub from: usize,
    pub to: usize,
    /// What it saves on the axis (USD or kW) and as a fraction of `from`'s.
    pub saves: f64,
    pub saves_frac: f64,
    /// How much longer the step takes, as a fraction of `from`'s.
    pub slower_frac: f64,
}

/// The right-sizer's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RightSize {
    pub candidates: Vec<Candidate>,
    pub axis: Axis,
    /// Some option's power is a lower bound (an item without a published figure). On the power
    /// axis the front ranks only [`Candidate::comparable`] options: switch power left out of all.
    pub lower_bound: bool,
    /// The Pareto front of the comparable options, fastest first (indices into `candidates`).
    pub pareto: Vec<usize>,
    /// The fastest option of all, ranked on the axis or not (what "fastest" means in every
    /// front end).
    pub fastest: Option<usize>,
    /// The cheapest ranked option within [`WITHIN`] of the fastest's step time.
    pub pick: Option<usize>,
    pub steps: Vec<StepDown>,
    /// Options the cluster could not be built with (or the job could not run on).
    pub skipped: u32,
    /// The layouts each option was timed with.
    pub layouts: Vec<String>,
    /// The systems offered, the user's own first.
    pub domains: Vec<Domain>,
}

impl RightSize {
    /// The option that is `base`'s own fabric (its system, NICs, rails and ratios): the
    /// right-sizer's figure for the design as it stands, the step the explorer and compare show.
    pub fn own(&self, base: &Cluster) -> Option<&Candidate> {
        let d = Domain::of(base);
        self.candidates.iter().find(|c| {
            let o = &c.option;
            o.domain == d
                && o.nic == base.nic
                && o.nics_per_node == base.nics_per_node
                && o.rail_optimized == base.rail_optimized
                && o.oversubscription == base.oversubscription.unwrap_or(1.0)
                && o.core_oversubscription == base.core_oversubscription.unwrap_or(1.0)
        })
    }

    /// Items whose missing power keeps options off the power front, each once: what a price
    /// book's `power_w` would have to give.
    pub fn missing_power(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Vec::new();
        for id in self.candidates.iter().filter(|c| !c.power_ranked).flat_map(|c| c.unpowered.iter().copied()) {
            if !v.contains(&id) {
                v.push(id);
            }
        }
        v
    }

    /// What the pick saves on the axis against the fastest ranked option (`None` without a
    /// pick, or when the pick is that option).
    pub fn pick_saves(&self) -> Option<f64> {
        let (top, p) = (*self.pareto.first()?, self.pick?);
        (top != p).then(|| self.x(&self.candidates[top]) - self.x(&self.candidates[p]))
    }

    /// Each system offered, labelled with its domain size as built ("GB200 72-GPU NVL72").
    pub fn systems(&self) -> Vec<String> {
        self.domains
            .iter()
            .map(|d| d.label(self.candidates.iter().find(|c| c.option.domain == *d).map_or(d.gpus_per_node, |c| c.domain_gpus)))
            .collect()
    }

    /// The same options priced from another book (power overrides too): the front, pick and
    /// steps again, without timing anything again.
    pub fn repriced(&self, book: &PriceBook) -> RightSize {
        let candidates = self
            .candidates
            .iter()
            .map(|c| match &c.bill {
                Some(b) => {
                    let b = std::rc::Rc::new(b.repriced(book));
                    Candidate { power_kw: b.power_kw, unpowered: b.unpowered.clone(), unpowered_network: network_unpowered(&b), cost_usd: b.cost_usd, bill: Some(b), ..c.clone() }
                }
                None => c.clone(),
            })
            .collect();
        summarize(candidates, self.skipped, self.layouts.clone(), self.domains.clone())
    }

    /// An option's value on the axis.
    pub fn x(&self, c: &Candidate) -> f64 {
        match self.axis {
            Axis::CostUsd => c.cost_usd.unwrap_or(f64::INFINITY),
            Axis::PowerKw => c.power_kw,
        }
    }
}

enum Phase {
    /// The layout search on system `domain` (boxed: the largest state by far).
    Search { domain: usize, search: Box<Search>, caches: EvaluatorCaches },
    /// Timing and costing option `next`.
    Options { next: usize, out: Vec<Candidate>, skipped: u32 },
    Done(RightSize),
}

/// The right-sizer under way.
pub struct RightSizer {
    w: Workload,
    fixed: Constraints,
    book: PriceBook,
    base: Cluster,
    opts: Vec<FabricOption>,
    domains: Vec<Domain>,
    /// Each system's cluster for its layout search (`None`: not buildable; it reuses the
    /// user's layouts) and the layouts found for it.
    systems: Vec<(Option<Topology>, Vec<Parallel>)>,
    /// Layouts the searches have in all (for progress), and those finished.
    searched: usize,
    searched_done: usize,
    phase: Phase,
}

fn new_search(w: &Workload, n: u32, fixed: Constraints) -> Result<Search> {
    let mut search = Search::new(w, n, &SearchOptions { top: LAYOUTS, max_micro_batch: MAX_MICRO_BATCH, ..SearchOptions::default() })?;
    if fixed != Constraints::default() {
        search = search.with_pinned(fixed);
    }
    Ok(search)
}

impl RightSizer {
    /// Starts right-sizing `base` for `w`; `fixed` pins the layout (all `None`: the search's
    /// best layouts).
    pub fn new(base: &Cluster, w: Workload, fixed: Constraints, book: PriceBook) -> Result<RightSizer> {
        RightSizer::with_options(base, w, fixed, book, RightSizeOptions::default())
    }

    /// [`RightSizer::new`] with the caller's [`RightSizeOptions`].
    pub fn with_options(base: &Cluster, w: Workload, fixed: Constraints, book: PriceBook, opt: RightSizeOptions) -> Result<RightSizer> {
        book.validate()?;
        let topo = base.topology()?;
        Evaluator::new(&topo, &w, Framework::default())?;
        let search = new_search(&w, topo.total_gpus, fixed)?;
        let opts = options_with(base, opt);
        let domains = domains(base);
        // Each other system as its platform's first NIC on every GPU, rails, 1:1 builds it.
        let mut systems: Vec<(Option<Topology>, Vec<Parallel>)> = vec![(Some(topo), Vec::new())];
        for d in domains.iter().skip(1) {
            let nic = opts.iter().find(|o| o.domain == *d).map_or(base.nic, |o| o.nic);
            let o = FabricOption { domain: *d, nic, nics_per_node: d.gpus_per_node, rail_optimized: true, oversubscription: 1.0, core_oversubscription: 1.0 };
            let t = o.apply(base).topology().ok().filter(|t| Evaluator::new(t, &w, Framework::default()).is_ok());
            systems.push((t, Vec::new()));
        }
        let per = search.progress().1;
        let searched = per * systems.iter().filter(|s| s.0.is_some()).count();
        Ok(RightSizer { w, fixed, book, base: base.clone(), opts, domains, systems, searched, searched_done: 0, phase: Phase::Search { domain: 0, search: Box::new(search), caches: EvaluatorCaches::default() } })
    }

    /// Work done and in all (layouts searched, then options costed).
    pub fn progress(&self) -> (usize, usize) {
        let (s, n) = (self.searched, self.opts.len());
        match &self.phase {
            Phase::Search { search, .. } => (self.searched_done + search.progress().0, s + n),
            Phase::Options { next, .. } => (s + next, s + n),
            Phase::Done(_) => (s + n, s + n),
        }
    }

    /// The next system after `from` with a cluster to search on.
    fn next_system(&self, from: usize) -> Option<usize> {
        (from + 1..self.systems.len()).find(|&i| self.systems[i].0.is_some())
    }

    /// Works until done (true) or `more()` says stop.
    pub fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Result<bool> {
        loop {
            match std::mem::replace(&mut self.phase, Phase::Done(empty())) {
                Phase::Done(r) => {
                    self.phase = Phase::Done(r);
                    return Ok(true);
                }
                Phase::Search { domain, mut search, caches } => {
                    let Some(topo) = self.systems[domain].0.clone() else { return Err(ModelError::new("workload", "no cluster to search on")) };
                    let mut ev = Evaluator::new(&topo, &self.w, Framework::default())?.with_caches(caches);
                    if !search.run(&mut ev, more) {
                        self.phase = Phase::Search { domain, search, caches: ev.into_caches() };
                        return Ok(false);
                    }
                    self.searched_done += search.progress().1;
                    let f = search.finish(&mut ev)?;
                    let picked: Vec<Parallel> = match self.fixed == Constraints::default() {
                        true => f.result.best.iter().map(|r| r.mapping).collect(),
                        false => f.pinned.iter().filter(|r| r.fits).map(|r| r.mapping).collect(),
                    };
                    if domain == 0 && picked.is_empty() {
                        let why = f.result.why_none(topo.total_gpus).unwrap_or_else(|| "no layout of the job fits this cluster".to_string());
                        return Err(ModelError::new("workload", why));
                    }
                    self.systems[domain].1 = picked;
                    self.phase = match self.next_system(domain) {
                        Some(d) => Phase::Search { domain: d, search: Box::new(new_search(&self.w, topo.total_gpus, self.fixed)?), caches: EvaluatorCaches::default() },
                        None => Phase::Options { next: 0, out: Vec::new(), skipped: 0 },
                    };
                }
                Phase::Options { mut next, mut out, mut skipped } => {
                    while next < self.opts.len() {
                        let o = self.opts[next];
                        next += 1;
                        // The option's own system's best layouts, then the user's.
                        let d = self.domains.iter().position(|d| *d == o.domain).unwrap_or(0);
                        let mut layouts = self.systems[d].1.clone();
                        for p in &self.systems[0].1 {
                            if !layouts.contains(p) {
                                layouts.push(*p);
                            }
                        }
                        match cost_and_time(&self.base, &o, &self.w, &layouts, &self.book) {
                            Some(c) => out.push(c),
                            None => skipped += 1,
                        }
                        if !more() {
                            self.phase = Phase::Options { next, out, skipped };
                            return Ok(false);
                        }
                    }
                    let mut names: Vec<String> = Vec::new();
                    for n in self.systems.iter().flat_map(|s| s.1.iter()).map(parallel_label) {
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                    self.phase = Phase::Done(summarize(out, skipped, names, self.domains.clone()));
                }
            }
        }
    }

    /// The answer once [`RightSizer::run`] has returned true.
    pub fn result(&self) -> Option<&RightSize> {
        match &self.phase {
            Phase::Done(r) => Some(r),
            _ => None,
        }
    }
}

fn empty() -> RightSize {
    RightSize { candidates: Vec::new(), axis: Axis::PowerKw, lower_bound: false, pareto: Vec::new(), fastest: None, pick: None, steps: Vec::new(), skipped: 0, layouts: Vec::new(), domains: Vec::new() }
}

/// Times the job's layouts on one option and costs its bill; `None` when the option cannot be
/// built, is the same fabric as an option with lower ratios, or runs no layout that fits.
fn cost_and_time(base: &Cluster, o: &FabricOption, w: &Workload, layouts: &[Parallel], book: &PriceBook) -> Option<Candidate> {
    let topo = o.apply(base).topology().ok()?;
    let f = topo.fabric.as_ref()?;
    let tiers = f.switch_tiers.len();
    // A ratio at a tier the tree does not have builds the same fabric as 1:1 there.
    if (tiers < 3 && o.core_oversubscription != 1.0) || (tiers < 2 && o.oversubscription != 1.0) {
        return None;
    }
    let mut ev = Evaluator::new(&topo, w, Framework::default()).ok()?;
    let best = layouts
        .iter()
        .filter_map(|p| evaluate_idle(&mut ev, p).ok())
        .filter(|r| r.fits)
        .min_by(|a, b| a.step_time_s.total_cmp(&b.step_time_s))?;
    let b = bom(&topo, book);
    Some(Candidate {
        label: format!("{} · {}", o.domain.label(topo.domain_gpus), o.label(tiers == 3)),
        option: *o,
        domain_gpus: topo.domain_gpus,
        step_time_s: best.step_time_s,
        tokens_per_s: best.tokens_per_s,
        mfu: best.mfu,
        layout: layout_label(&best),
        power_kw: b.power_kw,
        unpowered_network: network_unpowered(&b),
        unpowered: b.unpowered.clone(),
        cost_usd: b.cost_usd,
        switches: b.switches_total,
        transceivers: b.transceivers,
        power_ranked: false,
        bill: Some(std::rc::Rc::new(b)),
    })
}

/// The scale-out network's items without a power figure.
fn network_unpowered(b: &Bom) -> Vec<&'static str> {
    b.lines.iter().filter(|l| l.group.is_network() && l.unit_power_w.is_none()).map(|l| l.item).collect()
}

/// The front, the pick and the steps down from the options' numbers; `domains` the systems
/// offered, the user's own first.
///
/// The axis is cost when every option of the user's own system is priced (others are ranked
/// on it where priced), else power. On the power axis an option is ranked only when every part
/// of its bill has a power figure: a total that leaves out a part (a switch, a server without
/// a published draw) is a lower bound, and lower bounds are not compared. `fastest` is the
/// fastest of all options, ranked or not.
pub fn summarize(mut candidates: Vec<Candidate>, skipped: u32, layouts: Vec<String>, domains: Vec<Domain>) -> RightSize {
    let own = domains.first().copied();
    let mine = |c: &&Candidate| own.is_none_or(|d| c.option.domain == d);
    let axis = if candidates.iter().any(|c| mine(&c)) && candidates.iter().filter(mine).all(|c| c.cost_usd.is_some()) { Axis::CostUsd } else { Axis::PowerKw };
    for c in &mut candidates {
        c.power_ranked = c.unpowered.is_empty();
    }
    let mut r = RightSize { lower_bound: candidates.iter().any(|c| !c.unpowered.is_empty()), candidates, axis, skipped, layouts, domains, ..empty() };
    let ranked: Vec<usize> = (0..r.candidates.len()).filter(|&i| r.candidates[i].comparable(axis)).collect();
    // (step, x, index) order; written out rather than sorted (one sort instance less in the
    // page's bundle).
    let key = |i: usize| (r.candidates[i].step_time_s, r.x(&r.candidates[i]), i);
    let before = |a: usize, b: usize| key(a).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Less);
    // On the front: no option before it (faster, or as fast and cheaper) costs as little.
    let mut front: Vec<usize> = Vec::new();
    for &i in &ranked {
        if !ranked.iter().any(|&j| before(j, i) && key(j).1 <= key(i).1) {
            let at = front.iter().position(|&k| before(i, k)).unwrap_or(front.len());
            front.insert(at, i);
        }
    }
    // The fastest of all; step times equal to a part per million (float noise between fabrics
    // that time the same) go to the first option, the lower ratio.
    let min = r.candidates.iter().map(|c| c.step_time_s).fold(f64::INFINITY, f64::min);
    r.fastest = r.candidates.iter().position(|c| c.step_time_s <= min * (1.0 + 1e-6));
    r.pareto = front;
    if let Some(f) = r.fastest {
        let limit = r.candidates[f].step_time_s * (1.0 + WITHIN);
        r.pick = r.pareto.iter().copied().rfind(|&i| r.candidates[i].step_time_s <= limit);
    }
    r.steps = r
        .pareto
        .windows(2)
        .map(|w| {
            let (a, b) = (&r.candidates[w[0]], &r.candidates[w[1]]);
            let (xa, xb) = (r.x(a), r.x(b));
            StepDown {
                from: w[0],
                to: w[1],
                saves: xa - xb,
                saves_frac: if xa > 0.0 { (xa - xb) / xa } else { 0.0 },
                slower_frac: b.step_time_s / a.step_time_s - 1.0,
            }
        })
        .collect();
    r
}

/// The whole right-sizing at once (the CLI's path).
pub fn rightsize(base: &Cluster, w: Workload, fixed: Constraints, book: PriceBook) -> Result<RightSize> {
    rightsize_with(base, w, fixed, book, RightSizeOptions::default())
}

/// [`rightsize`] with the caller's [`RightSizeOptions`].
pub fn rightsize_with(base: &Cluster, w: Workload, fixed: Constraints, book: PriceBook, opt: RightSizeOptions) -> Result<RightSize> {
    let mut s = RightSizer::with_options(base, w, fixed, book, opt)?;
    s.run(&mut || true)?;
    s.result().cloned().ok_or_else(|| ModelError::new("workload", "the right-sizer did not finish"))
}

#[cfg(test)]
mod tests;
