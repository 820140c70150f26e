//! NCCL's tuning constants, one set per release: they change between versions.
//!
//! Every table is indexed `[algorithm][protocol]` in NCCL's order (Tree, Ring, CollNetDirect,
//! CollNetChain, NVLS, NVLSTree, PAT x LL, LL128, Simple) and, for the caps, by architecture
//! (Volta, Ampere, Hopper, Blackwell) and node-count class (1 node, 2 nodes, more). Latencies
//! are microseconds; bandwidths GB/s per direction, per channel where the name says so.

use serde::{Deserialize, Serialize};

/// Which NCCL release's constants (and formula variants) to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NcclVersion {
    /// NCCL 2.26.2 (tag v2.26.2-1), the release CoreWeave's GB200 NVL72 one-, two- and
    /// twenty-rack runs were measured with (validation/collectives-nvl72-racks.csv). Its
    /// tuning tables (src/graph/tuning.cc) equal 2.27.5's; what the model can express of the
    /// difference is the Blackwell search speeds (src/graph/search.cc:923-924). Differences it
    /// does not express, all on Grace-Blackwell: GPUDirect RDMA through NVLink-C2C is off
    /// (src/graph/paths.cc:381 `NCCL_NET_GDR_C2C` 0; 2.27 turns it on), so the GPU reaches its NIC
    /// as PHB and LL128 is off across nodes (tuning.cc:429 wants PXN or closer; 2.27 adds P2C);
    /// one NVLink domain runs 32 NVLS channels (src/transport/nvls.cc:145,176; 2.27.5: 24).
    #[serde(rename = "2.26.2")]
    V2_26_2,
    /// NCCL 2.27.5 (tag v2.27.5-1): the release whose model outputs are in
    /// shared/validation/nccl-golden.csv.
    #[default]
    #[serde(rename = "2.27.5")]
    V2_27_5,
    /// The v2.30 development tree (master at commit 5067397): NVLS efficiency factors, NVLSTree
    /// caps and revised Blackwell tables.
    #[serde(rename = "2.30-dev")]
    V2_30Dev,
}

impl NcclVersion {
    pub const ALL: [NcclVersion; 3] = [NcclVersion::V2_26_2, NcclVersion::V2_27_5, NcclVersion::V2_30Dev];
    pub fn id(self) -> &'static str {
        match self {
            NcclVersion::V2_26_2 => "2.26.2",
            NcclVersion::V2_27_5 => "2.27.5",
            NcclVersion::V2_30Dev => "2.30-dev",
        }
    }
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.id() == id)
    }
    pub fn constants(self) -> &'static NcclConstants {
        match self {
            NcclVersion::V2_26_2 => &V2_26_2,
            NcclVersion::V2_27_5 => &V2_27_5,
            NcclVersion::V2_30Dev => &V2_30_DEV,
        }
    }
}

/// How NVLS and NVLSTree bandwidth is modelled; the formula itself changed after 2.27.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NvlsFormula {
    /// 2.27: `bw = min(bwIntra, bwInter)` (AllReduce), bus-to-algorithm ratio 5/6.
    V2_27,
    /// 2.30-dev: `bwIntra * nvlsEfficiency * (nCh-1)/nCh * (AllReduce ? 2 : (ppn-1)/ppn)`,
    /// capped by bwInter and perChMaxNVLSTreeBw; ratio nRanks/nsteps.
    V2_30,
}

pub type AlgoProto = [[f64; 3]; 7];
pub type ArchNodes = [[f64; 3]; 4];

