//! The queueing the planner states: requests arrive as a Poisson stream (rate λ) at a server
//! that handles them one after another in arrival order, each for a service time of mean `S`
//! and coefficient of variation `cv` (the prompt lengths' spread): an M/G/1 queue.
//!
//! Mean wait (Pollaczek–Khinchine; L. Kleinrock, *Queueing Systems, Vol. 1*, 1975, eq. 5.105):
//! `W = ρ S (1 + cv²) / (2 (1 - ρ))` with utilisation `ρ = λ S`, finite only for `ρ < 1`; with
//! `cv = 0` (every prompt the mean length) it is the M/D/1 queue's `ρ S / (2 (1 - ρ))`.
//!
//! Percentiles: the wait is zero with probability `1 - ρ` and otherwise taken as exponential
//! with mean `W / ρ` (exact for M/M/1; for M/G/1 the exponential tail is Kingman's heavy-traffic
//! approximation, J. F. C. Kingman, "The single server queue in heavy traffic", 1961), so its
//! q-quantile is `(W / ρ) ln(ρ / (1 - q))` when `ρ > 1 - q`, else 0.

/// Mean wait in the queue of an M/G/1 server (same time unit as `service`); `None` when the
/// server cannot keep up (`λ S >= 1`) or an input is not a finite non-negative number.
pub fn mg1_wait(lambda: f64, service: f64, cv: f64) -> Option<f64> {
    if !(lambda.is_finite() && service.is_finite() && cv.is_finite()) || lambda < 0.0 || service < 0.0 || cv < 0.0 {
        return None;
    }
    let rho = lambda * service;
    if rho >= 1.0 {
        return None;
    }
    Some(rho * service * (1.0 + cv * cv) / (2.0 * (1.0 - rho)))
}

/// The `q`-quantile of the wait whose mean is `mean_wait` at utilisation `rho` (module doc's
/// exponential tail); `q` `None`: the mean itself.
pub fn wait_at(mean_wait: f64, rho: f64, q: Option<f64>) -> f64 {
    match q {
        None => mean_wait,
        Some(q) if rho > 1.0 - q && rho > 0.0 => (mean_wait / rho) * (rho / (1.0 - q)).ln(),
        Some(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md1_by_hand_and_the_wait_grows_without_bound() {
        // M/D/1 at ρ = 0.5, S = 1: W = 0.5 / (2 x 0.5) = 0.5.
        assert!((mg1_wait(0.5, 1.0, 0.0).unwrap() - 0.5).abs() < 1e-12);
        // M/M/1 (cv 1) waits twice as long as M/D/1: W = ρ S / (1 - ρ) = 1.
        assert!((mg1_wait(0.5, 1.0, 1.0).unwrap() - 1.0).abs() < 1e-12);
        // As ρ -> 1 the wait grows without bound, and at ρ >= 1 there is no steady state.
        let mut last = 0.0;
        for rho in [0.9, 0.99, 0.999, 0.9999] {
            let w = mg1_wait(rho, 1.0, 0.0).unwrap();
            assert!(w > 9.0 * last, "{rho}: {w}");
            last = w;
        }
        assert!(last > 4000.0);
        assert_eq!(mg1_wait(1.0, 1.0, 0.0), None);
        assert_eq!(mg1_wait(2.0, 1.0, 0.0), None);
        assert_eq!(mg1_wait(-1.0, 1.0, 0.0), None);
    }

    #[test]
    fn m_m_1_quantiles_are_exact() {
        // M/M/1 at ρ = 0.8, S = 1: P(W > t) = ρ e^{-(1-ρ) t / S}; the 99th percentile solves
        // 0.8 e^{-0.2 t} = 0.01: t = 5 ln 80 = 21.91.
        let w = mg1_wait(0.8, 1.0, 1.0).unwrap();
        assert!((wait_at(w, 0.8, Some(0.99)) - 5.0 * 80f64.ln()).abs() < 1e-9);
        // Below ρ = 1 - q the quantile is no wait; the mean is the mean.
        assert_eq!(wait_at(w, 0.8, Some(0.1)), 0.0);
        assert_eq!(wait_at(w, 0.8, None), w);
        assert!(wait_at(w, 0.8, Some(0.9)) < wait_at(w, 0.8, Some(0.99)));
    }
}
