//! Published nccl-tests results (validation/collectives.csv, collectives-2.csv, collectives-3.csv,
//! collectives-4.csv, collectives-amd-efa.csv and collectives-nvl72.csv) against the model's expected busbw, per
//! tier.
//!
//! Each row is turned into a scenario by fixed rules that read its hardware, fabric, size and
//! notes columns (nothing here is tuned per row):
//! - the GPU is the one the row names; rows that name only a PCIe generation get the newest
//!   GPU of that generation (Gen4: A100, Gen5: H100 PCIe, Gen6: B200);
//! - "multi-node" rows whose node count the slide omits use the 32 GPUs (4 nodes x 8) its GTC25
//!   version states, with one NIC per node for the single-NIC classes;
//! - rows without a message size are large-message plateaus: evaluated at 8 GiB;
//! - an algorithm a row names (Ring, Tree, NVLS, CollNet/SHARP) is forced, as NCCL_ALGO would;
//!   size sweeps of collectives.csv name a configuration, not an algorithm (NCCL chooses); rows
//!   with no algorithm label in collectives.csv run with NVLS off (the slides show NVLS as a bar
//!   of its own);
//! - rows whose notes say one process drove all GPUs (`-g 8`) are timed that way;
//! - rows run with the NCCL release their `nccl_version` states where the model offers it
//!   (`--nccl`: 2.26.2, 2.27.5), else with 2.27.5;
//! - rows run with NCCL's default one queue pair per connection unless their notes state
//!   NCCL_IB_QPS_PER_CONNECTION; NVIDIA's slide bars run with two (see `qps_per_connection`);
//! - small-size rows that print busbw 0.00 are compared through their time (busbw is 1/time);
//! - hardware the catalog does not have (H20, RTX 2080 Ti, an NV12 A100 pair, AWS EFA, GCP
//!   TCPXO) is listed as not expressible, not approximated.
//!
//! Per tier (the widest hop a prediction crosses) and per class (tier x algorithm family x size
//! range) the median absolute error is computed; the class medians are the error bands every
//! prediction carries (src/trust_table.rs). Per tier and size range (small < 64 KiB, mid up to
//! 128 MiB, large) the same median, held to 25% at mid sizes for the tiers that cross a network.
//! The test fails when the checked-in bands or docs/collective-accuracy.md differ from what the
//! data gives, and asserts the per-tier medians. FABRICSCOPE_WRITE_DOCS=1 rewrites
//! docs/collective-accuracy.md and src/trust_table.rs.

mod common;
#[path = "common/calibration.rs"]
mod calibration;

use fabricscope_model::catalog::{GpuKind, NicKind, PcieGen, ScaleUp};
use fabricscope_model::trust::{AlgoFamily, SizeRange, TierClass};
use fabricscope_model::units::Bytes;
use fabricscope_model::topology::Placement;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, ProtoChoice};
use std::collections::BTreeMap;

struct Row {
    file: &'static str,
    hardware: String,
    fabric: String,
    collective: String,
    algorithm: String,
    nodes: Option<u32>,
    gpus: Option<u32>,
    message_bytes: Option<u64>,
    busbw: Option<f64>,
    latency_us: Option<f64>,
    notes: String,
    kind: String,
    source: String,
    nccl_version: String,
}

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for (file, text) in [
        ("collectives.csv", include_str!("../../../validation/collectives.csv")),
        ("collectives-2.csv", include_str!("../../../validation/collectives-2.csv")),
        ("collectives-3.csv", include_str!("../../../validation/collectives-3.csv")),
        ("collectives-amd-efa.csv", include_str!("../../../validation/collectives-amd-efa.csv")),
        ("collectives-nvl72.csv", include_str!("../../../validation/collectives-nvl72.csv")),
        ("collectives-nvl72-racks.csv", include_str!("../../../validation/collectives-nvl72-racks.csv")),
        ("collectives-4.csv", include_str!("../../../validation/collectives-4.csv")),
    ] {
        let table = common::read_csv(text);
        let header = &table[0];
        let col = |name: &str| header.iter().position(|h| h == name);
        let get = |r: &Vec<String>, name: &str| col(name).and_then(|i| r.get(i)).cloned().unwrap_or_default();
        for r in table[1..].iter().filter(|r| r.len() == header.len()) {
            out.push(Row {
                file,
                hardware: get(r, "hardware"),
                fabric: get(r, "fabric"),
                collective: get(r, "collective"),
                algorithm: get(r, "algorithm"),
                nodes: get(r, "nodes").parse().ok(),
                gpus: get(r, "gpus").parse().ok(),
                message_bytes: get(r, "message_bytes").parse().ok(),
                busbw: get(r, "busbw_GBps").parse().ok(),
                latency_us: get(r, "latency_us").parse().ok(),
                notes: get(r, "notes"),
                kind: get(r, "measurement_kind"),
                source: get(r, "source"),
                nccl_version: get(r, "nccl_version"),
            });
        }
    }
    out
}

/// The publication, repository or report a row comes from (leave-one-source-out holds out
/// each of these whole): a GitHub issue or pull request by its number, a repository by its
/// owner/name (every cluster of together-nccl-tests is one source), a talk or document by its
/// title before the first comma or parenthesis.
fn source_id(source: &str) -> String {
    let s = source.trim();
    if let Some(rest) = s.strip_prefix("GitHub issue ") {
        return rest.split_whitespace().next().unwrap_or(rest).to_string();
    }
    let first = s.split_whitespace().next().unwrap_or("");
    if first.contains('/') && !first.starts_with("http") {
        return first.trim_end_matches([',', ';', ':']).to_string();
    }
    if s.contains("AI-benchmarking-guide") {
        return "Azure/AI-benchmarking-guide".to_string();
    }
    s.split([',', '(']).next().unwrap_or(s).trim().to_string()
}

struct Case {
    cluster: Cluster,
    /// The measured group when it is not the whole cluster (GPUs per domain, ranks).
    group: Option<Placement>,
    op: Collective,
    algo: AlgoChoice,
    bytes: Bytes,
}

