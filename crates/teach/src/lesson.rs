//! Lessons with predict-then-reveal: the parts of a lesson step the model reads (its cluster,
//! what to reveal, the choices to weigh) and the answers it computes. The file format is
//! documented in assets/lessons/README.md; the page's engine shows the rest as text.

use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::topology::{Cluster, Placement, Topology};
use crate::units::{parse_size, Bytes};
use serde::Serialize;
use serde_json::Value as Json;

/// The lesson file format this build reads (`"version"` in the file).
pub const LESSON_VERSION: u32 = 1;

/// What a [`Measure`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Per-GPU, per-direction bandwidth of tier `a` divided by tier `b` (ids: hbm, scale_up,
    /// pcie, nic, leaf, spine, core).
    TierRatio,
    /// nccl-tests busbw in GB/s per direction.
    Busbw,
    /// Time of one operation in µs, as nccl-tests would measure it.
    Time,
    /// The smallest power-of-two size (bytes, 8 B to 16 GiB) at which NCCL picks `algo`.
    FirstSize,
    /// NCCL's algorithm at this size (text: "Ring", "NVLS", ...).
    Algorithm,
    /// A serving figure of a served model and layout (crate::serving).
    Serve,
    /// A training job's figure under failures (crate::failures).
    Goodput,
}

/// A number (or an algorithm's name) the model computes on a cluster. One struct for every
/// kind (fields a kind does not read keep their defaults): less code in the page than an enum.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub kind: Kind,
    pub op: Collective,
    pub size: Bytes,
    pub group: Group,
    pub algo: AlgoChoice,
    /// Tiers of [`Kind::TierRatio`].
    pub a: String,
    pub b: String,
    /// Overrides the step's cluster.
    pub cluster: Option<Cluster>,
    /// What [`Kind::Serve`] computes.
    pub serve: Option<crate::serving::ServeSpec>,
    /// What [`Kind::Goodput`] computes.
    pub goodput: Option<crate::failures::GoodputSpec>,
}

/// Which GPUs run the collective: all of them, or `ranks` with `per_domain` in each domain.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    pub ranks: Option<u32>,
    pub per_domain: Option<u32>,
}

/// What a step reveals: a measure, or the ratio of two.
#[derive(Clone, Debug, PartialEq)]
pub struct Reveal {
    pub value: Measure,
    pub over: Option<Measure>,
    /// Multiplies the result (100 shows a ratio in percent).
    pub scale: f64,
    /// Shows log2 of the result (a size as a power of two).
    pub log2: bool,
}

/// One option of a choice question; `value` lets the model decide which is right.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub label: String,
    /// Matches a [`Kind::Algorithm`] answer (case-insensitive), for algorithm questions.
    pub id: Option<String>,
    pub value: Option<Reveal>,
    /// The number this option stands for: the option closest to the revealed number is right.
    pub approx: Option<f64>,
}

/// The model's part of a lesson step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSpec {
    /// The step's cluster; absent = the design on the page.
    pub cluster: Option<Cluster>,
    pub reveal: Option<Reveal>,
    pub choices: Vec<Choice>,
    /// "max" or "min": which option's value is the right answer.
    pub pick: Option<String>,
}

/// A computed answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The revealed number (NaN for a text answer).
    pub value: f64,
    /// Text answers (an algorithm) and the number as it is shown.
    pub text: String,
    /// Index of the right choice, if the step has choices.
    pub choice: Option<usize>,
    /// Each choice's value, as computed.
    pub values: Vec<f64>,
    /// Each choice's value as shown: its unit and, for a collective's time or busbw, its 90%
    /// interval ("312 µs (90%: 280-350)"); empty where the choice has no value.
    pub shown: Vec<String>,
}

fn tier_id(k: crate::topology::TierKind) -> &'static str {
    crate::collective::Bottleneck::Tier(k).id()
}

fn placement(topo: &Topology, g: Group) -> Placement {
    match (g.ranks, g.per_domain) {
        (Some(r), Some(p)) => Placement { ranks: r, per_domain: p },
        (Some(r), None) => topo.first(r),
        _ => topo.whole(),
    }
}


enum Value {
    Num(f64),
    Text(String),
}

