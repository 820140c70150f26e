//! Lesson measures from the goodput model (fabricscope_model::goodput): how often a training
//! job spanning the step's cluster stops, how far apart its checkpoints should be, and the share
//! of time it trains. Under job restarts none of these depends on the step's own time, so the
//! measure needs only the model's size (its checkpoint) and the layout's replicas: no training
//! search runs in the page.

use crate::error::{ModelError, Result};
use crate::topology::Topology;
use fabricscope_model::goodput::{goodput, CheckpointMode, Component, Job, Policy, Recovery};
use fabricscope_model::training::{preset, preset_ids};
use serde_json::Value as Json;

/// What a goodput measure reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoodputField {
    /// Mean time between the job's stops, hours.
    MttfHours,
    /// The same in minutes.
    MttfMin,
    InterruptionsPerDay,
    /// Daly's optimum interval between checkpoints, minutes.
    CheckpointIntervalMin,
    /// What one checkpoint stalls training, s.
    CheckpointStallS,
    /// Share of wall-clock time training new steps, percent.
    EttrPct,
    /// Share of the time lost to restarts, percent.
    RestartPct,
    /// Share of stops from GPUs and their HBM, percent.
    GpuSharePct,
    /// Years between failures of one GPU (GPU and HBM together).
    GpuYears,
}

impl GoodputField {
    const IDS: [(&'static str, GoodputField); 9] = [
        ("mttf_hours", GoodputField::MttfHours),
        ("mttf_min", GoodputField::MttfMin),
        ("interruptions_per_day", GoodputField::InterruptionsPerDay),
        ("checkpoint_interval_min", GoodputField::CheckpointIntervalMin),
        ("checkpoint_stall_s", GoodputField::CheckpointStallS),
        ("ettr_pct", GoodputField::EttrPct),
        ("restart_pct", GoodputField::RestartPct),
        ("gpu_share_pct", GoodputField::GpuSharePct),
        ("gpu_years", GoodputField::GpuYears),
    ];
    pub fn from_id(id: &str) -> Option<GoodputField> {
        Self::IDS.iter().find(|(k, _)| *k == id).map(|(_, f)| *f)
    }
    pub fn ids() -> Vec<&'static str> {
        Self::IDS.iter().map(|(k, _)| *k).collect()
    }
}

/// A training job and how it is run through failures (the lesson's `"measure": "goodput"`).
#[derive(Clone, Debug, PartialEq)]
pub struct GoodputSpec {
    /// A training preset id (llama3-70b, gpt3-175b, ...).
    pub model: String,
    /// GPUs of one model replica (TP x PP x CP): the rest of the cluster is data parallel.
    pub replica_gpus: u32,
    pub restart_min: f64,
    pub checkpoint: CheckpointMode,
    pub recovery: Recovery,
    /// Checkpoint write bandwidth of the storage, GB/s in all (default: the model's per node).
    pub storage_gbps: Option<f64>,
    pub field: GoodputField,
}

fn bad(m: String) -> ModelError {
    ModelError::new("lesson", format!("a lesson step the model cannot read: {m}"))
}

