//! Hostile input to the CLI: sizes and counts past any range, flags that would size an
//! allocation, terminal control characters and 100 KB strings, byte-order marks, large files.
//! Each must end quickly with one printable line naming the field and its range (exit 2),
//! or be accepted when it is a valid scenario.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

/// A run that must finish well before this (the bugs were endless loops and 176 GB
/// allocations, not slowness).
const DEADLINE: Duration = Duration::from_secs(60);

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Out {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fabricscope binary runs");
    let mut input = child.stdin.take().expect("stdin");
    // A refused write (the tool stopped reading early) is fine.
    let _ = input.write_all(stdin);
    drop(input);
    // Output is read while the tool runs (a full pipe would stall it); past the deadline the
    // process is killed by its id.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(o) = rx.recv_timeout(DEADLINE) else {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        panic!("fabricscope {} did not finish in {DEADLINE:?}", args.join(" "));
    };
    let o = o.expect("finishes");
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Out {
    run_with_stdin(args, b"")
}

fn file(name: &str, bytes: &[u8]) -> String {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("robustness-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    let p = d.join(name);
    std::fs::write(&p, bytes).expect("write");
    p.to_string_lossy().into_owned()
}

/// Exit 2, nothing on stdout, one printable line on stderr containing every `needle`.
fn one_line_error(o: &Out, needles: &[&str]) {
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
    assert!(o.stdout.is_empty(), "stdout: {}", o.stdout);
    assert_eq!(o.stderr.lines().count(), 1, "{:?}", o.stderr);
    let line = o.stderr.trim_end_matches('\n');
    assert!(!line.chars().any(char::is_control), "control characters in {line:?}");
    assert!(line.chars().count() <= 1_300, "{} characters", line.chars().count());
    for n in needles {
        assert!(line.contains(n), "{line} does not contain {n}");
    }
}

#[test]
fn huge_sweep_sizes_in_a_file_are_refused_with_the_range() {
    let f = file("huge.json", br#"{"view":{"max_bytes":18446744073709551615}}"#);
    for cmd in [vec!["eval", f.as_str()], vec!["eval", f.as_str(), "--csv"], vec!["link", f.as_str()]] {
        one_line_error(&run(&cmd), &["view.max_bytes", "between 1B and 1T (2^40 bytes)", "got 16777216T"]);
    }
    let out = file("out", b"");
    let _ = std::fs::remove_file(&out);
    one_line_error(&run(&["render", &f, "--out", &out]), &["view.max_bytes", "between 1B and 1T"]);
    // The smallest size past the largest, and both past the range.
    one_line_error(&run_with_stdin(&["eval", "-"], br#"{"view":{"min_bytes":4096,"max_bytes":1024}}"#), &["<stdin>: view.min_bytes", "larger than its largest"]);
    one_line_error(&run_with_stdin(&["eval", "-"], br#"{"view":{"min_bytes":0}}"#), &["view.min_bytes", "between 1B and 1T"]);
    // Counts past any cluster, in the cluster and in the training choice.
    one_line_error(&run_with_stdin(&["eval", "-"], br#"{"cluster":{"nodes":4294967295}}"#), &["cluster.nodes", "between 1 and 65536"]);
    one_line_error(&run_with_stdin(&["eval", "-"], br#"{"training":{"tp":4294967295}}"#), &["training.tp", "between 1 and 262144"]);
    one_line_error(&run_with_stdin(&["eval", "-"], br#"{"view":{"ops":["all_reduce","all_reduce"]}}"#), &["view.ops", "all_reduce is listed twice"]);
    // The largest allowed sweep still evaluates: 8 B to 1T.
    let o = run_with_stdin(&["eval", "-", "--csv"], br#"{"view":{"ops":["all_reduce"],"max_bytes":1099511627776}}"#);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.lines().any(|l| l.contains(",1099511627776,1T,")), "1T is the last size");
}

#[test]
fn flags_that_size_an_allocation_are_capped_with_the_range() {
    let max = "4294967295";
    let cases: [(&[&str], &[&str]); 9] = [
        (&["search", "--model", "llama3-8b", "--top", max], &["--top", "between 1 and 10000"]),
        (&["search", "--model", "llama3-8b", "--top", "0"], &["--top", "between 1 and 10000; got 0"]),
        (&["sweep", "--op", "all_reduce", "--max", "16T"], &["--max", "between 1B and 1T (2^40 bytes); got 16T"]),
        (&["collective", "--op", "all_reduce", "--bytes", "0"], &["--bytes", "between 1B and 1T"]),
        (&["collective", "--op", "all_reduce", "--bytes", "1G", "--group-ranks", max], &["--group-ranks", "between 1 and 262144"]),
        (&["tiers", "--nodes", max], &["--nodes", "between 1 and 65536"]),
        (&["train", "--model", "llama3-8b", "--interleave", max], &["--interleave", "between 1 and 262144"]),
        (&["search", "--model", "llama3-8b", "--micro-batch", max], &["--micro-batch", "between 1 and 262144"]),
        (&["train", "--model", "llama3-8b", "--layers", max], &["--layers", "between 1 and 4096"]),
    ];
    for (args, needles) in cases {
        one_line_error(&run(args), needles);
    }
    // The top of the range works.
    let o = run(&["search", "--model", "llama3-8b", "--top", "10000", "--csv"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

#[test]
fn control_characters_and_long_strings_never_reach_the_terminal_raw() {
    let esc = r#"{"cluster":{"gpu":"h1\u001b[31mred\u0007"}}"#;
    let o = run_with_stdin(&["eval", "-"], esc.as_bytes());
    one_line_error(&o, &["cluster.gpu", "\\u{1b}[31mred\\u{7}", "expected one of `v100`"]);
    one_line_error(&run(&["link", "--decode", esc]), &["--decode", "cluster.gpu", "\\u{1b}"]);
    let o = run(&["collective", "--op", "all_reduce", "--bytes", "1G", "--gpu", "h\u{1b}]0;pwned\u{7}"]);
    one_line_error(&o, &["--gpu", "\\u{1b}]0;pwned\\u{7}", "allowed: v100"]);
    one_line_error(&run(&["train", "--model", "llama3-8b", "--tp", "1\u{1b}[2J"]), &["--tp", "not a count"]);
    // 100 KB strings: the line stays short and still says what is allowed.
    let long = "x".repeat(100_000);
    for json in [
        format!(r#"{{"cluster":{{"gpu":"{long}"}}}}"#),
        format!(r#"{{"training":{{"workload":"{long}"}}}}"#),
        format!(r#"{{"cluster":{{"{long}":1}}}}"#),
        format!(r#"{{"version":"{long}"}}"#),
    ] {
        let o = run_with_stdin(&["eval", "-"], json.as_bytes());
        one_line_error(&o, &["<stdin>: "]);
    }
    let o = run(&["collective", "--op", "all_reduce", "--bytes", "1G", "--nic", &long]);
    one_line_error(&o, &["--nic", "allowed: ib-hdr"]);
    let o = run_with_stdin(&["eval", "-"], format!(r#"{{"training":{{"workload":"custom:{long}:1:1:1"}}}}"#).as_bytes());
    one_line_error(&o, &["training.workload"]);
}

#[test]
fn a_byte_order_mark_is_accepted_wherever_a_scenario_file_is_read() {
    let json = br#"{"cluster":{"nodes":2}}"#;
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), json].concat();
    let f = file("bom.json", &with_bom);
    let plain = run_with_stdin(&["eval", "-", "--csv"], json);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    for o in [run(&["eval", &f, "--csv"]), run_with_stdin(&["eval", "-", "--csv"], &with_bom)] {
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert_eq!(o.stdout, plain.stdout, "the same scenario as without the mark");
    }
    let o = run(&["link", &f]);
    assert_eq!((o.code, o.stdout.trim()), (Some(0), "v1.eyJuIjoyfQ"), "{}", o.stderr);
    // Not UTF-8 at all.
    one_line_error(&run_with_stdin(&["eval", "-"], b"\xFF\xFE{\x00}\x00"), &["<stdin>", "not UTF-8"]);
}

#[test]
fn large_files_are_read_up_to_one_mebibyte() {
    // A valid pretty-printed scenario padded to 20 KiB: more than a link may be, fine as a file.
    let pad = " ".repeat(20 * 1024);
    let big = format!("{{{pad}\"cluster\": {{\"nodes\": 2}}{pad}}}");
    let o = run_with_stdin(&["eval", "-", "--csv"], big.as_bytes());
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let huge = format!("{{\"cluster\":{{\"nodes\":2}}}}{}", " ".repeat(1 << 20));
    one_line_error(&run_with_stdin(&["eval", "-"], huge.as_bytes()), &["<stdin>", "not a scenario file", "1 MiB"]);
    one_line_error(&run_with_stdin(&["eval", "-"], b"nodes: 4"), &["<stdin>", "not valid JSON"]);
}

#[test]
fn a_search_with_no_layout_names_the_cause() {
    // 72 GB200 GPUs, 8 layers, global batch 1: DP 1, so TP x CP x PP = 72 with PP <= 8 and
    // TP, CP powers of two: no layout divides the GPUs (memory has nothing to do with it).
    let o = run(&["search", "--gpu", "gb200", "--nodes", "18", "--model", "llama3-8b", "--layers", "8", "--global-batch", "1"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("No parallel layout of this job divides the 72 GPUs"), "{}", o.stdout);
    assert!(!o.stdout.contains("memory"), "{}", o.stdout);
    // GPT-3 175B on 8 H100: every layout divides, none fits.
    let o = run(&["search", "--nodes", "1", "--model", "gpt3-175b"]);
    assert!(o.stdout.contains("No layout fits in GPU memory: the closest"), "{}", o.stdout);
    // A pinned micro-batch no layout takes.
    let o = run(&["search", "--model", "llama3-8b", "--micro-batch", "3"]);
    assert!(o.stdout.contains("none takes the pinned micro-batch"), "{}", o.stdout);
}
