//! How fast one GPU runs the kernels of a transformer layer: a roofline per kernel with a
//! matmul efficiency derived from the matrix shape. One parameter set per GPU class, never
//! per job; the derivation is in `docs/training-accuracy.md` ("Compute model").
//!
//! **Matmuls.** `C[M x N] = A[M x K] B[K x N]` (times a batch) runs as thread-block tiles of
//! `tm x tn` on the GPU's SMs; cuBLAS picks among tile shapes and split-K. For each choice the
//! model multiplies three factors and keeps the best:
//! - *tile intensity*: a tile reuses each loaded element `tm tn / (tm + tn)` times; with
//!   `c` = the SM's tensor-core FLOPs per shared-memory element divided by 4 (Volta 8, Ampere
//!   16, Hopper and Blackwell 32), efficiency is `I / (I + c)`, relative to a 256x128 tile;
//! - *wave quantisation*: `tiles` blocks over `SMs` run in `ceil(tiles / SMs)` waves; the
//!   last wave may be partly idle (and padding of M and N to whole tiles is wasted);
//! - *K pipeline*: each tile pays a fixed prologue/epilogue worth writing its output tile to
//!   HBM, i.e. `k0` = peak FLOP/s / HBM bytes/s of K-depth; efficiency is `K / (K + k0)`.
//!
//! The product is scaled so that at the shape where the **measured** maximum achievable matmul
//! FLOPS (MAMF, Bekman's ml-engineering table) was found, the model returns exactly that
//! measurement, and capped there (it is the best of a sweep of shapes). Time is then
//! `max(FLOPs / (peak x efficiency), bytes / (HBM x f_mem))`.
//!
//! **Memory-bound kernels** (norms, activations, dropout, softmax, residual adds, rotary,
//! casts, the optimizer) move bytes at `f_mem` of the HBM bandwidth; every kernel also pays a
//! launch/tail gap.

use super::framework::Framework;
use super::workload::Precision;
use crate::catalog::{Arch, GpuKind, GpuSpec};
use crate::error::Result;
use crate::units::Tflops;
use serde::Serialize;

/// Per-class constants of the compute model. Sources inline.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComputeClass {
    pub gpu: GpuKind,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Measured max achievable BF16 matmul TFLOPS / dense BF16 peak.
    pub mamf_bf16: f64,
    /// M, N, K of that measurement.
    pub mamf_bf16_shape: (u32, u32, u32),
    /// Same for FP8 (`None`: no FP8 tensor cores).
    pub mamf_fp8: Option<(f64, (u32, u32, u32))>,
    /// Tile-intensity constant `c` (elements), see the module docs.
    pub tile_c: f64,
    /// Fraction of HBM bandwidth a streaming (elementwise) kernel reaches.
    pub hbm_fraction: f64,
    /// Launch-to-launch gap and tail of one kernel, µs.
    pub kernel_gap_us: f64,
    /// Fused (Flash) attention forward and backward efficiency at long sequences, as a
    /// fraction of the BF16 peak; `None` where no such kernel exists (Volta).
    pub flash: Option<(f64, f64)>,
    /// Sustained tensor clock under a power-limited dense load, as a fraction of the clock the
    /// datasheet peak assumes (1 where the datasheet already quotes a sustainable clock).
    pub sustained_clock: f64,
    /// The measurements above are estimates, not measurements of this GPU (documented).
    pub estimated: bool,
}

/// Sequence length at which fused attention reaches half its long-sequence efficiency
/// (FlashAttention-2, Dao 2023, Fig. 5-6: A100 forward ~0.55 of peak at 512 tokens vs ~0.72
/// at 16K, i.e. `s / (s + 160)`).
const FLASH_HALF_SEQ: f64 = 160.0;

/// FlashAttention-2-generation kernels on Hopper and later reach this fraction of what the
/// Hopper-specific kernels (FlashAttention-3, cuDNN fused attention) reach: FA2 "achieves only
/// 35% utilization on the H100 GPU" against FA3's "up to 740 TFLOPs/s (75% utilization)" in
/// BF16 (Shah et al. 2024, FlashAttention-3, abstract): 0.35 / 0.75.
pub const FA2_ON_HOPPER: f64 = 0.35 / 0.75;

