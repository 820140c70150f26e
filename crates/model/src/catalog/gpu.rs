//! GPUs: compute peaks, HBM, NVLink ports. Dense (no sparsity) tensor-core peaks throughout.

use crate::units::{GBps, GBpsBidir, Tflops};
use serde::{Deserialize, Serialize};

/// NCCL's architecture classes (tuning.cc indexes its tables by these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    Volta,
    Ampere,
    Hopper,
    Blackwell,
    /// AMD CDNA 3 (gfx942: MI300X, MI325X). Collectives run RCCL, not NCCL ([`crate::rccl`]).
    Cdna3,
    /// AMD CDNA 4 (gfx950: MI350X, MI355X). RCCL.
    Cdna4,
}

impl Arch {
    /// The CUDA compute capability NCCL compares against (70, 80, 90, 100); 0 for AMD GPUs,
    /// which have none (no NCCL table is ever indexed by them: see [`Arch::is_amd`]).
    pub fn compute_capability(self) -> u32 {
        match self {
            Arch::Volta => 70,
            Arch::Ampere => 80,
            Arch::Hopper => 90,
            Arch::Blackwell => 100,
            Arch::Cdna3 | Arch::Cdna4 => 0,
        }
    }
    /// An AMD Instinct architecture: its collectives run RCCL ([`CollectiveLibrary::Rccl`]).
    pub fn is_amd(self) -> bool {
        matches!(self, Arch::Cdna3 | Arch::Cdna4)
    }
    /// The collective library the platform runs: a property of the GPU's vendor.
    pub fn library(self) -> CollectiveLibrary {
        if self.is_amd() {
            CollectiveLibrary::Rccl
        } else {
            CollectiveLibrary::Nccl
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Arch::Volta => "Volta",
            Arch::Ampere => "Ampere",
            Arch::Hopper => "Hopper",
            Arch::Blackwell => "Blackwell",
            Arch::Cdna3 => "CDNA3",
            Arch::Cdna4 => "CDNA4",
        }
    }
}

/// The collective library a platform runs: NVIDIA GPUs NCCL, AMD Instinct GPUs RCCL (ROCm's
/// fork of NCCL with its own tuning tables, [`crate::rccl`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollectiveLibrary {
    Nccl,
    Rccl,
}

impl CollectiveLibrary {
    pub fn name(self) -> &'static str {
        match self {
            CollectiveLibrary::Nccl => "NCCL",
            CollectiveLibrary::Rccl => "RCCL",
        }
    }
}

/// Bytes per element of an NVFP4 tensor: 4 bits plus one FP8 scale per 16 elements (NVIDIA,
/// "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", 2025). Training's
/// NVFP4 weights and GEMM operands and serving's FP4 weights and KV cache.
pub const NVFP4_BYTES: f64 = 0.5 + 1.0 / 16.0;

/// The GPUs the catalog knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuKind {
    V100,
    A100,
    H100,
    H100Pcie,
    H200,
    H800,
    B200,
    Gb200,
    H100Nvl,
    H200Nvl,
    Gh200,
    /// Serialized by its command-line id, as every other GPU is; files written with the
    /// variant's old name still read.
    #[serde(rename = "gh200-144g", alias = "gh200-hbm3e")]
    Gh200Hbm3e,
    Mi300x,
    Mi325x,
    Mi355x,
    B300,
    Gb300,
    H20,
}

/// PCIe generation of a host interface (the link between GPU or NIC and the host).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PcieGen {
    Gen3,
    Gen4,
    Gen5,
    Gen6,
}

/// One GPU model's datasheet figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GpuSpec {
    pub kind: GpuKind,
    /// Command-line name (`--gpu`).
    pub id: &'static str,
    pub name: &'static str,
    pub arch: Arch,
    /// Dense BF16 tensor-core peak (FP16 where the GPU has no BF16: V100).
    pub tflops_bf16: Tflops,
    /// Dense FP8 tensor-core peak; `None` where the GPU has no FP8 tensor cores.
    pub tflops_fp8: Option<Tflops>,
    /// HBM capacity in GB (10^9 bytes), as the datasheet states it.
    pub hbm_gb: f64,
    /// HBM bandwidth (reads and writes share it; quoted as one figure).
    pub hbm_bw: GBps,
    /// Number of NVLink ports; 0 where the GPU has none.
    pub nvlinks: u32,
    /// Signalling rate of one NVLink port, both directions together.
    pub nvlink_port_bidir: GBpsBidir,
    /// Host interface generation (x16).
    pub pcie: PcieGen,
    /// Thermal design power in watts (for context in the explorer).
    pub tdp_w: f64,
}

