//! Teaching: collectives played step by step on a small copy of the cluster ([`schedule`])
//! and the model's answers to lesson questions ([`lesson`]).

pub mod lesson;
pub mod schedule;

pub use schedule::{schedule, unavailable, Frame, Instance, LinkKind, Play, Schedule};
