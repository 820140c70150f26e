//! Checking a real cluster: nccl-tests output read ([`parse`], with the library and network
//! the log shows: [`facts`]), kept as measured runs ([`measured`]), the cluster judged
//! against with each field's source ([`sources`]), set against the model and diagnosed
//! ([`diagnose`]). Nothing here does I/O; the CLI and the page pass the text in.
//!
//! Built on the model (`fabricscope-model`) and nothing else: the model modules this crate may
//! use are re-exported below under their model names, so `crate::collective` reads as it does in
//! the model. Used by the CLI (`fabricscope check`) and check.html.

pub(crate) use fabricscope_model::{calibration, catalog, collective, error, fitted, limits, link, scenario, topology, trust, units};

pub mod calibrate;
pub mod diagnose;
pub mod facts;
pub mod measured;
pub mod parse;
pub mod sources;

pub use calibrate::{calibrate, read_log, CalibrationFile, FitRow, Fitted, LogRuns};
pub use diagnose::{check, check_csv, check_with, CheckReport, CheckRow, Cause, Plateau};
pub use facts::{Facts, Library, NetPlugin};
pub use measured::{file_value, gpu_of_name, link_of, link_of_noted, runs_of, Measured, Point, MAX_BUSBW_GBPS, MAX_TIME_US};
pub use parse::{decode, next_line, parse, Log, Parser, Run, Unread};
pub use sources::{infer, Field, Given, Inferred, Overruled, Source};
