//! KV transfer between disaggregated prefill and decode nodes: latency plus bytes over the
//! effective NIC bandwidth (line rate x measured goodput x rails), and the prefill:decode
//! GPU ratio that balances the two pools.

use crate::bands::band_pct;
use crate::hardware::{AccuracyClass, HwClass};
use crate::model::ServingModel;
use crate::precision::Precision;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::{Bytes, GBps, Micros};
use fabricscope_model::Topology;
use serde::Serialize;

/// One transfer: the KV cache of `tokens` tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvTransferInput {
    pub tokens: u32,
    pub kv_precision: Precision,
    /// NICs the transfer stripes over; `None`: all of a node's NICs.
    pub rails: Option<u32>,
}

/// Its cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KvTransfer {
    pub bytes: Bytes,
    pub time: Micros,
    /// bytes / time, per direction.
    pub effective: GBps,
    pub rails: u32,
    pub latency: Micros,
    /// Median error of the KV-transfer class on published transfers, percent; `None` where
    /// no measurement covers the class.
    pub error_band_pct: Option<f64>,
}

/// The KV cache of `i.tokens` tokens of `model` sent from one node to another over `topo`'s
/// NICs. Latency: one RDMA READ round trip (twice the NIC's one-way latency, the catalog's
/// figure); bandwidth: the NIC's achievable goodput (line rate x the efficiency the catalog
/// measured with nccl-tests) times the rails used.
pub fn kv_transfer(topo: &Topology, model: &ServingModel, i: &KvTransferInput) -> Result<KvTransfer> {
    let nics = topo.cluster.nics_per_node;
    if nics == 0 {
        return Err(ModelError::new("nics_per_node", "a KV transfer between nodes needs NICs: use at least 1 NIC per node"));
    }
    if i.tokens == 0 || i.tokens > crate::deploy::MAX_TOKENS {
        return Err(ModelError::new("tokens", format!("tokens must be 1 to {}; got {}", crate::deploy::MAX_TOKENS, i.tokens)));
    }
    let rails = i.rails.unwrap_or(nics);
    if rails == 0 || rails > nics {
        return Err(ModelError::new("rails", format!("a KV transfer stripes over 1 to {nics} NICs of a node; got {rails}")));
    }
    let bytes = Bytes((model.kv_bytes_per_token(i.kv_precision.bytes()) * i.tokens as f64).round() as u64);
    let bw = GBps(topo.nic.achievable_bw().0 * rails as f64);
    let latency = Micros(2.0 * topo.nic.latency.0);
    let time = latency + bw.time_for(bytes);
    Ok(KvTransfer {
        bytes,
        time,
        effective: bytes.per(time),
        rails,
        latency,
        error_band_pct: band_pct(AccuracyClass::KvTransfer, HwClass::of(topo.gpu)),
    })
}

/// Prefill GPUs per decode GPU that keep both pools equally busy: a request costs
/// `input_len / prefill_per_gpu` prefill GPU-seconds and `output_len / decode_per_gpu` decode
/// GPU-seconds (throughputs in tokens/s per GPU).
pub fn balance_ratio(input_len: u32, output_len: u32, prefill_per_gpu: f64, decode_per_gpu: f64) -> Option<f64> {
    if prefill_per_gpu <= 0.0 || decode_per_gpu <= 0.0 || output_len == 0 {
        return None;
    }
    Some((input_len as f64 / prefill_per_gpu) / (output_len as f64 / decode_per_gpu))
}
