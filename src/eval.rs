//! What the page shows, as a pure function of the cluster: the AllReduce busbw curve over
//! nccl-tests' sweep and NCCL's choice at one size. No web types, so it tests natively.

use fabricscope_model::units::Bytes;
use fabricscope_model::{
    sweep_sizes, AlgoChoice, Bottleneck, Cluster, Collective, Comm, ModelError, Prediction,
    ProtoChoice, TierKind,
};

/// nccl-tests' default sweep: 8 B to 16 GiB in powers of two.
pub const SWEEP_MIN: u64 = 8;
pub const SWEEP_MAX: u64 = 16 << 30;
/// The size the key numbers quote (1 GiB, a typical gradient bucket is far smaller, but
/// nccl-tests' plateau is what vendors quote).
pub const KEY_BYTES: u64 = 1 << 30;
/// [`KEY_BYTES`] in words.
pub const KEY_LABEL: &str = "1 GiB";

/// The node slider's range: powers of two from 2^0 to 2^10.
pub const MAX_NODE_STEP: u32 = 10;

/// Everything the page draws for one valid cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub cluster: Cluster,
    pub total_gpus: u32,
    /// "8 × H100 SXM"-style description of one node.
    pub node_summary: String,
    /// Scale-up fabric name.
    pub scale_up: String,
    /// Scale-out NICs of one node.
    pub nics: String,
    /// (bytes, AllReduce busbw in GB/s per direction) over the sweep.
    pub curve: Vec<(u64, f64)>,
    /// The prediction at [`KEY_BYTES`].
    pub key: Prediction,
}

/// Runs the model for an AllReduce over every GPU of `cluster`.
pub fn evaluate(cluster: &Cluster) -> Result<Evaluation, ModelError> {
    let topo = cluster.topology()?;
    let comm = Comm::new(&topo, topo.whole())?;
    let predict = |b: Bytes| {
        comm.predict(
            Collective::AllReduce,
            b,
            AlgoChoice::Auto,
            ProtoChoice::Auto,
        )
    };
    let mut curve = Vec::with_capacity(32);
    for b in sweep_sizes(Bytes(SWEEP_MIN), Bytes(SWEEP_MAX)) {
        curve.push((b.0, predict(b)?.busbw.0));
    }
    let key = predict(Bytes(KEY_BYTES))?;
    Ok(Evaluation {
        cluster: cluster.clone(),
        total_gpus: topo.total_gpus,
        node_summary: format!("{} × {}", cluster.gpus_per_node, topo.gpu.name),
        scale_up: cluster.scale_up.name().to_string(),
        nics: if cluster.nics_per_node == 0 {
            "no NICs".into()
        } else {
            format!("{} × {}", cluster.nics_per_node, topo.nic.name)
        },
        curve,
        key,
    })
}

/// Slider position for a node count: the largest power of two not above it, clamped.
pub fn node_step(nodes: u32) -> u32 {
    nodes.max(1).ilog2().min(MAX_NODE_STEP)
}

/// Node count at a slider position.
pub fn step_nodes(step: u32) -> u32 {
    1 << step.min(MAX_NODE_STEP)
}

/// What a screen reader announces for the slider: "32 nodes, 256 GPUs".
pub fn nodes_text(nodes: u32, gpus_per_node: u32) -> String {
    let gpus = nodes.saturating_mul(gpus_per_node);
    format!(
        "{nodes} {}, {gpus} {}",
        if nodes == 1 { "node" } else { "nodes" },
        if gpus == 1 { "GPU" } else { "GPUs" }
    )
}

/// Parses the number box. Out-of-range counts go to the model, which says what is allowed.
pub fn parse_nodes(text: &str) -> Result<u32, ModelError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ModelError::new(
            "nodes",
            "enter a node count: a whole number, 1 or more",
        ));
    }
    t.parse::<u32>().map_err(|_| {
        ModelError::new(
            "nodes",
            format!("the node count must be a whole number, 1 or more; got \"{t}\""),
        )
    })
}

/// Plain words for what limits a prediction.
pub fn bottleneck_text(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::Latency => "latency",
        Bottleneck::Tier(TierKind::Hbm) => "HBM",
        Bottleneck::Tier(TierKind::ScaleUp) => "scale-up fabric",
        Bottleneck::Tier(TierKind::Pcie) => "PCIe",
        Bottleneck::Tier(TierKind::Nic) => "NICs",
        Bottleneck::Tier(TierKind::Leaf) => "leaf switches",
        Bottleneck::Tier(TierKind::Spine) => "spine switches",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_cluster_evaluates() {
        let e = evaluate(&Cluster::default()).expect("default cluster is valid");
        assert_eq!(e.total_gpus, 32);
        assert_eq!(e.curve.len(), 32);
        assert_eq!(e.curve.first().map(|p| p.0), Some(8));
        assert_eq!(e.curve.last().map(|p| p.0), Some(16 << 30));
        assert!(e.curve.iter().all(|p| p.1.is_finite() && p.1 > 0.0));
        let bw = e.key.busbw.0;
        assert!(bw.is_finite() && bw > 0.0, "{bw}");
        assert_eq!(
            e.node_summary,
            format!(
                "8 × {}",
                fabricscope_model::catalog::GpuKind::H100.spec().name
            )
        );
    }

    /// NCCL 2.27.5's own tables for 2x8 H100 with 8x400G (validation/nccl-golden.csv): Ring
    /// Simple AllReduce has latency 131.6 us (x1.4 on the ring plateau) and algbw 204.8 GB/s.
    pub(crate) fn golden_ring_simple_us() -> f64 {
        131.6 * 1.4 + KEY_BYTES as f64 / (1000.0 * 204.8)
    }

    #[test]
    fn forced_ring_simple_matches_nccl_golden() {
        let c = Cluster {
            nodes: 2,
            ..Cluster::default()
        };
        let topo = c.topology().expect("valid");
        let comm = Comm::new(&topo, topo.whole()).expect("valid");
        let p = comm
            .predict(
                Collective::AllReduce,
                Bytes(KEY_BYTES),
                AlgoChoice::Ring,
                ProtoChoice::Simple,
            )
            .expect("ring runs");
        let want = golden_ring_simple_us();
        assert!(
            (p.time.0 - want).abs() / want < 0.005,
            "{} vs {want}",
            p.time.0
        );
    }

    #[test]
    fn errors_come_from_the_model_with_a_field() {
        let e = evaluate(&Cluster {
            nodes: 0,
            ..Cluster::default()
        })
        .unwrap_err();
        assert_eq!(e.field, "nodes");
        assert!(e.message.contains("between 1 and"), "{}", e.message);
    }

    #[test]
    fn slider_steps_are_powers_of_two() {
        assert_eq!(
            (0..=MAX_NODE_STEP).map(step_nodes).collect::<Vec<_>>(),
            [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
        );
        assert_eq!(node_step(4), 2);
        assert_eq!(node_step(5), 2);
        assert_eq!(node_step(0), 0);
        assert_eq!(node_step(5000), MAX_NODE_STEP);
        assert_eq!(nodes_text(32, 8), "32 nodes, 256 GPUs");
        assert_eq!(nodes_text(1, 1), "1 node, 1 GPU");
    }

    #[test]
    fn number_box_text() {
        assert_eq!(parse_nodes(" 16 "), Ok(16));
        assert_eq!(parse_nodes("").unwrap_err().field, "nodes");
        assert!(parse_nodes("1.5")
            .unwrap_err()
            .message
            .contains("whole number"));
        assert!(parse_nodes("-3").is_err());
    }
}
