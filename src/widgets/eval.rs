//! What the page shows, as a pure function of the cluster: the model's Report, the headline
//! AllReduce at 1 GiB, NCCL's formula for it, and the numbers the drawing needs. Plus the
//! controls' value steps and texts. No web types, so it tests natively.

use fabricscope_charts::topology::{Layout, TopoSpec};
use fabricscope_model::report::Curve;
use fabricscope_model::units::Bytes;
use fabricscope_model::{
    explain, Bottleneck, Cluster, Collective, Formula, ModelError, Prediction, Report, Scenario,
    TierKind,
};
use fabricscope_model::report::Scope;
use fabricscope_model::catalog::{GpuKind, ScaleUp};
use fabricscope_model::topology::MAX_NODES;
use std::cell::RefCell;
use std::rc::Rc;
use fabricscope_model::reading::{read, Reading};

/// nccl-tests' default sweep: 8 B to 16 GiB in powers of two.
pub const SWEEP_MIN: u64 = 8;
pub const SWEEP_MAX: u64 = 16 << 30;
/// The size the key numbers quote by default (nccl-tests' plateau is what vendors quote);
/// the view's headline-size picker changes it.
pub const KEY_BYTES: u64 = fabricscope_model::scenario::DEFAULT_KEY_BYTES.0;
/// Sizes the headline-size picker offers: 64 KiB to 16 GiB.
pub const KEY_CHOICES: [u64; 19] = {
    let mut a = [0u64; 19];
    let mut i = 0;
    while i < 19 {
        a[i] = 1 << (16 + i);
        i += 1;
    }
    a
};

/// A size in words with binary prefixes: "1 GiB", "256 MiB", "64 KiB".
pub fn size_words(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (u, s) in UNITS {
        if bytes >= s && bytes.is_multiple_of(s) {
            return format!("{} {u}", bytes / s);
        }
    }
    format!("{bytes} B")
}

/// Everything the page draws for one valid cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub cluster: Cluster,
    pub report: Report,
    pub total_gpus: u32,
    /// "8 × H100 SXM"-style description of one node.
    pub node_summary: String,
    pub scale_up: String,
    /// Scale-out NICs of one node.
    pub nics: String,
    /// The headline size (bytes): [`KEY_BYTES`] unless the view picks another.
    pub key_bytes: u64,
    /// AllReduce of `key_bytes` over every GPU (None for a single GPU).
    pub key: Option<Prediction>,
    /// NCCL's formula for [`Evaluation::key`].
    pub formula: Option<Formula>,
    /// What the headline busbw means (its bound, NVLS/SHARP, scaling), in words.
    pub reading: Option<Reading>,
    /// The drawing's view of the cluster (its layout is filled in by the mapping panel).
    pub topo: TopoSpec,
    /// On a cluster as measured: "Calibrated from 3 logs: measured at 2 nodes, predicted at 64".
    pub calibrated: Option<String>,
}

/// Runs the model on `cluster`, the headline at [`KEY_BYTES`].
pub fn evaluate(cluster: &Cluster) -> Result<Evaluation, ModelError> {
    evaluate_at(cluster, KEY_BYTES)
}

