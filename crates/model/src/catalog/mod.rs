//! The hardware catalog: GPUs, scale-up and scale-out fabrics, switches. Typed data, each
//! figure with its unit and source.

pub mod fabric;
pub mod gpu;
pub mod power;

pub use fabric::{NetFamily, NicKind, NicSpec, Routing, ScaleUp, SwitchKind, SwitchSpec, TierFacts};
pub use gpu::{Arch, GpuKind, GpuSpec, PcieGen};
