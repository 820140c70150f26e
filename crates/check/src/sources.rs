//! The cluster a check judges against, field by field, each with where it came from: read
//! from the log, inferred from the log's numbers, given (a flag, or a pick on check.html), or assumed;
//! and what of it the model does not cover (then the check cannot judge).

use super::facts::{Library, NetPlugin};
use super::measured::Measured;
use crate::catalog::{GpuKind, NetFamily, NicKind, ScaleUp};
use crate::topology::CpuVendor;
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
    /// Given by the user: a CLI flag, or a value picked on check.html.
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

    /// How the CLI's text and check.html say where a field came from: one table, so the page
    /// and the CLI use the same words for the same case (a flag and a pick are both "given").
    pub fn words(self) -> &'static str {
        match self {
            Source::Log => "read from the log",
            Source::Inferred => "inferred from the log's numbers",
            Source::Flag => "given",
            Source::Assumed => "assumed",
        }
    }

    /// [`Source::words`] as the CLI's text titles its lists ("Given: nic 8 x ...").
    pub fn title(self) -> String {
        let w = self.words();
        format!("{}{}", w[..1].to_ascii_uppercase(), &w[1..])
    }

    /// Every source, in the order the CLI lists them.
    pub const ALL: [Source; 4] = [Source::Log, Source::Inferred, Source::Flag, Source::Assumed];
}

/// One field of the cluster: its value and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub value: String,
    pub source: Source,
}

impl Field {
    /// The field as check.html lists it: `nic: 8 x InfiniBand NDR 400G (given)`.
    pub fn label(&self) -> String {
        format!("{}: {} ({})", self.name, self.value, self.source.words())
    }
}

/// What the user gave (CLI flags, or what was picked on check.html): these win over the log.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Given {
    pub gpu: bool,
    pub nodes: bool,
    pub gpus_per_node: bool,
    /// The scale-up fabric (`--scale-up`, the page's fabric picker).
    pub scale_up: bool,
    /// The NIC's kind or count (`--nic`, `--nics-per-node`, the page's NIC picker).
    pub nic: bool,
    /// The NIC count itself (`--nics-per-node`): otherwise at most one NIC per GPU, as the
    /// CLI's defaults have it.
    pub nics_per_node: bool,
    /// The algorithm and protocol the run forced (`--algo`, `--proto`).
    pub algo: Option<AlgoChoice>,
    pub proto: Option<ProtoChoice>,
}

/// A field the user gave that the log says otherwise about (the log says GB200, the user
/// gave H100): the given value is the one judged against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Overruled {
    pub name: &'static str,
    /// What the log says.
    pub log: String,
    /// What was given, and judged against.
    pub given: String,
}

impl Overruled {
    /// The sentence the CLI and check.html both print.
    pub fn text(&self) -> String {
        format!("{}: the log says {}; checked against {}, as given.", self.name, self.log, self.given)
    }
}

