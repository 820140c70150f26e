//! A user's cluster as measured (issue 40): the effective parameters a fit on the user's own
//! nccl-tests / rccl-tests logs found (`fabricscope-check`'s `calibrate`), applied by the
//! collective model. Pure data and arithmetic; the fit itself lives with the log reader.
//!
//! **What moves.** Per tier, the achieved bandwidth as a share of the catalog's and the latency
//! added (small-message regime):
//! - scale-up (NVLink, NVSwitch, xGMI, PCIe inside a node): every bandwidth the model uses
//!   inside a domain is multiplied by the share (NCCL's tables' bandwidth inside one domain,
//!   point-to-point copies, the domain's side of a ring across domains, NVLS inside the domain);
//!   the latency is added once per operation (inside a node and across nodes alike: a host's
//!   launch cost, a virtualized node's floor);
//! - network (NICs and the fabric): every NIC-side and GPU-to-NIC bandwidth of the network path
//!   is multiplied by the share (NIC goodput, the GPUs' PCIe to their NICs, all-to-all
//!   injection); the latency is added once per operation that crosses the network. Per
//!   operation, not per network step: logs at one node count cannot tell a hop's cost from a
//!   proxy's or a launch's, and a per-step figure fitted on a 2-node SendRecv (one step) would
//!   multiply into a 64-node ring's hundred steps. Logs at several node counts would tell them
//!   apart; this fit does not try.
//!
//! A share may be fitted per collective (the logs' AllToAll and AllReduce may deliver different
//! shares of the same NICs): a collective the logs measured uses its own, the others the tier's.
//! A tier the logs never exercised keeps the catalog's values (`None`), and says so.
//!
//! **Intervals** ([`Calibration::busbw_intervals`]): the fit's relative uncertainty (one
//! standard deviation of the share) at the 90% normal quantile [`Z90`] is combined in quadrature
//! with each side of the class's out-of-sample interval (`calibration::apply`), relative to
//! the prediction: `lo' = 1 - sqrt((1 - lo)^2 + (Z90 u)^2)`, `hi' = 1 + sqrt((hi - 1)^2 +
//! (Z90 u)^2)`. The class's interval is what the model's extrapolation across node counts and
//! sizes has cost on held-out published runs; the fit's term is what the user's own rows leave
//! unsettled. A prediction that crosses a tier the logs never exercised gets no calibrated
//! interval: the catalog's, with a basis that says so.

use crate::catalog::{GpuKind, NicKind};
use crate::op::Collective;
use serde::{Deserialize, Serialize};

/// The factors a calibration applies to one prediction: bandwidth shares of the catalog's
/// (dimensionless) and latency added per operation (µs), inside a domain and across the
/// network, and the fit's 90% relative half-width on each ([`crate::trust::Trust::fit_u90`]);
/// `None` where the logs never exercised the tier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scales {
    pub intra_bw: f64,
    pub intra_latency_us: f64,
    pub net_bw: f64,
    pub net_latency_us: f64,
    pub intra_u90: Option<f64>,
    pub net_u90: Option<f64>,
}

impl Default for Scales {
    fn default() -> Self {
        Scales { intra_bw: 1.0, intra_latency_us: 0.0, net_bw: 1.0, net_latency_us: 0.0, intra_u90: None, net_u90: None }
    }
}

/// Version of the calibration format (the `version` of a calibration file).
pub const CALIBRATION_VERSION: u32 = 1;

