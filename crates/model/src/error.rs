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

/// Longest stretch of untrusted text (in characters) a message quotes; see [`printable`].
pub const MAX_QUOTED_CHARS: usize = 160;

/// Characters never shown raw: control characters (ESC, BEL, line breaks, ...) and the
/// bidirectional controls (U+061C, U+200E-200F, U+202A-202E, U+2066-2069), which reorder the
/// text around them on screen ("Trojan Source", CVE-2021-42574) so a name or message would read
/// other than it is.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Text that may come from a hostile file, link or flag, made safe to put in a message or a
/// terminal line: control and bidi characters ([`is_unsafe_char`]) are written as `\u{1b}`
/// escapes, so they cannot drive a terminal or split a line, and text longer than `max`
/// characters keeps its start and end around a `…` (the start names the field, the end
/// usually lists what is allowed).
pub fn printable(text: &str, max: usize) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if is_unsafe_char(c) {
            escaped.extend(c.escape_unicode());
        } else {
            escaped.push(c);
        }
    }
    let n = escaped.chars().count();
    if n <= max {
        return escaped;
    }
    let head = max.div_ceil(2);
    let tail = max - head;
    let start: String = escaped.chars().take(head).collect();
    let end: String = escaped.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_controls_and_bounds_length() {
        assert_eq!(printable("h1\u{1b}[31m\u{7}", 100), "h1\\u{1b}[31m\\u{7}");
        assert_eq!(printable("a\nb", 100), "a\\u{a}b");
        assert_eq!(printable("plain · text", 100), "plain · text");
        // Bidi controls (issue 38): escaped like control characters; other format chars kept.
        assert_eq!(printable("gpt\u{202E}txt.exe", 100), "gpt\\u{202e}txt.exe");
        assert_eq!(printable("\u{2066}a\u{2069}\u{200F}", 100), "\\u{2066}a\\u{2069}\\u{200f}");
        assert_eq!(printable("a\u{200D}b", 100), "a\u{200D}b");
        let long = format!("start{}end", "x".repeat(100_000));
        let p = printable(&long, 20);
        assert_eq!(p.chars().count(), 21, "{p}");
        assert!(p.starts_with("startxxxxx") && p.ends_with("xxxxxxxend") && p.contains('…'), "{p}");
        // Escapes count toward the bound: a line of 100,000 ESC stays short.
        assert_eq!(printable(&"\u{1b}".repeat(100_000), 40).chars().count(), 41);
    }
}