fn case_for_v1(r: &Row) -> Option<Case> {
    let text = format!("{} {}", r.hardware, r.fabric);
    let has = |s: &str| text.contains(s);
    let op = Collective::from_id(&r.collective)?;
    let gpus = r.gpus.unwrap_or(if has("multi-node") || r.nodes.is_none() { 32 } else { 8 });
    let mut c = Cluster { sharp: false, ..Cluster::default() };
    // GPU and scale-up fabric.
    let (gpu, scale_up) = if has("GB200") || has("NVL72") {
        (GpuKind::Gb200, ScaleUp::Nvl72)
    } else if has("B200") {
        (GpuKind::B200, ScaleUp::NvSwitch { gen: 5 })
    } else if has("H200") {
        (GpuKind::H200, ScaleUp::NvSwitch { gen: 4 })
    } else if has("H100") {
        (GpuKind::H100, ScaleUp::NvSwitch { gen: 4 })
    } else if has("A100") {
        (GpuKind::A100, ScaleUp::NvSwitch { gen: 3 })
    } else if has("V100") {
        (GpuKind::V100, ScaleUp::NvSwitch { gen: 2 })
    } else if has("PCIe Gen4") {
        (GpuKind::A100, ScaleUp::Pcie { gen: PcieGen::Gen4, p2p: true })
    } else if has("PCIe Gen5") {
        (GpuKind::H100Pcie, ScaleUp::Pcie { gen: PcieGen::Gen5, p2p: true })
    } else if has("PCIe Gen6") {
        (GpuKind::B200, ScaleUp::Pcie { gen: PcieGen::Gen6, p2p: true })
    } else {
        (GpuKind::H100, ScaleUp::NvSwitch { gen: 4 })
    };
    c.gpu = gpu;
    c.scale_up = scale_up;
    // Nodes and NICs.
    if scale_up == ScaleUp::Nvl72 {
        c.gpus_per_node = 4;
        c.nodes = gpus / 4;
        c.nics_per_node = 4;
        c.nic = NicKind::IbXdr;
    } else {
        c.gpus_per_node = 8;
        c.nodes = (gpus / 8).max(1);
        let (count, nic) = nic_of(&text)?;
        c.nics_per_node = count;
        c.nic = nic;
    }
    c.sharp = has("SHARP") && !has("NVLink5") && c.nodes > 1;
    // The slides draw NVLS as a bar of its own: a bar without an algorithm label is NVLS off.
    c.nvls = !r.algorithm.is_empty();
    let algo = match r.algorithm.as_str() {
        a if a.starts_with("Ring") => AlgoChoice::Ring,
        a if a.starts_with("NVLS") && c.nodes == 1 => AlgoChoice::Nvls,
        a if a.contains("SHARP") || a.starts_with("CollNet") => {
            if c.nodes > 1 {
                AlgoChoice::Auto
            } else {
                AlgoChoice::Nvls
            }
        }
        _ => AlgoChoice::Auto,
    };
    // NVLS-labelled A100 rows: A100 has no NVLS (the CSV says so); run NCCL's choice.
    let algo = if gpu == GpuKind::A100 && algo == AlgoChoice::Nvls { AlgoChoice::Auto } else { algo };
    // Size sweeps label the configuration (NVLS on), not a forced algorithm: NCCL chooses.
    let algo = if r.message_bytes.is_some() { AlgoChoice::Auto } else { algo };
    let bytes = Bytes(r.message_bytes.unwrap_or(8 << 30));
    Some(Case { cluster: c, group: None, op, algo, bytes })
}

/// NICs per node and kind from the fabric text; one NIC for the single-NIC classes.
fn nic_of(text: &str) -> Option<(u32, NicKind)> {
    let count = text
        .split(|ch: char| !ch.is_ascii_alphanumeric())
        .find_map(|w| w.strip_suffix("x200Gb").or_else(|| w.strip_suffix("x400Gb")).and_then(|n| n.parse().ok()))
        .or_else(|| {
            // "8x200Gb" / "2x400Gb" appear as separate tokens "8x200Gb"; fall back to a scan.
            let i = text.find("x200").or_else(|| text.find("x400"))?;
            text[..i].chars().rev().take_while(|c| c.is_ascii_digit()).collect::<String>().chars().rev().collect::<String>().parse().ok()
        });
    let kind = if text.contains("100GbE") {
        NicKind::Eth100Tcp
    } else if text.contains("200Gb") || text.contains("HDR") {
        NicKind::IbHdr
    } else {
        NicKind::IbNdr
    };
    Some((count.unwrap_or(if text.contains("multi") { 1 } else { 8 }), kind))
}


/// Catalog GPUs only; anything else is not expressible.
fn unknown_hardware(text: &str) -> bool {
    let words = text.split(|ch: char| !ch.is_ascii_alphanumeric());
    words.clone().any(|w| w == "H20") || ["2080", "NV12", "TCPXO"].iter().any(|s| text.contains(s))
}

