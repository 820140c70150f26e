//! Error bands of training predictions: the median absolute error of the model on the
//! project's published runs, per class (framework family, dense or MoE, GPU generation).
//! The table is `bands.csv`, written by `crates/model/tests/training_accuracy.rs` and checked
//! there against what the validation data gives, so it cannot go stale.

use super::framework::Framework;
use crate::catalog::Arch;
use serde::Serialize;
use std::sync::OnceLock;

/// `bands.csv` as checked in:
/// `family,kind,generation,cases,median_abs_error_pct,min_gpus,max_gpus`.
const BANDS_CSV: &str = include_str!("bands.csv");

/// The class a prediction's error is measured over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ErrorClass {
    /// Framework family: "megatron", "fsdp" or "deepspeed".
    pub family: &'static str,
    pub moe: bool,
    pub arch: Arch,
}

impl ErrorClass {
    pub fn of(fw: &Framework, moe: bool, arch: Arch) -> ErrorClass {
        ErrorClass { family: fw.family(), moe, arch }
    }
    /// "megatron/dense/hopper".
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.family, if self.moe { "moe" } else { "dense" }, self.arch.name().to_ascii_lowercase())
    }
}

/// One class's band.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BandRow {
    pub class: ErrorClass,
    /// Published runs of this class the model was compared with.
    pub cases: u32,
    /// Median absolute error over them, percent (one decimal).
    pub median_abs_error_pct: f64,
    /// Fewest and most GPUs those runs used: outside, the band is extrapolated.
    pub min_gpus: u32,
    pub max_gpus: u32,
}

fn family_id(s: &str) -> Option<&'static str> {
    Framework::FAMILIES.iter().copied().find(|f| *f == s)
}

fn arch_id(s: &str) -> Option<Arch> {
    [Arch::Volta, Arch::Ampere, Arch::Hopper, Arch::Blackwell, Arch::Cdna3, Arch::Cdna4].into_iter().find(|a| a.name().eq_ignore_ascii_case(s))
}

/// Parses the CSV text of a band table; malformed lines are skipped (the accuracy test
/// compares the result with the data, so a bad line fails there).
pub fn parse(text: &str) -> Vec<BandRow> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').map(str::trim).collect();
            if f.len() != 7 {
                return None;
            }
            Some(BandRow {
                class: ErrorClass { family: family_id(f[0])?, moe: f[1] == "moe", arch: arch_id(f[2])? },
                cases: f[3].parse().ok()?,
                median_abs_error_pct: f[4].parse().ok()?,
                min_gpus: f[5].parse().ok()?,
                max_gpus: f[6].parse().ok()?,
            })
        })
        .collect()
}

/// The CSV text of `rows`.
pub fn to_csv(rows: &[BandRow]) -> String {
    let mut s = String::from("family,kind,generation,cases,median_abs_error_pct,min_gpus,max_gpus\n");
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{:.1},{},{}\n",
            r.class.family,
            if r.class.moe { "moe" } else { "dense" },
            r.class.arch.name().to_ascii_lowercase(),
            r.cases,
            r.median_abs_error_pct,
            r.min_gpus,
            r.max_gpus
        ));
    }
    s
}

/// The shipped band table.
pub fn band_table() -> &'static [BandRow] {
    static TABLE: OnceLock<Vec<BandRow>> = OnceLock::new();
    TABLE.get_or_init(|| parse(BANDS_CSV))
}

/// The band of `class`: (median absolute error %, validated cases); `(None, 0)` when the
/// project has no published run of this class.
pub fn band(class: &ErrorClass) -> (Option<f64>, u32) {
    band_table().iter().find(|r| r.class == *class).map_or((None, 0), |r| (Some(r.median_abs_error_pct), r.cases))
}

/// Whether a job on `gpus` GPUs lies outside the GPU counts `class` was measured at (false
/// when the class was never measured: it has no band to extrapolate).
pub fn extrapolated(class: &ErrorClass, gpus: u32) -> bool {
    band_table().iter().find(|r| r.class == *class).is_some_and(|r| gpus < r.min_gpus || gpus > r.max_gpus)
}

/// The GPU counts `class` was measured at, when it was.
pub fn measured_gpus(class: &ErrorClass) -> Option<[u32; 2]> {
    band_table().iter().find(|r| r.class == *class).map(|r| [r.min_gpus, r.max_gpus])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_and_unknown_classes_are_unvalidated() {
        let rows = band_table();
        assert!(!rows.is_empty());
        assert_eq!(parse(&to_csv(rows)), rows);
        let gb200_fsdp_moe = ErrorClass { family: "fsdp", moe: true, arch: Arch::Blackwell };
        assert_eq!(band(&gb200_fsdp_moe), (None, 0));
        assert!(!extrapolated(&gb200_fsdp_moe, 1 << 20));
        // Megatron on Hopper was measured from 8 to 6,144 GPUs: 32,768 is outside.
        let mh = ErrorClass { family: "megatron", moe: false, arch: Arch::Hopper };
        assert_eq!(measured_gpus(&mh), Some([8, 6144]));
        assert!(extrapolated(&mh, 32768) && !extrapolated(&mh, 1024));
    }
}
