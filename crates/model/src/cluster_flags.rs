//! A cluster as the `fabricscope` command line spells it: the flags that rebuild exactly this
//! cluster (every field given, so no preset or default in between can change it), for a page's
//! "the same question in the terminal" line. The CLI's tests parse them back for every preset.

use crate::topology::{Cluster, CpuVendor};
use std::fmt::Write;

/// `--gpu h100 --nodes 8 ...`: every field of `c` as the CLI's cluster flags.
pub fn cli_flags(c: &Cluster) -> String {
    let cpu = match c.cpu {
        CpuVendor::Intel => "intel",
        CpuVendor::Amd => "amd",
    };
    let mut s = format!(
        "--gpu {} --nodes {} --gpus-per-node {} --scale-up {} --nics-per-node {} --nic {} --rail-optimized {} --nvls {} --cpu {cpu} --nccl {}",
        c.gpu.id(),
        c.nodes,
        c.gpus_per_node,
        c.scale_up.id(),
        c.nics_per_node,
        c.nic.id(),
        c.rail_optimized,
        c.nvls,
        c.nccl.id()
    );
    for (flag, on) in [("sharp", c.sharp), ("rail-only", c.rail_only)] {
        if on {
            let _ = write!(s, " --{flag}");
        }
    }
    for (flag, v) in [("leaf", c.leaf_switches), ("spine", c.spine_switches), ("radix", c.switch_radix), ("power-cap-w", c.power_cap_w)] {
        if let Some(v) = v {
            let _ = write!(s, " --{flag} {v}");
        }
    }
    for (flag, v) in [("oversubscription", c.oversubscription), ("core-oversubscription", c.core_oversubscription)] {
        if let Some(v) = v {
            let _ = write!(s, " --{flag} {v}");
        }
    }
    // A cluster as measured: the fit is a file for the CLI (what check.html downloads).
    #[cfg(feature = "calibrate")]
    if c.calibration.is_some() {
        s.push_str(" --calibration cluster.json");
    }
    s
}
