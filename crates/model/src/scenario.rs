//! The Scenario: everything a user can set, as one serde value. URL, JSON file, CLI flags and
//! UI controls all produce one; [`crate::report::evaluate`] turns it into a Report.

use crate::collective::Collective;
use crate::error::{ModelError, Result};
use crate::limits;
use crate::topology::Cluster;
use crate::training::Recompute;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Version of the scenario schema. Bump it when a field changes meaning, and migrate.
pub const SCENARIO_VERSION: u32 = 1;

/// What the user asked to see, besides the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct View {
    /// Collectives to sweep.
    pub ops: Vec<Collective>,
    /// Smallest message of the sweep.
    pub min_bytes: Bytes,
    /// Largest message of the sweep.
    pub max_bytes: Bytes,
    /// The collective the throughput chart shows.
    pub selected_op: Collective,
    /// Show algbw (bytes / time) instead of busbw.
    pub algbw: bool,
}

impl Default for View {
    fn default() -> Self {
        View {
            ops: vec![
                Collective::AllReduce,
                Collective::AllGather,
                Collective::ReduceScatter,
                Collective::AllToAll,
            ],
            min_bytes: Bytes(8),
            max_bytes: Bytes(16 << 30),
            selected_op: Collective::AllReduce,
            algbw: false,
        }
    }
}

/// The training panels' choices: which job, and which parallel layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingChoice {
    /// A workload preset id of [`crate::training`] (e.g. `llama3-8b`), or custom sizes
    /// (see [`crate::training::explore::CUSTOM`]).
    pub workload: String,
    /// Show the search's best layout instead of the requested sizes.
    pub best: bool,
    /// Requested tensor-, pipeline-, context- and expert-parallel sizes.
    pub tp: u32,
    pub pp: u32,
    pub cp: u32,
    pub ep: u32,
    /// Sequences per micro-batch; 0 leaves it to the search.
    pub micro_batch: u32,
    /// Activation recomputation; `None` leaves it to the search.
    pub recompute: Option<Recompute>,
    /// ZeRO stage (0-3) over the data-parallel group; `None` leaves it to the search.
    pub zero: Option<u8>,
}

impl Default for TrainingChoice {
    fn default() -> Self {
        TrainingChoice {
            workload: "llama3-8b".to_string(),
            best: true,
            tp: 8,
            pp: 1,
            cp: 1,
            ep: 1,
            micro_batch: 0,
            recompute: None,
            zero: None,
        }
    }
}

/// A complete, self-describing input to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    pub cluster: Cluster,
    pub view: View,
    pub training: TrainingChoice,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::new(Cluster::default())
    }
}

impl Scenario {
    pub fn new(cluster: Cluster) -> Self {
        Scenario {
            version: SCENARIO_VERSION,
            cluster,
            view: View::default(),
            training: TrainingChoice::default(),
        }
    }

    /// Every field within its range ([`limits`]): what a file, a link and the CLI's flags are
    /// all held to before anything is computed. Only ranges: whether the cluster can be built
    /// is [`Cluster::topology`]'s to say, and whether the job trains, the training model's.
    pub fn validate(&self) -> Result<()> {
        if self.version > SCENARIO_VERSION {
            return Err(ModelError::new(
                "version",
                format!("scenario version {} is newer than this build understands (up to {SCENARIO_VERSION})", self.version),
            ));
        }
        let v = &self.view;
        limits::MIN_BYTES.check(v.min_bytes.0)?;
        limits::MAX_BYTES.check(v.max_bytes.0)?;
        if v.min_bytes > v.max_bytes {
            return Err(ModelError::new(
                "min_bytes",
                format!("the sweep's smallest size {} is larger than its largest {}; use min_bytes <= max_bytes", v.min_bytes.0, v.max_bytes.0),
            ));
        }
        limits::OPS.check(v.ops.len() as u64)?;
        if let Some(op) = v.ops.iter().enumerate().find_map(|(i, op)| v.ops[..i].contains(op).then_some(op)) {
            return Err(ModelError::new("ops", format!("{} is listed twice; list each collective at most once", op.id())));
        }
        self.cluster.check_counts()?;
        let t = &self.training;
        limits::WORKLOAD_ID.check(t.workload.len() as u64)?;
        for (limit, v) in [(limits::TP, t.tp), (limits::PP, t.pp), (limits::CP, t.cp), (limits::EP, t.ep)] {
            limit.check_u32(v)?;
        }
        if t.micro_batch != 0 {
            limits::MICRO_BATCH.check_u32(t.micro_batch)?;
        }
        if let Some(z) = t.zero {
            limits::ZERO.check(z as u64)?;
        }
        Ok(())
    }
}

/// Inputs a scenario holds inside another field, or derives from one: a custom workload's
/// sizes are parts of `training.workload` (as are a preset's precision and shape), and DP is
/// what the node count leaves after TP x PP x CP.
const DERIVED: &[(&str, &str)] = &[
    ("layers", "training.workload"),
    ("hidden", "training.workload"),
    ("heads", "training.workload"),
    ("kv_heads", "training.workload"),
    ("head_dim", "training.workload"),
    ("ffn", "training.workload"),
    ("vocab", "training.workload"),
    ("seq", "training.workload"),
    ("global_batch", "training.workload"),
    ("experts", "training.workload"),
    ("top_k", "training.workload"),
    ("expert_ffn", "training.workload"),
    ("shared_expert_ffn", "training.workload"),
    ("moe_dense_layers", "training.workload"),
    ("precision", "training.workload"),
    ("dp", "cluster.nodes"),
];

/// The scenario field (dotted path, `cluster.nodes`) that a [`ModelError::field`] stands for:
/// the field of that name in `cluster`, `view` or `training`, or the field that holds or
/// derives it ([`DERIVED`]). `None` for inputs only the CLI has (`--bytes`, `--algo`, ...).
pub fn scenario_path(field: &str) -> Option<String> {
    if field == "version" {
        return Some(field.to_string());
    }
    if let Some((_, path)) = DERIVED.iter().find(|(f, _)| *f == field) {
        return Some(path.to_string());
    }
    let value = serde_json::to_value(Scenario::default()).ok()?;
    ["cluster", "view", "training"]
        .into_iter()
        .find(|section| value.get(section).and_then(|s| s.get(field)).is_some())
        .map(|section| format!("{section}.{field}"))
}
