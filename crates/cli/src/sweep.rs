//! `fabricscope sweep`: one collective over message sizes in powers of two, like nccl-tests'
//! `-b 8 -e 16G -f 2`.

use crate::cluster_args::{op_parser, size_parser, ClusterArgs, GroupArgs};
use crate::collective::AlgoArgs;
use crate::calibration_arg::{measured_topology, prediction_json, CalibrationArg, CalibrationNote};
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::units::{format_size, Bytes};
use fabricscope_model::{sweep_sizes, Collective, Prediction};

#[derive(Args, Clone, Debug)]
pub struct SweepArgs {
    /// Collective
    #[arg(long, value_name = "OP", value_parser = op_parser())]
    pub op: Collective,

    /// Smallest size; each next size doubles it
    #[arg(long, value_name = "SIZE", allow_negative_numbers = true, value_parser = size_parser(), default_value = "8")]
    pub min: Bytes,

    /// Largest size
    #[arg(long, value_name = "SIZE", allow_negative_numbers = true, value_parser = size_parser(), default_value = "16G")]
    pub max: Bytes,

    #[command(flatten)]
    pub algo: AlgoArgs,

    /// Print a JSON array (one object per size) instead of a table
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub group: GroupArgs,

    #[command(flatten)]
    pub calibration: CalibrationArg,
}

/// One size of `sweep --calibration --json`.
#[derive(serde::Serialize)]
struct CalibratedRow {
    #[serde(flatten)]
    prediction: output::PredictionJson,
    calibration: CalibrationNote,
}

pub fn run(a: &SweepArgs) -> Result<String, CliError> {
    if a.min > a.max {
        return Err(CliError::new(
            "--min",
            format!(
                "{} is larger than --max {}; use --min <= --max",
                format_size(a.min),
                format_size(a.max)
            ),
        ));
    }
    let (topo, cal) = a.calibration.topology(&a.cluster)?;
    let comm = a.group.comm(&topo)?;
    if let Some(f) = &cal {
        let k = a.group.comm(&measured_topology(&topo, f)?)?;
        let mut out = Vec::new();
        for b in sweep_sizes(a.min, a.max) {
            let (q, p) = (a.algo.predict(&k, a.op, b)?, a.algo.predict(&comm, a.op, b)?);
            let (j, note) = prediction_json(&k, &q, &p, f);
            out.push((q, CalibratedRow { prediction: j, calibration: note }));
        }
        if a.json {
            let v: Vec<&CalibratedRow> = out.iter().map(|r| &r.1).collect();
            return output::json(&v);
        }
        let rows: Vec<Prediction> = out.iter().map(|r| r.0).collect();
        let mut s = output::sweep_table(&topo, k.placement, &rows);
        if let Some(r) = out.first() {
            s.push_str(&format!("# calibrated from {} log(s): {}\n", r.1.calibration.logs, r.1.calibration.note));
        }
        s.push_str(&format!("#{:>14} {:>12} {:>12} {:>22}\n", "size (B)", "catalog", "calibrated", "90% interval"));
        for (q, r) in &out {
            let i = r.prediction.intervals.as_ref().map_or(String::new(), |i| output::range_text(i.busbw_gbps.lo, i.busbw_gbps.hi));
            s.push_str(&format!("{:>15} {:>12.2} {:>12.2} {:>22}\n", q.bytes.0, r.calibration.catalog_busbw_gbps, q.busbw.0, i));
        }
        return Ok(s);
    }
    let rows = sweep_sizes(a.min, a.max)
        .map(|b| a.algo.predict(&comm, a.op, b))
        .collect::<Result<Vec<Prediction>, CliError>>()?;
    if a.json {
        let v: Vec<output::PredictionJson> =
            rows.iter().map(output::PredictionJson::from).collect();
        output::json(&v)
    } else {
        Ok(output::sweep_table(&topo, comm.placement, &rows))
    }
}
