//! compare.html: designs A-D side by side, their bill of materials, price book, right-sizer and
//! serving overlay; the pinned designs' state and each design's work in slices.

mod bom;
pub mod designs;
mod page;
mod panel;
mod price_editor;
pub mod prices;
pub mod rightsize;
mod rightsize_panel;
mod serving;
pub mod work;

pub use page::*;
pub use bom::{bom_of, bom_panel};
pub use panel::{ComparePanel, Props as CompareProps};
pub use price_editor::{price_editor, Props as PriceEditorProps};
pub use rightsize_panel::{rightsize_panel, Props as RightsizeProps};
pub use serving::{CompareServing, Props as CompareServingProps};
