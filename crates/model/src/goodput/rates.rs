//! Failure rates per component, per unit-hour, from published field data
//! (validation/failures.csv). Each rate is a count over an exposure, computed here from the
//! source's own numbers, never typed in as a result; where two sites measured the same
//! component, the rate is their geometric mean (each site one vote: the sites disagree by up to
//! 2.5x per component, 1.2x in total). `tests/goodput_data.rs` recomputes every count from the
//! CSV and fails if a number here differs from the file.

use serde::Serialize;

/// One site's exposure: what was counted, for how long.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    pub id: &'static str,
    pub gpus: f64,
    pub nodes: f64,
    /// NICs (and NIC-to-leaf links) in the count; 8 per server unless the source says.
    pub nics: f64,
    pub hours: f64,
}

impl Site {
    pub fn gpu_hours(&self) -> f64 {
        self.gpus * self.hours
    }
    pub fn node_hours(&self) -> f64 {
        self.nodes * self.hours
    }
    pub fn nic_hours(&self) -> f64 {
        self.nics * self.hours
    }
}

/// Llama 3 405B pre-training, 54-day snapshot on up to 16,384 H100 (2,048 Grand Teton servers,
/// one 400G RoCE NIC per GPU): Dubey et al., arXiv:2407.21783, sec. 3.3.4 and Table 5. Counts
/// are the table's interruption counts (its printed 30.1% for 148 faulty GPUs is a typo; the
/// counts are used).
pub const LLAMA3: Site = Site { id: "llama3", gpus: 16_384.0, nodes: 2_048.0, nics: 16_384.0, hours: 54.0 * 24.0 };

/// StepFun's InfiniteHBD fault trace: 400 GPU servers for 348 days from 30 Mar 2024
/// (fault_statistics.json; 8 GPUs and, assumed, 8 backend NICs per server).
pub const STEPFUN: Site = Site { id: "stepfun", gpus: 3_200.0, nodes: 400.0, nics: 3_200.0, hours: 348.0 * 24.0 };

/// Hours in a month (365.25 x 24 / 12), for the per-month rates of Alibaba HPN.
pub const HOURS_PER_MONTH: f64 = 730.5;

/// A component class of the failure model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    /// A GPU other than its HBM: the die, SRAM, system processor, thermal, SDC.
    Gpu,
    Hbm,
    /// A server or compute tray less its GPUs, NICs and power: CPU, memory, SSD, board, fans,
    /// unplanned maintenance.
    Host,
    /// A server's power supply.
    Power,
    Nic,
    /// The link from a NIC to its leaf: two transceivers (or a copper cable) and the fibre.
    Optics,
    /// A link between switch tiers (leaf-spine, spine-core).
    FabricLink,
    LeafSwitch,
    SpineSwitch,
    CoreSwitch,
    /// An NVLink switch tray of an NVL72 rack.
    NvlinkTray,
    /// Software faults (framework, library, driver bugs), per GPU of the job.
    Software,
    /// Interruptions whose cause was not found (e.g. collective watchdog timeouts).
    Unknown,
}