/// Smallest bandwidth share a fit may reach (dimensionless): 2% of the catalog's is a link at
/// a fiftieth of its rate (a NIC at 8 of 400 Gb/s), below any cluster worth predicting; a row
/// under it is a broken run, kept at the bound and said so.
pub const MIN_SHARE: f64 = 0.02;
/// Largest bandwidth share (dimensionless): the catalog's goodputs sit 5-15% under line rate
/// (e.g. NDR at 0.955 of 400 Gb/s, `catalog::fabric`) and its one-queue-pair ring efficiency at
/// 0.935 (`network::RING_EFFICIENCY`); a cluster tuned past the catalog (several QPs per
/// connection: 1.04-1.1x, `network::MULTI_QP_RING_EFFICIENCY`) fits above 1, but 1.25x
/// would be above line rate on every tier: not physical.
pub const MAX_SHARE: f64 = 1.25;
/// Latency a fit may take away per operation across nodes, µs: two one-switch InfiniBand hops
/// (`network::IB_REFERENCE_LATENCY`, 1 µs each) and a bit: the catalog's network latency is
/// NCCL's own tables plus the NIC's and switches' figures, which a cluster cannot beat by more.
pub const MIN_NET_LATENCY_US: f64 = -3.0;
/// Latency a fit may add per operation across nodes, µs: 1 ms, above any TCP stack's round
/// trips on a busy host (~50-100 µs each); more is a broken run.
pub const MAX_NET_LATENCY_US: f64 = 1000.0;
/// Latency a fit may take away per operation inside one domain, µs: NCCL's smallest base
/// latency inside a node is about 4-7 µs (NCCL 2.27.5 src/graph/tuning.cc `baseLat` and
/// `hwLat[NVLINK]`), so 3 µs less keeps every operation positive.
pub const MIN_INTRA_LATENCY_US: f64 = -3.0;
/// Latency a fit may add per operation inside one domain, µs: 1 ms, far above a virtualized
/// node's launch cost (35 µs floors, validation/collectives-2.csv, Together AI's H100 node).
pub const MAX_INTRA_LATENCY_US: f64 = 1000.0;
/// The standard normal quantile of a two-sided 90% interval (dimensionless): the fit's
/// one-standard-deviation uncertainty times this is its 90% half-width.
pub const Z90: f64 = 1.645;
/// Lowest lower end of a calibrated interval relative to the prediction (dimensionless): the
/// quadrature sum can pass 1 when a wide class meets an uncertain fit; a throughput is never 0.
pub const MIN_INTERVAL_RATIO: f64 = 0.05;

/// One collective's own bandwidth share.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpShare {
    pub op: Collective,
    /// Achieved share of the catalog's bandwidth (dimensionless).
    pub share: f64,
    /// One standard deviation of `share`, relative to it (dimensionless).
    pub rel_uncertainty: f64,
}

/// A tier's fitted bandwidth share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Achieved share of the catalog's bandwidth over every constraining row (dimensionless).
    pub share: f64,
    /// One standard deviation of `share`, relative to it (dimensionless).
    pub rel_uncertainty: f64,
    /// Per collective measured, where the logs give it.
    #[serde(default)]
    pub by_op: Vec<OpShare>,
}

/// A tier's fitted added latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// µs added per operation (network: per operation crossing it). Negative: faster.
    pub added_us: f64,
    /// One standard deviation, µs.
    pub uncertainty_us: f64,
}

/// One tier as fitted: `None` where the logs do not constrain it (the catalog's value stands).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TierFit {
    #[serde(default)]
    pub bandwidth: Option<Share>,
    #[serde(default)]
    pub latency: Option<Latency>,
}

/// Prefix of a calibration in a link (its format's version).
pub const LINK_PREFIX: &str = "v1.";
/// Longest calibration a link may carry, characters: a fit's values are a few hundred.
pub const MAX_LINK_CHARS: usize = 8192;

/// A calibration as a cluster carries it (`Cluster::calibration`, so every page, link, file
/// and CLI path that takes a cluster takes it): one line of text, the GPU, NIC and GPUs per
/// node it was fitted on, then the fit's values ([`Calibration::to_flat`]), e.g.
/// `"h100 ib-ndr 8 1 2 1 2 0 0 1 0.81 0.02 0 0"`. Text rather than the nested object of a
/// calibration file: a link stays short and the pages' bundles carry no parser per field
/// (the explorer's budget); it is read and checked where a cluster is ([`Measured::calibration`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Measured(pub String);

/// Longest [`Measured`] text, characters: a fit's values are a few dozen numbers.
pub const MAX_MEASURED_CHARS: usize = 2048;

impl Measured {
    /// `calibration`, fitted on `gpus_per_node` `gpu` GPUs per node with `nic` NICs.
    pub fn new(gpu: GpuKind, nic: NicKind, gpus_per_node: u32, calibration: &Calibration) -> Measured {
        use std::fmt::Write;
        let mut s = format!("{} {} {gpus_per_node}", gpu.id(), nic.id());
        for v in calibration.to_flat() {
            let _ = write!(s, " {v}");
        }
        Measured(s)
    }

