//! How far to trust a collective prediction: the median absolute busbw error of its class
//! (tier crossed, algorithm family, size range) against the published measurements in
//! validation/, and how many measurements back it. The numbers live in `trust_table.rs`,
//! written by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test
//! collectives_accuracy`; that test fails when the checked-in table differs from what the
//! data gives, so the bands cannot go stale.

use serde::Serialize;

/// The tier a collective's bytes cross: its widest hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TierClass {
    /// One NVLink/NVSwitch domain of a server.
    NvlinkNode,
    /// One server whose GPUs talk over PCIe (or bridged pairs).
    PcieNode,
    /// Several domains over InfiniBand.
    InfiniBand,
    /// Several domains over RoCEv2.
    Roce,
    /// Several domains over TCP sockets.
    Tcp,
    /// One GB200 NVL72 rack (a multi-node NVLink domain).
    Nvl72Rack,
    /// Several NVL72 racks over their trays' NICs.
    Nvl72Racks,
    /// One AMD Instinct node: 8 GPUs on an Infinity Fabric (xGMI) mesh, RCCL.
    XgmiNode,
    /// Several domains over AWS EFA (SRD through aws-ofi-nccl).
    Efa,
    /// Several AMD Instinct nodes over any network: RCCL's path across nodes (its size-table
    /// protocols, its tree), validated on RoCE.
    RcclNodes,
}

/// Algorithm families that behave alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlgoFamily {
    /// Ring and PAT.
    Ring,
    Tree,
    /// NVLS and NVLSTree (the NVSwitch reduces).
    Nvls,
    /// CollNet Direct and Chain (SHARP).
    CollNet,
    /// AllToAll and SendRecv, built from point-to-point sends.
    P2p,
}

/// Message-size ranges: latency-bound, in between, bandwidth-bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeRange {
    /// Below 64 KiB.
    Small,
    /// 64 KiB to 64 MiB.
    Medium,
    /// 64 MiB and above (and the large-message plateaus vendors quote).
    Large,
}

impl TierClass {
    pub const ALL: [TierClass; 10] = [
        TierClass::NvlinkNode,
        TierClass::PcieNode,
        TierClass::InfiniBand,
        TierClass::Roce,
        TierClass::Tcp,
        TierClass::Nvl72Rack,
        TierClass::Nvl72Racks,
        TierClass::XgmiNode,
        TierClass::Efa,
        TierClass::RcclNodes,
    ];
    pub fn name(self) -> &'static str {
        match self {
            TierClass::NvlinkNode => "single node, NVLink",
            TierClass::PcieNode => "single node, PCIe",
            TierClass::InfiniBand => "multi-node, InfiniBand",
            TierClass::Roce => "multi-node, RoCE",
            TierClass::Tcp => "multi-node, TCP",
            TierClass::Nvl72Rack => "NVL72, one rack",
            TierClass::Nvl72Racks => "NVL72, several racks",
            TierClass::XgmiNode => "single node, xGMI",
            TierClass::Efa => "multi-node, EFA",
            TierClass::RcclNodes => "multi-node, RCCL (AMD nodes)",
        }
    }
}

impl AlgoFamily {
    pub const ALL: [AlgoFamily; 5] = [AlgoFamily::Ring, AlgoFamily::Tree, AlgoFamily::Nvls, AlgoFamily::CollNet, AlgoFamily::P2p];
    pub fn name(self) -> &'static str {
        match self {
            AlgoFamily::Ring => "ring",
            AlgoFamily::Tree => "tree",
            AlgoFamily::Nvls => "NVLS",
            AlgoFamily::CollNet => "CollNet",
            AlgoFamily::P2p => "point-to-point",
        }
    }
    /// The family of an algorithm name as predictions carry it.
    pub fn of(algorithm: &str) -> AlgoFamily {
        match algorithm {
            "Tree" => AlgoFamily::Tree,
            "NVLS" | "NVLSTree" => AlgoFamily::Nvls,
            "CollNetDirect" | "CollNetChain" => AlgoFamily::CollNet,
            "P2P" | "none" => AlgoFamily::P2p,
            _ => AlgoFamily::Ring,
        }
    }
}