impl Measure {
    /// The value as a lesson shows it beside a choice: with its unit and, for a collective's
    /// time or busbw, the 90% interval its prediction states (what `collective --json` gives);
    /// a serving figure with its unit, TPOT and TTFT with the interval `serve --json` gives.
    fn shown(&self, base: &Topology) -> Result<String> {
        if matches!(self.kind, Kind::Busbw | Kind::Time) && self.serve.is_none() && self.goodput.is_none() {
            let own = self.cluster.as_ref().map(Cluster::topology).transpose()?;
            let topo = own.as_ref().unwrap_or(base);
            let p = Comm::new(topo, placement(topo, self.group))?.predict(self.op, self.size, self.algo, ProtoChoice::Auto)?;
            let iv = p.intervals();
            let (v, unit, range) = if self.kind == Kind::Busbw {
                (p.busbw.0, "GB/s", iv.map(|i| (i.busbw_gbps.lo, i.busbw_gbps.hi)))
            } else {
                (p.time.0, "µs", iv.map(|i| (i.time_us.lo, i.time_us.hi)))
            };
            return Ok(format!("{} {unit}{}", show(v), range.map_or(String::new(), |(lo, hi)| format!(" (90%: {}-{})", show(lo), show(hi)))));
        }
        if let Some(s) = &self.serve {
            // A serving figure with its unit and, for TPOT and TTFT, the interval `serve` states.
            let own = self.cluster.as_ref().map(Cluster::topology).transpose()?;
            let topo = own.as_ref().unwrap_or(base);
            let unit = match s.field.unit() {
                "" => String::new(),
                "%" => "%".to_string(),
                u => format!(" {u}"),
            };
            let range = s.interval(topo)?.map_or(String::new(), |(lo, hi)| format!(" (90%: {}-{})", show(lo), show(hi)));
            return Ok(format!("{}{unit}{range}", show(s.eval(topo)?)));
        }
        Ok(match self.eval(base)? {
            Value::Num(v) => show(v),
            Value::Text(t) => t,
        })
    }

    fn eval(&self, base: &Topology) -> Result<Value> {
        let own;
        let topo = match &self.cluster {
            Some(c) => {
                own = c.topology()?;
                &own
            }
            None => base,
        };
        if self.kind == Kind::TierRatio {
            let bw = |id: &str| {
                topo.tiers.iter().find(|t| tier_id(t.kind) == id).map(|t| t.bw_per_gpu.0).ok_or_else(|| {
                    ModelError::new("tier", format!("this cluster has no tier {id}; allowed: hbm, scale_up, pcie, nic, leaf, spine, core"))
                })
            };
            return Ok(Value::Num(bw(&self.a)? / bw(&self.b)?));
        }
        if let Some(s) = &self.serve {
            return Ok(Value::Num(s.eval(topo)?));
        }
        if let Some(g) = &self.goodput {
            return Ok(Value::Num(g.eval(topo)?));
        }
        let comm = Comm::new(topo, placement(topo, self.group))?;
        let run = |b: Bytes, algo| comm.predict(self.op, b, algo, ProtoChoice::Auto);
        Ok(match self.kind {
            Kind::Busbw => Value::Num(run(self.size, self.algo)?.busbw.0),
            Kind::Time => Value::Num(run(self.size, self.algo)?.time.0),
            Kind::Algorithm => Value::Text(run(self.size, AlgoChoice::Auto)?.algorithm.to_string()),
            _ => {
                let want = run(Bytes(1 << 30), self.algo)?.algorithm;
                let hit = crate::collective::sweep_sizes(Bytes(8), Bytes(16 << 30)).find(|b| run(*b, AlgoChoice::Auto).is_ok_and(|p| p.algorithm == want));
                Value::Num(hit.map_or(f64::NAN, |b| b.as_f64()))
            }
        })
    }
}

impl Reveal {
    fn eval(&self, topo: &Topology) -> Result<Value> {
        let v = match (&self.over, self.value.eval(topo)?) {
            (None, v) => v,
            (Some(o), Value::Num(a)) => match o.eval(topo)? {
                Value::Num(b) => Value::Num(a / b),
                Value::Text(_) => return Err(ModelError::new("over", "a ratio needs two numbers")),
            },
            (Some(_), Value::Text(_)) => return Err(ModelError::new("over", "a ratio needs two numbers")),
        };
        Ok(match v {
            Value::Num(x) if self.log2 => Value::Num(x.log2() * self.scale),
            Value::Num(x) => Value::Num(x * self.scale),
            t => t,
        })
    }
}

/// Shows a revealed number with 3 significant figures.
fn show(v: f64) -> String {
    if !v.is_finite() {
        return "none".into();
    }
    let digits = (2 - v.abs().max(1e-9).log10().floor() as i32).clamp(0, 3) as usize;
    format!("{v:.digits$}")
}

