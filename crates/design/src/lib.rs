//! Designs built on the model: a cluster's bill of materials ([`bom`]: parts per tier, power,
//! price book, cost), a design's key numbers and the delta table ([`design`]), up to four
//! named designs compared ([`compare`]), and fabric options for a job ranked by cost or power
//! against step time ([`rightsize`]).
//!
//! Built on the model (`fabricscope-model`) and nothing else: the model modules this crate may
//! use are re-exported below under their model names, so `crate::training` reads as it does in
//! the model. Used by the CLI (`bom`, `compare`, `rightsize`), the explorer's key numbers and
//! compare.html.

pub(crate) use fabricscope_model::{
    calibration, catalog, collective, error, fabric_tree, figures, goodput, link, presets, report, scenario, topology, training, units,
    Scenario,
};

pub mod bom;
pub mod compare;
pub mod design;
pub mod rightsize;