/// Runs the model on `cluster`, the headline at `key_bytes` (brought into the sweep as
/// [`fabricscope_model::View::headline_bytes`] does).
pub fn evaluate_at(cluster: &Cluster, key_bytes: u64) -> Result<Evaluation, ModelError> {
    let topo = cluster.topology()?;
    let mut scenario = Scenario::new(cluster.clone());
    scenario.view.key_bytes = Bytes(key_bytes);
    let key_bytes = scenario.view.headline_bytes().0;
    let report = fabricscope_model::evaluate(&scenario)?;
    let key_curve = curve(&report, Collective::AllReduce, Scope::Cluster)
        .or_else(|| curve(&report, Collective::AllReduce, Scope::Domain));
    let key = key_curve.and_then(|c| c.points.iter().find(|p| p.bytes.0 == key_bytes).copied());
    let formula = if topo.total_gpus >= 2 {
        explain(&topo, topo.whole(), Collective::AllReduce, Bytes(key_bytes)).ok()
    } else {
        None
    };
    let reading = match (&formula, &key) {
        (Some(f), Some(k)) => Some(read(&report, f, k)),
        _ => None,
    };
    let (leaves, spines, cores, npl, oversub, switch) = match &topo.fabric {
        Some(f) => (f.leaves, f.spines, f.cores, f.nodes_per_leaf, f.oversubscription, f.switch.to_string()),
        None => (0, 0, 0, cluster.nodes, 1.0, String::new()),
    };
    Ok(Evaluation {
        cluster: cluster.clone(),
        total_gpus: topo.total_gpus,
        node_summary: format!("{} × {}", cluster.gpus_per_node, topo.gpu.name),
        scale_up: cluster.scale_up.name().to_string(),
        nics: if cluster.nics_per_node == 0 {
            "no NICs".into()
        } else {
            format!("{} × {}", cluster.nics_per_node, topo.nic.name)
        },
        key_bytes,
        key,
        formula,
        reading,
        topo: TopoSpec {
            nodes: cluster.nodes,
            gpus_per_node: cluster.gpus_per_node,
            domain_gpus: topo.domain_gpus,
            nics_per_node: cluster.nics_per_node,
            leaves,
            spines,
            cores,
            nodes_per_leaf: npl,
            oversubscription: oversub,
            scale_up: cluster.scale_up.name().to_string(),
            nic: topo.nic.name.to_string(),
            switch,
            layout: Layout::data_parallel(topo.total_gpus),
        },
        // The explorer's index.html reads no calibration (measured.html does: Cargo.toml's `calibrate`).
        #[cfg(feature = "calibrate")]
        calibrated: cluster.measured().and_then(Result::ok).map(|c| c.words(topo.domains)),
        #[cfg(not(feature = "calibrate"))]
        calibrated: None,
        report,
    })
}

impl Evaluation {
    /// The headline of `op` (the collective the page has chosen) at the headline size over every
    /// GPU: AllReduce's is [`Evaluation::key`]; the others are read off the report's curves.
    pub fn key_of(&self, op: Collective) -> Option<Prediction> {
        if op == Collective::AllReduce {
            return self.key;
        }
        curve(&self.report, op, Scope::Cluster)
            .or_else(|| curve(&self.report, op, Scope::Domain))
            .and_then(|c| c.points.iter().find(|p| p.bytes.0 == self.key_bytes).copied())
    }
}

/// The report's curve for `op` on `scope`.
pub fn curve(r: &Report, op: Collective, scope: Scope) -> Option<&Curve> {
    r.curves.iter().find(|c| c.op == op && c.scope == scope)
}

pub use fabricscope_charts::report::choice_changes;

/// A count control: its model field, label, slider steps and whether it can be "auto".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Count {
    Nodes,
    GpusPerNode,
    NicsPerNode,
    Leaves,
    Spines,
    Radix,
}

const NODE_STEPS: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const GPN_STEPS: &[u32] = &[1, 2, 4, 8, 9, 16, 18, 36, 72];
const NIC_STEPS: &[u32] = &[0, 1, 2, 4, 8, 16, 32];
const LEAF_STEPS: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const SPINE_STEPS: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
const RADIX_STEPS: &[u32] = &[8, 16, 32, 40, 64, 128, 144, 256];

/// GPUs in one GB200 NVL72 compute tray: two GB200 superchips, each one Grace CPU and two
/// Blackwell GPUs (NVIDIA GB200 NVL72 datasheet: 18 compute trays, 72 GPUs, 36 Grace CPUs).
pub const NVL72_TRAY_GPUS: u32 = 4;
/// GPUs in one NVL72 rack, one NVLink domain (same datasheet).
pub const NVL72_RACK_GPUS: u32 = 72;

/// Whether the node count is shown as GPUs in NVL72 racks (trays are the model's nodes).
pub fn in_racks(c: &Cluster) -> bool {
    c.scale_up == ScaleUp::Nvl72
}

impl Count {
    pub const ALL: [Count; 6] = [
        Count::Nodes,
        Count::GpusPerNode,
        Count::NicsPerNode,
        Count::Leaves,
        Count::Spines,
        Count::Radix,
    ];

