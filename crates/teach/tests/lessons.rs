//! The lesson files under assets/lessons: each is a version-1 lesson the model can answer at
//! every step, and the answers are the facts the lessons teach.

use fabricscope_teach::lesson::{answer_json, Answer, LESSON_VERSION};
use fabricscope_model::Cluster;
use serde_json::Value;

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/lessons")
}

fn answers(id: &str) -> Vec<Answer> {
    let text = std::fs::read_to_string(dir().join(format!("{id}.json"))).unwrap();
    let l: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(l["format"], "fabricscope-lesson", "{id}");
    assert_eq!(l["version"], LESSON_VERSION as u64, "{id}");
    assert_eq!(l["id"], id);
    let steps = l["steps"].as_array().unwrap();
    steps
        .iter()
        .map(|s| {
            for k in ["question", "explain", "guess"] {
                assert!(s.get(k).is_some(), "{id}: a step without {k}");
            }
            let a = answer_json(&s.to_string(), &Cluster::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
            if s["guess"]["kind"] == "slider" {
                let (lo, hi) = (s["guess"]["min"].as_f64().unwrap(), s["guess"]["max"].as_f64().unwrap());
                assert!(a.value >= lo && a.value <= hi, "{id}: answer {} outside the slider {lo}..{hi}", a.value);
            } else {
                assert!(a.choice.is_some_and(|c| c < s["choices"].as_array().unwrap().len()), "{id}: no right choice");
            }
            a
        })
        .collect()
}

#[test]
fn every_listed_lesson_exists_and_answers() {
    let index: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("index.json")).unwrap()).unwrap();
    let ids: Vec<&str> = index.as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap()).collect();
    assert!((6..=9).contains(&ids.len()));
    for id in ids {
        answers(id);
    }
}

#[test]
fn nvlink4_is_nine_times_ndr_per_direction() {
    // NVLink4: 900 GB/s bidirectional per H100 (NVIDIA H100 datasheet); NDR: 400 Gb/s = 50 GB/s.
    let a = answers("nvlink-vs-ib");
    assert_eq!(a[0].value, 9.0);
    assert_eq!(a[1].choice, Some(2));
}

#[test]
fn lessons_teach_what_they_say() {
    // TP inside the node is faster; across two nodes it costs more than in one.
    let tp = answers("tp-in-domain");
    assert_eq!(tp[0].choice, Some(0));
    // Issue 37: the lesson shows the figures it asks about, each with its 90% interval, the
    // same numbers the choice was decided on.
    assert_eq!(tp[0].shown.len(), 2);
    for (shown, v) in tp[0].shown.iter().zip(&tp[0].values) {
        assert!(shown.contains(" µs (90%: ") && v.is_finite(), "{shown}");
    }
    assert!(tp[0].values[0] < tp[0].values[1]);
    assert!(tp[1].value > 100.0);
    // A 3:1 spine leaves the data-parallel AllReduce whole and cuts AllToAll.
    let o = answers("oversubscribed-spine");
    assert!(o[0].value > 95.0, "{}", o[0].value);
    assert!(o[1].value < 80.0, "{}", o[1].value);
    // Host staging without P2P costs about half the bandwidth.
    let p = answers("pcie-no-p2p");
    assert!(p[0].value < 75.0, "{}", p[0].value);
    assert_eq!(p[1].text, "Ring");
    // NVLS at 1 GiB on one H100 node; the crossover is between 64 KiB and 64 MiB.
    let n = answers("when-nvls-wins");
    assert_eq!(n[0].text, "NVLS");
    assert!((16.0..=26.0).contains(&n[1].value), "{}", n[1].value);
    // A power of two reads as a size (issue 20: it read "21.0 (2^x bytes)").
    let k = n[1].value as u32;
    let size = if k >= 20 { format!("{} MiB", 1u64 << (k - 20)) } else { format!("{} KiB", 1u64 << (k - 10)) };
    assert_eq!(n[1].text, format!("{size} = 2^{k} bytes"));
    // Long rings lose busbw; a tree beats the ring at 64 KiB on 64 nodes.
    let r = answers("ring-scaling");
    assert!(r[0].value < 100.0);
    assert_eq!(r[1].choice, Some(1));
}

