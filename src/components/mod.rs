//! One file per control or panel.

mod claims;
mod collective;
mod count_field;
mod formula;
mod hierarchy;
mod key_numbers;
mod mapping;
mod pickers;
mod presets;
mod tier_table;

pub use claims::Claims;
pub use collective::{collective_svg, CollectivePanel};
pub use count_field::CountField;
pub use formula::FormulaPanel;
pub use hierarchy::{hierarchy_svg, HierarchyPanel};
pub use key_numbers::KeyNumbers;
pub use mapping::MappingPanel;
pub use pickers::Pickers;
pub use presets::Presets;
pub use tier_table::TierTable;

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
