//! `fabricscope collective`: one collective of one size on one group of GPUs.

use crate::cluster_args::{
    algo_parser, op_parser, proto_parser, size_parser, ClusterArgs, GroupArgs,
};
use crate::calibration_arg::{measured_topology, note_text, prediction_json, CalibrationArg, CalibrationNote};
use crate::error::CliError;
use crate::flow_args::{study_line, FlowArgs, FlowJson, Spread};
use crate::output;
use clap::Args;
use fabricscope_flow::Traffic;
use fabricscope_model::units::{format_size, Bytes};
use fabricscope_model::{AlgoChoice, Collective, Comm, Prediction, ProtoChoice, Topology};
use serde::Serialize;

/// Which algorithm and protocol: NCCL's choice unless forced (as `NCCL_ALGO`, `NCCL_PROTO`).
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "NCCL")]
pub struct AlgoArgs {
    /// Algorithm; `auto` lets NCCL's tuning model choose
    #[arg(long, value_name = "ALGO", value_parser = algo_parser(), default_value = "auto")]
    pub algo: AlgoChoice,

    /// Protocol; `auto` lets NCCL's tuning model choose
    #[arg(long, value_name = "PROTO", value_parser = proto_parser(), default_value = "auto")]
    pub proto: ProtoChoice,
}

#[derive(Args, Clone, Debug)]
pub struct CollectiveArgs {
    /// Collective (sizes follow nccl-tests: all_gather/reduce_scatter the whole buffer,
    /// all_to_all what each rank sends, the rest what each rank holds)
    #[arg(long, value_name = "OP", value_parser = op_parser())]
    pub op: Collective,

    /// Message size; K, M, G, T are powers of two (8G = 8 x 2^30 bytes)
    #[arg(long, value_name = "SIZE", allow_negative_numbers = true, value_parser = size_parser())]
    pub bytes: Bytes,

    #[command(flatten)]
    pub algo: AlgoArgs,

    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub group: GroupArgs,

    #[command(flatten)]
    pub flow: FlowArgs,

    #[command(flatten)]
    pub calibration: CalibrationArg,
}

impl AlgoArgs {
    /// Predicts `op` at `bytes` with the forced algorithm and protocol. A forced protocol that
    /// no algorithm can use is blamed on `--proto`, listing the protocols that would run; a
    /// prediction without a finite time is refused rather than printed.
    pub fn predict(
        &self,
        comm: &Comm,
        op: Collective,
        bytes: Bytes,
    ) -> Result<Prediction, CliError> {
        match comm.predict(op, bytes, self.algo, self.proto) {
            Ok(p) if p.time.0.is_finite() => Ok(p),
            Ok(_) if self.proto != ProtoChoice::Auto => Err(self.proto_error(comm, op, bytes)),
            Ok(_) => Err(CliError::new(
                "--op",
                format!(
                    "the model has no finite time for {} of {} on this group",
                    op.id(),
                    format_size(bytes)
                ),
            )),
            Err(e)
                if e.field == "algo"
                    && self.algo == AlgoChoice::Auto
                    && self.proto != ProtoChoice::Auto =>
            {
                Err(self.proto_error(comm, op, bytes))
            }
            Err(e) => Err(e.into()),
        }
    }

    fn proto_error(&self, comm: &Comm, op: Collective, bytes: Bytes) -> CliError {
        let ok: Vec<&str> = ProtoChoice::ALL
            .into_iter()
            .filter(|&p| {
                p == ProtoChoice::Auto
                    || comm
                        .predict(op, bytes, self.algo, p)
                        .is_ok_and(|r| r.time.0.is_finite())
            })
            .map(ProtoChoice::id)
            .collect();
        let algo = if self.algo == AlgoChoice::Auto {
            String::new()
        } else {
            format!(" {}", self.algo.id())
        };
        CliError::new(
            "--proto",
            format!(
                "{}{algo} cannot use {} on this group; allowed: {}",
                op.id(),
                self.proto.id(),
                ok.join(", ")
            ),
        )
    }
}

/// The explorer's reading of a whole-cluster prediction (None where NCCL's formula does not
/// cover the collective, or the sweep cannot reach the size).
fn reading(c: &fabricscope_model::Cluster, topo: &fabricscope_model::Topology, op: Collective, bytes: Bytes, p: &fabricscope_model::Prediction) -> Option<fabricscope_model::reading::Reading> {
    let f = fabricscope_model::explain(topo, topo.whole(), op, bytes).ok()?;
    let mut s = fabricscope_model::Scenario::new(c.clone());
    s.view.ops = vec![op];
    s.view.min_bytes = bytes;
    s.view.max_bytes = bytes;
    let r = fabricscope_model::evaluate(&s).ok()?;
    Some(fabricscope_model::reading::read(&r, &f, p))
}

/// How the flow model's fraction meets the analytical model (docs/flow.md, "Composed with
/// the analytical model").
pub const COMPOSITION: &str = "per seed, the flow model's fraction replaces the analytical routing factor of the network tier (all-to-all: its oversubscription and ECMP factor; rings, trees and the rest: none, so their network bandwidth is scaled by the fraction); NCCL's choice of algorithm and protocol is unchanged";

/// `collective --json` with the flow model: the analytical prediction (its busbw the
/// healthy, alone, analytical figure) and the busbw over seeds.
#[derive(Serialize)]
struct FlowPredictionJson<'a> {
    #[serde(flatten)]
    prediction: output::PredictionJson,
    #[serde(rename = "busbw_GBps_over_seeds")]
    busbw_over_seeds: Spread,
    #[serde(rename = "time_us_over_seeds")]
    time_over_seeds: Spread,
    flow: FlowJson<'a>,
    /// With `--calibration`: what the prediction and the flows were timed on.
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<CalibrationNote>,
}

