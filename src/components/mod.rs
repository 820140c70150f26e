//! One file per control or panel.

mod chart;
mod key_numbers;
mod node_control;

pub use chart::CollectiveChart;
pub use key_numbers::KeyNumbers;
pub use node_control::NodeControl;
