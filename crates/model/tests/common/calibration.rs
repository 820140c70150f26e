//! The calibration tables (crates/model/src/calibration/*.csv), as the accuracy tests compute
//! them from their rows: each test hands its rows here as `calibration::Sample`s, and this
//! writes (with FABRICSCOPE_WRITE_DOCS=1) or checks its family's table.

use fabricscope_model::calibration::{calibrate, to_csv, ClassCalibration, Sample};
use std::path::PathBuf;

/// Least leave-one-source-out coverage a family's 90% intervals must reach (issue 34).
pub const FAMILY_COVERAGE_FLOOR: f64 = 0.85;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Computes `family`'s calibration from `samples`; with FABRICSCOPE_WRITE_DOCS=1 writes its
/// table; fails when the checked-in table differs.
pub fn check(family: &str, title: &str, samples: &[Sample]) -> Vec<ClassCalibration> {
    let table = calibrate(samples);
    let csv = to_csv(&table);
    let csv_path = root().join(format!("crates/model/src/calibration/{family}.csv"));
    let _ = title;
    if std::env::var("FABRICSCOPE_WRITE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&csv_path, &csv).unwrap();
    }
    let shipped = std::fs::read_to_string(&csv_path).unwrap_or_default();
    assert_eq!(shipped, csv, "{} is stale: rerun with FABRICSCOPE_WRITE_DOCS=1", csv_path.display());
    table
}
