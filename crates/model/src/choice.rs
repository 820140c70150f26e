//! What a run asks NCCL to use: its own choice of algorithm and protocol, or one forced as with
//! `NCCL_ALGO` and `NCCL_PROTO` (the CLI's `--algo` and `--proto`, Check's reading of a log).

use crate::nccl::tuning::{Algorithm, Protocol};
use serde::{Deserialize, Serialize};

/// Which algorithm to run: NCCL's choice, or one forced as with `NCCL_ALGO`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlgoChoice {
    #[default]
    Auto,
    Ring,
    Tree,
    Nvls,
    NvlsTree,
    Collnet,
    Pat,
}

impl AlgoChoice {
    pub const ALL: [AlgoChoice; 7] = [
        AlgoChoice::Auto,
        AlgoChoice::Ring,
        AlgoChoice::Tree,
        AlgoChoice::Nvls,
        AlgoChoice::NvlsTree,
        AlgoChoice::Collnet,
        AlgoChoice::Pat,
    ];
    pub fn id(self) -> &'static str {
        match self {
            AlgoChoice::Auto => "auto",
            AlgoChoice::Ring => "ring",
            AlgoChoice::Tree => "tree",
            AlgoChoice::Nvls => "nvls",
            AlgoChoice::NvlsTree => "nvlstree",
            AlgoChoice::Collnet => "collnet",
            AlgoChoice::Pat => "pat",
        }
    }
    pub fn from_id(id: &str) -> Option<Self> {
        let id = id.to_ascii_lowercase().replace(['_', '-'], "");
        Self::ALL.into_iter().find(|a| a.id() == id)
    }
    pub(crate) fn admits(self, a: Algorithm) -> bool {
        match self {
            AlgoChoice::Auto => true,
            AlgoChoice::Ring => a == Algorithm::Ring,
            AlgoChoice::Tree => a == Algorithm::Tree,
            AlgoChoice::Nvls => a == Algorithm::Nvls,
            AlgoChoice::NvlsTree => a == Algorithm::NvlsTree,
            AlgoChoice::Collnet => matches!(a, Algorithm::CollNetDirect | Algorithm::CollNetChain),
            AlgoChoice::Pat => a == Algorithm::Pat,
        }
    }
    pub(crate) fn of(a: Algorithm) -> AlgoChoice {
        match a {
            Algorithm::Tree => AlgoChoice::Tree,
            Algorithm::Ring => AlgoChoice::Ring,
            Algorithm::CollNetDirect | Algorithm::CollNetChain => AlgoChoice::Collnet,
            Algorithm::Nvls => AlgoChoice::Nvls,
            Algorithm::NvlsTree => AlgoChoice::NvlsTree,
            Algorithm::Pat => AlgoChoice::Pat,
        }
    }
}

/// Which protocol to run: NCCL's choice, or one forced as with `NCCL_PROTO`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtoChoice {
    #[default]
    Auto,
    Ll,
    Ll128,
    Simple,
}

impl ProtoChoice {
    pub const ALL: [ProtoChoice; 4] = [ProtoChoice::Auto, ProtoChoice::Ll, ProtoChoice::Ll128, ProtoChoice::Simple];
    pub fn id(self) -> &'static str {
        match self {
            ProtoChoice::Auto => "auto",
            ProtoChoice::Ll => "ll",
            ProtoChoice::Ll128 => "ll128",
            ProtoChoice::Simple => "simple",
        }
    }
    pub fn from_id(id: &str) -> Option<Self> {
        let id = id.to_ascii_lowercase();
        Self::ALL.into_iter().find(|p| p.id() == id)
    }
    pub(crate) fn admits(self, p: Protocol) -> bool {
        match self {
            ProtoChoice::Auto => true,
            ProtoChoice::Ll => p == Protocol::Ll,
            ProtoChoice::Ll128 => p == Protocol::Ll128,
            ProtoChoice::Simple => p == Protocol::Simple,
        }
    }
}
