//! The allowed range of every count and size a scenario file, a link or a CLI flag can carry,
//! in one table, so every input path is held to the same limits (and nothing a user types can
//! make the model loop or allocate without bound).

use crate::error::{ModelError, Result};
use crate::units::{format_size, Bytes};

/// How a limit's values read in a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Count,
    /// Bytes, written with power-of-two suffixes (`16G`).
    Bytes,
}

/// An inclusive range of whole numbers for one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The model's name for the field ([`ModelError::field`]; the CLI flag with dashes).
    pub field: &'static str,
    /// What the number is, for messages ("the node count").
    pub what: &'static str,
    pub min: u64,
    pub max: u64,
    pub unit: Unit,
}

const fn count(field: &'static str, what: &'static str, min: u64, max: u64) -> Limit {
    Limit { field, what, min, max, unit: Unit::Count }
}

impl Limit {
    /// `v` if it lies in the range, else an error naming the field and the range.
    pub fn check(&self, v: u64) -> Result<u64> {
        if v < self.min || v > self.max {
            return Err(ModelError::new(self.field, format!("{} must be between {}; got {}", self.what, self.range_text(), self.show(v))));
        }
        Ok(v)
    }

    /// [`Limit::check`] for a u32 field.
    pub fn check_u32(&self, v: u32) -> Result<u32> {
        self.check(v as u64).map(|_| v)
    }

    /// "1 and 65536" (sizes: "1B and 1T (2^40 bytes)").
    pub fn range_text(&self) -> String {
        format!("{} and {}", self.show(self.min), self.show(self.max))
    }

    fn show(&self, v: u64) -> String {
        match self.unit {
            Unit::Count => v.to_string(),
            Unit::Bytes if v.is_power_of_two() && v >= 1024 => format!("{} (2^{} bytes)", format_size(Bytes(v)), v.ilog2()),
            Unit::Bytes => format_size(Bytes(v)),
        }
    }
}

// Cluster counts: physical enough for the largest systems built, small enough that every
// product of them stays in range.

/// Nodes (hosts; NVL72 compute trays). 65,536 nodes of 4 GPUs is the largest cluster.
pub const NODES: Limit = count("nodes", "the node count", 1, 65_536);
/// GPUs per node: an NVL72 rack taken as one node is the largest.
pub const GPUS_PER_NODE: Limit = count("gpus_per_node", "GPUs per node", 1, 72);
/// GPUs in the whole cluster (nodes x GPUs per node), blamed on the node count.
pub const TOTAL_GPUS: Limit = count("nodes", "the GPU count (nodes x GPUs per node)", 1, 262_144);
/// Scale-out NICs per node.
pub const NICS_PER_NODE: Limit = count("nics_per_node", "NICs per node", 0, 32);
/// Leaf switches of the fat tree (when set by hand).
pub const LEAF_SWITCHES: Limit = count("leaf_switches", "the leaf switch count", 1, 100_000);
/// Spine switches of the fat tree (when set by hand).
pub const SPINE_SWITCHES: Limit = count("spine_switches", "the spine switch count", 0, 100_000);
/// Ports per switch.
pub const SWITCH_RADIX: Limit = count("switch_radix", "the switch radix", 4, 1_024);
/// GPUs in a communicator (CLI `--group-ranks`).
pub const GROUP_RANKS: Limit = count("group_ranks", "GPUs in the group", 1, TOTAL_GPUS.max);
/// A communicator's GPUs per domain (CLI `--group-per-node`).
pub const GROUP_PER_NODE: Limit = count("group_per_node", "the group's GPUs per node", 1, GPUS_PER_NODE.max);
/// GPUs one host process drives, as nccl-tests' `-g` (1 = one process per GPU, MPI-style).
pub const GPUS_PER_PROCESS: Limit = count("gpus_per_process", "GPUs one process drives", 1, GPUS_PER_NODE.max);
/// Queue pairs per NCCL network connection (NCCL_IB_QPS_PER_CONNECTION, at most NCCL's
/// NCCL_IB_MAX_QPS = 128).
pub const QPS_PER_CONNECTION: Limit = count("qps_per_connection", "queue pairs per connection", 1, 128);
/// Board power cap in watts: from below any datacenter GPU's minimum limit (H100 SXM's is
/// 200 W, `nvidia-smi -q -d POWER`) to above the largest default (GH200 module, 1,000 W).
pub const POWER_CAP_W: Limit = count("power_cap_w", "the power cap in watts", 100, 1_200);

