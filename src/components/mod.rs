//! One file per control or panel.

mod claims;
mod collective;
mod count_field;
mod export;
mod formula;
mod hierarchy;
mod key_numbers;
mod mapping;
mod pickers;
mod presets;
mod tier_table;
mod training;

pub use claims::{claims, Props as ClaimsProps};
pub use collective::{collective_svg, CollectivePanel};
pub use count_field::{count_field, Props as CountFieldProps};
pub use export::ExportPanel;
pub use formula::{formula_panel, Props as FormulaProps};
pub use hierarchy::{hierarchy_svg, HierarchyPanel};
pub use key_numbers::{key_numbers, Props as KeyNumbersProps};
pub use mapping::MappingPanel;
pub use pickers::{pickers, Props as PickersProps};
pub use presets::{presets, Props as PresetsProps};
pub use tier_table::TierTable;
pub use training::TrainingPanel;

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The value of the input an event came from.
pub(crate) fn value_of(e: &Event) -> String {
    let input: HtmlInputElement = e.target_unchecked_into();
    input.value()
}

/// Whether the checkbox an event came from is checked.
pub(crate) fn checked_of(e: &Event) -> bool {
    let input: HtmlInputElement = e.target_unchecked_into();
    input.checked()
}
