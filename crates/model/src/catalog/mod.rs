//! The hardware catalog: GPUs, scale-up and scale-out fabrics, switches. Typed data, each
//! figure with its unit and source.

pub mod fabric;
pub mod gpu;
pub mod power;
pub mod xgmi;

pub use fabric::{NetFamily, NicKind, NicSpec, Routing, ScaleUp, SwitchKind, SwitchSpec, TierFacts};
pub use gpu::{Arch, CollectiveLibrary, GpuKind, GpuSpec, PcieGen};
pub use xgmi::{xgmi_of, XgmiSpec};