impl SizeRange {
    pub const ALL: [SizeRange; 3] = [SizeRange::Small, SizeRange::Medium, SizeRange::Large];
    pub fn of(bytes: u64) -> SizeRange {
        if bytes < 64 << 10 {
            SizeRange::Small
        } else if bytes < 64 << 20 {
            SizeRange::Medium
        } else {
            SizeRange::Large
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SizeRange::Small => "< 64 KiB",
            SizeRange::Medium => "64 KiB - 64 MiB",
            SizeRange::Large => ">= 64 MiB",
        }
    }
}

/// The trust a prediction carries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Trust {
    pub tier: TierClass,
    pub family: AlgoFamily,
    pub size: SizeRange,
    /// The band a user can believe, percent: the class's median absolute busbw error in the
    /// project's validation, widened by [`scale_band_pct`] where an NVL72-across-racks
    /// prediction lies beyond the scale its measurements (or its parts') cover; `None` when no
    /// published measurement backs the class.
    pub error_band_pct: Option<f64>,
    /// The measurements' own band, percent, before any widening for scale: the class's median
    /// error, or for a composed class the widest of its parts'. What a run can be judged
    /// healthy against (Check): near the expectation it is healthy whatever the scale; the wide
    /// band around it only says how far the model may be off, not that a run there is fine.
    pub measured_band_pct: Option<f64>,
    /// Published measurements behind the class (0 = not validated).
    pub validated_cases: u32,
    /// The largest absolute error among them, percent (`None` when not validated).
    pub worst_error_pct: Option<f64>,
    /// Fewest and most scale-up domains (nodes; racks for NVL72) the class was measured on.
    pub measured_nodes: [u32; 2],
    /// Fewest and most GPUs the class was measured on.
    pub measured_gpus: [u32; 2],
    /// Domains and GPUs of this prediction (0 when not known).
    pub nodes: u32,
    pub gpus: u32,
    /// The prediction lies outside the node or GPU counts its class was measured at: the
    /// band is the class's, measured elsewhere, and says so.
    pub extrapolated: bool,
    /// No measurement backs the class, but each of its parts is measured ([`COMPOSED`]): the
    /// band is the widest of theirs, and the prediction is always extrapolated.
    pub composed: bool,
    /// The class is measured only on an earlier generation of this platform (MI300X for
    /// MI355X): the prediction is timed from it, scaled toward this GPU's own link rates, always
    /// extrapolated, its band widened ([`Trust::on_successor`]).
    pub successor: bool,
    /// On a cluster as measured (`Cluster::calibration`) whose fit covers the tier this
    /// prediction crosses: the fit's 90% relative half-width (`Z90` x its relative uncertainty,
    /// dimensionless), which the interval adds in quadrature (`fitted`). `None`: the catalog's.
    #[serde(skip)]
    #[cfg(any(test, feature = "calibrate"))]
    pub fit_u90: Option<f64>,
}

/// How fast the band of an NVL72-across-racks prediction grows beyond the scale its
/// measurements cover, percentage points per doubling (see [`scale_band_pct`]).
///
/// Not fitted to any NVL72 measurement (none across full racks was public when it was set). It is the largest
/// change the project has measured for NCCL's NVLS-based algorithm across domains over one
/// doubling of scale: NVLSTree keeps all of its injection bandwidth between 2 domains and 0.74
/// of it from 4 (DGX Cloud B200, `network::NVLS_TREE_EFFICIENCY`), a 26% step the 2-domain
/// measurements could not have foreseen. Full NVL72 racks change what the measured parts ran
/// on in every doubling: NCCL 2.27.5 runs NVLSTree across racks with 32 NVLS heads per rack
/// (`NCCL_MAX_NVLS_ARITY`, src/include/device.h:206, the NVLS search's `maxChannels`,
/// src/graph/search.cc:1012) and 32 channels (`NVLS_NCHANNELS_SM100`, src/transport/nvls.cc:148),
/// so a pipeline round is 32 x 32 = 1024 chunks of 64-128 KiB (src/enqueue.cc:2021-2032), 64-128
/// MiB per step of a tree whose depth grows with the racks, against 8 heads and 16-32 channels
/// on the 8-GPU nodes the NVLSTree part was measured on; an unmeasured doubling may move the
/// prediction by as much as a measured one did.
pub const SCALE_BAND_PER_DOUBLING: f64 = 25.0;