    /// The model's name for the field (ModelError.field).
    pub fn field(self) -> &'static str {
        match self {
            Count::Nodes => "nodes",
            Count::GpusPerNode => "gpus_per_node",
            Count::NicsPerNode => "nics_per_node",
            Count::Leaves => "leaf_switches",
            Count::Spines => "spine_switches",
            Count::Radix => "switch_radix",
        }
    }
    /// DOM id stem.
    pub fn id(self) -> &'static str {
        match self {
            Count::Nodes => "nodes",
            Count::GpusPerNode => "gpn",
            Count::NicsPerNode => "nics",
            Count::Leaves => "leaves",
            Count::Spines => "spines",
            Count::Radix => "radix",
        }
    }
    /// The control's label for this cluster (NVL72 racks are sized in GPUs, nodes are trays).
    pub fn label(self, c: &Cluster) -> &'static str {
        match (self, in_racks(c)) {
            (Count::Nodes, true) => "GPUs",
            (Count::Nodes, false) => "Nodes",
            (Count::GpusPerNode, true) => "GPUs per tray",
            (Count::GpusPerNode, false) => "GPUs per node",
            (Count::NicsPerNode, true) => "NICs per tray",
            (Count::NicsPerNode, false) => "NICs per node",
            (Count::Leaves, _) => "Leaf switches",
            (Count::Spines, _) => "Spine switches",
            (Count::Radix, _) => "Switch radix",
        }
    }
    /// The field may be left to the model ("auto").
    pub fn auto(self) -> bool {
        matches!(self, Count::Leaves | Count::Spines | Count::Radix)
    }
    pub fn get(self, c: &Cluster) -> Option<u32> {
        match self {
            Count::Nodes => Some(c.nodes),
            Count::GpusPerNode => Some(c.gpus_per_node),
            Count::NicsPerNode => Some(c.nics_per_node),
            Count::Leaves => c.leaf_switches,
            Count::Spines => c.spine_switches,
            Count::Radix => c.switch_radix,
        }
    }
    pub fn set(self, c: &mut Cluster, v: Option<u32>) {
        match self {
            Count::Nodes => c.nodes = v.unwrap_or(c.nodes),
            Count::GpusPerNode => c.gpus_per_node = v.unwrap_or(c.gpus_per_node),
            Count::NicsPerNode => c.nics_per_node = v.unwrap_or(c.nics_per_node),
            Count::Leaves => c.leaf_switches = v,
            Count::Spines => c.spine_switches = v,
            Count::Radix => c.switch_radix = v,
        }
    }
    /// Text for a value as the number box shows it.
    pub fn text(self, v: Option<u32>) -> String {
        v.map(|v| v.to_string()).unwrap_or_else(|| "auto".into())
    }
}

/// A count control as drawn for one cluster: the unit its slider and box use (GPUs for the
/// nodes of NVL72 racks: `per` GPUs per model node) and the values its slider stops at,
/// only those the model accepts where the fabric restricts them.
#[derive(Clone, Debug, PartialEq)]
pub struct Gauge {
    pub kind: Count,
    /// Shown value = model value x `per`.
    pub per: u32,
    /// Slider stops in shown units (after "auto" when the field allows it).
    pub steps: Rc<[u32]>,
}

thread_local! {
    /// Stops that depend on the hardware, per (count, cluster without the count): probing the
    /// model takes a few dozen checks, so once per hardware choice, not per slider input.
    static STEPS: RefCell<Vec<((Count, Cluster), Rc<[u32]>)>> = const { RefCell::new(Vec::new()) };
}

/// `candidates` the model does not blame on `k`'s field (others may still be at fault).
fn accepted(k: Count, c: &Cluster, candidates: &[u32]) -> Rc<[u32]> {
    let mut key = c.clone();
    k.set(&mut key, Some(0));
    if let Some(hit) = STEPS.with(|s| s.borrow().iter().find(|(kk, _)| *kk == (k, key.clone())).map(|(_, v)| v.clone())) {
        return hit;
    }
    let v: Vec<u32> = candidates
        .iter()
        .copied()
        .filter(|n| {
            let mut t = c.clone();
            k.set(&mut t, Some(*n));
            t.topology().err().is_none_or(|e| e.field != k.field())
        })
        .collect();
    let mut v = fabricscope_model::sorting::sorted_distinct(v);
    if v.is_empty() {
        v = k_steps(k).to_vec();
    }
    let v: Rc<[u32]> = v.into();
    STEPS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() >= 16 {
            s.remove(0);
        }
        s.push(((k, key), v.clone()));
    });
    v
}

