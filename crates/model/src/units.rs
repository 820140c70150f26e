//! Units as types. Bandwidth says its direction; bits and bytes cannot be mixed by accident.
//!
//! Conventions (used everywhere in Fabricscope):
//! - `GBps` is gigabytes per second, 10^9 bytes/s, **in one direction**. This is what
//!   nccl-tests reports and what NCCL's tuning model uses.
//! - `GBpsBidir` is the sum of both directions, the figure vendors print for NVLink
//!   ("900 GB/s" for NVLink4 is 450 GB/s each way). It only converts to `GBps` by halving.
//! - `Gbps` is a line rate in gigabits per second, per direction, the way NICs are sold
//!   ("400G" NDR is 400 Gb/s = 50 GB/s each way).
//! - `Micros` is a duration in microseconds; `Bytes` a size in bytes.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

/// Bandwidth in one direction, in GB/s (10^9 bytes per second).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GBps(pub f64);

/// Bandwidth summed over both directions, in GB/s. Convert with [`GBpsBidir::per_direction`].
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GBpsBidir(pub f64);

/// Line rate in one direction, in Gb/s (10^9 bits per second).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Gbps(pub f64);

/// A duration in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Micros(pub f64);

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bytes(pub u64);

/// Throughput of arithmetic, in 10^12 floating-point operations per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tflops(pub f64);

impl GBps {
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    pub fn get(self) -> f64 {
        self.0
    }
    /// Both directions together: what a vendor datasheet would print.
    pub fn bidirectional(self) -> GBpsBidir {
        GBpsBidir(self.0 * 2.0)
    }
    /// The same rate expressed as a line rate in Gb/s.
    pub fn to_gbps(self) -> Gbps {
        Gbps(self.0 * 8.0)
    }
    pub fn min(self, o: Self) -> Self {
        Self(self.0.min(o.0))
    }
    pub fn max(self, o: Self) -> Self {
        Self(self.0.max(o.0))
    }
    /// Time to move `bytes` at this rate.
    pub fn time_for(self, bytes: Bytes) -> Micros {
        // bytes / (GB/s * 1e9) s = bytes / (GB/s * 1e3) us
        Micros(bytes.0 as f64 / (self.0 * 1e3))
    }
}

impl GBpsBidir {
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    /// One direction of a symmetric link.
    pub fn per_direction(self) -> GBps {
        GBps(self.0 / 2.0)
    }
}

impl Gbps {
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    /// Bytes per second in the same (single) direction: Gb/s / 8.
    pub fn to_gbytes(self) -> GBps {
        GBps(self.0 / 8.0)
    }
}

impl Micros {
    pub const ZERO: Micros = Micros(0.0);
    pub fn seconds(self) -> f64 {
        self.0 * 1e-6
    }
    pub fn from_seconds(s: f64) -> Self {
        Self(s * 1e6)
    }
    pub fn max(self, o: Self) -> Self {
        Self(self.0.max(o.0))
    }
    pub fn min(self, o: Self) -> Self {
        Self(self.0.min(o.0))
    }
}

impl Bytes {
    pub const fn new(v: u64) -> Self {
        Self(v)
    }
    pub fn get(self) -> u64 {
        self.0
    }
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
    /// Rate at which these bytes moved in `t`.
    pub fn per(self, t: Micros) -> GBps {
        GBps(self.0 as f64 / (t.0 * 1e3))
    }
}

macro_rules! linear_ops {
    ($t:ident) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t {
                $t(self.0 + o.0)
            }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                self.0 += o.0;
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t {
                $t(self.0 - o.0)
            }
        }
        impl Mul<f64> for $t {
            type Output = $t;
            fn mul(self, k: f64) -> $t {
                $t(self.0 * k)
            }
        }
        impl Div<f64> for $t {
            type Output = $t;
            fn div(self, k: f64) -> $t {
                $t(self.0 / k)
            }
        }
        impl Div for $t {
            type Output = f64;
            fn div(self, o: $t) -> f64 {
                self.0 / o.0
            }
        }
    };
}
linear_ops!(GBps);
linear_ops!(GBpsBidir);
linear_ops!(Gbps);
linear_ops!(Micros);
linear_ops!(Tflops);

