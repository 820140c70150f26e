//! The cluster flags shared by every subcommand that needs a cluster (`collective`, `sweep`,
//! `tiers`, and later `train` and `search`): flatten [`ClusterArgs`] into a subcommand's args
//! and call [`ClusterArgs::topology`]. Names are parsed by the model's `from_id` functions so
//! the CLI accepts exactly what the model (and the web UI) accepts.

use crate::error::CliError;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, Args, Command};
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::error::{printable, MAX_QUOTED_CHARS};
use fabricscope_model::limits::{self, Limit};
use fabricscope_model::nccl::NcclVersion;
use fabricscope_model::units::{parse_size, Bytes};
use fabricscope_model::{
    AlgoChoice, Cluster, Collective, Comm, CpuVendor, Placement, ProtoChoice, Topology,
};
use std::ffi::OsStr;


/// The cluster, as flags. Every flag is optional; unset ones take [`Cluster::default`] (a DGX
/// H100-style cluster of 4 nodes) or, where the GPU decides, the GPU's natural value.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Cluster")]
pub struct ClusterArgs {
    /// A named cluster (reference design or cloud shape) to start from; any other cluster flag
    /// given overrides it
    #[arg(long, value_name = "PRESET", value_parser = preset_parser())]
    pub preset: Option<&'static str>,

    /// GPU model [default: h100]
    #[arg(long, value_name = "GPU", value_parser = gpu_parser())]
    pub gpu: Option<GpuKind>,

    /// GPUs per node [default: 8; 4 for gb200 and gb300 (NVL72 compute trays)]
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::GPUS_PER_NODE))]
    pub gpus_per_node: Option<u32>,

    /// Nodes (hosts; for NVL72, compute trays of 4 GPUs) [default: 4]
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::NODES))]
    pub nodes: Option<u32>,

    /// GPUs in all, instead of --nodes: whole nodes (trays) of --gpus-per-node, as the
    /// explorer's GPUs control sizes NVL72 racks (e.g. --gpu gb200 --gpus 72: one rack)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::TOTAL_GPUS), conflicts_with = "nodes")]
    pub gpus: Option<u32>,

    /// Scale-up fabric inside a node [default: the GPU's own: v100 nvlink2, a100 nvlink3,
    /// h100/h200/h800 nvlink4, h100-pcie/h100-nvl/h200-nvl nvlink-bridge, b200/b300 nvlink5,
    /// gb200/gb300 nvl72, mi300x/mi325x/mi355x xgmi]
    #[arg(long, value_name = "FABRIC", value_parser = scale_up_parser())]
    pub scale_up: Option<ScaleUp>,

    /// Scale-out NIC, one per rail (efa-*: one per EFA interface) [default: ib-ndr]
    #[arg(long, value_name = "NIC", value_parser = nic_parser())]
    pub nic: Option<NicKind>,

    /// Scale-out NICs (rails, EFA interfaces) per node, up to 32 [default: one per GPU, at most 8]
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::NICS_PER_NODE))]
    pub nics_per_node: Option<u32>,

    /// Enable InfiniBand SHARP in-network reduction (NCCL CollNet)
    #[arg(long)]
    pub sharp: bool,

    /// Allow NVLink SHARP (NVLS) where the hardware has it, like NCCL_NVLS_ENABLE [default: true]
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, value_parser = bool_parser())]
    pub nvls: Option<bool>,

    /// Leaf switches [default: sized for a buildable fat tree: one switch, two tiers up to
    /// radix^2/2 NICs, three tiers (pods under core switches) up to radix^3/4]
    #[arg(long = "leaf", visible_alias = "leaf-switches", value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::LEAF_SWITCHES))]
    pub leaf: Option<u32>,

    /// Spine switches [default: sized with the leaves]
    #[arg(long = "spine", visible_alias = "spine-switches", value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::SPINE_SWITCHES))]
    pub spine: Option<u32>,

    /// Ports per switch at the NIC's rate [default: the NIC's usual switch]
    #[arg(long = "radix", visible_alias = "switch-radix", value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::SWITCH_RADIX))]
    pub radix: Option<u32>,

    /// NIC k of every node goes to the leaves of rail k (else a node's NICs share a leaf) [default: true]
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, value_parser = bool_parser())]
    pub rail_optimized: Option<bool>,

    /// Rail-only: each rail its own switches, no spine between rails (cross-rail traffic over NVLink first)
    #[arg(long)]
    pub rail_only: bool,

    /// Down:up ratio at the leaf of an automatically sized tree, e.g. 3 for 3:1 [default: 1, non-blocking]
    #[arg(long, value_name = "RATIO", allow_negative_numbers = true)]
    pub oversubscription: Option<f64>,

    /// Down:up ratio at the spine of a three-tier tree (into the core) [default: 1]
    #[arg(long, value_name = "RATIO", allow_negative_numbers = true)]
    pub core_oversubscription: Option<f64>,

    /// Host CPU vendor (NCCL's and RCCL's network overhead depend on it) [default: intel]
    #[arg(long, value_name = "CPU", value_parser = cpu_parser())]
    pub cpu: Option<CpuVendor>,

    /// NCCL release whose tuning constants to use (AMD GPUs run RCCL's tables) [default: 2.27.5]
    #[arg(long, value_name = "VERSION", value_parser = nccl_parser())]
    pub nccl: Option<NcclVersion>,

    /// Board power limit per GPU in watts, as nvidia-smi -pl: a lower cap lowers the sustained
    /// tensor clock (cube root of the power) [default: the GPU's TDP]
    #[arg(long = "power-cap-w", value_name = "W", allow_negative_numbers = true, value_parser = count_parser(limits::POWER_CAP_W))]
    pub power_cap_w: Option<u32>,
}