impl Component {
    pub const ALL: [Component; 13] = [
        Component::Gpu,
        Component::Hbm,
        Component::Host,
        Component::Power,
        Component::Nic,
        Component::Optics,
        Component::FabricLink,
        Component::LeafSwitch,
        Component::SpineSwitch,
        Component::CoreSwitch,
        Component::NvlinkTray,
        Component::Software,
        Component::Unknown,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Component::Gpu => "gpu",
            Component::Hbm => "hbm",
            Component::Host => "host",
            Component::Power => "power",
            Component::Nic => "nic",
            Component::Optics => "optics",
            Component::FabricLink => "fabric_link",
            Component::LeafSwitch => "leaf_switch",
            Component::SpineSwitch => "spine_switch",
            Component::CoreSwitch => "core_switch",
            Component::NvlinkTray => "nvlink_tray",
            Component::Software => "software",
            Component::Unknown => "unknown",
        }
    }

    /// Name in sentences.
    pub fn label(self) -> &'static str {
        match self {
            Component::Gpu => "GPUs",
            Component::Hbm => "HBM",
            Component::Host => "hosts",
            Component::Power => "power supplies",
            Component::Nic => "NICs",
            Component::Optics => "NIC-leaf optics and cables",
            Component::FabricLink => "switch-to-switch links",
            Component::LeafSwitch => "leaf switches",
            Component::SpineSwitch => "spine switches",
            Component::CoreSwitch => "core switches",
            Component::NvlinkTray => "NVLink switch trays",
            Component::Software => "software",
            Component::Unknown => "unknown causes",
        }
    }

    /// Failures per unit-hour (a unit is what [`super::inventory::Inventory::count`] counts).
    pub fn rate_per_hour(self) -> f64 {
        match self {
            Component::Gpu => GPU.rate,
            Component::Hbm => HBM.rate,
            Component::Host => HOST.rate,
            Component::Power => POWER.rate,
            Component::Nic => NIC.rate,
            Component::Optics | Component::FabricLink => OPTICS.rate,
            Component::LeafSwitch | Component::SpineSwitch | Component::CoreSwitch | Component::NvlinkTray => SWITCH.rate,
            Component::Software => SOFTWARE.rate,
            Component::Unknown => UNKNOWN.rate,
        }
    }

    /// Where the rate comes from, in words (empty in builds without the `sources` feature: the
    /// web pages; `fabricscope goodput --json` names every source).
    pub fn source(self) -> &'static str {
        if !cfg!(feature = "sources") {
            return "";
        }
        match self {
            Component::Gpu => GPU.source,
            Component::Hbm => HBM.source,
            Component::Host => HOST.source,
            Component::Power => POWER.source,
            Component::Nic => NIC.source,
            Component::Optics => OPTICS.source,
            Component::FabricLink => "NIC-leaf link rate (no per-tier field data): Alibaba HPN and StepFun",
            Component::LeafSwitch => SWITCH.source,
            Component::SpineSwitch | Component::CoreSwitch => "Alibaba HPN's ToR rate (no spine or core field data)",
            Component::NvlinkTray => "Alibaba HPN's ToR rate (no published NVLink switch tray field data)",
            Component::Software => SOFTWARE.source,
            Component::Unknown => UNKNOWN.source,
        }
    }
}

/// A rate and its provenance.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    /// Failures per unit-hour.
    pub rate: f64,
    pub source: &'static str,
}

const fn geomean(a: f64, b: f64) -> f64 {
    // const fn sqrt is not stable: Newton's iterations on a*b (positive, well scaled).
    let x = a * b;
    let mut g = if a > b { a } else { b };
    let mut i = 0;
    while i < 60 {
        g = 0.5 * (g + x / g);
        i += 1;
    }
    g
}

/// GPU other than HBM, per GPU-hour. Llama 3: faulty GPU 148 + SRAM 19 + GPU system processor
/// 17 + silent data corruption 6 + thermal interface and sensor 6 = 196 interruptions; StepFun:
/// GPU class 158 less its 60 HBM faults = 98.
pub const GPU: Rate = Rate {
    rate: geomean(196.0 / (LLAMA3.gpus * LLAMA3.hours), 98.0 / (STEPFUN.gpus * STEPFUN.hours)),
    source: "Llama 3 Table 5 (196 of 419) and StepFun's trace (98), geometric mean per GPU-hour",
};

/// HBM, per GPU-hour: Llama 3 72 (GPU HBM3 memory); StepFun 60.
pub const HBM: Rate = Rate {
    rate: geomean(72.0 / (LLAMA3.gpus * LLAMA3.hours), 60.0 / (STEPFUN.gpus * STEPFUN.hours)),
    source: "Llama 3 Table 5 (72) and StepFun's trace (60), per GPU-hour",
};

