//! Running the built `fabricscope` binary from the integration tests: its output, its exit code
//! with stdout and stderr, stdout (as text or JSON) of a run that must succeed, and a run that
//! must fail with one line naming what is wrong.
#![allow(dead_code)] // each test file uses its own subset

use serde_json::Value;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

/// The process output of `fabricscope ARGS`.
pub fn output(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the fabricscope binary runs")
}

/// Exit code, stdout and stderr of `fabricscope ARGS`.
pub fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = output(args);
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Stdout of a run that must exit 0.
pub fn stdout_ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, Some(0), "fabricscope {}: {err}", args.join(" "));
    out
}

/// Stdout of a run that must exit 0, parsed as JSON.
pub fn json(args: &[&str]) -> Value {
    let out = stdout_ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// Runs, expects exit code 2, nothing on stdout and exactly one line on stderr containing every `want`.
pub fn fails(args: &[&str], want: &[&str]) {
    let (code, out, err) = run(args);
    assert_eq!(code, Some(2), "fabricscope {}: {out} {err}", args.join(" "));
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for w in want {
        assert!(err.contains(w), "'{w}' missing from: {err}");
    }
}
