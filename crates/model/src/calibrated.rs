//! A cluster as measured, applied (issue 40): the communicator timed with a calibration's
//! factors ([`Comm::with_calibration`], what `Cluster::calibration` gives every communicator
//! through `Topology::fitted`), the calibrated intervals the CLI prints, a calibration in a
//! link's `cal=`, and the training search timed on it. The fit's values and their arithmetic
//! are `fitted` (a leaf every module may name); this file uses the model around them.

use crate::calibration::apply::{collective_basis, for_collective, CollectiveIntervals};
use crate::collective::{Collective, Comm, Prediction};
use crate::fitted::{with_fit, Calibration, Measured, Scales, LINK_PREFIX, MAX_LINK_CHARS, Z90};
use crate::units::GBps;
use serde::{Deserialize, Serialize};

/// A calibration in a link's `cal=`, with the hardware it was fitted on.
#[derive(Serialize, Deserialize)]
struct Linked {
    gpu: crate::catalog::GpuKind,
    nic: crate::catalog::NicKind,
    gpus_per_node: u32,
    calibration: Calibration,
}

impl Calibration {
    /// The calibration of a cluster `c` as a link parameter's value (`cal=v1.<base64url of its
    /// JSON>`): the fitted values and the hardware they were fitted on (GPU, NIC, GPUs per node),
    /// never the logs, so a page's link stays short and a page can refuse other hardware.
    pub fn to_link(&self, c: &crate::topology::Cluster) -> String {
        let linked = Linked { gpu: c.gpu, nic: c.nic, gpus_per_node: c.gpus_per_node, calibration: self.clone() };
        format!("{LINK_PREFIX}{}", crate::link::base64url_encode(serde_json::to_string(&linked).unwrap_or_default().as_bytes()))
    }

    /// A calibration read back from [`Calibration::to_link`]'s text and checked against the
    /// cluster `c` a page shows: the same GPU, NIC and GPUs per node (the node count may differ:
    /// that is the question a calibration answers); `Err` says what is wrong.
    pub fn from_link(text: &str, c: &crate::topology::Cluster) -> Result<Calibration, String> {
        if text.len() > MAX_LINK_CHARS {
            return Err(format!("the calibration in the link is {} characters, over the {MAX_LINK_CHARS} one may have", text.len()));
        }
        let payload = text.trim().strip_prefix(LINK_PREFIX).ok_or_else(|| format!("not a calibration (expected {LINK_PREFIX}<data>)"))?;
        let bytes = crate::link::base64url_decode(payload).ok_or("the calibration in the link is damaged (not base64url)")?;
        let l: Linked = serde_json::from_slice(&bytes).map_err(|e| format!("the calibration in the link is damaged: {e}"))?;
        Measured::new(l.gpu, l.nic, l.gpus_per_node, &l.calibration).calibration(c.gpu, c.nic, c.gpus_per_node)
    }

    /// The calibrated 90% intervals of `p` (over `domains` scale-up domains): the class's
    /// out-of-sample interval combined in quadrature with the fit's uncertainty (module doc).
    /// A prediction over a tier the fit does not cover gets the catalog's interval, its basis
    /// saying the part is not calibrated. `None` where the class has no interval.
    pub fn busbw_intervals(&self, p: &Prediction, domains: u32) -> Option<CollectiveIntervals> {
        // The class's own interval: a calibrated communicator's prediction carries the fit's
        // term already (`Trust::fit_u90`), added once below.
        #[cfg(any(test, feature = "calibrate"))]
        let c = for_collective(&crate::trust::Trust { fit_u90: None, ..p.trust })?;
        #[cfg(not(any(test, feature = "calibrate")))]
        let c = for_collective(&p.trust)?;
        let basis = collective_basis(&p.trust, &c);
        let tier = if domains > 1 { &self.network } else { &self.scale_up };
        let Some(share) = &tier.bandwidth else {
            let what = if domains > 1 { "network" } else { "scale-up" };
            let basis = format!("{basis}; the {what} is the catalog's: the logs never exercised it, so this interval is not calibrated");
            return Some(CollectiveIntervals { busbw_gbps: c.throughput(p.busbw.0, &basis), time_us: c.time(p.time.0, &basis) });
        };
        let u = Z90 * share.for_op(p.op).1;
        let (lo, hi) = with_fit((c.lo, c.hi), u);
        let k = crate::calibration::apply::Calibrated { lo, hi, ..c };
        let basis = format!("calibrated from {} log{} ({}); the class's interval ({basis}) combined in quadrature with the fit's ±{:.1}% (90%)", self.logs, if self.logs == 1 { "" } else { "s" }, self.scale_note(domains), u * 100.0);
        Some(CollectiveIntervals { busbw_gbps: k.throughput(p.busbw.0, &basis), time_us: k.time(p.time.0, &basis) })
    }
}

