//! `fabricscope teach`: the transcript and the bytes counter against the textbook formulas,
//! the frame written as SVG, and what cannot be played refused with the reason.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabricscope");

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN).args(args).output().expect("the fabricscope binary runs");
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_ring_on_two_nodes_sends_two_n_minus_one_over_n() {
    // 2 x 8 GPUs, 16 MiB each: 2(n-1) = 30 steps, 2(16-1)/16 x 16 MiB = 30 MiB per GPU.
    let (code, out, err) = run(&["teach", "--nodes", "2"]);
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 31, "{out}");
    assert!(lines[0].starts_with("Step 1 of 30, reduce-scatter: 16 chunks of 1M move, 2 over the network"), "{}", lines[0]);
    assert_eq!(lines[30], "bytes each GPU sent: 30.00 MiB (2(n-1)/n x S = 30.00 MiB)");
}

#[test]
fn all_to_all_sends_n_minus_one_over_n_and_the_frame_is_svg() {
    let dir = std::env::temp_dir().join(format!("fabricscope-teach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("a2a.svg");
    let (code, out, err) = run(&["teach", "--play", "alltoall", "--nodes", "2", "--gpus-per-node", "4", "--nics-per-node", "4", "--bytes", "8K", "--svg", svg.to_str().unwrap(), "--theme", "dark"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("bytes each GPU sent: 7.0 KiB ((n-1)/n x S = 7.0 KiB)"), "{out}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.matches("<circle").count() == 8, "{}", &text[..200.min(text.len())]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn what_the_hardware_cannot_play_is_refused_with_the_reason() {
    let (code, _, err) = run(&["teach", "--play", "nvls", "--gpu", "a100", "--scale-up", "nvlink3", "--nic", "ib-hdr"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("--play") && err.contains("NVSwitch"), "{err}");
    let (code, _, err) = run(&["teach", "--play", "bogus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("ring, tree, nvls, nvlstree, alltoall"), "{err}");
}
