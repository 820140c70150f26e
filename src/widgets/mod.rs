//! What more than one page shows: the cluster being edited and its evaluation, the training
//! job, and the controls, pickers, chart frame, export and panels that pages share.

pub mod chart_svg;
pub mod cluster_line;
pub mod collective;
pub(crate) mod controls;
pub mod count_field;
pub mod embed;
pub mod eval;
pub(crate) mod export;
mod memo;
pub mod page_frame;
pub mod pickers;
pub mod presets;
pub mod serving_choice;
pub mod state;
pub mod training;

pub use memo::{memo, Panel};
pub use chart_svg::ChartSvg;
pub use page_frame::{PageFrame, Props as PageFrameProps};
pub use collective::{chart_view, collective_svg, readout, Props as CollectiveProps};
pub use count_field::{count_field, Props as CountFieldProps};
pub use export::Props as ExportProps;
pub use pickers::{pickers, Props as PickersProps};
pub use presets::{presets, Props as PresetsProps};

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
