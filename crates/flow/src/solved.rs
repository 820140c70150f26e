//! What one solve returns (its flows, what each stands for, their rates) and what a study asks
//! of it; and the key a hashed path is grouped by. Shared by the full solve and ECMP's early
//! answer.

use crate::maxmin::Allocation;
use fabricscope_model::error::ModelError;

/// What a flow of a solve stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Owner {
    /// A demand it belongs to (a class's first demand).
    pub demand: usize,
    /// Connections per demand it carries.
    pub conns: u32,
    /// Demands it stands for (a class's size; 1 under ECMP).
    pub members: u32,
}

/// One solve of some demands: the flows, what each stands for, and the load they put on links.
pub(crate) struct Solved {
    pub alloc: Allocation,
    pub owner: Vec<Owner>,
    /// Per flow: its rate with only NIC links (what it would get on an ideal fabric).
    pub nic_only: Vec<f64>,
    /// Connections on each link.
    pub conns_on: Vec<u32>,
    /// The slowest flow's rate with only NIC links (every flow's, also those a stopped
    /// filling leaves out; infinite with no flow).
    pub ideal: f64,
}

/// What a study reads from a solve, so the filling may stop once that is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Every flow's rate (a permutation's mean over flows).
    Every,
    /// The job's slowest connection (a collective's fraction) and its bottleneck.
    Slowest,
    /// The slowest connection and whether any connection collided.
    SlowestAndCollisions,
}

pub(crate) fn cut() -> ModelError {
    ModelError::new("links_down", "the failures cut the fabric in two: a flow has no path left")
}

/// A hashed path of up to [`MAX_HOPS`] switch links as one sortable key (unused hops are
/// `u32::MAX`); longer paths (a detour around failures) keep their links in a side list.
pub(crate) type PathKey = [u32; MAX_HOPS];

/// Switch links on a path kept in a [`PathKey`] (count): leaf, spine, core, spine, leaf.
pub(crate) const MAX_HOPS: usize = 4;

pub(crate) fn path_key(links: &[u32]) -> PathKey {
    let mut k = [u32::MAX; MAX_HOPS];
    k[..links.len().min(MAX_HOPS)].copy_from_slice(&links[..links.len().min(MAX_HOPS)]);
    k
}

pub(crate) fn unpack(k: PathKey) -> impl Iterator<Item = u32> {
    k.into_iter().take_while(|&l| l != u32::MAX)
}

/// Connections on one path are one flow (they share every link): sorts `keys`, then calls
/// `each` once per distinct path with the number of connections on it.
pub(crate) fn each_path(keys: &mut [PathKey], mut each: impl FnMut(PathKey, u32)) {
    keys.sort_unstable();
    let mut k = 0;
    while k < keys.len() {
        let mut j = k + 1;
        while j < keys.len() && keys[j] == keys[k] {
            j += 1;
        }
        each(keys[k], (j - k) as u32);
        k = j;
    }
}

