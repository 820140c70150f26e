//! The rules of thumb people repeat about laying out training jobs, answered by the model for
//! a given cluster and job, as data the explorer can show (two outcomes and their ratio).

use super::framework::Framework;
use super::mapping::Group;
use super::search::{search, Constraints, SearchOptions};
use super::step::{Evaluator, StepReport};
use super::workload::{divisors, Workload};
use crate::catalog::ScaleUp;
use crate::error::Result;
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub label: String,
    pub report: StepReport,
}

/// A rule of thumb and what the model says about it here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleOfThumb {
    pub id: String,
    pub question: String,
    /// The rule as people state it.
    pub claim: String,
    /// The model's answer for this cluster and job.
    pub answer: String,
    pub baseline: Option<Outcome>,
    pub alternative: Option<Outcome>,
    /// Alternative step time / baseline step time (or the share the answer is about).
    pub ratio: Option<f64>,
    /// `ratio` is a share of the step (0..1, shown as a percentage), not a ratio of two outcomes.
    pub ratio_is_share: bool,
}

fn best(topo: &Topology, work: &Workload, fw: Framework, fixed: Constraints) -> Result<Option<StepReport>> {
    let mut ev = Evaluator::new(topo, work, fw)?;
    let r = search(&mut ev, &rule_search(fixed))?;
    Ok(r.best.into_iter().next())
}

/// The search a rule runs: the best layout under `fixed`.
pub fn rule_search(fixed: Constraints) -> SearchOptions {
    SearchOptions { top: 1, fixed, ..SearchOptions::default() }
}

/// Where a rule gets the best layout of the job under some pins on a cluster (the job's own
/// cluster, or a variant of it): searched at once ([`rules_of_thumb`]), or looked up in the
/// results of searches run elsewhere, e.g. in slices (`explore::StagedRules`).
pub type BestOf<'b> = dyn FnMut(&Topology, Constraints) -> Result<Option<StepReport>> + 'b;

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn share(r: &StepReport, part: f64) -> f64 {
    part / (r.step_time_s * 1e6).max(1e-12)
}

/// Answers every rule for `work` on `topo`.
pub fn rules_of_thumb(topo: &Topology, work: &Workload, fw: Framework) -> Result<Vec<RuleOfThumb>> {
    rules_with(topo, work, &mut |t: &Topology, fixed| best(t, work, fw, fixed))
}

/// Answers every rule, asking `best` for the layouts they compare.
pub fn rules_with(topo: &Topology, work: &Workload, best: &mut BestOf) -> Result<Vec<RuleOfThumb>> {
    Ok(vec![tp_inside_scale_up(topo, work, best)?, pp_across_network(topo, work, best)?, dp_across_spine(topo, best)?, pcie_vs_nvlink(topo, best)?])
}

/// TP kept inside the NVLink domain versus spanning the scale-out network.
pub fn tp_inside_scale_up(topo: &Topology, work: &Workload, best: &mut BestOf) -> Result<RuleOfThumb> {
    let n = topo.total_gpus;
    let dom = topo.domain_gpus;
    let valid: Vec<u32> = divisors(n).into_iter().filter(|t| work.heads.is_multiple_of(*t) && work.kv_heads.is_multiple_of(*t) && work.ffn.is_multiple_of(*t)).collect();
    let inside = valid.iter().copied().filter(|t| *t <= dom && dom.is_multiple_of(*t)).max();
    let outside = valid.iter().copied().find(|t| *t > dom);
    let fixed = |tp| Constraints { tp: Some(tp), ..Constraints::default() };
    let a = match inside {
        Some(t) => best(topo, fixed(t))?,
        None => None,
    };
    let b = match outside {
        Some(t) => best(topo, fixed(t))?,
        None => None,
    };
    let (answer, ratio) = match (&a, &b) {
        (Some(a), Some(b)) => {
            let r = b.step_time_s / a.step_time_s;
            (
                format!(
                    "TP {} inside the {}-GPU domain: step {:.2} s, TP collectives {} of it; TP {} across domains: step {:.2} s ({:.2}x), TP collectives {}.",
                    a.mapping.tp,
                    dom,
                    a.step_time_s,
                    pct(share(a, a.breakdown.tp.0)),
                    b.mapping.tp,
                    b.step_time_s,
                    r,
                    pct(share(b, b.breakdown.tp.0))
                ),
                Some(r),
            )
        }
        (Some(a), None) => (
            format!(
                "No valid TP larger than the {dom}-GPU domain fits this job, so TP never has to leave it; best in-domain TP {}: TP collectives {} of the step.",
                a.mapping.tp,
                pct(share(a, a.breakdown.tp.0))
            ),
            None,
        ),
        _ => ("No layout with TP inside one domain runs this job on this cluster (none divides the GPUs or fits in memory).".to_string(), None),
    };
    Ok(RuleOfThumb {
        id: "tp_inside_scale_up".into(),
        question: "Should tensor parallelism stay inside the NVLink domain?".into(),
        claim: "Keep TP inside NVLink; TP across InfiniBand is too slow.".into(),
        answer,
        baseline: a.map(|r| Outcome { label: format!("TP {} inside the domain", r.mapping.tp), report: r }),
        alternative: b.map(|r| Outcome { label: format!("TP {} across domains", r.mapping.tp), report: r }),
        ratio,
        ratio_is_share: false,
    })
}