impl ClusterArgs {
    /// The cluster these flags describe, unchecked: the preset (or [`Cluster::default`]) with
    /// every flag given applied on top. Choosing another GPU than the preset's also takes that
    /// GPU's own fabric and tray size unless those flags are given.
    pub fn cluster(&self) -> Cluster {
        let d = self.preset.and_then(fabricscope_model::cluster_preset).map(|p| p.cluster()).unwrap_or_default();
        let gpu = self.gpu.unwrap_or(d.gpu);
        let gpu_changed = gpu != d.gpu;
        let gpus_per_node = self.gpus_per_node.unwrap_or(if gpu.is_grace_blackwell() && gpu_changed {
            4
        } else if gpu_changed && d.gpu.is_grace_blackwell() {
            Cluster::default().gpus_per_node
        } else {
            d.gpus_per_node
        });
        let scale_up = self.scale_up.unwrap_or(if gpu_changed { ScaleUp::natural(gpu) } else { d.scale_up });
        let nics_default = if self.preset.is_some() && !gpu_changed && self.gpus_per_node.is_none() {
            d.nics_per_node
        } else {
            gpus_per_node.min(Cluster::default().nics_per_node)
        };
        Cluster {
            gpu,
            nodes: self.gpus.map_or(self.nodes.unwrap_or(d.nodes), |g| g / gpus_per_node.max(1)),
            gpus_per_node,
            scale_up,
            nics_per_node: self.nics_per_node.unwrap_or(nics_default),
            nic: self.nic.unwrap_or(d.nic),
            sharp: self.sharp || d.sharp,
            nvls: self.nvls.unwrap_or(d.nvls),
            leaf_switches: self.leaf.or(d.leaf_switches),
            spine_switches: self.spine.or(d.spine_switches),
            switch_radix: self.radix.or(d.switch_radix),
            rail_optimized: self.rail_optimized.unwrap_or(d.rail_optimized),
            oversubscription: self.oversubscription.or(d.oversubscription),
            core_oversubscription: self.core_oversubscription.or(d.core_oversubscription),
            cpu: self.cpu.unwrap_or(d.cpu),
            nccl: self.nccl.unwrap_or(d.nccl),
            power_cap_w: self.power_cap_w.or(d.power_cap_w),
            rail_only: self.rail_only || d.rail_only,
            // A calibration comes from its own flag (`--calibration`, applied by each command).
            calibration: None,
        }
    }

    /// The checked cluster; an impossible one names the flag at fault.
    pub fn topology(&self) -> Result<Topology, CliError> {
        let c = self.cluster();
        if let Some(g) = self.gpus {
            if g % c.gpus_per_node.max(1) != 0 {
                let what = if c.gpu.is_grace_blackwell() { "NVL72 GPUs come in trays" } else { "GPUs come in nodes" };
                return Err(CliError::new("--gpus", format!("{what} of {}: give a multiple of {} (or --nodes)", c.gpus_per_node, c.gpus_per_node)));
            }
        }
        fabricscope_model::catalog::power::check_cap(c.gpu.spec(), c.power_cap_w)?;
        Ok(c.topology()?)
    }
}

/// Which GPUs form the communicator. Default: every GPU of the cluster.
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = "Group")]
pub struct GroupArgs {
    /// GPUs in the communicator [default: all; with only --group-per-node, that many per node on every node]
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count_parser(limits::GROUP_RANKS))]
    pub group_ranks: Option<u32>,

    /// Of those, GPUs in each node (NVLink domain) [default: as many as fit]
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = count_parser(limits::GROUP_PER_NODE))]
    pub group_per_node: Option<u32>,

    /// GPUs one host process drives, as nccl-tests' -g: each further GPU's kernel starts one
    /// launch later [default: 1, one process per GPU as mpirun/torchrun start them]
    #[arg(long, value_name = "G", allow_negative_numbers = true, value_parser = count_parser(limits::GPUS_PER_PROCESS))]
    pub gpus_per_process: Option<u32>,

    /// Queue pairs per network connection, as NCCL_IB_QPS_PER_CONNECTION: with 2 or more an
    /// RDMA ring keeps the NICs' full goodput at any node count [default: 1, NCCL's default]
    #[arg(long, value_name = "Q", allow_negative_numbers = true, value_parser = count_parser(limits::QPS_PER_CONNECTION))]
    pub qps_per_connection: Option<u32>,
}

