//! Published expert-parallel dispatch/combine measurements (validation/ep-dispatch.csv) against
//! the EP model (crates/model/src/ep), per kernel kind: normal kernels judged on
//! `bottleneck_GBps`, low-latency kernels on `time_us`.
//!
//! Rows become scenarios by fixed rules (nothing is tuned per row):
//! - GPU: the one the row names; H20 is read as H100 (the same NVLink4 at 450 GB/s per
//!   direction and PCIe Gen5); GB200 trays as GB200 in an NVL72 rack.
//! - GPUs per node from `gpus / nodes`; NIC: 400G ConnectX-7 / InfiniBand as ib-ndr (also
//!   where the row says InfiniBand without a model, as pplx-kernels' H100 cluster does:
//!   flagged), one per GPU; RoCE at 400G as roce-400.
//! - Missing tokens, hidden, top-k, experts: DeepEP's test defaults (4,096 tokens per rank for
//!   normal kernels, hidden 7,168, top-8, 256 experts); missing dtypes: BF16.
//! - Not evaluated (listed with the reason): NICs the catalog lacks (200G RoCE) or not stated,
//!   pplx-kernels' CPU-proxy IB RC transport (not modelled), rows without a figure, and rows
//!   whose own numbers contradict the stated configuration.
//! - Rows the thread itself calls broken are evaluated and shown but not counted in the median.
//!
//! FABRICSCOPE_WRITE_DOCS=1 rewrites docs/ep-accuracy.md.

mod common;
#[path = "common/calibration.rs"]
mod calibration;

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::ep::{self, params, Dtype, EpInput, Imbalance, Kernel};
use fabricscope_model::topology::Cluster;

struct Outcome {
    line: String,
    kind: Kernel,
    /// Signed relative error, when evaluated and counted.
    counted: Option<f64>,
    /// The counted row's figures as calibration samples (each phase the row gives is one:
    /// ratio measured / predicted of a rate, a time's inverted).
    samples: Vec<fabricscope_model::calibration::Sample>,
}

/// A source as the calibration counts it: the GitHub issue, repository or publication.
fn source_id(source: &str) -> String {
    let s = source.trim();
    if let Some(rest) = s.strip_prefix("GitHub issue ") {
        return rest.split_whitespace().next().unwrap_or(rest).to_string();
    }
    s.split([',', '(']).next().unwrap_or(s).trim().to_string()
}

fn num(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok()
}

fn cluster(hw: &str, fabric: &str, gpus: u32, nodes: u32) -> Result<(Cluster, &'static str), String> {
    let gpn = (gpus / nodes.max(1)).max(1);
    let gpu = if hw.starts_with("GB200") {
        GpuKind::Gb200
    } else if hw.starts_with("H800") {
        GpuKind::H800
    } else if hw.starts_with("H200") {
        GpuKind::H200
    } else if hw.starts_with("H100") || hw.starts_with("H20 ") || hw.starts_with("H20(") || hw.starts_with("H20") {
        GpuKind::H100
    } else {
        return Err(format!("GPU '{hw}' not in the catalog"));
    };
    let f = fabric.to_ascii_lowercase();
    let (nic, note) = if nodes <= 1 {
        (NicKind::IbNdr, "")
    } else if f.contains("200 gb/s") || f.contains("200g") {
        return Err("200G RoCE NIC not in the catalog".into());
    } else if f.contains("nic not stated") {
        return Err("NIC not stated".into());
    } else if f.contains("roce") && !f.contains("400") {
        (NicKind::Roce400, "RoCE speed not stated: 400G assumed")
    } else if f.contains("roce") {
        (NicKind::Roce400, "")
    } else if f.contains("not stated") || f.contains("fabric type not stated") {
        (NicKind::IbNdr, "NIC not stated: 400G InfiniBand, one per GPU, assumed")
    } else {
        (NicKind::IbNdr, "")
    };
    let c = if gpu == GpuKind::Gb200 {
        Cluster { gpu, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes: nodes.max(1), nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }
    } else {
        Cluster { gpu, scale_up: ScaleUp::natural(gpu), gpus_per_node: gpn, nodes: nodes.max(1), nics_per_node: gpn.min(8), nic, ..Cluster::default() }
    };
    Ok((c, note))
}

