//! `fabricscope sweep`: one collective over message sizes in powers of two, like nccl-tests'
//! `-b 8 -e 16G -f 2`.

use crate::cluster_args::{op_parser, size_parser, ClusterArgs, GroupArgs};
use crate::collective::AlgoArgs;
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
    let topo = a.cluster.topology()?;
    let comm = a.group.comm(&topo)?;
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