impl GroupArgs {
    pub fn placement(&self, topo: &Topology) -> Placement {
        match (self.group_ranks, self.group_per_node) {
            (None, None) => topo.whole(),
            (Some(ranks), None) => topo.first(ranks),
            (None, Some(per_domain)) => Placement {
                ranks: per_domain.saturating_mul(topo.domains),
                per_domain,
            },
            (Some(ranks), Some(per_domain)) => Placement { ranks, per_domain },
        }
    }

    /// Builds the communicator (runs NCCL's topology search); checks the group fits.
    pub fn comm(&self, topo: &Topology) -> Result<Comm, CliError> {
        Ok(Comm::new(topo, self.placement(topo))?
            .with_gpus_per_process(self.gpus_per_process.unwrap_or(1))
            .with_qps_per_connection(self.qps_per_connection.unwrap_or(1)))
    }
}

/// A value parser that turns text into `T` with a plain function and reports failures as
/// `--flag: message`, so they print as one line that names the flag.
#[derive(Clone)]
pub struct FlagParser<T> {
    pub(crate) parse: fn(&str) -> Result<T, String>,
    pub(crate) ids: Option<fn() -> Vec<&'static str>>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for FlagParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg
            .and_then(|a| a.get_long())
            .map(|l| format!("--{l}: "))
            .unwrap_or_default();
        let Some(text) = value.to_str() else {
            return Err(clap::Error::raw(
                ErrorKind::InvalidUtf8,
                format!("{flag}the value is not valid UTF-8\n"),
            ));
        };
        (self.parse)(text)
            .map_err(|m| clap::Error::raw(ErrorKind::ValueValidation, format!("{flag}{m}\n")))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let ids = self.ids?;
        Some(Box::new(ids().into_iter().map(PossibleValue::new)))
    }
}

/// "unknown GPU 'h900'; allowed: ...", quoting the text escaped and bounded.
pub fn unknown(what: &str, text: &str, ids: &[&str]) -> String {
    format!("unknown {what} '{}'; allowed: {}", printable(text, MAX_QUOTED_CHARS), ids.join(", "))
}

fn algo_ids() -> Vec<&'static str> {
    AlgoChoice::ALL.iter().map(|a| a.id()).collect()
}
fn proto_ids() -> Vec<&'static str> {
    ProtoChoice::ALL.iter().map(|p| p.id()).collect()
}
fn nccl_ids() -> Vec<&'static str> {
    NcclVersion::ALL.iter().map(|v| v.id()).collect()
}
fn bool_ids() -> Vec<&'static str> {
    vec!["true", "false"]
}
fn cpu_ids() -> Vec<&'static str> {
    vec!["intel", "amd"]
}

pub fn preset_parser() -> FlagParser<&'static str> {
    FlagParser {
        parse: |s| {
            fabricscope_model::cluster_preset(s)
                .map(|p| p.id)
                .ok_or_else(|| unknown("preset", s, &fabricscope_model::presets::cluster_preset_ids()))
        },
        ids: Some(fabricscope_model::presets::cluster_preset_ids),
    }
}