/// A collectives-2.csv or collectives-3.csv row as a scenario.
fn case_v2(r: &Row) -> Option<Case> {
    let text = format!("{} {}", r.hardware, r.fabric);
    if unknown_hardware(&text) {
        return None;
    }
    let has = |s: &str| text.contains(s);
    let op = Collective::from_id(&r.collective)?;
    let gpus = r.gpus?;
    let nodes = r.nodes.unwrap_or(1).max(1);
    let gpn = gpus / nodes;
    if r.file == "collectives-nvl72-racks.csv" {
        // Whole NVL72 racks: `nodes` counts trays of 4, the racks are gpus / 72.
        return case_gb200_racks(r, op, gpus, (gpus / 72).max(1));
    }
    if has("GB200") {
        return case_gb200_racks(r, op, gpus, nodes);
    }
    let mut c = Cluster { sharp: false, nodes, gpus_per_node: gpn, ..Cluster::default() };
    let (gpu, scale_up) = if has("H100 PCIe") {
        (GpuKind::H100Pcie, ScaleUp::NvlinkBridge)
    } else if has("B300") {
        (GpuKind::B300, ScaleUp::NvSwitch { gen: 5 })
    } else if has("B200") {
        (GpuKind::B200, ScaleUp::NvSwitch { gen: 5 })
    } else if has("H200") {
        (GpuKind::H200, ScaleUp::NvSwitch { gen: 4 })
    } else if has("H800") {
        (GpuKind::H800, ScaleUp::NvSwitch { gen: 4 })
    } else if has("H100") {
        (GpuKind::H100, ScaleUp::NvSwitch { gen: 4 })
    } else if has("A100") {
        (GpuKind::A100, ScaleUp::NvSwitch { gen: 3 })
    } else {
        return None;
    };
    c.gpu = gpu;
    c.scale_up = scale_up;
    if nodes > 1 {
        // "8x ConnectX-7 ... per node", "12 NDR ... HCAs", "4x 200Gb/s", "8 HCAs", "8x400Gb/s".
        let words: Vec<&str> = text.split(|ch: char| ch.is_whitespace() || ch == ';' || ch == ',' || ch == '(').collect();
        let count = words.windows(2).find_map(|w| {
            let n = w[0].strip_suffix('x').or_else(|| w[0].split_once("x").map(|(a, _)| a)).unwrap_or(w[0]);
            let n: u32 = n.parse().ok()?;
            let next = w[1].to_ascii_lowercase();
            let nic_word = ["connectx", "ndr", "hcas", "200gb", "400gb", "cx-7", "efa"].iter().any(|k| next.starts_with(k))
                || w[0].contains("x400") || w[0].contains("x200");
            nic_word.then_some(n)
        });
        c.nics_per_node = count.unwrap_or(gpn).clamp(1, 32);
        c.nic = if has("EFA") {
            efa_of(&text)
        } else if has("RoCE") {
            NicKind::Roce400
        } else if has("200Gb") || has("HDR") {
            NicKind::IbHdr
        } else {
            NicKind::IbNdr
        };
        c.sharp = has("SHARP active") && c.nic != NicKind::Roce400;
    } else {
        c.nics_per_node = c.nics_per_node.min(gpn.max(1));
    }
    let a = r.algorithm.to_ascii_lowercase();
    c.nvls = !(a.contains("nvls disabled") || a.contains("nvls off") || a.contains("nvls_enable=0") || a.contains("ring (nvls"));
    let algo = if !c.nvls && a.starts_with("nvls") {
        AlgoChoice::Auto
    } else if a.contains("collnet") || a.contains("sharp") {
        AlgoChoice::Collnet
    } else if a.starts_with("nvlstree") {
        AlgoChoice::NvlsTree
    } else if a.starts_with("nvls") || a.contains("labelled nvls") {
        AlgoChoice::Nvls
    } else if a.starts_with("tree") {
        AlgoChoice::Tree
    } else if a.starts_with("ring") && !a.contains("nccl choice") {
        AlgoChoice::Ring
    } else {
        AlgoChoice::Auto
    };
    let algo = if a.contains("nvls enabled or disabled") || a.contains("nvls (default)") || a.contains("nvls enabled") { AlgoChoice::Auto } else { algo };
    let bytes = Bytes(r.message_bytes.unwrap_or(8 << 30));
    Some(Case { cluster: c, group: None, op, algo, bytes })
}

/// The EFA class a row names by its per-interface rate ("8x400Gb/s", "4x 100 Gb/s"); p5's 32
/// interfaces are 100G (AWS: 3,200 Gbps over 32 network cards).
fn efa_of(text: &str) -> NicKind {
    if text.contains("400Gb") || text.contains("400 Gb") {
        NicKind::Efa400
    } else if text.contains("200Gb") || text.contains("200 Gb") {
        NicKind::Efa200
    } else {
        NicKind::Efa100
    }
}

/// A collectives-amd-efa.csv row as a scenario, by these rules:
/// - MI300X rows: 8 GPUs per node on the xGMI mesh (RCCL); across nodes 8x roce-400, the 8
///   RDMA NICs the ROCm docs' command names (NCCL_IB_HCA=rdma0..rdma7) and, for the AMD AINIC
///   run whose excerpt states no NIC count, one 400G NIC per GPU as AMD's reference nodes have;
/// - AWS rows: the instance's GPUs on NVSwitch and its EFA interfaces (p4d 4x efa-100, p5 32x
///   efa-100); NCCL's choice on the devices aws-ofi-nccl shows it (p5: 8 of 4 rails each), and on
///   p5 beyond 2 nodes the plugin's region tuner for all_reduce (`nccl::ofi_tuner`);
/// - GB300 rows: trays of 4 in an NVL72 rack; rows whose network path was forced (NVLS and
///   MNNVL off) are two domains of 4 GPUs over the tray's NICs (one efa-400 where the row says
///   one EFA interface; 8x roce-400 where ConnectX-8 shows as 8 RoCE devices, each 800G NIC as
///   two 400G ports); an MNNVL row is 8 GPUs in one rack;
/// - PyTorch soak-test figures are not nccl-tests measurements and are not evaluated.
fn case_amd_efa(r: &Row) -> Option<Case> {
    let text = format!("{} {}", r.hardware, r.fabric);
    let has = |s: &str| text.contains(s);
    let op = Collective::from_id(&r.collective)?;
    let gpus = r.gpus?;
    let nodes = r.nodes.unwrap_or(1).max(1);
    let gpn = gpus / nodes;
    let bytes = Bytes(r.message_bytes.unwrap_or(8 << 30));
    if has("MI300X") {
        let c = Cluster {
            gpu: GpuKind::Mi300x,
            scale_up: ScaleUp::Xgmi,
            nodes,
            gpus_per_node: gpn,
            nics_per_node: if nodes > 1 { 8 } else { 0 },
            nic: NicKind::Roce400,
            nvls: false,
            sharp: false,
            ..Cluster::default()
        };
        return Some(Case { cluster: c, group: None, op, algo: AlgoChoice::Auto, bytes });
    }
    if has("GB300") {
        let forced_net = r.algorithm.starts_with("NET");
        let nic = if has("EFA") { NicKind::Efa400 } else { NicKind::Roce400 };
        let nics = if has("EFA") { 1 } else { 8 };
        let c = Cluster {
            gpu: GpuKind::Gb300,
            scale_up: ScaleUp::Nvl72,
            gpus_per_node: 4,
            nodes: 36,
            nics_per_node: nics,
            nic,
            nvls: !forced_net,
            sharp: false,
            ..Cluster::default()
        };
        // Two racks' worth of trays; the group is 2 domains of 4 (network) or 8 in one rack.
        let group = if forced_net { Placement { ranks: gpus, per_domain: gpn } } else { Placement { ranks: gpus, per_domain: gpus } };
        let algo = if r.algorithm.starts_with("NVLS") { AlgoChoice::Nvls } else { AlgoChoice::Auto };
        return Some(Case { cluster: c, group: Some(group), op, algo, bytes });
    }
    let (gpu, scale_up) = if has("A100") {
        (GpuKind::A100, ScaleUp::NvSwitch { gen: 3 })
    } else if has("H100") {
        (GpuKind::H100, ScaleUp::NvSwitch { gen: 4 })
    } else {
        return None;
    };
    let nics = if has("32 EFA") { 32 } else if has("4x 100") { 4 } else { 8 };
    let c = Cluster {
        gpu,
        scale_up,
        nodes,
        gpus_per_node: gpn,
        nics_per_node: if nodes > 1 { nics } else { 8 },
        nic: if nodes > 1 { efa_of(&text) } else { NicKind::IbNdr },
        sharp: false,
        ..Cluster::default()
    };
    Some(Case { cluster: c, group: None, op, algo: AlgoChoice::Auto, bytes })
}