/// The band (percent) a prediction over `nodes` domains and `gpus` GPUs earns from its
/// distance to a measured scope `[n_lo, n_hi]` domains, `[g_lo, g_hi]` GPUs:
/// [`SCALE_BAND_PER_DOUBLING`] for every doubling beyond the largest measured scale, 0 inside
/// it. The distance is the larger of the two: the domains beyond the most measured, and the
/// GPUs beyond the most measured (total GPUs; per domain when the scope is one domain, where
/// the domain's size is what was measured). Smaller than measured is not penalised: every
/// scale loss the model knows grows with scale.
pub fn scale_band_pct(nodes: u32, gpus: u32, scope: ([u32; 2], [u32; 2])) -> f64 {
    let ([_, n_hi], [_, g_hi]) = scope;
    let beyond = |x: f64, hi: u32| if hi > 0 && x > hi as f64 { (x / hi as f64).log2() } else { 0.0 };
    let (nodes_f, gpus_f) = (nodes.max(1) as f64, gpus as f64);
    let d = if n_hi <= 1 { beyond(gpus_f / nodes_f, g_hi) } else { beyond(nodes_f, n_hi).max(beyond(gpus_f, g_hi)) };
    SCALE_BAND_PER_DOUBLING * d
}

/// Classes that no published measurement backs but whose parts are measured, each with the
/// (tier, family) of its parts at the same size. NVLSTree across NVL72 racks is the NVSwitch
/// reduction inside each rack (NVLS, measured in one rack), a tree between the racks over
/// their trays' NICs (Tree, measured across 2-3 racks), and the same NVLS-then-tree algorithm
/// measured across InfiniBand nodes of 8 GPUs (NCCL's NVLSTree; docs/collective-accuracy.md).
/// Since CoreWeave's runs were released (validation/collectives-nvl72-racks.csv) NVLSTree across
/// racks is measured at large sizes, where its own band applies; the composition is used only
/// where no row of its own backs it.
/// What joins the parts is not measured, so such a class is judged only where its prediction
/// agrees with a run (Check: healthy within its band, "cannot judge" outside it, never broken).
pub const COMPOSED: [(TierClass, AlgoFamily, [(TierClass, AlgoFamily); 3]); 1] =
    [(TierClass::Nvl72Racks, AlgoFamily::Nvls, [(TierClass::InfiniBand, AlgoFamily::Nvls), (TierClass::Nvl72Rack, AlgoFamily::Nvls), (TierClass::Nvl72Racks, AlgoFamily::Tree)])];

impl Trust {
    /// The class's trust, scale unknown.
    pub fn of(tier: TierClass, family: AlgoFamily, size: SizeRange) -> Trust {
        Self::at(tier, family, size, 0, 0)
    }

