//! KV transfer between disaggregated prefill and decode nodes: latency plus the longer of the
//! bytes over the effective NIC bandwidth (line rate x measured goodput x rails) and, for a
//! paged cache, the posting of its descriptors; and the prefill:decode GPU ratio that balances
//! the two pools.

use crate::bands::band_pct;
use crate::hardware::{AccuracyClass, HwClass};
use crate::model::{Attention, ServingModel};
use crate::precision::Precision;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::{Bytes, GBps, Micros};
use fabricscope_model::Topology;
use serde::Serialize;

/// Host time to post one RDMA descriptor of a paged KV transfer through NIXL's UCX backend
/// (RC verbs), µs, on hosts with 100G-class rails. Source: LMCache pull request 4161 (RDMA
/// READ between two servers' host memory, NIXL/UCX, one rail): 1 MiB as 256 descriptors of
/// 4,096 B moves at 4.688 GB/s, i.e. 223.7 µs, where the wire needs 86 µs (the table's large
/// transfers reach 12.2 GB/s) and one request's fixed cost is about 10 µs (256 KiB as one
/// descriptor: 31.3 µs against 21.5 µs of wire): posting-bound, (223.7 - 10) / 256 = 0.83 µs
/// per descriptor. 4 KiB is a 16-token block of one K/V head of 128 BF16 elements, a TP rank's
/// share of a GQA layer. The same table gives 1.4 µs at 1 KiB descriptors and hides posting
/// under the wire from 16 KiB up, so the model takes the longer of posting and wire, not their
/// sum. Other published figures: 1.4-1.5 µs per post of one descriptor in NIXL issue 1695
/// (NIXLBench VRAM to VRAM, H200 hosts with ConnectX-7 400G, batch 1, 4-16 KiB blocks; a run
/// its reporter calls slow on the wire, its posting column unaffected); 3.75 µs in vLLM RFC
/// 50913 (NIXL telemetry, 8x L20 in one
/// node, 1,785 descriptors posted in 6.7 ms), and vLLM issue 55434 (GB200) reports UCX
/// `cuda_ipc` posting about 20x slower per descriptor than `rc_x` (its absolute figures were
/// not in the stored excerpt). The cost depends on transport and host; no published paged
/// handoff between nodes states model, block size and time, so a paged transfer has no band.
pub const NIXL_POST_PER_DESCRIPTOR: Micros = Micros(0.83);

/// One transfer: the KV cache of `tokens` tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvTransferInput {
    pub tokens: u32,
    pub kv_precision: Precision,
    /// NICs the transfer stripes over; `None`: all of a node's NICs.
    pub rails: Option<u32>,
    /// Tokens per KV cache block of a paged cache (vLLM's `--block-size`, 16 by default on
    /// CUDA; SGLang's `--page-size`): the transfer moves one descriptor per layer, block and
    /// K/V region. `None`: a contiguous buffer (one descriptor per rail; microbenchmarks,
    /// engines that gather the blocks first).
    pub block_tokens: Option<u32>,
    /// Decode tensor-parallel ranks that each receive their shard of the cache from a prefill
    /// peer over their own NIC: the cache splits by K/V head up to the K/V head count and is
    /// replicated beyond it, and MLA's latent goes whole to every rank ([`ServingModel::kv_shards`]),
    /// so `ranks / shards` copies cross the wire, over `min(ranks, NICs)` rails unless `rails`
    /// says otherwise. `None`: the cache crosses once, striped over `rails`.
    pub decode_tp: Option<u32>,
}

/// Its cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KvTransfer {
    /// Bytes that cross the network: the cache once, or with `decode_tp` every rank's shard.
    pub bytes: Bytes,
    pub time: Micros,
    /// bytes / time, per direction.
    pub effective: GBps,
    pub rails: u32,
    pub latency: Micros,
    /// Descriptors each prefill rank posts: `layers x ceil(tokens / block_tokens) x regions`
    /// (2 for MHA/GQA, whose K and V are separate regions per layer in vLLM's layout; 1 for
    /// MLA's single latent); 0 for a contiguous transfer.
    pub descriptors: u64,
    /// Their posting time on the host ([`NIXL_POST_PER_DESCRIPTOR`] each), overlapped with the
    /// wire: the transfer lasts `latency + max(posting, bytes / bandwidth)`.
    pub posting: Micros,
    /// Median error of the KV-transfer class on published transfers, percent; `None` where
    /// no measurement covers the class, and for a paged transfer (no published paged handoff
    /// states its model, block size and time between nodes).
    pub error_band_pct: Option<f64>,
}

/// The KV cache of `i.tokens` tokens of `model` sent from one node to another over `topo`'s
/// NICs. Latency: one RDMA READ round trip (twice the NIC's one-way latency, the catalog's
/// figure); bandwidth: the NIC's achievable goodput (line rate x the efficiency the catalog
/// measured with nccl-tests) times the rails used; a paged cache (`block_tokens`) adds the
/// posting of its descriptors, which runs alongside the wire (each TP rank posts its own list
/// in parallel, so the count is per rank and independent of TP).
pub fn kv_transfer(topo: &Topology, model: &ServingModel, i: &KvTransferInput) -> Result<KvTransfer> {
    let nics = topo.cluster.nics_per_node;
    if nics == 0 {
        return Err(ModelError::new("nics_per_node", "a KV transfer between nodes needs NICs: use at least 1 NIC per node"));
    }
    if i.tokens == 0 || i.tokens > crate::deploy::MAX_TOKENS {
        return Err(ModelError::new("tokens", format!("tokens must be 1 to {}; got {}", crate::deploy::MAX_TOKENS, i.tokens)));
    }
    if let Some(t) = i.decode_tp {
        fabricscope_model::limits::TP.check(t as u64)?;
    }
    let rails = i.rails.unwrap_or_else(|| i.decode_tp.map_or(nics, |t| t.min(nics)));
    if rails == 0 || rails > nics {
        return Err(ModelError::new("rails", format!("a KV transfer stripes over 1 to {nics} NICs of a node; got {rails}")));
    }
    let descriptors = match i.block_tokens {
        None => 0,
        Some(b) => {
            fabricscope_model::limits::BLOCK_TOKENS.check(b as u64)?;
            let regions = if matches!(model.attention, Attention::Mla { .. }) { 1 } else { 2 };
            model.work.layers as u64 * (i.tokens as u64).div_ceil(b as u64) * regions
        }
    };
    let copies = i.decode_tp.map_or(1.0, |t| t as f64 / model.kv_shards(t) as f64);
    let bytes = Bytes((model.kv_bytes_per_token(i.kv_precision.bytes()) * i.tokens as f64 * copies).round() as u64);
    let bw = GBps(topo.nic.achievable_bw().0 * rails as f64);
    let latency = Micros(2.0 * topo.nic.latency.0);
    let posting = Micros(descriptors as f64 * NIXL_POST_PER_DESCRIPTOR.0);
    let wire = bw.time_for(bytes);
    let time = latency + if posting.0 > wire.0 { posting } else { wire };
    Ok(KvTransfer {
        bytes,
        time,
        effective: bytes.per(time),
        rails,
        latency,
        descriptors,
        posting,
        // The published transfers behind the band are contiguous; a paged one's posting is
        // not validated on a published handoff, so it carries none.
        error_band_pct: if descriptors > 0 { None } else { band_pct(AccuracyClass::KvTransfer, HwClass::of(topo.gpu)) },
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