/// A group spread over whole GB200 NVL72 racks (`nodes` = racks, `gpus / nodes` GPUs of the
/// group in each): trays of 4 GPUs with one NDR NIC per GPU, as NVIDIA's DGX GB200 reference
/// architecture builds them; NVLS as the row's notes set it.
fn case_gb200_racks(r: &Row, op: Collective, gpus: u32, racks: u32) -> Option<Case> {
    let c = Cluster {
        gpu: GpuKind::Gb200,
        scale_up: ScaleUp::Nvl72,
        gpus_per_node: 4,
        nodes: racks * 18,
        nics_per_node: 4,
        nic: NicKind::IbNdr,
        sharp: false,
        nvls: !r.notes.contains("NCCL_NVLS_ENABLE=0"),
        ..Cluster::default()
    };
    let a = r.algorithm.to_ascii_lowercase();
    // A label the source prints beside its table ("Ring (as labelled by the source)") is not
    // an NCCL_ALGO setting: NCCL chooses.
    let a = if a.contains("as labelled") { String::new() } else { a };
    let algo = if a.starts_with("tree") { AlgoChoice::Tree } else if a.starts_with("ring") { AlgoChoice::Ring } else { AlgoChoice::Auto };
    let group = Placement { ranks: gpus, per_domain: gpus / racks };
    Some(Case { cluster: c, group: Some(group), op, algo, bytes: Bytes(r.message_bytes.unwrap_or(8 << 30)) })
}

/// One process driving every GPU of a node (`-g 8`), as the row's notes say, or as the
/// source's script runs it (Azure AI-benchmarking-guide, Benchmarks/NVIDIA/NCCLBandwidth.py:
/// `all_reduce_perf -b 8 -e 8G -f 2 -g <GPUs in the VM>`).
fn gpus_per_process(r: &Row) -> u32 {
    let n = r.notes.to_ascii_lowercase();
    if n.contains("-g 8") || n.contains("single process") || r.source.contains("AI-benchmarking-guide") {
        8
    } else {
        1
    }
}

/// Queue pairs per NCCL connection the row ran with: what its notes state
/// (NCCL_IB_QPS_PER_CONNECTION=N); 2 for the 'slinky' reports (together-nccl-tests
/// flapping-airplanes, whose Software Configuration lists NCCL_IB_QPS_PER_CONNECTION=2 and
/// NCCL_IB_AR_THRESHOLD=0) and for NVIDIA's own slide bars; else NCCL's default 1.
/// NVIDIA's bars are its peak per system class; its maintainers give the same per-NIC target
/// (46-49 GB/s per NDR NIC, ~396 GB/s ring busbw on 8; NVIDIA/nccl-tests issues 290 and 319),
/// which a measured cluster reaches only with the vendor's multi-QP settings (together-nccl-tests
/// flapping-airplanes 2026-07-11: 307 GB/s without them, 384 with them, same 4 nodes).
fn qps_per_connection(r: &Row) -> u32 {
    let stated = r.notes.split("NCCL_IB_QPS_PER_CONNECTION=").nth(1).and_then(|t| t.get(..1)).and_then(|d| d.parse().ok());
    let tuned = r.kind.starts_with("vendor-published summary") || r.source.contains("flapping-airplanes");
    stated.unwrap_or(if tuned { 2 } else { 1 })
}

/// The NCCL release the row states, when the model offers its constants ("2.26.2 (README: ...)"
/// reads as 2.26.2); else the default (2.27.5).
fn nccl_of(r: &Row) -> Option<fabricscope_model::nccl::NcclVersion> {
    let id = r.nccl_version.split(|c: char| c.is_whitespace() || c == '+' || c == ',').next()?;
    fabricscope_model::nccl::NcclVersion::from_id(id)
}

struct Outcome {
    vendor_summary: bool,
    tier: TierClass,
    family: AlgoFamily,
    size: SizeRange,
    err: f64,
    /// Scale-up domains and GPUs of the measurement (what a class's scope is made of).
    nodes: u32,
    gpus: u32,
    /// The message size evaluated (plateaus at 8 GiB).
    bytes: u64,
    /// The EFA rendezvous the prediction holds (us per hop, hops) and the time the row
    /// measured, us.
    rendezvous: (f64, f64),
    measured_us: f64,
    predicted_us: f64,
}

fn evaluate_row(r: &Row) -> Result<(Case, fabricscope_model::Prediction, f64, (f64, f64)), String> {
    evaluate_row_with(r, fabricscope_model::network::NVLS_TREE_STORE_AND_FORWARD)
}

/// [`evaluate_row`] with `stores` chunk stores on NVLSTree's network path.
fn evaluate_row_with(r: &Row, stores: f64) -> Result<(Case, fabricscope_model::Prediction, f64, (f64, f64)), String> {
    // PyTorch's all_reduce_bench times from Python: small sizes measure the host, not NCCL.
    if r.kind.contains("torch.distributed") && r.message_bytes.is_some_and(|b| b < 64 << 20) {
        return Err("torch.distributed timing from Python: not an nccl-tests measurement at this size".into());
    }
    if r.kind.starts_with("soak-test") {
        return Err("PyTorch soak-test busbw: not an nccl-tests measurement".into());
    }
    let case = match r.file {
        "collectives.csv" => case_for_v1(r),
        "collectives-amd-efa.csv" => case_amd_efa(r),
        _ => case_v2(r),
    }
    .ok_or("not expressible")?;
    let mut case = case;
    if let Some(v) = nccl_of(r) {
        case.cluster.nccl = v;
    }
    let topo = case.cluster.topology().map_err(|e| format!("{e}"))?;
    let comm = Comm::new(&topo, case.group.unwrap_or_else(|| topo.whole())).map_err(|e| format!("{e}"))?.with_gpus_per_process(gpus_per_process(r))
        .with_qps_per_connection(qps_per_connection(r))
        .with_nvls_tree_stores(stores);
    let p = comm.predict(case.op, case.bytes, case.algo, ProtoChoice::Auto).map_err(|e| format!("{e}"))?;
    // Small sizes print busbw 0.00: compare times instead (busbw is bytes / time).
    let err = match (r.busbw, r.latency_us) {
        (Some(b), _) if b >= 0.1 => (p.busbw.0 - b) / b,
        (_, Some(t)) if t > 0.0 => t / p.time.0 - 1.0,
        _ => return Err("no busbw or time".into()),
    };
    let rendezvous = comm.rendezvous(&p);
    Ok((case, p, err, rendezvous))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 }
}

