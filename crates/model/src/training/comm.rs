//! Collective costs for the training model, cached: many candidate layouts share the same
//! groups and message sizes, and building a communicator runs NCCL's topology search.

use super::mapping::{GroupSpan, SpanTier};
use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::Result;
use crate::topology::{Placement, Topology};
use crate::units::Bytes;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiplicative hasher for the model's integer keys (std's SipHash is needlessly
/// slow for them; nothing here is exposed to untrusted keys).
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(7) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.mix(v as u64)
    }
    fn write_u32(&mut self, v: u32) {
        self.mix(v as u64)
    }
    fn write_u64(&mut self, v: u64) {
        self.mix(v)
    }
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64)
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Index of a communicator in a [`CommCache`].
pub type CommId = u32;

/// Communicators by (placement, NIC share) and predictions by (op, communicator, bytes).
#[derive(Default)]
pub struct CommCache {
    /// (placement, NIC share bits, GPUs per domain of the topology it was built on, comm).
    comms: Vec<(Placement, u64, u32, Comm)>,
    preds: FastMap<(u8, CommId, u64), f64>,
}

fn op_code(op: Collective) -> u8 {
    op as u8
}

impl CommCache {
    /// The communicator for groups placed like `span` (None for one-GPU groups).
    pub fn comm(&mut self, topo: &Topology, span: &GroupSpan) -> Result<Option<CommId>> {
        if span.tier == SpanTier::Local {
            return Ok(None);
        }
        let share_bits = span.net_share.to_bits();
        let d = topo.domain_gpus;
        if let Some(i) = self.comms.iter().position(|(p, s, dg, _)| *p == span.placement && *s == share_bits && *dg == d) {
            return Ok(Some(i as CommId));
        }
        // On a cluster as measured the communicator takes the fit from the topology.
        let c = Comm::new_shared(topo, span.placement, span.net_share)?;
        self.comms.push((span.placement, share_bits, d, c));
        Ok(Some((self.comms.len() - 1) as CommId))
    }

    /// A communicator for an explicit placement (e.g. the two embedding stages).
    pub fn comm_for(&mut self, topo: &Topology, p: Placement) -> Result<CommId> {
        let d = topo.domain_gpus;
        if let Some(i) = self.comms.iter().position(|(q, s, dg, _)| *q == p && *s == 1f64.to_bits() && *dg == d) {
            return Ok(i as CommId);
        }
        let c = Comm::new(topo, p)?;
        self.comms.push((p, 1f64.to_bits(), d, c));
        Ok((self.comms.len() - 1) as CommId)
    }

    /// Time in µs of `op` on `bytes` (nccl-tests size convention) for communicator `id`.
    pub fn time(&mut self, id: Option<CommId>, op: Collective, bytes: f64) -> Result<f64> {
        let Some(id) = id else { return Ok(0.0) };
        if bytes < 1.0 {
            return Ok(0.0);
        }
        let b = bytes.round() as u64;
        let key = (op_code(op), id, b);
        if let Some(t) = self.preds.get(&key) {
            return Ok(*t);
        }
        let comm = &self.comms[id as usize].3;
        let t = comm.predict(op, Bytes(b), AlgoChoice::Auto, ProtoChoice::Auto)?.time.0;
        self.preds.insert(key, t);
        Ok(t)
    }

    /// NCCL channels (one thread block, i.e. one SM, each) the communicator's rings use.
    pub fn channels(&self, id: Option<CommId>) -> u32 {
        id.map_or(0, |i| self.comms[i as usize].3.graphs.ring.n_channels)
    }

    /// What routing leaves the communicator's rings of the network ([`crate::collective::Comm::ring_routing`]).
    pub fn ring_routing(&self, id: Option<CommId>) -> f64 {
        id.map_or(1.0, |i| self.comms[i as usize].3.ring_routing())
    }

    pub fn algorithm(&self, id: Option<CommId>, op: Collective, bytes: f64) -> Option<&'static str> {
        let c = &self.comms[id? as usize].3;
        c.predict(op, Bytes(bytes.max(1.0) as u64), AlgoChoice::Auto, ProtoChoice::Auto).ok().map(|p| p.algorithm)
    }
}