impl Comm {
    /// The same communicator timed with a cluster's measured parameters: every prediction
    /// applies `cal`'s factors for its collective (module doc). NCCL's choice of algorithm and
    /// protocol is unchanged: NCCL plans on the hardware it detects, not on what it delivers.
    pub fn with_calibration(mut self, cal: &Calibration) -> Comm {
        self.calibration = Some(Collective::ALL.map(|op| cal.scales_for(op)));
        self
    }

    /// This communicator with the factors `s` applied to its bandwidths and latencies (and no
    /// calibration left to apply): what [`Comm::predict`] runs on a calibrated communicator, and
    /// what a fit varies.
    pub fn scaled(&self, s: Scales) -> Comm {
        let mut c = self.clone();
        c.calibration = None;
        let net_latency = if c.net.is_some() { s.net_latency_us } else { 0.0 };
        c.intra_fit = (c.intra_fit.0 * s.intra_bw, c.intra_fit.1 + s.intra_latency_us + net_latency);
        c.p2p_intra = GBps(c.p2p_intra.0 * s.intra_bw);
        if let Some(r) = c.rccl.as_mut() {
            r.pair_bw = r.pair_bw.map(|b| b * s.intra_bw);
        }
        c.a2a_inject *= s.net_bw;
        if let Some(n) = c.net.as_mut() {
            for v in [&mut n.nic_side, &mut n.gpu_side, &mut n.one_nic, &mut n.nvls_tree_nic_side, &mut n.nvls_tree_gpu_side, &mut n.rail_bw] {
                *v *= s.net_bw;
            }
            n.intra *= s.intra_bw;
            if n.nvls_intra_algbw.is_finite() {
                n.nvls_intra_algbw *= s.intra_bw;
            }
        }
        c
    }
}

impl Calibration {
    /// A calibrated training step's 90% intervals: the training class's interval `c` combined,
    /// as [`Calibration::busbw_intervals`] does, with the fit's uncertainty carried by the
    /// step's exposed collectives: `u = Z90 x u_tier x (TP + pipeline sends + DP + CP) / step`
    /// (EP dispatch/combine is not calibrated in a step and is left out). A step over a tier
    /// the fit does not cover gets the class's interval, its basis saying so.
    pub fn step_intervals(&self, c: &crate::calibration::apply::Calibrated, basis: &str, r: &crate::training::step_report::StepReport, domains: u32) -> crate::calibration::apply::StepIntervals {
        use crate::calibration::apply::{step_intervals, Calibrated};
        let (k, basis) = match self.step_u90(r.exposed_comm_us(), r.step_time_s * 1e6, domains) {
            Some(u) => {
                let (lo, hi) = with_fit((c.lo, c.hi), u);
                (Calibrated { lo, hi, ..*c }, format!("calibrated from {} log{} ({}); {basis}; combined in quadrature with the fit's ±{:.1}% on the step's exposed collectives", self.logs, if self.logs == 1 { "" } else { "s" }, self.scale_note(domains), u * 100.0))
            }
            _ => (*c, format!("{basis}; the network is the catalog's: the logs never exercised it, so this interval is not calibrated")),
        };
        step_intervals(&k, &basis, r.step_time_s, r.tokens_per_s, r.mfu, r.model_tflops_per_gpu, r.hardware_tflops_per_gpu)
    }
}

