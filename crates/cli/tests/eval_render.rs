//! `fabricscope eval | render | link` on scenario files: the Report as JSON, every chart as a
//! titled SVG, permalinks both ways, and one-line errors naming the file and field (exit 2).

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Out {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fabricscope binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let o = child.wait_with_output().expect("finishes");
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Out {
    run_with_stdin(args, "")
}

/// A fresh directory under the target dir for this test's files.
fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("eval_render-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

fn scenario_file(dir: &Path, json: &str) -> String {
    let p = dir.join("scenario.json");
    std::fs::write(&p, json).expect("write scenario");
    p.to_string_lossy().into_owned()
}

const B200: &str =
    r#"{"version":1,"cluster":{"gpu":"b200","nodes":16,"scale_up":"nvlink5","nic":"ib-xdr"}}"#;

#[test]
fn eval_prints_the_report_as_json() {
    let d = tmp("eval");
    let f = scenario_file(&d, B200);
    let o = run(&["eval", &f]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).expect("JSON");
    assert_eq!(v["summary"]["total_gpus"], 128);
    assert!(v["tiers"].as_array().is_some_and(|t| t.len() >= 4), "tiers");
    assert!(
        v["curves"].as_array().is_some_and(|c| !c.is_empty()),
        "curves"
    );
    // stdin gives the same report.
    let o2 = run_with_stdin(&["eval", "-"], B200);
    assert_eq!(o2.code, Some(0), "{}", o2.stderr);
    assert_eq!(o2.stdout, o.stdout);
    // The sweeps as CSV.
    let o4 = run(&["eval", &f, "--csv"]);
    assert_eq!(o4.code, Some(0), "{}", o4.stderr);
    let mut lines = o4.stdout.lines();
    assert!(lines
        .next()
        .is_some_and(|h| h.starts_with("op,scope,ranks,bytes,size,time_us,")));
    assert!(
        lines.any(|l| l.starts_with("all_reduce,cluster,128,")),
        "{}",
        o4.stdout
    );
    // An empty object is the default scenario.
    let o3 = run_with_stdin(&["eval", "-"], "{}");
    let v3: Value = serde_json::from_str(&o3.stdout).expect("JSON");
    assert_eq!(v3["summary"]["total_gpus"], 32);
    // Beside the Report, the training view of the scenario's job: the default job's best
    // layout uses all 32 GPUs and is the search's #1.
    let t = &v3["training"];
    assert_eq!(t["workload"], "llama3-8b");
    let chosen = &t["chosen"]["mapping"];
    let gpus = ["tp", "pp", "dp", "cp"].iter().map(|k| chosen[k].as_u64().unwrap_or(0)).product::<u64>();
    assert_eq!(gpus, 32, "{chosen}");
    assert_eq!(t["chosen"], t["top"][0]);
    // A pinned layout is kept, and the rest searched.
    let o5 = run_with_stdin(&["eval", "-"], r#"{"training":{"best":false,"tp":2,"pp":2,"zero":1}}"#);
    let v5: Value = serde_json::from_str(&o5.stdout).expect("JSON");
    let m = &v5["training"]["chosen"]["mapping"];
    assert_eq!((m["tp"].as_u64(), m["pp"].as_u64(), m["dp"].as_u64(), m["zero"].as_u64()), (Some(2), Some(2), Some(8), Some(1)), "{m}");
}

#[test]
fn bad_files_are_one_line_naming_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"cluster":{"nodes":"four"}}"#,
            "<stdin>: cluster.nodes: invalid type",
        ),
        (
            r#"{"cluster":{"nodez":4}}"#,
            "<stdin>: cluster.nodez: unknown field",
        ),
        (
            r#"{"cluster":{"gpu":"h900"}}"#,
            "<stdin>: cluster.gpu: unknown variant",
        ),
        (
            r#"{"cluster":{"nodes":0}}"#,
            "<stdin>: cluster.nodes: the node count must be between 1",
        ),
        (r#"{"view":{"min_bytes":0}}"#, "<stdin>: view.min_bytes:"),
        (r#"{"version":9}"#, "<stdin>: version:"),
        (r#"{"cluster":"#, "<stdin>: not valid JSON"),
        (r#"{"training":{"workload":"gpt-9"}}"#, "<stdin>: training.workload: unknown workload 'gpt-9'; allowed: gpt3-175b,"),
        (r#"{"training":{"workload":"custom:32:4096:30:512"}}"#, "<stdin>: training.workload (heads):"),
        (r#"{"training":{"zero":"all"}}"#, "<stdin>: training.zero: invalid type"),
        ("[1,2]", "<stdin>:"),
        ("", "<stdin>: not valid JSON"),
    ];
    for (json, want) in cases {
        let o = run_with_stdin(&["eval", "-"], json);
        assert_eq!(o.code, Some(2), "{json}: {}", o.stderr);
        assert!(o.stdout.is_empty(), "{json}: nothing on stdout");
        assert_eq!(
            o.stderr.lines().count(),
            1,
            "{json}: one line: {}",
            o.stderr
        );
        assert!(
            o.stderr.starts_with(&format!("error: {want}")),
            "{json}: {}",
            o.stderr
        );
    }
    let o = run(&["eval", "/no/such/scenario.json"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .starts_with("error: /no/such/scenario.json: cannot read"),
        "{}",
        o.stderr
    );
}

#[test]
fn render_writes_every_chart_with_the_scenario_in_it() {
    let d = tmp("render");
    let f = scenario_file(&d, B200);
    let out = d.join("charts");
    let o = run(&["render", &f, "--out", &out.to_string_lossy()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for id in ["busbw", "hierarchy", "topology", "step", "mfu", "memory"] {
        let p = out.join(format!("{id}.svg"));
        let svg = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{id}"
        );
        assert!(
            svg.contains("16 nodes × 8 B200"),
            "{id} states the scenario"
        );
        assert!(
            svg.contains("(128 GPUs)") && svg.contains("NCCL 2.27.5"),
            "{id}"
        );
        assert!(
            o.stdout.contains(&p.to_string_lossy().into_owned()),
            "{id} listed"
        );
    }
    // The training charts name the job and its layout too.
    let step = std::fs::read_to_string(out.join("step.svg")).unwrap();
    assert!(step.contains("llama3-8b on TP"), "the job in the caption");
    let busbw = std::fs::read_to_string(out.join("busbw.svg")).unwrap();
    assert!(
        busbw.contains("GB/s per direction"),
        "unit and direction on the axis"
    );
    // Dark theme, one chart, a width.
    let out2 = d.join("dark");
    let o = run(&[
        "render",
        &f,
        "--out",
        &out2.to_string_lossy(),
        "--theme",
        "dark",
        "--only",
        "hierarchy",
        "--width",
        "600",
    ]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let files: Vec<_> = std::fs::read_dir(&out2).unwrap().collect();
    assert_eq!(files.len(), 1);
    assert!(std::fs::read_to_string(out2.join("hierarchy.svg"))
        .unwrap()
        .contains("width=\"600\""));
    // Errors: unknown chart, bad scenario; nothing written.
    let o = run(&[
        "render",
        &f,
        "--out",
        &d.join("x").to_string_lossy(),
        "--only",
        "pie",
    ]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .starts_with("error: --only: no chart \"pie\"; allowed: busbw, hierarchy, topology, step, mfu, memory"),
        "{}",
        o.stderr
    );
    let o = run_with_stdin(
        &["render", "-", "--out", &d.join("y").to_string_lossy()],
        r#"{"cluster":{"nodes":-1}}"#,
    );
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.starts_with("error: <stdin>: cluster.nodes:"),
        "{}",
        o.stderr
    );
    assert!(
        !d.join("y").exists(),
        "no output directory for a bad scenario"
    );
}

#[test]
fn link_round_trips_through_the_cli() {
    let d = tmp("link");
    let f = scenario_file(&d, B200);
    let o = run(&["link", &f]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let link = o.stdout.trim().to_string();
    assert!(link.starts_with("v1.") && link.len() < 80, "{link}");
    let o = run(&["link", "--decode", &link]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let back: Value = serde_json::from_str(&o.stdout).expect("JSON");
    assert_eq!(back["cluster"]["gpu"], "b200");
    assert_eq!(back["cluster"]["nodes"], 16);
    // The decoded JSON is a scenario file again: same link.
    let f2 = scenario_file(&tmp("link2"), &o.stdout);
    assert_eq!(run(&["link", &f2]).stdout.trim(), link);
    // Default scenario: the shortest link.
    assert_eq!(run_with_stdin(&["link", "-"], "{}").stdout, "v1.e30\n");
    // Full URLs for pages and iframes.
    let o = run(&[
        "link",
        &f,
        "--base",
        "https://example.org/tools/fabricscope",
        "--embed",
        "busbw",
    ]);
    assert_eq!(
        o.stdout.trim(),
        format!("https://example.org/tools/fabricscope/embed.html?embed=busbw#s={link}")
    );
    let o = run(&[
        "link",
        &f,
        "--base",
        "https://example.org/tools/fabricscope/",
    ]);
    assert_eq!(
        o.stdout.trim(),
        format!("https://example.org/tools/fabricscope/#s={link}")
    );
    // A damaged link is an error naming the field.
    let o = run(&["link", "--decode", "v1.eyJuIjoiZm91ciJ9"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .starts_with("error: --decode: cluster.nodes: invalid type"),
        "{}",
        o.stderr
    );
    let o = run(&["link", "--decode", "garbage"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(o.stderr.lines().count(), 1);
}

/// Two to four files render the comparison charts, each design named and drawn in its own
/// colour; more than four are refused by the argument parser.
#[test]
fn render_compares_several_scenario_files() {
    let d = tmp("compare");
    let ib = d.join("ib.json");
    std::fs::write(&ib, r#"{"cluster":{"nodes":16}}"#).unwrap();
    let roce = d.join("roce.json");
    std::fs::write(&roce, r#"{"cluster":{"nodes":16,"nic":"roce-400"}}"#).unwrap();
    let out = d.join("cmp");
    let (a, b) = (ib.to_string_lossy().into_owned(), roce.to_string_lossy().into_owned());
    let o = run(&["render", &a, &b, "--out", &out.to_string_lossy()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for id in ["compare-busbw", "compare-hierarchy", "compare-step", "compare-memory", "compare-scaling-busbw", "compare-scaling-step"] {
        let svg = std::fs::read_to_string(out.join(format!("{id}.svg"))).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(svg.contains("A · H100 · 8x NDR IB") && svg.contains("B · H100 · 8x 400G RoCE"), "{id} names both designs");
    }
    let o = run(&["render", &a, &b, "--only", "busbw", "--out", &out.to_string_lossy()]);
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("compare-busbw"), "{}", o.stderr);
    let five = [a.as_str(), &b, &a, &b, &a];
    let o = run(&[&["render"][..], &five[..], &["--out", &out.to_string_lossy()][..]].concat());
    assert_ne!(o.code, Some(0), "five designs are refused");
}
