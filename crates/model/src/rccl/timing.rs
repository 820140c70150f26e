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

/// The 2-node MI300X ramp of the ROCm docs' multi-node screenshot (16 ranks inferred;
/// validation/collectives-amd-efa.csv), 17.8 / 95.8 / 228.9 GB/s busbw at 1 / 16 / 128 MiB, is
/// timed by the network model's message terms (`network::NetPath::message_terms`): RCCL runs
/// Tree/Simple there in 32-64 KiB chunks, each passing twice through the head GPU's proxy
/// (+14% and +24% at 1 and 16 MiB, from +41% and +107%); the 128 MiB Ring/Simple row stays 25%
/// optimistic (one source, its node count inferred: the timing is not bent to it).
///
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

/// The least band, percent, of an RCCL prediction on a generation no rccl-tests result covers
/// (gfx950, MI355X), timed from gfx942's measured classes. Its links signal 1.2x faster
/// (`XgmiSpec::speedup_over_measured`); whether its kernels turn that into busbw is not
/// measured, so the timing takes the middle of the two readings (all of the gain or none:
/// sqrt(1.2) = 1.095x gfx942's rate), and each reading lies 9.5% from it: the band, rounded up. `check`
/// judges against the predecessor's measured band (its 10% floor), so a run at either reading
/// is healthy and one below both is "cannot judge", never "not healthy".
pub const GENERATION_BAND_PCT: f64 = 9.6;

/// Host cost of one process launching a collective on each further AMD GPU it drives
/// (rccl-tests `-g 8`): 8x MI300X all_reduce takes 40.88 us at 8 B with one process and 10.01
/// at 1 KiB with one process per GPU (same host, same docs page): 30.9 us over 7 launches.
/// NVIDIA's figure is `network::HOST_LAUNCH_STAGGER`.
pub const HIP_LAUNCH_STAGGER: Micros = Micros(4.4);

/// What each step of RCCL's Simple ring inside an xGMI node costs beyond `latency + bytes /
/// bandwidth` once its pieces are large, us. RCCL's choice does not change between 1 MiB and
/// 1 GiB on 8x MI300X (Ring/Simple by its own tables, `super`), nor do its channels: nChannels
/// is cut only while `nBytes < nc x nThreads x 64` (ROCm/rccl src/enqueue.cc
/// `getChannnelThreadInfo` line 1666 @0cbce2a7; 256 threads, NCCL_SIMPLE_THREAD_THRESHOLD 64,
/// so under 1 MiB for 64 channels, and RCCL never halves the threads, line 1669), and the
/// AllReduce ring's chunk is never shrunk (`computeCollChunkInfo`, lines 1844-1866, adjusts
/// Tree, the Broadcast/Reduce pipelines, CollNet and NVLS only): its 2 MiB chunk
/// (`DEFAULT_BUFFSIZE` 4 MiB / `NCCL_STEPS` 8 x `ALLREDUCE_CHUNKSTEPS` 4; init.cc line 839,
/// include/collectives.h) moves in 1 MiB slices. So the medium-size ramp is in the timing, not
/// the choice: each ring step's piece grows with the message until the slices are full, and a
/// step that moves a large piece costs more than the LL-fitted step latency (completion
/// fences and flag round trips per slice). Fitted once for the class on the
/// one-process-per-GPU rccl-tests rows of the AMD ROCm docs (no host launch effects;
/// validation/collectives-amd-efa.csv): 16 MiB takes 148.5 us, 128 MiB 794.5, 1 GiB 5979.6,
/// each 35-37 us above latency plus bytes at the 8 GiB rate over 14 steps: 2.6 us a step;
/// 1 MiB (26.6 us) shows almost none of it.
pub const XGMI_RING_FILL_PER_STEP_US: f64 = 2.6;

/// Message size at which the per-step cost reaches [`XGMI_RING_FILL_PER_STEP_US`], bytes: 16
/// MiB, the smallest one-process-per-GPU row that shows all of it (1 MiB shows ~1 us, 16 MiB
/// 36 us); below it the cost grows linearly with the piece. Where exactly between 1 and 16 MiB
/// the slices fill is not measured (no public 2-8 MiB row without host launch effects).
pub const XGMI_RING_FILL_FULL: u64 = 16 << 20;

/// The fill of a Simple ring of `steps` steps at `bytes`: [`XGMI_RING_FILL_PER_STEP_US`] per
/// step, linear up to [`XGMI_RING_FILL_FULL`], flat above.
pub fn xgmi_ring_fill(steps: f64, bytes: crate::units::Bytes) -> Micros {
    let frac = (bytes.as_f64() / XGMI_RING_FILL_FULL as f64).min(1.0);
    Micros(XGMI_RING_FILL_PER_STEP_US * steps * frac)
}
