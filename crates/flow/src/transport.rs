//! Transport effects a flow model cannot see (PFC pauses, DCQCN, incast, retransmits), as
//! labelled bands with their sources. They are reported beside the fraction, never folded
//! into it.

use serde::Serialize;

/// One effect: what it is, the band of throughput lost where it bites, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Derate {
    pub effect: &'static str,
    /// Fraction of throughput kept, low end of the band (dimensionless).
    pub kept_low: Option<f64>,
    /// Fraction kept, high end (dimensionless).
    pub kept_high: Option<f64>,
    /// Where the band comes from, or "modelled, not measured".
    pub source: &'static str,
}

/// The labelled transport effects.
pub fn derates() -> Vec<Derate> {
    Vec::new()
}
