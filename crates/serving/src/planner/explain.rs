//! The planner's sentences: why no deployment meets the targets (which fails first, by how
//! much), and where the fabric is the difference between two layouts.

use crate::planner::output::PlanDeployment;
use fabricscope_model::Topology;

/// The closest miss seen: a deployment's TTFT and TPOT against the targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Closest {
    /// max(TTFT / target, TPOT / target) of the closest deployment, and its figures.
    pub worst: f64,
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub label: String,
    pub gpus: u32,
    /// Lowest TTFT and TPOT any deployment reached (each on its own), ms.
    pub best_ttft_ms: f64,
    pub best_tpot_ms: f64,
    /// Deployments that sustained the rate at all.
    pub stable: u64,
}

impl Closest {
    pub fn new() -> Closest {
        Closest { worst: f64::INFINITY, best_ttft_ms: f64::INFINITY, best_tpot_ms: f64::INFINITY, ..Closest::default() }
    }
    /// Records a deployment that sustains the rate; `label` is built only when it is the closest.
    pub fn see(&mut self, ttft_ms: f64, tpot_ms: f64, targets: (f64, f64), gpus: u32, label: impl FnOnce() -> String) {
        self.stable += 1;
        self.best_ttft_ms = self.best_ttft_ms.min(ttft_ms);
        self.best_tpot_ms = self.best_tpot_ms.min(tpot_ms);
        let worst = (ttft_ms / targets.0).max(tpot_ms / targets.1);
        if worst < self.worst || (worst == self.worst && gpus < self.gpus) {
            *self = Closest { worst, ttft_ms, tpot_ms, label: label(), gpus, ..self.clone() };
        }
    }
}

fn over(v: f64, target: f64) -> String {
    format!("{v:.1} ms against {target} ms ({:+.0}%)", (v / target - 1.0) * 100.0)
}

/// Why nothing meets the targets. `sustainable`: the most requests/s any layout on the GPUs
/// sustains whatever the targets (when none sustains the rate).
pub fn reason(c: &Closest, rate: f64, ttft_target: f64, tpot_target: f64, gpus: u32, sustainable: Option<(f64, String)>) -> String {
    if c.stable == 0 {
        return match sustainable {
            Some((r, label)) => format!(
                "no deployment on {gpus} GPUs sustains {rate} requests/s: prompts arrive faster than any layout computes them, or the batch they imply exceeds memory (the most any sustains is {r:.2} requests/s, {label}); the rate is beyond capacity"
            ),
            None => format!("no layout of this model fits on {gpus} GPUs (the weights do not fit, or the heads do not split)"),
        };
    }
    let (t_ratio, p_ratio) = (c.ttft_ms / ttft_target, c.tpot_ms / tpot_target);
    let first = if c.best_tpot_ms > tpot_target {
        format!("TPOT fails first: no deployment reaches {tpot_target} ms at {rate} requests/s (the lowest is {:.1} ms, {:+.0}%)", c.best_tpot_ms, (c.best_tpot_ms / tpot_target - 1.0) * 100.0)
    } else if c.best_ttft_ms > ttft_target {
        format!("TTFT fails first: no deployment reaches {ttft_target} ms at {rate} requests/s (the lowest is {:.1} ms, {:+.0}%)", c.best_ttft_ms, (c.best_ttft_ms / ttft_target - 1.0) * 100.0)
    } else if p_ratio >= t_ratio {
        "each target is met by some deployment, never both: TPOT fails first".to_string()
    } else {
        "each target is met by some deployment, never both: TTFT fails first".to_string()
    };
    format!(
        "{first}; the closest, {} on {} GPUs, gives TTFT {} and TPOT {}",
        c.label,
        c.gpus,
        over(c.ttft_ms, ttft_target),
        over(c.tpot_ms, tpot_target)
    )
}

/// "TP16 across two nodes needs 2.1x the GPUs of TP8 for this target because each all-reduce
/// crosses InfiniBand ...", when the fewest-GPU deployment whose (decode) TP crosses scale-up
/// domains needs more GPUs than the fewest-GPU one whose TP stays inside, and more than one
/// replica of its layout (else one replica's size sets its count); `tried_across`: some layout
/// with TP across domains fits the cluster (so that none meeting the target is news).
pub fn fabric_note(topo: &Topology, meeting: &[PlanDeployment], tried_across: Option<u32>) -> Option<String> {
    // The pool whose step sets TPOT (the aggregated replicas, or the decode pool) decides.
    let spans = |d: &&PlanDeployment| d.decode_pool().is_some_and(|p| p.tp_spans_domains);
    let across = meeting.iter().filter(spans).min_by_key(|d| d.gpus);
    let inside = meeting.iter().filter(|d| !d.tp_spans_domains()).min_by_key(|d| d.gpus);
    let domains = |tp: u32| {
        let n = (tp / topo.domain_gpus.max(1)).max(2);
        let words = ["", "one", "two", "three", "four", "five", "six", "seven", "eight"];
        let count = words.get(n as usize).map_or(n.to_string(), |w| w.to_string());
        if topo.domain_gpus > topo.cluster.gpus_per_node {
            format!("{count} NVLink domains")
        } else {
            format!("{count} nodes")
        }
    };
    let nic = topo.nic.name;
    let tp_of = |d: &PlanDeployment| d.decode_pool().map_or(0, |p| p.tp);
    match (across, inside) {
        // Only where it needed more than one replica of that layout: a single replica's size,
        // not the fabric, would set the count otherwise.
        (Some(a), Some(i)) if a.gpus > i.gpus && a.decode_pool().is_some_and(|p| p.replicas > 1) => Some(format!(
            "TP{} across {} needs {:.1}x the GPUs of TP{} for this target because each all-reduce crosses {nic} ({:.2} ms of all-reduce in its {:.2} ms decode step, against {:.2} of {:.2} ms inside the scale-up domain)",
            tp_of(a),
            domains(tp_of(a)),
            a.gpus as f64 / i.gpus as f64,
            tp_of(i),
            a.allreduce_ms,
            a.step_ms,
            i.allreduce_ms,
            i.step_ms
        )),
        (None, Some(i)) => tried_across.map(|tp| {
            format!(
                "TP{tp} across {} meets this target on no pool size that fits, where TP{} inside the scale-up domain needs {} GPUs: each of its all-reduces crosses {nic}",
                domains(tp),
                tp_of(i),
                i.gpus
            )
        }),
        (Some(a), None) => Some(format!(
            "only layouts whose TP crosses {nic} meet this target (TP{} across {}): none inside one scale-up domain holds the model at this rate",
            tp_of(a),
            domains(tp_of(a))
        )),
        _ => None,
    }
}