#[derive(Debug)]
pub struct NcclConstants {
    pub version: NcclVersion,
    pub base_lat: AlgoProto,
    /// hwLat[NVLINK, PCI, NET][algorithm][protocol].
    pub hw_lat: [AlgoProto; 3],
    /// llMaxBws: row by GPU arch on one node; on several nodes row 0 = Intel CPU, 1 = AMD.
    pub ll_max_bws: ArchNodes,
    pub per_ch_max_ring_ll128_bws: ArchNodes,
    pub per_ch_max_tree_ll128_bws: ArchNodes,
    pub per_ch_max_tree_bws: ArchNodes,
    pub per_ch_max_nvls_tree_bws: ArchNodes,
    /// nvlsEfficiency by arch (2.30 formula only).
    pub nvls_efficiency: [f64; 4],
    pub nvls_formula: NvlsFormula,
    /// treeCorrectionFactor[protocol][log2(bytes/64)], 64 B to 256 MB.
    pub tree_correction: [[f64; 23]; 3],
    /// Per-channel speeds the topology search tries (search.cc), GB/s.
    pub speeds: SpeedArrays,
    /// MAXCHANNELS (src/include/device.h): ring graphs search up to half of it.
    pub max_channels: u32,
}

#[derive(Debug)]
pub struct SpeedArrays {
    pub intra: &'static [f64],
    pub inter: &'static [f64],
    pub sm90_intra: &'static [f64],
    pub sm90_inter: &'static [f64],
    pub sm100_intra: &'static [f64],
    pub sm100_inter: &'static [f64],
}

const TREE_CORRECTION: [[f64; 23]; 3] = [
    [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0],
    [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9],
];

const BASE_LAT: AlgoProto = [
    [6.8, 14.0, 8.4], // Tree
    [6.6, 14.0, 8.4], // Ring
    [0.0, 0.0, 0.0],  // CollNetDirect
    [0.0, 0.0, 0.0],  // CollNetChain
    [0.0, 0.0, 0.0],  // NVLS
    [0.0, 0.0, 0.0],  // NVLSTree
    [8.0, 8.0, 8.0],  // PAT (2.27 writes the 8 us into the PAT latency formula itself)
];

const HW_LAT_NVLINK: AlgoProto = [
    [0.6, 1.25, 4.0],
    [0.6, 1.9, 3.4],
    [0.0, 0.0, 3.7],
    [0.0, 0.0, 2.8],
    [0.0, 0.0, 25.0],
    [0.0, 0.0, 25.0],
    [0.0, 0.0, 4.0],
];
const HW_LAT_PCI: AlgoProto = [
    [1.0, 1.9, 4.0],
    [1.0, 2.5, 5.7],
    [0.0, 0.0, 3.7],
    [0.0, 0.0, 2.8],
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 4.0],
];
const fn hw_lat_net(nvls_tree_simple: f64) -> AlgoProto {
    [
        [5.0, 8.5, 14.0],
        [2.7, 4.0, 14.0],
        [0.0, 0.0, 31.0],
        [0.0, 0.0, 30.0],
        [0.0, 0.0, 18.0],
        [0.0, 0.0, nvls_tree_simple],
        [0.0, 0.0, 14.0],
    ]
}

const LL_MAX_BWS: ArchNodes = [
    [39.0, 39.0, 20.4],
    [87.7, 22.5, 19.0],
    [141.0, 45.0, 35.0],
    [282.0, 90.0, 70.0],
];

const SPEEDS_2_27: SpeedArrays = SpeedArrays {
    intra: &[40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0],
    inter: &[48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12],
    sm90_intra: &[60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0],
    sm90_inter: &[48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
    sm100_intra: &[90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0],
    sm100_inter: &[48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
};

/// NCCL 2.27.5. Source: NVIDIA/nccl tag v2.27.5-1, src/graph/tuning.cc (baseLat, hwLat,
/// llMaxBws, perChMax*Bws, treeCorrectionFactor), src/graph/search.cc (speed arrays),
/// src/include/device.h (MAXCHANNELS 64).
pub static V2_27_5: NcclConstants = V2_27_5_TABLES;

const V2_27_5_TABLES: NcclConstants = NcclConstants {
    version: NcclVersion::V2_27_5,
    base_lat: BASE_LAT,
    hw_lat: [HW_LAT_NVLINK, HW_LAT_PCI, hw_lat_net(14.0)],
    ll_max_bws: LL_MAX_BWS,
    per_ch_max_ring_ll128_bws: [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 36.7], [73.4, 73.4, 73.4]],
    per_ch_max_tree_ll128_bws: [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 29.0], [73.4, 73.4, 58.0]],
    per_ch_max_tree_bws: [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [38.7, 41.4, 36.0], [77.4, 82.8, 72.0]],
    // 2.27.5 has no NVLSTree cap; infinity leaves the min() unchanged.
    per_ch_max_nvls_tree_bws: [[f64::INFINITY; 3]; 4],
    nvls_efficiency: [0.0, 0.0, 0.0, 0.0],
    nvls_formula: NvlsFormula::V2_27,
    tree_correction: TREE_CORRECTION,
    speeds: SPEEDS_2_27,
    max_channels: 64,
};