    /// The fit, read and checked for a cluster of `gpus_per_node` `gpu` GPUs per node with
    /// `nic` NICs: `Err` says why it does not apply (other GPUs, NICs or GPUs per node; the
    /// node count may differ, that is the question a calibration answers), or what is damaged.
    pub fn calibration(&self, gpu: GpuKind, nic: NicKind, gpus_per_node: u32) -> Result<Calibration, String> {
        if self.0.len() > MAX_MEASURED_CHARS {
            return Err(format!("the calibration is over the {MAX_MEASURED_CHARS} characters one may have"));
        }
        let mut words = self.0.split_ascii_whitespace();
        let on: Vec<&str> = words.by_ref().take(3).collect();
        let here = [gpu.id(), nic.id(), &gpus_per_node.to_string()].join(" ");
        if on.join(" ") != here {
            let on = crate::error::printable(&on.join(" "), 60);
            return Err(format!("it was fitted on {on} (GPU, NIC, GPUs per node), not {here}: calibrate on this cluster's own logs"));
        }
        let mut values = words.map(|w| w.parse().unwrap_or(f64::NAN));
        Calibration::from_flat(&mut values).ok_or_else(|| "its values are damaged or out of bounds (shares 0.02-1.25, latencies -3 to 1000 µs)".to_string())
    }
}

/// An interval's ratios `(lo, hi)` (measured / predicted) widened by a fit's 90% relative
/// half-width `u` in quadrature, each side on its own (module doc).
pub fn with_fit((lo, hi): (f64, f64), u: f64) -> (f64, f64) {
    ((1.0 - ((1.0 - lo).powi(2) + u * u).sqrt()).max(MIN_INTERVAL_RATIO), 1.0 + ((hi - 1.0).powi(2) + u * u).sqrt())
}

/// A cluster's measured parameters: what the collective model applies ([`Comm::with_calibration`]).
/// Small and serde-able, so a page can carry it in a link.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub scale_up: TierFit,
    pub network: TierFit,
    /// Node counts (scale-up domains) the logs measured, ascending.
    pub measured_nodes: Vec<u32>,
    /// Logs the fit read.
    pub logs: u32,
}


impl Share {
    /// `op`'s own share where measured, else the tier's, with its relative uncertainty.
    pub fn for_op(&self, op: Collective) -> (f64, f64) {
        self.by_op.iter().find(|o| o.op == op).map_or((self.share, self.rel_uncertainty), |o| (o.share, o.rel_uncertainty))
    }
}

/// Version of [`Calibration::to_flat`]'s layout (its list's first value).
const FLAT_VERSION: f64 = 1.0;

/// Reads [`Calibration::to_flat`]'s list, each value within its bounds or `None`.
struct Flat<'a>(&'a mut dyn Iterator<Item = f64>);

impl Flat<'_> {
    /// The next value, if within `lo..=hi` (NaN never is).
    fn num(&mut self, lo: f64, hi: f64) -> Option<f64> {
        self.0.next().filter(|x| (lo..=hi).contains(x))
    }

    /// A count or an index: a whole number from 0 to `hi`.
    fn count(&mut self, hi: f64) -> Option<usize> {
        self.num(0.0, hi).filter(|x| x.fract() == 0.0).map(|x| x as usize)
    }

    /// A share and its relative uncertainty.
    fn share(&mut self) -> Option<(f64, f64)> {
        Some((self.num(MIN_SHARE, MAX_SHARE)?, self.num(0.0, 10.0)?))
    }

    /// One tier: its bandwidth (flag, share, per-collective shares), its latency (flag, µs
    /// added within `lo..=hi`, uncertainty).
    fn tier(&mut self, lo: f64, hi: f64) -> Option<TierFit> {
        let mut t = TierFit::default();
        if self.count(1.0)? == 1 {
            let (share, rel_uncertainty) = self.share()?;
            let mut by_op = Vec::new();
            for _ in 0..self.count(7.0)? {
                let op = *Collective::ALL.get(self.count(6.0)?)?;
                let (share, rel_uncertainty) = self.share()?;
                by_op.push(OpShare { op, share, rel_uncertainty });
            }
            t.bandwidth = Some(Share { share, rel_uncertainty, by_op });
        }
        if self.count(1.0)? == 1 {
            t.latency = Some(Latency { added_us: self.num(lo, hi)?, uncertainty_us: self.num(0.0, f64::MAX)? });
        }
        Some(t)
    }
}

