//! User errors as one line on stderr and exit code 2: which flag, what was wrong, what is allowed.

use fabricscope_model::error::printable;
use fabricscope_model::ModelError;
use std::fmt;
use std::io::Write;
use std::process::ExitCode;

/// Exit code for every input the tool cannot use (clap's convention for usage errors).
pub const USAGE_EXIT: u8 = 2;

/// Longest error line printed, in characters: the longest real message (an unknown workload
/// and the list of presets) is about 600; text quoted from a file or flag is bounded before.
pub const MAX_LINE_CHARS: usize = 1_200;

/// An input the tool cannot use, attributed to the flag that carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError {
    /// The flag at fault, spelled as on the command line (`--gpu`).
    pub flag: String,
    pub message: String,
}

impl CliError {
    pub fn new(flag: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            flag: flag.into(),
            message: message.into(),
        }
    }

    /// Prints `error: <flag>: <message>` as a single line and returns exit code 2.
    pub fn exit(&self) -> ExitCode {
        print_line(&format!("error: {self}"));
        ExitCode::from(USAGE_EXIT)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.flag, one_line(&self.message))
    }
}

impl From<ModelError> for CliError {
    fn from(e: ModelError) -> Self {
        CliError::new(flag_for_field(&e), e.message)
    }
}

/// The CLI flag for a model field. Most are the field with dashes ([`ModelError::flag`]);
/// the switch counts have short flags here.
pub fn flag_for_field(e: &ModelError) -> String {
    match e.field {
        "leaf_switches" => "--leaf".into(),
        "spine_switches" => "--spine".into(),
        "switch_radix" => "--radix".into(),
        _ => e.flag(),
    }
}

/// Collapses line breaks so a message stays on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every error line goes out through here: control characters that a file, link or flag
/// smuggled in are escaped (no terminal escape sequences) and the line is bounded, with the
/// model's [`printable`] (the permalink decoder's notes use the same).
fn print_line(line: &str) {
    // Nothing useful can be done if stderr is gone.
    let _ = writeln!(std::io::stderr().lock(), "{}", printable(line, MAX_LINE_CHARS));
}

/// A note on stderr (`note: ...`), escaped and bounded as error lines are: what the command did
/// in the user's place (a replaced pinned size), beside an answer on stdout.
pub fn note(line: &str) {
    print_line(&format!("note: {}", one_line(line)));
}

/// Handles a clap parse failure: help and version go to stdout with exit code 0; every real
/// error becomes one line on stderr with exit code 2.
/// `subcommands` lists the valid subcommand names for the messages that need them.
pub fn clap_exit(e: clap::Error, subcommands: &[String]) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            print_line(&clap_one_line(&e, subcommands));
            ExitCode::from(USAGE_EXIT)
        }
    }
}

/// Condenses clap's multi-line rendering (message, tips, usage, "for more information") to
/// one line: the message and any tips, without the usage block.
pub fn clap_one_line(e: &clap::Error, subcommands: &[String]) -> String {
    use clap::error::ErrorKind;
    let allowed = subcommands.join(", ");
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return format!("error: a subcommand is required; allowed: {allowed} (try --help)");
    }
    let text = e.render().to_string();
    let mut out = String::new();
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(if out.ends_with(':') { " " } else { "; " });
        }
        out.push_str(l);
    }
    if out.is_empty() {
        out = format!("error: {}", e.kind());
    }
    if !out.starts_with("error:") {
        out = format!("error: {out}");
    }
    if e.kind() == ErrorKind::InvalidSubcommand && !out.contains("allowed:") {
        out = format!("{out}; allowed: {allowed}");
    }
    one_line(&out)
}