/// Tile shapes cuBLAS/CUTLASS choose among (rows x columns of C per thread block).
const TILES: [(f64, f64); 6] = [(256.0, 128.0), (128.0, 256.0), (128.0, 128.0), (128.0, 64.0), (64.0, 128.0), (64.0, 64.0)];
/// Split-K factors considered when a GEMM has fewer tiles than SMs.
const SPLITS: [f64; 4] = [1.0, 2.0, 4.0, 8.0];

/// Sustained tensor throughput of A100 SXM in multi-node training, as a fraction of the
/// datasheet clock (1410 MHz): fitted on the Megatron-family A100 rows of the validation data
/// (0.89, one value for the class). NVIDIA's Rpeak clock for A100, "the clock that can be
/// sustained at a GPU's power limit" (1305 MHz, G. Lockwood, "peak FLOPS"), gives 0.926; the
/// fit is 4% below it (long runs with NVLink and NICs busy draw more power than HPL).
const AMPERE_SXM_SUSTAINED: f64 = 0.89;
/// Sustained tensor throughput of H100/H200 SXM (700 W) in multi-node training, as a fraction
/// of the datasheet peak's 1830 MHz: fitted on the Megatron-family H100 rows (Megatron-Core
/// README, NeMo 24.07, Megatron-Bridge): 0.72, one value for the class, i.e. ~1.3 GHz-
/// equivalent. Hopper's matmuls outran its power budget: H100 draws its full 700 W on dense
/// BF16/FP8 GEMMs and lowers its clock (nvidia-smi reports SW power capping in training), and
/// the MAMF sweep that sets the shape ceiling runs each shape for a short burst. The fit
/// also absorbs Hopper losses the model does not itemise (kernel tails grew relative to the
/// faster matmuls); it is not a per-row factor. An H100 capped below 700 W (vendors sell
/// 400-600 W configurations) sustains less: see `Cluster::power_cap_w` and `catalog::power`.
const HOPPER_SXM_SUSTAINED: f64 = 0.72;
/// Sustained tensor throughput of Blackwell (B200 at 1,000 W, GB200 at 1,200 W, B300) in
/// multi-node training, as a fraction of the datasheet peak: fitted on the dense Megatron-Bridge
/// runs of GB200 and B200 (validation/training-blackwell.csv, 15 rows, Llama 3 8B-405B, FP8,
/// without recompute as their recipes set it): 0.70, one value for the class (GB200's median
/// error +5%, B200's +1%), close to Hopper's 0.72 for the same reasons (the datasheet clock is
/// not held at the power limit under dense matmuls; MAMF sweeps are short bursts). Not a
/// per-row factor.
const BLACKWELL_SUSTAINED: f64 = 0.70;
/// GB300 (Blackwell Ultra in NVL72, 1,400 W, GB200's per-GPU datasheet rates) sustains more:
/// fitted on its own 10 dense Megatron-Bridge runs the same way: 0.88 (median error +1%). Its
/// runs measure 1.19-1.24x GB200's at equal layouts.
const GB300_SUSTAINED: f64 = 0.88;