/// A size given as its power of two, in words: 21 -> "2 MiB = 2^21 bytes" (a lesson's `log2`
/// reveal; a bare "21.0" reads as nothing). Not a whole power: the number alone.
fn show_pow2(k: f64) -> String {
    if !(0.0..=62.0).contains(&k) || k.fract() != 0.0 {
        return show(k);
    }
    let k = k as u32;
    let (n, unit) = match k {
        40.. => (1u64 << (k - 40), "TiB"),
        30.. => (1 << (k - 30), "GiB"),
        20.. => (1 << (k - 20), "MiB"),
        10.. => (1 << (k - 10), "KiB"),
        _ => (1 << k, "bytes"),
    };
    format!("{n} {unit} = 2^{k} bytes")
}

/// Computes the answer of a step on its cluster (or `page`, the design on the page).
pub fn answer(step: &StepSpec, page: &Cluster) -> Result<Answer> {
    let topo = step.cluster.as_ref().unwrap_or(page).topology()?;
    let (value, text) = match step.reveal.as_ref().map(|r| r.eval(&topo)).transpose()? {
        Some(Value::Num(v)) if step.reveal.as_ref().is_some_and(|r| r.log2 && r.scale == 1.0) => (v, show_pow2(v)),
        Some(Value::Num(v)) => (v, show(v)),
        Some(Value::Text(t)) => (f64::NAN, t),
        None => (f64::NAN, String::new()),
    };
    let mut values = Vec::new();
    for c in &step.choices {
        values.push(match c.value.as_ref().map(|r| r.eval(&topo)).transpose()? {
            Some(Value::Num(v)) => v,
            _ => f64::NAN,
        });
    }
    let near = |c: &Choice| c.approx.map_or(f64::INFINITY, |a| (a - value).abs());
    let choice = if value.is_finite() && step.choices.iter().any(|c| c.approx.is_some()) {
        (0..step.choices.len()).reduce(|a, b| if near(&step.choices[b]) < near(&step.choices[a]) { b } else { a })
    } else if values.iter().any(|v| v.is_finite()) {
        let max = step.pick.as_deref() != Some("min");
        let better = |a: f64, b: f64| if max { a > b } else { a < b };
        (0..values.len()).filter(|i| values[*i].is_finite()).reduce(|a, b| if better(values[b], values[a]) { b } else { a })
    } else {
        step.choices.iter().position(|c| c.id.as_deref().is_some_and(|id| id.eq_ignore_ascii_case(&text)))
    };
    let shown = step.choices.iter().map(|c| c.value.as_ref().map_or(Ok(String::new()), |r| if r.over.is_none() && r.scale == 1.0 && !r.log2 { r.value.shown(&topo) } else { Ok(String::new()) })).collect::<Result<Vec<_>>>()?;
    Ok(Answer { value, text, choice, values, shown })
}

/// Most `{name}` placeholders one text may have (count): a lesson's text names a handful; an
/// imported 240 KB text of placeholders cost a second of model evaluations each time it was filled.
pub const MAX_PLACEHOLDERS: usize = 32;

/// A step's texts with their `{name}` placeholders filled by the model: each name is a REVEAL
/// in the step's `"values"` object, computed on the step's cluster (or `page`) and shown with
/// 3 significant figures. Text without placeholders comes back as it is; a name the step does
/// not define is an error naming it.
pub fn fill(text: &str, step: &Json, page: &Cluster) -> Result<String> {
    if !text.contains('{') {
        return Ok(text.to_string());
    }
    // Each placeholder is a model evaluation: counted before any is computed.
    let n = text.matches('{').count();
    if n > MAX_PLACEHOLDERS {
        return Err(bad(format!("the text has {n} placeholders; a text may have at most {MAX_PLACEHOLDERS}")));
    }
    let topo = cluster(step)?.as_ref().unwrap_or(page).topology()?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('}') else {
            out.push_str(&rest[i..]);
            return Ok(out);
        };
        let name = &rest[i + 1..i + j];
        let spec = step.get("values").and_then(|v| v.get(name)).ok_or_else(|| bad(format!("the text names {{{name}}}, which the step's \"values\" does not define")))?;
        match Reveal::parse(spec)?.eval(&topo)? {
            Value::Num(x) => out.push_str(&show(x)),
            Value::Text(t) => out.push_str(&t),
        }
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses a step (the JSON of one element of a lesson's `steps`) and answers it.
pub fn answer_json(step: &str, page: &Cluster) -> Result<Answer> {
    // from_slice and Value: the one JSON reader the page already carries (link.rs).
    let v: Json = serde_json::from_slice(step.as_bytes()).map_err(|e| bad(format!("not JSON: {e}")))?;
    answer(&StepSpec::parse(&v)?, page)
}

// Hand-written readers over serde_json's Value: the page already carries Value and the
// Scenario deserializer, and derived deserializers for these few types would cost kilobytes.

fn bad(m: String) -> ModelError {
    ModelError::new("lesson", format!("a lesson step the model cannot read: {m}"))
}

fn text<'a>(v: &'a Json, k: &str) -> Result<&'a str> {
    v.get(k).and_then(Json::as_str).ok_or_else(|| bad(format!("\"{k}\" must be text")))
}

