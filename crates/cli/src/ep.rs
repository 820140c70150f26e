//! `fabricscope ep`: expert-parallel dispatch and combine of one MoE layer on the cluster, as an
//! EP library's normal or low-latency kernels run them (`--ep-library`: DeepEP on NVIDIA GPUs
//! and MoRI on AMD by default): time, bottleneck link and its bandwidth, with 90% intervals.

use crate::cluster_args::{count_parser, library_parser, unknown, ClusterArgs, FlagParser};
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_model::ep::{self, Dtype, EpInput, EpReport, Imbalance, Kernel, Library, Link, Phase};
use fabricscope_model::limits;
use serde::Serialize;

#[derive(Args, Clone, Debug)]
pub struct EpArgs {
    /// Ranks in the EP group (consecutive GPUs, filling scale-up domains first)
    #[arg(long, value_name = "N", value_parser = count_parser(limits::EP))]
    pub ep: u32,
    /// Tokens per rank
    #[arg(long, value_name = "T", value_parser = count_parser(limits::SEQ))]
    pub tokens: u32,
    /// A mixture-of-experts model from the one catalog (`train --model`'s ids) whose hidden
    /// size, top-k and experts the flags below override [default: deepseek-v3-like]
    #[arg(long, value_name = "MODEL", value_parser = crate::train::model_id_parser())]
    pub model: Option<&'static str>,
    /// Hidden size [default: the model's, 7168]
    #[arg(long, value_name = "H", value_parser = count_parser(limits::HIDDEN))]
    pub hidden: Option<u32>,
    /// Experts each token is routed to [default: the model's, 8]
    #[arg(long, value_name = "K", value_parser = count_parser(limits::TOP_K))]
    pub top_k: Option<u32>,
    /// Routed experts over all ranks [default: the model's, 256]
    #[arg(long, value_name = "E", value_parser = count_parser(limits::EXPERTS))]
    pub experts: Option<u32>,
    /// Element type of dispatched tokens: fp8, bf16, fp4
    #[arg(long, value_name = "DTYPE", default_value = "fp8", value_parser = dtype_parser())]
    pub dispatch_dtype: Dtype,
    /// Element type of combined results: bf16, fp8
    #[arg(long, value_name = "DTYPE", default_value = "bf16", value_parser = dtype_parser())]
    pub combine_dtype: Dtype,
    /// Kernel family: normal (hierarchical, throughput) or low-latency (direct RDMA per
    /// token-expert pair) [default: normal, or low-latency for a library without normal kernels
    /// (pplx, pplx-garden)]
    #[arg(long, value_name = "KIND", value_parser = kernel_parser())]
    pub kernel: Option<Kernel>,
    /// EP library running the kernels: deepep, pplx (pplx-kernels), pplx-garden, nccl-ep,
    /// uccl-ep, mori, trtllm (TensorRT-LLM, incl. its one-sided NVLink AlltoAll inside an NVL72
    /// rack, its two-sided one above 64 ranks there) [default: deepep on NVIDIA GPUs, mori on AMD; the interval then spans every
    /// measured library]
    #[arg(long, value_name = "LIBRARY", value_parser = library_parser())]
    pub ep_library: Option<Library>,
    /// Node-limited routing: each token's experts on at most M nodes [default: no limit]
    #[arg(long, value_name = "M", value_parser = count_parser(limits::MAX_NODES_PER_TOKEN))]
    pub max_nodes_per_token: Option<u32>,
    /// Busiest rank's load over the mean (1 to 16), or `uniform` for uniform random routing
    #[arg(long, value_name = "FACTOR", default_value = "uniform", value_parser = imbalance_parser())]
    pub imbalance: Imbalance,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub calibration: crate::calibration_arg::CalibrationArg,
}

/// `ep --calibration`: the shares the phases were timed with and the catalog's times.
#[derive(Serialize)]
struct EpCalibration {
    logs: u32,
    measured_nodes: Vec<u32>,
    predicted_nodes: u32,
    /// "measured at 2 nodes, predicted at 8" (and what is the catalog's).
    note: String,
    calibrated: bool,
    /// The calibration's AllToAll shares (its own where the logs ran all_to_all, else the
    /// tier's), dimensionless: what the EP kernels' links were scaled by. The phases'
    /// `intervals` stay the EP class's (the fit's uncertainty is not combined into them).
    scale_up_share: f64,
    network_share: f64,
    catalog_dispatch_us: f64,
    catalog_combine_us: f64,
}

