//! One pool of replicas of a layout at a request rate: the batch the rate implies (Little's
//! law, solved as a fixed point on the step curve), the step at that batch with prefill
//! interfering (aggregated), the queueing of prompts, and so TTFT and TPOT. Rates are per DP
//! rank and per µs inside (the curve's unit); the planner converts.
//!
//! Rules (docs/serving.md, "Planner"):
//! - **MTP / speculative decoding** with acceptance `a` (mean tokens a sequence gains per decode
//!   step): a verifying step of `b` sequences costs the decode step of `a x b` sequences (the
//!   accepted tokens' matmuls and per-token costs; the KV cache then counted `a` times, which
//!   overstates it where the cache read dominates), and TPOT is that step over `a`. The draft
//!   (one MTP module, one layer in DeepSeek-V3's 61) is not charged.
//! - **Chunked prefill** (aggregated): each iteration carries the running batch's decode tokens
//!   and up to `chunk` prompt tokens; a prompt token costs what it costs inside a full chunk
//!   (`κ`, compute-bound), added to the decode step (`t`): an iteration lasts
//!   `τ = t + p κ` with `p` prompt tokens. In steady state `p = λ L τ` (L computed prompt
//!   tokens per request), so `τ = t / (1 - ρ_p)` with `ρ_p = λ L κ`, the share of time on
//!   prompts. Under wide EP a rank's chunk holds every rank of the stage (TensorRT-LLM tech
//!   blog 10, "ADP Balance Strategy"), so `κ` is charged `dp` times.
//! - **Queueing**: prompts wait in an M/G/1 queue ([`crate::planner::queue`]) whose service
//!   is the time a prompt holds the iteration's chunk budget, `S = L (κ + t / chunk)`; its
//!   utilisation `λ S < 1` is exactly the condition `p <= chunk`, beyond which the rate is
//!   refused. TTFT = the wait + half an iteration (a request joins at the next one) + its own
//!   `ceil(L / chunk)` iterations, each at least a decode step plus its chunk.
//! - **Disaggregated**: a prefill replica is an M/G/1 server of service `L κ` (its chunks hold
//!   prompts only); TTFT = the wait + one prompt's prefill + the KV handoff. A decode replica
//!   runs the batch the rate implies with no prefill in its iterations.

use crate::planner::layout::LayoutCurve;
use crate::planner::queue::{mg1_wait, wait_at};

/// The queueing inputs shared by every pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    /// Computed prompt tokens per request (prefix-cache hits removed).
    pub prompt: f64,
    /// Output tokens per request.
    pub output: f64,
    /// Tokens a sequence gains per decode step (MTP acceptance, 1 without).
    pub acceptance: f64,
    /// Prefill chunk budget, tokens per iteration.
    pub chunk: f64,
    /// Coefficient of variation of the prompt lengths.
    pub cv: f64,
    /// Percentile of TTFT (`None`: the mean).
    pub percentile: Option<f64>,
}

/// Why a pool does not sustain a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Refusal {
    /// Prompts arrive faster than the pool computes them (utilisation of the prefill server).
    Prefill(f64),
    /// The batch the rate implies exceeds what memory (or the runtime) holds per DP rank:
    /// (sequences needed, or infinity without a fixed point; the most that fit).
    Memory(f64, f64),
}

/// A pool at its rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolPoint {
    /// Time per output token, µs (a mean).
    pub tpot_us: f64,
    /// Time to first token, µs, at the percentile asked (without a KV handoff).
    pub ttft_us: f64,
    /// Its mean (for Little's law).
    pub ttft_mean_us: f64,
    /// Sequences decoding per DP rank (Little's law on the decode phase).
    pub batch: f64,
    /// Requests in a DP rank's care (queue, prefill and decode: Little's law end to end).
    pub concurrency: f64,
    /// Utilisation of the prefill server.
    pub utilisation: f64,
    /// TP all-reduce time in the step, µs.
    pub allreduce_us: f64,
    /// The decode step, µs.
    pub step_us: f64,
}

