//! A faithful port of NCCL's collective cost model (NVIDIA/nccl v2.27.5-1): the topology
//! search that yields channels and per-channel bandwidth, and the tuning tables that turn
//! them into a latency and a bandwidth per algorithm and protocol.

pub mod constants;
pub mod ofi_tuner;
pub mod search;
pub mod tuning;

pub use constants::{NcclConstants, NcclVersion};
pub use search::{Graph, Graphs, SearchInput};
pub use tuning::{Algorithm, CommFacts, Func, Protocol, Tuning};