/// Host less power, per server-hour. Llama 3: unplanned host maintenance 32, SSD 3, chassis 2,
/// IO expansion board 2, CPU 2, system memory 2 = 43; StepFun: fan 33, CPU 3, motherboard 4 = 40.
pub const HOST: Rate = Rate {
    rate: geomean(43.0 / (LLAMA3.nodes * LLAMA3.hours), 40.0 / (STEPFUN.nodes * STEPFUN.hours)),
    source: "Llama 3 Table 5 (43) and StepFun's trace (40), per server-hour",
};

/// Power supply, per server-hour: Llama 3 3; StepFun 26.
pub const POWER: Rate = Rate {
    rate: geomean(3.0 / (LLAMA3.nodes * LLAMA3.hours), 26.0 / (STEPFUN.nodes * STEPFUN.hours)),
    source: "Llama 3 Table 5 (3) and StepFun's trace (26), per server-hour",
};

/// NIC, per NIC-hour: Llama 3 7; StepFun 30.
pub const NIC: Rate = Rate {
    rate: geomean(7.0 / (LLAMA3.nics * LLAMA3.hours), 30.0 / (STEPFUN.nics * STEPFUN.hours)),
    source: "Llama 3 Table 5 (7) and StepFun's trace (30), per NIC-hour",
};

/// NIC-to-leaf link, per link-hour: Alibaba HPN 0.057% of NIC-ToR links a month; StepFun 40
/// backend cable link-down faults.
pub const OPTICS: Rate = Rate {
    rate: geomean(0.057 / 100.0 / HOURS_PER_MONTH, 40.0 / (STEPFUN.nics * STEPFUN.hours)),
    source: "Alibaba HPN (0.057% of NIC-ToR links a month) and StepFun's trace (40 link-down), per link-hour",
};

/// Switch, per switch-hour: Alibaba HPN 0.051% of ToR switches a month (the only per-switch
/// field figure; used for every switch and NVLink switch tray).
pub const SWITCH: Rate = Rate { rate: 0.051 / 100.0 / HOURS_PER_MONTH, source: "Alibaba HPN (0.051% of ToR switches a month), per switch-hour" };

/// Software, per GPU-hour of the job: Llama 3 software bug 54 + dependency 2 = 56; StepFun 24
/// (4.11% of 584).
pub const SOFTWARE: Rate = Rate {
    rate: geomean(56.0 / (LLAMA3.gpus * LLAMA3.hours), 24.0 / (STEPFUN.gpus * STEPFUN.hours)),
    source: "Llama 3 Table 5 (56) and StepFun's trace (24), per GPU-hour",
};

/// Unknown cause, per GPU-hour: Llama 3 NCCL watchdog timeouts 7; StepFun 'unknown' 144 (24.66%
/// of 584).
pub const UNKNOWN: Rate = Rate {
    rate: geomean(7.0 / (LLAMA3.gpus * LLAMA3.hours), 144.0 / (STEPFUN.gpus * STEPFUN.hours)),
    source: "Llama 3 Table 5 (7) and StepFun's trace (144), per GPU-hour",
};

/// Days a failed node is out before it is back (the wait when no spare is free): StepFun's
/// median over its 584 faults, 0.85 days.
pub const REPAIR_HOURS: f64 = 0.85 * 24.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_is_the_square_root_of_the_product() {
        assert!((geomean(2.0, 8.0) - 4.0).abs() < 1e-12);
        assert!((geomean(9.231e-6, 3.667e-6) - (9.231e-6f64 * 3.667e-6).sqrt()).abs() < 1e-18);
    }

    #[test]
    fn llama3_counts_give_its_published_interruption_rate() {
        // Every Llama 3 count this file uses plus network switch/cable 35 = the 419 unexpected
        // interruptions of the snapshot (3.09 h apart).
        let used = 196.0 + 72.0 + 43.0 + 3.0 + 7.0 + 56.0 + 7.0 + 35.0;
        assert_eq!(used, 419.0);
        assert!((LLAMA3.hours / 419.0 - 3.09).abs() < 0.01);
    }
}
