//! A deployment of a served model: phase, parallel layout (TP, PP, EP over attention DP),
//! batch and lengths, precisions, overlap and disaggregation; checked against the cluster.

use crate::engine::Engine;
use crate::model::ServingModel;
use crate::precision::Precision;
use fabricscope_model::error::{ModelError, Result};
use fabricscope_model::Topology;
use serde::{Deserialize, Serialize};

/// What the step does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// One output token for each of `batch` sequences holding `context` tokens of KV cache.
    #[default]
    Decode,
    /// The `input_len` prompt tokens of each of `batch` sequences.
    Prefill,
    /// Maximum load, prefill and decode mixed (continuous batching, as trtllm-bench and
    /// offline benchmarks run it): `input_len` in, `output_len` out per request, the batch
    /// as large as memory and the runtime allow.
    Offline,
}

impl Phase {
    pub fn id(self) -> &'static str {
        match self {
            Phase::Decode => "decode",
            Phase::Prefill => "prefill",
            Phase::Offline => "offline",
        }
    }
    pub fn ids() -> Vec<&'static str> {
        vec!["decode", "prefill", "offline"]
    }
    pub fn from_id(s: &str) -> Option<Phase> {
        match s.to_ascii_lowercase().as_str() {
            "decode" => Some(Phase::Decode),
            "prefill" => Some(Phase::Prefill),
            "offline" | "mixed" => Some(Phase::Offline),
            _ => None,
        }
    }
}

/// The deployment. The attention runs `tp`-way tensor parallel in each of `dp` data-parallel
/// ranks; the routed experts of an MoE split over `ep` ranks of those `tp x dp` GPUs (each
/// expert further `tp x dp / ep`-way tensor parallel; with attention DP (`dp` > 1) `ep` is
/// either `tp x dp` (wide EP) or 1 (the experts tensor parallel over the whole stage, as
/// SGLang's DP attention with MoE TP runs them));
/// `pp` pipeline stages. GPUs used:
/// `tp x dp x pp`, which may be fewer than the cluster has (the rest idle).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deployment {
    pub phase: Phase,
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    pub dp: u32,
    /// Sequences per attention data-parallel rank in one step (count).
    pub batch: u32,
    /// Tokens in each sequence's KV cache during decode (count).
    pub context: u32,
    /// Prompt tokens per request (count).
    pub input_len: u32,
    /// Output tokens per request, for time to first token and the offline mix (count).
    pub output_len: u32,
    pub precision: Precision,
    /// KV cache precision; `None`: the activations' (BF16).
    pub kv_precision: Option<Precision>,
    /// Two micro-batches overlap EP communication with compute; `None`: the engine's default
    /// ([`crate::engine::EngineParams::micro_batch_overlap`]: off for all three engines).
    pub overlap: Option<bool>,
    /// Prefill runs on other nodes and the KV cache moves to the decode nodes.
    pub disaggregated: bool,
    /// NICs a KV transfer stripes over; `None`: all of a node's NICs.
    pub kv_rails: Option<u32>,
    /// Share of the card's memory (GiB, [`crate::hardware::hbm_capacity_bytes`]) the engine may
    /// use for weights and KV cache (vLLM's `gpu_memory_utilization`); `None`:
    /// [`crate::hardware::HBM_USABLE`].
    pub memory_fraction: Option<f64>,
    /// Memory per GPU held back beside the fraction, GiB; `None`:
    /// [`crate::hardware::DEFAULT_RESERVE_GIB`].
    #[serde(default)]
    pub reserve_gib: Option<f64>,
    /// Where the decode ranks of a disaggregated deployment are, relative to its prefill
    /// ranks; `None`: `kv::default_path` (the same NVL72 rack when twice the
    /// deployment's GPUs fit in it and no `kv_rails` are given, else another node).
    #[serde(default)]
    pub kv_path: Option<KvPath>,
    /// The serving engine; `None`: [`Engine::default`] (TensorRT-LLM) for the figures, and the
    /// intervals span every engine's prediction (`crate::calibration::serve_intervals`).
    #[serde(default)]
    pub engine: Option<Engine>,
}