fn k_steps(k: Count) -> &'static [u32] {
    match k {
        Count::Nodes => NODE_STEPS,
        Count::GpusPerNode => GPN_STEPS,
        Count::NicsPerNode => NIC_STEPS,
        Count::Leaves => LEAF_STEPS,
        Count::Spines => SPINE_STEPS,
        Count::Radix => RADIX_STEPS,
    }
}

impl Gauge {
    /// The control for `k` on cluster `c`.
    pub fn of(k: Count, c: &Cluster) -> Gauge {
        let (per, steps): (u32, Rc<[u32]>) = match k {
            Count::Nodes if in_racks(c) => {
                // Trays in powers of two (partial racks, where the model takes them) and
                // whole racks in powers of two; the model decides which are valid.
                let gpn = c.gpus_per_node.max(1);
                let rack = (NVL72_RACK_GPUS / gpn).max(1);
                let cands: Vec<u32> = (0..17).flat_map(|i| [1u32 << i, rack.saturating_mul(1 << i)]).filter(|n| *n <= MAX_NODES).collect();
                let trays = accepted(k, c, &cands);
                (gpn, trays.iter().map(|t| t * gpn).collect())
            }
            Count::GpusPerNode => (1, accepted(k, &Cluster { nodes: 1, ..c.clone() }, GPN_STEPS)),
            _ => (1, k_steps(k).into()),
        };
        Gauge { kind: k, per, steps }
    }
    /// The value the control shows for `c`.
    pub fn shown(&self, c: &Cluster) -> Option<u32> {
        self.kind.get(c).map(|v| v.saturating_mul(self.per))
    }
    /// Highest slider position.
    pub fn max_pos(&self) -> u32 {
        self.steps.len() as u32 - 1 + u32::from(self.kind.auto())
    }
    /// Slider position of a shown value: the largest step not above it (0 is "auto").
    pub fn pos(&self, v: Option<u32>) -> u32 {
        let off = u32::from(self.kind.auto());
        match v {
            None => 0,
            Some(v) => self.steps.iter().rposition(|s| *s <= v).unwrap_or(0) as u32 + off,
        }
    }
    /// Model value at a slider position.
    pub fn at(&self, pos: u32) -> Option<u32> {
        let off = u32::from(self.kind.auto());
        if self.kind.auto() && pos == 0 {
            return None;
        }
        let i = (pos.saturating_sub(off) as usize).min(self.steps.len() - 1);
        Some(self.steps[i] / self.per)
    }
    /// Parses the number box into the model's value: a whole number in the shown unit, or
    /// (auto fields) empty / "auto". Out-of-range numbers parse; the model names the range.
    pub fn parse(&self, c: &Cluster, text: &str) -> Result<Option<u32>, ModelError> {
        let k = self.kind;
        let t = text.trim();
        if k.auto() && (t.is_empty() || t.eq_ignore_ascii_case("auto")) {
            return Ok(None);
        }
        let what = k.label(c).to_ascii_lowercase();
        if t.is_empty() {
            return Err(ModelError::new(k.field(), format!("enter the {what}: a whole number")));
        }
        let shown = t.parse::<u32>().map_err(|_| {
            let big = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            ModelError::new(
                k.field(),
                format!(
                    "the {what} must be a whole number{}{}; got \"{}\"",
                    if k.auto() { " or auto" } else { "" },
                    if big { format!(" up to {}", u32::MAX) } else { String::new() },
                    t.chars().take(24).collect::<String>()
                ),
            )
        })?;
        if !shown.is_multiple_of(self.per) {
            return Err(ModelError::new(
                k.field(),
                format!("NVL72 GPUs come in trays of {}: enter a multiple of {} (a rack is {NVL72_RACK_GPUS})", self.per, self.per),
            ));
        }
        Ok(Some(shown / self.per))
    }
}