impl GpuSpec {
    /// All NVLink ports together, both directions: the vendor's headline figure.
    pub fn nvlink_total_bidir(&self) -> GBpsBidir {
        GBpsBidir(self.nvlink_port_bidir.0 * self.nvlinks as f64)
    }
    /// All NVLink ports together, one direction.
    pub fn nvlink_total(&self) -> GBps {
        self.nvlink_total_bidir().per_direction()
    }
    pub fn has_fp8(&self) -> bool {
        self.tflops_fp8.is_some()
    }
}

/// NVLink 2/3/4 ports run 25 GB/s per direction (50 GB/s bidirectional); NVLink5 doubles it.
/// Source: NVIDIA NVLink product page ("Fifth-generation NVLink ... 1.8 TB/s ... 18 links";
/// "fourth-generation NVLink ... 900 GB/s ... 18 links").
const NVLINK_25: GBpsBidir = GBpsBidir(50.0);
const NVLINK_50: GBpsBidir = GBpsBidir(100.0);

/// NVIDIA B300 (Blackwell Ultra) on an HGX B300 baseboard. SECONDARY (FiberMall's copy of
/// NVIDIA's HGX B300 table): 36 PFLOPS BF16 and 72 PFLOPS FP8 with sparsity for 8 GPUs, i.e.
/// 2.25 / 4.5 PFLOPS dense per GPU (DERIVED); NVLink5 1.8 TB/s per GPU; 288 GB HBM3e at
/// 8 TB/s (AceCloud). Power 1,400 W is LOW CONFIDENCE (huggingface.co/hardware/b300; no
/// NVIDIA datasheet TDP found). validation/hardware-specs.csv.
const B300: GpuSpec = GpuSpec {
    kind: GpuKind::B300,
    id: "b300",
    name: "B300 288GB (Blackwell Ultra)",
    arch: Arch::Blackwell,
    tflops_bf16: Tflops(2250.0),
    tflops_fp8: Some(Tflops(4500.0)),
    hbm_gb: 288.0,
    hbm_bw: GBps(8000.0),
    nvlinks: 18,
    nvlink_port_bidir: NVLINK_50,
    pcie: PcieGen::Gen6,
    tdp_w: 1400.0,
};

/// NVIDIA H20 (HGX H20, the export-market Hopper, 78 SMs). NVIDIA publishes no public datasheet
/// page for it; SECONDARY sources agree: huggingface.co/hardware/h20 (96 GB, 148 TFLOPS, 400 W)
/// and willitrunai.com/gpus/h20-96gb (96 GB HBM3 at 4.0 TB/s, 148 TFLOPS FP16 dense, NVLink4
/// 900 GB/s bidirectional, 400 W TDP); Geekbench listing reports (zangshuxian.com): 78 SMs,
/// FP16 dense 148 TFLOPS, INT8 296 TOPS. FP8 296 TFLOPS dense is DERIVED (Hopper's FP8 and INT8
/// tensor rates are equal and twice BF16). The full 18 NVLink4 ports of H100 SXM: the
/// NVLink rate is not cut (unlike H800). validation/hardware-specs.csv.
const H20: GpuSpec = GpuSpec {
    kind: GpuKind::H20,
    id: "h20",
    name: "H20 96GB (Hopper)",
    arch: Arch::Hopper,
    tflops_bf16: Tflops(148.0),
    tflops_fp8: Some(Tflops(296.0)),
    hbm_gb: 96.0,
    hbm_bw: GBps(4000.0),
    nvlinks: 18,
    nvlink_port_bidir: NVLINK_25,
    pcie: PcieGen::Gen5,
    tdp_w: 400.0,
};

