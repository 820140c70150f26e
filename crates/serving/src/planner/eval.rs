//! A deployment spec (a layout and its replicas, or a prefill pool and a decode pool) turned
//! into its figures at the rate: TTFT, TPOT, Little's-law batch and concurrency, the KV handoff
//! over the fabric the placement gives, and the largest rate it sustains within the targets.

use crate::kv::{kv_transfer, KvPath, KvTransferInput};
use crate::model::ServingModel;
use crate::planner::input::{Mode, PlanInput};
use crate::planner::layout::LayoutCurve;
use crate::planner::output::{PlanDeployment, Pool};
use crate::planner::pool::{aggregated, capacity, decode, prefill, Load};
use fabricscope_model::Topology;
use std::collections::HashMap;

/// A deployment by curve index and replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spec {
    Aggregated { layout: usize, replicas: u32 },
    Disaggregated { prefill: usize, prefill_replicas: u32, decode: usize, decode_replicas: u32 },
}

/// What every evaluation shares.
pub struct Env<'a> {
    pub topo: &'a Topology,
    pub model: &'a ServingModel,
    pub input: &'a PlanInput,
    pub load: Load,
    /// Requests per µs.
    pub lam: f64,
    /// KV handoffs by (decode TP, same domain asked): (µs, path taken); `None`: refused.
    kv: HashMap<(u32, bool), Option<(f64, KvPath)>>,
}