/// The size ranges of the per-size table: small below 64 KiB, mid from 64 KiB to 128 MiB,
/// large above (plateaus count as large: they are evaluated at 8 GiB).
const SIZE_RANGES: [(&str, u64, u64); 3] = [("small (< 64 KiB)", 0, 64 << 10), ("mid (64 KiB - 128 MiB)", 64 << 10, (128 << 20) + 1), ("large (> 128 MiB)", (128 << 20) + 1, u64::MAX)];

/// The tiers that cross a network, held to issue 35's goal for mid sizes: at most 25% median
/// absolute error from 64 KiB to 128 MiB.
const CROSS_NODE: [TierClass; 4] = [TierClass::InfiniBand, TierClass::Efa, TierClass::Roce, TierClass::RcclNodes];

/// Per tier and size range, the median absolute error and the rows behind it (`None`: no rows).
fn per_size_range(outcomes: &[Outcome]) -> BTreeMap<usize, [Option<(f64, usize)>; 3]> {
    let mut out: BTreeMap<usize, [Option<(f64, usize)>; 3]> = BTreeMap::new();
    for t in outcomes.iter().map(|o| o.tier as usize).collect::<std::collections::BTreeSet<_>>() {
        let mut cells = [None; 3];
        for (i, (_, lo, hi)) in SIZE_RANGES.iter().enumerate() {
            let mut errs: Vec<f64> = outcomes.iter().filter(|o| o.tier as usize == t && o.bytes >= *lo && o.bytes < *hi).map(|o| o.err).collect();
            if !errs.is_empty() {
                cells[i] = Some((median(&mut errs), errs.len()));
            }
        }
        out.insert(t, cells);
    }
    out
}

/// The EFA rendezvous wait the rows ask for (`network::EFA_RENDEZVOUS_WAIT`): for each EFA
/// row from 64 KiB to 128 MiB whose messages wait it, the full wait per hop that would close the
/// row's gap (the wait held plus the gap over the hops); their median and count.
fn efa_rendezvous_wait_matches_the_rows(outcomes: &[Outcome]) -> (f64, usize) {
    let wait = fabricscope_model::network::EFA_RENDEZVOUS_WAIT.0;
    let mut asked: Vec<f64> = outcomes
        .iter()
        .filter(|o| o.tier == TierClass::Efa && o.bytes >= 64 << 10 && o.bytes <= 128 << 20 && o.rendezvous.0 > 0.0 && o.rendezvous.1 > 0.0)
        .map(|o| wait + (o.measured_us - o.predicted_us) / o.rendezvous.1)
        .collect();
    (median(&mut asked), asked.len())
}

