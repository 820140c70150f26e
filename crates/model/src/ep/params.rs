//! The parameters of the two EP libraries that published measurements exist for, as
//! [`crate::ep::fit::fit`] gives them on validation/ep-dispatch.csv (per library and kernel kind,
//! never per row): crates/model/tests/ep_accuracy.rs refits them from the rows and fails when a
//! constant here is more than its rounding away from the fit. Every row is listed against them
//! in docs/ep-accuracy.md.
//!
//! Rows: DeepEP's own tables (docs/legacy.md V1 on H800 with 8x 400G InfiniBand per node,
//! README V2 on Hopper and Blackwell; released 2026-12-06), user reports in DeepEP's issues and
//! a SuperPod blog, and pplx-kernels' README (H100, IBGDA). Latencies of normal kernels are not
//! fitted (every row is at 4,096 tokens or more, where they are a few percent): they stay at
//! the library's prior ([`crate::ep::library::Library::prior`]).

use super::library::{low_latency, normal, Library, LibraryParams, Transport};

impl Library {
    /// Its parameters fitted on the validation rows (DeepEP, pplx-kernels: the constants
    /// below), else its [`Library::prior`].
    pub fn params(self) -> LibraryParams {
        match self {
            Library::Deepep => DEEPEP,
            Library::Pplx => PPLX,
            _ => self.prior(),
        }
    }

    /// Its parameters were fitted on published measurements.
    pub fn fitted(self) -> bool {
        matches!(self, Library::Deepep | Library::Pplx)
    }
}

/// DeepEP, fitted. Normal kernels: `nvlink_efficiency` (fraction of the per-direction NVLink
/// line rate) on the intranode rows (H20, H800, B200) and the H800 internode rows, which are
/// NVLink-bound at 2 nodes; `rdma_efficiency` (fraction of one 400G NIC's goodput, counting only
/// the copies that leave the node) on the internode rows. Low-latency kernels: fixed costs (µs)
/// and NIC efficiency on DeepEP's V1 table (EP 16-256, 128 tokens, H800; values after its
/// 2025-06-05 README update). Every row there is at 128 tokens, where the transfer dominates, so
/// the split between fixed cost and rate is loosely pinned: the combine's fixed cost sits at the
/// fit's floor ([`crate::ep::fit::MIN_LATENCY_US`]) and no growth per doubling of EP is seen.
/// Inside one node (no low-latency row) the prior's fixed cost and NVLink efficiency stay.
pub const DEEPEP: LibraryParams = LibraryParams { normal: normal(0.79, 0.97, 20.0, 40.0), low_latency: Some(low_latency(16.0, 5.0, 0.0, 0.93, true, 20.0, 0.6)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: None };

/// pplx-kernels, fitted on its README's tables (H100, EP 8-128, 1 and 128 tokens per GPU,
/// hidden 7168, top-8 of 256, FP8 dispatch, BF16 combine; the IBGDA transport; its CPU-proxy IB
/// RC rows are not modelled): fixed costs of dispatch and combine (µs), their growth per
/// doubling of EP (µs), NIC efficiency; inside one node the fixed cost and NVLink efficiency.
pub const PPLX: LibraryParams = LibraryParams { normal: None, low_latency: Some(low_latency(107.0, 44.0, 3.0, 0.63, false, 41.0, 0.5)), fp8_dispatch: true, transport: Transport::GpuInitiated, max_network_ranks: None, max_scale_up_ranks: None };

/// The training step's exchange ([`crate::ep::layer_exchange_us`]) keeps the parameters of the
/// EP model before libraries (one class fitted on DeepEP user reports, every distinct node's
/// copy counted as network bytes): the training calibration was made with them. NVLink: fraction
/// of the per-direction line rate (H20 and H800 intranode reports, median 0.75).
pub const TRAINING_NVLINK_EFFICIENCY: f64 = 0.75;
/// RDMA: DeepEP's counted RDMA figure over one 400G NIC's goodput (median of 8 user reports).
pub const TRAINING_RDMA_EFFICIENCY: f64 = 0.915;
/// Fixed cost inside one domain, µs (pplx-kernels' EP 8 NVLink rows).
pub const TRAINING_NVLINK_LATENCY_US: f64 = 40.0;
/// Fixed cost across the network, µs (the former low-latency dispatch fit on pplx-kernels).
pub const TRAINING_RDMA_LATENCY_US: f64 = 105.0;

/// Median absolute error of each kernel kind on the counted rows (each with its own library's
/// parameters), percent: the band shown with a prediction of a fitted library on measured
/// hardware (crates/model/tests/ep_accuracy.rs checks these against the table it prints).
pub const BAND_NORMAL_PCT: f64 = 4.0;
pub const BAND_LOW_LATENCY_PCT: f64 = 3.0;
