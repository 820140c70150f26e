//! `fabricscope check` on real published nccl-tests logs (validation/logs/): the JSON has
//! exactly the promised fields, measured busbw is the log's out-of-place column to the
//! digit, a text that is not nccl-tests output is one error line with exit code 2.

use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

fn logs(name: &str) -> String {
    format!("{}/../../validation/logs/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN).args(args).output().expect("the fabricscope binary runs");
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn json_rows_carry_the_logs_out_of_place_busbw_exactly() {
    let path = logs("h100-2node-a3mega-all-reduce.txt");
    let (code, out, err) = run(&["check", &path, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["cluster", "healthy", "not_modelled", "rows", "skipped_runs", "unread_lines", "unread_rows", "verdict"]);
    // Each field with its source: the GPU and layout read, the NIC assumed (no NET/ line).
    assert_eq!(v["cluster"]["gpu"]["source"], "log");
    assert_eq!(v["cluster"]["nodes"]["value"], "2");
    assert_eq!(v["cluster"]["nodes"]["source"], "log");
    assert_eq!(v["cluster"]["nic"]["source"], "assumed");
    assert_eq!(v["healthy"], Value::Null, "60% of an assumed 8x NDR: cannot judge");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 31);
    let mut fields: Vec<&str> = rows[0].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    fields.sort_unstable();
    assert_eq!(fields, ["bytes", "expected_busbw_GBps", "measured_busbw_GBps", "op", "ratio", "within_band"]);
    // Every row's measured busbw is the out-of-place busbw column (field 8) of its line.
    let text = std::fs::read_to_string(&path).unwrap();
    let printed: Vec<(u64, String)> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].parse().unwrap(), f[7].to_string())
        })
        .collect();
    for (row, (bytes, busbw)) in rows.iter().zip(&printed) {
        assert_eq!(row["op"], "all_reduce");
        assert_eq!(row["bytes"].as_u64(), Some(*bytes));
        assert_eq!(row["measured_busbw_GBps"].as_f64(), Some(busbw.parse::<f64>().unwrap()), "{bytes}");
    }
    assert_eq!(rows[30]["measured_busbw_GBps"].to_string(), "338.82");
    let verdict = v["verdict"].as_array().unwrap();
    let mut vf: Vec<&str> = verdict[0].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    vf.sort_unstable();
    assert_eq!(vf, ["cause", "evidence", "next_step"]);
    assert_eq!(v["unread_lines"][0]["line"], 4);
}

#[test]
fn text_report_says_what_was_read_and_the_verdict_and_writes_the_overlay() {
    let svg = std::env::temp_dir().join(format!("fabricscope-check-{}.svg", std::process::id()));
    let svg_s = svg.to_string_lossy().to_string();
    let (code, out, err) = run(&["check", &logs("h100-1node-all-gather-ring.txt"), "--svg", &svg_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Read from the log: gpu H100-SXM5 80GB, ranks 8, nodes 1, gpus_per_node 8, host gpu-dp-2jvzl-pqq7p, library NCCL 2.26.2"), "{out}");
    assert!(out.contains("Verdict (healthy):\n1. healthy"), "{out}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    assert!(chart.starts_with("<svg") && chart.contains("AllGather measured") && chart.contains("AllGather expected"));
    // Flags win over the log where given: 4 GPUs per node makes the 8 ranks two nodes.
    let (_, out, _) = run(&["check", &logs("h100-1node-all-gather-ring.txt"), "--gpus-per-node", "4", "--nics-per-node", "4"]);
    assert!(out.contains("Inferred from the log's numbers: nodes 2, "), "{out}");
    assert!(out.contains("Given (flags): gpus_per_node 4, nic 4 x "), "{out}");
}

#[test]
fn not_nccl_tests_output_is_one_error_line() {
    let (code, out, err) = run(&["check", &logs("README.md")]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.starts_with("error: LOG: not nccl-tests output") && err.lines().count() == 1, "{err}");
    let (code, _, err) = run(&["check", "/no/such/log"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read"), "{err}");
}
