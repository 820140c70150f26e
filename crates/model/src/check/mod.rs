//! Checking a real cluster: nccl-tests output read ([`parse`]), set against the model and
//! diagnosed ([`diagnose`]). Nothing here does I/O; the CLI and the page pass the text in.

pub mod diagnose;
pub mod parse;

pub use diagnose::{check, check_csv, infer, CheckReport, CheckRow, Cause, Field, Measured, Plateau, Point};
pub use parse::{parse, Log, Run, Unread};