impl ComputeClass {
    /// The class of `gpu`.
    pub fn of(gpu: GpuKind) -> ComputeClass {
        // MAMF figures: S. Bekman, "ml-engineering", compute/accelerator/README.md, "Maximum
        // Achievable Matmul FLOPS comparison table" (BF16 and FP8 tables, torch 2.6-2.10):
        // A100 SXM 271.2/312 = 86.9% at 1024x10240x5120; H100 SXM 794.5/989 = 80.3% at
        // 2048x2048x13312 ("H200 is the same"); B200 1745/2250 = 77.6% at 1792x16128x3072;
        // GB200 1822/2500 = 72.9% at 4096x9728x2048. FP8: H100 70.9% at 1024x9216x14336, H200
        // 73.4% at 1280x4096x12032, B200 76.3% at 15360x4096x3072, GB200 72.3% at
        // 19456x5120x1536. SM counts: NVIDIA architecture white papers (V100 80, A100 108,
        // H100 SXM 132, H100 PCIe 114, B200 148).
        // f_mem 0.8: fused elementwise kernels stream at ~80% of HBM peak (BabelStream-class
        // copy reaches ~90% on V100/A100/H100; fused kernels with reductions less).
        // Kernel gap 2 us: launch latency is hidden by asynchronous launch, but each kernel's
        // ramp-up and tail wave leave the GPU partly idle for about that long.
        // Flash: FlashAttention-2 (Dao 2023) on A100, head dim 128 causal: forward up to ~72%,
        // backward ~55% of peak; FlashAttention-3 (Shah et al. 2024) on H100 BF16: forward up
        // to 75%, backward ~50%; Blackwell cuDNN/FA kernels taken at the Hopper fractions.
        // Sustained clock: the V100 and A100 datasheet peaks assume the maximum boost clock
        // (1530 and 1410 MHz), which they cannot hold at their power limit under dense
        // tensor-core load. NVIDIA rates A100 Rpeak at 1305 MHz (G. Lockwood, "peak FLOPS":
        // "the clock that can be sustained at a GPU's power limit"), 0.926 of 1410; Summit's
        // Rpeak (200.8 PF, 27,648 V100 with ~5 PF of POWER9) gives ~7.08 FP64 TF per V100,
        // 0.91 of its 7.8 TF at 1530 MHz. The H100 SXM peak (989.4 TF) is quoted at 1830 MHz,
        // below its 1980 MHz maximum boost, yet training sustains less (HOPPER_SXM_SUSTAINED,
        // BLACKWELL_SUSTAINED, both fitted per class). MAMF runs are short bursts at boost clock,
        // so the derating applies on top.
        let spec = gpu.spec();
        let (sms, tile_c) = match spec.arch {
            Arch::Volta => (80, 8.0),
            Arch::Ampere => (108, 16.0),
            // H20: 78 SMs (Geekbench listing reports; validation/hardware-specs.csv).
            Arch::Hopper => (
                match gpu {
                    GpuKind::H100Pcie => 114,
                    GpuKind::H20 => 78,
                    _ => 132,
                },
                32.0,
            ),
            Arch::Blackwell => (148, 32.0),
            // Compute units (ROCm docs "Accelerator and GPU hardware specifications"): 304 on
            // gfx942 (MI300X, MI325X), 256 on gfx950 (MI355X); tile cost as Hopper's.
            Arch::Cdna3 => (304, 32.0),
            Arch::Cdna4 => (256, 32.0),
        };
        let base = ComputeClass {
            gpu,
            sms,
            mamf_bf16: 0.803,
            mamf_bf16_shape: (2048, 2048, 13312),
            mamf_fp8: Some((0.709, (1024, 9216, 14336))),
            tile_c,
            hbm_fraction: 0.8,
            kernel_gap_us: 2.0,
            flash: Some((0.70, 0.50)),
            sustained_clock: 1.0,
            estimated: false,
        };
        match gpu {
            // No MAMF measurement of V100 is published in the table; 0.80 is the typical
            // fraction cuBLAS HGEMM reaches on Volta's 125 TFLOPS tensor cores (flagged).
            GpuKind::V100 => ComputeClass {
                mamf_bf16: 0.80,
                mamf_bf16_shape: (4096, 4096, 4096),
                mamf_fp8: None,
                flash: None,
                sustained_clock: 0.91,
                estimated: true,
                ..base
            },
            GpuKind::A100 => ComputeClass {
                mamf_bf16: 0.869,
                mamf_bf16_shape: (1024, 10240, 5120),
                mamf_fp8: None,
                flash: Some((0.72, 0.55)),
                sustained_clock: AMPERE_SXM_SUSTAINED,
                ..base
            },
            GpuKind::H100 | GpuKind::H800 => ComputeClass { sustained_clock: HOPPER_SXM_SUSTAINED, ..base },
            GpuKind::H200 => ComputeClass { mamf_fp8: Some((0.734, (1280, 4096, 12032))), sustained_clock: HOPPER_SXM_SUSTAINED, ..base },
            // GH200's H100 has more power (a 1,000 W module budget shared with Grace) but no
            // published sustained-clock or MAMF measurement: taken as H100 SXM at 700 W
            // (flagged), the HBM3e variant with H200's FP8 MAMF (same HBM3e generation).
            GpuKind::Gh200 => ComputeClass { sustained_clock: HOPPER_SXM_SUSTAINED, estimated: true, ..base },
            GpuKind::Gh200Hbm3e => ComputeClass {
                mamf_fp8: Some((0.734, (1280, 4096, 12032))),
                sustained_clock: HOPPER_SXM_SUSTAINED,
                estimated: true,
                ..base
            },
            // H20: no MAMF measurement found; taken as H100 SXM's fractions of its own (far
            // lower) peak, which its 400 W budget holds without derating (flagged).
            GpuKind::H20 => ComputeClass { estimated: true, ..base },
            // No measurement of the 350 W PCIe card: H100 SXM scaled by A100 PCIe/SXM
            // (81.1/86.9), i.e. 0.75 BF16 and 0.66 FP8 (flagged). The NVL cards (400 and
            // 600 W) are taken alike: their datasheet peaks already assume their lower clock.
            GpuKind::H100Pcie | GpuKind::H100Nvl | GpuKind::H200Nvl => ComputeClass {
                mamf_bf16: 0.75,
                mamf_bf16_shape: (8192, 8192, 8192),
                mamf_fp8: Some((0.66, (8192, 8192, 8192))),
                estimated: true,
                ..base
            },
            GpuKind::B200 => ComputeClass {
                mamf_bf16: 0.776,
                mamf_bf16_shape: (1792, 16128, 3072),
                mamf_fp8: Some((0.763, (15360, 4096, 3072))),
                sustained_clock: BLACKWELL_SUSTAINED,
                ..base
            },
            GpuKind::Gb200 => ComputeClass {
                mamf_bf16: 0.729,
                mamf_bf16_shape: (4096, 9728, 2048),
                mamf_fp8: Some((0.723, (19456, 5120, 1536))),
                sustained_clock: BLACKWELL_SUSTAINED,
                ..base
            },
            // Blackwell Ultra: no MAMF measurement found; taken as B200/GB200 (flagged). The
            // HGX B300 board keeps B200's datasheet rates and Blackwell's sustained fraction;
            // GB300 in its NVL72 rack has GB200's rates with 200 W more (1.4 kW) and its own
            // fitted fraction (GB300_SUSTAINED).
            GpuKind::B300 => ComputeClass {
                mamf_bf16: 0.776,
                mamf_bf16_shape: (1792, 16128, 3072),
                mamf_fp8: Some((0.763, (15360, 4096, 3072))),
                sustained_clock: BLACKWELL_SUSTAINED,
                estimated: true,
                ..base
            },
            GpuKind::Gb300 => ComputeClass {
                mamf_bf16: 0.729,
                mamf_bf16_shape: (4096, 9728, 2048),
                mamf_fp8: Some((0.723, (19456, 5120, 1536))),
                sustained_clock: GB300_SUSTAINED,
                estimated: true,
                ..base
            },
            // AMD Instinct gfx942 (MI300X, MI325X): FP8 measured, hipBLASLt FP8 GEMM on Azure
            // ND MI300X v5 peaks at 1,159.2 TFLOPS at 8192^3 (1,159.5 at 6144x12288x12288),
            // 0.443 of the 2,614.9 TFLOPS datasheet peak (Azure AI-benchmarking-guide results,
            // validation/hardware-specs.csv). BF16 keeps MI355X's fraction below (no gfx942 BF16
            // GEMM measurement found). Flagged as estimates.
            GpuKind::Mi300x | GpuKind::Mi325x => ComputeClass {
                mamf_bf16: 0.583,
                mamf_bf16_shape: (4096, 4096, 4096),
                mamf_fp8: Some((0.443, (8192, 8192, 8192))),
                estimated: true,
                ..base
            },
            // AMD Instinct gfx950: one measured BF16 GEMM, MI355X at 4096^3, 1,457 TFLOPS (Primus
            // report, validation/hardware-specs.csv), 0.583 of the DERIVED 2,500 TFLOPS peak;
            // taken for FP8 too (no measurement); FlashAttention fractions as Hopper's. Flagged.
            GpuKind::Mi355x => ComputeClass {
                mamf_bf16: 0.583,
                mamf_bf16_shape: (4096, 4096, 4096),
                mamf_fp8: Some((0.583, (4096, 4096, 4096))),
                estimated: true,
                ..base
            },
        }
    }