impl<'a> Env<'a> {
    pub fn new(topo: &'a Topology, model: &'a ServingModel, input: &'a PlanInput) -> Env<'a> {
        let load = Load {
            prompt: input.computed_prompt() as f64,
            output: input.output_tokens as f64,
            acceptance: input.mtp_acceptance,
            chunk: input.chunk_tokens as f64,
            cv: input.input_cv,
            percentile: input.percentile,
        };
        Env { topo, model, input, load, lam: input.rate / 1e6, kv: HashMap::new() }
    }

    /// Whether one prefill replica of `gp` GPUs and one decode replica of `gd` share a
    /// scale-up domain: an NVL72-style domain of several nodes that holds both (the pools
    /// interleaved domain by domain), so the handoff stays on NVLink.
    pub fn same_domain(&self, gp: u32, gd: u32) -> bool {
        self.topo.domain_gpus > self.topo.cluster.gpus_per_node && gp as u64 + gd as u64 <= self.topo.domain_gpus as u64
    }

    /// The KV handoff of one request's whole prompt (cached prefix included: the decode GPUs
    /// need all of it) to `tp_d` decode ranks, each pulling its shard, through the engine's
    /// connector (a bare transfer without one), µs, and the path it took; the NICs when the
    /// scale-up domain cannot hold the pair.
    pub fn kv_us(&mut self, tp_d: u32, same: bool) -> Option<(f64, KvPath)> {
        if let Some(v) = self.kv.get(&(tp_d, same)) {
            return *v;
        }
        let i = self.input;
        let go = |path| {
            kv_transfer(
                self.topo,
                self.model,
                &KvTransferInput { tokens: i.input_tokens, kv_precision: i.kv_precision.unwrap_or_default(), rails: None, block_tokens: None, decode_tp: Some(tp_d), path: Some(path), engine: i.engine },
            )
            .ok()
            .map(|t| (t.time.0, path))
        };
        let v = if same { go(KvPath::SameDomain).or_else(|| go(KvPath::OtherDomain)) } else { go(KvPath::OtherDomain) };
        self.kv.insert((tp_d, same), v);
        v
    }

    fn meets(&self, ttft_us: f64, tpot_us: f64) -> bool {
        ttft_us <= self.input.ttft_ms * 1e3 && tpot_us <= self.input.tpot_ms * 1e3
    }

    /// The figures of `spec` on `curves` (`None` where a curve is missing or the rate is
    /// refused), its capacity included.
    pub fn figures(&mut self, curves: &[Option<LayoutCurve>], spec: Spec) -> Option<PlanDeployment> {
        let (rate, out) = (self.input.rate, self.load.output);
        match spec {
            Spec::Aggregated { layout, replicas } => {
                let c = curves.get(layout)?.as_ref()?;
                let ranks = replicas as f64 * c.layout.dp as f64;
                let p = aggregated(c, self.lam / ranks, &self.load).ok()?;
                let gpus = replicas * c.layout.gpus();
                let coupled = if c.wide_ep { c.layout.dp as f64 } else { 1.0 };
                let hi = ranks / (self.load.prompt * c.prefill_us_per_token * coupled);
                let cap = if self.meets(p.ttft_us, p.tpot_us) {
                    capacity(self.lam, hi, |l| aggregated(c, l / ranks, &self.load).is_ok_and(|q| self.meets(q.ttft_us, q.tpot_us)))
                } else {
                    0.0
                };
                let e2e = p.ttft_mean_us + (out - 1.0) * p.tpot_us;
                Some(PlanDeployment {
                    mode: Mode::Aggregated,
                    gpus,
                    ttft_ms: p.ttft_us / 1e3,
                    tpot_ms: p.tpot_us / 1e3,
                    tokens_per_s_per_gpu: rate * out / gpus as f64,
                    tokens_per_s_per_user: 1e6 / p.tpot_us,
                    max_rate: cap * 1e6,
                    capacity_tokens_per_s_per_gpu: cap * 1e6 * out / gpus as f64,
                    e2e_ms: e2e / 1e3,
                    concurrency: self.lam * e2e,
                    batch_per_rank: p.batch,
                    utilisation: p.utilisation,
                    layout: Some(Pool::new(c.layout, replicas, c.tp_spans_domains)),
                    prefill: None,
                    decode: None,
                    kv_transfer_ms: None,
                    kv_path: None,
                    allreduce_ms: p.allreduce_us / 1e3,
                    step_ms: p.step_us / 1e3,
                    intervals: None,
                })
            }
            Spec::Disaggregated { prefill: ip, prefill_replicas: np, decode: id, decode_replicas: nd } => {
                let cp = curves.get(ip)?.as_ref()?;
                let cd = curves.get(id)?.as_ref()?;
                let (gp, gd) = (cp.layout.gpus(), cd.layout.gpus());
                let (kv, path) = self.kv_us(cd.layout.tp, self.same_domain(gp, gd))?;
                let rp = np as f64 * cp.layout.dp as f64;
                let rd = nd as f64 * cd.layout.dp as f64;
                let (ttft, ttft_mean, rho) = prefill(cp, self.lam / rp, &self.load).ok()?;
                let d = decode(cd, self.lam / rd, &self.load).ok()?;
                let gpus = np * gp + nd * gd;
                let (t_target, p_target) = (self.input.ttft_ms * 1e3, self.input.tpot_ms * 1e3);
                let cap = if ttft + kv <= t_target && d.tpot_us <= p_target {
                    let coupled = if cp.wide_ep { cp.layout.dp as f64 } else { 1.0 };
                    let hi_p = rp / (self.load.prompt * cp.prefill_us_per_token * coupled);
                    let (xl, fl) = (cd.batches.last().copied().unwrap_or(1.0), cd.step_us.last().copied().unwrap_or(1.0));
                    let hi_d = rd * xl / ((out - 1.0) * fl) * 1.0001;
                    let cap_p = capacity(self.lam, hi_p, |l| prefill(cp, l / rp, &self.load).is_ok_and(|q| q.0 + kv <= t_target));
                    let cap_d = capacity(self.lam, hi_d.max(self.lam), |l| decode(cd, l / rd, &self.load).is_ok_and(|q| q.tpot_us <= p_target));
                    cap_p.min(cap_d)
                } else {
                    0.0
                };
                let e2e = ttft_mean + kv + (out - 1.0) * d.tpot_us;
                Some(PlanDeployment {
                    mode: Mode::Disaggregated,
                    gpus,
                    ttft_ms: (ttft + kv) / 1e3,
                    tpot_ms: d.tpot_us / 1e3,
                    tokens_per_s_per_gpu: rate * out / gpus as f64,
                    tokens_per_s_per_user: 1e6 / d.tpot_us,
                    max_rate: cap * 1e6,
                    capacity_tokens_per_s_per_gpu: cap * 1e6 * out / gpus as f64,
                    e2e_ms: e2e / 1e3,
                    concurrency: self.lam * e2e,
                    batch_per_rank: d.batch,
                    utilisation: rho,
                    layout: None,
                    prefill: Some(Pool::new(cp.layout, np, cp.tp_spans_domains)),
                    decode: Some(Pool::new(cd.layout, nd, cd.tp_spans_domains)),
                    kv_transfer_ms: Some(kv / 1e3),
                    kv_path: Some(path),
                    allreduce_ms: d.allreduce_us / 1e3,
                    step_ms: d.step_us / 1e3,
                    intervals: None,
                })
            }
        }
    }
}