/// NCCL 2.26.2. Source: NVIDIA/nccl tag v2.26.2-1. `git diff v2.26.2-1 v2.27.5-1 --
/// src/graph/tuning.cc` changes no table (baseLat, hwLat, llMaxBws, perChMax*Bws,
/// treeCorrectionFactor are 2.27.5's); src/graph/search.cc:923-924 tries one Blackwell intra
/// speed fewer (no 18.0) and 45.0 where 2.27.5 tries 45.1 across nodes; MAXCHANNELS is 64
/// (src/include/device.h:62).
pub static V2_26_2: NcclConstants = NcclConstants {
    version: NcclVersion::V2_26_2,
    speeds: SpeedArrays {
        sm100_intra: &[90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0],
        sm100_inter: &[48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
        ..SPEEDS_2_27
    },
    ..V2_27_5_TABLES
};

/// NCCL v2.30 development tree. Source: NVIDIA/nccl master at 5067397, src/graph/tuning.cc
/// (ncclTunerConstantsDefaults, nvlsEfficiency), src/graph/search.cc.
pub static V2_30_DEV: NcclConstants = NcclConstants {
    version: NcclVersion::V2_30Dev,
    base_lat: BASE_LAT,
    hw_lat: [HW_LAT_NVLINK, HW_LAT_PCI, hw_lat_net(20.9)],
    ll_max_bws: LL_MAX_BWS,
    per_ch_max_ring_ll128_bws: [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 36.7], [40.0, 40.0, 40.0]],
    per_ch_max_tree_ll128_bws: [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 29.0], [55.6, 31.67, 20.0]],
    per_ch_max_tree_bws: [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [38.7, 41.4, 36.0], [70.0, 42.8, 24.0]],
    per_ch_max_nvls_tree_bws: [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [0.0, 57.7, 45.5], [0.0, 96.0, 80.0]],
    nvls_efficiency: [0.0, 0.0, 0.85, 0.74],
    nvls_formula: NvlsFormula::V2_30,
    tree_correction: TREE_CORRECTION,
    speeds: SpeedArrays {
        sm100_inter: &[96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
        ..SPEEDS_2_27
    },
    max_channels: 64,
};

/// NVLS's channels (CTAs) on Hopper: `NVLS_NCHANNELS_SM90`, NCCL 2.27.5
/// src/transport/nvls.cc:147. NCCL runs NVLS and NVLSTree on all of them at every size
/// (src/enqueue.cc:1848-1850).
pub const NVLS_CHANNELS_HOPPER: u32 = 16;
/// NVLS's channels on Blackwell when the communicator spans more than one node or NVLink
/// domain, as NVLSTree always does: `NVLS_NCHANNELS_SM100`, src/transport/nvls.cc:148, 193.
pub const NVLS_CHANNELS_BLACKWELL: u32 = 32;

/// NVLS's channel count across nodes for a GPU of compute capability `cc`: the channels NCCL runs
/// NVLSTree on, and the count it pads the rings and trees to while NVLS is on
/// (src/graph/connect.cc:493-494).
pub fn nvls_channels(cc: u32) -> u32 {
    if cc >= 100 {
        NVLS_CHANNELS_BLACKWELL
    } else {
        NVLS_CHANNELS_HOPPER
    }
}
