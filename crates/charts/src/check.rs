//! Measured against expected: a real cluster's nccl-tests busbw as dots over the model's
//! curve and its 90% interval, one curve per collective checked. Drawn by the throughput
//! chart's renderer ([`crate::collective`]), for the page and `fabricscope check --svg`.

use crate::collective::{collective_chart_with_points, ChartOptions, Points, Series};
use crate::theme::Theme;
use fabricscope_check::CheckReport;

/// Sizes drawn per run at most: a log of 20,000 sizes is drawn from every k-th (the table
/// and the CSV keep them all), so the chart stays a few hundred marks.
const MAX_DRAWN: usize = 400;

/// The overlay of `r` at `width` px (0: 880).
pub fn check_chart(r: &CheckReport, theme: &Theme, width: u32) -> String {
    let mut series = Vec::new();
    let mut points = Vec::new();
    for p in &r.plateaus {
        let n = r.rows.iter().filter(|w| w.run == p.run).count();
        let every = n.div_ceil(MAX_DRAWN).max(1);
        let rows = r.rows.iter().filter(|w| w.run == p.run).enumerate().filter(|(i, _)| i % every == 0 || i + 1 == n).map(|(_, w)| w);
        // Shaded: each size's 90% interval, the one the page's table judges the rows by.
        let (exp, spread): (Vec<(u64, f64)>, Vec<(f64, f64)>) = rows.clone().map(|w| ((w.bytes, w.expected_busbw), w.interval.map_or((0.0, 0.0), |[lo, hi]| (lo, hi)))).unzip();
        let name = p.op.name();
        let run = if r.plateaus.len() > 1 { format!(" (run {})", p.run + 1) } else { String::new() };
        series.push(Series { label: format!("{name} expected{run}"), points: exp, spread, ..Series::default() });
        points.push(Points { label: format!("{name} measured{run}"), points: rows.map(|w| (w.bytes, w.measured_busbw)).collect() });
    }
    let lo = r.rows.iter().map(|w| w.bytes).min().unwrap_or(8);
    let hi = r.rows.iter().map(|w| w.bytes).max().unwrap_or(16 << 30);
    let opts = ChartOptions {
        width: if width == 0 { 880 } else { width },
        min_bytes: lo,
        max_bytes: hi.max(lo.saturating_mul(2)),
        linear: true,
        title: Some(format!("Measured vs expected: {} node{} x {} {}", r.cluster.nodes, if r.cluster.nodes == 1 { "" } else { "s" }, r.cluster.gpus_per_node, r.cluster.gpu.spec().name)),
        y_label: "busbw, GB/s per direction".into(),
        description: "measured nccl-tests busbw over the model's expected curve and its 90% interval".into(),
        ..ChartOptions::default()
    };
    collective_chart_with_points(&series, &opts, &points, theme)
}
