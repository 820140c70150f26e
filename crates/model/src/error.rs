//! Typed errors: each names the input at fault and what it may be.

use serde::Serialize;
use std::fmt;

/// An input the model cannot use. `field` is the scenario field (and, with dashes, the CLI
/// flag) at fault, so the UI can show the message beside the control that caused it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelError {
    pub field: &'static str,
    pub message: String,
}

impl ModelError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        Self { field, message: message.into() }
    }
    /// The CLI flag spelling of `field`.
    pub fn flag(&self) -> String {
        format!("--{}", self.field.replace('_', "-"))
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ModelError {}

pub type Result<T> = std::result::Result<T, ModelError>;
