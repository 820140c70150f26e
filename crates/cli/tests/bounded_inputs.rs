//! Issue 38, "Keep the user's work, round 3", on the CLI: every input bounded before it is
//! read, the log reader's memory in its result rows (not its lines), duplicate rank lines,
//! CR-only and UTF-16 logs, the flow model's work bound whatever the routing, factors that
//! would print inf, a scenario file's fields named as the file's, a pinned layout replaced
//! aloud, and bidi controls escaped.

mod common;
use common::{fails, json, run, BIN};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn logs(name: &str) -> String {
    format!("{}/../../validation/logs/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A file of `bytes` in the temp directory, named for this test and process.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("fabricscope-issue38-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).expect("the temp file is written");
    p
}

/// `VmHWM` (peak resident memory) of process `pid` in KiB, while it runs.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `fabricscope ARGS`, sampling its peak memory every 2 ms until it exits: exit code,
/// stdout, stderr, the highest VmHWM seen (KiB) and the wall time.
fn run_measured(args: &[&str]) -> (Option<i32>, String, String, u64, Duration) {
    let t = Instant::now();
    let mut child = Command::new(BIN).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary runs");
    let pid = child.id();
    // Read the pipes on threads, so a full pipe never stalls the child.
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut so, &mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut se, &mut s);
        s
    });
    let mut peak = 0;
    let status = loop {
        // Read before asking whether it exited: the last sample is of a live process.
        if let Some(k) = vm_hwm_kib(pid) {
            peak = peak.max(k);
        }
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    (status.code(), out.join().unwrap_or_default(), err.join().unwrap_or_default(), peak, t.elapsed())
}

/// A 63 MB log of 1.85 million `# nThread` headers, each with a rank line and no rows, then
/// one real two-rank run: what made `check` hold 1.13 GB.
fn headers_log() -> Vec<u8> {
    let block = "# nThread 1\n#Rank 0 on h device 0\n";
    let tail = "# nThread 1 nGpus 1\n#  Rank  0 Group 0 Pid 1 on a device 0 [0] NVIDIA H100 80GB HBM3\n#  Rank  1 Group 0 Pid 2 on b device 0 [0] NVIDIA H100 80GB HBM3\n1048576 262144 float sum -1 100.0 10.49 10.49 0\n2097152 524288 float sum -1 200.0 10.49 10.49 0\n";
    let n = 63_000_000 / block.len();
    let mut s = block.repeat(n);
    s.push_str(tail);
    s.into_bytes()
}