    /// Shape efficiency (before scaling to the measured MAMF), 0..1.
    fn shape_efficiency(&self, m: f64, n: f64, k: f64, batch: f64, k0: f64) -> f64 {
        let sms = self.sms as f64;
        let i_max = 256.0 * 128.0 / 384.0;
        let norm = i_max / (i_max + self.tile_c);
        let mut best = 0.0f64;
        for (tm, tn) in TILES {
            let i = tm * tn / (tm + tn);
            let tile_eff = i / (i + self.tile_c) / norm;
            let tiles = (m / tm).ceil() * (n / tn).ceil() * batch;
            for split in SPLITS {
                if split > 1.0 && (tiles >= sms || k / split < 256.0) {
                    break;
                }
                let units = tiles * split;
                let waves = (units / sms).ceil();
                let util = (m * n * batch * split) / (waves * sms * tm * tn);
                let ks = k / split;
                let eff = tile_eff * util * ks / (ks + k0);
                best = best.max(eff);
            }
        }
        best
    }
}

/// Which tensor-core precision a matmul runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathPrecision {
    Bf16,
    Fp8,
    /// NVFP4: the FP8 kernels' shape efficiency at FP8's peak times [`Gpu::fp4_speed`].
    #[cfg(feature = "software")]
    Fp4,
}