/// The catalog, one entry per [`GpuKind`].
pub const GPUS: [GpuSpec; 18] = [
    // NVIDIA Tesla V100 SXM2 datasheet (2018): 125 TFLOPS tensor (FP16), 32 GB HBM2 at 900 GB/s,
    // NVLink 300 GB/s (6 NVLink2 ports).
    GpuSpec {
        kind: GpuKind::V100,
        id: "v100",
        name: "V100-SXM2 32GB",
        arch: Arch::Volta,
        tflops_bf16: Tflops(125.0),
        tflops_fp8: None,
        hbm_gb: 32.0,
        hbm_bw: GBps(900.0),
        nvlinks: 6,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen3,
        tdp_w: 300.0,
    },
    // NVIDIA A100 datasheet (2021): BF16 312 TFLOPS dense, 80 GB HBM2e at 2,039 GB/s,
    // NVLink 600 GB/s (12 NVLink3 ports), PCIe Gen4.
    GpuSpec {
        kind: GpuKind::A100,
        id: "a100",
        name: "A100-SXM4 80GB",
        arch: Arch::Ampere,
        tflops_bf16: Tflops(312.0),
        tflops_fp8: None,
        hbm_gb: 80.0,
        hbm_bw: GBps(2039.0),
        nvlinks: 12,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen4,
        tdp_w: 400.0,
    },
    // NVIDIA H100 datasheet, SXM5: BF16 1,979 / FP8 3,958 TFLOPS with sparsity, i.e. 989.4 and
    // 1,978.9 dense; 80 GB HBM3 at 3.35 TB/s; NVLink 900 GB/s (18 NVLink4 ports); PCIe Gen5.
    GpuSpec {
        kind: GpuKind::H100,
        id: "h100",
        name: "H100-SXM5 80GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(989.4),
        tflops_fp8: Some(Tflops(1978.9)),
        hbm_gb: 80.0,
        hbm_bw: GBps(3350.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 700.0,
    },
    // NVIDIA H100 datasheet, PCIe: BF16 1,513 / FP8 3,026 TFLOPS with sparsity (756 / 1,513
    // dense); 80 GB HBM2e at 2 TB/s; NVLink bridge 600 GB/s between a pair of cards.
    GpuSpec {
        kind: GpuKind::H100Pcie,
        id: "h100-pcie",
        name: "H100-PCIe 80GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(756.0),
        tflops_fp8: Some(Tflops(1513.0)),
        hbm_gb: 80.0,
        hbm_bw: GBps(2000.0),
        nvlinks: 12,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 350.0,
    },
    // NVIDIA H200 datasheet, SXM: same tensor peaks as H100 SXM; 141 GB HBM3e at 4.8 TB/s;
    // NVLink 900 GB/s.
    GpuSpec {
        kind: GpuKind::H200,
        id: "h200",
        name: "H200-SXM 141GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(989.4),
        tflops_fp8: Some(Tflops(1978.9)),
        hbm_gb: 141.0,
        hbm_bw: GBps(4800.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 700.0,
    },
    // H800 SXM: the H100 SXM5 die with NVLink cut to 400 GB/s (8 NVLink4 ports), per NVIDIA's
    // export-market product brief; compute and memory as H100 SXM.
    GpuSpec {
        kind: GpuKind::H800,
        id: "h800",
        name: "H800-SXM5 80GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(989.4),
        tflops_fp8: Some(Tflops(1978.9)),
        hbm_gb: 80.0,
        hbm_bw: GBps(3350.0),
        nvlinks: 8,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 700.0,
    },
    // NVIDIA DGX B200 datasheet: 72 PFLOPS FP8 training and 1,440 GB HBM3e at 64 TB/s for 8 GPUs,
    // i.e. per GPU 4.5 PFLOPS FP8 dense, 2.25 PFLOPS BF16 dense, 180 GB at 8 TB/s;
    // NVLink5 1.8 TB/s (18 ports).
    GpuSpec {
        kind: GpuKind::B200,
        id: "b200",
        name: "B200 180GB",
        arch: Arch::Blackwell,
        tflops_bf16: Tflops(2250.0),
        tflops_fp8: Some(Tflops(4500.0)),
        hbm_gb: 180.0,
        hbm_bw: GBps(8000.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_50,
        pcie: PcieGen::Gen6,
        tdp_w: 1000.0,
    },
    // NVIDIA GB200 NVL72 datasheet: 72 GPUs, FP8 720 PFLOPS and BF16 360 PFLOPS with sparsity
    // (5 / 2.5 PFLOPS dense per GPU), 13.4 TB HBM3e (186 GB per GPU) at 576 TB/s (8 TB/s per GPU),
    // 130 TB/s NVLink domain (1.8 TB/s per GPU).
    GpuSpec {
        kind: GpuKind::Gb200,
        id: "gb200",
        name: "GB200 (Blackwell in NVL72)",
        arch: Arch::Blackwell,
        tflops_bf16: Tflops(2500.0),
        tflops_fp8: Some(Tflops(5000.0)),
        hbm_gb: 186.0,
        hbm_bw: GBps(8000.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_50,
        pcie: PcieGen::Gen6,
        tdp_w: 1200.0,
    },
    // NVIDIA H100 datasheet, "H100 NVL" column: BF16 1,671 / FP8 3,341 TFLOPS with sparsity
    // (835.5 / 1,670.5 dense: the full 132-SM die at the lower clock of a 350-400 W
    // (configurable) PCIe card); 94 GB HBM3 at 3.9 TB/s; NVLink bridge 600 GB/s; PCIe Gen5.
    GpuSpec {
        kind: GpuKind::H100Nvl,
        id: "h100-nvl",
        name: "H100 NVL 94GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(835.5),
        tflops_fp8: Some(Tflops(1670.5)),
        hbm_gb: 94.0,
        hbm_bw: GBps(3900.0),
        nvlinks: 12,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 400.0,
    },
    // NVIDIA H200 datasheet, "H200 NVL" column: BF16 1,671 / FP8 3,341 TFLOPS with sparsity
    // (835.5 / 1,670.5 dense), 141 GB HBM3e at 4.8 TB/s, up to 600 W (configurable), 2- or
    // 4-way NVLink bridge at 900 GB/s per GPU, PCIe Gen5. Modelled as bridged pairs.
    GpuSpec {
        kind: GpuKind::H200Nvl,
        id: "h200-nvl",
        name: "H200 NVL 141GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(835.5),
        tflops_fp8: Some(Tflops(1670.5)),
        hbm_gb: 141.0,
        hbm_bw: GBps(4800.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 600.0,
    },
    // NVIDIA GH200 Grace Hopper Superchip datasheet: the H100 GPU with BF16 1,979 / FP8 3,958
    // TFLOPS with sparsity (989.4 / 1,978.9 dense, as H100 SXM), 96 GB HBM3 at 4 TB/s, NVLink4
    // 900 GB/s (18 ports, as in GH200 NVL32), NVLink-C2C 900 GB/s to Grace; module power
    // 450-1,000 W configurable for CPU + GPU + memory together (`tdp_w` is that module figure).
    GpuSpec {
        kind: GpuKind::Gh200,
        id: "gh200",
        name: "GH200 96GB",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(989.4),
        tflops_fp8: Some(Tflops(1978.9)),
        hbm_gb: 96.0,
        hbm_bw: GBps(4000.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 1000.0,
    },
    // Same datasheet, the HBM3e configuration: 144 GB HBM3e at 4.9 TB/s, otherwise as above.
    GpuSpec {
        kind: GpuKind::Gh200Hbm3e,
        id: "gh200-144g",
        name: "GH200 144GB HBM3e",
        arch: Arch::Hopper,
        tflops_bf16: Tflops(989.4),
        tflops_fp8: Some(Tflops(1978.9)),
        hbm_gb: 144.0,
        hbm_bw: GBps(4900.0),
        nvlinks: 18,
        nvlink_port_bidir: NVLINK_25,
        pcie: PcieGen::Gen5,
        tdp_w: 1000.0,
    },
    // AMD Instinct MI300X (gfx942, 304 CUs), ROCm docs "AMD Instinct MI300 series
    // microarchitecture" (ROCm/ROCm@e396b489 docs/conceptual/gpu-arch/mi300.md): BF16/FP16
    // 1,307.4 and FP8 2,614.9 TFLOPS dense, 5.3 TB/s HBM3, 7 Infinity Fabric links to form a
    // fully connected 8-GPU node, PCIe Gen5 x16; 192 GiB VRAM ("Accelerator and GPU hardware
    // specifications"); 750 W TBP (MLCommons inference v4.1 AMD system description).
    // validation/hardware-specs.csv. No NVLink: its scale-up links are in `catalog::xgmi`.
    GpuSpec {
        kind: GpuKind::Mi300x,
        id: "mi300x",
        name: "Instinct MI300X 192GB",
        arch: Arch::Cdna3,
        tflops_bf16: Tflops(1307.4),
        tflops_fp8: Some(Tflops(2614.9)),
        hbm_gb: 192.0,
        hbm_bw: GBps(5300.0),
        nvlinks: 0,
        nvlink_port_bidir: GBpsBidir(0.0),
        pcie: PcieGen::Gen5,
        tdp_w: 750.0,
    },
    // AMD Instinct MI325X (gfx942, 304 CUs, same die as MI300X): 256 GiB (ROCm docs). SECONDARY
    // (awesomeagents.ai spec table, yobitel.com, wiaix.com): 6.0 TB/s HBM3E, BF16 1,307.4 / FP8
    // 2,614.9 TFLOPS dense, ~1,000 W, 7 xGMI links. validation/hardware-specs.csv.
    GpuSpec {
        kind: GpuKind::Mi325x,
        id: "mi325x",
        name: "Instinct MI325X 256GB",
        arch: Arch::Cdna3,
        tflops_bf16: Tflops(1307.4),
        tflops_fp8: Some(Tflops(2614.9)),
        hbm_gb: 256.0,
        hbm_bw: GBps(6000.0),
        nvlinks: 0,
        nvlink_port_bidir: GBpsBidir(0.0),
        pcie: PcieGen::Gen5,
        tdp_w: 1000.0,
    },
    // AMD Instinct MI355X (gfx950, 256 CUs): 288 GiB (ROCm docs "AMD GPU specifications").
    // SECONDARY: FP8 ~5,000 TFLOPS dense (press report of AMD's ISSCC 2026 paper; 256 CU x 8192
    // FLOPS/clk x 2.4 GHz = 5,033), 8 TB/s HBM3E (Boston Ltd), 1,400 W liquid-cooled TBP and 7 IF
    // links (reports of AMD's Hot Chips 2025 talk). BF16 is DERIVED as half the FP8 rate (CDNA's
    // matrix cores double per halving of width, as MI300X's table shows); AMD's own BF16 figure
    // was not found. A measured BF16 GEMM of 1,457 TFLOPS at 4096^3 (Primus report) stays
    // below it. validation/hardware-specs.csv.
    GpuSpec {
        kind: GpuKind::Mi355x,
        id: "mi355x",
        name: "Instinct MI355X 288GB",
        arch: Arch::Cdna4,
        tflops_bf16: Tflops(2500.0),
        tflops_fp8: Some(Tflops(5000.0)),
        hbm_gb: 288.0,
        hbm_bw: GBps(8000.0),
        nvlinks: 0,
        nvlink_port_bidir: GBpsBidir(0.0),
        pcie: PcieGen::Gen5,
        tdp_w: 1400.0,
    },
    B300,
    // NVIDIA GB300 (Blackwell Ultra in GB300 NVL72): Azure "ND GB300 v6" docs: 72 GPUs per
    // rack, 130 TB/s NVLink (1.8 TB/s per GPU), 288 GB HBM3E per GPU, 800 Gb/s back-end per GPU.
    // Compute: the GB300 NVL72 rack's FP8/FP6 720 PFLOPS with sparsity (NVIDIA's GTC 2025
    // figures as reported by vendordeep.com; Verda's "GB300 NVL72" post: 360 PF FP8 and 180 PF
    // BF16 dense per rack, 5 / 2.5 PF per GPU, 1.4 kW), i.e. GB200's per-GPU rates in the
    // rack, not the HGX B300 board's lower 4.5 / 2.25 (SECONDARY, DERIVED /72). 1,400 W: Verda.
    // The Megatron-Bridge dense runs agree: GB300 1.19-1.24x GB200 at equal layouts
    // (validation/training-blackwell.csv). validation/hardware-specs.csv.
    GpuSpec {
        kind: GpuKind::Gb300,
        id: "gb300",
        name: "GB300 (Blackwell Ultra in NVL72)",
        tflops_bf16: Tflops(2500.0),
        tflops_fp8: Some(Tflops(5000.0)),
        ..B300
    },
    H20,
];

impl GpuKind {
    pub const ALL: [GpuKind; 18] = [
        GpuKind::V100,
        GpuKind::A100,
        GpuKind::H100,
        GpuKind::H100Pcie,
        GpuKind::H200,
        GpuKind::H800,
        GpuKind::B200,
        GpuKind::Gb200,
        GpuKind::H100Nvl,
        GpuKind::H200Nvl,
        GpuKind::Gh200,
        GpuKind::Gh200Hbm3e,
        GpuKind::Mi300x,
        GpuKind::Mi325x,
        GpuKind::Mi355x,
        GpuKind::B300,
        GpuKind::Gb300,
        GpuKind::H20,
    ];
    /// A PCIe card whose NVLink joins cards by bridges (H100 PCIe, H100 NVL, H200 NVL), not
    /// an SXM module on an NVSwitch baseboard.
    pub fn is_bridged_card(self) -> bool {
        matches!(self, GpuKind::H100Pcie | GpuKind::H100Nvl | GpuKind::H200Nvl)
    }
    /// A Grace-Blackwell superchip GPU that ships in NVL72 racks (GB200, GB300).
    pub fn is_grace_blackwell(self) -> bool {
        matches!(self, GpuKind::Gb200 | GpuKind::Gb300)
    }
    pub fn spec(self) -> &'static GpuSpec {
        // GPUS is declared in the same order as ALL; the test below keeps them in step.
        &GPUS[self as usize]
    }
    pub fn id(self) -> &'static str {
        self.spec().id
    }
    pub fn from_id(id: &str) -> Option<GpuKind> {
        let id = id.to_ascii_lowercase();
        GPUS.iter().find(|g| g.id == id).map(|g| g.kind)
    }
    pub fn ids() -> Vec<&'static str> {
        GPUS.iter().map(|g| g.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_order_matches_enum() {
        for k in GpuKind::ALL {
            assert_eq!(k.spec().kind, k);
            assert_eq!(GpuKind::from_id(k.id()), Some(k));
            // Files and links name a GPU by the id the pickers and the CLI use.
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.id()));
        }
        assert_eq!(serde_json::from_str::<GpuKind>("\"gh200-hbm3e\"").unwrap(), GpuKind::Gh200Hbm3e);
    }

    #[test]
    fn headline_nvlink_figures_match_datasheets() {
        // Datasheet headline figures are bidirectional.
        assert_eq!(GpuKind::V100.spec().nvlink_total_bidir(), GBpsBidir(300.0));
        assert_eq!(GpuKind::A100.spec().nvlink_total_bidir(), GBpsBidir(600.0));
        assert_eq!(GpuKind::H100.spec().nvlink_total_bidir(), GBpsBidir(900.0));
        assert_eq!(GpuKind::H800.spec().nvlink_total_bidir(), GBpsBidir(400.0));
        // H20: full NVLink4 (900 GB/s bidirectional), 96 GB HBM3 at 4.0 TB/s, 148 TFLOPS.
        assert_eq!(GpuKind::H20.spec().nvlink_total_bidir(), GBpsBidir(900.0));
        assert_eq!((GpuKind::H20.spec().hbm_gb, GpuKind::H20.spec().hbm_bw, GpuKind::H20.spec().tflops_bf16), (96.0, GBps(4000.0), Tflops(148.0)));
        assert_eq!(GpuKind::B200.spec().nvlink_total_bidir(), GBpsBidir(1800.0));
        assert_eq!(GpuKind::H100.spec().nvlink_total(), GBps(450.0));
        assert_eq!(GpuKind::H100Nvl.spec().nvlink_total_bidir(), GBpsBidir(600.0));
        assert_eq!(GpuKind::H200Nvl.spec().nvlink_total_bidir(), GBpsBidir(900.0));
        // The NVL cards' sparse datasheet figures halve to the dense peaks.
        assert_eq!(GpuKind::H100Nvl.spec().tflops_bf16, Tflops(1671.0 / 2.0));
        assert_eq!(GpuKind::H200Nvl.spec().tflops_fp8, Some(Tflops(3341.0 / 2.0)));
    }

    #[test]
    fn gh200_matches_its_datasheet() {
        // GH200 datasheet: 1,979 BF16 / 3,958 FP8 TFLOPS with sparsity; 96 GB HBM3 at 4 TB/s
        // or 144 GB HBM3e at 4.9 TB/s; 900 GB/s NVLink; module power up to 1,000 W.
        for (g, gb, bw) in [(GpuKind::Gh200, 96.0, 4000.0), (GpuKind::Gh200Hbm3e, 144.0, 4900.0)] {
            let s = g.spec();
            assert_eq!((s.tflops_bf16.0 * 2.0).round(), 1979.0);
            assert_eq!(s.tflops_fp8.map(|t| (t.0 * 2.0).round()), Some(3958.0));
            assert_eq!((s.hbm_gb, s.hbm_bw), (gb, GBps(bw)));
            assert_eq!(s.nvlink_total_bidir(), GBpsBidir(900.0));
            assert_eq!((s.arch, s.tdp_w), (Arch::Hopper, 1000.0));
        }
    }
}
