//! What rccl-tests would measure on AMD Instinct: RCCL's choice (its tables, `super`) timed
//! with physical terms fitted once per hardware class on validation/collectives-amd-efa.csv
//! (never per row). Across nodes the network model (`crate::network`) times the bytes, as for
//! NCCL.

use crate::units::Micros;

/// RCCL's latency tables against what an 8x MI300X node measures: rccl-tests all_reduce at
/// 1 KiB with one process per GPU takes 10.01 us (AMD ROCm docs, "Prerequisite system
/// validation", validation/collectives-amd-efa.csv) where RCCL's own Ring/LL estimate is
/// 12 + 14 x 0.8 = 23.2 us: 0.43. Fitted for the class "single node, xGMI" on that row and
/// applied to RCCL's base and intra-node latency terms (the tables are scaled, not reshaped);
/// network steps keep RCCL's figures.
pub const XGMI_LATENCY_SCALE: f64 = 0.43;

/// The corrections [`super::timing_latency`] applies.
pub const PHYSICAL: super::Physical = super::Physical { intra_scale: XGMI_LATENCY_SCALE, ring_simple_net: RING_SIMPLE_NET_LATENCY_US };

/// Fraction of RCCL's planned xGMI bandwidth (7 links x 48 GB/s per direction) a Simple ring
/// sustains: 8x MI300X all_reduce busbw at 8 GiB, 316.6 (one process, `-g 8`) and 317.3 GB/s
/// (one process per GPU), against 336: 0.944.
pub const XGMI_RING_EFFICIENCY: f64 = 0.944;

/// Network hardware latency of one Ring/Simple step used for timing, us: RCCL's table says
/// 320 us (a figure that steers its cost model away from Simple rings across nodes, not a
/// time), so the timing takes its Tree/Simple network figure, 25 us, for the same hop.
pub const RING_SIMPLE_NET_LATENCY_US: f64 = 25.0;

/// Whether published rccl-tests results back this architecture's classes: gfx942 (MI300X; MI325X
/// is the same die) yes, gfx950 (MI355X) no rccl-tests result was found
/// (validation/README-hardware.md), so its predictions say "not validated".
pub fn measured(arch: crate::catalog::Arch) -> bool {
    arch == crate::catalog::Arch::Cdna3
}

/// Host cost of one process launching a collective on each further AMD GPU it drives
/// (rccl-tests `-g 8`): 8x MI300X all_reduce takes 40.88 us at 8 B with one process and 10.01
/// at 1 KiB with one process per GPU (same host, same docs page): 30.9 us over 7 launches.
/// NVIDIA's figure is `network::HOST_LAUNCH_STAGGER`.
pub const HIP_LAUNCH_STAGGER: Micros = Micros(4.4);
