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
    /// The throughput chart's y axis.
    pub y_axis: YAxis,
    /// The message sizes the throughput chart shows (the sweep itself stays
    /// `min_bytes..=max_bytes`).
    pub sizes: SizeRange,
    /// The message size the headline numbers and NCCL's formula quote (a power of two
    /// inside the sweep; see [`View::headline_bytes`]).
    pub key_bytes: Bytes,
}

/// The throughput chart's y axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum YAxis {
    /// GB/s from 0: the gap between two curves reads as a distance (the default: the page is
    /// about how much bandwidth each tier leaves).
    #[default]
    Linear,
    /// log10 GB/s: latency-bound sizes (0.01 GB/s) and the plateau (hundreds) on one chart.
    Log,
}

/// The message sizes the throughput chart shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeRange {
    /// [`BANDWIDTH_BOUND_MIN`] up to the sweep's largest size, where bandwidth, not latency,
    /// sets the time (the default).
    #[default]
    BandwidthBound,
    /// The whole sweep (nccl-tests' 8 B to 16 GiB).
    All,
}

/// Smallest size of the bandwidth-bound view: 1 MiB, where an 8-GPU NVLink AllReduce is
/// already past half its plateau (NCCL's LL128/Simple crossover sits at a few hundred KiB
/// on NVLink domains, nccl-tests' plots of DGX H100).
pub const BANDWIDTH_BOUND_MIN: Bytes = Bytes(1 << 20);

/// Headline size when a scenario does not say: 1 GiB, where nccl-tests' busbw has reached
/// its plateau and what vendors quote.
pub const DEFAULT_KEY_BYTES: Bytes = Bytes(1 << 30);

impl View {
    /// The headline size actually used: [`View::key_bytes`] brought to the largest power of
    /// two of the sweep at or below it (the sweep's smallest size when below it all), so it
    /// is always a point of every curve.
    pub fn headline_bytes(&self) -> Bytes {
        let mut b = self.min_bytes.0.max(1);
        let want = self.key_bytes.0.min(self.max_bytes.0);
        while b <= want / 2 {
            b *= 2;
        }
        Bytes(b)
    }

    /// The sizes the throughput chart shows: (smallest, largest) in bytes.
    pub fn chart_bytes(&self) -> (Bytes, Bytes) {
        let lo = match self.sizes {
            SizeRange::All => self.min_bytes,
            SizeRange::BandwidthBound => Bytes(BANDWIDTH_BOUND_MIN.0.clamp(self.min_bytes.0, self.max_bytes.0)),
        };
        (lo, self.max_bytes)
    }
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
            y_axis: YAxis::Linear,
            sizes: SizeRange::BandwidthBound,
            key_bytes: DEFAULT_KEY_BYTES,
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
    /// The training software, an id of [`crate::training::Framework::from_id`]: which
    /// communication it overlaps and which pipeline schedules it has. Absent in files and
    /// links written before it was a choice: Megatron-Core, what they were computed with.
    #[serde(skip_serializing_if = "is_default_framework")]
    pub framework: String,
    /// Virtual pipeline stages per GPU (interleaved 1F1B); `None` leaves it to the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interleave: Option<u32>,
}

/// The framework a training choice takes when none is given.
pub const DEFAULT_FRAMEWORK: &str = "megatron-core";

fn is_default_framework(id: &String) -> bool {
    id == DEFAULT_FRAMEWORK
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
            framework: DEFAULT_FRAMEWORK.to_string(),
            interleave: None,
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
    /// The user's prices (and power figures) for the bill of materials (`fabricscope_design::bom`), as
    /// the file or link gave them (null: nothing priced). Read and checked where a bill of
    /// materials is made (`fabricscope_design::bom::PriceBook::from_value`, `fabricscope_design::bom::scenario_bom`),
    /// not by `validate`: the explorer, which makes none, carries no code for them.
    /// Files and links write them under `prices` and the link reader sets them apart from
    /// the rest (`link::apply`), so no reader for them is derived here.
    #[serde(skip_deserializing, skip_serializing_if = "serde_json::Value::is_null")]
    pub prices: serde_json::Value,
    // nccl-tests runs measured on a real cluster travel with a scenario in files and links
    // under `measured`, but are not part of this type: they are read and written apart
    // (`fabricscope_check::runs_of`, `fabricscope_check::file_value`, `fabricscope_check::link_of`),
    // so the explorer, which does not show them, carries no code for them.
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
            prices: serde_json::Value::Null,
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
        if crate::training::Framework::from_id(&t.framework).is_none() {
            return Err(ModelError::new(
                "framework",
                format!("unknown framework '{}'; allowed: {}", t.framework, crate::training::Framework::ids().join(", ")),
            ));
        }
        if let Some(v) = t.interleave {
            limits::INTERLEAVE.check_u32(v)?;
        }
        // Measured runs are held to their ranges where they are read (check::runs_of): the
        // explorer, which validates every design, carries no code for them.
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
    // Written only when set, so absent from the default's serialisation.
    ("framework", "training.framework"),
    ("interleave", "training.interleave"),
];

/// The scenario field (dotted path, `cluster.nodes`) that a [`ModelError::field`] stands for:
/// the field of that name in `cluster`, `view` or `training`, or the field that holds or
/// derives it ([`DERIVED`]). `None` for inputs only the CLI has (`--bytes`, `--algo`, ...).
pub fn scenario_path(field: &str) -> Option<String> {
    if field == "version" || field == "measured" || field == "prices" {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_size_is_a_point_of_the_sweep() {
        let v = View::default();
        assert_eq!(v.headline_bytes(), Bytes(1 << 30));
        assert_eq!(View { key_bytes: Bytes(3 << 20), ..View::default() }.headline_bytes(), Bytes(2 << 20));
        assert_eq!(View { key_bytes: Bytes(1), ..View::default() }.headline_bytes(), Bytes(8));
        assert_eq!(View { key_bytes: Bytes(u64::MAX), ..View::default() }.headline_bytes(), Bytes(16 << 30));
        assert_eq!(v.chart_bytes(), (Bytes(1 << 20), Bytes(16 << 30)));
        let all = View { sizes: SizeRange::All, ..View::default() };
        assert_eq!(all.chart_bytes(), (Bytes(8), Bytes(16 << 30)));
    }
}