/// What a screen reader announces for a count control (and the value shown beside it).
/// `derived` is the model's value when the field is auto.
pub fn count_text(k: Count, c: &Cluster, derived: Option<u32>) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (k, k.get(c)) {
        (Count::Nodes, Some(n)) if in_racks(c) => {
            let total = c.total_gpus();
            if total.is_multiple_of(NVL72_RACK_GPUS) {
                format!("{}, {}", plural(total, "GPU", "GPUs"), plural(total / NVL72_RACK_GPUS, "rack", "racks"))
            } else {
                format!("{}, {} of {}", plural(total, "GPU", "GPUs"), plural(n, "tray", "trays"), c.gpus_per_node)
            }
        }
        (Count::Nodes, Some(n)) => {
            format!("{}, {}", plural(n, "node", "nodes"), plural(c.total_gpus(), "GPU", "GPUs"))
        }
        (Count::GpusPerNode, Some(n)) if in_racks(c) => plural(n, "GPU per tray", "GPUs per tray"),
        (Count::GpusPerNode, Some(n)) => plural(n, "GPU per node", "GPUs per node"),
        (Count::NicsPerNode, Some(n)) if in_racks(c) => plural(n, "NIC per tray", "NICs per tray"),
        (Count::NicsPerNode, Some(n)) => plural(n, "NIC per node", "NICs per node"),
        (Count::Leaves, Some(n)) => plural(n, "leaf switch", "leaf switches"),
        (Count::Spines, Some(n)) => plural(n, "spine switch", "spine switches"),
        (Count::Radix, Some(n)) => format!("{n} ports per switch"),
        (k, None) => match derived {
            Some(d) => format!(
                "auto ({})",
                match k {
                    Count::Leaves => plural(d, "leaf", "leaves"),
                    Count::Spines => plural(d, "spine", "spines"),
                    _ => format!("{d} ports"),
                }
            ),
            None => "auto".into(),
        },
    }
}

/// Why scale-up fabric `s` cannot carry GPU `g`, in the model's words (None when it can).
/// Probed on one node of two GPUs, which every fabric that fits the GPU accepts.
pub fn scale_up_fault(g: GpuKind, s: ScaleUp) -> Option<String> {
    let c = Cluster { gpu: g, scale_up: s, nodes: 1, gpus_per_node: 2, nics_per_node: 0, sharp: false, ..Cluster::default() };
    c.topology().err().filter(|e| e.field == "scale_up").map(|e| {
        // The reason, without the CLI's flag advice: "H100 has NVLink4, not NVLink3".
        let m = e.message.split(':').next().unwrap_or(&e.message);
        m.split(" (--").next().unwrap_or(m).trim().to_string()
    })
}

thread_local! {
    static FAULTS: RefCell<Option<(GpuKind, Rc<[Option<String>]>)>> = const { RefCell::new(None) };
}

/// [`scale_up_fault`] of every fabric in [`ScaleUp::ALL`] order, once per GPU choice.
pub fn scale_up_faults(g: GpuKind) -> Rc<[Option<String>]> {
    FAULTS.with(|f| crate::widgets::cached(f, g, |g| ScaleUp::ALL.iter().map(|s| scale_up_fault(*g, *s)).collect()))
}

/// The cluster after choosing GPU `g`. Where the current fabric cannot carry it, the GPU's own
/// fabric, with nodes shaped like that fabric's usual ones (NVL72: trays of 4 GPUs with one
/// NIC each; leaving NVL72: 8-GPU nodes) and about the same GPU count, rounded to what the
/// model accepts.
pub fn with_gpu(c: &Cluster, g: GpuKind) -> Cluster {
    let mut n = Cluster { gpu: g, ..c.clone() };
    if scale_up_fault(g, c.scale_up).is_none() {
        return n;
    }
    let total = c.total_gpus().max(1);
    n.scale_up = ScaleUp::natural(g);
    if n.scale_up == ScaleUp::Nvl72 {
        (n.gpus_per_node, n.nics_per_node) = (NVL72_TRAY_GPUS, NVL72_TRAY_GPUS);
        n.nodes = total.div_ceil(NVL72_TRAY_GPUS);
        if n.topology().is_err_and(|e| e.field == "nodes") {
            n.nodes = total.div_ceil(NVL72_RACK_GPUS) * (NVL72_RACK_GPUS / NVL72_TRAY_GPUS);
        }
    } else if c.scale_up == ScaleUp::Nvl72 {
        n.gpus_per_node = 8.min(n.scale_up.max_domain());
        n.nics_per_node = n.gpus_per_node;
        n.nodes = total.div_ceil(n.gpus_per_node);
    }
    if n.topology().is_err_and(|e| e.field == "gpus_per_node") {
        // E.g. an odd count on bridged pairs: the largest count the fabric takes below it.
        if let Some(g) = Gauge::of(Count::GpusPerNode, &n).steps.iter().rev().find(|s| **s <= n.gpus_per_node.max(2)) {
            n.gpus_per_node = *g;
        }
    }
    n
}

