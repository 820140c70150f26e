//! Lessons with predict-then-reveal: the parts of a lesson step the model reads (its cluster,
//! what to reveal, the choices to weigh) and the answers it computes. The file format is
//! documented in assets/lessons/README.md; the page's engine shows the rest as text.

use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::topology::{Cluster, Placement, Topology};
use crate::units::{parse_size, Bytes};
use serde::{Deserialize, Serialize};

/// The lesson file format this build reads (`"version"` in the file).
pub const LESSON_VERSION: u32 = 1;

/// A number (or an algorithm's name) the model computes on a cluster.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "measure", rename_all = "snake_case", deny_unknown_fields)]
pub enum Measure {
    /// Per-GPU, per-direction bandwidth of tier `a` divided by tier `b` (ids: hbm, scale_up,
    /// pcie, nic, leaf, spine, core).
    TierRatio { a: String, b: String, cluster: Option<Cluster> },
    /// nccl-tests busbw in GB/s per direction.
    Busbw { op: Collective, size: String, #[serde(default)] group: Group, #[serde(default)] algo: AlgoChoice, cluster: Option<Cluster> },
    /// Time of one operation in µs, as nccl-tests would measure it.
    Time { op: Collective, size: String, #[serde(default)] group: Group, #[serde(default)] algo: AlgoChoice, cluster: Option<Cluster> },
    /// The smallest power-of-two size (bytes, 8 B to 16 GiB) at which NCCL picks `algo`.
    FirstSize { op: Collective, algo: AlgoChoice, #[serde(default)] group: Group, cluster: Option<Cluster> },
    /// NCCL's algorithm at this size (text: "Ring", "NVLS", ...).
    Algorithm { op: Collective, size: String, #[serde(default)] group: Group, cluster: Option<Cluster> },
}

/// Which GPUs run the collective: all of them, or `ranks` with `per_domain` in each domain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub ranks: Option<u32>,
    pub per_domain: Option<u32>,
}

/// What a step reveals: a measure, or the ratio of two.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reveal {
    pub value: Measure,
    pub over: Option<Measure>,
}

/// One option of a choice question; `value` lets the model decide which is right.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    pub label: String,
    /// Matches an [`Measure::Algorithm`] answer (case-insensitive), for algorithm questions.
    pub id: Option<String>,
    pub value: Option<Reveal>,
}

/// The model's part of a lesson step.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct StepSpec {
    /// The step's cluster; absent = the design on the page.
    pub cluster: Option<Cluster>,
    pub reveal: Option<Reveal>,
    #[serde(default)]
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

fn size(s: &str) -> Result<Bytes> {
    parse_size(s).map_err(|e| ModelError::new("size", e.0))
}

enum Value {
    Num(f64),
    Text(String),
}

impl Measure {
    fn eval(&self, base: &Topology) -> Result<Value> {
        let own;
        let topo = match self.cluster() {
            Some(c) => {
                own = c.topology()?;
                &own
            }
            None => base,
        };
        match self {
            Measure::TierRatio { a, b, .. } => {
                let bw = |id: &str| {
                    topo.tiers.iter().find(|t| tier_id(t.kind) == id).map(|t| t.bw_per_gpu.0).ok_or_else(|| {
                        ModelError::new("tier", format!("this cluster has no tier {id}; allowed: hbm, scale_up, pcie, nic, leaf, spine, core"))
                    })
                };
                Ok(Value::Num(bw(a)? / bw(b)?))
            }
            Measure::Busbw { op, size: s, group, algo, .. } | Measure::Time { op, size: s, group, algo, .. } => {
                let p = Comm::new(topo, placement(topo, *group))?.predict(*op, size(s)?, *algo, ProtoChoice::Auto)?;
                Ok(Value::Num(if matches!(self, Measure::Busbw { .. }) { p.busbw.0 } else { p.time.0 }))
            }
            Measure::Algorithm { op, size: s, group, .. } => {
                let p = Comm::new(topo, placement(topo, *group))?.predict(*op, size(s)?, AlgoChoice::Auto, ProtoChoice::Auto)?;
                Ok(Value::Text(p.algorithm.to_string()))
            }
            Measure::FirstSize { op, algo, group, .. } => {
                let comm = Comm::new(topo, placement(topo, *group))?;
                let want = comm.predict(*op, Bytes(1 << 30), *algo, ProtoChoice::Auto)?.algorithm;
                let hit = crate::collective::sweep_sizes(Bytes(8), Bytes(16 << 30))
                    .find(|b| comm.predict(*op, *b, AlgoChoice::Auto, ProtoChoice::Auto).is_ok_and(|p| p.algorithm == want));
                Ok(Value::Num(hit.map_or(f64::NAN, |b| b.as_f64())))
            }
        }
    }
    fn cluster(&self) -> Option<&Cluster> {
        match self {
            Measure::TierRatio { cluster, .. }
            | Measure::Busbw { cluster, .. }
            | Measure::Time { cluster, .. }
            | Measure::FirstSize { cluster, .. }
            | Measure::Algorithm { cluster, .. } => cluster.as_ref(),
        }
    }
}

impl Reveal {
    fn eval(&self, topo: &Topology) -> Result<Value> {
        let v = self.value.eval(topo)?;
        match (&self.over, v) {
            (None, v) => Ok(v),
            (Some(o), Value::Num(a)) => match o.eval(topo)? {
                Value::Num(b) => Ok(Value::Num(a / b)),
                Value::Text(_) => Err(ModelError::new("over", "a ratio needs two numbers")),
            },
            (Some(_), Value::Text(_)) => Err(ModelError::new("over", "a ratio needs two numbers")),
        }
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

/// Computes the answer of a step on its cluster (or `page`, the design on the page).
pub fn answer(step: &StepSpec, page: &Cluster) -> Result<Answer> {
    let topo = step.cluster.as_ref().unwrap_or(page).topology()?;
    let (value, text) = match step.reveal.as_ref().map(|r| r.eval(&topo)).transpose()? {
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
    let choice = if values.iter().any(|v| v.is_finite()) {
        let max = step.pick.as_deref() != Some("min");
        let better = |a: f64, b: f64| if max { a > b } else { a < b };
        (0..values.len()).filter(|i| values[*i].is_finite()).reduce(|a, b| if better(values[b], values[a]) { b } else { a })
    } else {
        step.choices.iter().position(|c| c.id.as_deref().is_some_and(|id| id.eq_ignore_ascii_case(&text)))
    };
    Ok(Answer { value, text, choice, values })
}

/// Parses a step (the JSON of one element of a lesson's `steps`) and answers it.
pub fn answer_json(step: &str, page: &Cluster) -> Result<Answer> {
    let spec: StepSpec = serde_json::from_str(step).map_err(|e| ModelError::new("lesson", format!("a lesson step the model cannot read: {e}")))?;
    answer(&spec, page)
}
