//! The Learn page's door into the model: functions learn.html's `teach.js` calls (through
//! Trunk's `window.wasmBindings`) to plan a played collective, draw one of its frames, answer
//! a lesson step and compare algorithms. No model math here; the page itself is plain DOM in
//! teach.js. Only the Learn wasm exports these (the explorer's wasm does not carry them).

use fabricscope_charts::teach::{link_names, teach_frame, LinkNames};
use fabricscope_charts::Theme;
use fabricscope_model::link::{decode, find_in_url};
use fabricscope_teach::{lesson, schedule, unavailable, Instance, Play, Schedule};
use fabricscope_model::units::{Bytes, Micros};
use fabricscope_model::{Cluster, Topology};
use std::cell::RefCell;
use std::fmt::Write;
use wasm_bindgen::prelude::wasm_bindgen;

thread_local! {
    /// The schedule being played and its link names (one at a time).
    static PLAYING: RefCell<Option<(Schedule, String, String)>> = const { RefCell::new(None) };
}

/// The cluster of the page's link (`?…` and `#…` as in `location`), default when none.
fn cluster_of(query: &str, hash: &str) -> Cluster {
    find_in_url(query, hash).map(|l| decode(l).scenario.cluster).unwrap_or_default()
}

/// A JSON string literal (through Value's Display: the one JSON writer the page carries).
fn js(s: &str) -> String {
    serde_json::Value::String(s.into()).to_string()
}

/// What NCCL runs for `play` on the whole design (`topo`) with `bytes`: the forced algorithm's
/// time (the Algorithms table's) and its channels, as JSON, or `null` (AllToAll, or NCCL cannot
/// run it on this design).
fn nccl_json(play: Play, topo: &Topology, bytes: Bytes) -> String {
    use fabricscope_model::{AlgoChoice, Collective, Comm, ProtoChoice};
    let algo = match play {
        Play::Ring => AlgoChoice::Ring,
        Play::Tree => AlgoChoice::Tree,
        Play::Nvls => AlgoChoice::Nvls,
        Play::NvlsTree => AlgoChoice::NvlsTree,
        Play::AllToAll => return "null".into(),
    };
    let run = Comm::new(topo, topo.whole()).and_then(|c| c.predict(Collective::AllReduce, bytes, algo, ProtoChoice::Auto).map(|p| (c.channels(p.algorithm), p)));
    match run {
        Ok((channels, p)) => format!("{{\"algorithm\":\"{}\",\"protocol\":\"{}\",\"channels\":{channels},\"time\":{},\"ranks\":{}}}", p.algorithm, p.protocol, p.time.0, p.ranks),
        Err(_) => "null".into(),
    }
}

fn plan_json(s: &Schedule, topo: &Topology, asked: Bytes) -> String {
    let inst = Instance::of(topo);
    let mut o = String::from("{\"plays\":[");
    for (i, p) in Play::ALL.into_iter().enumerate() {
        let why = unavailable(p, &inst).map_or("null".to_string(), js);
        let _ = write!(o, "{}{{\"id\":\"{}\",\"why\":{why}}}", if i > 0 { "," } else { "" }, p.id());
    }
    let (what, formula) = s.play.formula();
    let _ = write!(
        o,
        "],\"reduced\":{},\"nccl\":{},\"total\":{},\"expected\":{},\"what\":{},\"formula\":{},\"ranks\":{},\"domains\":{},\"bytes\":{},\"steps\":[",
        schedule::reduction(topo, s).map_or("null".to_string(), |r| js(&r)),
        nccl_json(s.play, topo, asked),
        s.total().0,
        s.expected(),
        js(what),
        js(formula),
        s.instance.ranks(),
        s.instance.domains,
        s.bytes.0
    );
    for i in 0..s.steps.len() {
        let _ = write!(o, "{}{{\"start\":{},\"text\":{}}}", if i > 0 { "," } else { "" }, s.start_of(i).0, js(&s.describe(i)));
    }
    o.push_str("]}");
    o
}

/// Plans `play` (ring, tree, nvls, nvlstree, alltoall) with `bytes` per GPU on a small copy of
/// the page's cluster: JSON with the steps (start µs, transcript line), the total, the
/// formula and its value, and which algorithms this hardware can play (and why not).
#[wasm_bindgen]
pub fn teach_plan(query: &str, hash: &str, play: &str, bytes: f64) -> String {
    let topo = match cluster_of(query, hash).topology() {
        Ok(t) => t,
        Err(e) => return format!("{{\"error\":{}}}", js(&e.message)),
    };
    let play = Play::from_id(play).unwrap_or(Play::Ring);
    let asked = Bytes(bytes.clamp(1024.0, 1e12) as u64);
    match schedule(play, Instance::of(&topo), asked) {
        Ok(s) => {
            let json = plan_json(&s, &topo, asked);
            let (up, nic) = link_names(&topo);
            PLAYING.with(|p| *p.borrow_mut() = Some((s, up, nic)));
            json
        }
        Err(e) => {
            // Still say which algorithms can play, so the page can offer them.
            let ring = schedule(Play::Ring, Instance::of(&topo), Bytes(1 << 20));
            let plays = ring.map(|s| plan_json(&s, &topo, asked)).unwrap_or_default();
            let plays = plays.split("],\"total\"").next().unwrap_or("{\"plays\":[");
            format!("{plays}],\"error\":{}}}", js(&e.message))
        }
    }
}

