//! Teaching: collectives played step by step on a small copy of the cluster ([`schedule`]),
//! the model's answers to lesson questions ([`lesson`]), and every algorithm side by side ([`algos`]).

pub mod algos;
pub mod lesson;
pub mod schedule;

pub use schedule::{schedule, unavailable, Frame, Instance, LinkKind, Play, Schedule};
