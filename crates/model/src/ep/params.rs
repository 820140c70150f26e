//! Physical parameters of expert-parallel dispatch and combine kernels, fitted once per class
//! (kernel kind x link) on validation/ep-dispatch.csv, never per row (see docs/ep-accuracy.md and
//! crates/model/tests/ep_accuracy.rs, which prints every row against these).
//!
//! Fitted on Hopper rows only (H100, H200, H800; H20 read as H100, whose NVLink4 and PCIe it
//! shares). On other GPUs the same parameters are used and the result says "not validated".

/// Normal (throughput) kernels, NVLink: fraction of the GPU's per-direction NVLink line rate
/// the SM-driven copies reach. DeepEP intranode benchmarks by users: H20 326.6, 332.6, 337.4,
/// 344.5 GB/s of 450 (0.73-0.77), H800 160.5 of 200 (0.80): median 0.75 (issues #16, #138;
/// pplx-kernels issue 10). The one GB200 tray row (169 GB/s of 900, DeepEP issue 394, "why is
/// NVLink not saturated", open) is not used: Blackwell stays "not validated".
pub const NORMAL_NVLINK_EFFICIENCY: f64 = 0.75;

/// Normal kernels, RDMA between nodes: DeepEP's RDMA figure (one copy per distinct destination
/// node, the token's own node included) over one NIC's goodput. User
/// reports on 400G ConnectX-7 and 8 mlx5 NICs per node: H200 40.9/44.4 GB/s (issue 493, 2
/// nodes), H800 47.9/43.0 and 60.6/56.7 (2 and 4 nodes, tuned, Lei Wang's SuperPod blog),
/// H100 25.8/25.2 (issue 155, "lower than expected"): median of the 8 over 47.75 GB/s = 0.915.
/// Left out: rows whose NIC is not stated or not in the catalog (H20 200G RoCE, issue 148),
/// and the two reports the threads call broken (H200 4 nodes, issue 493; RoCE without
/// adaptive routing, issue 82); they are still shown in the accuracy table.
pub const NORMAL_RDMA_EFFICIENCY: f64 = 0.915;

/// Low-latency kernels over RDMA (one message per token-expert pair, GPU-initiated): fixed
/// cost of dispatch and of combine at EP 8, µs, and what each doubling of EP adds (more peers
/// to signal and wait for). Fitted, with [`LL_RDMA_EFFICIENCY`], by least mean |log error| on
/// the 16 pplx-kernels IBGDA rows (EP 16-128, 1 and 128 tokens per GPU, hidden 7168, top-8,
/// 256 experts, FP8 dispatch, BF16 combine) and DeepEP issue 28's H800 dispatch+combine sum.
pub const LL_DISPATCH_LATENCY_US: f64 = 105.0;
pub const LL_COMBINE_LATENCY_US: f64 = 40.0;
pub const LL_LATENCY_PER_DOUBLING_US: f64 = 4.0;

/// Low-latency kernels over RDMA: fraction of one NIC's goodput the per-token-expert messages
/// reach (same fit as [`LL_DISPATCH_LATENCY_US`]).
pub const LL_RDMA_EFFICIENCY: f64 = 0.70;

/// Low-latency kernels inside one NVLink domain: fixed cost, µs, and fraction of the NVLink
/// line rate. Fitted on pplx-kernels' EP 8 NVLink rows (H100, 1 and 128 tokens per GPU:
/// 41.6/41.7 and 83.6/102.3 µs).
pub const LL_NVLINK_LATENCY_US: f64 = 40.0;
pub const LL_NVLINK_EFFICIENCY: f64 = 0.40;

/// Fixed cost of a normal kernel (launch, layout exchange, barrier), µs: not measured in the
/// data (the rows give bandwidths at 4,096 tokens, where it is a few percent); taken as the
/// low-latency kernels' fixed cost on the same link.
pub const NORMAL_NVLINK_LATENCY_US: f64 = LL_NVLINK_LATENCY_US;
pub const NORMAL_RDMA_LATENCY_US: f64 = LL_DISPATCH_LATENCY_US;

/// Median absolute error of each kernel kind on the Hopper rows, percent: the band shown with a
/// prediction (crates/model/tests/ep_accuracy.rs checks these against the table it prints).
pub const BAND_NORMAL_PCT: f64 = 8.0;
pub const BAND_LOW_LATENCY_PCT: f64 = 9.0;
