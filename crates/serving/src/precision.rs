//! Numeric precision of a served model's weights and KV cache: bytes per element and the
//! tensor-core peak the matmuls run at.

use fabricscope_model::catalog::{Arch, GpuSpec};
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::Tflops;
use serde::{Deserialize, Serialize};

/// Element type of weights (and the matmuls that read them) or of the KV cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    #[default]
    Bf16,
    Fp8,
    /// NVFP4 (Blackwell) or MXFP4 (CDNA4): 4-bit elements with a block scale.
    Fp4,
}

/// Bytes per element of an NVFP4 tensor (the catalog's, with its source).
pub const FP4_BYTES: f64 = fabricscope_model::catalog::gpu::NVFP4_BYTES;

impl Precision {
    pub const ALL: [Precision; 3] = [Precision::Bf16, Precision::Fp8, Precision::Fp4];

    pub fn id(self) -> &'static str {
        match self {
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Fp4 => "fp4",
        }
    }
    pub fn ids() -> Vec<&'static str> {
        Self::ALL.iter().map(|p| p.id()).collect()
    }
    pub fn from_id(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "bf16" | "fp16" => Some(Precision::Bf16),
            "fp8" => Some(Precision::Fp8),
            "fp4" | "nvfp4" | "mxfp4" => Some(Precision::Fp4),
            _ => None,
        }
    }
    /// Bytes per element stored and read (weights and KV cache alike). FP8's per-block
    /// scales (one FP32 per 128x128 weight block, DeepSeek-V3 report §3.3) are under 0.1%
    /// and left out.
    pub fn bytes(self) -> f64 {
        match self {
            Precision::Bf16 => 2.0,
            Precision::Fp8 => 1.0,
            Precision::Fp4 => FP4_BYTES,
        }
    }
    /// Dense tensor-core peak of `gpu` for matmuls at this precision. FP4 runs at twice the
    /// FP8 rate where the GPU has FP4 tensor cores (NVIDIA DGX B200 datasheet: 72 PFLOPS FP8,
    /// 144 PFLOPS FP4 for 8 GPUs; AMD MI355X: MXFP4 at twice FP8); elsewhere it is refused.
    pub fn peak(self, gpu: &GpuSpec) -> Result<Tflops> {
        match self {
            Precision::Bf16 => Ok(gpu.tflops_bf16),
            Precision::Fp8 => gpu.tflops_fp8.ok_or_else(|| {
                ModelError::new("precision", format!("{} has no FP8 tensor cores; allowed: bf16", gpu.name))
            }),
            Precision::Fp4 => match (gpu.arch, gpu.tflops_fp8) {
                (Arch::Blackwell | Arch::Cdna4, Some(f)) => Ok(Tflops(2.0 * f.0)),
                _ => Err(ModelError::new(
                    "precision",
                    format!("{} has no FP4 tensor cores (Blackwell and CDNA4 do); allowed: {}", gpu.name, if gpu.tflops_fp8.is_some() { "bf16, fp8" } else { "bf16" }),
                )),
            },
        }
    }
}
