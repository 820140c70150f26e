//! One file per control or panel.

mod bom;
mod chart_svg;
mod check;
mod claims;
mod collective;
mod compare;
mod compare_serving;
mod compare_congestion;
mod congestion;
pub mod page_frame;
pub(crate) mod controls;
mod count_field;
pub(crate) mod export;
mod formula;
mod hierarchy;
mod key_numbers;
mod mapping;
mod memo;
mod moe;
mod pickers;
mod presets;
mod prices;
mod rightsize;
mod serving;
mod summary;
mod tier_table;
mod training;

pub use bom::{bom_of, bom_panel};
pub use memo::{memo, Panel};
pub use chart_svg::ChartSvg;
pub use check::{check_panel, worker_task as check_worker_task, Props as CheckProps};
pub use claims::Props as ClaimsProps;
pub use congestion::{CongestionPanel, Props as CongestionProps};
pub use compare_congestion::{CompareCongestion, Props as CompareCongestionProps};
pub use page_frame::{PageFrame, Props as PageFrameProps};
pub use compare::{ComparePanel, Props as CompareProps};
pub use compare_serving::{CompareServing, Props as CompareServingProps};
pub use collective::{chart_view, collective_svg, readout, Props as CollectiveProps};
pub use count_field::{count_field, Props as CountFieldProps};
pub use export::Props as ExportProps;
pub use formula::Props as FormulaProps;
pub use hierarchy::{hierarchy_svg, Props as HierarchyProps};
pub use key_numbers::Props as KeyNumbersProps;
pub use mapping::Props as MappingProps;
pub use pickers::{pickers, Props as PickersProps};
pub use presets::{presets, Props as PresetsProps};
pub use prices::{price_editor, Props as PriceEditorProps};
pub use rightsize::{rightsize_panel, Props as RightsizeProps};
pub use serving::{FrameProps as ServingFrameProps, Props as ServingProps, ServingFrame, ServingPanel};
pub use summary::Props as SummaryProps;
pub use tier_table::Props as TierTableProps;
pub use training::Props as TrainingProps;

use web_sys::HtmlInputElement;
use std::rc::Rc;
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

/// A cache key that is the same only for the same shared value. `Rc`'s own `==` compares
/// the contents when they are not `Eq` (a report's thousands of f64s, on every render, even
/// when nothing changed); this compares the pointers. The key holds its `Rc`, so the address
/// cannot be reused by another value while the cache remembers it.
/// Also the type of a panel's shared props (the evaluation, the training view), so a panel
/// whose inputs are the same values skips its render for the cost of a pointer comparison.
pub struct Same<T>(pub Rc<T>);

impl<T> Clone for Same<T> {
    fn clone(&self) -> Self {
        Same(self.0.clone())
    }
}

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Same<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The training view as the panels get it: the search's answer (or its error), compared by
/// identity; `None` before the first answer.
pub type Trained = Option<Same<Result<fabricscope_model::training::explore::TrainingView, fabricscope_model::ModelError>>>;

/// A one-entry cache for drawings of the function panels: the value for `key` is recomputed
/// only when the key changes (what `use_memo` does for components, without one more generic
/// component in the bundle).
pub(crate) fn cached<K: PartialEq, V: Clone>(cell: &std::cell::RefCell<Option<(K, V)>>, key: K, f: impl FnOnce(&K) -> V) -> V {
    let mut c = cell.borrow_mut();
    match &*c {
        Some((k, v)) if *k == key => v.clone(),
        _ => {
            let v = f(&key);
            *c = Some((key, v.clone()));
            v
        }
    }
}