// Message sizes.

/// Largest message: 1 TiB, more than any single GPU holds (the sweep from 1 byte is 41 sizes).
pub const MAX_MESSAGE: u64 = 1 << 40;
/// One message (CLI `--bytes`).
pub const BYTES: Limit = Limit { field: "bytes", what: "the message size", min: 1, max: MAX_MESSAGE, unit: Unit::Bytes };
/// Smallest size of the sweep.
pub const MIN_BYTES: Limit = Limit { field: "min_bytes", what: "the sweep's smallest size", ..BYTES };
/// Largest size of the sweep.
pub const MAX_BYTES: Limit = Limit { field: "max_bytes", what: "the sweep's largest size", ..BYTES };
/// Collectives swept: each of the 7 at most once.
pub const OPS: Limit = count("ops", "the number of collectives", 0, 7);

// Training: the layout and the search.

/// Each parallel size (TP, PP, DP, CP, EP), the micro-batch and the interleave: at most the
/// largest cluster.
pub const PARALLEL: u64 = TOTAL_GPUS.max;
/// Tensor-parallel size (GPUs).
pub const TP: Limit = count("tp", "tp", 1, PARALLEL);
/// Pipeline stages.
pub const PP: Limit = count("pp", "pp", 1, PARALLEL);
/// Data-parallel replicas.
pub const DP: Limit = count("dp", "dp", 1, PARALLEL);
/// Context-parallel size (GPUs).
pub const CP: Limit = count("cp", "cp", 1, PARALLEL);
/// Expert-parallel size (GPUs).
pub const EP: Limit = count("ep", "ep", 1, PARALLEL);
/// Virtual pipeline stages per GPU.
pub const INTERLEAVE: Limit = count("interleave", "interleave", 1, PARALLEL);
/// Tensor-parallel size of the expert layers (MoE parallel folding).
pub const EXPERT_TP: Limit = count("expert_tp", "expert tp", 1, PARALLEL);
/// Sequences per micro-batch (a scenario's 0 leaves it to the search).
pub const MICRO_BATCH: Limit = count("micro_batch", "micro-batch", 1, PARALLEL);
/// ZeRO stage.
pub const ZERO: Limit = count("zero", "the ZeRO stage", 0, 3);
/// Length of a workload id in bytes (a custom id of seven 10-digit sizes is 84).
pub const WORKLOAD_ID: Limit = count("workload", "the workload id's length in bytes", 1, 200);
/// Measured nccl-tests runs a scenario keeps (`fabricscope_check`): a log of every collective
/// on every node of a large cluster fits; the limit bounds what a file or link can make us do.
pub const MEASURED_RUNS: Limit = count("measured", "the number of measured runs", 0, 256);
/// Sizes of one measured run (nccl-tests' default sweep, 8 B to 16 GiB, is 32).
pub const MEASURED_POINTS: Limit = count("measured", "the sizes of a measured run", 0, 256);
/// Ranks of one measured run.
pub const MEASURED_RANKS: Limit = count("measured", "a measured run's rank count", 1, TOTAL_GPUS.max);
/// Layouts a search returns (CLI `--top`); each is a full report, so this bounds memory.
pub const TOP: Limit = count("top", "the number of layouts shown", 1, 10_000);

// Workload shape: every product of these stays inside u64 and f64 exactness.

