//! `fabricscope serve --svg FILE`: the serving curve of the deployment and of its counterpart
//! across the NVLink boundary, drawn by the page's renderer (crates/charts serving.rs).

use crate::error::CliError;
use fabricscope_charts::{serving_chart, ServingChart, ServingSeries, Theme};
use fabricscope_model::Topology;
use fabricscope_serving::curve::with_counterpart;
use fabricscope_serving::{Deployment, Phase, ServingModel};
use std::path::Path;

/// Writes the chart (760 x 440 px) to `path`.
pub fn write(path: &Path, topo: &Topology, m: &ServingModel, d: &Deployment, dark: bool) -> Result<(), CliError> {
    if d.phase == Phase::Offline {
        return Err(CliError::new("--svg", "the serving curve varies the batch: use --phase decode or prefill (offline settles its own batch)"));
    }
    let curves = with_counterpart(topo, m, d)?;
    let series = curves.iter().enumerate().map(|(i, c)| ServingSeries::of(c, None, (i == 0).then_some(d.batch))).collect();
    let svg = serving_chart(&ServingChart { series, prefill: d.phase == Phase::Prefill, batch_labels: true, caption: true }, 760, 440, &Theme::for_dark(dark));
    std::fs::write(path, svg).map_err(|e| CliError::new("--svg", format!("cannot write {}: {e}", path.display())))
}