impl Default for Deployment {
    fn default() -> Self {
        Deployment {
            phase: Phase::Decode,
            tp: 1,
            pp: 1,
            ep: 1,
            dp: 1,
            batch: 1,
            context: 2048,
            input_len: 1024,
            output_len: 1024,
            precision: Precision::Bf16,
            kv_precision: None,
            overlap: None,
            disaggregated: false,
            kv_rails: None,
            memory_fraction: None,
            reserve_gib: None,
            kv_path: None,
            engine: None,
        }
    }
}

/// Longest context or prompt accepted (tokens): 2^22, beyond every published context window.
pub const MAX_TOKENS: u32 = 1 << 22;
/// Largest batch per attention DP rank accepted (sequences).
pub const MAX_BATCH: u32 = 1 << 16;

impl Deployment {
    /// GPUs the deployment uses.
    pub fn gpus(&self) -> u64 {
        self.tp as u64 * self.dp as u64 * self.pp as u64
    }
    /// KV cache precision in effect.
    pub fn kv(&self) -> Precision {
        self.kv_precision.unwrap_or(Precision::Bf16)
    }
    /// The engine in effect.
    pub fn engine(&self) -> Engine {
        self.engine.unwrap_or_default()
    }
    /// Wide EP: experts split over attention data-parallel ranks.
    pub fn wide_ep(&self) -> bool {
        self.ep > 1 && self.dp > 1
    }
    /// Two-micro-batch overlap in effect: as asked, else the engine's default for wide EP
    /// (EP over attention DP; off elsewhere).
    pub fn overlapped(&self) -> bool {
        self.overlap.unwrap_or(self.wide_ep() && self.engine().params().micro_batch_overlap)
    }
    /// Expert tensor parallelism: the ways each expert splits (`tp x dp / ep`).
    pub fn expert_tp(&self) -> u32 {
        ((self.tp as u64 * self.dp as u64) / self.ep.max(1) as u64).max(1) as u32
    }