#[test]
fn median_busbw_error_per_tier_and_checked_in_bands() {
    let mut table = Vec::new();
    let mut outcomes = Vec::new();
    let mut skipped = Vec::new();
    let mut samples = Vec::new();
    for r in rows() {
        match evaluate_row(&r) {
            Ok((case, p, err, rendezvous)) => {
                // err is predicted / measured - 1: the ratio measured / predicted is its inverse.
                let keys = fabricscope_model::calibration::collective_keys(p.trust.tier, p.trust.family, p.trust.size);
                samples.push(fabricscope_model::calibration::Sample { source: source_id(&r.source), keys, ratio: 1.0 / (1.0 + err), gpus: p.ranks });
                outcomes.push(Outcome {
                    vendor_summary: r.kind.starts_with("vendor-published summary"),
                    tier: p.trust.tier,
                    family: p.trust.family,
                    size: p.trust.size,
                    err: err.abs(),
                    nodes: p.trust.nodes,
                    gpus: p.trust.gpus,
                    bytes: case.bytes.0,
                    rendezvous,
                    // busbw is bytes / time: the measured time is the predicted one scaled by
                    // predicted / measured.
                    measured_us: p.time.0 * (1.0 + err),
                    predicted_us: p.time.0,
                });
                table.push(format!(
                    "| {} | {} | {} | {} x {} {} {} | {} | {} | {} | {:.2} | {:+.1}% | {} {} |",
                    r.file,
                    r.hardware,
                    r.collective,
                    case.cluster.nodes,
                    case.cluster.gpus_per_node,
                    case.cluster.gpu.id(),
                    if case.cluster.nodes > 1 { format!("{}x {}", case.cluster.nics_per_node, case.cluster.nic.id()) } else { String::new() },
                    r.message_bytes.map(|b| fabricscope_model::units::format_size(Bytes(b))).unwrap_or_else(|| "plateau".into()),
                    r.algorithm,
                    match (r.busbw, r.latency_us) {
                        (Some(b), _) if b >= 0.1 => format!("{b:.2} GB/s"),
                        (_, Some(t)) => format!("{t:.1} µs"),
                        _ => String::new(),
                    },
                    if r.busbw.is_some_and(|b| b >= 0.1) { p.busbw.0 } else { p.time.0 },
                    err * 100.0,
                    p.algorithm,
                    p.protocol,
                ));
            }
            Err(why) => skipped.push(format!("| {} | {} | {} | {} | {} | {why} |", r.file, r.hardware, r.collective, r.algorithm, r.kind)),
        }
    }
    // Per tier: every row, and the measured rows alone (vendor slide summaries are rounded
    // "peak per system class" bars, several of them exactly the nominal line rate x 0.96).
    let mut per_tier: BTreeMap<usize, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for o in &outcomes {
        let e = per_tier.entry(o.tier as usize).or_default();
        e.0.push(o.err);
        if !o.vendor_summary {
            e.1.push(o.err);
        }
    }
    let mut tier_lines = Vec::new();
    let mut tier_medians = BTreeMap::new();
    for (t, (all, measured)) in per_tier.iter_mut() {
        let (n, nm) = (all.len(), measured.len());
        let within10 = all.iter().filter(|e| **e <= 0.10).count();
        let (m, mm) = (median(all), median(measured));
        tier_medians.insert(*t, (m, n, mm, nm));
        let measured_cell = if nm > 0 { format!("{:.1}% ({nm} rows)", mm * 100.0) } else { "no rows".into() };
        tier_lines.push(format!("| {} | {} | {:.1}% | {} | {} |", TierClass::ALL[*t].name(), n, m * 100.0, within10, measured_cell));
    }
    // Per tier and size range, and the mid-size goal for the tiers that cross a network.
    let ranges = per_size_range(&outcomes);
    let cell = |c: Option<(f64, usize)>| c.map_or("-".to_string(), |(m, n)| format!("{:.1}% ({n})", m * 100.0));
    let range_lines: Vec<String> = ranges.iter().map(|(t, c)| format!("| {} | {} | {} | {} |", TierClass::ALL[*t].name(), cell(c[0]), cell(c[1]), cell(c[2]))).collect();
    for t in CROSS_NODE {
        if let Some((m, n)) = ranges.get(&(t as usize)).and_then(|c| c[1]) {
            assert!(m <= 0.25, "{}: mid-size median {:.1}% over {n} rows", t.name(), m * 100.0);
        }
    }
    let (asked, asked_rows) = efa_rendezvous_wait_matches_the_rows(&outcomes);
    let wait = fabricscope_model::network::EFA_RENDEZVOUS_WAIT.0;
    assert!(asked_rows >= 5 && (asked / wait - 1.0).abs() <= 0.2, "EFA rows ask for {asked:.1} us per hop ({asked_rows} rows) against {wait}");
    // Per class: the bands.
    let mut bands = [[[(0.0f64, 0u32); 3]; 5]; 10];
    // Per class also its scope: the node and GPU counts measured, and the worst error.
    let mut scope = [[[(0u32, 0u32, 0u32, 0u32, 0.0f64); 3]; 5]; 10];
    let mut per_class: BTreeMap<(usize, usize, usize), Vec<f64>> = BTreeMap::new();
    for o in &outcomes {
        let (t, f, z) = (o.tier as usize, o.family as usize, o.size as usize);
        per_class.entry((t, f, z)).or_default().push(o.err);
        let sc = &mut scope[t][f][z];
        let first = sc.1 == 0;
        *sc = (
            if first { o.nodes } else { sc.0.min(o.nodes) },
            sc.1.max(o.nodes),
            if first { o.gpus } else { sc.2.min(o.gpus) },
            sc.3.max(o.gpus),
            sc.4.max((o.err * 1000.0).round() / 10.0),
        );
    }
    let mut class_lines = Vec::new();
    for ((t, f, z), errs) in per_class.iter_mut() {
        let m = (median(errs) * 1000.0).round() / 10.0;
        bands[*t][*f][*z] = (m, errs.len() as u32);
        class_lines.push(format!(
            "| {} | {} | {} | {} | {:.1}% |",
            TierClass::ALL[*t].name(),
            AlgoFamily::ALL[*f].name(),
            SizeRange::ALL[*z].name(),
            errs.len(),
            m
        ));
    }
    let mut all: Vec<f64> = outcomes.iter().map(|o| o.err).collect();
    let overall = median(&mut all);
    let doc = format!(
        "# Collective accuracy\n\nGenerated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test collectives_accuracy`.\n\
         Measured busbw (nccl-tests conventions, GB/s per direction) from `validation/collectives.csv`,\n\
         `validation/collectives-2.csv`, `validation/collectives-3.csv`, `validation/collectives-4.csv` and\n\
         `validation/collectives-amd-efa.csv` against the model's\n\
         **expected** busbw: NCCL's choice of algorithm and protocol (NCCL {} tuning model, unchanged; RCCL's tables on AMD\n\
         Instinct, `crates/model/src/rccl/`) timed by the tiers it crosses (`crates/model/src/network.rs`, `rccl/timing.rs`).\n\
         Rows without a size are large-message plateaus, evaluated at 8 GiB; small sizes whose busbw prints 0.00 are\n\
         compared through their time. Rows are mapped to scenarios by fixed rules (see the test's header).\n\n\
         **{} rows evaluated, median absolute error {:.1}%.**\n\n\
         ## Per tier\n\nThe last column leaves out the vendor slide summaries (GTC24/GTC25 bars, `vendor-published summary` in the\n\
         CSV): rounded peak figures per system class. Their rings run at 0.96 x the NICs' line rate where the DGX Cloud B200\n\
         cluster's run at 0.82-0.86: the same B200 hardware measured by the same operator ('slinky') gives 307 GB/s at 4 nodes\n\
         with NCCL's default one queue pair per connection and 384 with NCCL_IB_QPS_PER_CONNECTION=2 and\n\
         NCCL_IB_AR_THRESHOLD=0, flat to 64 nodes. Rows run with the QPs their source states; NVIDIA's bars with two.\n\n\
         | tier | rows | median abs error | within 10% | measured rows only |\n|---|---|---|---|---|\n{}\n\n\
         ## Per size range\n\nMedian absolute error (rows) per tier and message size; plateaus count as large. The tiers that\n\
         cross a network (InfiniBand, RoCE, EFA, RCCL across nodes) are held to 25% at mid sizes. On EFA, LL128 and Simple\n\
         messages above aws-ofi-nccl's eager size wait a rendezvous on each network hop (`network::EFA_RENDEZVOUS_WAIT`,\n\
         {wait:.0} µs, one EFA round trip): the {asked_rows} mid-size EFA rows that wait it ask for a median {asked:.1} µs per hop.\n\
         InfiniBand's mid sizes are H100 sweeps from 2 to 8 nodes (three clusters of NVIDIA/nccl-tests issue 309) and an\n\
         A100 run on 3 nodes (issue 119), collectives-4.csv. Between two H100 nodes NVLSTree measured 20-46% below the\n\
         model from 8 to 128 MiB on both 2-node clusters while its pipeline fill counted only the chunk's hops: the chunk\n\
         is also stored whole where it arrives (read out of the connection's buffer once it has all arrived;\n\
         `network::NVLS_TREE_STORE_AND_FORWARD`, chosen after seeing these rows: in sample), and each head's NIC carries\n\
         one stream for each of NCCL's NVLS channels (16 on Hopper; the fill had run on the head count, 8): with both\n\
         those rows are within 13%, the same sizes at 4 and 8 nodes within 19%. A100 instances on\n\
         EFA (p4d, p4de) run Simple only: aws-ofi-nccl sets NCCL_PROTO=simple where the EFA device cannot keep LL's and\n\
         LL128's flags in order (`NicKind::forces_simple_protocol`). There a Simple Tree at mid sizes is its pipeline\n\
         fill: each hop forwards a chunk (one 512 KiB step, or a channel's share) only once it has all of it, down the\n\
         domain's chain of GPUs, up and down the tree over domains and back (`NetPath::tree_simple_fill_us`, nothing\n\
         fitted). AWS's DLAMI sample of two p4d.24xlarge went from 1.2-3.0x slower than the model (LL128) at 64 KiB-128 MiB\n\
         to within 29%; its plateau measures 14% below the model. RCCL's Simple Tree fills the same way (its chunk shrunk\n\
         with the tree's depth): two MI300X nodes at 1 and 16 MiB went from 14% and 24% to 1% and 13%.\n\n\
         CoreWeave's twenty GB200 racks (NCCL 2.26.2) ran with NVLS off: coreweave/nccl-tests pull request 48 posted them\n\
         as run \"with this example\", the Slurm script that since commit a736384 (\"per NV ask, we need to disable\n\
         NVLS temporarily\") sets NCCL_NVLS_ENABLE=0, and since that pull request NCCL_NET_GDR_C2C=1 (the one- and two-rack runs, pull request 43,\n\
         had NVLS on). Judged so, NCCL's choice is Tree and Ring, and the model is still +47% to +210% there. The rows fit\n\
         about 4.6-5.2 ms plus bytes at 215 GB/s (512 MiB to 16 GiB). 2.26.2's Ring and Tree graphs use 15 NICs per rack (the\n\
         search stops at 15 x 48 GB/s = the GPUs' 720 GB/s of NVLink; 2.27.3's 47.9 GB/s first speed makes it 16, its release\n\
         note's \"16 NICs between MNNVL domains\"), and with NVLS off the communicator runs 30 channels, two on each NIC:\n\
         src/graph/connect.cc duplicates the 15 (line 452) and pads to the NVLS channel count only (lines 493-494), which\n\
         is 0 when NCCL_NVLS_ENABLE=0 (src/transport/nvls.cc:152-157, at tag v2.26.2-1). So no NIC is busier than another (a padding to 32,\n\
         two NICs carrying three channels, happens only with NVLS on), and the model's even Tree, 330 GB/s algbw at\n\
         16 GiB (90%: 107-397, its class's interval held out by source), is 1.5x the rows' slope: not explained yet. The\n\
         intercept is about NCCL's own latency term for a 1440-rank ring (about 5.5 ms: NCCL's table, which the model\n\
         reproduces, not a prediction with an interval): the model's Ring LL128, forced, is within 2% at 512 MiB (7.19 ms,\n\
         90%: 3.56-10.60; NCCL's tuning as modelled picks Tree there) and 24% and 47% fast at 2 and 16 GiB. Which algorithm ran\n\
         is not in the output (no NCCL_DEBUG lines); GPUDirect RDMA over C2C (NCCL_NET_GDR_C2C=1, off by default in 2.26.2)\n\
         is not modelled either (issue 35).\n\n\
         | tier | {} | {} | {} |\n|---|---|---|---|\n{}\n\n\
         ## Per class (the error bands predictions carry)\n\n| tier | algorithm family | size | rows | median abs error |\n|---|---|---|---|---|\n{}\n\n\
         ## Rows\n\n| file | hardware | op | cluster | size | algorithm (source) | measured | model | error | model picks |\n|---|---|---|---|---|---|---|---|---|---|\n{}\n\n\
         ## Not evaluated\n\n| file | hardware | op | algorithm | kind | why |\n|---|---|---|---|---|---|\n{}\n",
        fabricscope_model::nccl::NcclVersion::default().id(),
        outcomes.len(),
        overall * 100.0,
        tier_lines.join("\n"),
        SIZE_RANGES[0].0,
        SIZE_RANGES[1].0,
        SIZE_RANGES[2].0,
        range_lines.join("\n"),
        class_lines.join("\n"),
        table.join("\n"),
        skipped.join("\n"),
    );
    println!("{doc}");
    let mut rows_rs = String::new();
    for t in bands.iter() {
        rows_rs.push_str("    [");
        let fams: Vec<String> = t
            .iter()
            .map(|f| format!("[{}]", f.iter().map(|(m, n)| format!("({m:?}, {n})")).collect::<Vec<_>>().join(", ")))
            .collect();
        rows_rs.push_str(&fams.join(", "));
        rows_rs.push_str("],\n");
    }
    let mut scope_rs = String::new();
    for t in scope.iter() {
        scope_rs.push_str("    [");
        let fams: Vec<String> = t
            .iter()
            .map(|f| format!("[{}]", f.iter().map(|(a, b, c, d, w)| format!("({a}, {b}, {c}, {d}, {w:?})")).collect::<Vec<_>>().join(", ")))
            .collect();
        scope_rs.push_str(&fams.join(", "));
        scope_rs.push_str("],\n");
    }
    let table_rs = format!(
        "//! Generated by `FABRICSCOPE_WRITE_DOCS=1 cargo test -p fabricscope-model --test collectives_accuracy`:\n\
         //! per class (tier x algorithm family x size range, in the order of trust.rs), the median\n\
         //! absolute busbw error in percent and the number of published measurements behind it.\n\n\
         pub const BANDS: [[[(f64, u32); 3]; 5]; 10] = [\n{rows_rs}];\n\n\
         /// Per class, where it was measured: fewest and most scale-up domains (nodes), fewest and\n\
         /// most GPUs, and the largest absolute busbw error in percent.\n\
         pub const SCOPE: [[[(u32, u32, u32, u32, f64); 3]; 5]; 10] = [\n{scope_rs}];\n"
    );
    let table_path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/trust_table.rs");
    if std::env::var_os("FABRICSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/collective-accuracy.md"), &doc).unwrap();
        std::fs::write(table_path, &table_rs).unwrap();
    }
    let checked_in = std::fs::read_to_string(table_path).unwrap();
    assert_eq!(checked_in, table_rs, "src/trust_table.rs is stale: rerun with FABRICSCOPE_WRITE_DOCS=1");
    let doc_in = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/collective-accuracy.md")).unwrap();
    assert!(doc_in == doc, "docs/collective-accuracy.md is stale: rerun with FABRICSCOPE_WRITE_DOCS=1");
    assert!(outcomes.len() >= 100, "only {} rows expressible", outcomes.len());
    // The 90% intervals, held out by source (docs/calibration.md, src/calibration/collectives.csv).
    let cal = calibration::check("collectives", "Collectives", &samples);
    let all = cal.iter().find(|c| c.key == "all").expect("the family's row");
    assert!(all.coverage >= calibration::FAMILY_COVERAGE_FLOOR, "collectives: held-out coverage {:.1}% of {} rows", 100.0 * all.coverage, all.rows);
    // The goal: at most 5% median absolute error in every tier, vendor summaries in or out.
    // Across NVL72 racks the 4 rows (NVIDIA/nccl issue 1801) are also what the GB200 transport
    // constants were fitted on (network.rs): there the median checks the fit, not a prediction.
    for (t, (m, n, mm, nm)) in &tier_medians {
        let name = TierClass::ALL[*t].name();
        // The classes added for issue 23 (xGMI, EFA) are held to its goal: 15% per tier.
        // One NVL72 rack (issue 22's goal for NVL72 is 15%): the 24-size sweep of one GB200 tray
        // (Azure ND GB200 v6, collectives-nvl72.csv) has its plateau within 2% since the
        // Blackwell ring correction (network.rs), but its ramp (LL and LL128 from 16 KiB to
        // 32 MiB, Simple from 128 to 512 MiB) is 7-16% optimistic: held to 10% until the ramp of
        // a single-process 4-GPU run is modelled.
        let goal = match TierClass::ALL[*t] {
            TierClass::XgmiNode | TierClass::Efa | TierClass::RcclNodes => 0.15,
            TierClass::Nvl72Rack => 0.10,
            // Several racks: CoreWeave's GB200 runs (collectives-nvl72-racks.csv, NCCL 2.26.2)
            // hold one and two racks within 20% (tests/nvl72_coreweave.rs); at twenty racks, run
            // with NVLS off, the model's Tree and Ring are +47% to +210% (issue 35, open): the
            // tier is held where it is.
            TierClass::Nvl72Racks => 0.30,
            _ => 0.05,
        };
        // The 5% goal was set for plateaus. Where a network tier also has mid-size sweeps
        // (InfiniBand since collectives-4.csv), those rows answer to the mid-size goal above
        // (25%, issue 35) and this one to the tier's large messages.
        let sizes = ranges.get(t);
        if let (true, Some((ml, nl))) = (goal <= 0.05 && CROSS_NODE.contains(&TierClass::ALL[*t]) && sizes.is_some_and(|c| c[1].is_some()), sizes.and_then(|c| c[2])) {
            assert!(ml <= goal, "{name}: large-message median {:.1}% over {nl} rows", ml * 100.0);
            continue;
        }
        assert!(*nm == 0 || *mm <= goal, "{name}: median {:.1}% over {nm} measured rows", mm * 100.0);
        assert!(*m <= goal, "{name}: median {:.1}% over {n} rows", m * 100.0);
    }
}

