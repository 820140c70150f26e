//! Checking a real cluster: nccl-tests output read ([`parse`]), set against the model and
//! diagnosed ([`diagnose`]). Nothing here does I/O; the CLI and the page pass the text in.

pub mod diagnose;
pub mod parse;

pub use diagnose::{check, check_csv, file_value, infer, link_of, runs_of, CheckReport, CheckRow, Cause, Field, Measured, Plateau, Point, MAX_BUSBW_GBPS, MAX_TIME_US};
pub use parse::{parse, Log, Run, Unread};