impl MathPrecision {
    /// The tensor-core precision of a training job's linear layers.
    pub fn of(p: Precision) -> MathPrecision {
        match p {
            Precision::Bf16 => MathPrecision::Bf16,
            Precision::Fp8 => MathPrecision::Fp8,
            #[cfg(feature = "software")]
            Precision::Nvfp4 => MathPrecision::Fp4,
        }
    }
}

/// Datasheet dense peak of `spec`'s tensor cores at the linear layers' precision `p` (the MFU
/// denominator): BF16, FP8 (BF16 where there is none), NVFP4 (FP8's times [`fp4_over_fp8`]).
pub fn dense_peak(spec: &GpuSpec, p: Precision) -> Tflops {
    match p {
        Precision::Bf16 => spec.tflops_bf16,
        Precision::Fp8 => spec.tflops_fp8.unwrap_or(spec.tflops_bf16),
        #[cfg(feature = "software")]
        Precision::Nvfp4 => Tflops(spec.tflops_fp8.map_or(0.0, |f| f.0) * fp4_over_fp8(spec.kind).unwrap_or(1.0)),
    }
}

/// Dense FP4 over dense FP8 tensor-core peak (dimensionless), `None` where the GPU has no
/// NVFP4 tensor cores. Blackwell (B200, GB200): 2 (NVIDIA GB200 NVL72: FP4 1,440 and FP8 720
/// PFLOPS per rack, both with sparsity). Blackwell Ultra (B300, GB300): 3 (NVIDIA GB300 NVL72:
/// FP4 1,080 PFLOPS dense against FP8 720 with sparsity, i.e. 360 dense).
#[cfg(feature = "software")]
pub fn fp4_over_fp8(kind: GpuKind) -> Option<f64> {
    match kind {
        GpuKind::B200 | GpuKind::Gb200 => Some(2.0),
        GpuKind::B300 | GpuKind::Gb300 => Some(3.0),
        _ => None,
    }
}

/// A compute class bound to one GPU: precomputed peaks and scale factors.
#[derive(Clone, Copy, Debug)]
pub struct Gpu {
    pub class: ComputeClass,
    /// Dense BF16 peak, FLOP/µs.
    peak_bf16: f64,
    /// Dense FP8 peak, FLOP/µs (BF16 where there is none).
    peak_fp8: f64,
    /// Achievable HBM bytes/µs for streaming kernels.
    hbm: f64,
    /// Raw HBM bytes/µs (matmul roofline).
    hbm_raw: f64,
    /// K-depth of the per-tile fixed cost, bf16 and fp8.
    k0_bf16: f64,
    k0_fp8: f64,
    /// Intrinsic scale factors making the model hit MAMF at its shape.
    scale_bf16: f64,
    scale_fp8: f64,
    /// NVFP4 GEMM speed over the FP8 one of the same shape (dimensionless): the FP4/FP8 peak
    /// ratio times the share of it the framework's NVFP4 recipe keeps (quantization, random
    /// Hadamard transforms, stochastic rounding). Set by the training evaluator.
    #[cfg(feature = "software")]
    pub fp4_speed: f64,
}