impl Calibration {
    /// The fit as one list of numbers: the layout's version, logs, the measured node counts
    /// (their count, then each), then for the scale-up tier and the network: a bandwidth flag
    /// (0/1) and, when 1, share, relative uncertainty, per-collective entries (their count,
    /// then `Collective::ALL` index, share, uncertainty each); a latency flag and, when 1, µs
    /// added and its uncertainty.
    pub fn to_flat(&self) -> Vec<f64> {
        let mut v = vec![FLAT_VERSION, self.logs as f64, self.measured_nodes.len() as f64];
        v.extend(self.measured_nodes.iter().map(|&n| n as f64));
        for t in [&self.scale_up, &self.network] {
            match &t.bandwidth {
                Some(b) => {
                    v.extend([1.0, b.share, b.rel_uncertainty, b.by_op.len() as f64]);
                    for o in &b.by_op {
                        v.extend([o.op as usize as f64, o.share, o.rel_uncertainty]);
                    }
                }
                None => v.push(0.0),
            }
            match t.latency {
                Some(l) => v.extend([1.0, l.added_us, l.uncertainty_us]),
                None => v.push(0.0),
            }
        }
        v
    }

    /// [`Calibration::to_flat`]'s list read back, every value held to its bounds as it is
    /// read (those of [`Calibration::validate`]); `None`: cut short, damaged or out of bounds.
    pub fn from_flat(values: &mut dyn Iterator<Item = f64>) -> Option<Calibration> {
        let mut r = Flat(values);
        r.num(FLAT_VERSION, FLAT_VERSION)?;
        let logs = r.count(1e6)? as u32;
        let mut measured_nodes = Vec::new();
        for _ in 0..r.count(64.0)? {
            measured_nodes.push(r.count(1e6)? as u32);
        }
        let scale_up = r.tier(MIN_INTRA_LATENCY_US, MAX_INTRA_LATENCY_US)?;
        let network = r.tier(MIN_NET_LATENCY_US, MAX_NET_LATENCY_US)?;
        Some(Calibration { scale_up, network, measured_nodes, logs })
    }

    /// The factors for `op`.
    pub fn scales_for(&self, op: Collective) -> Scales {
        let bw = |t: &TierFit| t.bandwidth.as_ref().map_or(1.0, |s| s.for_op(op).0);
        let lat = |t: &TierFit| t.latency.map_or(0.0, |l| l.added_us);
        let u = |t: &TierFit| t.bandwidth.as_ref().map(|s| Z90 * s.for_op(op).1);
        Scales {
            intra_bw: bw(&self.scale_up),
            intra_latency_us: lat(&self.scale_up),
            net_bw: bw(&self.network),
            net_latency_us: lat(&self.network),
            intra_u90: u(&self.scale_up),
            net_u90: u(&self.network),
        }
    }