    /// The class's trust for a group of `gpus` GPUs over `nodes` scale-up domains: extrapolated
    /// outside the node and GPU counts the class's measurements cover.
    pub fn at(tier: TierClass, family: AlgoFamily, size: SizeRange, nodes: u32, gpus: u32) -> Trust {
        let (t, f, z) = (tier as usize, family as usize, size as usize);
        let (pct, n) = crate::trust_table::BANDS[t][f][z];
        if n == 0 {
            if let Some(c) = Self::composed(tier, family, size, nodes, gpus) {
                return c;
            }
        }
        let (n_lo, n_hi, g_lo, g_hi, worst) = crate::trust_table::SCOPE[t][f][z];
        let outside = |x: u32, lo: u32, hi: u32| x > 0 && (x < lo || x > hi);
        let extrapolated = n > 0 && (outside(nodes, n_lo, n_hi) || outside(gpus, g_lo, g_hi));
        // Across NVL72 racks, beyond the measured scale the band grows with the distance.
        let grown = if extrapolated && tier == TierClass::Nvl72Racks { scale_band_pct(nodes, gpus, ([n_lo, n_hi], [g_lo, g_hi])) } else { 0.0 };
        Trust {
            tier,
            family,
            size,
            error_band_pct: (n > 0).then_some(pct.max(grown)),
            measured_band_pct: (n > 0).then_some(pct),
            validated_cases: n,
            worst_error_pct: (n > 0).then_some(worst),
            measured_nodes: [n_lo, n_hi],
            measured_gpus: [g_lo, g_hi],
            nodes,
            gpus,
            extrapolated,
            composed: false,
            successor: false,
            #[cfg(any(test, feature = "calibrate"))]
            fit_u90: None,
        }
    }

    /// The trust of a [`COMPOSED`] class when every part is measured at this size.
    fn composed(tier: TierClass, family: AlgoFamily, size: SizeRange, nodes: u32, gpus: u32) -> Option<Trust> {
        let (_, _, parts) = COMPOSED.iter().find(|c| c.0 == tier && c.1 == family)?;
        let mut band: f64 = 0.0;
        let mut worst: f64 = 0.0;
        let mut grown: f64 = 0.0;
        for &(pt, pf) in parts {
            let part = Self::at(pt, pf, size, 0, 0);
            band = band.max(part.error_band_pct?);
            worst = worst.max(part.worst_error_pct?);
            // The composition is no surer than its most extrapolated part.
            grown = grown.max(scale_band_pct(nodes, gpus, (part.measured_nodes, part.measured_gpus)));
        }
        Some(Trust {
            tier,
            family,
            size,
            error_band_pct: Some(band.max(grown)),
            measured_band_pct: Some(band),
            validated_cases: 0,
            worst_error_pct: Some(worst),
            measured_nodes: [0, 0],
            measured_gpus: [0, 0],
            nodes,
            gpus,
            extrapolated: true,
            composed: true,
            successor: false,
            #[cfg(any(test, feature = "calibrate"))]
            fit_u90: None,
        })
    }

    /// This class's trust for a GPU generation no measurement covers, timed from its
    /// predecessor's measurements of the class: always extrapolated, the band at least
    /// `min_band_pct`. A class its predecessor has no measurement of stays "not validated".
    pub fn on_successor(self, min_band_pct: f64) -> Trust {
        match self.error_band_pct {
            Some(b) => Trust { error_band_pct: Some(b.max(min_band_pct)), worst_error_pct: self.worst_error_pct.map(|w| w.max(min_band_pct)), extrapolated: true, successor: true, ..self },
            None => self,
        }
    }