/// A100 instances on EFA run NCCL's Simple protocol only (aws-ofi-nccl forces it there), and a
/// Simple Tree's mid sizes are its pipeline fill: AWS's DLAMI sample of two p4d.24xlarge
/// (collectives-4.csv, 64 KiB to 1 GiB) measured 1.2-3.0x slower than the model's LL128 Tree at
/// 64 KiB-128 MiB (1.8-3.0x at 1-16 MiB, the fill's regime). Each row is now timed as Simple and
/// within 30%: the 1-16 MiB rows 15-29% (their plateau alone measures 14% below the model).
/// `network::NVLS_TREE_STORE_AND_FORWARD` is the count of 0-3 stores whose fill gives the
/// mid-size (64 KiB-128 MiB) InfiniBand rows NCCL runs as NVLSTree the lowest median absolute
/// error (in sample: these rows are what the count was chosen on).
#[test]
fn nvls_tree_store_count_is_fitted() {
    let mid = |r: &Row| r.message_bytes.is_some_and(|b| (64 << 10..=128 << 20).contains(&b));
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| mid(r) && evaluate_row(r).is_ok_and(|(_, p, _, _)| p.algorithm == "NVLSTree" && p.trust.tier == TierClass::InfiniBand))
        .collect();
    assert_eq!(rows.len(), 35, "the H100 NVLSTree mid-size rows of collectives-4.csv");
    let median_at = |stores: f64| {
        let mut e: Vec<f64> = rows.iter().map(|r| evaluate_row_with(r, stores).expect("evaluated above").2.abs()).collect();
        median(&mut e)
    };
    let best = [0.0, 1.0, 2.0, 3.0].into_iter().min_by(|a, b| median_at(*a).total_cmp(&median_at(*b))).expect("four counts");
    assert_eq!(best, fabricscope_model::network::NVLS_TREE_STORE_AND_FORWARD, "medians: {:?}", [0.0, 1.0, 2.0, 3.0].map(median_at));
}

