//! Lesson measures from the serving model (crates/serving): one decode step of a served model
//! on a cluster (its tensor-parallel all-reduces, the time per output token) and the KV handoff
//! of a prompt from a prefill node to a decode node (its bytes, time and share of the time to
//! first token). A lesson names a serving preset and a layout; every number is computed.

use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::topology::{Placement, Topology};
use fabricscope_serving::hardware::ACTIVATION_BYTES;
use fabricscope_serving::kv::{kv_transfer, KvTransferInput};
use fabricscope_serving::step::Server;
use fabricscope_serving::{serving_preset, serving_preset_ids, Deployment, Precision, ServingModel};
use serde_json::Value as Json;

/// What a serving measure reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServeField {
    /// Time per output token of the decode step, ms.
    TpotMs,
    /// The step's tensor-parallel all-reduces together, ms per token.
    AllreduceMs,
    /// One of them, µs (the collective model at the step's message size and placement).
    AllreduceUs,
    /// How many the step runs: two per layer (after attention, after the MLP), count.
    AllreduceCount,
    /// Bytes one all-reduce carries: sequences x hidden x BF16 activations.
    AllreduceBytes,
    /// The network's share of the decode step, percent.
    NetworkSharePct,
    /// KV cache of one token, bytes (all layers, K and V).
    KvBytesPerToken,
    /// KV cache of the prompt (`tokens`), MB (10^6 bytes).
    KvMb,
    /// Its handoff between two nodes over all of a node's NICs, ms.
    KvTransferMs,
    /// The handoff's share of the time to first token (prefill of the prompt + handoff), percent.
    KvShareOfTtftPct,
    /// Time to first token of a disaggregated deployment (prefill + handoff), ms.
    TtftMs,
}

impl ServeField {
    const IDS: [(&'static str, ServeField); 11] = [
        ("tpot_ms", ServeField::TpotMs),
        ("allreduce_ms", ServeField::AllreduceMs),
        ("allreduce_us", ServeField::AllreduceUs),
        ("allreduce_count", ServeField::AllreduceCount),
        ("allreduce_bytes", ServeField::AllreduceBytes),
        ("network_share_pct", ServeField::NetworkSharePct),
        ("kv_bytes_per_token", ServeField::KvBytesPerToken),
        ("kv_mb", ServeField::KvMb),
        ("kv_transfer_ms", ServeField::KvTransferMs),
        ("kv_share_of_ttft_pct", ServeField::KvShareOfTtftPct),
        ("ttft_ms", ServeField::TtftMs),
    ];
    /// The unit a lesson prints after the value ("" for a count).
    pub fn unit(self) -> &'static str {
        match self {
            ServeField::TpotMs | ServeField::AllreduceMs | ServeField::KvTransferMs | ServeField::TtftMs => "ms",
            ServeField::AllreduceUs => "µs",
            ServeField::AllreduceCount => "",
            ServeField::AllreduceBytes | ServeField::KvBytesPerToken => "bytes",
            ServeField::NetworkSharePct | ServeField::KvShareOfTtftPct => "%",
            ServeField::KvMb => "MB",
        }
    }

    pub fn from_id(id: &str) -> Option<ServeField> {
        Self::IDS.iter().find(|(k, _)| *k == id).map(|(_, f)| *f)
    }
    pub fn ids() -> Vec<&'static str> {
        Self::IDS.iter().map(|(k, _)| *k).collect()
    }
}

/// A served model and a layout (the lesson's `"measure": "serve"`).
#[derive(Clone, Debug, PartialEq)]
pub struct ServeSpec {
    /// A serving preset id (llama3-70b, deepseek-v3, ...).
    pub model: String,
    pub tp: u32,
    /// Sequences in the decode step.
    pub batch: u32,
    /// Tokens of KV cache per sequence at decode; the prompt handed off, for the KV fields.
    pub tokens: u32,
    pub precision: Precision,
    pub field: ServeField,
}

fn bad(m: String) -> ModelError {
    ModelError::new("lesson", format!("a lesson step the model cannot read: {m}"))
}

impl ServeSpec {
    pub fn parse(v: &Json) -> Result<ServeSpec> {
        let word = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or_default();
        let count = |k: &str, d: u32| v.get(k).and_then(Json::as_u64).map_or(d, |x| x.clamp(1, u32::MAX as u64) as u32);
        let model = word("model");
        if serving_preset(model).is_none() {
            return Err(bad(format!("unknown serving model '{model}'; allowed: {}", serving_preset_ids().join(", "))));
        }
        let precision = match word("precision") {
            "" => Precision::Bf16,
            p => Precision::from_id(p).ok_or_else(|| bad(format!("unknown precision {p}; allowed: bf16, fp8, fp4")))?,
        };
        let field = ServeField::from_id(word("field")).ok_or_else(|| bad(format!("unknown serve field '{}'; allowed: {}", word("field"), ServeField::ids().join(", "))))?;
        Ok(ServeSpec { model: model.into(), tp: count("tp", 1), batch: count("batch", 1), tokens: count("tokens", 2048), precision, field })
    }

    fn model(&self) -> Result<ServingModel> {
        serving_preset(&self.model).ok_or_else(|| bad(format!("unknown serving model '{}'", self.model)))
    }