    /// The measured parts of a composed class, in words: "NVLS on multi-node, InfiniBand at
    /// 2-248 nodes, 16-1984 GPUs ±2%; ...".
    fn parts(&self) -> String {
        let Some((_, _, parts)) = COMPOSED.iter().find(|c| c.0 == self.tier && c.1 == self.family) else { return String::new() };
        parts
            .iter()
            .map(|&(t, f)| {
                let p = Self::at(t, f, self.size, 0, 0);
                format!("{} on {} at {} ±{:.0}%", f.name(), t.name(), p.measured_scale(), p.error_band_pct.unwrap_or(0.0))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Where the class was measured: "2-64 nodes, 16-512 GPUs" or "2-8 GPUs in one domain".
    pub fn measured_scale(&self) -> String {
        if self.composed {
            return format!("its parts only: {}", self.parts());
        }
        let range = |[lo, hi]: [u32; 2]| if lo == hi { format!("{lo}") } else { format!("{lo}-{hi}") };
        if self.measured_nodes[1] <= 1 {
            format!("{} GPUs in one domain", range(self.measured_gpus))
        } else {
            format!("{} {}, {} GPUs", range(self.measured_nodes), self.domain_word(), range(self.measured_gpus))
        }
    }

    /// What one scale-up domain is called in this class.
    fn domain_word(&self) -> &'static str {
        match self.tier {
            TierClass::Nvl72Rack | TierClass::Nvl72Racks => "racks",
            _ => "nodes",
        }
    }

    /// What the prediction's 90% interval rests on, for the line beside it: "(31 published
    /// measurements of its class at 16-512 GPUs)", with "; this is 32768 GPUs: extrapolated"
    /// before the parenthesis outside them (the interval widens there).
    pub fn rests_on(&self) -> String {
        let [lo, hi] = self.measured_gpus;
        let mut s = format!("({} published measurements of its class at {lo}-{hi} GPUs", self.validated_cases);
        if self.extrapolated || self.composed || self.successor {
            s += &format!("; this is {} GPUs: extrapolated", self.gpus);
        }
        s + ")"
    }

    /// "±4%, 31 measurements at 2-64 nodes, 16-512 GPUs; worst 8%", "extrapolated: ±4%,
    /// worst 8%, over 31 measurements at 2-64 nodes, 16-512 GPUs; this is 4096 nodes, 32768
    /// GPUs", or "not validated against measurements". No parentheses: it is quoted inside
    /// other text.
    pub fn describe(&self) -> String {
        let Some(p) = self.error_band_pct else { return "not validated against measurements".to_string() };
        let n = self.validated_cases;
        let plural = if n == 1 { "" } else { "s" };
        let worst = self.worst_error_pct.unwrap_or(p);
        let measured = self.measured_band_pct.unwrap_or(p);
        let here = if self.nodes > 1 { format!("{} {}, {} GPUs", self.nodes, self.domain_word(), self.gpus) } else { format!("{} GPUs", self.gpus) };
        // Widened for scale: say from what, and by which rule.
        let grown = if p > measured + 0.5 {
            format!(", widened from ±{measured:.0}% by {SCALE_BAND_PER_DOUBLING:.0} points per doubling of scale beyond the measurements as this is {here}")
        } else {
            String::new()
        };
        if self.composed {
            let worst = worst.max(p);
            return format!("extrapolated: {} on {} is not measured; ±{p:.0}%{grown}, worst {worst:.0}%, the widest of its measured parts: {}", self.family.name(), self.tier.name(), self.parts());
        }
        if self.successor {
            return format!("extrapolated: this GPU generation is not measured; timed from {n} measurement{plural} of its predecessor at {}, scaled toward its own link rates; ±{p:.0}%, worst {worst:.0}%", self.measured_scale());
        }
        if self.extrapolated {
            format!("extrapolated: ±{p:.0}%{grown}, worst {worst:.0}%, over {n} measurement{plural} at {}; this is {here}", self.measured_scale())
        } else {
            format!("±{p:.0}%, {n} measurement{plural} at {}; worst {worst:.0}%", self.measured_scale())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVLSTree across NVL72 racks is measured since CoreWeave's runs were released
    /// (validation/collectives-nvl72-racks.csv): two racks with NVLS on (the twenty-rack run had
    /// it off, NCCL_NVLS_ENABLE=0, so it times Ring and Tree). At two racks it carries its own
    /// band and is neither composed nor extrapolated; beyond, it is extrapolated from that band.
    /// At small sizes nothing across racks is measured, so there is no band.
    #[test]
    fn nvls_across_racks_carries_its_own_measured_band() {
        let t = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Large, 2, 144);
        assert!(t.validated_cases > 0 && !t.composed && !t.extrapolated, "{t:?}");
        assert_eq!(t.error_band_pct, t.measured_band_pct);
        let beyond = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Large, 20, 1440);
        assert!(beyond.extrapolated && beyond.error_band_pct >= t.error_band_pct, "{beyond:?}");
        let small = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Small, 2, 144);
        assert!(small.error_band_pct.is_none() && !small.composed, "{small:?}");
        // A measured class is never composed.
        assert!(!Trust::of(TierClass::Nvl72Racks, AlgoFamily::Tree, SizeRange::Large).composed);
    }

    /// A successor generation keeps its predecessor's measurements behind it but never their
    /// narrow band, is always extrapolated and says which; an unmeasured class stays unvalidated.
    #[test]
    fn a_successor_generation_is_extrapolated_with_at_least_the_given_band() {
        let t = Trust::at(TierClass::XgmiNode, AlgoFamily::Ring, SizeRange::Large, 1, 8);
        assert!(t.validated_cases > 0 && !t.extrapolated && t.error_band_pct.unwrap() < 9.0, "{t:?}");
        let s = t.on_successor(9.0);
        assert_eq!(s.error_band_pct, Some(9.0));
        assert!(s.extrapolated && s.successor && s.validated_cases == t.validated_cases, "{s:?}");
        assert!(s.describe().starts_with("extrapolated: this GPU generation is not measured"), "{}", s.describe());
        let none = Trust::at(TierClass::XgmiNode, AlgoFamily::CollNet, SizeRange::Large, 1, 8).on_successor(9.0);
        assert!(none.error_band_pct.is_none() && !none.successor, "{none:?}");
    }

    /// The band rule: nothing inside the measured scale, 25 points per doubling beyond it (for a
    /// composed class; a measured one keeps its band and says it is extrapolated),
    /// measured on the farther of domains and GPUs (GPUs per domain for a one-domain scope),
    /// monotone in scale; smaller than measured is not penalised.
    #[test]
    fn the_band_grows_by_a_stated_amount_per_doubling_beyond_the_measured_scale() {
        let racks = ([2, 3], [8, 24]);
        assert_eq!(scale_band_pct(3, 24, racks), 0.0);
        assert_eq!(scale_band_pct(2, 8, racks), 0.0);
        assert!((scale_band_pct(6, 24, racks) - SCALE_BAND_PER_DOUBLING).abs() < 1e-9);
        assert!((scale_band_pct(3, 48, racks) - SCALE_BAND_PER_DOUBLING).abs() < 1e-9);
        // Two racks of 72: 144 GPUs against 24 measured, log2(6) doublings.
        assert!((scale_band_pct(2, 144, racks) - SCALE_BAND_PER_DOUBLING * 6f64.log2()).abs() < 1e-9);
        // One measured domain of up to 32 GPUs: a 72-GPU domain is log2(72/32) beyond, at any count.
        let rack = ([1, 1], [8, 32]);
        assert!((scale_band_pct(2, 144, rack) - SCALE_BAND_PER_DOUBLING * (72f64 / 32.0).log2()).abs() < 1e-9);
        let mut last = 0.0;
        for racks_n in [2u32, 4, 8, 20, 36] {
            let t = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Large, racks_n, racks_n * 72);
            let b = t.error_band_pct.unwrap_or(0.0);
            // Measured at 2 racks: its own band there, extrapolated (never narrower) beyond.
            assert!(b >= last && b >= t.measured_band_pct.unwrap_or(f64::INFINITY), "{racks_n} racks: {t:?}");
            assert_eq!(t.extrapolated, racks_n > 2, "{racks_n} racks: {t:?}");
            last = b;
        }
        // A measured class inside its scale keeps its own band.
        let inside = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Tree, SizeRange::Large, 3, 24);
        assert!(!inside.extrapolated && inside.error_band_pct == inside.measured_band_pct, "{inside:?}");
    }
}
