//! Transport effects a flow model cannot see (PFC pauses, DCQCN rate control, incast,
//! retransmits), listed beside the fraction and never folded into it. Each carries a band of
//! throughput kept only where a published measurement gives one; none was found for an AI
//! collective (validation/README.md, "Congestion, sharing and failures"), so every band here is
//! empty and the entry says what the model assumes instead.

use serde::Serialize;

/// One effect: what it is, the band of throughput kept where it bites, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Derate {
    pub effect: &'static str,
    /// What the flow model assumes in its place.
    pub assumes: &'static str,
    /// Fraction of throughput kept, low end of the band (dimensionless); `None` = no
    /// published band.
    pub kept_low: Option<f64>,
    /// Fraction kept, high end (dimensionless).
    pub kept_high: Option<f64>,
    /// Where the band comes from, or why there is none.
    pub source: &'static str,
}

/// What each entry says when no measurement gives a band.
const NO_BAND: &str = "not modelled: no published measurement with a band for AI collectives was found";

/// The labelled transport effects, in the order a reader meets them on a RoCE fabric.
pub fn derates() -> Vec<Derate> {
    let none = |effect, assumes| Derate { effect, assumes, kept_low: None, kept_high: None, source: NO_BAND };
    vec![
        none("PFC pauses", "links never pause (no head-of-line blocking in the lossless class)"),
        none("DCQCN", "rate control converges at once and exactly to the max-min shares"),
        none("incast", "a receiving NIC is shared fairly among its senders, with no loss"),
        none("retransmits", "a lossless fabric (InfiniBand credit flow control, RoCE with PFC)"),
    ]
}