#[test]
fn the_glossary_defines_every_term_the_page_links() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let g: Value = serde_json::from_str(&std::fs::read_to_string(root.join("assets/glossary.json")).unwrap()).unwrap();
    let terms = g["terms"].as_array().unwrap();
    let ids: Vec<&str> = terms.iter().map(|t| t["id"].as_str().unwrap()).collect();
    for t in terms {
        assert!(t["text"].as_str().is_some_and(|s| s.len() > 40), "{t}");
        assert!(t.get("unit").is_some(), "{t}");
    }
    for must in ["busbw", "algbw", "nvls", "sharp", "collnet", "rail", "oversubscription", "mfu", "hfu", "zero"] {
        assert!(ids.contains(&must), "{must}");
    }
    // Every data-g="…" link in the page's sources names a term that exists.
    let mut files = vec![root.join("index.html"), root.join("learn.html"), root.join("assets/pages.js")];
    for dir in ["src", "src/widgets", "src/plumbing", "src/pages/explorer", "src/pages/compare", "src/pages/serving", "src/pages/congestion", "src/pages/check", "src/pages/learn", "src/pages/embed"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    for f in files.iter().filter(|f| f.is_file()) {
        let text = std::fs::read_to_string(f).unwrap();
        // A value computed in Rust (data-g={id}) is checked where it is written, as a literal.
        for part in text.split("data-g=").skip(1).filter(|p| !p.starts_with('{')) {
            let id: String = part.trim_start_matches(['"', '\\']).chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            assert!(ids.contains(&id.as_str()), "{}: data-g={id} is not in the glossary", f.display());
        }
        // The web app's terms: term("<id>", "<word>") (src/pages/explorer/formula.rs).
        for part in text.split("term(\"").skip(1) {
            let id: String = part.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            assert!(ids.contains(&id.as_str()), "{}: term {id} is not in the glossary", f.display());
        }
    }
}

/// The serving lesson (issue 24): its answers are the serving model's numbers, its texts are
/// filled by the model (no placeholder left, none unknown), and it teaches what it says.
#[test]
fn the_serving_lesson_follows_the_serving_model() {
    use fabricscope_serving::step::Server;
    use fabricscope_serving::{serving_preset, Deployment};
    use fabricscope_teach::lesson::fill;
    let a = answers("serving-tp-kv");
    let text = std::fs::read_to_string(dir().join("serving-tp-kv.json")).unwrap();
    let l: Value = serde_json::from_str(&text).unwrap();
    let steps = l["steps"].as_array().unwrap();
    for (i, s) in steps.iter().enumerate() {
        for k in ["scenario", "explain"] {
            let t = fill(s[k].as_str().unwrap(), s, &Cluster::default()).unwrap_or_else(|e| panic!("step {i} {k}: {e}"));
            assert!(!t.contains('{') && !t.contains('}'), "step {i} {k}: {t}");
        }
    }
    // The same deployments evaluated by crates/serving directly.
    let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
    let m = serving_preset("llama3-70b").unwrap();
    let eval = |tp: u32| Server::new(&topo, &m).unwrap().evaluate(&Deployment { tp, batch: 1, context: 2048, ..Deployment::default() }).unwrap();
    let (t8, t16) = (eval(8), eval(16));
    // Step 1: one all-reduce across the NIC costs several times one inside NVLink.
    assert!(a[0].value > 1.5, "{}", a[0].value);
    // Step 2: TP 16's all-reduces per token are the serving step's, and more than TP 8's.
    assert!((a[1].value - t16.breakdown.tp_allreduce).abs() < 1e-9, "{} vs {}", a[1].value, t16.breakdown.tp_allreduce);
    assert!(t16.breakdown.tp_allreduce > t8.breakdown.tp_allreduce);
    assert!(t16.network_share > t8.network_share);
    // Step 3: the right choice is the layout with the smaller TPOT, whichever the model says.
    assert_eq!(a[2].choice, Some(if t8.tpot_ms < t16.tpot_ms { 0 } else { 1 }));
    assert_eq!(a[2].values, vec![t8.tpot_ms.unwrap(), t16.tpot_ms.unwrap()]);
    // Issue 37: each layout's TPOT is shown with its unit and the 90% interval `serve` states.
    assert_eq!(a[2].shown.len(), 2);
    for s in &a[2].shown {
        assert!(s.contains(" ms (90%: "), "{s}");
    }
    // Step 4: 8192 tokens x 327,680 bytes (2 x 80 layers x 8 KV heads x 128 x 2 bytes).
    assert!((a[3].value - 8192.0 * 327_680.0 / 1e6).abs() < 1e-6, "{}", a[3].value);
    // Step 5: the handoff is a small share of the first token with all 8 NICs.
    let d = Deployment { tp: 8, batch: 1, context: 8192, input_len: 8192, disaggregated: true, ..Deployment::default() };
    let r = Server::new(&topo, &m).unwrap().evaluate(&d).unwrap();
    let share = 100.0 * r.breakdown.kv_transfer / r.ttft_ms.unwrap();
    assert!((a[4].value - share).abs() < 1e-9 && share > 0.0 && share < 10.0, "{} vs {share}", a[4].value);
    // The animations name schedules the player knows, and play on the steps' two nodes.
    for s in steps.iter().filter(|s| s.get("animation").is_some()) {
        let play = fabricscope_teach::Play::from_id(s["animation"]["play"].as_str().unwrap()).unwrap();
        let c = fabricscope_teach::lesson::step_cluster(s).unwrap().unwrap();
        let inst = fabricscope_teach::Instance::of(&c.topology().unwrap());
        assert_eq!(fabricscope_teach::unavailable(play, &inst), None);
    }
    // The first step plays the decode all-reduce at the size the model sends: 16 KiB.
    assert_eq!(steps[0]["animation"]["size"], "16K");
    assert_eq!(fill("{bytes}", &steps[0], &Cluster::default()).unwrap(), "16384");
    // Issue 38: placeholders are counted before any is computed; past the cap, refused.
    let cap = fabricscope_teach::lesson::MAX_PLACEHOLDERS;
    assert!(fill(&"{bytes}".repeat(cap), &steps[0], &Cluster::default()).is_ok());
    let e = fill(&"{bytes}".repeat(20_000), &steps[0], &Cluster::default()).unwrap_err();
    assert!(e.message.contains("20000 placeholders") && e.message.contains(&format!("at most {cap}")), "{}", e.message);
    // The handoff plays each of the 8 prefill GPUs' share of the prompt's KV cache.
    let shard = fabricscope_model::units::parse_size(steps[3]["animation"]["size"].as_str().unwrap()).unwrap();
    assert_eq!(shard.0 as f64 * 8.0, a[3].value * 1e6);
}

