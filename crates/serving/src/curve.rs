//! The throughput/latency curve of one deployment as its batch grows (tokens/s per GPU
//! against tokens/s per user), which group (TP or EP) the deployment spreads over the fabric,
//! whether that group crosses the NVLink (scale-up) domain, and the same deployment with the
//! group on the other side of the boundary. Additive: reads [`Server::evaluate`] only.

use crate::deploy::{Deployment, Phase};
use crate::hardware::MAX_RUNTIME_BATCH;
use crate::model::ServingModel;
use crate::step::Server;
use fabricscope_model::error::Result;
use fabricscope_model::Topology;
use serde::Serialize;

/// Most points on one curve (count): batch 1, 2, 4 .. up to what fits, capped.
pub const MAX_POINTS: usize = 13;

/// One batch size of the curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Sequences per attention DP rank (count).
    pub batch: u32,
    /// Output tokens/s one sequence sees (decode); prompt tokens/s (prefill).
    pub tokens_per_s_per_user: f64,
    /// Output (decode) or prompt (prefill) tokens/s per GPU used.
    pub tokens_per_s_per_gpu: f64,
    /// Time per output token, ms (decode); the prefill step, ms (prefill).
    pub step_ms: f64,
}

/// The group of GPUs a deployment's per-layer communication runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    /// "TP" (tensor parallel all-reduce) or "EP" (expert dispatch/combine over the stage).
    pub kind: &'static str,
    /// GPUs in the group (count).
    pub size: u32,
    /// The group spans more than one scale-up domain: it uses the network every layer.
    pub crosses: bool,
}

/// The group of `d` on `topo`: the stage (`tp x dp`) for wide EP or experts tensor parallel
/// over attention DP ranks, else the TP group.
pub fn group(topo: &Topology, model: &ServingModel, d: &Deployment) -> Group {
    let stage = d.tp.saturating_mul(d.dp);
    let over_stage = model.work.moe.is_some() && d.dp > 1;
    let (kind, size) = if over_stage { ("EP", stage) } else { ("TP", d.tp) };
    Group { kind, size, crosses: size > topo.domain_gpus }
}

/// The batches of a curve: powers of two up to `max_batch` (and [`MAX_RUNTIME_BATCH`]), and
/// `max_batch` itself, at most [`MAX_POINTS`] (the largest kept).
pub fn batches(max_batch: u32) -> Vec<u32> {
    let top = max_batch.clamp(1, MAX_RUNTIME_BATCH);
    let mut v: Vec<u32> = (0..32).map(|i| 1u32 << i).take_while(|b| *b <= top).collect();
    if v.last() != Some(&top) {
        v.push(top);
    }
    if v.len() > MAX_POINTS {
        v.drain(1..v.len() - MAX_POINTS + 1);
    }
    v
}

/// A deployment's curve with what a chart says about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    pub deployment: Deployment,
    pub group: Group,
    pub points: Vec<CurvePoint>,
    /// The deployment's error band, percent; `None`: not validated.
    pub band_pct: Option<f64>,
    /// Its 90% interval as ratios measured / predicted of tokens/s per GPU (`serve`'s, at
    /// batch 1: spanning the engines when the deployment names none); `None`: not validated.
    pub interval: Option<(f64, f64)>,
}

impl Curve {
    /// "TP 8 inside NVLink", "EP 64 across NVLink".
    pub fn label(&self) -> String {
        format!("{} {} {}", self.group.kind, self.group.size, if self.group.crosses { "across NVLink" } else { "inside NVLink" })
    }
}

/// [`curve`] with the group and band: the deployment's own curve.
pub fn curve_of(server: &mut Server, d: &Deployment) -> Result<Curve> {
    let one = Deployment { batch: 1, ..*d };
    let first = server.evaluate(&one)?;
    let interval = crate::calibration::intervals_of(server.topo, server.model, &one, &first)
        .map(|i| i.tokens_per_s_per_gpu)
        .filter(|_| first.error_band_pct.is_some() && first.tokens_per_s_per_gpu > 0.0)
        .map(|i| (i.lo / first.tokens_per_s_per_gpu, i.hi / first.tokens_per_s_per_gpu));
    Ok(Curve { deployment: *d, group: group(server.topo, server.model, d), points: curve(server, d)?, band_pct: first.error_band_pct, interval })
}

/// The deployment's curve and, when one is valid, its [`counterpart`]'s across the boundary.
pub fn with_counterpart(topo: &Topology, model: &ServingModel, d: &Deployment) -> Result<Vec<Curve>> {
    counterpart_curves(Server::new(topo, model)?, d)
}

/// [`with_counterpart`] timed by `s` as given (a server on a calibrated cluster, say).
pub fn counterpart_curves(mut s: Server, d: &Deployment) -> Result<Vec<Curve>> {
    let (topo, model) = (s.topo, s.model);
    let mut out = vec![curve_of(&mut s, d)?];
    if let Some(alt) = counterpart(topo, model, d) {
        if let Ok(c) = curve_of(&mut s, &alt) {
            out.push(c);
        }
    }
    Ok(out)
}

