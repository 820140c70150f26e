//! The Scenario: everything a user can set, as one serde value. URL, JSON file, CLI flags and
//! UI controls all produce one; [`crate::report::evaluate`] turns it into a Report.

use crate::collective::Collective;
use crate::topology::Cluster;
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
}

impl Default for View {
    fn default() -> Self {
        View {
            ops: vec![Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll],
            min_bytes: Bytes(8),
            max_bytes: Bytes(16 << 30),
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
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::new(Cluster::default())
    }
}

impl Scenario {
    pub fn new(cluster: Cluster) -> Self {
        Scenario { version: SCENARIO_VERSION, cluster, view: View::default() }
    }
}