impl Gpu {
    pub fn new(spec: &GpuSpec) -> Gpu {
        Gpu::capped(spec, None)
    }

    /// This GPU for a training step whose linear layers run in `precision`: with NVFP4, its
    /// speed over FP8 from `fw`'s share, or `Err` naming `precision` where `spec` has no NVFP4.
    #[cfg(feature = "software")]
    pub fn with_nvfp4(mut self, spec: &GpuSpec, precision: Precision, fw: &Framework) -> Result<Gpu> {
        if precision == Precision::Nvfp4 {
            let Some(ratio) = fp4_over_fp8(spec.kind) else {
                let allowed = if spec.has_fp8() { "bf16 or fp8" } else { "bf16" };
                return Err(crate::error::ModelError::new(
                    "precision",
                    format!("{} does not run NVFP4 training (Transformer Engine's NVFP4 recipe needs NVIDIA Blackwell tensor cores: b200, gb200, b300, gb300); use {allowed}", spec.name),
                ));
            };
            self.fp4_speed = ratio * fw.nvfp4_share;
        }
        Ok(self)
    }

    /// Without the software inputs there is no NVFP4: the GPU as it is.
    #[cfg(not(feature = "software"))]
    #[inline(always)]
    pub fn with_nvfp4(self, _spec: &GpuSpec, _precision: Precision, _fw: &Framework) -> Result<Gpu> {
        Ok(self)
    }

    /// The GPU under a board power cap of `cap_w` watts (`None`: its default limit).
    pub fn capped(spec: &GpuSpec, cap_w: Option<u32>) -> Gpu {
        let mut class = ComputeClass::of(spec.kind);
        class.sustained_clock *= crate::catalog::power::capped_clock(spec, cap_w);
        // Tensor throughput the kernels see: datasheet peak at the sustained clock.
        let peak_bf16 = spec.tflops_bf16.0 * 1e6 * class.sustained_clock;
        let peak_fp8 = spec.tflops_fp8.map_or(peak_bf16, |t| t.0 * 1e6 * class.sustained_clock);
        let hbm_raw = spec.hbm_bw.0 * 1e3;
        let k0_bf16 = peak_bf16 / hbm_raw;
        let k0_fp8 = peak_fp8 / hbm_raw;
        let scale = |mamf: f64, (m, n, k): (u32, u32, u32), k0: f64| {
            let e = class.shape_efficiency(m as f64, n as f64, k as f64, 1.0, k0);
            if e > 0.0 {
                (mamf / e).min(1.0)
            } else {
                mamf
            }
        };
        let scale_bf16 = scale(class.mamf_bf16, class.mamf_bf16_shape, k0_bf16);
        let scale_fp8 = class.mamf_fp8.map_or(scale_bf16, |(f, shape)| scale(f, shape, k0_fp8));
        Gpu {
            class,
            peak_bf16,
            peak_fp8,
            hbm: hbm_raw * class.hbm_fraction,
            hbm_raw,
            k0_bf16,
            k0_fp8,
            scale_bf16,
            scale_fp8,
            #[cfg(feature = "software")]
            fp4_speed: 1.0,
        }
    }

    /// Dense peak at the sustained clock in FLOP/µs for `p`.
    pub fn peak(&self, p: MathPrecision) -> f64 {
        match p {
            MathPrecision::Bf16 => self.peak_bf16,
            MathPrecision::Fp8 => self.peak_fp8,
            #[cfg(feature = "software")]
            MathPrecision::Fp4 => self.peak_fp8 * self.fp4_speed,
        }
    }

    /// Efficiency (fraction of the precision's peak) of a matmul of this shape, compute only.
    pub fn gemm_efficiency(&self, m: f64, n: f64, k: f64, batch: f64, p: MathPrecision) -> f64 {
        let (k0, scale) = match p {
            MathPrecision::Bf16 => (self.k0_bf16, self.scale_bf16),
            _ => (self.k0_fp8, self.scale_fp8),
        };
        // MAMF is the best of a sweep of shapes: no shape does better.
        let cap = match p {
            MathPrecision::Bf16 => self.class.mamf_bf16,
            _ => self.class.mamf_fp8.map_or(self.class.mamf_bf16, |(f, _)| f),
        };
        (self.class.shape_efficiency(m, n, k, batch, k0) * scale).clamp(1e-6, cap)
    }

