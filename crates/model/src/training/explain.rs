//! The plain-language bottleneck sentence of a step report.

use super::mapping::{Group, GroupSpan, SpanTier};
use super::step_report::{Layout, Summary};
use super::workload::Workload;
use crate::topology::Topology;

fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// Names the tier a group crosses, with its oversubscription and NIC sharing.
pub fn tier_phrase(topo: &Topology, sp: &GroupSpan) -> String {
    let c = &topo.cluster;
    let base = match sp.tier {
        SpanTier::Local => "no link".to_string(),
        SpanTier::ScaleUp => c.scale_up.name().to_string(),
        SpanTier::Leaf => format!("{} under one leaf switch", topo.nic.name),
        SpanTier::Spine => match &topo.fabric {
            Some(f) if f.oversubscription > 1.0 => format!("a {:.3}:1 oversubscribed spine", f.oversubscription).replace(".000:", ":"),
            _ => format!("the {} spine", topo.nic.name),
        },
    };
    if sp.tier != SpanTier::ScaleUp && sp.tier != SpanTier::Local && sp.net_share > 1.0 + 1e-9 {
        format!("{base}, each NIC shared by {:.0} groups at once", sp.net_share)
    } else {
        base
    }
}

fn span_of(layout: &Layout, grp: Group) -> GroupSpan {
    let i = Group::ALL.iter().position(|g| *g == grp).unwrap_or(0);
    layout.spans[i]
}

/// One sentence: what the step spends its time on besides useful math, and why.
pub fn bottleneck(topo: &Topology, work: &Workload, layout: &Layout, s: &Summary) -> String {
    let b = &s.breakdown;
    let total = s.step.0.max(1e-12);
    let pct = |x: f64| (100.0 * x / total).round();
    let par = &s.par;
    let mut prefix = String::new();
    if !s.memory.fits {
        prefix = format!(
            "Does not fit: needs {:.1} GiB of the {:.0} GiB per GPU ({:.1} GiB over; activations {:.1} GiB, optimizer {:.1} GiB). ",
            gib(s.memory.total.0),
            gib(s.memory.capacity.0),
            gib(s.memory.over().0),
            gib(s.memory.activations.0),
            gib(s.memory.optimizer.0)
        );
    }
    let mut overheads: Vec<(&str, f64)> = b.parts().iter().filter(|p| p.0 != "compute").map(|p| (p.0, p.2 .0)).collect();
    crate::sorting::sort_short_by(&mut overheads, |x, y| y.1.total_cmp(&x.1));
    let (id, value) = overheads.first().copied().unwrap_or(("compute", 0.0));
    let compute_pct = pct(b.compute.0);
    if value <= 0.0 || (compute_pct >= 75.0 && pct(value) < 10.0) {
        // Below half a percent the largest overhead would print as "0%": say so in words.
        if pct(value) < 0.5 {
            return format!("{prefix}Compute-bound: kernels are {compute_pct:.0}% of the step; every overhead is under 0.5%.");
        }
        return format!(
            "{prefix}Compute-bound: kernels are {compute_pct:.0}% of the step; the largest overhead is {} at {:.0}%.",
            label(id),
            pct(value)
        );
    }
    let p = pct(value);
    let body = match id {
        "tp" => {
            let sp = span_of(layout, Group::Tp);
            if sp.domains > 1 {
                format!(
                    "TP collectives are {p:.0}% of the step: TP {} spans {} scale-up domains, so every layer's {} cross {}",
                    par.tp,
                    sp.domains,
                    if par.sp(work) { "all-gathers and reduce-scatters" } else { "all-reduces" },
                    tier_phrase(topo, &sp)
                )
            } else {
                format!(
                    "TP collectives are {p:.0}% of the step: {} per layer over {} and not overlapped with compute",
                    if par.sp(work) { "4 all-gathers/reduce-scatters" } else { "2 all-reduces" },
                    tier_phrase(topo, &sp)
                )
            }
        }
        "dp" => {
            let sp = span_of(layout, Group::Dp);
            let what = match par.zero {
                0 => "gradient all-reduce",
                1 => "gradient reduce-scatter and parameter all-gather",
                2 => "per-micro-batch gradient reduce-scatter and parameter all-gather",
                _ => "per-layer parameter all-gathers and gradient reduce-scatters (ZeRO-3)",
            };
            format!("The DP {what} is {p:.0}% of the step: it crosses {}", tier_phrase(topo, &sp))
        }
        "bubble" => format!(
            "The pipeline bubble is {p:.0}% of the step: {} micro-batches through {} stages{}; more micro-batches or more interleaving shrink it",
            s.m,
            par.pp,
            if par.interleave > 1 { format!(" with {} virtual stages each", par.interleave) } else { String::new() }
        ),
        "pp_p2p" => {
            let sp = span_of(layout, Group::Pp);
            format!("Pipeline sends and receives are {p:.0}% of the step: every micro-batch's activations cross {}", tier_phrase(topo, &sp))
        }
        "cp" => {
            let sp = span_of(layout, Group::Cp);
            format!("The CP key/value ring is {p:.0}% of the step: it crosses {} faster than attention can hide it", tier_phrase(topo, &sp))
        }
        "ep" => {
            let sp = span_of(layout, Group::Ep);
            format!("The EP all-to-all is {p:.0}% of the step: token dispatch and combine cross {}", tier_phrase(topo, &sp))
        }
        _ => format!("The optimizer step is {p:.0}% of the step: it streams the FP32 states of its shard through HBM"),
    };
    format!("{prefix}{body}.")
}

fn label(id: &str) -> &'static str {
    match id {
        "tp" => "TP collectives",
        "bubble" => "the pipeline bubble",
        "pp_p2p" => "pipeline send/receive",
        "dp" => "DP traffic",
        "cp" => "the CP ring",
        "ep" => "the EP all-to-all",
        "optimizer" => "the optimizer step",
        _ => "nothing",
    }
}