pub fn gpu_parser() -> FlagParser<GpuKind> {
    FlagParser {
        parse: |s| GpuKind::from_id(s).ok_or_else(|| unknown("GPU", s, &GpuKind::ids())),
        ids: Some(GpuKind::ids),
    }
}
pub fn scale_up_parser() -> FlagParser<ScaleUp> {
    FlagParser {
        parse: |s| {
            ScaleUp::from_id(s).ok_or_else(|| unknown("scale-up fabric", s, &ScaleUp::ids()))
        },
        ids: Some(ScaleUp::ids),
    }
}
pub fn nic_parser() -> FlagParser<NicKind> {
    FlagParser {
        parse: |s| NicKind::from_id(s).ok_or_else(|| unknown("NIC", s, &NicKind::ids())),
        ids: Some(NicKind::ids),
    }
}
pub fn op_parser() -> FlagParser<Collective> {
    FlagParser {
        parse: |s| {
            Collective::from_id(s).ok_or_else(|| unknown("collective", s, &Collective::ids()))
        },
        ids: Some(Collective::ids),
    }
}
pub fn algo_parser() -> FlagParser<AlgoChoice> {
    FlagParser {
        parse: |s| AlgoChoice::from_id(s).ok_or_else(|| unknown("algorithm", s, &algo_ids())),
        ids: Some(algo_ids),
    }
}
pub fn play_parser() -> FlagParser<fabricscope_teach::Play> {
    use fabricscope_teach::Play;
    FlagParser {
        parse: |s| Play::from_id(s).ok_or_else(|| unknown("algorithm to play", s, &Play::ids())),
        ids: Some(Play::ids),
    }
}
pub fn proto_parser() -> FlagParser<ProtoChoice> {
    FlagParser {
        parse: |s| ProtoChoice::from_id(s).ok_or_else(|| unknown("protocol", s, &proto_ids())),
        ids: Some(proto_ids),
    }
}
pub fn nccl_parser() -> FlagParser<NcclVersion> {
    FlagParser {
        parse: |s| NcclVersion::from_id(s).ok_or_else(|| unknown("NCCL version", s, &nccl_ids())),
        ids: Some(nccl_ids),
    }
}
pub fn cpu_parser() -> FlagParser<CpuVendor> {
    FlagParser {
        parse: |s| match s.to_ascii_lowercase().as_str() {
            "intel" => Ok(CpuVendor::Intel),
            "amd" => Ok(CpuVendor::Amd),
            _ => Err(unknown("CPU vendor", s, &cpu_ids())),
        },
        ids: Some(cpu_ids),
    }
}

/// `--ep-library`: an EP kernel library (`ep`, and the MoE step of `train` and `search`).
pub fn library_parser() -> FlagParser<fabricscope_model::ep::Library> {
    use fabricscope_model::ep::Library;
    FlagParser { parse: |s| Library::from_id(s).ok_or_else(|| unknown("EP library", s, &Library::ids())), ids: Some(Library::ids) }
}

pub fn bool_parser() -> FlagParser<bool> {
    FlagParser {
        parse: |s| match s.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("invalid value '{s}'; allowed: true, false")),
        },
        ids: Some(bool_ids),
    }
}

/// Whole numbers in the model's range for the flag ([`limits`], the same ranges scenario
/// files and links are held to), so nothing a flag says can make the tool allocate without
/// bound; the error names the range.
#[derive(Clone)]
pub struct CountParser(Limit);

pub fn count_parser(limit: Limit) -> CountParser {
    CountParser(limit)
}

impl TypedValueParser for CountParser {
    type Value = u32;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<u32, clap::Error> {
        let limit = self.0;
        let text = FlagParser { parse: |s| Ok(s.to_string()), ids: None }.parse_ref(cmd, arg, value)?;
        let checked = text
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("'{}' is not a count: use a whole number from {} to {}", printable(&text, MAX_QUOTED_CHARS), limit.min, limit.max))
            .and_then(|v| limit.check(v).map_err(|e| e.message))
            .and_then(|v| u32::try_from(v).map_err(|e| e.to_string()));
        checked.map_err(|m| {
            let flag = arg.and_then(|a| a.get_long()).map(|l| format!("--{l}: ")).unwrap_or_default();
            clap::Error::raw(ErrorKind::ValueValidation, format!("{flag}{m}\n"))
        })
    }
}

/// Sizes with power-of-two suffixes (`8`, `64K`, `8G`), in [`limits::BYTES`] (1 byte to 1T).
pub fn size_parser() -> FlagParser<Bytes> {
    FlagParser {
        parse: |s| {
            let b = parse_size(s).map_err(|e| printable(&e.to_string(), MAX_QUOTED_CHARS * 2))?;
            limits::BYTES.check(b.0).map(Bytes).map_err(|e| e.message)
        },
        ids: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use fabricscope_model::cluster_flags::cli_flags;
    use fabricscope_model::presets::CLUSTER_PRESETS;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        cluster: ClusterArgs,
    }

    /// A page's "the same in the terminal" line (`cli_flags`) rebuilds its cluster exactly:
    /// every preset, and clusters with every optional field set.
    #[test]
    fn a_clusters_flags_rebuild_it() {
        let mut clusters: Vec<Cluster> = CLUSTER_PRESETS.iter().map(|p| p.cluster()).collect();
        clusters.push(Cluster { leaf_switches: Some(8), spine_switches: Some(4), switch_radix: Some(64), sharp: true, cpu: fabricscope_model::CpuVendor::Amd, nvls: false, power_cap_w: Some(500), rail_optimized: false, ..Cluster::default() });
        clusters.push(Cluster { oversubscription: Some(2.5), core_oversubscription: Some(3.0), rail_only: true, nccl: NcclVersion::V2_26_2, ..Cluster::default() });
        for c in clusters {
            let line = cli_flags(&c);
            let args = std::iter::once("fabricscope").chain(line.split_whitespace());
            let parsed = Flags::try_parse_from(args).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(parsed.cluster.cluster(), c, "{line}");
        }
    }
}