impl GoodputSpec {
    pub fn parse(v: &Json) -> Result<GoodputSpec> {
        let word = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or_default();
        let model = word("model");
        if preset(model).is_none() {
            return Err(bad(format!("unknown training model '{model}'; allowed: {}", preset_ids().join(", "))));
        }
        let number = |k: &str, lo: f64, hi: f64| -> Result<Option<f64>> {
            match v.get(k) {
                None | Some(Json::Null) => Ok(None),
                Some(x) => match x.as_f64() {
                    Some(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
                    _ => Err(bad(format!("{k} must be a number from {lo} to {hi}"))),
                },
            }
        };
        let checkpoint = match word("checkpoint") {
            "" | "async" => CheckpointMode::Async,
            "sync" => CheckpointMode::Sync,
            c => return Err(bad(format!("unknown checkpoint mode {c}; allowed: async, sync"))),
        };
        let recovery = match word("recovery") {
            "" | "job" => Recovery::Job,
            "replica" => Recovery::Replica,
            r => return Err(bad(format!("unknown recovery {r}; allowed: job, replica"))),
        };
        let field = GoodputField::from_id(word("field"))
            .ok_or_else(|| bad(format!("unknown goodput field '{}'; allowed: {}", word("field"), GoodputField::ids().join(", "))))?;
        Ok(GoodputSpec {
            model: model.into(),
            replica_gpus: number("replica_gpus", 1.0, 1e6)?.map_or(8, |n| n as u32),
            restart_min: number("restart_min", 0.0, 10_000.0)?.unwrap_or(Policy::default().restart_min),
            checkpoint,
            recovery,
            storage_gbps: number("storage_gbps", 0.001, 1e6)?,
            field,
        })
    }

    /// The measure on `topo`.
    pub fn eval(&self, topo: &Topology) -> Result<f64> {
        let w = preset(&self.model).ok_or_else(|| bad(format!("unknown training model '{}'", self.model)))?;
        let replicas = (topo.total_gpus / self.replica_gpus.max(1)).max(1);
        let job = Job { params: w.params(), step_time_s: 0.0, tokens_per_s: 0.0, replicas, network_share: 0.0 };
        let p = Policy { restart_min: self.restart_min, checkpoint: self.checkpoint, recovery: self.recovery, storage_gbps: self.storage_gbps, ..Policy::default() };
        let r = goodput(topo, &job, &p);
        Ok(match self.field {
            GoodputField::MttfHours => r.mttf_hours,
            GoodputField::MttfMin => r.mttf_hours * 60.0,
            GoodputField::InterruptionsPerDay => r.interruptions_per_day,
            GoodputField::CheckpointIntervalMin => r.checkpoint_interval_min,
            GoodputField::CheckpointStallS => r.checkpoint_stall_s,
            GoodputField::EttrPct => 100.0 * r.ettr,
            GoodputField::RestartPct => 100.0 * r.lost_to_restarts,
            GoodputField::GpuSharePct => 100.0 * r.shares().0,
            GoodputField::GpuYears => 1.0 / ((Component::Gpu.rate_per_hour() + Component::Hbm.rate_per_hour()) * 24.0 * 365.25),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Cluster;

    fn eval(field: &str, nodes: u32, extra: Json) -> f64 {
        let mut v = serde_json::json!({"model": "llama3-70b", "replica_gpus": 32, "field": field});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        let topo = Cluster { nodes, ..Cluster::default() }.topology().unwrap();
        GoodputSpec::parse(&v).unwrap().eval(&topo).unwrap()
    }

    #[test]
    fn a_hundred_times_the_gpus_stop_about_a_hundred_times_as_often() {
        let small = eval("mttf_hours", 128, serde_json::json!({}));
        let large = eval("mttf_hours", 12_500, serde_json::json!({}));
        assert!((small / large - 12_500.0 / 128.0).abs() / (12_500.0 / 128.0) < 0.1, "{small} h vs {large} h");
        assert!((eval("mttf_min", 12_500, serde_json::json!({})) - 60.0 * large).abs() < 1e-9);
        // A shorter restart trains more.
        assert!(eval("ettr_pct", 12_500, serde_json::json!({"restart_min": 2})) > eval("ettr_pct", 12_500, serde_json::json!({"restart_min": 10})));
    }

    #[test]
    fn unknown_names_say_what_is_allowed() {
        let e = GoodputSpec::parse(&serde_json::json!({"model": "gpt-9", "field": "ettr_pct"})).unwrap_err();
        assert!(e.message.contains("llama3-70b"), "{}", e.message);
        let e = GoodputSpec::parse(&serde_json::json!({"model": "llama3-70b", "field": "speed"})).unwrap_err();
        assert!(e.message.contains("ettr_pct"), "{}", e.message);
        let e = GoodputSpec::parse(&serde_json::json!({"model": "llama3-70b", "field": "ettr_pct", "restart_min": -1})).unwrap_err();
        assert!(e.message.contains("restart_min"), "{}", e.message);
    }
}