/// The batch per DP rank `b` with `b = k x step(a b)` (k: decode residence per µs of step,
/// i.e. `λ (O - 1) / (a (1 - ρ_p))`), the first crossing on the piecewise-linear curve;
/// `None` when the curve ends first.
pub fn fixed_point(c: &LayoutCurve, k: f64, a: f64) -> Option<f64> {
    let (xs, ys) = (&c.batches, &c.step_us);
    // Below the first sample the step is flat.
    let b0 = xs[0] / a;
    if k * ys[0] <= b0 {
        return Some(k * ys[0]);
    }
    for i in 1..xs.len() {
        let (x0, x1, y0, y1) = (xs[i - 1], xs[i], ys[i - 1], ys[i]);
        let (bl, br) = (x0 / a, x1 / a);
        if k * y1 <= br {
            // g(b) = k (y0 + s (a b - x0)) - b crosses 0 in [bl, br].
            let s = (y1 - y0) / (x1 - x0);
            let denom = 1.0 - k * s * a;
            let b = if denom.abs() < 1e-300 { br } else { k * (y0 - s * x0) / denom };
            return Some(b.clamp(bl, br));
        }
    }
    None
}

fn ms_batch(c: &LayoutCurve, b: f64, a: f64) -> Option<(f64, f64)> {
    Some((c.step_at(a * b)?, c.allreduce_at(a * b)?))
}

/// An aggregated replica's DP rank at `lambda` requests per µs.
pub fn aggregated(c: &LayoutCurve, lambda: f64, l: &Load) -> Result<PoolPoint, Refusal> {
    let coupled = if c.wide_ep { c.layout.dp as f64 } else { 1.0 };
    let kappa = c.prefill_us_per_token * coupled;
    let rho_p = lambda * l.prompt * kappa;
    if rho_p >= 1.0 {
        return Err(Refusal::Prefill(rho_p));
    }
    let k = lambda * (l.output - 1.0) / (l.acceptance * (1.0 - rho_p));
    let b = fixed_point(c, k, l.acceptance).ok_or(Refusal::Memory(f64::INFINITY, c.max_batch))?;
    let (t, ar) = ms_batch(c, b, l.acceptance).ok_or(Refusal::Memory(f64::INFINITY, c.max_batch))?;
    let tau = t / (1.0 - rho_p);
    let service = l.prompt * (kappa + t / l.chunk);
    let rho = lambda * service;
    let wait = mg1_wait(lambda, service, l.cv).ok_or(Refusal::Prefill(rho))?;
    let chunks = (l.prompt / l.chunk).ceil().max(1.0);
    let own = (chunks * tau).max(chunks * t + l.prompt * kappa);
    let ttft_mean = wait + tau / 2.0 + own;
    let ttft = wait_at(wait, rho, l.percentile) + tau / 2.0 + own;
    let tpot = tau / l.acceptance;
    let concurrency = lambda * (ttft_mean + (l.output - 1.0) * tpot);
    // KV cache is held by the sequences decoding and those being prefilled (Little's law on
    // each phase); a request still queued holds none.
    let holding = b + lambda * own;
    if holding > c.max_batch {
        return Err(Refusal::Memory(holding, c.max_batch));
    }
    Ok(PoolPoint { tpot_us: tpot, ttft_us: ttft, ttft_mean_us: ttft_mean, batch: b, concurrency, utilisation: rho, allreduce_us: ar, step_us: t })
}

/// A prefill replica's DP rank at `lambda` requests per µs: (TTFT at the percentile, its
/// mean, utilisation), µs, without the KV handoff.
pub fn prefill(c: &LayoutCurve, lambda: f64, l: &Load) -> Result<(f64, f64, f64), Refusal> {
    let coupled = if c.wide_ep { c.layout.dp as f64 } else { 1.0 };
    let service = l.prompt * c.prefill_us_per_token * coupled;
    let rho = lambda * service;
    let wait = mg1_wait(lambda, service, l.cv).ok_or(Refusal::Prefill(rho))?;
    Ok((wait_at(wait, rho, l.percentile) + c.prompt_us, wait + c.prompt_us, rho))
}

/// A decode replica's DP rank at `lambda` requests per µs (TTFT and its mean left 0: the
/// prefill pool's).
pub fn decode(c: &LayoutCurve, lambda: f64, l: &Load) -> Result<PoolPoint, Refusal> {
    let k = lambda * (l.output - 1.0) / l.acceptance;
    let b = fixed_point(c, k, l.acceptance).ok_or(Refusal::Memory(f64::INFINITY, c.max_batch))?;
    let (t, ar) = ms_batch(c, b, l.acceptance).ok_or(Refusal::Memory(f64::INFINITY, c.max_batch))?;
    if b > c.max_batch {
        return Err(Refusal::Memory(b, c.max_batch));
    }
    Ok(PoolPoint { tpot_us: t / l.acceptance, ttft_us: 0.0, ttft_mean_us: 0.0, batch: b, concurrency: b, utilisation: 0.0, allreduce_us: ar, step_us: t })
}