    /// Checks the deployment fits `topo` and suits `model`; errors name the field at fault.
    pub fn check(&self, topo: &Topology, model: &ServingModel) -> Result<()> {
        use fabricscope_model::limits::{DP, EP, PP, TP};
        for (limit, v) in [(TP, self.tp), (PP, self.pp), (EP, self.ep), (DP, self.dp)] {
            limit.check_u32(v)?;
        }
        for (field, v, max) in [("batch", self.batch, MAX_BATCH), ("context", self.context, MAX_TOKENS), ("input_len", self.input_len, MAX_TOKENS), ("output_len", self.output_len, MAX_TOKENS)] {
            if v == 0 || v > max {
                return Err(ModelError::new(field, format!("{} must be 1 to {max}; got {v}", field.replace('_', " "))));
            }
        }
        let gpus = self.gpus();
        if gpus > topo.total_gpus as u64 {
            // Name the largest factor: the flag most likely at fault.
            let field = if self.dp >= self.tp && self.dp >= self.pp { "dp" } else if self.pp >= self.tp { "pp" } else { "tp" };
            return Err(ModelError::new(
                field,
                format!("tp {} x dp {} x pp {} = {gpus} GPUs; the cluster has {}", self.tp, self.dp, self.pp, topo.total_gpus),
            ));
        }
        let d = topo.domain_gpus;
        if self.tp > d && !self.tp.is_multiple_of(d) {
            return Err(ModelError::new("tp", format!("tp {} spans scale-up domains of {d} GPUs unevenly; use a divisor or a multiple of {d}", self.tp)));
        }
        if self.pp > model.work.layers {
            return Err(ModelError::new("pp", format!("pp {} is more than the model's {} layers", self.pp, model.work.layers)));
        }
        let w = &model.work;
        if !w.heads.is_multiple_of(self.tp) {
            let ok: Vec<u32> = fabricscope_model::training::workload::divisors(w.heads).into_iter().filter(|v| *v as u64 <= topo.total_gpus as u64).collect();
            return Err(ModelError::new(
                "tp",
                format!("tp {} does not split the {} attention heads evenly; valid tp: {}", self.tp, w.heads, fabricscope_model::training::workload::list(&ok)),
            ));
        }
        match w.moe {
            None if self.ep > 1 => Err(ModelError::new("ep", format!("{} is dense: expert parallelism needs an MoE (ep 1)", model.name()))),
            // With attention DP every rank's tokens go to every expert: the experts split over
            // the whole stage (SGLang's and vLLM's wide EP: EP = TP x DP), or are tensor
            // parallel over it (EP 1). Expert TP across DP ranks would need its own exchange.
            Some(_) if self.dp > 1 && self.ep > 1 && self.ep as u64 != self.tp as u64 * self.dp as u64 => Err(ModelError::new(
                "ep",
                format!("with attention data parallelism the experts split over the whole stage: use ep {} (tp x dp), or 1 for experts tensor parallel over it", self.tp as u64 * self.dp as u64),
            )),
            _ if !(self.tp as u64 * self.dp as u64).is_multiple_of(self.ep as u64) => Err(ModelError::new(
                "ep",
                format!("ep {} must divide the tp x dp = {} GPUs of a pipeline stage", self.ep, self.tp as u64 * self.dp as u64),
            )),
            _ => Ok(()),
        }?;
        crate::precision::Precision::peak(self.precision, topo.gpu)?;
        if let Some(kv) = self.kv_precision {
            if kv == Precision::Fp4 && !matches!(topo.gpu.arch, fabricscope_model::catalog::Arch::Blackwell) {
                return Err(ModelError::new("kv_precision", format!("an FP4 KV cache needs Blackwell; {} allows bf16, fp8", topo.gpu.name)));
            }
        }
        if let Some(r) = self.kv_rails {
            let nics = topo.cluster.nics_per_node;
            if r == 0 || r > nics.max(1) {
                return Err(ModelError::new("kv_rails", format!("a KV transfer stripes over 1 to {} NICs of a node; got {r}", nics.max(1))));
            }
        }
        if self.kv_path == Some(KvPath::SameDomain) && self.kv_rails.is_some() {
            return Err(ModelError::new("kv_rails", "NIC rails apply to a KV transfer to another domain; inside one scale-up domain each decode GPU receives over its own links: drop the rails, or place decode in another domain"));
        }
        if let Some(f) = self.memory_fraction {
            if !(f.is_finite() && (0.1..=1.0).contains(&f)) {
                return Err(ModelError::new("memory_fraction", format!("the share of the card's memory the engine may use is 0.1 to 1; got {f}")));
            }
        }
        if let Some(g) = self.reserve_gib {
            let max = crate::hardware::MAX_RESERVE_GIB;
            if !(g.is_finite() && (0.0..=max).contains(&g)) {
                return Err(ModelError::new("reserve_gib", format!("the memory reserved per GPU is 0 to {max} GiB; got {g}")));
            }
        }
        Ok(())
    }
}

/// Where the decode ranks sit relative to the prefill ranks, and so which fabric the KV cache
/// crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KvPath {
    /// In the prefill ranks' scale-up domain (an NVL72 rack, one NVLink node): over the
    /// scale-up fabric, each receiving GPU over its own links.
    SameDomain,
    /// In another scale-up domain (another node or rack): over the NICs.
    OtherDomain,
}

impl KvPath {
    pub fn id(self) -> &'static str {
        match self {
            KvPath::SameDomain => "same-domain",
            KvPath::OtherDomain => "other-domain",
        }
    }
    pub fn ids() -> Vec<&'static str> {
        vec!["same-domain", "other-domain"]
    }
    pub fn from_id(s: &str) -> Option<KvPath> {
        match s.to_ascii_lowercase().as_str() {
            "same-domain" | "same-rack" | "same-node" | "scale-up" | "nvlink" => Some(KvPath::SameDomain),
            "other-domain" | "other-node" | "other-rack" | "network" | "nic" => Some(KvPath::OtherDomain),
            _ => None,
        }
    }
}

