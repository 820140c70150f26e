//! The cluster a check judges against, field by field, each with where it came from: read
//! from the log, inferred from the log's numbers, given (a flag), or assumed from the design;
//! and what of it the model does not cover (then the check cannot judge).

use super::facts::{Library, NetPlugin};
use super::measured::Measured;
use crate::catalog::{NicKind, ScaleUp};
use crate::collective::{AlgoChoice, ProtoChoice};
use crate::topology::Cluster;
use serde::Serialize;

/// Where a field's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Printed in the log (a `#  Rank` line, an NCCL_DEBUG line).
    Log,
    /// Computed from what the log printed (busbw/algbw, the highest rank's device index).
    Inferred,
    /// Given by the user (a CLI flag).
    Flag,
    /// Neither: the design's (or the default's) value.
    Assumed,
}

impl Source {
    pub fn id(self) -> &'static str {
        match self {
            Source::Log => "log",
            Source::Inferred => "inferred",
            Source::Flag => "flag",
            Source::Assumed => "assumed",
        }
    }
}

/// One field of the cluster: its value and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub value: String,
    pub source: Source,
}

/// What the user gave (CLI flags): these win over the log. The page gives nothing: its
/// design is what a log does not say.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Given {
    pub gpu: bool,
    pub nodes: bool,
    pub gpus_per_node: bool,
    pub nic: bool,
    /// The algorithm and protocol the run forced (`--algo`, `--proto`).
    pub algo: Option<AlgoChoice>,
    pub proto: Option<ProtoChoice>,
}

/// The cluster judged against, its fields, and what the model does not cover.
#[derive(Clone, Debug, PartialEq)]
pub struct Inferred {
    pub cluster: Cluster,
    pub fields: Vec<Field>,
    /// "GPU AMD Instinct MI300X", "library RCCL", ...: empty when the model covers the run.
    pub not_modelled: Vec<String>,
    pub algo: AlgoChoice,
    pub proto: ProtoChoice,
}

impl Inferred {
    pub fn source(&self, name: &str) -> Source {
        self.fields.iter().find(|f| f.name == name).map_or(Source::Assumed, |f| f.source)
    }
}

/// `NCCL_ALGO` as the log sets it, where it names one algorithm (`Ring`, `CollNetDirect`);
/// a list or an exclusion (`^NVLS`) forces none.
fn forced_algo(v: &str) -> Option<AlgoChoice> {
    let v = v.to_ascii_lowercase();
    let v = if v.starts_with("collnet") { "collnet" } else { v.as_str() };
    AlgoChoice::from_id(v).filter(|a| *a != AlgoChoice::Auto)
}

