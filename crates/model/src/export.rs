//! Plain-text exports of model results, shared by the explorer's download buttons and the CLI:
//! CSV (RFC 4180) of collective sweeps and of training layouts (search results).

use crate::calibration::apply::collective_ratios;
use crate::report::{Report, Scope};
use crate::training::explore::layout_label;
use crate::training::StepReport;
use crate::units::{format_size, Bytes, Micros};

/// One row per (curve, message size) of a Report: what the busbw chart draws, with units in
/// the column names. Bandwidths are GB/s (10^9 B/s) per direction; busbw's 90% interval beside
/// it (held out by source, as the chart shades it).
pub fn curves_csv(r: &Report) -> String {
    let mut out = String::from(
        "op,scope,ranks,bytes,size,time_us,nccl_model_time_us,algbw_GBps_per_direction,busbw_GBps_per_direction,algorithm,protocol,bottleneck,busbw_90pct_lo_GBps,busbw_90pct_hi_GBps,validated_cases\r\n",
    );
    for c in &r.curves {
        let scope = match c.scope {
            Scope::Domain => "domain",
            Scope::Cluster => "cluster",
        };
        for p in &c.points {
            // The 90% interval the chart shades (docs/calibration.md); empty where none.
            let (lo, hi) = collective_ratios(&p.trust).map_or((String::new(), String::new()), |(lo, hi)| ((p.busbw.0 * lo).to_string(), (p.busbw.0 * hi).to_string()));
            let fields = [
                c.op.id().to_string(),
                scope.to_string(),
                p.ranks.to_string(),
                p.bytes.0.to_string(),
                format_size(p.bytes),
                p.time.0.to_string(),
                p.nccl_time.map(|t| t.0.to_string()).unwrap_or_default(),
                p.algbw.0.to_string(),
                p.busbw.0.to_string(),
                p.algorithm.to_string(),
                p.protocol.to_string(),
                p.bottleneck.id().to_string(),
                lo,
                hi,
                p.trust.validated_cases.to_string(),
            ];
            push_row(&mut out, fields.iter().map(String::as_str));
        }
    }
    out
}

/// Column names of [`layouts_csv`], units in the names.
pub const LAYOUT_COLUMNS: [&str; 31] = [
    "rank", "layout", "tp", "pp", "dp", "cp", "ep", "micro_batch", "micro_batches", "interleave", "recompute", "zero",
    "step_time_s", "step_time_90pct_lo_s", "step_time_90pct_hi_s", "mfu", "hfu", "model_tflops_per_gpu", "tokens_per_s", "memory_gib_per_gpu", "fits",
    "compute_s", "tp_s", "bubble_s", "pp_p2p_s", "dp_s", "cp_s", "ep_s", "optimizer_s", "hbm_gib", "bottleneck",
];

/// One row per training layout (search results, best first): the layout, step time and its
/// parts in seconds (the step's 90% interval beside it), MFU and HFU as fractions, memory per GPU in GiB (2^30 bytes) against HBM.
pub fn layouts_csv(rows: &[StepReport]) -> String {
    let mut out = String::new();
    push_row(&mut out, LAYOUT_COLUMNS.into_iter());
    let gib = |b: Bytes| (b.0 as f64 / (1u64 << 30) as f64).to_string();
    let s = |t: Micros| (t.0 / 1e6).to_string();
    for (i, r) in rows.iter().enumerate() {
        let (m, b) = (&r.mapping, &r.breakdown);
        let (lo, hi) = r.step_time_interval().map_or((String::new(), String::new()), |[lo, hi]| (lo.to_string(), hi.to_string()));
        let fields = [
            (i + 1).to_string(),
            layout_label(r),
            m.tp.to_string(),
            m.pp.to_string(),
            m.dp.to_string(),
            m.cp.to_string(),
            m.ep.to_string(),
            m.micro_batch.to_string(),
            r.micro_batches.to_string(),
            m.interleave.to_string(),
            m.recompute.id().to_string(),
            m.zero.to_string(),
            r.step_time_s.to_string(),
            lo,
            hi,
            r.mfu.to_string(),
            r.hfu.to_string(),
            r.model_tflops_per_gpu.to_string(),
            r.tokens_per_s.to_string(),
            r.memory_gib_per_gpu.to_string(),
            r.fits.to_string(),
            s(b.compute),
            s(b.tp),
            s(b.bubble),
            s(b.pp_p2p),
            s(b.dp),
            s(b.cp),
            s(b.ep),
            s(b.optimizer),
            gib(r.memory.capacity),
            r.bottleneck.clone(),
        ];
        push_row(&mut out, fields.iter().map(String::as_str));
    }
    out
}

/// Appends one CSV record: fields with a comma, quote or line break are quoted, quotes doubled.
pub fn push_row<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{evaluate, Scenario};

    #[test]
    fn curves_csv_has_a_row_per_point() {
        let r = evaluate(&Scenario::default()).expect("default evaluates");
        let csv = curves_csv(&r);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        let points: usize = r.curves.iter().map(|c| c.points.len()).sum();
        assert_eq!(lines.len(), points + 1);
        let cols = lines[0].split(',').count();
        assert!(
            lines.iter().all(|l| l.split(',').count() == cols),
            "rectangular"
        );
        assert!(lines[1].starts_with("all_reduce,"), "{}", lines[1]);
    }

    #[test]
    fn layouts_csv_has_a_row_per_layout_with_its_numbers() {
        use crate::training::explore::{explore, layout_label};
        let v = explore(&Scenario::default().cluster, &Scenario::default().training).expect("trains");
        let csv = layouts_csv(&v.top);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), v.top.len() + 1);
        assert_eq!(lines[0], LAYOUT_COLUMNS.join(","));
        let first: Vec<&str> = lines[1].split(',').collect();
        let col = |name: &str| LAYOUT_COLUMNS.iter().position(|c| *c == name).unwrap();
        let best = &v.top[0];
        assert_eq!(first[col("rank")], "1");
        assert_eq!(first[col("layout")], layout_label(best));
        assert_eq!(first[col("tp")].parse::<u32>().unwrap(), best.mapping.tp);
        assert_eq!(first[col("step_time_s")].parse::<f64>().unwrap(), best.step_time_s);
        assert_eq!(first[col("hbm_gib")], "80", "H100 SXM");
        // The parts are seconds and add up to about the step (overlap hides some of them).
        let parts: f64 = ["compute_s", "tp_s", "bubble_s", "pp_p2p_s", "dp_s", "cp_s", "ep_s", "optimizer_s"]
            .iter()
            .map(|c| first[col(c)].parse::<f64>().unwrap())
            .sum();
        assert!(parts > 0.5 * best.step_time_s && parts < 2.0 * best.step_time_s, "{parts} vs {}", best.step_time_s);
        assert_eq!(layouts_csv(&[]), LAYOUT_COLUMNS.join(",") + "\r\n");
    }

    #[test]
    fn fields_with_commas_quotes_or_breaks_are_quoted() {
        let mut out = String::new();
        push_row(&mut out, ["a,b", "say \"hi\"", "x\ny", "plain"].into_iter());
        assert_eq!(out, "\"a,b\",\"say \"\"hi\"\"\",\"x\ny\",plain\r\n");
    }
}