/// Largest model dimension (hidden size, heads).
pub const MAX_DIM: u64 = 1 << 20;
/// Transformer layers.
pub const LAYERS: Limit = count("layers", "the layer count", 1, 4096);
/// Hidden size (elements).
pub const HIDDEN: Limit = count("hidden", "the hidden size", 1, MAX_DIM);
/// Attention (query) heads.
pub const HEADS: Limit = count("heads", "the attention head count", 1, MAX_DIM);
/// Key/value heads.
pub const KV_HEADS: Limit = count("kv_heads", "the key/value head count", 1, MAX_DIM);
/// Dimension of one head (0: hidden / heads).
pub const HEAD_DIM: Limit = count("head_dim", "the head dimension", 0, 4096);
/// Feed-forward intermediate size (elements).
pub const FFN: Limit = count("ffn", "the feed-forward size", 1, MAX_DIM * 8);
/// Vocabulary size (tokens).
pub const VOCAB: Limit = count("vocab", "the vocabulary size", 1, MAX_DIM * 4);
/// Sequence length (tokens).
pub const SEQ: Limit = count("seq", "the sequence length", 1, MAX_DIM * 4);
/// Tokens per block of a paged KV cache (vLLM's `--block-size` choices reach 256; Mooncake and
/// SGLang pages go higher).
pub const BLOCK_TOKENS: Limit = count("block_tokens", "tokens per KV cache block", 1, 65_536);
/// Sequences per optimizer step.
pub const GLOBAL_BATCH: Limit = count("global_batch", "the global batch (sequences per step)", 1, 1 << 24);
/// Routed experts per MoE layer.
pub const EXPERTS: Limit = count("experts", "the expert count", 1, 4096);
/// Intermediate size of one expert (elements).
pub const EXPERT_FFN: Limit = count("expert_ffn", "the expert feed-forward size", 1, MAX_DIM * 8);
/// Intermediate size of the always-active shared expert(s) (0: none).
pub const SHARED_EXPERT_FFN: Limit = count("shared_expert_ffn", "the shared expert feed-forward size", 0, MAX_DIM * 8);
/// Leading layers with a dense MLP (at most the layer count less one, checked with the
/// workload).
pub const MOE_DENSE_LAYERS: Limit = count("moe_dense_layers", "the leading dense layers", 0, LAYERS.max - 1);
/// Experts each token goes to (at most the expert count, checked with the workload).
pub const TOP_K: Limit = count("top_k", "top-k", 1, EXPERTS.max);

/// Nodes a token's experts may span under node-limited routing (0: no limit; DeepSeek-V3
/// uses 4, DeepSeek-V2 3): at most the expert count, since each node needs an expert.
pub const MAX_NODES_PER_TOKEN: Limit = count("max_nodes_per_token", "the nodes per token of node-limited routing", 0, EXPERTS.max);

/// Every limit, for tests and documentation.
pub const ALL: [Limit; 39] = [
    NODES, GPUS_PER_NODE, TOTAL_GPUS, NICS_PER_NODE, LEAF_SWITCHES, SPINE_SWITCHES, SWITCH_RADIX, GROUP_RANKS,
    GROUP_PER_NODE, BYTES, MIN_BYTES, MAX_BYTES, OPS, TP, PP, DP, CP, EP, INTERLEAVE, MICRO_BATCH, ZERO,
    WORKLOAD_ID, TOP, LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB, SEQ, GLOBAL_BATCH, EXPERTS,
    EXPERT_FFN, TOP_K, EXPERT_TP, SHARED_EXPERT_FFN, MOE_DENSE_LAYERS, MAX_NODES_PER_TOKEN,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_field_and_the_range() {
        let e = NODES.check(0).unwrap_err();
        assert_eq!((e.field, e.message.as_str()), ("nodes", "the node count must be between 1 and 65536; got 0"));
        assert_eq!(NODES.check(65_536), Ok(65_536));
        let e = MAX_BYTES.check(u64::MAX).unwrap_err();
        assert_eq!(e.field, "max_bytes");
        assert!(e.message.starts_with("the sweep's largest size must be between 1B and 1T (2^40 bytes); got "), "{}", e.message);
        assert_eq!(TOP.check_u32(u32::MAX).unwrap_err().field, "top");
    }
}