/// Parallel sizes the mapping panel offers: powers of two that divide the GPU count. TP up
/// to 64, PP up to 64 and dividing what TP leaves.
pub fn tp_choices(total: u32) -> Vec<u32> {
    (0..=6).map(|e| 1u32 << e).filter(|t| total.is_multiple_of(*t) && *t <= total).collect()
}

/// PP values that divide what `tp` leaves of `total`.
pub fn pp_choices(total: u32, tp: u32) -> Vec<u32> {
    let rest = total / tp.max(1);
    (0..=6).map(|e| 1u32 << e).filter(|p| rest.is_multiple_of(*p) && *p <= rest).collect()
}

/// The valid layout nearest (not above) the requested sizes, Megatron order.
pub fn layout_for(total: u32, tp: u32, pp: u32) -> Layout {
    let tp = tp_choices(total).into_iter().filter(|t| *t <= tp).max().unwrap_or(1);
    let pp = pp_choices(total, tp).into_iter().filter(|p| *p <= pp).max().unwrap_or(1);
    Layout { tp, pp, dp: (total / (tp * pp)).max(1) }
}

/// Plain words for what limits a prediction.
pub fn bottleneck_text(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::Latency => "latency",
        Bottleneck::Tier(TierKind::Hbm) => "HBM",
        Bottleneck::Tier(TierKind::ScaleUp) => "scale-up fabric",
        Bottleneck::Tier(TierKind::Pcie) => "PCIe",
        Bottleneck::Tier(TierKind::Nic) => "NICs",
        Bottleneck::Tier(TierKind::Leaf) => fabricscope_model::reading::ECMP_LEAF,
        Bottleneck::Tier(TierKind::Spine) => "spine switches",
        Bottleneck::Tier(TierKind::Core) => "core switches",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::{AlgoChoice, Comm, ProtoChoice};

    #[test]
    fn default_cluster_evaluates() {
        let e = evaluate(&Cluster::default()).expect("default cluster is valid");
        assert_eq!(e.total_gpus, 32);
        let k = e.key.expect("32 GPUs have an AllReduce");
        assert!(k.busbw.0.is_finite() && k.busbw.0 > 0.0);
        assert_eq!(k.ranks, 32);
        let f = e.formula.expect("AllReduce has NCCL's formula");
        assert_eq!(f.time, k.time);
        assert_eq!(e.topo.domain_gpus, 8);
        assert_eq!(e.topo.leaves, 1);
        let c = curve(&e.report, Collective::AllReduce, Scope::Cluster).unwrap();
        let ch = choice_changes(c);
        assert_eq!(ch[0].0, 8);
        assert!(ch.len() >= 2, "NCCL switches algorithm or protocol along the sweep: {ch:?}");
        assert!(ch.windows(2).all(|w| w[0].1 != w[1].1));
    }

    #[test]
    fn one_gpu_has_no_collective_but_still_evaluates() {
        let e = evaluate(&Cluster { nodes: 1, gpus_per_node: 1, ..Cluster::default() }).unwrap();
        assert!(e.key.is_none() && e.formula.is_none());
    }

    /// NCCL 2.27.5's own tables for 2x8 H100 with 8x400G (validation/nccl-golden.csv): Ring
    /// Simple AllReduce has latency 131.6 us (x1.4 on the ring plateau) and algbw 204.8 GB/s.
    #[test]
    fn forced_ring_simple_matches_nccl_golden() {
        let c = Cluster { nodes: 2, ..Cluster::default() };
        let topo = c.topology().expect("valid");
        let comm = Comm::new(&topo, topo.whole()).expect("valid");
        let p = comm
            .predict(Collective::AllReduce, Bytes(KEY_BYTES), AlgoChoice::Ring, ProtoChoice::Simple)
            .expect("ring runs");
        let want = 131.6 * 1.4 + KEY_BYTES as f64 / (1000.0 * 204.8);
        let nccl = p.nccl_time.expect("NCCL models AllReduce").0;
        assert!((nccl - want).abs() / want < 0.005, "{nccl} vs {want}");
        // What nccl-tests measures on such nodes is slower than NCCL's estimate (DGX Cloud B200,
        // 2 nodes of 8 NDR NICs: 344.7 GB/s busbw against NCCL's 384).
        assert!(p.time.0 > nccl, "{} vs {nccl}", p.time.0);
    }

    /// Issue 9: 5 or 7 GPUs per node failed the whole evaluation (a claim split an odd group
    /// in two halves; 3 or 6 failed the training search, see training::mapping's
    /// groups_fit_nodes_of_any_size). Every count 1-8 on an 8-GPU NVSwitch node with 8 NICs
    /// evaluates.
    #[test]
    fn every_gpu_count_per_node_evaluates() {
        for gpn in 1..=8 {
            for nodes in [1, 2, 4, 16] {
                let c = Cluster { nodes, gpus_per_node: gpn, ..Cluster::default() };
                let e = evaluate(&c).unwrap_or_else(|e| panic!("{nodes}x{gpn}: {e:?}"));
                assert_eq!(e.total_gpus, nodes * gpn);
            }
        }
    }

    #[test]
    fn errors_come_from_the_model_with_a_field() {
        let e = evaluate(&Cluster { nodes: 0, ..Cluster::default() }).unwrap_err();
        assert_eq!(e.field, "nodes");
        assert!(e.message.contains("between 1 and"), "{}", e.message);
    }

    #[test]
    fn slider_steps() {
        let d = Cluster::default();
        let n = Gauge::of(Count::Nodes, &d);
        assert_eq!(n.pos(Some(4)), 2);
        assert_eq!(n.pos(Some(5)), 2);
        assert_eq!(n.pos(Some(140)), 7);
        assert_eq!(n.at(7), Some(128));
        assert_eq!(n.at(99), Some(4096));
        assert_eq!(n.max_pos(), 12);
        let l = Gauge::of(Count::Leaves, &d);
        assert_eq!(l.pos(None), 0);
        assert_eq!(l.at(0), None);
        assert_eq!(l.at(1), Some(1));
        assert_eq!(l.pos(Some(32)), 6);
        for k in Count::ALL {
            let g = Gauge::of(k, &d);
            for p in 0..=g.max_pos() {
                assert_eq!(g.pos(g.at(p).map(|v| v * g.per)), p, "{k:?} {p}");
            }
        }
        // An 8-GPU NVSwitch baseboard: the GPU slider stops at what the model accepts.
        assert_eq!(&*Gauge::of(Count::GpusPerNode, &d).steps, &[1, 2, 4, 8]);
        let c = Cluster { nodes: 32, ..Cluster::default() };
        assert_eq!(count_text(Count::Nodes, &c, None), "32 nodes, 256 GPUs");
        assert_eq!(count_text(Count::Leaves, &c, Some(8)), "auto (8 leaves)");
        assert_eq!(count_text(Count::Radix, &Cluster { switch_radix: Some(64), ..c }, None), "64 ports per switch");
    }

    /// Issue 9: GB200 NVL72 was sized in 4-GPU trays on a powers-of-two slider, every
    /// position but one an error. Sized in GPUs, every stop is one the model accepts.
    #[test]
    fn nvl72_is_sized_in_gpus_at_stops_the_model_accepts() {
        let c = fabricscope_model::cluster_preset("gb200-nvl72").unwrap().cluster();
        let g = Gauge::of(Count::Nodes, &c);
        assert_eq!(g.per, NVL72_TRAY_GPUS);
        assert_eq!(Count::Nodes.label(&c), "GPUs");
        assert_eq!(g.shown(&c), Some(288), "4 racks of 72");
        for p in 0..=g.max_pos() {
            let t = Cluster { nodes: g.at(p).unwrap(), ..c.clone() };
            assert!(t.topology().is_ok(), "stop {p}: {} GPUs {:?}", t.total_gpus(), t.topology().err());
        }
        for racks in [1, 2, 4, 8, 16, 64, 1024] {
            assert!(g.steps.contains(&(racks * 72)), "{racks} racks offered: {:?}", g.steps);
        }
        assert_eq!(count_text(Count::Nodes, &c, None), "288 GPUs, 4 racks");
        assert_eq!(count_text(Count::Nodes, &Cluster { nodes: 4, ..c.clone() }, None), "16 GPUs, 4 trays of 4");
        // Typed in GPUs: whole trays only, and the model's range for the rest.
        assert_eq!(g.parse(&c, "144"), Ok(Some(36)));
        assert!(g.parse(&c, "70").unwrap_err().message.contains("trays of 4"));
        // Per tray: only counts that divide the rack.
        assert_eq!(&*Gauge::of(Count::GpusPerNode, &c).steps, &[1, 2, 4, 8, 9, 18, 36, 72]);
    }

    /// Issue 9: choosing a GPU moves to the GPU's own fabric instead of leaving an error.
    #[test]
    fn choosing_a_gpu_picks_its_fabric() {
        let d = Cluster::default();
        for g in GpuKind::ALL {
            let c = with_gpu(&d, g);
            assert_eq!(c.gpu, g);
            assert!(c.topology().is_ok(), "{g:?}: {:?}", c.topology().err());
        }
        assert_eq!(with_gpu(&d, GpuKind::A100).scale_up, ScaleUp::NvSwitch { gen: 3 });
        assert_eq!(with_gpu(&d, GpuKind::H200), Cluster { gpu: GpuKind::H200, ..d.clone() }, "H200 fits NVLink4: nothing else moves");
        let gb = with_gpu(&d, GpuKind::Gb200);
        assert_eq!((gb.scale_up, gb.gpus_per_node, gb.nics_per_node, gb.total_gpus()), (ScaleUp::Nvl72, 4, 4, 32));
        let big = with_gpu(&Cluster { nodes: 16, ..d.clone() }, GpuKind::Gb200);
        assert!(big.topology().is_ok() && big.total_gpus() >= 128, "{} GPUs", big.total_gpus());
        let back = with_gpu(&gb, GpuKind::H100);
        assert_eq!((back.scale_up, back.gpus_per_node, back.total_gpus()), (ScaleUp::NvSwitch { gen: 4 }, 8, 32));
        // A fabric that cannot carry the GPU is named with the model's reason.
        assert!(scale_up_fault(GpuKind::H100, ScaleUp::NvSwitch { gen: 3 }).unwrap().contains("NVLink4"));
        assert!(scale_up_fault(GpuKind::H100, ScaleUp::Nvl72).unwrap().contains("GB200"));
        assert_eq!(scale_up_fault(GpuKind::H100, ScaleUp::Pcie { gen: fabricscope_model::catalog::PcieGen::Gen5, p2p: true }), None);
        assert_eq!(scale_up_faults(GpuKind::A100).iter().filter(|f| f.is_none()).count(), 9, "NVLink3 and the 8 PCIe fabrics");
    }

    #[test]
    fn number_box_text() {
        let d = Cluster::default();
        let (n, sp) = (Gauge::of(Count::Nodes, &d), Gauge::of(Count::Spines, &d));
        assert_eq!(n.parse(&d, " 16 "), Ok(Some(16)));
        assert_eq!(n.parse(&d, "").unwrap_err().field, "nodes");
        assert!(n.parse(&d, "1.5").unwrap_err().message.contains("whole number"));
        assert!(n.parse(&d, "1e9").unwrap_err().message.contains("whole number"));
        // Past u32: says the limit instead of wrapping or clamping.
        assert!(n.parse(&d, "99999999999").unwrap_err().message.contains("up to 4294967295"));
        // In u32 but out of the model's range: parses; the model names the range.
        assert_eq!(n.parse(&d, "99999"), Ok(Some(99999)));
        let e = evaluate(&Cluster { nodes: 99999, ..d.clone() }).unwrap_err();
        assert!(e.field == "nodes" && e.message.contains("between 1 and 65536"), "{e:?}");
        assert_eq!(sp.parse(&d, "auto"), Ok(None));
        assert_eq!(sp.parse(&d, ""), Ok(None));
        assert_eq!(Gauge::of(Count::Radix, &d).parse(&d, "x").unwrap_err().field, "switch_radix");
    }

    #[test]
    fn mapping_offers_only_valid_sizes() {
        assert_eq!(tp_choices(32), vec![1, 2, 4, 8, 16, 32]);
        assert_eq!(pp_choices(32, 8), vec![1, 2, 4]);
        assert_eq!(layout_for(1024, 8, 4), Layout { tp: 8, pp: 4, dp: 32 });
        assert_eq!(layout_for(24, 16, 4), Layout { tp: 8, pp: 1, dp: 3 });
        assert_eq!(layout_for(8, 64, 64), Layout { tp: 8, pp: 1, dp: 1 });
    }
}