impl fmt::Display for GBps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} GB/s per direction", trim(self.0))
    }
}
impl fmt::Display for GBpsBidir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} GB/s bidirectional", trim(self.0))
    }
}
impl fmt::Display for Gbps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} Gb/s per direction", trim(self.0))
    }
}
impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0;
        if us >= 1e6 {
            write!(f, "{} s", trim(us / 1e6))
        } else if us >= 1e3 {
            write!(f, "{} ms", trim(us / 1e3))
        } else if us >= 1.0 {
            write!(f, "{} µs", trim(us))
        } else {
            write!(f, "{} ns", trim(us * 1e3))
        }
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_size(*self))
    }
}

/// Up to 4 significant digits, no trailing zeros.
fn trim(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 1000.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Formats a size with binary suffixes the way nccl-tests labels sizes (1K = 1024).
pub fn format_size(b: Bytes) -> String {
    const UNITS: [(&str, u64); 4] = [("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)];
    for (suffix, scale) in UNITS {
        if b.0 >= scale && b.0.is_multiple_of(scale) {
            return format!("{}{}", b.0 / scale, suffix);
        }
    }
    for (suffix, scale) in UNITS {
        if b.0 >= scale {
            return format!("{}{}", trim(b.0 as f64 / scale as f64), suffix);
        }
    }
    format!("{}B", b.0)
}

/// Error from [`parse_size`]; names what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeParseError(pub String);

impl fmt::Display for SizeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SizeParseError {}

/// Parses `8`, `8B`, `64K`, `16M`, `8G`, `1T` with power-of-two suffixes, like nccl-tests.
pub fn parse_size(text: &str) -> Result<Bytes, SizeParseError> {
    let t = text.trim();
    let bad = || {
        SizeParseError(format!(
            "'{text}' is not a size: use a whole number with an optional K, M, G or T suffix (powers of two), e.g. 8, 64K, 8G"
        ))
    };
    if t.is_empty() {
        return Err(bad());
    }
    let t = t.strip_suffix(['B', 'b']).unwrap_or(t);
    let (digits, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        Some('T' | 't') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: u64 = digits.trim().parse().map_err(|_| bad())?;
    n.checked_mul(1u64 << shift).map(Bytes).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvlink4_vendor_figure_is_bidirectional() {
        // NVIDIA H100 datasheet: "NVLink: 900GB/s" is both directions together.
        let nvlink4 = GBpsBidir(900.0).per_direction();
        assert_eq!(nvlink4, GBps(450.0));
        // NDR 400 Gb/s per direction is 50 GB/s per direction.
        let ndr = Gbps(400.0).to_gbytes();
        assert_eq!(ndr, GBps(50.0));
        // Per GPU and per direction the gap is 9x, not 18x.
        assert_eq!(nvlink4 / ndr, 9.0);
    }

    #[test]
    fn sizes_parse_as_powers_of_two() {
        assert_eq!(parse_size("8").unwrap(), Bytes(8));
        assert_eq!(parse_size("64K").unwrap(), Bytes(65536));
        assert_eq!(parse_size("16G").unwrap(), Bytes(16 << 30));
        assert_eq!(parse_size("1MB").unwrap(), Bytes(1 << 20));
        assert!(parse_size("x").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert_eq!(format_size(Bytes(16 << 30)), "16G");
        assert_eq!(format_size(Bytes(8)), "8B");
    }

    #[test]
    fn time_and_rate_are_inverse() {
        let t = GBps(50.0).time_for(Bytes(1_000_000_000));
        assert!((t.0 - 20_000.0).abs() < 1e-9);
        assert!((Bytes(1_000_000_000).per(t).0 - 50.0).abs() < 1e-9);
    }
}
