//! Each class's interval resolved ahead of time: for every collective class (tier x algorithm
//! family x size range), every training class (framework family x dense or MoE x GPU
//! generation) and every EP class (library or none x kernel kind x placement), the bounds [`super::interval_for`] gives from the shipped tables, the table row
//! they come from and the level (0 the class, 1 its parent, 2 the family).
//!
//! Why a generated table: the pages show these intervals on every input event and must not pay
//! for reading the CSV tables (a parser, strings, a lookup by key) in their bundles or their
//! frames. `levels_table.rs` is written from the CSV tables by this module's test
//! (`FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --lib calibration`), which fails
//! when it differs from them; the CLI and the pages both read it, so they give the same bounds.

use super::{collective_keys, ep_keys, interval_for, training_keys, ClassCalibration};
use crate::ep::{Kernel, Library};
use crate::catalog::Arch;
use crate::training::bands::ErrorClass;
use crate::trust::{AlgoFamily, SizeRange, TierClass};

/// One class's resolved interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// Ratio bounds measured / predicted `[lo, hi]` (dimensionless), stretched to the class's own
    /// rows where borrowed; `[0, 0]` where no level has an interval ([`Level::NONE`]).
    pub bounds: [f64; 2],
    /// Index of the level's row in its CSV table.
    pub row: u16,
    /// 0 the class itself, 1 its parent, 2 the whole family.
    pub level: u8,
    /// The class has rows of its own in the table (measured at all).
    pub measured: bool,
}

impl Level {
    /// No interval for the class.
    pub const NONE: Level = Level { bounds: [0.0, 0.0], row: u16::MAX, level: 0, measured: false };

    /// The bounds, `None` for [`Level::NONE`].
    pub fn ratios(&self) -> Option<(f64, f64)> {
        (self.bounds[0] > 0.0).then_some((self.bounds[0], self.bounds[1]))
    }
}

/// Framework families of the training classes, in table order.
pub const FAMILIES: [&str; 3] = ["megatron", "fsdp", "deepspeed"];
/// GPU generations of the training classes, in table order.
pub const ARCHS: [Arch; 6] = [Arch::Volta, Arch::Ampere, Arch::Hopper, Arch::Blackwell, Arch::Cdna3, Arch::Cdna4];

/// Index of a collective class in [`super::levels_table::COLLECTIVE_LEVELS`].
pub fn collective_index(tier: TierClass, family: AlgoFamily, size: SizeRange) -> usize {
    (tier as usize * AlgoFamily::ALL.len() + family as usize) * SizeRange::ALL.len() + size as usize
}

/// Index of a training class in [`super::levels_table::TRAINING_LEVELS`] (`None` for a family
/// outside [`FAMILIES`]).
pub fn training_index(class: &ErrorClass) -> Option<usize> {
    let f = FAMILIES.iter().position(|f| *f == class.family)?;
    let a = ARCHS.iter().position(|a| *a == class.arch)?;
    Some((f * 2 + usize::from(class.moe)) * ARCHS.len() + a)
}

/// EP kernel kinds in table order.
pub const KERNELS: [Kernel; 2] = [Kernel::Normal, Kernel::LowLatency];

/// Index of an EP class in [`super::levels_table::EP_BOUNDS`]: the library (none given first,
/// then [`Library::ALL`]), the kernel kind, then NVLink only or across the network.
pub fn ep_index(library: Option<Library>, kernel: Kernel, scale_up_only: bool) -> usize {
    let l = library.and_then(|l| Library::ALL.iter().position(|x| *x == l)).map_or(0, |i| i + 1);
    let k = usize::from(kernel == Kernel::LowLatency);
    (l * 2 + k) * 2 + usize::from(!scale_up_only)
}

fn resolve(table: &[ClassCalibration], keys: &[String]) -> Level {
    let measured = table.iter().any(|r| r.key == keys[0]);
    match interval_for(table, keys) {
        Some(((lo, hi), row, level)) => Level {
            bounds: [lo, hi],
            row: table.iter().position(|r| std::ptr::eq(r, row)).map_or(u16::MAX, |i| i as u16),
            level: level as u8,
            measured,
        },
        None => Level { measured, ..Level::NONE },
    }
}

/// Every collective class's level, in [`collective_index`] order.
pub fn collective_levels(table: &[ClassCalibration]) -> Vec<Level> {
    let mut v = Vec::new();
    for t in TierClass::ALL {
        for f in AlgoFamily::ALL {
            for z in SizeRange::ALL {
                debug_assert_eq!(v.len(), collective_index(t, f, z));
                v.push(resolve(table, &collective_keys(t, f, z)));
            }
        }
    }
    v
}

/// Every EP class's level, in [`ep_index`] order.
pub fn ep_levels(table: &[ClassCalibration]) -> Vec<Level> {
    let mut v = Vec::new();
    for library in std::iter::once(None).chain(Library::ALL.into_iter().map(Some)) {
        for kernel in KERNELS {
            for scale_up_only in [true, false] {
                debug_assert_eq!(v.len(), ep_index(library, kernel, scale_up_only));
                v.push(resolve(table, &ep_keys(library, kernel, scale_up_only)));
            }
        }
    }
    v
}

/// Every training class's level, in [`training_index`] order.
pub fn training_levels(table: &[ClassCalibration]) -> Vec<Level> {
    let mut v = Vec::new();
    for family in FAMILIES {
        for moe in [false, true] {
            for arch in ARCHS {
                v.push(resolve(table, &training_keys(&ErrorClass { family, moe, arch })));
            }
        }
    }
    v
}