/// The curve of `d` (its batch replaced by each of [`batches`]); errors when even batch 1 does
/// not run (the error names the field). Decode and prefill; the offline mix has one point.
pub fn curve(server: &mut Server, d: &Deployment) -> Result<Vec<CurvePoint>> {
    let first = server.evaluate(&Deployment { batch: 1, ..*d })?;
    let list = if d.phase == Phase::Offline { vec![1] } else { batches(first.max_batch) };
    let mut out = Vec::with_capacity(list.len());
    for b in list {
        let r = if b == 1 { first.clone() } else { server.evaluate(&Deployment { batch: b, ..*d })? };
        out.push(CurvePoint {
            batch: r.batch,
            tokens_per_s_per_user: r.tokens_per_s_per_user,
            tokens_per_s_per_gpu: r.tokens_per_s_per_gpu,
            step_ms: r.tpot_ms.unwrap_or(r.step_ms),
        });
    }
    Ok(out)
}

/// The same deployment with its group on the other side of the NVLink boundary: inside, the
/// smallest group that crosses (twice the domain); across, the largest that stays inside (the
/// domain). `None` when no such layout is valid on `topo` for `model` (heads, GPUs, memory).
pub fn counterpart(topo: &Topology, model: &ServingModel, d: &Deployment) -> Option<Deployment> {
    let g = group(topo, model, d);
    let dom = topo.domain_gpus.max(1);
    let target = if g.crosses { dom } else { dom.checked_mul(2)? };
    let alt = if g.kind == "EP" {
        if !target.is_multiple_of(d.tp) {
            return None;
        }
        let dp = target / d.tp;
        Deployment { dp, ep: if d.ep > 1 { target } else { 1 }, ..*d }
    } else {
        Deployment { tp: target, ep: if d.ep > 1 { d.ep.min(target) } else { 1 }, ..*d }
    };
    // Batch 1 must run; the curve finds the rest.
    let mut s = Server::new(topo, model).ok()?;
    s.evaluate(&Deployment { batch: 1, ..alt }).ok()?;
    Some(alt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::serving_preset;
    use fabricscope_model::{cluster_preset, Cluster};

    #[test]
    fn batches_are_powers_of_two_up_to_what_fits() {
        assert_eq!(batches(1), vec![1]);
        assert_eq!(batches(8), vec![1, 2, 4, 8]);
        assert_eq!(batches(100), vec![1, 2, 4, 8, 16, 32, 64, 100]);
        let big = batches(1 << 16);
        assert!(big.len() <= MAX_POINTS && big[0] == 1 && *big.last().unwrap() == MAX_RUNTIME_BATCH);
    }

    #[test]
    fn throughput_per_gpu_grows_and_speed_per_user_falls_with_batch() {
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        let m = serving_preset("llama3-70b").unwrap();
        let d = Deployment { tp: 8, batch: 1, context: 2048, ..Deployment::default() };
        let mut s = Server::new(&topo, &m).unwrap();
        let c = curve(&mut s, &d).unwrap();
        assert!(c.len() >= 5, "{c:?}");
        for w in c.windows(2) {
            assert!(w[1].tokens_per_s_per_gpu > w[0].tokens_per_s_per_gpu, "{w:?}");
            assert!(w[1].tokens_per_s_per_user < w[0].tokens_per_s_per_user, "{w:?}");
        }
        // TP 8 on 8-GPU nodes stays inside; its counterpart is TP 16 across two nodes.
        assert!(!group(&topo, &m, &d).crosses);
        let alt = counterpart(&topo, &m, &d).unwrap();
        assert_eq!(alt.tp, 16);
        assert!(group(&topo, &m, &alt).crosses);
        // Across the boundary each GPU serves fewer tokens at batch 1: twice the GPUs, and the
        // all-reduces now cross the network every layer.
        let ca = curve(&mut s, &alt).unwrap();
        assert!(ca[0].tokens_per_s_per_gpu < c[0].tokens_per_s_per_gpu, "{:?} vs {:?}", ca[0], c[0]);
    }

    #[test]
    fn wide_ep_on_nvl72_stays_inside_and_on_8_gpu_nodes_crosses() {
        let m = serving_preset("deepseek-v3").unwrap();
        let d = Deployment { tp: 1, dp: 32, ep: 32, batch: 1, precision: crate::Precision::Fp8, ..Deployment::default() };
        let nvl = cluster_preset("gb200-nvl72").unwrap().cluster().topology().unwrap();
        let h100 = Cluster { nodes: 8, ..cluster_preset("h100-roce").unwrap().cluster() }.topology().unwrap();
        assert_eq!(group(&nvl, &m, &d), Group { kind: "EP", size: 32, crosses: false });
        assert!(group(&h100, &m, &d).crosses);
        assert!(!curve(&mut Server::new(&nvl, &m).unwrap(), &d).unwrap().is_empty());
    }
}
