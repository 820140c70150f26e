//! Your cluster, measured (issue 40): one or more nccl-tests / rccl-tests logs of one cluster
//! fitted into the cluster's effective parameters (`crate::fitted::Calibration`: per-tier
//! bandwidth shares and added latencies, per collective where the logs give it), which the
//! collective model then applies to predict other sizes and node counts.
//!
//! Honest by construction: logs of different clusters (GPU, GPUs per node, library, network
//! plugin, EFA interface count, host names) or contradicting each other (the same collective,
//! node count and size more than [`CONTRADICTION_FACTOR`] apart) are refused with the reason;
//! a tier no log exercised keeps the catalog's values and the fit says so. See docs/calibrate.md.

pub mod file;
pub mod fit;

use crate::diagnose::check_with;
use crate::error::{ModelError, Result};
use crate::facts::NetPlugin;
use crate::measured::Measured;
use crate::parse::{decode, parse};
use crate::sources::{infer, Given};
use crate::catalog::ScaleUp;
use crate::topology::Placement;
pub use file::{digest, CalibrationFile, LogDigest, MAX_FILE_BYTES};
pub use fit::{FitRow, Fitted, Param, RunSetup};

/// Two logs' busbw at the same collective, node count, rank count and size further apart than
/// this factor contradict each other (dimensionless; issue 40: "more than 2x").
pub const CONTRADICTION_FACTOR: f64 = 2.0;
/// Busbw under which two rows are not compared for a contradiction, GB/s: nccl-tests prints
/// two decimals, so below 1 GB/s a factor of 2 is a rounding.
const CONTRADICTION_MIN_GBPS: f64 = 1.0;

/// One log as read: its runs, digest and host-name patterns.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRuns {
    pub name: String,
    pub digest: String,
    pub runs: Vec<Measured>,
    /// Host names with each run of digits written `#` (`node-#`), in order of first appearance.
    pub host_patterns: Vec<String>,
    /// Runs left out and why.
    pub skipped: Vec<String>,
}

/// `node-017` -> `node-#`.
fn host_pattern(h: &str) -> String {
    let mut s = String::new();
    for c in h.chars() {
        if c.is_ascii_digit() {
            if !s.ends_with('#') {
                s.push('#');
            }
        } else {
            s.push(c);
        }
    }
    s
}

/// Reads one log's bytes (UTF-8 or UTF-16) into its runs.
pub fn read_log(name: &str, bytes: Vec<u8>) -> Result<LogRuns> {
    let digest = digest(&bytes);
    let text = decode(bytes);
    let log = parse(&text).map_err(|e| ModelError::new("log", format!("{name}: {}", e.message)))?;
    let (runs, skipped) = Measured::from_log_noted(&log);
    if runs.is_empty() {
        let why = if skipped.is_empty() { "no nccl-tests result rows".to_string() } else { skipped.join("; ") };
        return Err(ModelError::new("log", format!("{name}: no run to calibrate on: {why}")));
    }
    let mut host_patterns: Vec<String> = Vec::new();
    for r in &log.runs {
        for (h, _) in &r.hosts {
            let p = host_pattern(h);
            if !host_patterns.contains(&p) {
                host_patterns.push(p);
            }
        }
    }
    Ok(LogRuns { name: name.to_string(), digest, runs, host_patterns, skipped })
}

/// What identifies a cluster in a log: (what, value) where the log says it.
fn identity(l: &LogRuns) -> Vec<(&'static str, String)> {
    let mut id = Vec::new();
    let first = |f: &dyn Fn(&Measured) -> Option<String>| l.runs.iter().find_map(f);
    if let Some(g) = first(&|m| m.gpu.map(|g| g.spec().name.to_string()).or_else(|| m.gpu_name.clone())) {
        id.push(("GPU", g));
    }
    if let Some(n) = first(&|m| m.gpus_per_node.map(|n| n.to_string())) {
        id.push(("GPUs per node", n));
    }
    if let Some(lib) = first(&|m| m.library.map(|x| x.name().to_string())) {
        id.push(("library", lib));
    }
    if let Some(net) = first(&|m| m.net.map(|x| x.name().to_string())) {
        id.push(("network", net));
    }
    if let Some(n) = first(&|m| m.efa_nics.map(|n| n.to_string())) {
        id.push(("EFA interfaces per node", n));
    }
    id
}