/// Pipeline parallelism across the scale-out network.
pub fn pp_across_network(topo: &Topology, work: &Workload, best: &mut BestOf) -> Result<RuleOfThumb> {
    let n = topo.total_gpus;
    // The best layout whose pipeline stages sit in different domains.
    let mut found: Option<StepReport> = None;
    for pp in divisors(work.layers).into_iter().filter(|p| *p > 1 && n.is_multiple_of(*p)) {
        if let Some(r) = best(topo, Constraints { pp: Some(pp), ..Constraints::default() })? {
            let crosses = r.groups.iter().any(|g| g.group == Group::Pp && g.domains > 1);
            if crosses && found.as_ref().is_none_or(|f| r.step_time_s < f.step_time_s) {
                found = Some(r);
            }
        }
        if found.is_some() && pp >= 8 {
            break;
        }
    }
    let (answer, ratio) = match &found {
        Some(r) => {
            let p2p = share(r, r.breakdown.pp_p2p.0);
            let bubble = share(r, r.breakdown.bubble.0);
            (
                format!(
                    "With PP {} across domains, pipeline sends and receives are {} of the step (the bubble {}): PP traffic is one activation per micro-batch per stage boundary, {}.",
                    r.mapping.pp,
                    pct(p2p),
                    pct(bubble),
                    if p2p < 0.05 { "cheap enough for the scale-out network" } else { "a real cost on this network" }
                ),
                Some(p2p),
            )
        }
        None => ("No pipelined layout spans domains on this cluster (or none fits).".to_string(), None),
    };
    Ok(RuleOfThumb {
        id: "pp_across_network".into(),
        question: "Can pipeline parallelism go across InfiniBand?".into(),
        claim: "PP tolerates the scale-out network: it only sends activations between neighbours.".into(),
        answer,
        baseline: found.map(|r| Outcome { label: format!("PP {} across domains", r.mapping.pp), report: r }),
        alternative: None,
        ratio,
        ratio_is_share: true,
    })
}

