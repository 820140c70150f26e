//! The Scenario: everything a user can set, as one serde value. URL, JSON file, CLI flags and
//! UI controls all produce one; [`crate::report::evaluate`] turns it into a Report.

use crate::collective::Collective;
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
}
