//! Log axes drawn on linear coordinates: x is log2(bytes), y is log10(GB/s). Doing the log by
//! hand places ticks at powers of two and 1-2-5 steps.


/// Short power-of-two size: `8B`, `1K`, `32M`, `16G` (binary prefixes, as nccl-tests sweeps).
pub fn bytes_label(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "K", "M", "G", "T", "P", "E"];
    let mut v = bytes;
    let mut u = 0;
    while v >= 1024 && v.is_multiple_of(1024) && u + 1 < UNITS.len() {
        v /= 1024;
        u += 1;
    }
    format!("{v}{}", UNITS[u])
}

/// Label for 2^`exp` bytes.
pub fn exp2_label(exp: f64) -> String {
    let e = exp.round();
    if !(0.0..=63.0).contains(&e) {
        return String::new();
    }
    bytes_label(1u64 << e as u32)
}

/// The x ticks for a size axis from 2^`lo` to 2^`hi`: both ends, every 2^10, and (when
/// `dense`) the 2^5 in between. Ends win over a neighbour closer than 3 powers.
pub fn size_ticks(lo: u32, hi: u32, dense: bool) -> Vec<f64> {
    let step = if dense { 5 } else { 10 };
    let mut t = vec![lo];
    let first = lo.div_ceil(step) * step;
    for e in (first..hi).step_by(step as usize) {
        if e >= lo + 3 && e + 3 <= hi {
            t.push(e);
        }
    }
    if hi > lo {
        t.push(hi);
    }
    t.into_iter().map(f64::from).collect()
}

/// Size ticks from 2^`lo` to 2^`hi` at most `max_labels` of them: both ends and every
/// 2^step between, with the smallest step of 1, 2, 5 or 10 powers that fits. An end wins over
/// a neighbour closer than 3 powers (1 for steps under 5), so labels never touch.
pub fn size_ticks_fit(lo: u32, hi: u32, max_labels: usize) -> Vec<f64> {
    let pick = |step: u32| {
        let near = if step >= 5 { 3 } else { 1 };
        let mut t = vec![lo];
        let first = lo.div_ceil(step) * step;
        for e in (first..hi).step_by(step as usize) {
            if e >= lo + near && e + near <= hi {
                t.push(e);
            }
        }
        if hi > lo {
            t.push(hi);
        }
        t
    };
    let t = [1, 2, 5, 10, 20]
        .into_iter()
        .map(pick)
        .find(|t| t.len() <= max_labels.max(2))
        .unwrap_or_else(|| vec![lo, hi]);
    t.into_iter().map(f64::from).collect()
}

/// A linear axis from 0: (top of the axis, tick step), the step a 1-2-5 value that gives at
/// most `max_ticks` intervals, the top the first step at or above `max` (with 2% headroom).
pub fn linear_range(max: f64, max_ticks: usize) -> (f64, f64) {
    if !(max.is_finite() && max > 0.0) {
        return (1.0, 0.2);
    }
    let want = max * 1.02;
    let mut step = nice_floor(want / max_ticks.max(1) as f64);
    while (want / step).ceil() as usize > max_ticks.max(1) {
        step = nice_ceil(step * 1.01);
    }
    ((want / step).ceil() * step, step)
}

/// 10^x. Integer powers by multiplication; the rest as e^(x ln 10), whose exp the model links
/// anyway: `f64::powf` would add libm's pow, ~2 KB of the page's wasm.
pub fn pow10(x: f64) -> f64 {
    let r = x.round();
    if (x - r).abs() < 1e-12 {
        10f64.powi(r as i32)
    } else {
        (x * std::f64::consts::LN_10).exp()
    }
}

/// The decade of `v` (> 0): 10^floor(log10 v), robust to a value a rounding error below a
/// power of ten.
fn decade(v: f64) -> f64 {
    pow10((v.log10() + 1e-9).floor())
}

/// A 1-2-5 value at or below `v` (> 0), allowing `v` a rounding error below the value.
pub fn nice_floor(v: f64) -> f64 {
    let d = decade(v);
    let m = v / d * (1.0 + 1e-9);
    let k = if m >= 5.0 {
        5.0
    } else if m >= 2.0 {
        2.0
    } else {
        1.0
    };
    k * d
}

/// A 1-2-5 value at or above `v` (> 0).
pub fn nice_ceil(v: f64) -> f64 {
    let d = decade(v);
    let m = v / d;
    let k = if m <= 1.0 + 1e-9 {
        1.0
    } else if m <= 2.0 + 1e-9 {
        2.0
    } else if m <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    k * d
}

/// log10 range enclosing the positive values in `vals`, widened to 1-2-5 steps; a default
/// when there are none.
pub fn log10_range(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (-1.0, 3.0);
    }
    let (mut a, mut b) = (nice_floor(lo).log10(), nice_ceil(hi).log10());
    if b - a < 1.0 {
        // Less than a decade reads as noise on a log axis: show at least one.
        let mid = (a + b) / 2.0;
        a = mid - 0.5;
        b = mid + 0.5;
        a = nice_floor(pow10(a)).log10();
        b = nice_ceil(pow10(b)).log10();
    }
    (a, b)
}