/// The planned schedule's frame at `t` µs, `width` px wide: the SVG and, in a comment-free
/// prefix `measured|step|` the counter's bytes and the step under way.
#[wasm_bindgen]
pub fn teach_frame_at(t: f64, dark: bool, width: u32) -> String {
    PLAYING.with(|p| match &*p.borrow() {
        Some((s, up, nic)) => {
            let f = s.frame(Micros(t.max(0.0)));
            let svg = teach_frame(s, &f, &LinkNames { scale_up: up, nic }, &Theme::for_dark(dark), width);
            format!("{}|{}|{}", s.measured(&f), f.step, svg)
        }
        None => String::from("0|0|"),
    })
}

/// Answers a lesson step (its JSON) on its own cluster or the page's: JSON with `value`,
/// `text`, `choice` (index of the right option) and `values`, or `error`.
#[wasm_bindgen]
pub fn teach_answer(step: &str, query: &str, hash: &str) -> String {
    match lesson::answer_json(step, &cluster_of(query, hash)) {
        Ok(a) => {
            let num = |v: f64| if v.is_finite() { v.to_string() } else { "null".into() };
            let values: Vec<String> = a.values.iter().map(|v| num(*v)).collect();
            format!(
                "{{\"value\":{},\"text\":{},\"choice\":{},\"values\":[{}]}}",
                num(a.value),
                js(&a.text),
                a.choice.map_or("null".into(), |c| c.to_string()),
                values.join(",")
            )
        }
        Err(e) => format!("{{\"error\":{}}}", js(&e.message)),
    }
}

thread_local! {
    /// The last Report drawn by [`teach_algos`] and the link it came from.
    static REPORT: RefCell<Option<(String, fabricscope_model::Report)>> = const { RefCell::new(None) };
}

/// Every algorithm NCCL could run for the page's collective on the whole cluster at `bytes`
/// (forced with protocol `proto`: auto, ll, ll128, simple): JSON rows with each one's time,
/// busbw, latency and bandwidth terms or the reason it cannot run, NCCL's choice and why;
/// with `width` > 0 also the throughput chart with each algorithm's curve over NCCL's.
#[wasm_bindgen]
pub fn teach_algos(query: &str, hash: &str, bytes: f64, proto: &str, width: u32, dark: bool) -> String {
    use fabricscope_teach::algos::{compare, curves, reason};
    use fabricscope_model::{sweep_sizes, Comm, ProtoChoice, SizeRange, YAxis};
    let link = find_in_url(query, hash).unwrap_or("");
    let mut s = decode(link).scenario;
    let op = s.view.selected_op;
    let bytes = Bytes(bytes.clamp(8.0, 16e9) as u64);
    let mut run = || -> Result<String, String> {
        let topo = s.cluster.topology().map_err(|e| e.message)?;
        let comm = Comm::new(&topo, topo.whole()).map_err(|e| e.message)?;
        let (auto, rows) = compare(&comm, op, bytes, ProtoChoice::from_id(proto).unwrap_or_default()).map_err(|e| e.message)?;
        let mut o = format!("{{\"op\":{},\"reason\":{},\"rows\":[", js(op.name()), js(&reason(&auto, &rows)));
        let row = |t: &fabricscope_teach::algos::Terms| {
            let p = &t.prediction;
            format!("\"algorithm\":\"{}\",\"protocol\":\"{}\",\"time\":{},\"busbw\":{},\"lat\":{},\"bw\":{}", p.algorithm, p.protocol, p.time.0, p.busbw.0, t.latency.0, t.bandwidth)
        };
        for (i, r) in rows.iter().enumerate() {
            let body = match &r.run {
                Ok(t) => row(t),
                Err(why) => format!("\"why\":{}", js(why)),
            };
            let _ = write!(o, "{}{{\"algo\":\"{}\",{body}}}", if i > 0 { "," } else { "" }, r.algo.id());
        }
        let _ = write!(o, "],\"auto\":{{{}}}", row(&auto));
        if width > 0 {
            s.view.sizes = SizeRange::All;
            s.view.y_axis = YAxis::Log;
            s.view.key_bytes = bytes;
            s.view.ops = vec![op];
            let sizes: Vec<Bytes> = sweep_sizes(s.view.min_bytes, s.view.max_bytes).collect();
            let extra = curves(&comm, op, &sizes, s.view.algbw)
                .into_iter()
                .map(|(a, points)| fabricscope_charts::Series { label: format!("{} forced", a.id()), points, band: Vec::new() })
                .collect();
            let svg = REPORT.with(|c| {
                let mut c = c.borrow_mut();
                if c.as_ref().is_none_or(|(l, _)| l != link) {
                    *c = fabricscope_model::evaluate(&s).ok().map(|r| (link.to_string(), r));
                }
                c.as_ref().map(|(_, r)| fabricscope_charts::report::throughput_chart_with(r, &s.view, &Theme::for_dark(dark), width, 420, width < 600, extra))
            });
            let _ = write!(o, ",\"svg\":{}", js(&svg.unwrap_or_default()));
        }
        o.push('}');
        Ok(o)
    };
    run().unwrap_or_else(|e| format!("{{\"error\":{}}}", js(&e)))
}
