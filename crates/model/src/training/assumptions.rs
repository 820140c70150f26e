//! The assumptions behind a step report, in words: the training software, whether its TP
//! collectives hide behind the GEMMs (only inside one NVLink domain), the pipeline schedule
//! with its bubble, and the data-parallel overlap. Shown next to the layout (page and CLI).

use super::framework::Framework;
use super::mapping::{Group, SpanTier};
use super::step::StepReport;

/// (label, sentence) pairs, in display order.
pub fn assumptions(r: &StepReport) -> Vec<(&'static str, String)> {
    let fw = Framework::from_id(&r.framework).unwrap_or_default();
    let m = &r.mapping;
    let mut out = vec![("Framework", r.framework.clone())];
    let tp_tier = r.groups.iter().find(|g| g.group == Group::Tp).map_or(SpanTier::Local, |g| g.tier);
    let tp = if m.tp <= 1 {
        "no tensor parallelism".to_string()
    } else if !matches!(tp_tier, SpanTier::Local | SpanTier::ScaleUp) {
        format!("none: TP {} crosses the network, beyond the NVLink domain where comm-GEMM overlap works, so its collectives are exposed", m.tp)
    } else if fw.overlap_tp_comm && m.sequence_parallel {
        format!("TP {}'s all-gathers and reduce-scatters pipelined with the GEMMs inside the NVLink domain", m.tp)
    } else {
        format!("none: {} runs TP {}'s collectives between the GEMMs", r.framework, m.tp)
    };
    out.push(("TP overlap", tp));
    let pipe = if m.pp <= 1 {
        "no pipeline: no bubble".to_string()
    } else {
        let (p, v, mb) = (m.pp as f64, m.interleave.max(1) as f64, r.micro_batches.max(1) as f64);
        let sched = if m.interleave > 1 { format!("interleaved 1F1B, {} virtual stages per GPU", m.interleave) } else { "1F1B".to_string() };
        format!(
            "{sched}, {} micro-batch{}: bubble (p-1)/(v·m) = {}/({}·{}) = {:.1}% of the stage's work",
            r.micro_batches,
            if r.micro_batches == 1 { "" } else { "es" },
            m.pp - 1,
            m.interleave.max(1),
            r.micro_batches,
            100.0 * (p - 1.0) / (v * mb)
        )
    };
    out.push(("Pipeline", pipe));
    let dp = if fw.overlap_grad_reduce { "gradient reduction overlapped with the backward (bucketed)" } else { "gradients reduced after the backward, exposed" };
    out.push(("DP overlap", dp.to_string()));
    let routing = match r.ecmp_ring_fraction {
        Some(f) => format!("ECMP, the NIC's default: DP rings keep {:.0}% of the network", 100.0 * f),
        None => "adaptive, the NIC's default".to_string(),
    };
    out.push(("Routing", routing));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;
    use crate::training::{evaluate, preset, Parallel};

    #[test]
    fn tp_across_nodes_says_exposed_and_the_bubble_is_the_schedules() {
        let w = preset("gpt3-175b").unwrap();
        let t = Cluster { nodes: 16, ..Cluster::default() }.topology().unwrap();
        let par = Parallel { tp: 16, pp: 2, dp: 4, micro_batch: 1, interleave: 2, ..Parallel::default() };
        let r = evaluate(&t, &w, &par, Framework::default()).unwrap();
        let a = assumptions(&r);
        assert!(a[1].1.contains("exposed"), "{:?}", a[1]);
        assert!(a[2].1.contains("interleaved") && a[2].1.contains(&format!("1/(2·{})", r.micro_batches)), "{:?}", a[2]);
        let inside = evaluate(&t, &w, &Parallel { tp: 8, pp: 2, dp: 8, micro_batch: 1, ..Parallel::default() }, Framework::default()).unwrap();
        assert!(assumptions(&inside)[1].1.contains("pipelined"), "{:?}", assumptions(&inside)[1]);
    }
}
