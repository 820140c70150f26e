//! KV transfer between disaggregated prefill and decode ranks: latency plus the longer of the
//! bytes over the path's bandwidth and, for a paged cache, the posting of its descriptors; and
//! the prefill:decode GPU ratio that balances the two pools. The path is the fastest the
//! placement allows: the scale-up fabric (NVLink: its per-GPU bandwidth and latency, the
//! topology's scale-up tier) when prefill and decode ranks share a scale-up domain (an NVL72
//! rack, one NVLink node), else the NICs (line rate x measured goodput x rails). Through a
//! serving engine's connector the handoff also pays the connector's per-request cost and posts
//! the engine's paged blocks ([`crate::engine::EngineParams`]): at short prompts those software
//! costs, not the wire, set the time.

use crate::bands::band_pct;
use crate::engine::Engine;
use crate::hardware::{AccuracyClass, HwClass};
use crate::model::{Attention, ServingModel};
use crate::precision::Precision;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::units::{Bytes, GBps, Micros};
use fabricscope_model::topology::TierKind;
use fabricscope_model::Topology;
use serde::Serialize;

pub use crate::deploy::KvPath;

/// The path a KV transfer takes when none is given: the same domain when the scale-up domain
/// spans several nodes (an NVL72 rack of compute trays) and `2 x ranks` GPUs (the decode ranks
/// and as many prefill peers) fit in it, unless NIC rails were asked for; otherwise another
/// domain (an 8-GPU server's prefill and decode pools on separate nodes).
pub fn default_path(topo: &Topology, ranks: u64, rails_given: bool) -> KvPath {
    let multi_node_domain = topo.domain_gpus > topo.cluster.gpus_per_node;
    if multi_node_domain && !rails_given && 2 * ranks.max(1) <= topo.domain_gpus as u64 {
        KvPath::SameDomain
    } else {
        KvPath::OtherDomain
    }
}

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
    /// Where the decode ranks are; `None`: [`default_path`] for `decode_tp` ranks.
    pub path: Option<KvPath>,
    /// The engine whose connector moves the cache: its per-request cost, its per-block posting
    /// cost, and its paged cache's block size when `block_tokens` is `None`
    /// ([`crate::engine::EngineParams`]). `None`: a transfer engine's own benchmark (NIXLBench,
    /// Mooncake's `transfer_engine_bench`): no request cost, NIXL's posting cost, contiguous
    /// unless `block_tokens` says otherwise.
    pub engine: Option<Engine>,
}

/// Its cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KvTransfer {
    /// Bytes that cross the fabric: the cache once, or with `decode_tp` every rank's shard.
    pub bytes: Bytes,
    pub time: Micros,
    /// bytes / time, per direction.
    pub effective: GBps,
    /// The fabric crossed: the scale-up fabric inside a domain, the NICs across domains.
    pub path: KvPath,
    /// Name of that fabric (the topology's tier, or the NIC).
    pub fabric: String,
    /// Bandwidth of the path, per direction: NICs x goodput, or the receiving GPUs' scale-up
    /// bandwidth.
    pub bandwidth: GBps,
    /// NICs the transfer stripes over (other domain), or receiving GPUs, each over its own
    /// scale-up links (same domain).
    pub rails: u32,
    pub latency: Micros,
    /// Descriptors each prefill rank posts: `layers x ceil(tokens / block_tokens) x regions`
    /// (2 for MHA/GQA, whose K and V are separate regions per layer in vLLM's layout; 1 for
    /// MLA's single latent); 0 for a contiguous transfer.
    pub descriptors: u64,
    /// Their posting time on the host ([`NIXL_POST_PER_DESCRIPTOR`] each), overlapped with the
    /// wire: the transfer lasts `latency + max(posting, bytes / bandwidth)`.
    pub posting: Micros,
    /// The engine connector's fixed cost of the request (0 without an engine), before the
    /// transfer: the transfer lasts `latency + request + max(posting, bytes / bandwidth)`.
    pub request: Micros,
    /// The engine whose connector was modelled; `None`: a bare transfer engine.
    pub engine: Option<Engine>,
    /// Median error of the KV-transfer class on published transfers, percent; `None` where
    /// no measurement covers the class, and for a paged transfer (no published paged handoff
    /// states its model, block size and time between nodes).
    pub error_band_pct: Option<f64>,
}

