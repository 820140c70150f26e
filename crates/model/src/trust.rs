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
    /// Median absolute busbw error of the class in the project's validation, percent;
    /// `None` when no published measurement backs the class.
    pub error_band_pct: Option<f64>,
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
    /// MI355X): the prediction is timed from it at this GPU's own rates, always extrapolated,
    /// its band widened ([`Trust::on_successor`]).
    pub successor: bool,
}

/// Classes that no published measurement backs but whose parts are measured, each with the
/// (tier, family) of its parts at the same size. NVLSTree across NVL72 racks is the NVSwitch
/// reduction inside each rack (NVLS, measured in one rack), a tree between the racks over
/// their trays' NICs (Tree, measured across 2-3 racks), and the same NVLS-then-tree algorithm
/// measured across InfiniBand nodes of 8 GPUs (NCCL's NVLSTree; docs/collective-accuracy.md).
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
        Trust {
            tier,
            family,
            size,
            error_band_pct: (n > 0).then_some(pct),
            validated_cases: n,
            worst_error_pct: (n > 0).then_some(worst),
            measured_nodes: [n_lo, n_hi],
            measured_gpus: [g_lo, g_hi],
            nodes,
            gpus,
            extrapolated: n > 0 && (outside(nodes, n_lo, n_hi) || outside(gpus, g_lo, g_hi)),
            composed: false,
            successor: false,
        }
    }

    /// The trust of a [`COMPOSED`] class when every part is measured at this size.
    fn composed(tier: TierClass, family: AlgoFamily, size: SizeRange, nodes: u32, gpus: u32) -> Option<Trust> {
        let (_, _, parts) = COMPOSED.iter().find(|c| c.0 == tier && c.1 == family)?;
        let mut band: f64 = 0.0;
        let mut worst: f64 = 0.0;
        for &(pt, pf) in parts {
            let part = Self::at(pt, pf, size, 0, 0);
            band = band.max(part.error_band_pct?);
            worst = worst.max(part.worst_error_pct?);
        }
        Some(Trust {
            tier,
            family,
            size,
            error_band_pct: Some(band),
            validated_cases: 0,
            worst_error_pct: Some(worst),
            measured_nodes: [0, 0],
            measured_gpus: [0, 0],
            nodes,
            gpus,
            extrapolated: true,
            composed: true,
            successor: false,
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

    /// "±4%, 31 measurements at 2-64 nodes, 16-512 GPUs; worst 8%", "extrapolated: ±4%,
    /// worst 8%, over 31 measurements at 2-64 nodes, 16-512 GPUs; this is 4096 nodes, 32768
    /// GPUs", or "not validated against measurements". No parentheses: it is quoted inside
    /// other text.
    pub fn describe(&self) -> String {
        let Some(p) = self.error_band_pct else { return "not validated against measurements".to_string() };
        let n = self.validated_cases;
        let plural = if n == 1 { "" } else { "s" };
        let worst = self.worst_error_pct.unwrap_or(p);
        if self.composed {
            return format!("extrapolated: {} on {} is not measured; ±{p:.0}%, worst {worst:.0}%, the widest of its measured parts: {}", self.family.name(), self.tier.name(), self.parts());
        }
        if self.successor {
            return format!("extrapolated: this GPU generation is not measured; timed at its own link rates from {n} measurement{plural} of its predecessor at {}; ±{p:.0}%, worst {worst:.0}%", self.measured_scale());
        }
        if self.extrapolated {
            let here = if self.nodes > 1 { format!("{} {}, {} GPUs", self.nodes, self.domain_word(), self.gpus) } else { format!("{} GPUs", self.gpus) };
            format!("extrapolated: ±{p:.0}%, worst {worst:.0}%, over {n} measurement{plural} at {}; this is {here}", self.measured_scale())
        } else {
            format!("±{p:.0}%, {n} measurement{plural} at {}; worst {worst:.0}%", self.measured_scale())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVLSTree across NVL72 racks: no measurement of its own, its parts measured at large
    /// sizes: it takes the widest part's band and worst error, is always extrapolated, and says
    /// it is not measured; at small sizes a part is unmeasured, so it has no band.
    #[test]
    fn nvls_across_racks_is_composed_of_its_measured_parts_only_where_all_are_measured() {
        let t = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Large, 20, 1440);
        let parts: Vec<Trust> = COMPOSED[0].2.iter().map(|&(pt, pf)| Trust::of(pt, pf, SizeRange::Large)).collect();
        assert!(parts.iter().all(|p| p.validated_cases > 0), "{parts:?}");
        let widest = parts.iter().filter_map(|p| p.error_band_pct).fold(0.0, f64::max);
        assert_eq!(t.error_band_pct, Some(widest));
        assert!(t.composed && t.extrapolated && t.validated_cases == 0, "{t:?}");
        assert!(t.worst_error_pct.unwrap_or(0.0) >= widest);
        let d = t.describe();
        assert!(d.starts_with("extrapolated: NVLS on NVL72, several racks is not measured") && !d.contains('('), "{d}");
        assert!(d.contains("tree on NVL72, several racks at 2-3 racks"), "{d}");
        let small = Trust::at(TierClass::Nvl72Racks, AlgoFamily::Nvls, SizeRange::Small, 20, 1440);
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
}
