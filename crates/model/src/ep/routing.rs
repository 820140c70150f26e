//! Where a token's top-k experts land under uniform random routing, in closed form: the
//! expected number of distinct ranks and nodes a token is sent to, and the expected load of the
//! busiest rank (no sampling: the kernel benchmarks route uniformly at random).

/// Probability that none of `k` distinct experts, drawn uniformly from `experts`, is one of a
/// given `held` of them: C(experts - held, k) / C(experts, k), as a product.
fn miss(experts: f64, held: f64, k: u32) -> f64 {
    let mut p = 1.0;
    for i in 0..k {
        let i = i as f64;
        let num = experts - held - i;
        if num <= 0.0 {
            return 0.0;
        }
        p *= num / (experts - i);
    }
    p
}

/// Expected distinct bins (ranks or nodes) one token's `k` experts fall in, `bins` equal bins
/// over `experts` experts.
pub fn distinct(experts: u32, bins: u32, k: u32) -> f64 {
    let (e, b) = (experts.max(1) as f64, bins.max(1) as f64);
    let k = k.min(experts.max(1));
    b * (1.0 - miss(e, e / b, k))
}

/// Expected distinct nodes of one token under node-limited routing (DeepSeek-V3 §2.1.2: the
/// token first picks at most `max_nodes` nodes, then its experts among theirs): the `k` experts
/// are spread over `min(max_nodes, nodes)` nodes' experts.
pub fn distinct_nodes(experts: u32, nodes: u32, k: u32, max_nodes: Option<u32>) -> f64 {
    match max_nodes {
        Some(m) if m >= 1 && m < nodes => {
            let per_node = experts as f64 / nodes.max(1) as f64;
            let pool = (per_node * m as f64).round().max(1.0) as u32;
            distinct(pool, m, k)
        }
        _ => distinct(experts, nodes, k),
    }
}

/// Expected load of the busiest of `bins` receivers over their mean, when each receives a sum of
/// about `mean` independent unit arrivals, each of the `bins` equally likely: the Gaussian
/// extreme-value approximation mean + sqrt(2 ln bins x var), var = mean (1 - 1/bins) (the same
/// closed form the training step uses for expert load).
pub fn max_over_mean(bins: u32, mean: f64) -> f64 {
    if bins <= 1 || mean <= 0.0 {
        return 1.0;
    }
    let b = bins as f64;
    1.0 + (2.0 * b.ln() * (1.0 - 1.0 / b) / mean).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_bins_match_counting() {
        // One bin: always 1. As many bins as experts: k distinct experts are k bins.
        assert!((distinct(256, 1, 8) - 1.0).abs() < 1e-12);
        assert!((distinct(256, 256, 8) - 8.0).abs() < 1e-9);
        // 2 experts over 2 bins of 1, top-1: one bin.
        assert!((distinct(2, 2, 1) - 1.0).abs() < 1e-12);
        // 4 experts in 2 bins, top-2: P(both in one bin) = 2/6, so 2 - 1/3.
        assert!((distinct(4, 2, 2) - (2.0 - 1.0 / 3.0)).abs() < 1e-12);
        // Node-limited: never more nodes than the limit.
        let d = distinct_nodes(256, 8, 8, Some(4));
        assert!(d <= 4.0 && d > 3.5, "{d}");
        assert!(distinct_nodes(256, 8, 8, None) > d);
    }

    #[test]
    fn the_busiest_rank_carries_more_with_fewer_arrivals() {
        assert_eq!(max_over_mean(1, 10.0), 1.0);
        assert!(max_over_mean(64, 1000.0) < max_over_mean(64, 100.0));
        assert!(max_over_mean(64, 100.0) > max_over_mean(8, 100.0));
    }
}