/// The largest rate (per µs, per DP rank) in `[lo, hi]` at which `meets` holds, by bisection
/// (`meets(lo)` holds; `meets` is monotone: a higher rate never shortens the batch or the
/// queue).
pub fn capacity(lo: f64, hi: f64, meets: impl Fn(f64) -> bool) -> f64 {
    if meets(hi) {
        return hi;
    }
    let (mut a, mut b) = (lo, hi);
    for _ in 0..40 {
        let m = 0.5 * (a + b);
        if meets(m) {
            a = m;
        } else {
            b = m;
        }
        if b - a <= 1e-6 * a {
            break;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::AccuracyClass;
    use crate::planner::layout::Layout;

    /// A made-up layout: step 10 ms + 0.1 ms per sequence, up to 512; prompts 10 µs a token.
    fn linear() -> LayoutCurve {
        let batches: Vec<f64> = (0..10).map(|i| (1u32 << i) as f64).collect();
        let step_us: Vec<f64> = batches.iter().map(|b| 10_000.0 + 100.0 * b).collect();
        LayoutCurve {
            layout: Layout { tp: 8, pp: 1, ep: 1, dp: 1 },
            allreduce_us: vec![0.0; batches.len()],
            batches,
            step_us,
            max_batch: 512.0,
            prefill_us_per_token: 10.0,
            prompt_us: 12_000.0,
            tp_spans_domains: false,
            class: AccuracyClass::DenseTpNvlink,
            validated: true,
            wide_ep: false,
        }
    }

    fn load() -> Load {
        Load { prompt: 1000.0, output: 101.0, acceptance: 1.0, chunk: 8192.0, cv: 0.0, percentile: None }
    }

    #[test]
    fn the_fixed_point_is_littles_law_on_a_linear_step() {
        // Decode only, 10 requests/s: b = λ (O - 1) t(b) = 1e-5 x 100 x (10,000 + 100 b) µs,
        // so b = 10 / (1 - 0.1) = 11.11.
        let p = decode(&linear(), 1e-5, &load()).unwrap();
        assert!((p.batch - 100.0 / 9.0).abs() < 1e-9, "{}", p.batch);
        assert!((p.batch - 1e-5 * 100.0 * p.tpot_us).abs() < 1e-9);
        // MTP accepting 2 tokens a step: half the steps, each of a doubled batch's cost.
        let mtp = decode(&linear(), 1e-5, &Load { acceptance: 2.0, ..load() }).unwrap();
        assert!(mtp.tpot_us < 0.6 * p.tpot_us, "{} vs {}", mtp.tpot_us, p.tpot_us);
    }

    #[test]
    fn prefill_interference_stretches_the_step_and_ttft_diverges_at_capacity() {
        let c = linear();
        // 20 requests/s: ρ_p = 2e-5 x 1000 x 10 = 0.2, so the iteration is t / 0.8.
        let p = aggregated(&c, 2e-5, &load()).unwrap();
        assert!((p.tpot_us - p.step_us / 0.8).abs() < 1e-6, "{p:?}");
        assert!((p.batch - 2e-5 * 100.0 * p.tpot_us).abs() < 1e-6);
        // TTFT grows without bound as the prefill server's utilisation goes to 1.
        let mut last = 0.0;
        let mut lam = 2e-5;
        let mut seen = 0;
        while let Ok(p) = aggregated(&c, lam, &load()) {
            assert!(p.ttft_us > last);
            last = p.ttft_us;
            lam *= 1.005;
            seen += 1;
        }
        let first = aggregated(&c, 2e-5, &load()).unwrap().ttft_us;
        assert!(seen > 10 && last > 4.0 * first, "{seen} {last} {first}");
        assert!(matches!(aggregated(&c, lam * 10.0, &load()), Err(Refusal::Prefill(_))));
    }

    #[test]
    fn capacity_bisects_to_the_threshold() {
        let cap = capacity(1.0, 100.0, |x| x <= 37.5);
        assert!((cap - 37.5).abs() < 1e-4, "{cap}");
    }
}