/// The cluster judged against, its fields, and what the model does not cover.
#[derive(Clone, Debug, PartialEq)]
pub struct Inferred {
    pub cluster: Cluster,
    pub fields: Vec<Field>,
    /// Given fields the log says otherwise about.
    pub overruled: Vec<Overruled>,
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

/// The NIC a GPU's usual platform has, kind and count per node (or per NVL72 tray), for a
/// log that names the GPU but not the NIC: DGX A100 and Azure ND A100 v4, 8x HDR 200G; DGX
/// H100/H200 and B200, 8x ConnectX-7 NDR 400G; GB200 NVL72, one ConnectX-7 400G per GPU;
/// B300 and GB300, one ConnectX-8 800G per GPU; AMD Instinct nodes, 8x 400G RoCE (the
/// catalog's presets and their sources, presets.rs). `None`: keep the design's.
fn platform_nic(gpu: GpuKind) -> Option<(NicKind, u32)> {
    Some(match gpu {
        GpuKind::A100 => (NicKind::IbHdr, 8),
        GpuKind::H100 | GpuKind::H200 | GpuKind::H800 | GpuKind::B200 => (NicKind::IbNdr, 8),
        GpuKind::Gb200 => (NicKind::IbNdr, 4),
        GpuKind::Gb300 => (NicKind::IbXdr, 4),
        GpuKind::B300 => (NicKind::IbXdr, 8),
        GpuKind::Mi300x | GpuKind::Mi325x | GpuKind::Mi355x => (NicKind::Roce400, 8),
        _ => return None,
    })
}

/// The EFA shape of an AWS instance of `gpu`, kind and interfaces per node (AWS EC2 User
/// Guide, network cards; presets.rs): p4d 4x 100G, p5 32x 100G, p5en 16x 200G, p6-b200 8x
/// 400G. Other GPUs: one 400G interface per GPU.
fn aws_efa(gpu: GpuKind, gpus_per_node: u32) -> (NicKind, u32) {
    match gpu {
        GpuKind::A100 => (NicKind::Efa100, 4),
        GpuKind::H100 => (NicKind::Efa100, 32),
        GpuKind::H200 => (NicKind::Efa200, 16),
        _ => (NicKind::Efa400, gpus_per_node.max(1)),
    }
}

/// The design with `gpu` in it: its own scale-up fabric (unless the user gave one), and what
/// that GPU's platform lacks switched off (NVLS and SHARP on AMD, which has neither; AMD hosts).
fn take_gpu(c: &mut Cluster, gpu: GpuKind, given: &Given) {
    let was_nvl72 = c.scale_up == ScaleUp::Nvl72;
    // A design whose GPU could run NVLS chose whether it does; one whose could not, did not.
    let nvls_chosen = !c.nvls_hardware() || c.nvls;
    c.gpu = gpu;
    if !given.scale_up {
        c.scale_up = ScaleUp::natural(gpu);
    }
    if gpu.spec().arch.is_amd() {
        (c.nvls, c.sharp, c.cpu) = (false, false, CpuVendor::Amd);
    } else {
        c.nvls = c.nvls_hardware() && nvls_chosen;
    }
    if c.scale_up == ScaleUp::Nvl72 {
        c.gpus_per_node = 4;
    } else if was_nvl72 || c.gpus_per_node > c.scale_up.max_domain() {
        c.gpus_per_node = 8.min(c.scale_up.max_domain());
    }
}

/// The cluster to check against: `design` with what the largest run says (GPU, GPUs per
/// node, nodes) unless `given` says the flags win.
pub fn infer(runs: &[Measured], design: &Cluster, given: &Given) -> Inferred {
    let mut c = design.clone();
    let big = runs.iter().max_by_key(|m| m.ranks);
    let mut fields = Vec::new();
    let mut not_modelled = Vec::new();
    let mut overruled = Vec::new();
    let field = |name, value: String, source| Field { name, value, source };

    // GPU: the rank lines' name, else (an RCCL run) an AMD Instinct GPU, else the design's.
    let read_gpu = big.and_then(|m| m.gpu);
    let name = big.and_then(|m| m.gpu_name.clone());
    let lib = runs.iter().find_map(|m| m.library);
    let mut gpu_changed = false;
    let gpu_source = if given.gpu {
        // The log's GPU (the catalog's name, else as printed) where it is not the one given.
        if let Some(n) = name.as_ref().filter(|_| read_gpu != Some(c.gpu)) {
            let log = read_gpu.map_or_else(|| n.clone(), |g| g.spec().name.to_string());
            overruled.push(Overruled { name: "gpu", log, given: c.gpu.spec().name.to_string() });
        }
        Source::Flag
    } else if let Some(g) = read_gpu {
        if g != c.gpu {
            take_gpu(&mut c, g, given);
            gpu_changed = true;
        }
        Source::Log
    } else if name.is_some() {
        Source::Log
    } else {
        if lib == Some(Library::Rccl) && !c.gpu.spec().arch.is_amd() {
            // RCCL runs on AMD GPUs: the catalog's most common one, said as assumed.
            take_gpu(&mut c, GpuKind::Mi300x, given);
            gpu_changed = true;
        }
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
        if !given.nics_per_node {
            c.nics_per_node = c.nics_per_node.min(c.gpus_per_node.max(1));
        }
        // A layout given that the log's hosts say otherwise about.
        if let Some((log_nodes, log_per)) = m.nodes.zip(m.gpus_per_node) {
            for (name, on, log, judged) in [("nodes", given.nodes, log_nodes, c.nodes), ("gpus_per_node", given.gpus_per_node, log_per, c.gpus_per_node)] {
                if on && log != judged {
                    overruled.push(Overruled { name, log: log.to_string(), given: judged.to_string() });
                }
            }
        }
        fields.push(field("nodes", c.nodes.to_string(), nodes_source));
        fields.push(field("gpus_per_node", c.gpus_per_node.to_string(), per_source));
        if let Some(h) = &m.host {
            fields.push(field("host", h.clone(), Source::Log));
        }
    }
    let scale_up_source = match (given.scale_up, gpu_source) {
        (true, _) => Source::Flag,
        (false, Source::Log) => Source::Inferred,
        _ => Source::Assumed,
    };
    fields.push(field("scale_up", c.scale_up.name().to_string(), scale_up_source));

    // Network: the plugin the log shows; the NIC a flag gives, else what the plugin says
    // (EFA), else the GPU's usual one where the log's GPU is not the design's.
    let net = runs.iter().find_map(|m| m.net);
    let efa_nics = runs.iter().find_map(|m| m.efa_nics);
    if let Some(n) = net {
        fields.push(field("network", n.name().to_string(), Source::Log));
        if n == NetPlugin::Tcpx && !given.nic {
            not_modelled.push(format!("network {}", n.name()));
        }
    }
    let mut nic_source = if given.nic { Source::Flag } else { Source::Assumed };
    if !given.nic {
        let family = c.nic.spec().family;
        match net {
            Some(NetPlugin::Ofi) => {
                let (kind, count) = aws_efa(c.gpu, c.gpus_per_node);
                c.nic = if family == NetFamily::Efa && !gpu_changed { c.nic } else { kind };
                c.nics_per_node = efa_nics.unwrap_or(if family == NetFamily::Efa && !gpu_changed { c.nics_per_node } else { count });
                nic_source = Source::Inferred;
            }
            Some(NetPlugin::Socket) if c.nic == NicKind::Eth100Tcp => nic_source = Source::Inferred,
            _ => {
                // A design for another GPU keeps its kind of network; on InfiniBand it takes
                // this GPU's generation (A100: HDR, GB300: XDR). A design without RDMA takes the
                // GPU's usual NIC when the log shows RDMA.
                let wrong_family = matches!(family, NetFamily::Efa | NetFamily::TcpSockets) && net == Some(NetPlugin::Ib);
                let same_kind = |k: NicKind| k.spec().family == family && family == NetFamily::InfiniBand;
                if let Some((kind, count)) = platform_nic(c.gpu).filter(|(k, _)| (gpu_changed && same_kind(*k)) || wrong_family) {
                    (c.nic, c.nics_per_node) = (kind, count.min(c.gpus_per_node.max(1)));
                }
            }
        }
    }
    // Shown on one node too (where it does not matter), so the design's NIC is always said.
    let nic = format!("{} x {}", c.nics_per_node, c.nic.spec().name);
    if given.nic {
        // The network the log shows is not the given NIC's kind (EFA's plugin, RDMA verbs on
        // a TCP or EFA NIC), or aws-ofi-nccl found another count of EFA interfaces.
        let family = c.nic.spec().family;
        let log = match net {
            Some(NetPlugin::Ofi) if family != NetFamily::Efa => Some(format!("the network is {}", NetPlugin::Ofi.name())),
            Some(NetPlugin::Ofi) => efa_nics.filter(|k| given.nics_per_node && *k != c.nics_per_node).map(|k| format!("{k} EFA interfaces per node")),
            Some(NetPlugin::Ib) if matches!(family, NetFamily::Efa | NetFamily::TcpSockets) => Some(format!("the network is {}", NetPlugin::Ib.name())),
            _ => None,
        };
        if let Some(log) = log {
            overruled.push(Overruled { name: "nic", log, given: nic.clone() });
        }
    }
    fields.push(field("nic", nic, nic_source));

    // Library and forced settings.
    let version = runs.iter().find_map(|m| m.library_version.clone());
    match lib {
        Some(l) => fields.push(field("library", format!("{}{}", l.name(), version.map(|v| format!(" {v}")).unwrap_or_default()), Source::Log)),
        None => fields.push(field("library", c.library_label(), Source::Assumed)),
    }
    // RCCL is modelled on the AMD GPUs it runs on (crate::rccl); not on an NVIDIA one.
    let gpu_unknown = name.is_some() && read_gpu.is_none() && !given.gpu;
    if lib == Some(Library::Rccl) && !c.gpu.spec().arch.is_amd() && !gpu_unknown {
        not_modelled.push(format!("library RCCL on {}", c.gpu.spec().name));
    }
    let log_algo = runs.iter().find_map(|m| m.algo.clone());
    let log_proto = runs.iter().find_map(|m| m.proto.clone());
    // A forced setting given that the log forced otherwise.
    for (name, gave, log) in [("algo", given.algo.map(|a| a.id()), &log_algo), ("proto", given.proto.map(|p| p.id()), &log_proto)] {
        if let (Some(g), Some(l)) = (gave, log) {
            let same = l.eq_ignore_ascii_case(g) || (name == "algo" && forced_algo(l).map(|a| a.id()) == Some(g));
            if !same {
                overruled.push(Overruled { name, log: format!("{} {l}", if name == "algo" { "NCCL_ALGO" } else { "NCCL_PROTO" }), given: g.to_string() });
            }
        }
    }
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
    Inferred { cluster: c, fields, overruled, not_modelled, algo, proto }
}
