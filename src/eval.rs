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
        report,
    })
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
const GPN_STEPS: &[u32] = &[1, 2, 4, 8, 16, 18, 36, 72];
const NIC_STEPS: &[u32] = &[0, 1, 2, 4, 8, 16, 32];
const LEAF_STEPS: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const SPINE_STEPS: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
const RADIX_STEPS: &[u32] = &[8, 16, 32, 40, 64, 128, 144, 256];

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
    pub fn label(self) -> &'static str {
        match self {
            Count::Nodes => "Nodes",
            Count::GpusPerNode => "GPUs per node",
            Count::NicsPerNode => "NICs per node",
            Count::Leaves => "Leaf switches",
            Count::Spines => "Spine switches",
            Count::Radix => "Switch radix",
        }
    }
    /// Values the slider stops at (after "auto" when [`Count::auto`]).
    pub fn steps(self) -> &'static [u32] {
        match self {
            Count::Nodes => NODE_STEPS,
            Count::GpusPerNode => GPN_STEPS,
            Count::NicsPerNode => NIC_STEPS,
            Count::Leaves => LEAF_STEPS,
            Count::Spines => SPINE_STEPS,
            Count::Radix => RADIX_STEPS,
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
    /// Highest slider position.
    pub fn max_pos(self) -> u32 {
        self.steps().len() as u32 - 1 + u32::from(self.auto())
    }
    /// Slider position of a value: the largest step not above it (0 is "auto" when allowed).
    pub fn pos(self, v: Option<u32>) -> u32 {
        let off = u32::from(self.auto());
        match v {
            None => 0,
            Some(v) => {
                let i = self.steps().iter().rposition(|s| *s <= v).unwrap_or(0);
                i as u32 + off
            }
        }
    }
    /// Value at a slider position.
    pub fn at(self, pos: u32) -> Option<u32> {
        let off = u32::from(self.auto());
        if self.auto() && pos == 0 {
            return None;
        }
        let i = (pos.saturating_sub(off) as usize).min(self.steps().len() - 1);
        Some(self.steps()[i])
    }
    /// Text for a value as the number box shows it.
    pub fn text(self, v: Option<u32>) -> String {
        v.map(|v| v.to_string()).unwrap_or_else(|| "auto".into())
    }
    /// Parses the number box: a whole number, or (auto fields) empty / "auto".
    pub fn parse(self, text: &str) -> Result<Option<u32>, ModelError> {
        let t = text.trim();
        if self.auto() && (t.is_empty() || t.eq_ignore_ascii_case("auto")) {
            return Ok(None);
        }
        let what = self.label().to_ascii_lowercase();
        if t.is_empty() {
            return Err(ModelError::new(self.field(), format!("enter the {what}: a whole number")));
        }
        t.parse::<u32>().map(Some).map_err(|_| {
            ModelError::new(
                self.field(),
                format!(
                    "the {what} must be a whole number{}; got \"{t}\"",
                    if self.auto() { " or auto" } else { "" }
                ),
            )
        })
    }
}

/// What a screen reader announces for a count control (and the value shown beside it).
/// `derived` is the model's value when the field is auto.
pub fn count_text(k: Count, c: &Cluster, derived: Option<u32>) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (k, k.get(c)) {
        (Count::Nodes, Some(n)) => {
            format!("{}, {}", plural(n, "node", "nodes"), plural(c.total_gpus(), "GPU", "GPUs"))
        }
        (Count::GpusPerNode, Some(n)) => plural(n, "GPU per node", "GPUs per node"),
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
        Bottleneck::Tier(TierKind::Leaf) => "leaf switches",
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

    #[test]
    fn errors_come_from_the_model_with_a_field() {
        let e = evaluate(&Cluster { nodes: 0, ..Cluster::default() }).unwrap_err();
        assert_eq!(e.field, "nodes");
        assert!(e.message.contains("between 1 and"), "{}", e.message);
    }

    #[test]
    fn slider_steps() {
        let n = Count::Nodes;
        assert_eq!(n.pos(Some(4)), 2);
        assert_eq!(n.pos(Some(5)), 2);
        assert_eq!(n.pos(Some(140)), 7);
        assert_eq!(n.at(7), Some(128));
        assert_eq!(n.at(99), Some(4096));
        assert_eq!(n.max_pos(), 12);
        let l = Count::Leaves;
        assert_eq!(l.pos(None), 0);
        assert_eq!(l.at(0), None);
        assert_eq!(l.at(1), Some(1));
        assert_eq!(l.pos(Some(32)), 6);
        for k in Count::ALL {
            for p in 0..=k.max_pos() {
                assert_eq!(k.pos(k.at(p)), p, "{k:?} {p}");
            }
        }
        let c = Cluster { nodes: 32, ..Cluster::default() };
        assert_eq!(count_text(Count::Nodes, &c, None), "32 nodes, 256 GPUs");
        assert_eq!(count_text(Count::Leaves, &c, Some(8)), "auto (8 leaves)");
        assert_eq!(count_text(Count::Radix, &Cluster { switch_radix: Some(64), ..c }, None), "64 ports per switch");
    }

    #[test]
    fn number_box_text() {
        assert_eq!(Count::Nodes.parse(" 16 "), Ok(Some(16)));
        assert_eq!(Count::Nodes.parse("").unwrap_err().field, "nodes");
        assert!(Count::Nodes.parse("1.5").unwrap_err().message.contains("whole number"));
        assert_eq!(Count::Spines.parse("auto"), Ok(None));
        assert_eq!(Count::Spines.parse(""), Ok(None));
        assert_eq!(Count::Radix.parse("x").unwrap_err().field, "switch_radix");
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