/// Refuses logs of different clusters, naming the first difference.
pub fn same_cluster(logs: &[LogRuns]) -> Result<()> {
    let Some((a, rest)) = logs.split_first() else { return Ok(()) };
    let ida = identity(a);
    for b in rest {
        for (what, vb) in identity(b) {
            // Compared with the first log that says it.
            let va = ida.iter().find(|x| x.0 == what).map(|x| (a.name.as_str(), x.1.clone())).or_else(|| {
                logs.iter().take_while(|l| l.name != b.name || l.digest != b.digest).find_map(|l| identity(l).into_iter().find(|x| x.0 == what).map(|x| (l.name.as_str(), x.1)))
            });
            if let Some((na, va)) = va.filter(|(_, va)| *va != vb) {
                return Err(ModelError::new("log", format!("{na} and {} are not the same cluster: {na} shows {what} {va}, {} shows {what} {vb}; calibrate on the logs of one cluster", b.name, b.name)));
            }
        }
        if !a.host_patterns.is_empty() && !b.host_patterns.is_empty() && !b.host_patterns.iter().any(|p| a.host_patterns.contains(p)) {
            return Err(ModelError::new(
                "log",
                format!("{} and {} are not the same cluster: their hosts are named {} and {}; calibrate on the logs of one cluster", a.name, b.name, a.host_patterns.join(", "), b.host_patterns.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Refuses two logs that measured the same collective, node count, ranks and size more than
/// [`CONTRADICTION_FACTOR`] apart.
pub fn contradictions(logs: &[LogRuns]) -> Result<()> {
    for (i, a) in logs.iter().enumerate() {
        for b in &logs[i + 1..] {
            for ma in &a.runs {
                for mb in b.runs.iter().filter(|m| m.op == ma.op && m.ranks == ma.ranks && m.nodes == ma.nodes) {
                    for pa in ma.points.iter().filter(|p| p.busbw >= CONTRADICTION_MIN_GBPS) {
                        let Some(pb) = mb.points.iter().find(|p| p.bytes == pa.bytes && p.busbw >= CONTRADICTION_MIN_GBPS) else { continue };
                        let r = pa.busbw / pb.busbw;
                        if !(1.0 / CONTRADICTION_FACTOR..=CONTRADICTION_FACTOR).contains(&r) {
                            return Err(ModelError::new(
                                "log",
                                format!(
                                    "{} and {} contradict each other: {} on {} ranks at {} bytes measured {:.2} GB/s in one and {:.2} in the other (more than {CONTRADICTION_FACTOR}x apart); drop the run that went wrong, or check each alone",
                                    a.name, b.name, ma.op.id(), ma.ranks, pa.bytes, pa.busbw, pb.busbw
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Fits the cluster the `logs` describe (`design` and `given` as for a check: flags win over
/// the logs, the design fills what neither says).
pub fn calibrate(logs: &[LogRuns], design: &crate::topology::Cluster, given: &Given) -> Result<CalibrationFile> {
    if logs.is_empty() {
        return Err(ModelError::new("log", "no log to calibrate on"));
    }
    same_cluster(logs)?;
    contradictions(logs)?;
    let all: Vec<Measured> = logs.iter().flat_map(|l| l.runs.iter().cloned()).collect();
    let inf = infer(&all, design, given);
    if !inf.not_modelled.is_empty() {
        return Err(ModelError::new("log", format!("cannot calibrate: {} not modelled, so no catalog parameter can be fitted to it", inf.not_modelled.join(", "))));
    }
    let mut cluster = inf.cluster.clone();
    // What the check infers about NVLS and SHARP from the same runs.
    let mut features = Vec::new();
    let report = check_with(&all, design, given)?;
    for c in &report.verdict {
        if c.cause.starts_with("NVLS (NVLink SHARP) not in effect") {
            cluster.nvls = false;
            features.push(format!("{}{}", file::NVLS_OFF, c.evidence));
        } else if c.cause.starts_with("SHARP (CollNet) not in effect") {
            cluster.sharp = false;
            features.push(format!("{}{}", file::SHARP_OFF, c.evidence));
        }
    }
    let net = all.iter().find_map(|m| m.net);
    let multi = all.iter().any(|m| m.nodes.is_some_and(|n| n > 1));
    if multi {
        features.push(match net {
            Some(NetPlugin::Socket) => "GPUDirect RDMA: not in effect (the logs show NCCL on TCP sockets)".to_string(),
            _ => "GPUDirect RDMA: nccl-tests output does not tell it apart from a slow NIC; any shortfall is in the network share".to_string(),
        });
    }
    if cluster.nvls_hardware() && !features.iter().any(|f| f.starts_with("NVLS")) {
        features.push(format!("NVLS: {} (as the design; no log contradicts it)", if cluster.nvls { "on" } else { "off" }));
    }
    let topo = cluster.topology().map_err(|e| ModelError::new("log", format!("the cluster the logs describe ({} nodes x {} GPUs) is outside what the model covers: {}", cluster.nodes, cluster.gpus_per_node, e.message)))?;
    let own_layout = !given.nodes && !given.gpus_per_node;
    let mut setups = Vec::new();
    for (li, l) in logs.iter().enumerate() {
        for (ri, m) in l.runs.iter().enumerate().filter(|(_, m)| !m.points.is_empty()) {
            let p = match (m.nodes, m.gpus_per_node) {
                (Some(_), Some(per)) if own_layout && cluster.scale_up != ScaleUp::Nvl72 => Placement { ranks: m.ranks, per_domain: per },
                _ => topo.first(m.ranks),
            };
            let comm = Comm::new(&topo, p).map_err(|e| ModelError::new("log", format!("{} run {}: {} ranks ({} per node) do not fit the cluster: {}", l.name, ri + 1, m.ranks, p.per_domain, e.message)))?;
            let g = m.gpus_per_process.unwrap_or(1).clamp(1, crate::limits::GPUS_PER_PROCESS.max as u32);
            let (algo, proto) = if m.op.func().is_some() { (inf.algo, inf.proto) } else { (AlgoChoice::Auto, ProtoChoice::Auto) };
            setups.push(RunSetup { log: li, run: ri, m, comm: comm.with_gpus_per_process(g), placement: p, algo, proto });
        }
    }
    let mut rows = fit::rows_of(&setups);
    let (calibration, parameters) = fit::fit(&setups, &mut rows, logs.len() as u32);
    let nic = format!("{} x {}", cluster.nics_per_node, cluster.nic.spec().name);
    let (summary, not_constrained) = fit::words(&calibration, &rows, &nic, cluster.scale_up.name(), topo.nic.efficiency);
    let digests = logs
        .iter()
        .map(|l| {
            let mut ops: Vec<String> = Vec::new();
            let mut nodes: Vec<u32> = Vec::new();
            for m in &l.runs {
                if !ops.contains(&m.op.id().to_string()) {
                    ops.push(m.op.id().to_string());
                }
                let n = m.nodes.unwrap_or_else(|| m.ranks.div_ceil(cluster.gpus_per_node.max(1)));
                if !nodes.contains(&n) {
                    nodes.push(n);
                }
            }
            LogDigest { name: l.name.clone(), digest: l.digest.clone(), runs: l.runs.len() as u32, ops, nodes }
        })
        .collect();
    Ok(CalibrationFile {
        version: crate::fitted::CALIBRATION_VERSION,
        written_by: env!("CARGO_PKG_VERSION").to_string(),
        logs: digests,
        cluster,
        algo: inf.algo,
        proto: inf.proto,
        calibration,
        parameters,
        summary,
        not_constrained,
        features,
        rows,
    })
}

use crate::collective::{AlgoChoice, Comm, ProtoChoice};