    /// Holds every value to its bounds and finite; `Err` names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        let share_ok = |s: f64| s.is_finite() && (MIN_SHARE..=MAX_SHARE).contains(&s);
        let unc_ok = |u: f64| u.is_finite() && (0.0..=10.0).contains(&u);
        for (tier, t, (lo, hi)) in [("scale_up", &self.scale_up, (MIN_INTRA_LATENCY_US, MAX_INTRA_LATENCY_US)), ("network", &self.network, (MIN_NET_LATENCY_US, MAX_NET_LATENCY_US))] {
            if let Some(b) = &t.bandwidth {
                let ops = b.by_op.iter().map(|o| (o.share, o.rel_uncertainty));
                if std::iter::once((b.share, b.rel_uncertainty)).chain(ops).any(|(s, u)| !share_ok(s) || !unc_ok(u)) {
                    // The bounds as text (a test holds them to the constants): no float
                    // formatting in the pages' bundles for a message.
                    return Err(format!("{tier} bandwidth share outside 0.02-1.25 (or its uncertainty outside 0-10)"));
                }
            }
            if let Some(l) = t.latency {
                if !(l.added_us.is_finite() && (lo..=hi).contains(&l.added_us) && l.uncertainty_us.is_finite() && l.uncertainty_us >= 0.0) {
                    return Err(format!("{tier} added latency outside -3 to 1000 µs"));
                }
            }
        }
        Ok(())
    }

    /// "measured at 2 nodes, predicted at 64" (or "measured at 1 node: the network is the
    /// catalog's") for a prediction over `domains` scale-up domains.
    pub fn scale_note(&self, domains: u32) -> String {
        let m = &self.measured_nodes;
        let list = match m.as_slice() {
            [] => "no run".to_string(),
            [one] => format!("{one} node{}", if *one == 1 { "" } else { "s" }),
            _ => format!("{} nodes", m.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        };
        let predicted = format!("predicted at {domains} node{}", if domains == 1 { "" } else { "s" });
        if domains > 1 && self.network.bandwidth.is_none() {
            format!("measured at {list}, {predicted}: the logs never crossed the network, so the network is the catalog's (not calibrated)")
        } else if m.contains(&domains) {
            format!("measured at {list}, {predicted} (a measured node count)")
        } else {
            format!("measured at {list}, {predicted}")
        }
    }

    /// "Calibrated from 3 logs: measured at 2 nodes, predicted at 64": what every page and the
    /// CLI print beside a number on a cluster as measured.
    pub fn words(&self, domains: u32) -> String {
        format!("Calibrated from {} log{}: {}", self.logs, if self.logs == 1 { "" } else { "s" }, self.scale_note(domains))
    }

    /// Whether a prediction over `domains` rests on calibrated parameters for every tier it
    /// crosses (the network only counts across domains).
    pub fn covers(&self, domains: u32) -> bool {
        if domains > 1 { self.network.bandwidth.is_some() } else { self.scale_up.bandwidth.is_some() }
    }


    /// The largest relative uncertainty of the tier a prediction over `domains` crosses (over
    /// the tier's share and each collective's): `None` where the fit does not cover it.
    pub(crate) fn tier_uncertainty(&self, domains: u32) -> Option<f64> {
        let tier = if domains > 1 { &self.network } else { &self.scale_up };
        tier.bandwidth.as_ref().map(|b| b.by_op.iter().map(|o| o.rel_uncertainty).fold(b.rel_uncertainty, f64::max))
    }

    /// The fit's 90% relative half-width on a training step of `step_us` µs over `domains`
    /// domains whose exposed collectives (TP, pipeline sends, DP, CP: `StepReport::exposed_comm_us`)
    /// take `exposed_us`: `Z90 x u_tier x exposed / step` (EP dispatch/combine is not calibrated
    /// in a step and is left out); `None` where the fit does not cover the tier the step crosses.
    pub fn step_u90(&self, exposed_us: f64, step_us: f64, domains: u32) -> Option<f64> {
        let u_tier = self.tier_uncertainty(domains)?;
        (step_us > 0.0).then(|| Z90 * u_tier * (exposed_us / step_us).clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{AlgoChoice, Comm, ProtoChoice};
    use crate::topology::Cluster;
    use crate::units::Bytes;

    fn share(s: f64) -> Option<Share> {
        Some(Share { share: s, rel_uncertainty: 0.02, by_op: Vec::new() })
    }

    #[test]
    fn a_network_share_moves_a_multi_node_plateau_and_not_a_single_node() {
        let t = Cluster::default().topology().unwrap();
        let comm = Comm::new(&t, t.whole()).unwrap();
        let cal = Calibration { network: TierFit { bandwidth: share(0.7), latency: None }, measured_nodes: vec![2], logs: 1, ..Default::default() };
        let big = Bytes(8 << 30);
        let base = comm.predict(Collective::AllReduce, big, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
        let slow = comm.clone().with_calibration(&cal).predict(Collective::AllReduce, big, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
        let r = slow.busbw.0 / base.busbw.0;
        assert!((0.68..0.72).contains(&r), "{r}");
        let one = Cluster { nodes: 1, ..Cluster::default() }.topology().unwrap();
        let c1 = Comm::new(&one, one.whole()).unwrap();
        let a = c1.predict(Collective::AllReduce, big, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
        let b = c1.with_calibration(&cal).predict(Collective::AllReduce, big, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
        assert_eq!(a.busbw, b.busbw);
        let i = cal.busbw_intervals(&slow, 4).unwrap();
        assert!(i.busbw_gbps.lo < slow.busbw.0 && slow.busbw.0 < i.busbw_gbps.hi);
        assert!(cal.scale_note(4).contains("measured at 2 nodes, predicted at 4"));
    }

    #[test]
    fn bounds_are_checked() {
        // validate's messages state the bounds as text.
        assert_eq!((MIN_SHARE, MAX_SHARE), (0.02, 1.25));
        assert_eq!([MIN_INTRA_LATENCY_US, MAX_INTRA_LATENCY_US], [-3.0, 1000.0]);
        assert_eq!([MIN_NET_LATENCY_US, MAX_NET_LATENCY_US], [-3.0, 1000.0]);
        let mut cal = Calibration { network: TierFit { bandwidth: share(2.0), latency: None }, ..Default::default() };
        assert!(cal.validate().is_err());
        cal.network.bandwidth = share(0.8);
        assert!(cal.validate().is_ok());
        cal.network.latency = Some(Latency { added_us: f64::NAN, uncertainty_us: 0.0 });
        assert!(cal.validate().is_err());
    }

    #[test]
    fn a_calibration_round_trips_through_a_link_and_a_bad_one_says_why() {
        let cal = Calibration { network: TierFit { bandwidth: share(0.81), latency: Some(Latency { added_us: 12.5, uncertainty_us: 1.0 }) }, measured_nodes: vec![1, 2], logs: 3, ..Default::default() };
        let c = Cluster::default();
        let link = cal.to_link(&c);
        assert!(link.starts_with(LINK_PREFIX) && link.len() < 700, "{link}");
        assert_eq!(Calibration::from_link(&link, &c), Ok(cal.clone()));
        // Another node count is the question a calibration answers; other hardware is refused.
        assert!(Calibration::from_link(&link, &Cluster { nodes: 64, ..Cluster::default() }).is_ok());
        let other = Calibration::from_link(&link, &Cluster { nic: crate::catalog::NicKind::Roce400, ..Cluster::default() }).unwrap_err();
        assert!(other.contains("fitted on h100 ib-ndr 8") && other.contains("not h100 roce-400 8"), "{other}");
        assert!(Calibration::from_link("v2.abc", &c).unwrap_err().contains("expected v1."));
        assert!(Calibration::from_link("v1.!!", &c).unwrap_err().contains("damaged"));
        let bad = Calibration { network: TierFit { bandwidth: share(9.0), latency: None }, ..Default::default() };
        assert!(Calibration::from_link(&bad.to_link(&c), &c).unwrap_err().contains("out of bounds (shares 0.02-1.25"));
        assert!(Calibration::from_link(&"v1.".repeat(4000), &c).unwrap_err().contains("over the"));
    }

    /// EP dispatch and combine on a cluster as measured (a training step's or a serving
    /// step's own calls of `crate::ep`) are timed on the links `ep --calibration` scales:
    /// the same report as `evaluate_scaled` with the AllToAll shares, slower than the catalog's
    /// across the network at 70% of its NICs, unchanged inside one domain (the network's fit).
    #[test]
    fn ep_on_a_cluster_as_measured_is_ep_calibration() {
        use crate::ep::{evaluate, evaluate_scaled, EpInput};
        let cal = Calibration { network: TierFit { bandwidth: share(0.7), latency: None }, measured_nodes: vec![2], logs: 1, ..Default::default() };
        let plain = Cluster { nodes: 8, ..Cluster::default() };
        let (tp, tm) = (plain.topology().unwrap(), plain.as_measured(&cal).topology().unwrap());
        let s = cal.scales_for(Collective::AllToAll);
        for ranks in [8, 64] {
            let i = EpInput::training(ranks, 4096.0, 7168, 8, 256, 0, None);
            let (page, cli, catalog) = (evaluate(&tm, &i).unwrap(), evaluate_scaled(&tp, &i, s.intra_bw, s.net_bw).unwrap(), evaluate(&tp, &i).unwrap());
            assert_eq!(page.dispatch.time_us, cli.dispatch.time_us);
            assert_eq!(page.combine.time_us, cli.combine.time_us);
            if ranks > 8 {
                assert!(page.dispatch.time_us > 1.2 * catalog.dispatch.time_us, "{} vs {}", page.dispatch.time_us, catalog.dispatch.time_us);
            } else {
                assert_eq!(page.dispatch.time_us, catalog.dispatch.time_us);
            }
        }
    }

    /// A cluster as measured (the calibration inside the cluster, as the pages carry it) times
    /// every collective as a communicator given the same calibration does (the CLI's
    /// `--calibration`), with the same interval: page and CLI give one answer.
    #[test]
    fn a_calibrated_cluster_predicts_as_the_cli_path_does() {
        let cal = Calibration { network: TierFit { bandwidth: share(0.7), latency: Some(Latency { added_us: 8.0, uncertainty_us: 1.0 }) }, measured_nodes: vec![2], logs: 2, ..Default::default() };
        let plain = Cluster { nodes: 64, ..Cluster::default() };
        let measured = plain.as_measured(&cal);
        let (tp, tm) = (plain.topology().unwrap(), measured.topology().unwrap());
        let cli = Comm::new(&tp, tp.whole()).unwrap().with_calibration(&cal);
        let page = Comm::new(&tm, tm.whole()).unwrap();
        let catalog = Comm::new(&tp, tp.whole()).unwrap();
        for bytes in [Bytes(1 << 20), Bytes(1 << 30)] {
            let (a, b) = (cli.predict(Collective::AllReduce, bytes, AlgoChoice::Auto, ProtoChoice::Auto).unwrap(), page.predict(Collective::AllReduce, bytes, AlgoChoice::Auto, ProtoChoice::Auto).unwrap());
            assert_eq!(a.busbw, b.busbw);
            let c = catalog.predict(Collective::AllReduce, bytes, AlgoChoice::Auto, ProtoChoice::Auto).unwrap();
            // 70% of the NICs and 8 µs more per operation: slower at every size, about 0.7x on the plateau.
            let bound = if bytes.0 >= 1 << 30 { 0.75 } else { 1.0 };
            assert!(b.busbw.0 < bound * c.busbw.0, "the fit moves the prediction: {} against {}", b.busbw.0, c.busbw.0);
            // The interval the CLI prints (busbw_intervals) is the one the pages shade.
            let i = cal.busbw_intervals(&a, tm.domains).unwrap();
            let (lo, hi) = crate::calibration::apply::collective_ratios(&b.trust).unwrap();
            assert!((i.busbw_gbps.lo - b.busbw.0 * lo).abs() < 1e-6 * b.busbw.0 && (i.busbw_gbps.hi - b.busbw.0 * hi).abs() < 1e-6 * b.busbw.0, "{i:?} {lo} {hi}");
            // Wider than the catalog's class alone: the fit's uncertainty is added once.
            let (clo, chi) = crate::calibration::apply::collective_ratios(&c.trust).unwrap();
            assert!(lo < clo && hi > chi && hi - lo < chi - clo + 2.0 * 1.645 * 0.02 + 1e-9, "{lo}-{hi} against {clo}-{chi}");
        }
        // The calibrated cluster survives a link, and other hardware is refused by name.
        let s = crate::Scenario::new(measured.clone());
        assert_eq!(crate::link::decode(&crate::link::encode(&s)).scenario.cluster, measured);
        let other = Cluster { gpu: crate::catalog::GpuKind::B200, scale_up: crate::catalog::ScaleUp::NvSwitch { gen: 5 }, ..measured };
        let e = other.topology().unwrap_err();
        assert_eq!(e.field, "calibration");
        assert!(e.message.contains("fitted on h100 ib-ndr 8 (GPU, NIC, GPUs per node), not b200 ib-ndr 8"), "{}", e.message);
        // The list reads back to the same fit; a damaged one says so.
        let flat = |c: &Calibration| Calibration::from_flat(&mut c.to_flat().into_iter());
        assert_eq!(flat(&cal), Some(cal.clone()));
        let full = Calibration { scale_up: TierFit { bandwidth: Some(Share { share: 0.9, rel_uncertainty: 0.01, by_op: vec![OpShare { op: Collective::AllGather, share: 0.85, rel_uncertainty: 0.02 }] }), latency: None }, ..cal.clone() };
        assert_eq!(flat(&full), Some(full.clone()));
        let v = full.to_flat();
        assert_eq!(Calibration::from_flat(&mut v[..v.len() - 1].iter().copied()), None);
        assert_eq!(Calibration::from_flat(&mut [2.0].into_iter()), None);
        for (i, bad) in [(1, -1.0), (5, 9.0), (5, f64::NAN), (6, 11.0)] {
            let mut b = v.clone();
            b[i] = bad;
            assert_eq!(Calibration::from_flat(&mut b.into_iter()), None, "value {i} at {bad}");
        }
        // A cluster's text with a share out of bounds is refused with the bounds named.
        let text = Measured(Measured::new(plain.gpu, plain.nic, plain.gpus_per_node, &full).0.replacen(" 0.9 ", " 9 ", 1));
        assert!(text.calibration(plain.gpu, plain.nic, plain.gpus_per_node).unwrap_err().contains("out of bounds (shares 0.02-1.25"), "{text:?}");
        assert!(cal.words(32).starts_with("Calibrated from 2 logs: measured at 2 nodes, predicted at 32"));
    }
}
