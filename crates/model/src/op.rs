//! The collectives by name: what every module that names one imports (a leaf: it imports no
//! other file of the crate, so the calibration's values, `fitted`, can name them too).

use serde::{Deserialize, Serialize};

/// The collectives Fabricscope predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    SendRecv,
    Broadcast,
    Reduce,
}

impl Collective {
    pub const ALL: [Collective; 7] = [
        Collective::AllReduce,
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::AllToAll,
        Collective::SendRecv,
        Collective::Broadcast,
        Collective::Reduce,
    ];
    pub fn id(self) -> &'static str {
        match self {
            Collective::AllReduce => "all_reduce",
            Collective::AllGather => "all_gather",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::AllToAll => "all_to_all",
            Collective::SendRecv => "send_recv",
            Collective::Broadcast => "broadcast",
            Collective::Reduce => "reduce",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Collective::AllReduce => "AllReduce",
            Collective::AllGather => "AllGather",
            Collective::ReduceScatter => "ReduceScatter",
            Collective::AllToAll => "AllToAll",
            Collective::SendRecv => "SendRecv",
            Collective::Broadcast => "Broadcast",
            Collective::Reduce => "Reduce",
        }
    }
    /// Accepts `all_reduce`, `allreduce`, `all-reduce`, `alltoall`.
    pub fn from_id(id: &str) -> Option<Self> {
        let norm: String = id.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
        Self::ALL.into_iter().find(|c| c.id().replace('_', "") == norm)
    }
    pub fn ids() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.id()).collect()
    }
    /// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): busbw = algbw x factor.
    pub fn busbw_factor(self, n: u32) -> f64 {
        let n = n.max(1) as f64;
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => (n - 1.0) / n,
            Collective::SendRecv | Collective::Broadcast | Collective::Reduce => 1.0,
        }
    }}