/// A step's own cluster (its `"cluster"`), if it names one.
pub fn step_cluster(step: &Json) -> Result<Option<Cluster>> {
    cluster(step)
}

fn cluster(v: &Json) -> Result<Option<Cluster>> {
    match v.get("cluster") {
        None | Some(Json::Null) => Ok(None),
        Some(c) => {
            let mut s = serde_json::Map::new();
            s.insert("cluster".into(), c.clone());
            serde_json::from_value::<crate::Scenario>(Json::Object(s)).map(|s| Some(s.cluster)).map_err(|e| bad(format!("cluster: {e}")))
        }
    }
}

impl Measure {
    fn parse(v: &Json) -> Result<Measure> {
        let kind = match text(v, "measure")? {
            "tier_ratio" => Kind::TierRatio,
            "busbw" => Kind::Busbw,
            "time" => Kind::Time,
            "first_size" => Kind::FirstSize,
            "algorithm" => Kind::Algorithm,
            "serve" => Kind::Serve,
            "goodput" => Kind::Goodput,
            m => return Err(bad(format!("unknown measure {m}; allowed: tier_ratio, busbw, time, first_size, algorithm, serve, goodput"))),
        };
        let word = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or_default();
        let op = match word("op") {
            "" => Collective::AllReduce,
            t => Collective::from_id(t).ok_or_else(|| bad(format!("unknown op {t}; allowed: {}", Collective::ids().join(", "))))?,
        };
        let algo = match word("algo") {
            "" => AlgoChoice::Auto,
            t => AlgoChoice::from_id(t).ok_or_else(|| bad(format!("unknown algo {t}; allowed: auto, ring, tree, nvls, nvlstree, collnet, pat")))?,
        };
        let size = match word("size") {
            "" => Bytes(1 << 30),
            t => parse_size(t).map_err(|e| bad(e.0))?,
        };
        let count = |k: &str| v.get("group").and_then(|g| g.get(k)).and_then(Json::as_u64).map(|x| x.min(u32::MAX as u64) as u32);
        let group = Group { ranks: count("ranks"), per_domain: count("per_domain") };
        let serve = if kind == Kind::Serve { Some(crate::serving::ServeSpec::parse(v)?) } else { None };
        let goodput = if kind == Kind::Goodput { Some(crate::failures::GoodputSpec::parse(v)?) } else { None };
        Ok(Measure { kind, op, size, group, algo, a: word("a").into(), b: word("b").into(), cluster: cluster(v)?, serve, goodput })
    }
}

impl Reveal {
    fn parse(v: &Json) -> Result<Reveal> {
        let value = Measure::parse(v.get("value").ok_or_else(|| bad("a reveal needs a \"value\"".into()))?)?;
        let over = v.get("over").map(Measure::parse).transpose()?;
        let scale = v.get("scale").and_then(Json::as_f64).unwrap_or(1.0);
        Ok(Reveal { value, over, scale, log2: v.get("log2").and_then(Json::as_bool).unwrap_or(false) })
    }
}

impl StepSpec {
    pub fn parse(v: &Json) -> Result<StepSpec> {
        let choices = match v.get("choices").and_then(Json::as_array) {
            None => Vec::new(),
            Some(a) => a
                .iter()
                .map(|c| {
                    Ok(Choice {
                        label: text(c, "label")?.into(),
                        id: c.get("id").and_then(Json::as_str).map(str::to_string),
                        value: c.get("value").map(Reveal::parse).transpose()?,
                        approx: c.get("approx").and_then(Json::as_f64),
                    })
                })
                .collect::<Result<_>>()?,
        };
        Ok(StepSpec {
            cluster: cluster(v)?,
            reveal: v.get("reveal").map(Reveal::parse).transpose()?,
            choices,
            pick: v.get("pick").and_then(Json::as_str).map(str::to_string),
        })
    }
}