/// The cluster to check against: `design` with what the largest run says (GPU, GPUs per
/// node, nodes) unless `given` says the flags win.
pub fn infer(runs: &[Measured], design: &Cluster, given: &Given) -> Inferred {
    let mut c = design.clone();
    let big = runs.iter().max_by_key(|m| m.ranks);
    let mut fields = Vec::new();
    let mut not_modelled = Vec::new();
    let field = |name, value: String, source| Field { name, value, source };

    // GPU.
    let read_gpu = big.and_then(|m| m.gpu);
    let name = big.and_then(|m| m.gpu_name.clone());
    let gpu_source = if given.gpu {
        Source::Flag
    } else if let Some(g) = read_gpu {
        if g != c.gpu {
            c.gpu = g;
            c.scale_up = ScaleUp::natural(g);
        }
        Source::Log
    } else if name.is_some() {
        Source::Log
    } else {
        Source::Assumed
    };
    match (&name, read_gpu, given.gpu) {
        (Some(n), None, false) => {
            not_modelled.push(format!("GPU {n}"));
            fields.push(field("gpu", n.clone(), Source::Log));
        }
        _ => fields.push(field("gpu", c.gpu.spec().name.to_string(), gpu_source)),
    }

    // Ranks, nodes, GPUs per node.
    if let Some(m) = big {
        fields.push(field("ranks", m.ranks.to_string(), if m.ranks_inferred { Source::Inferred } else { Source::Log }));
        let layout = m.nodes.zip(m.gpus_per_node);
        let nodes = c.nodes.max(1);
        // A --nodes the log's hosts do not match wins: the ranks are spread over it.
        let layout = layout.filter(|(n, _)| !given.nodes || *n == nodes);
        let per_source = if given.gpus_per_node {
            Source::Flag
        } else if let Some((_, per)) = layout {
            c.gpus_per_node = per;
            Source::Log
        } else if given.nodes && m.ranks.is_multiple_of(nodes) {
            c.gpus_per_node = m.ranks / nodes;
            Source::Inferred
        } else if let Some(per) = m.device_per_node.filter(|_| !given.nodes) {
            c.gpus_per_node = per;
            Source::Inferred
        } else {
            Source::Assumed
        };
        let nodes_source = if given.nodes {
            Source::Flag
        } else if let (Some((nodes, _)), Source::Log) = (layout, per_source) {
            c.nodes = nodes;
            Source::Log
        } else {
            // Ranks over GPUs per node: whole nodes.
            c.nodes = m.ranks.div_ceil(c.gpus_per_node.max(1)).max(1);
            Source::Inferred
        };
        if !given.nic {
            c.nics_per_node = design.nics_per_node.min(c.gpus_per_node.max(1));
        }
        fields.push(field("nodes", c.nodes.to_string(), nodes_source));
        fields.push(field("gpus_per_node", c.gpus_per_node.to_string(), per_source));
        if let Some(h) = &m.host {
            fields.push(field("host", h.clone(), Source::Log));
        }
    }
    let scale_up_source = if gpu_source == Source::Log { Source::Inferred } else { Source::Assumed };
    fields.push(field("scale_up", c.scale_up.name().to_string(), scale_up_source));

    // Network: the plugin the log shows, the NIC the design (or a flag) says.
    let net = runs.iter().find_map(|m| m.net);
    if let Some(n) = net {
        fields.push(field("network", n.name().to_string(), Source::Log));
        if matches!(n, NetPlugin::Ofi | NetPlugin::Tcpx) && !given.nic {
            not_modelled.push(format!("network {}", n.name()));
        }
    }
    let nic_source = if given.nic {
        Source::Flag
    } else if net == Some(NetPlugin::Socket) && c.nic == NicKind::Eth100Tcp {
        Source::Inferred
    } else {
        Source::Assumed
    };
    // Shown on one node too (where it does not matter), so the design's NIC is always said.
    fields.push(field("nic", format!("{} x {}", c.nics_per_node, c.nic.spec().name), nic_source));

    // Library and forced settings.
    let lib = runs.iter().find_map(|m| m.library);
    let version = runs.iter().find_map(|m| m.library_version.clone());
    match lib {
        Some(l) => fields.push(field("library", format!("{}{}", l.name(), version.map(|v| format!(" {v}")).unwrap_or_default()), Source::Log)),
        None => fields.push(field("library", format!("NCCL (tuning of {})", c.nccl.id()), Source::Assumed)),
    }
    if lib == Some(Library::Rccl) {
        not_modelled.push("library RCCL".into());
    }
    let log_algo = runs.iter().find_map(|m| m.algo.clone());
    let log_proto = runs.iter().find_map(|m| m.proto.clone());
    let (algo, algo_field) = match (given.algo, &log_algo) {
        (Some(a), _) => (a, field("algo", a.id().into(), Source::Flag)),
        (None, Some(v)) => (forced_algo(v).unwrap_or_default(), field("algo", v.clone(), Source::Log)),
        (None, None) => (AlgoChoice::Auto, field("algo", "auto (NCCL's choice)".into(), Source::Assumed)),
    };
    let (proto, proto_field) = match (given.proto, &log_proto) {
        (Some(p), _) => (p, field("proto", p.id().into(), Source::Flag)),
        (None, Some(v)) => (ProtoChoice::from_id(v).unwrap_or_default(), field("proto", v.clone(), Source::Log)),
        (None, None) => (ProtoChoice::Auto, field("proto", "auto (NCCL's choice)".into(), Source::Assumed)),
    };
    fields.push(algo_field);
    fields.push(proto_field);
    // A run that forced CollNet or NVLS had them: the design follows.
    match algo {
        AlgoChoice::Collnet => c.sharp = true,
        AlgoChoice::Nvls | AlgoChoice::NvlsTree => c.nvls = true,
        _ => {}
    }
    Inferred { cluster: c, fields, not_modelled, algo, proto }
}