/// Ticks (as log10 values) inside `[lo, hi]`: decades, plus 2 and 5 steps when the range is
/// narrow enough to have room for them.
pub fn log10_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    let mults: &[f64] = if span <= 2.5 {
        &[1.0, 2.0, 5.0]
    } else if span <= 4.5 {
        &[1.0, 3.0]
    } else {
        &[1.0]
    };
    let step = if span > 8.0 { 2 } else { 1 };
    let mut out = Vec::new();
    let mut d = lo.floor() as i32;
    while (d as f64) <= hi.ceil() {
        for m in mults {
            let v = (m * 10f64.powi(d)).log10();
            if v >= lo - 1e-9 && v <= hi + 1e-9 && (*m != 1.0 || d.rem_euclid(step) == 0) {
                out.push(v);
            }
        }
        d += 1;
    }
    out
}

/// A 90% interval in words, "90%: 304-331": each end to 3 significant digits for values
/// under 100, whole above (the CLI's text and every page print it so, for the same numbers).
pub fn interval_label(lo: f64, hi: f64) -> String {
    let sig = |x: f64| {
        let digits = if x.abs() >= 100.0 { 0 } else if x.abs() >= 10.0 { 1 } else if x.abs() >= 1.0 { 2 } else { 3 };
        format!("{x:.digits$}")
    };
    format!("90%: {}-{}", sig(lo), sig(hi))
}

/// A GB/s figure for a tick or a readout: 3 significant digits, no trailing zeros.
pub fn gbps_label(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v >= 100.0 {
        return format!("{v:.0}");
    }
    if v == 0.0 {
        return "0".into();
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Label for the tick at log10 value `v`.
pub fn log10_label(v: f64) -> String {
    gbps_label(pow10(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_labels_use_binary_prefixes() {
        assert_eq!(bytes_label(8), "8B");
        assert_eq!(bytes_label(1024), "1K");
        assert_eq!(bytes_label(1 << 20), "1M");
        assert_eq!(bytes_label(1 << 30), "1G");
        assert_eq!(bytes_label(16 << 30), "16G");
        assert_eq!(bytes_label(1536), "1536B");
        assert_eq!(exp2_label(34.0), "16G");
    }

    #[test]
    fn size_ticks_cover_the_nccl_tests_sweep() {
        let t: Vec<String> = size_ticks(3, 34, false)
            .into_iter()
            .map(exp2_label)
            .collect();
        assert_eq!(t, ["8B", "1K", "1M", "1G", "16G"]);
        let t: Vec<String> = size_ticks(3, 34, true)
            .into_iter()
            .map(exp2_label)
            .collect();
        assert_eq!(t, ["8B", "1K", "32K", "1M", "32M", "1G", "16G"]);
    }

    #[test]
    fn fitted_size_ticks() {
        let lab = |t: Vec<f64>| t.into_iter().map(exp2_label).collect::<Vec<_>>();
        assert_eq!(lab(size_ticks_fit(20, 34, 8)), ["1M", "4M", "16M", "64M", "256M", "1G", "4G", "16G"]);
        assert_eq!(lab(size_ticks_fit(20, 34, 5)), ["1M", "32M", "1G", "16G"]);
        assert_eq!(lab(size_ticks_fit(3, 34, 7)), ["8B", "1K", "32K", "1M", "32M", "1G", "16G"]);
        assert_eq!(lab(size_ticks_fit(3, 34, 5)), ["8B", "1K", "1M", "1G", "16G"]);
        assert_eq!(lab(size_ticks_fit(3, 34, 1)), ["8B", "16G"]);
    }

    #[test]
    fn linear_ranges_are_round() {
        assert_eq!(linear_range(463.0, 6), (500.0, 100.0));
        assert_eq!(linear_range(1034.0, 6), (1200.0, 200.0));
        assert_eq!(linear_range(357.0, 3), (400.0, 200.0));
        assert_eq!(linear_range(0.0, 5), (1.0, 0.2));
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_floor(0.034), 0.02);
        assert_eq!(nice_ceil(361.0), 500.0);
        assert_eq!(nice_ceil(100.0), 100.0);
        assert_eq!(nice_floor(7.0), 5.0);
        let (a, b) = log10_range([0.034, 361.0].into_iter());
        assert!((10f64.powf(a) - 0.02).abs() < 1e-12 && (10f64.powf(b) - 500.0).abs() < 1e-9);
    }

    #[test]
    fn gbps_labels_are_short() {
        assert_eq!(gbps_label(0.01), "0.01");
        assert_eq!(gbps_label(2.0), "2");
        assert_eq!(gbps_label(20.0), "20");
        assert_eq!(gbps_label(361.24), "361");
        assert_eq!(gbps_label(45.678), "45.7");
        assert_eq!(gbps_label(1000.0), "1000");
    }

    #[test]
    fn log_ticks_are_decades_and_steps() {
        let t: Vec<String> = log10_ticks(-1.0, 3.0)
            .into_iter()
            .map(log10_label)
            .collect();
        assert_eq!(
            t,
            ["0.1", "0.3", "1", "3", "10", "30", "100", "300", "1000"]
        );
        let t: Vec<String> = log10_ticks(1.0, 2.0).into_iter().map(log10_label).collect();
        assert_eq!(t, ["10", "20", "50", "100"]);
    }
}