#[test]
fn a_63_mb_log_of_headers_is_read_in_bounded_memory_and_time() {
    let log = headers_log();
    assert!(log.len() > 63_000_000 && log.len() < 64 << 20);
    let path = temp_file("headers.log", &log);
    let (code, out, err, peak_kib, took) = run_measured(&["check", path.to_str().unwrap_or_default(), "--json"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    // The real run is read: its two ranks, not 1.85 million runs' worth.
    assert_eq!(v["cluster"]["ranks"]["value"], "2", "{}", v["cluster"]);
    // The text (63 MB) is in memory once; the reader keeps the run with rows only.
    assert!(peak_kib > 0 && peak_kib < 300 * 1024, "peak {peak_kib} KiB");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    eprintln!("63 MB log: peak {} MiB, {took:?}", peak_kib / 1024);
}

#[test]
fn a_log_over_the_limit_is_refused_unread() {
    // A sparse 65 MiB file: refused by its size before a byte is read.
    let path = std::env::temp_dir().join(format!("fabricscope-issue38-{}-huge.log", std::process::id()));
    let f = std::fs::File::create(&path).expect("created");
    f.set_len(65 << 20).expect("sized");
    let (code, _, err, peak_kib, _) = run_measured(&["check", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(2));
    assert!(err.contains("too large") && err.contains("64 MiB"), "{err}");
    assert!(peak_kib < 32 * 1024, "read anyway: peak {peak_kib} KiB");
}

#[test]
fn rank_lines_printed_twice_count_once() {
    let text = std::fs::read_to_string(logs("h100-2node-a3mega-all-reduce.txt")).expect("the log");
    // The header's rank lines printed a second time, as a launcher echoing two streams does.
    let ranks: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("#  Rank")).collect();
    assert_eq!(ranks.len(), 16);
    let last = ranks[15];
    let twice = text.replacen(last, &format!("{last}\n{}", ranks.join("\n")), 1);
    let path = temp_file("twice.log", twice.as_bytes());
    let v = json(&["check", path.to_str().unwrap_or_default(), "--json"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(v["cluster"]["ranks"]["value"], "16", "{}", v["cluster"]);
    assert_eq!(v["cluster"]["nodes"]["value"], "2");
    assert_eq!(v["cluster"]["gpus_per_node"]["value"], "8");
}

#[test]
fn cr_only_and_utf16_logs_are_read() {
    let text = std::fs::read_to_string(logs("h100-2node-a3mega-all-reduce.txt")).expect("the log");
    let want = json(&["check", &logs("h100-2node-a3mega-all-reduce.txt"), "--json"]);
    let mut le = vec![0xFF, 0xFE];
    let mut be_no_bom = Vec::new();
    for u in text.encode_utf16() {
        le.extend(u.to_le_bytes());
        be_no_bom.extend(u.to_be_bytes());
    }
    for (name, bytes) in [("cr.log", text.replace('\n', "\r").into_bytes()), ("utf16le.log", le), ("utf16be.log", be_no_bom)] {
        let path = temp_file(name, &bytes);
        let v = json(&["check", path.to_str().unwrap_or_default(), "--json"]);
        let _ = std::fs::remove_file(&path);
        assert_eq!(v["rows"], want["rows"], "{name}");
        assert_eq!(v["cluster"]["ranks"], want["cluster"]["ranks"], "{name}");
    }
}

#[test]
fn spray_on_the_largest_cluster_answers_or_refuses_within_10_s() {
    for routing in ["spray", "adaptive", "ecmp"] {
        let args = ["congestion", "--nodes", "32768", "--gpus-per-node", "8", "--traffic", "tree", "--routing", routing, "--seeds", "4096", "--channels", "64"];
        let (code, out, err, _, took) = run_measured(&args);
        assert!(took < Duration::from_secs(10), "{routing}: {took:?}");
        // Refused by the work bound, with what to change (it ran 28-30 s before).
        assert_eq!(code, Some(2), "{routing}: {out}");
        assert!(err.contains("100000000"), "{routing}: {err}");
    }
}

#[test]
fn factors_that_would_print_inf_are_refused() {
    fails(&["train", "--model", "gpt-1.7b", "--slow-gpus", "1", "--slow-factor", "5e-324"], &["--slow-factor", "from 0.001 to 1"]);
    fails(&["congestion", "--degraded-links", "1", "--degraded-factor", "5e-324"], &["--degraded-factor", "from 0.001 to 1"]);
    // The smallest factor taken still prints finite numbers.
    let v = json(&["train", "--model", "gpt-1.7b", "--slow-gpus", "1", "--slow-factor", "0.001", "--json"]);
    let step = v["step_time_s_over_seeds"]["mean"].as_f64().expect("a number");
    assert!(step.is_finite() && step > 0.0, "{v}");
}

#[test]
fn a_price_book_over_its_limit_is_too_large_not_cut() {
    // Valid JSON followed by 1 MiB of spaces: read whole, it is a fine book; cut at 1 MiB it
    // was taken as the book (and 1 MiB of garbage after a cut was "not valid JSON at column").
    let mut book = br#"[{"item":"dgx-h100","usd":300000,"source":"quote","date":"2026-01"}]"#.to_vec();
    book.extend(std::iter::repeat_n(b' ', 1 << 20));
    let path = temp_file("big-prices.json", &book);
    let p = path.to_str().unwrap_or_default();
    fails(&["bom", "--prices", p], &["--prices", "too large", "1048576"]);
    fails(&["rightsize", "--prices", p], &["--prices", "too large"]);
    let _ = std::fs::remove_file(&path);
    // Under the limit the same book reads.
    let path = temp_file("prices.json", &book[..book.len() - 1024]);
    let (code, _, err) = run(&["bom", "--prices", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_scenario_files_field_is_named_as_the_files() {
    let path = temp_file("bridge.json", br#"{"cluster":{"nodes":4,"scale_up":"nvlink-bridge"},"training":{"workload":"gpt-1.7b"}}"#);
    let p = path.to_str().unwrap_or_default().to_string();
    let (code, _, err) = run(&["rightsize", "--scenario", &p]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(2));
    assert!(err.contains(&format!("{p}: cluster.scale_up")), "{err}");
    assert!(!err.starts_with("error: --scale-up"), "blames a flag nobody gave: {err}");
}

#[test]
fn a_pinned_layout_that_cannot_run_is_said_replaced() {
    let path = temp_file("tp3.json", br#"{"cluster":{"nodes":4},"training":{"workload":"gpt-1.7b","best":false,"tp":3,"pp":1,"cp":1,"ep":1}}"#);
    let (code, out, err) = run(&["eval", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("note: training.tp 3 cannot run") && err.contains("allowed: 1, 2, 4, 8") && err.contains("run with 2"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["pinned_replaced"].as_array().map(Vec::len), Some(1), "{}", v["pinned_replaced"]);
    // A layout that runs as pinned says nothing.
    let path = temp_file("tp2.json", br#"{"cluster":{"nodes":4},"training":{"workload":"gpt-1.7b","best":false,"tp":2,"pp":1,"cp":1,"ep":1}}"#);
    let (code, out, err) = run(&["eval", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("note:"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["pinned_replaced"], serde_json::json!([]));
}

#[test]
fn bidi_controls_are_escaped_in_errors_and_log_text() {
    let (code, _, err) = run(&["train", "--model", "gpt\u{202E}1.7b"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("gpt\\u{202e}1.7b"), "{err}");
    for c in ['\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}'] {
        assert!(!err.contains(c), "{c:?} raw in {err}");
    }
    // A host name from a log, shown in check's text report.
    let text = std::fs::read_to_string(logs("h100-2node-a3mega-all-reduce.txt")).expect("the log").replace("ztan-mig-235z", "ztan\u{2066}235z").replace("all_reduce_perf -b", "all_reduce_perf \u{202E} -b");
    let path = temp_file("bidi.log", format!("{text}\nodd line \u{202E}here\n").as_bytes());
    let (code, out, err) = run(&["check", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains('\u{202E}') && !out.contains('\u{2066}'), "{out}");
    assert!(out.contains("\\u{202e}"), "{out}");
}