fn dtype_ids() -> Vec<&'static str> {
    vec!["fp8", "bf16", "fp4"]
}
fn kernel_ids() -> Vec<&'static str> {
    vec!["normal", "low-latency"]
}
fn dtype_parser() -> FlagParser<Dtype> {
    FlagParser { parse: |s| Dtype::from_id(s).ok_or_else(|| unknown("element type", s, &dtype_ids())), ids: Some(dtype_ids) }
}
fn kernel_parser() -> FlagParser<Kernel> {
    FlagParser { parse: |s| Kernel::from_id(s).ok_or_else(|| unknown("kernel", s, &kernel_ids())), ids: Some(kernel_ids) }
}
fn imbalance_parser() -> FlagParser<Imbalance> {
    FlagParser {
        parse: |s| {
            if s.eq_ignore_ascii_case("uniform") {
                return Ok(Imbalance::Uniform);
            }
            match s.trim().parse::<f64>() {
                Ok(f) if f.is_finite() && (1.0..=16.0).contains(&f) => Ok(Imbalance::Factor(f)),
                _ => Err(format!("invalid imbalance '{}'; allowed: uniform, or the busiest rank's load over the mean from 1 to 16", fabricscope_model::error::printable(s, fabricscope_model::error::MAX_QUOTED_CHARS))),
            }
        },
        ids: None,
    }
}

/// What `--json` prints: the fields first, then where the group sits and the band.
#[derive(Serialize)]
struct EpJson<'a> {
    /// The library timed: the one `--ep-library` names, or the platform's default.
    ep_library: Library,
    /// No `--ep-library` was given: the intervals span every measured library's rows.
    ep_library_default: bool,
    kernel: Kernel,
    dispatch: PhaseJson<'a>,
    combine: PhaseJson<'a>,
    placement: &'a ep::EpPlacement,
    /// Expert slots over the group: the experts, padded with redundant copies to a multiple of
    /// EP when EP does not divide them.
    expert_slots: u32,
    imbalance: f64,
    error_band_pct: Option<f64>,
    trust: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<EpCalibration>,
}

/// One phase's fields and, beside them, the 90% intervals of `time_us` and `bottleneck_GBps`
/// (`{lo, hi, coverage, sources, rows, basis, extrapolated}`; docs/calibration.md).
#[derive(Serialize)]
struct PhaseJson<'a> {
    #[serde(flatten)]
    phase: &'a Phase,
    #[serde(skip_serializing_if = "Option::is_none")]
    intervals: Option<fabricscope_model::calibration::apply::EpPhaseIntervals>,
}

/// A phase with its intervals, from the EP calibration of the library (`None` when the user
/// named none), kernel kind and placement (extrapolated where the report has no band: a library,
/// GPU or domain no source measured).
fn phase_json<'a>(ph: &'a Phase, given: Option<Library>, kernel: Kernel, r: &EpReport) -> PhaseJson<'a> {
    use fabricscope_model::calibration::apply::{ep_phase_intervals, for_ep};
    let intervals = for_ep(given, kernel, r.placement.scale_up_only, r.error_band_pct.is_some()).map(|(c, basis)| ep_phase_intervals(&c, &basis, ph.time_us, ph.bottleneck_gbps));
    PhaseJson { phase: ph, intervals }
}

/// " (90%: lo-hi)" of an interval, empty without one.
fn range(i: Option<&fabricscope_model::interval::Interval>, digits: usize) -> String {
    i.map_or(String::new(), |i| format!(" (90%: {:.digits$}-{:.digits$})", i.lo, i.hi))
}

fn link_name(l: Link) -> &'static str {
    match l {
        Link::Nvlink => "NVLink",
        Link::Rdma => "RDMA (network)",
        Link::Xgmi => "xGMI",
        Link::Pcie => "PCIe",
    }
}

impl EpArgs {
    /// Hidden size, top-k and routed experts: the flags, else the model's (DeepSeek-V3-like by
    /// default); a dense model is refused by name.
    fn shape(&self) -> Result<(u32, u32, u32), CliError> {
        let id = self.model.unwrap_or("deepseek-v3-like");
        let w = fabricscope_model::training::preset(id).ok_or_else(|| CliError::new("--model", unknown("model", id, &fabricscope_model::training::preset_ids())))?;
        let moe = w.moe.ok_or_else(|| CliError::new("--model", format!("{id} is a dense model: expert parallelism needs a mixture of experts (e.g. deepseek-v3-like, mixtral-8x7b, qwen3-235b-a22b, kimi-k2)")))?;
        Ok((self.hidden.unwrap_or(w.hidden), self.top_k.unwrap_or(moe.top_k), self.experts.unwrap_or(moe.experts)))
    }
}