/// Data parallelism (and FSDP) across the spine.
pub fn dp_across_spine(topo: &Topology, best: &mut BestOf) -> Result<RuleOfThumb> {
    let a = best(topo, Constraints::default())?;
    let fsdp = best(topo, Constraints { zero: Some(3), ..Constraints::default() })?;
    let oversub = topo.fabric.as_ref().map_or(1.0, |f| f.oversubscription);
    let (answer, ratio) = match (&a, &fsdp) {
        (Some(a), f) => {
            let dp = share(a, a.breakdown.dp.0);
            let route = match a.groups.iter().find(|g| g.group == Group::Dp).map(|g| g.tier) {
                Some(super::SpanTier::Spine) => format!("crosses the spine ({oversub:.2}:1)"),
                Some(super::SpanTier::Leaf) => "stays under one leaf switch".to_string(),
                Some(super::SpanTier::ScaleUp) => "stays inside the scale-up domain".to_string(),
                _ => "has no peers".to_string(),
            };
            let mut s = format!("Best layout (DP {}, ZeRO {}): DP traffic {route} and {} of the step is exposed", a.mapping.dp, a.mapping.zero, pct(dp));
            if let Some(f) = f {
                s.push_str(&format!("; with FSDP (ZeRO-3) the best is {:.2}x the step, DP exposed {}", f.step_time_s / a.step_time_s, pct(share(f, f.breakdown.dp.0))));
            }
            s.push('.');
            (s, Some(dp))
        }
        _ => ("No layout runs this job on this cluster (none divides the GPUs or fits in memory).".to_string(), None),
    };
    Ok(RuleOfThumb {
        id: "dp_across_spine".into(),
        question: "Is data-parallel / FSDP traffic across the spine hidden by compute?".into(),
        claim: "DP and FSDP can cross the spine: their traffic overlaps with backward compute.".into(),
        answer,
        baseline: a.map(|r| Outcome { label: "best layout".into(), report: r }),
        alternative: fsdp.map(|r| Outcome { label: "best FSDP (ZeRO-3) layout".into(), report: r }),
        ratio,
        ratio_is_share: true,
    })
}

/// The same job with PCIe as the only scale-up fabric.
pub fn pcie_vs_nvlink(topo: &Topology, best: &mut BestOf) -> Result<RuleOfThumb> {
    let a = best(topo, Constraints::default())?;
    let mut c = topo.cluster.clone();
    let was_pcie = matches!(c.scale_up, ScaleUp::Pcie { .. });
    let mut alt_topo = None;
    if !was_pcie {
        c.scale_up = ScaleUp::Pcie { gen: topo.gpu.pcie, p2p: true };
        c.gpus_per_node = c.gpus_per_node.min(ScaleUp::Pcie { gen: topo.gpu.pcie, p2p: true }.max_domain());
        if let Ok(t) = c.topology() {
            if t.total_gpus == topo.total_gpus {
                alt_topo = Some(t);
            }
        }
    }
    let b = match &alt_topo {
        Some(t) => best(t, Constraints::default())?,
        None => None,
    };
    let (answer, ratio) = match (&a, &b) {
        (Some(a), Some(b)) => {
            let r = b.mfu / a.mfu;
            (
                format!(
                    "Best MFU {} with {} against {} with PCIe only: training efficiency {} lower (the article claims up to 60%).",
                    pct(a.mfu),
                    topo.cluster.scale_up.name(),
                    pct(b.mfu),
                    pct(1.0 - r)
                ),
                Some(r),
            )
        }
        _ if was_pcie => ("This cluster is already PCIe-only.".to_string(), None),
        _ => ("No comparison possible: one of the two clusters fits no layout.".to_string(), None),
    };
    Ok(RuleOfThumb {
        id: "pcie_vs_nvlink".into(),
        question: "How much training efficiency does PCIe-only lose against NVLink?".into(),
        claim: "Without NVLink, training efficiency drops by up to 60%.".into(),
        answer,
        baseline: a.map(|r| Outcome { label: topo.cluster.scale_up.name().to_string(), report: r }),
        alternative: b.map(|r| Outcome { label: "PCIe only".into(), report: r }),
        ratio,
        ratio_is_share: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;
    use crate::training::presets::preset;

    #[test]
    fn rules_answer_with_data() {
        let w = Workload { global_batch: 256, ..preset("gpt-18.4b").unwrap() };
        let topo = Cluster { nodes: 4, ..Cluster::default() }.topology().unwrap();
        let rules = rules_of_thumb(&topo, &w, Framework::default()).unwrap();
        assert_eq!(rules.len(), 4);
        let tp = &rules[0];
        assert!(tp.ratio.unwrap() > 1.0, "{}", tp.answer);
        assert!(tp.alternative.as_ref().unwrap().report.mapping.tp > 8);
        let pcie = &rules[3];
        assert!(pcie.ratio.unwrap() < 1.0, "{}", pcie.answer);
        for r in &rules {
            assert!(!r.answer.is_empty() && !r.claim.is_empty(), "{}", r.id);
            println!("{}: {}", r.id, r.answer);
        }
        let json = serde_json::to_string(&rules).unwrap();
        assert!(json.contains("tp_inside_scale_up"));
    }
}