/// The Rust text of `levels_table.rs` for the two tables: the distinct bounds once
/// (`BOUNDS`), each class's index into them (what the pages read: a few hundred bytes), and
/// each class's row, level and whether it is measured (what the CLI's words add).
pub fn table_source(collectives: &[ClassCalibration], training: &[ClassCalibration], ep: &[ClassCalibration]) -> String {
    let (c, t, e) = (collective_levels(collectives), training_levels(training), ep_levels(ep));
    let mut bounds: Vec<[f64; 2]> = Vec::new();
    let mut index = |l: &Level| match bounds.iter().position(|b| *b == l.bounds) {
        Some(i) => i,
        None => {
            bounds.push(l.bounds);
            bounds.len() - 1
        }
    };
    let ci: Vec<usize> = c.iter().map(&mut index).collect();
    let ti: Vec<usize> = t.iter().map(&mut index).collect();
    let ei: Vec<usize> = e.iter().map(&mut index).collect();
    let join = |v: &[usize]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let meta = |v: &[Level]| v.iter().map(|l| format!("    ({}, {}, {}),\n", l.row, l.level, l.measured)).collect::<String>();
    let b: String = bounds.iter().map(|b| format!("    [{:?}, {:?}],\n", b[0], b[1])).collect();
    format!(
        "//! Generated from collectives.csv, training.csv and ep.csv by `calibration::levels`'s test\n\
         //! (`FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --lib calibration`); do not edit.\n\n\
         /// The distinct ratio bounds measured / predicted `[lo, hi]`; `[0, 0]`: none.\n\
         pub const BOUNDS: [[f64; 2]; {}] = [\n{b}];\n\n\
         /// Each collective class's bounds, an index into `BOUNDS`, in `levels::collective_index` order.\n\
         pub const COLLECTIVE_BOUNDS: [u8; {}] = [{}];\n\n\
         /// Each training class's bounds, an index into `BOUNDS`, in `levels::training_index` order.\n\
         pub const TRAINING_BOUNDS: [u8; {}] = [{}];\n\n\
         /// Each EP class's bounds, an index into `BOUNDS`, in `levels::ep_index` order.\n\
         pub const EP_BOUNDS: [u8; {}] = [{}];\n\n\
         /// Each collective class's (table row, level, measured), in the same order.\n\
         pub const COLLECTIVE_ROWS: [(u16, u8, bool); {}] = [\n{}];\n\n\
         /// Each training class's (table row, level, measured), in the same order.\n\
         pub const TRAINING_ROWS: [(u16, u8, bool); {}] = [\n{}];\n",
        bounds.len(),
        ci.len(),
        join(&ci),
        ti.len(),
        join(&ti),
        ei.len(),
        join(&ei),
        c.len(),
        meta(&c),
        t.len(),
        meta(&t),
    )
}

/// A class's level from the generated table's index and (row, level, measured) arrays.
pub fn level_of(bounds: Option<&u8>, meta: Option<&(u16, u8, bool)>) -> Option<Level> {
    let b = super::levels_table::BOUNDS.get(usize::from(*bounds?))?;
    let &(row, level, measured) = meta?;
    Some(Level { bounds: *b, row, level, measured })
}

/// A class's bounds alone (the pages' path: no row or words).
pub fn bounds_of(bounds: Option<&u8>) -> Option<(f64, f64)> {
    let b = super::levels_table::BOUNDS.get(usize::from(*bounds?))?;
    (b[0] > 0.0).then_some((b[0], b[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::{collectives_table, ep_table, training_table};

    /// The generated table is what the shipped CSV tables give (written anew with
    /// FABRICSCOPE_WRITE_DOCS=1), so the pages' bounds are the CLI's.
    #[test]
    fn the_generated_levels_are_the_tables() {
        let text = table_source(collectives_table(), training_table(), ep_table());
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/calibration/levels_table.rs");
        if std::env::var_os("FABRICSCOPE_WRITE_DOCS").is_some() {
            std::fs::write(&path, &text).expect("write levels_table.rs");
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(shipped == text, "src/calibration/levels_table.rs is stale: run FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --lib calibration");
        use super::super::levels_table::{COLLECTIVE_BOUNDS, COLLECTIVE_ROWS, TRAINING_BOUNDS, TRAINING_ROWS};
        let c: Vec<Level> = (0..COLLECTIVE_ROWS.len()).filter_map(|i| level_of(COLLECTIVE_BOUNDS.get(i), COLLECTIVE_ROWS.get(i))).collect();
        let t: Vec<Level> = (0..TRAINING_ROWS.len()).filter_map(|i| level_of(TRAINING_BOUNDS.get(i), TRAINING_ROWS.get(i))).collect();
        assert_eq!(c, collective_levels(collectives_table()));
        assert_eq!(t, training_levels(training_table()));
        let e: Vec<Option<(f64, f64)>> = super::super::levels_table::EP_BOUNDS.iter().map(|i| bounds_of(Some(i))).collect();
        assert_eq!(e, ep_levels(ep_table()).iter().map(Level::ratios).collect::<Vec<_>>());
    }

    #[test]
    fn every_class_has_an_interval_that_holds_its_prediction() {
        use super::super::levels_table::{COLLECTIVE_BOUNDS, TRAINING_BOUNDS};
        use super::super::levels_table::EP_BOUNDS;
        for i in COLLECTIVE_BOUNDS.iter().chain(TRAINING_BOUNDS.iter()).chain(EP_BOUNDS.iter()) {
            let (lo, hi) = bounds_of(Some(i)).expect("the family level backs every class");
            assert!(lo > 0.0 && lo <= 1.0 && hi >= 1.0, "{lo} {hi}");
        }
    }
}