#[test]
fn a100_on_efa_runs_simple_and_its_mid_sizes_are_the_tree_fill() {
    let p4d: Vec<Row> = rows().into_iter().filter(|r| r.hardware.contains("p4d.24xlarge") && r.file == "collectives-4.csv").collect();
    assert_eq!(p4d.len(), 15, "the DLAMI sweep's rows");
    let mut mid = 0;
    for r in &p4d {
        let (case, p, err, _) = evaluate_row(r).unwrap_or_else(|e| panic!("{}: {e}", r.hardware));
        assert_eq!(p.protocol, "Simple", "{} B: {}", case.bytes.0, p.protocol);
        assert!(err.abs() <= 0.30, "{} B: {:+.1}%", case.bytes.0, err * 100.0);
        mid += usize::from((1 << 20..=16 << 20).contains(&case.bytes.0));
    }
    assert_eq!(mid, 5, "the 1-16 MiB rows");
    // Forcing LL128 names the reason and what is allowed.
    let mut c = fabricscope_model::presets::cluster_preset("aws-p4d").expect("the aws-p4d preset").cluster();
    c.nodes = 2;
    let topo = c.topology().expect("two p4d nodes");
    let comm = Comm::new(&topo, topo.whole()).expect("a communicator");
    let err = comm.predict(Collective::AllReduce, Bytes(4 << 20), AlgoChoice::Auto, ProtoChoice::Ll128).expect_err("LL128 is off on p4d");
    assert!(err.to_string().contains("NCCL_PROTO=simple") && err.to_string().contains("allowed: auto, simple"), "{err}");
}