    /// The decode deployment the measure describes; with `handoff`, disaggregated (the prompt
    /// of `tokens` prefilled elsewhere and its KV cache moved in).
    fn deployment(&self, handoff: bool) -> Deployment {
        Deployment { tp: self.tp, batch: self.batch, context: self.tokens, input_len: self.tokens, precision: self.precision, disaggregated: handoff, ..Deployment::default() }
    }

    /// The 90% interval `serve` states for this measure on `topo` (TPOT and TTFT, engines
    /// spanned as no engine is named), `None` for the other fields.
    pub fn interval(&self, topo: &Topology) -> Result<Option<(f64, f64)>> {
        let ttft = match self.field {
            ServeField::TpotMs => false,
            ServeField::TtftMs => true,
            _ => return Ok(None),
        };
        let m = self.model()?;
        let d = self.deployment(ttft);
        let r = Server::new(topo, &m)?.evaluate(&d)?;
        let iv = fabricscope_serving::calibration::intervals_of(topo, &m, &d, &r);
        Ok(iv.and_then(|i| if ttft { i.ttft_ms } else { i.tpot_ms }).map(|i| (i.lo, i.hi)))
    }

    /// The measure on `topo`.
    pub fn eval(&self, topo: &Topology) -> Result<f64> {
        let m = self.model()?;
        let w = &m.work;
        let one_ar_bytes = self.batch as f64 * w.hidden as f64 * ACTIVATION_BYTES;
        Ok(match self.field {
            ServeField::AllreduceBytes => one_ar_bytes,
            ServeField::AllreduceCount => 2.0 * w.layers as f64,
            ServeField::KvBytesPerToken => m.kv_bytes_per_token(Precision::Bf16.bytes()),
            ServeField::KvMb => m.kv_bytes_per_token(Precision::Bf16.bytes()) * self.tokens as f64 / 1e6,
            ServeField::AllreduceUs => {
                if self.tp <= 1 {
                    return Ok(0.0);
                }
                // As the serving step places a TP group: filling a scale-up domain first.
                let per_domain = self.tp.min(topo.domain_gpus);
                let c = Comm::new(topo, Placement { ranks: self.tp, per_domain })?;
                let t = c.predict(Collective::AllReduce, crate::units::Bytes(one_ar_bytes.round() as u64), AlgoChoice::Auto, ProtoChoice::Auto)?.time.0;
                // Across nodes, at least what small all-reduces measure there (the serving step's floor).
                t.max(fabricscope_serving::hardware::allreduce_floor_us(topo, self.tp, per_domain))
            }
            ServeField::KvTransferMs => kv_transfer(topo, &m, &KvTransferInput { tokens: self.tokens, kv_precision: Precision::Bf16, rails: None, block_tokens: None, decode_tp: None, path: None, engine: None })?.time.0 / 1e3,
            ServeField::TpotMs | ServeField::AllreduceMs | ServeField::NetworkSharePct | ServeField::KvShareOfTtftPct | ServeField::TtftMs => {
                let handoff = matches!(self.field, ServeField::KvShareOfTtftPct | ServeField::TtftMs);
                let r = Server::new(topo, &m)?.evaluate(&self.deployment(handoff))?;
                let ttft = r.ttft_ms.unwrap_or(f64::NAN);
                match self.field {
                    ServeField::TpotMs => r.tpot_ms.unwrap_or(f64::NAN),
                    ServeField::AllreduceMs => r.breakdown.tp_allreduce,
                    ServeField::NetworkSharePct => 100.0 * r.network_share,
                    ServeField::KvShareOfTtftPct => 100.0 * r.breakdown.kv_transfer / ttft,
                    _ => ttft,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;

    fn spec(field: &str, tp: u32) -> ServeSpec {
        ServeSpec::parse(&serde_json::json!({"model": "llama3-70b", "tp": tp, "batch": 1, "tokens": 2048, "field": field})).unwrap()
    }

    /// The lesson's pieces add up to the serving model's step: count x one all-reduce is the
    /// step's all-reduce time (a dense model: two per layer, nothing else on the network).
    #[test]
    fn allreduce_pieces_add_up_to_the_step() {
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        for tp in [8, 16] {
            let one = spec("allreduce_us", tp).eval(&topo).unwrap();
            let n = spec("allreduce_count", tp).eval(&topo).unwrap();
            let all = spec("allreduce_ms", tp).eval(&topo).unwrap();
            assert_eq!(n, 160.0);
            assert!((n * one / 1e3 - all).abs() < 1e-9 * all.max(1.0), "tp {tp}: {n} x {one} µs vs {all} ms");
        }
        // Llama 3 70B: hidden 8192, BF16 activations: 16 KiB per sequence.
        assert_eq!(spec("allreduce_bytes", 8).eval(&topo).unwrap(), 16384.0);
    }

    #[test]
    fn unknown_names_say_what_is_allowed() {
        let e = ServeSpec::parse(&serde_json::json!({"model": "gpt-9", "field": "tpot_ms"})).unwrap_err();
        assert!(e.message.contains("llama3-70b"), "{}", e.message);
        let e = ServeSpec::parse(&serde_json::json!({"model": "llama3-70b", "field": "speed"})).unwrap_err();
        assert!(e.message.contains("allreduce_us"), "{}", e.message);
    }
}