/// The flow model's traffic for `op` run by `algorithm` (NCCL's choice or the forced one):
/// all-to-all pairs; the double binary tree's edges for Tree and NVLSTree (a tree of nodes
/// across the network); ring edges for the rest (CollNet's traffic to the switch is drawn as
/// the ring's).
fn traffic_of(op: Collective, algorithm: &str) -> Traffic {
    match (op, algorithm) {
        (Collective::AllToAll, _) => Traffic::AllToAll,
        (_, "Tree" | "NVLSTree") => Traffic::Tree,
        _ => Traffic::Ring,
    }
}

/// `collective --calibration --json`: the calibrated prediction and its calibration.
#[derive(Serialize)]
struct CalibratedJson {
    #[serde(flatten)]
    prediction: output::PredictionJson,
    calibration: CalibrationNote,
}

pub fn run(a: &CollectiveArgs) -> Result<String, CliError> {
    let (topo, cal) = a.calibration.topology(&a.cluster)?;
    let comm = a.group.comm(&topo)?;
    let p = a.algo.predict(&comm, a.op, a.bytes)?;
    if let Some(f) = &cal {
        // The cluster as measured (the fit in its topology), as every other path takes it.
        let measured = measured_topology(&topo, f)?;
        let k = a.group.comm(&measured)?;
        let q = a.algo.predict(&k, a.op, a.bytes)?;
        let (j, note) = prediction_json(&k, &q, &p, f);
        if a.flow.requested() {
            // The flows' fractions scale the calibrated network.
            return run_flow(a, &measured, &k, &q, Some((j, note)));
        }
        if a.json {
            return output::json(&CalibratedJson { prediction: j, calibration: note });
        }
        let mut text = output::prediction_text_with(&topo, k.placement, &q, &j);
        text.push_str(&note_text(&note, &j));
        return Ok(text);
    }
    if a.flow.requested() {
        return run_flow(a, &topo, &comm, &p, None);
    }
    if a.json {
        output::json(&output::PredictionJson::from(&p))
    } else {
        let mut text = output::prediction_text(&topo, comm.placement, &p);
        // NCCL's own choice on the whole cluster: the same reading of busbw as the explorer's
        // "How is this computed" (model::reading).
        if comm.placement == topo.whole() && a.algo.algo == AlgoChoice::Auto && a.algo.proto == ProtoChoice::Auto {
            if let Some(r) = reading(&topo.cluster, &topo, a.op, a.bytes, &p) {
                text.push_str(&output::reading_text(&r));
            }
        }
        Ok(text)
    }
}

/// The prediction over the flow model's seeds: its busbw and time per seed, summarised. A
/// calibrated run passes its prediction's JSON (calibrated intervals) and calibration note.
fn run_flow(a: &CollectiveArgs, topo: &Topology, comm: &Comm, p: &Prediction, calibrated: Option<(output::PredictionJson, CalibrationNote)>) -> Result<String, CliError> {
    if comm.placement != topo.whole() {
        return Err(CliError::new(
            "--routing",
            "the flow model studies the whole cluster's traffic: drop the group flags (--group-ranks, --group-per-node) with --routing, --seeds, --placement, --other-jobs or the failure flags",
        ));
    }
    let traffic = traffic_of(a.op, p.algorithm);
    let (_, out) = a.flow.study(topo, traffic, a.group.qps_per_connection.unwrap_or(1))?;
    // Deterministic studies and repeated fractions predict once per distinct value.
    let mut seen: Vec<(f64, Prediction)> = Vec::new();
    let mut busbw = Vec::with_capacity(out.per_seed.len());
    let mut time = Vec::with_capacity(out.per_seed.len());
    for &f in &out.per_seed {
        let q = match seen.iter().find(|(x, _)| *x == f) {
            Some((_, q)) => q.clone(),
            None => {
                let t = fabricscope_flow::compose::with_fraction(topo, f, traffic);
                let q = a.algo.predict(&a.group.comm(&t)?, a.op, a.bytes)?;
                seen.push((f, q.clone()));
                q
            }
        };
        busbw.push(q.busbw.0);
        time.push(q.time.0);
    }
    let (busbw, time) = (Spread::of(&busbw), Spread::of(&time));
    let (prediction, calibration) = match calibrated {
        Some((j, note)) => (j, Some(note)),
        None => (output::PredictionJson::from(p), None),
    };
    if a.json {
        return output::json(&FlowPredictionJson { prediction, busbw_over_seeds: busbw, time_over_seeds: time, flow: FlowJson::of(&out, COMPOSITION), calibration });
    }
    let mut text = match &calibration {
        Some(note) => format!("{}{}", output::prediction_text_with(topo, comm.placement, p, &prediction), note_text(note, &prediction)),
        None => output::prediction_text(topo, comm.placement, p),
    };
    text.push_str(&format!(
        "\nOn the actual fabric ({}): busbw mean {:.1}, p10 {:.1}, p50 {:.1}, p90 {:.1} GB/s per direction over {} seed(s); time mean {:.1} us\n",
        out.evidence, busbw.mean, busbw.p10, busbw.p50, busbw.p90, out.seeds, time.mean
    ));
    text.push_str(&format!("{}\n", study_line(&out)));
    text.push_str(&format!("composition: {COMPOSITION}\n"));
    Ok(text)
}