/// The goodput lesson (issue 41): its answers are the goodput model's, its texts are filled by
/// the model, and it teaches what it says: a hundred times the GPUs stop about a hundred times
/// as often, the checkpoint interval follows Young's square root, and at 100,000 GPUs the
/// restart decides the share of time training.
#[test]
fn the_failures_lesson_follows_the_goodput_model() {
    use fabricscope_teach::lesson::fill;
    let a = answers("failures-at-scale");
    let text = std::fs::read_to_string(dir().join("failures-at-scale.json")).unwrap();
    let l: Value = serde_json::from_str(&text).unwrap();
    for (i, s) in l["steps"].as_array().unwrap().iter().enumerate() {
        for k in ["scenario", "explain"] {
            let t = fill(s[k].as_str().unwrap(), s, &Cluster::default()).unwrap_or_else(|e| panic!("step {i} {k}: {e}"));
            assert!(!t.contains('{') && !t.contains('}'), "step {i} {k}: {t}");
        }
    }
    let (small_h, large_min, interval_min, ettr10) = (a[0].value, a[1].value, a[2].value, a[3].value);
    // 12,500 nodes against 128: about 98x the parts, about 98x the stops (switch tiers add a few).
    let ratio = small_h * 60.0 / large_min;
    assert!((ratio / (12_500.0 / 128.0) - 1.0).abs() < 0.15, "{small_h} h vs {large_min} min: {ratio}x");
    assert!(large_min < 60.0, "a 100,000-GPU job stops more than hourly: {large_min} min");
    // Young: sqrt(2 x stall x MTTF), within Daly's correction.
    let stall_s = 6.3;
    let young = (2.0 * stall_s * large_min * 60.0).sqrt() / 60.0;
    assert!((interval_min / young - 1.0).abs() < 0.15 && interval_min < 10.0, "{interval_min} vs {young}");
    // Restarts of 10 minutes against a stop every ~40: most of what is lost.
    assert!(ettr10 < 90.0 && ettr10 > 50.0, "{ettr10}");
}
