//! Teaching: collectives played step by step on a small copy of the cluster ([`schedule`]),
//! the model's answers to lesson questions ([`lesson`]), and every algorithm side by side ([`algos`]).
//!
//! Built on the model (`fabricscope-model`) and the serving model (`fabricscope-serving`, for
//! the serving lesson's measures) and nothing else (the goodput lesson's measures come from the model's goodput module): the model modules this crate may
//! use are re-exported below under their model names. Used by learn.html and `fabricscope teach`.

pub(crate) use fabricscope_model::{catalog, collective, error, nccl, topology, units, Scenario};

pub mod algos;
pub mod failures;
pub mod lesson;
pub mod mesh;
pub mod schedule;
pub mod serving;

pub use schedule::{schedule, unavailable, Fabric, Frame, Instance, LinkKind, Play, Schedule};
