//! Sustained tensor clock under a board power cap (`nvidia-smi -pl`), relative to the clock
//! the GPU sustains at its default limit.
//!
//! No public source gives a measured curve of training throughput against the power cap for
//! H100 SXM, so this is a documented physical model anchored on published points. Dynamic
//! power is `P ~ C V^2 f`, and over the DVFS range the voltage rises roughly linearly with the
//! clock, so a power-limited GPU's clock goes as the cube root of its power budget:
//! `f(cap) / f(default) = (cap / default)^(1/3)` (static, HBM and link power are neglected,
//! which makes the model slightly optimistic at deep caps). A cap at or above the default
//! changes nothing: the GPU already runs at the clock its default budget sustains.
//!
//! Anchors (tests below): the H100 NVL card is the same 132-SM GH100 die at 400 W, and its
//! datasheet peak (835.5 dense BF16 TFLOPS, i.e. 1,545 MHz) is 0.844 of the 700 W SXM's
//! (989.4 TFLOPS at 1,830 MHz); the model gives (400/700)^(1/3) = 0.830. The measured maximum
//! achievable matmul of A100 PCIe (300 W) is 0.933 of A100 SXM's (400 W) (S. Bekman,
//! ml-engineering, MAMF table: 81.1% vs 86.9% of the same 312 TFLOPS peak); the model gives
//! 0.909.
//!
//! GH200's default is its module power (1,000 W for Grace, the GPU and memory together); a cap
//! there scales the same way, which credits Grace's share to the GPU (optimistic).

use super::GpuSpec;
use crate::error::Result;
use crate::limits::{Limit, POWER_CAP_W};

/// `cap_w` within [`POWER_CAP_W`] and at most the GPU's default limit, as `nvidia-smi -pl`
/// refuses more (what the CLI holds `--power-cap-w` to).
pub fn check_cap(gpu: &GpuSpec, cap_w: Option<u32>) -> Result<()> {
    match cap_w {
        Some(cap) => Limit { max: (gpu.tdp_w as u64).min(POWER_CAP_W.max), ..POWER_CAP_W }.check_u32(cap).map(|_| ()),
        None => Ok(()),
    }
}

/// Sustained tensor clock at a board power cap of `cap_w` watts as a fraction of the clock at
/// the GPU's default limit (its datasheet TDP, [`GpuSpec::tdp_w`]); 1 without a cap. The cube
/// root is the clock exponent of the power budget: `f ~ P^(1/3)` from `P ~ f V^2`, `V ~ f`.
pub fn capped_clock(gpu: &GpuSpec, cap_w: Option<u32>) -> f64 {
    match cap_w {
        Some(cap) if (cap as f64) < gpu.tdp_w && cap > 0 => cube_root(cap as f64 / gpu.tdp_w),
        _ => 1.0,
    }
}

/// Cube root of `r` in (0, 1] by Newton's method from 1 (exact to f64 rounding after 8 steps
/// for r >= 1/12, the smallest cap over the largest default); keeps libm's `pow` out of the wasm.
fn cube_root(r: f64) -> f64 {
    let mut x = 1.0;
    for _ in 0..8 {
        x = (2.0 * x + r / (x * x)) / 3.0;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::GpuKind;

    #[test]
    fn anchored_on_same_die_products_within_3_percent() {
        let sxm = GpuKind::H100.spec();
        let nvl = GpuKind::H100Nvl.spec();
        let datasheet = nvl.tflops_bf16.0 / sxm.tflops_bf16.0;
        let model = capped_clock(sxm, Some(nvl.tdp_w as u32));
        assert!((datasheet - 0.8445).abs() < 1e-3 && (model / datasheet - 1.0).abs() < 0.03, "{datasheet} {model}");
        // A100 PCIe 80 GB (300 W) against SXM (400 W): MAMF 81.1% vs 86.9%.
        let a100 = capped_clock(GpuKind::A100.spec(), Some(300));
        assert!((a100 / (81.1 / 86.9) - 1.0).abs() < 0.03, "{a100}");
    }

    #[test]
    fn cube_root_is_exact_over_the_cap_range() {
        for r in [100.0 / 1200.0, 0.25, 0.5, 500.0 / 700.0, 0.999] {
            assert!((cube_root(r) - f64::powf(r, 1.0 / 3.0)).abs() < 1e-12, "{r}");
        }
    }

    #[test]
    fn no_cap_or_a_cap_above_the_default_changes_nothing() {
        let h100 = GpuKind::H100.spec();
        assert_eq!(capped_clock(h100, None), 1.0);
        assert_eq!(capped_clock(h100, Some(700)), 1.0);
        assert_eq!(capped_clock(h100, Some(900)), 1.0);
        assert!(capped_clock(h100, Some(500)) < capped_clock(h100, Some(600)));
        // The CLI refuses a cap above the GPU's own limit, naming the field and the range.
        let e = check_cap(h100, Some(800)).unwrap_err();
        assert!(e.field == "power_cap_w" && e.message.contains("100 and 700"), "{e:?}");
        assert!(check_cap(GpuKind::Gh200.spec(), Some(900)).is_ok() && check_cap(h100, None).is_ok());
    }
}