fn text(a: &EpArgs, kernel: Kernel, (hidden, top_k, experts): (u32, u32, u32), topo: &fabricscope_model::Topology, r: &EpReport) -> String {
    let p = &r.placement;
    let mut s = output::cluster_line(topo);
    s.push('\n');
    s.push_str(&format!(
        "EP {} ({} {} kernels, {} tokens per rank, hidden {}, top-{} of {} experts{}, dispatch {}, combine {})\n",
        a.ep,
        r.library.name(),
        kernel.id(),
        a.tokens,
        hidden,
        top_k,
        experts,
        padding_note(experts, a.ep),
        a.dispatch_dtype.id(),
        a.combine_dtype.id()
    ));
    if p.scale_up_only {
        s.push_str(&format!("Placement: all {} ranks inside one scale-up domain: NVLink only, no network\n", p.ranks));
    } else {
        s.push_str(&format!("Placement: {} ranks = {} per domain x {} domains: tokens cross the network\n", p.ranks, p.per_domain, p.domains));
    }
    if a.ep_library.is_none() {
        s.push_str(&format!("Library: {} (the default on this GPU; --ep-library to choose; the intervals span every measured library)\n", r.library.name()));
    }
    s.push('\n');
    for (name, ph) in [("dispatch", &r.dispatch), ("combine", &r.combine)] {
        let iv = phase_json(ph, a.ep_library, kernel, r).intervals;
        s.push_str(&format!(
            "{name:<9} {:>10.1} µs{}   bottleneck {:<15} {:>7.1} GB/s per GPU{}{}\n",
            ph.time_us,
            range(iv.as_ref().map(|i| &i.time_us), 1),
            link_name(ph.bottleneck),
            ph.bottleneck_gbps,
            range(iv.as_ref().map(|i| &i.bottleneck_gbps), 1),
            if ph.latency_bound { "   (latency-bound)" } else { "" }
        ));
    }
    s.push_str(&format!("\nBusiest rank carries {:.3}x the mean load.\n", r.imbalance));
    match r.error_band_pct {
        Some(b) => s.push_str(&format!("Band: ±{b:.0}% (median error of this kernel kind on published runs of the fitted libraries; {})\n", r.trust)),
        None => s.push_str(&format!("Band: {}\n", r.trust)),
    }
    s
}

/// The kernel kind: the flag's, else normal where the library has normal kernels, else
/// low-latency.
fn kernel_of(a: &EpArgs, lib: Library) -> Kernel {
    a.kernel.unwrap_or(if lib.params().normal.is_some() { Kernel::Normal } else { Kernel::LowLatency })
}

/// Says how an EP size that does not divide the experts places them: in redundant slots.
fn padding_note(experts: u32, ep: u32) -> String {
    let slots = ep::expert_slots(experts, ep);
    if slots == experts { String::new() } else { format!(" in {slots} slots, {} of them redundant copies so that EP {ep} divides them", slots - experts) }
}

pub fn run(a: &EpArgs) -> Result<String, CliError> {
    let (topo, cal) = a.calibration.topology(&a.cluster)?;
    let (hidden, top_k, experts) = a.shape()?;
    let lib = a.ep_library.unwrap_or_else(|| Library::default_for(topo.gpu.arch));
    let kernel = kernel_of(a, lib);
    let input = EpInput {
        ep: a.ep,
        tokens: a.tokens,
        hidden,
        top_k,
        experts,
        dispatch_dtype: a.dispatch_dtype,
        combine_dtype: a.combine_dtype,
        kernel,
        max_nodes_per_token: a.max_nodes_per_token.filter(|m| *m > 0),
        imbalance: a.imbalance,
        library: Some(lib),
    };
    let r0 = ep::evaluate(&topo, &input)?;
    let (r, calibration) = match &cal {
        Some(f) => {
            let s = f.calibration.scales_for(fabricscope_model::Collective::AllToAll);
            let r = ep::evaluate_scaled(&topo, &input, s.intra_bw, s.net_bw)?;
            let nodes = r.placement.domains;
            let note = EpCalibration {
                logs: f.calibration.logs,
                measured_nodes: f.calibration.measured_nodes.clone(),
                predicted_nodes: nodes,
                note: f.calibration.scale_note(nodes),
                calibrated: f.calibration.covers(nodes),
                scale_up_share: s.intra_bw,
                network_share: s.net_bw,
                catalog_dispatch_us: r0.dispatch.time_us,
                catalog_combine_us: r0.combine.time_us,
            };
            (r, Some(note))
        }
        None => (r0, None),
    };
    if a.json {
        output::json(&EpJson {
            ep_library: r.library,
            ep_library_default: a.ep_library.is_none(),
            kernel,
            dispatch: phase_json(&r.dispatch, a.ep_library, kernel, &r),
            combine: phase_json(&r.combine, a.ep_library, kernel, &r),
            placement: &r.placement,
            expert_slots: ep::expert_slots(experts, a.ep),
            imbalance: r.imbalance,
            error_band_pct: r.error_band_pct,
            trust: &r.trust,
            calibration,
        })
    } else {
        let mut s = text(a, kernel, (hidden, top_k, experts), &topo, &r);
        if let Some(c) = &calibration {
            s.push_str(&format!(
                "Calibrated from {} log{}: {}; links at {:.0}% (scale-up) and {:.0}% (network) of the catalog's. Catalog (as designed): dispatch {:.1} µs, combine {:.1} µs.\n",
                c.logs,
                if c.logs == 1 { "" } else { "s" },
                c.note,
                c.scale_up_share * 100.0,
                c.network_share * 100.0,
                c.catalog_dispatch_us,
                c.catalog_combine_us
            ));
        }
        Ok(s)
    }
}