    /// Time of a (batched) matmul in µs. Inputs are `in_bytes` per element (2 for BF16, 1
    /// for FP8); the output `out_bytes` per element, read too when `accumulate` (FP32
    /// gradient accumulation into the main-gradient buffer).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_us(&self, m: f64, n: f64, k: f64, batch: f64, p: MathPrecision, out_bytes: f64, accumulate: bool) -> f64 {
        if m <= 0.0 || n <= 0.0 || k <= 0.0 || batch <= 0.0 {
            return 0.0;
        }
        let in_bytes = match p {
            MathPrecision::Bf16 => 2.0,
            MathPrecision::Fp8 => 1.0,
            #[cfg(feature = "software")]
            MathPrecision::Fp4 => crate::catalog::gpu::NVFP4_BYTES,
        };
        let flops = 2.0 * m * n * k * batch;
        let eff = self.gemm_efficiency(m, n, k, batch, p);
        let t_math = flops / (self.peak(p) * eff);
        let bytes = batch * ((m * k + k * n) * in_bytes + m * n * out_bytes * if accumulate { 2.0 } else { 1.0 });
        let t_mem = bytes / self.hbm_raw;
        t_math.max(t_mem) + self.class.kernel_gap_us
    }

    /// Time of `kernels` memory-bound kernels moving `bytes` in total, µs.
    pub fn stream_us(&self, bytes: f64, kernels: f64) -> f64 {
        bytes.max(0.0) / self.hbm + kernels * self.class.kernel_gap_us
    }

    /// Fused causal attention: `flops` of the forward (or backward) at `seq` keys per query
    /// block; `None` if the GPU has no fused kernel.
    /// `hopper_kernel`: a Hopper-generation kernel (else FlashAttention-2, slower on Hopper and
    /// Blackwell, see [`FA2_ON_HOPPER`]).
    pub fn flash_us(&self, flops: f64, seq: f64, backward: bool, hopper_kernel: bool) -> Option<f64> {
        let (f, b) = self.class.flash?;
        let generation = if hopper_kernel || matches!(self.class.gpu.spec().arch, Arch::Volta | Arch::Ampere) { 1.0 } else { FA2_ON_HOPPER };
        let eff = if backward { b } else { f } * generation * seq / (seq + FLASH_HALF_SEQ);
        Some(flops / (self.peak_bf16 * eff) + self.class.kernel_gap_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mamf_shape_reproduces_the_measurement() {
        for g in GpuKind::ALL {
            let gpu = Gpu::new(g.spec());
            let (m, n, k) = gpu.class.mamf_bf16_shape;
            let e = gpu.gemm_efficiency(m as f64, n as f64, k as f64, 1.0, MathPrecision::Bf16);
            assert!((e - gpu.class.mamf_bf16).abs() < 1e-9, "{g:?}: {e}");
        }
    }

    #[test]
    fn small_and_skinny_matmuls_are_less_efficient() {
        let gpu = Gpu::new(GpuKind::A100.spec());
        let big = gpu.gemm_efficiency(8192.0, 8192.0, 8192.0, 1.0, MathPrecision::Bf16);
        let thin_k = gpu.gemm_efficiency(8192.0, 8192.0, 128.0, 1.0, MathPrecision::Bf16);
        let small = gpu.gemm_efficiency(256.0, 256.0, 4096.0, 1.0, MathPrecision::Bf16);
        assert!(big > 0.8 && big <= 0.9, "{big}");
        assert!(thin_k < 0.6 * big, "{thin_k}");
        assert!(small < 0.5 * big, "{small}");
        // A memory-bound attention-score product is slower than its FLOPs at peak.
        let t = gpu.gemm_us(2048.0, 2048.0, 128.0, 96.0, MathPrecision::Bf16, 2.0, false);
        let ideal = 2.0 * 2048.0 * 2048.0 * 128.0 * 96.0 / (312e6 * 0.869);
        assert!(t > 1.5 * ideal, "{t} vs {ideal}");
    }
}