fn outcomes() -> Vec<Outcome> {
    let table = common::read_csv(include_str!("../../../validation/ep-dispatch.csv"));
    let head = &table[0];
    let col = |name: &str| head.iter().position(|h| h == name).unwrap_or_else(|| panic!("column {name}"));
    let [source, hardware, gpus, nodes, fabric, kernel, tokens, hidden, top_k, experts, ddt, cdt, dt, ct, dg, cg, notes] = [
        "source", "hardware", "gpus", "nodes", "fabric", "kernel", "tokens_per_rank", "hidden", "top_k", "experts", "dispatch_dtype", "combine_dtype", "dispatch_time_us",
        "combine_time_us", "dispatch_bottleneck_GBps", "combine_bottleneck_GBps", "notes",
    ]
    .map(col);
    let mut out = Vec::new();
    for (i, r) in table.iter().enumerate().skip(1) {
        let line_no = i + 1;
        let kind = Kernel::from_id(&r[kernel]).expect("kernel column");
        let src: String = r[source].chars().take(48).collect();
        let label = format!("| {line_no} | {src} | {} | {} | {} |", r[hardware], r[gpus], kind.id());
        let skip = |why: &str| Outcome { line: format!("{label} | | | | not evaluated: {why} |"), kind, counted: None, samples: Vec::new() };
        let note_l = r[notes].to_ascii_lowercase();
        let src_l = r[source].to_ascii_lowercase();
        let fab_l = r[fabric].to_ascii_lowercase();
        if fab_l.contains("cpu-proxy") || r[source].contains("IBRC") || src_l.contains("ib rc") {
            out.push(skip("pplx-kernels' CPU-proxy IB RC transport is not modelled"));
            continue;
        }
        let (n_gpus, n_nodes) = (num(&r[gpus]).unwrap_or(8.0) as u32, num(&r[nodes]).unwrap_or(1.0) as u32);
        let (c, assumed) = match cluster(&r[hardware], &r[fabric], n_gpus, n_nodes) {
            Ok(x) => x,
            Err(e) => {
                out.push(skip(&e));
                continue;
            }
        };
        let t = c.topology().expect("cluster");
        let dtype = |s: &str| Dtype::from_id(s).unwrap_or(Dtype::Bf16);
        let input = EpInput {
            ep: n_gpus,
            tokens: num(&r[tokens]).map_or(if kind == Kernel::Normal { 4096 } else { 128 }, |v| v as u32),
            hidden: num(&r[hidden]).map_or(7168, |v| v as u32),
            top_k: num(&r[top_k]).map_or(8, |v| v as u32),
            experts: num(&r[experts]).map_or(256, |v| v as u32),
            dispatch_dtype: dtype(&r[ddt]),
            combine_dtype: dtype(&r[cdt]),
            kernel: kind,
            max_nodes_per_token: None,
            imbalance: Imbalance::Uniform,
        };
        let rep = ep::evaluate(&t, &input).expect("evaluates");
        // The measured figure and the predicted one.
        let (what, measured, predicted) = match kind {
            Kernel::Normal => match (num(&r[dg]), num(&r[cg])) {
                (Some(m), _) => ("dispatch GB/s", m, rep.dispatch.bottleneck_gbps),
                (None, Some(m)) => ("combine GB/s", m, rep.combine.bottleneck_gbps),
                _ => {
                    out.push(skip("no figure"));
                    continue;
                }
            },
            Kernel::LowLatency => {
                let implied = num(&r[dg]).zip(num(&r[dt])).map(|(g, t)| g * t * 1e3);
                let stated = input.tokens as f64 * input.top_k as f64 * input.hidden as f64 * input.dispatch_dtype.bytes_per_element();
                if implied.is_some_and(|b| (b / stated - 1.0).abs() > 0.5) {
                    out.push(skip("its bandwidth x time implies a tenth of the stated configuration's bytes"));
                    continue;
                }
                match (num(&r[dt]), num(&r[ct])) {
                    (Some(m), _) => ("dispatch µs", m, rep.dispatch.time_us),
                    _ if note_l.contains("dispatch+combine") => {
                        let sum = r[notes].split("us avg").next().and_then(|s| s.split_whitespace().last()).and_then(num);
                        match sum {
                            Some(m) => ("dispatch+combine µs", m, rep.dispatch.time_us + rep.combine.time_us),
                            None => {
                                out.push(skip("no figure"));
                                continue;
                            }
                        }
                    }
                    _ => {
                        out.push(skip("no figure"));
                        continue;
                    }
                }
            }
        };
        // measured / predicted of a rate: GB/s as is, a time inverted.
        let rate_ratio = |m: f64, p: f64| if kind == Kernel::Normal { m / p } else { p / m };
        let mut ratios = vec![rate_ratio(measured, predicted)];
        let mut err = predicted / measured - 1.0;
        let mut shown = format!("{label} {what} | {measured:.1} | {predicted:.1} | {:+.0}%", err * 100.0);
        // The combine figure of the same row, where given, is a second comparison.
        let second = match kind {
            Kernel::Normal if num(&r[dg]).is_some() => num(&r[cg]).map(|m| (m, rep.combine.bottleneck_gbps)),
            Kernel::LowLatency if num(&r[dt]).is_some() => num(&r[ct]).map(|m| (m, rep.combine.time_us)),
            _ => None,
        };
        if let Some((m, p)) = second {
            let e2 = p / m - 1.0;
            ratios.push(rate_ratio(m, p));
            shown.push_str(&format!("; combine {m:.1} vs {p:.1} ({:+.0}%)", e2 * 100.0));
            // Both phases count: the row's error is their mean absolute error, signed by the larger.
            err = if e2.abs() > err.abs() { e2.signum() } else { err.signum() } * (err.abs() + e2.abs()) / 2.0;
        }
        let broken = note_l.contains("unexplained drop") || note_l.contains("adaptive routing / rdma atomics") || src_l.contains("#82");
        let blackwell = c.gpu == GpuKind::Gb200;
        let why = if broken {
            "shown, not counted: the thread reports a broken fabric"
        } else if blackwell {
            "shown, not counted: Blackwell is not validated (one row, an open issue about unsaturated NVLink)"
        } else {
            assumed
        };
        let counted = !broken && !blackwell;
        let keys = fabricscope_model::calibration::ep_keys(kind, rep.placement.scale_up_only);
        let samples = if counted {
            ratios.into_iter().map(|ratio| fabricscope_model::calibration::Sample { source: source_id(&r[source]), keys: keys.clone(), ratio, gpus: n_gpus }).collect()
        } else {
            Vec::new()
        };
        out.push(Outcome { line: format!("{shown} | {why} |"), kind, counted: counted.then_some(err), samples });
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn median_error_per_kernel_kind() {
    let o = outcomes();
    let mut doc = String::from(
        "# EP dispatch/combine accuracy\n\nGenerated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test ep_accuracy`.\n\
         Published dispatch/combine measurements (`validation/ep-dispatch.csv`) against `crates/model/src/ep`. Normal kernels are judged\n\
         on `bottleneck_GBps` (DeepEP's figure: bytes over the bottleneck link per GPU / kernel time), low-latency kernels on `time_us`.\n\
         The parameters (`crates/model/src/ep/params.rs`) are fitted once per class (kernel kind x link) on the Hopper rows, never\n\
         per row. Rows are mapped to clusters by fixed rules (see the test's header). Where a row gives both phases, its error is\n\
         the mean of the two.\n\n",
    );
    let mut summary = Vec::new();
    for kind in [Kernel::Normal, Kernel::LowLatency] {
        let errs: Vec<f64> = o.iter().filter(|x| x.kind == kind).filter_map(|x| x.counted).map(f64::abs).collect();
        let m = median(errs.clone()) * 100.0;
        println!("{}: {} rows counted, median |error| {m:.1}%", kind.id(), errs.len());
        summary.push((kind, errs.len(), m));
    }
    doc.push_str("| kernel | rows counted | median abs error | band shown |\n|---|---|---|---|\n");
    for (kind, n, m) in &summary {
        let band = if *kind == Kernel::Normal { params::BAND_NORMAL_PCT } else { params::BAND_LOW_LATENCY_PCT };
        doc.push_str(&format!("| {} | {n} | {m:.1}% | {band:.0}% |\n", kind.id()));
    }
    doc.push_str(
        "\nNot validated (the prediction says so): Blackwell (GB200/B200) and every non-Hopper GPU, PCIe and xGMI domains, EP\n\
         inside an NVL72 rack or across racks: no published measurement outside reserved sources was found.\n\n\
         ## Rows\n\n| line | source | hardware | GPUs | kernel / figure | measured | model | error | note |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for x in &o {
        println!("{}", x.line);
        doc.push_str(&x.line);
        doc.push('\n');
    }
    if std::env::var("FABRICSCOPE_WRITE_DOCS").is_ok() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/ep-accuracy.md"), doc).expect("write docs/ep-accuracy.md");
    }
    // The 90% intervals, held out by source (docs/calibration.md, src/calibration/ep.csv). No
    // coverage floor asserted here, unlike collectives and training: the EP rows are few and
    // come mostly from two sources (pplx-kernels' README and DeepEP's issues), and the model,
    // fitted on DeepEP's kernels, is known to be 2-3x off for EP libraries other than the one
    // fitted; leaving one of them out leaves an interval built on the other library's error.
    // The document says the floor is not yet met; the value is held by the table's check.
    let samples: Vec<_> = o.iter().flat_map(|x| x.samples.iter().cloned()).collect();
    let cal = calibration::check_at(
        "ep",
        "EP dispatch/combine",
        "crates/model/src/calibration/ep.csv",
        &samples,
        Some("Here the model, fitted on DeepEP's kernels, is 2-3x off for other EP libraries (pplx-kernels), so one library's rows say little about another's; only Hopper is measured."),
    );
    let all = cal.iter().find(|r| r.key == "all").expect("an 'all' level");
    assert!(all.rows >= 19 && all.bounds.is_some(), "EP: {all:?}");
    for (kind, n, m) in summary {
        assert!(n >= 4, "{}: only {n} rows counted", kind.id());
        // The target, and the band shown with every prediction must be what the data
        // gives (rounded to whole percent, within one point).
        assert!(m <= 25.0, "{}: median {m:.1}%", kind.id());
        let band = if kind == Kernel::Normal { params::BAND_NORMAL_PCT } else { params::BAND_LOW_LATENCY_PCT };
        assert!((band - m).abs() <= 1.0, "{}: band {band}% but the data gives {m:.1}%", kind.id());
    }
}