/// The KV cache of `i.tokens` tokens of `model` sent from prefill to decode ranks over the
/// path the placement gives ([`KvPath`]). Across domains, over `topo`'s NICs: latency one RDMA
/// READ round trip (twice the NIC's one-way latency, the catalog's figure); bandwidth the NIC's
/// achievable goodput (line rate x the efficiency the catalog measured with nccl-tests) times
/// the rails used. Inside one scale-up domain, over its fabric: latency twice the scale-up
/// tier's, bandwidth its per-GPU line rate times the receiving GPUs (`decode_tp`, else one),
/// each pulling its shard over its own links. A paged cache (`block_tokens`) adds the posting
/// of its descriptors, which runs alongside the wire (each TP rank posts its own list in
/// parallel, so the count is per rank and independent of TP).
pub fn kv_transfer(topo: &Topology, model: &ServingModel, i: &KvTransferInput) -> Result<KvTransfer> {
    if i.tokens == 0 || i.tokens > crate::deploy::MAX_TOKENS {
        return Err(ModelError::new("tokens", format!("tokens must be 1 to {}; got {}", crate::deploy::MAX_TOKENS, i.tokens)));
    }
    if let Some(t) = i.decode_tp {
        fabricscope_model::limits::TP.check(t as u64)?;
    }
    let ranks = i.decode_tp.unwrap_or(1);
    let path = i.path.unwrap_or_else(|| default_path(topo, ranks as u64, i.rails.is_some()));
    let (rails, bw, latency, fabric) = match path {
        KvPath::SameDomain => {
            if i.rails.is_some() {
                return Err(ModelError::new("rails", "NIC rails apply to a transfer to another domain; inside one scale-up domain each receiving GPU uses its own links: drop the rails, or place decode in another domain"));
            }
            let d = topo.domain_gpus as u64;
            if 2 * ranks as u64 > d {
                return Err(ModelError::new(
                    "kv_path",
                    format!("{ranks} decode rank(s) and as many prefill peers need {} GPUs, more than a scale-up domain's {d}: place decode in another domain", 2 * ranks as u64),
                ));
            }
            let Some(tier) = topo.tiers.iter().find(|t| t.kind == TierKind::ScaleUp) else {
                return Err(ModelError::new("kv_path", "this cluster has no scale-up fabric: place decode in another domain"));
            };
            (ranks, GBps(tier.bw_per_gpu.0 * ranks as f64), Micros(2.0 * tier.latency.0), tier.name.clone())
        }
        KvPath::OtherDomain => {
            let nics = topo.cluster.nics_per_node;
            if nics == 0 {
                return Err(ModelError::new("nics_per_node", "a KV transfer between nodes needs NICs: use at least 1 NIC per node"));
            }
            let rails = i.rails.unwrap_or_else(|| i.decode_tp.map_or(nics, |t| t.min(nics)));
            if rails == 0 || rails > nics {
                return Err(ModelError::new("rails", format!("a KV transfer stripes over 1 to {nics} NICs of a node; got {rails}")));
            }
            (rails, GBps(topo.nic.achievable_bw().0 * rails as f64), Micros(2.0 * topo.nic.latency.0), topo.nic.name.to_string())
        }
    };
    let eng = i.engine.map(|e| e.params());
    let descriptors = match i.block_tokens.or(eng.map(|p| p.kv_block_tokens)) {
        None => 0,
        Some(b) => {
            fabricscope_model::limits::BLOCK_TOKENS.check(b as u64)?;
            let regions = if matches!(model.attention, Attention::Mla { .. }) { 1 } else { 2 };
            model.work.layers as u64 * (i.tokens as u64).div_ceil(b as u64) * regions
        }
    };
    let copies = i.decode_tp.map_or(1.0, |t| t as f64 / model.kv_shards(t) as f64);
    let bytes = Bytes((model.kv_bytes_per_token(i.kv_precision.bytes()) * i.tokens as f64 * copies).round() as u64);
    let posting = Micros(descriptors as f64 * eng.map_or(NIXL_POST_PER_DESCRIPTOR.0, |p| p.kv_post_per_block_us));
    let request = Micros(eng.map_or(0.0, |p| p.kv_request_us));
    let wire = bw.time_for(bytes);
    let time = latency + request + if posting.0 > wire.0 { posting } else { wire };
    Ok(KvTransfer {
        bytes,
        time,
        effective: bytes.per(time),
        path,
        fabric,
        bandwidth: bw,
        rails,
        latency,
        descriptors,
        posting,
        request,
        engine: i.engine,
        // The published transfers behind the band are contiguous and over NICs; a paged one's
        // posting, and a handoff inside a scale-up domain, are not validated on a published
        // transfer, so they carry none.
        error_band_pct: if descriptors > 0 || path == KvPath::SameDomain { None } else { band_pct(AccuracyClass::KvTransfer, HwClass::of(topo.gpu)) },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::serving_preset;
    use fabricscope_model::presets::cluster_preset;
    use fabricscope_model::Cluster;

    fn go(topo: &Topology, decode_tp: Option<u32>, path: Option<KvPath>) -> KvTransfer {
        let m = serving_preset("llama3-70b").unwrap();
        kv_transfer(topo, &m, &KvTransferInput { tokens: 4096, kv_precision: Precision::Bf16, rails: None, block_tokens: None, decode_tp, path, engine: None }).unwrap()
    }

    /// Llama 3 70B, 4,096 tokens of BF16 cache: 327,680 bytes per token, 1,342,177,280 bytes.
    const BYTES: f64 = 327_680.0 * 4096.0;

    #[test]
    fn inside_an_nvl72_rack_the_cache_crosses_nvlink() {
        let topo = cluster_preset("gb200-nvl72").unwrap().cluster().topology().unwrap();
        assert_eq!(topo.domain_gpus, 72);
        let inside = go(&topo, None, None);
        let across = go(&topo, None, Some(KvPath::OtherDomain));
        // The default for a rack: the same domain, over NVLink5's 900 GB/s per GPU.
        assert_eq!(inside.path, KvPath::SameDomain);
        assert_eq!(inside.bandwidth, GBps(900.0));
        assert_eq!(inside.bytes.0 as f64, BYTES);
        // Effective GB/s of NVLink's order: within 1% of the 900 GB/s line rate at 1.3 GB.
        assert!(inside.effective.0 > 890.0 && inside.effective.0 <= 900.0, "{:?}", inside.effective);
        // Across racks: a tray's 4 NDR NICs, 4 x 50 GB/s x 0.955 = 191 GB/s.
        assert_eq!(across.path, KvPath::OtherDomain);
        assert!((across.bandwidth.0 - 191.0).abs() < 1e-9, "{:?}", across.bandwidth);
        assert!((across.time.0 - (2.0 * topo.nic.latency.0 + BYTES / 191.0e3)).abs() < 1e-6);
        assert!(across.time.0 > 4.5 * inside.time.0, "{} vs {}", across.time.0, inside.time.0);
        assert!(across.error_band_pct.is_some() && inside.error_band_pct.is_none());
        // Four decode ranks each pull their shard over their own links: 3,600 GB/s.
        let tp4 = go(&topo, Some(4), None);
        assert_eq!((tp4.path, tp4.rails, tp4.bandwidth), (KvPath::SameDomain, 4, GBps(3600.0)));
        // 40 decode ranks and their 40 prefill peers do not fit a rack of 72: the NICs.
        assert_eq!(default_path(&topo, 40, false), KvPath::OtherDomain);
        // Rails asked for mean the NICs.
        assert_eq!(default_path(&topo, 1, true), KvPath::OtherDomain);
    }

    #[test]
    fn across_dgx_h100_nodes_the_transfer_is_the_nic_one() {
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        let t = go(&topo, None, None);
        // An 8-GPU server's decode pool is another node by default: 8 NDR rails at 50 GB/s x
        // 0.955 = 382 GB/s and one RDMA READ round trip, as before the path existed.
        assert_eq!((t.path, t.rails), (KvPath::OtherDomain, 8));
        assert!((t.time.0 - (2.0 * topo.nic.latency.0 + BYTES / 382.0e3)).abs() < 1e-6, "{:?}", t.time);
        assert_eq!(t.error_band_pct, band_pct(AccuracyClass::KvTransfer, HwClass::Hopper));
        // Prefill and decode on one node's NVLink (asked for): NVLink4's 450 GB/s.
        let same = go(&topo, None, Some(KvPath::SameDomain));
        assert_eq!(same.bandwidth, GBps(450.0));
        assert!(same.time.0 < t.time.0);
        // Eight decode ranks and eight prefill peers do not fit an 8-GPU node.
        let m = serving_preset("llama3-70b").unwrap();
        let e = kv_transfer(&topo, &m, &KvTransferInput { tokens: 10, kv_precision: Precision::Bf16, rails: None, block_tokens: None, decode_tp: Some(8), path: Some(KvPath::SameDomain), engine: None }).unwrap_err();
        assert_eq!(e.field, "kv_path");
    }
}
