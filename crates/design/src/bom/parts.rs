//! The parts a bill of materials lists, as data: id, name, power of one unit and its source.
//!
//! Power is the published maximum (or typical, where only that is published) of one unit, in
//! watts. `None` where no figure is published (then the total says it is incomplete);
//! `Some(0.0)` where the part draws nothing of its own or is inside another part's figure
//! (a DGX's ConnectX-7 NICs are in the DGX's 10.2 kW). Sources were read on 2026-11-30.

use crate::catalog::{GpuKind, NicKind, SwitchKind};

/// What a part is, for grouping and for the network's share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// A server or an NVL72 rack: compute.
    System,
    /// A GPU counted on its own (servers with no system figure).
    Gpu,
    /// NVLink switch trays or chips (scale-up network).
    ScaleUpSwitch,
    /// Racks, PDUs, power shelves, cooling: the facility's side.
    Facility,
    Nic,
    Switch,
    Transceiver,
    Cable,
}

/// One part.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Part {
    /// Stable id: what a price book names.
    pub id: &'static str,
    pub name: &'static str,
    pub kind: PartKind,
    /// Power of one unit in watts (see the module doc for `None` and `0`).
    pub power_w: Option<f64>,
    /// Where the power figure (and the part's role) comes from: URL and date.
    pub source: &'static str,
    /// Inside another part (its power and price are that part's): needs no price of its own.
    pub included: bool,
}

/// A part's source: the text in builds with the `sources` feature (the CLI), empty without it
/// (the web page, whose bundle budget has no room for a paragraph per part; its panel points to
/// the CLI's `fabricscope bom --json`, where every item names its source).
#[cfg(feature = "sources")]
macro_rules! src {
    ($s:literal) => {
        $s
    };
}
#[cfg(not(feature = "sources"))]
macro_rules! src {
    ($s:literal) => {
        ""
    };
}

const fn part(id: &'static str, name: &'static str, kind: PartKind, power_w: Option<f64>, source: &'static str) -> Part {
    Part { id, name, kind, power_w, source, included: false }
}

const fn inside(p: Part) -> Part {
    Part { included: true, ..p }
}

/// DGX H100 (and, at its figure, any 8-GPU H100 SXM system: an HGX server's own draw is its
/// vendor's): 8 H100 SXM5, 4 NVSwitch chips, 8 ConnectX-7 behind 4 twin-port OSFP cages;
/// 10.2 kW max system input (NVIDIA DGX H100/H200 user guide, power specifications,
/// https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html, 2026-11-30).
pub const DGX_H100: Part = part("dgx-h100", "DGX H100-class system (8x H100 SXM5, 8x ConnectX-7)", PartKind::System, Some(10_200.0),
    src!("NVIDIA DGX H100/H200 user guide: 10.2 kW max, https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html (2026-11-30)"));
/// DGX H200: the same chassis and power supplies as DGX H100, 10.2 kW max (same user guide).
pub const DGX_H200: Part = part("dgx-h200", "DGX H200-class system (8x H200, 8x ConnectX-7)", PartKind::System, Some(10_200.0),
    src!("NVIDIA DGX H100/H200 user guide: 10.2 kW max, https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html (2026-11-30)"));
/// DGX B200: 8 B200, 2 NVLink5 switch chips, 8 ConnectX-7 behind 4 twin-port OSFP cages;
/// 14.3 kW max (NVIDIA DGX B200 user guide, https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html, 2026-11-30).
pub const DGX_B200: Part = part("dgx-b200", "DGX B200-class system (8x B200, 8x ConnectX-7)", PartKind::System, Some(14_300.0),
    src!("NVIDIA DGX B200 user guide: 14.3 kW max, https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html (2026-11-30)"));
/// DGX B300: 8 Blackwell Ultra B300, 2 NVLink5 switch chips, 8 ConnectX-8 SuperNICs (800G);
/// 14.5 kW max system power (NVIDIA DGX B300 user guide, as the brief for issue 23 cites it and
/// as thedailyscout.com quotes NVIDIA's docs, "DGX B300 ... is listed at 14.5 kW",
/// https://thedailyscout.com/s/mS-qfkbCluI, read 2026-12-01). An HGX B300 server of another
/// maker is counted at this figure, as HGX H100 servers are at DGX H100's.
pub const DGX_B300: Part = part("dgx-b300", "DGX B300-class system (8x B300, 8x ConnectX-8)", PartKind::System, Some(14_500.0),
    src!("NVIDIA DGX B300 user guide: 14.5 kW max (quoted from docs.nvidia.com by https://thedailyscout.com/s/mS-qfkbCluI, read 2026-12-01)"));
/// ConnectX-8 inside a DGX B300: counted in the DGX's figure.
pub const CX8_IN_DGX: Part = inside(part("connectx-8-dgx", "ConnectX-8 800G SuperNIC (in the DGX)", PartKind::Nic, Some(0.0),
    src!("DGX B300: 8 ConnectX-8 SuperNICs, inside the system's figure")));
/// An 8-GPU AMD Instinct server (8 OAM modules on a universal baseboard, fully connected by
/// Infinity Fabric): no system power figure is published for the MI300X/MI325X or MI355X
/// platforms in what was read (AMD publishes the module's board power, 750 W MI300X and
/// 1,400 W MI355X, which the GPUs' own line carries); the host is unpowered.
pub const INSTINCT_SERVER: Part = part("instinct-8gpu-server", "AMD Instinct 8-GPU server (host power not published)", PartKind::System, None,
    src!("AMD Instinct MI300X/MI355X platforms: 8 OAM, fully connected Infinity Fabric; no system power published (searched 2026-12-01); GPUs at board power on their own line"));
/// A server of the cluster's GPUs with no published system figure: its power is left out
/// (the GPUs are counted on their own at their TDP).
pub const GPU_SERVER: Part = part("gpu-server", "GPU server (host power not published here)", PartKind::System, None,
    src!("no published system figure for this shape; GPUs counted at TDP on their own line"));
/// GB200 NVL72 rack: 18 compute trays of 2 Grace + 4 B200, 9 NVLink switch trays, power
/// shelves and 2 management top-of-rack switches (NVIDIA DGX GB200 user guide, hardware,
/// https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html, read 2026-12-01).
/// Power: 120,000 W for the whole rack (compute trays, NVLink switch trays, power shelves'
/// losses), the load NVIDIA stated for the DGX GB200 NVL72 at GTC 2024 (ServeTheHome, "NVIDIA
/// DGX GB200 NVL72", https://servethehome.com/?p=76755, March 2024; also Tom's Hardware via
/// Yahoo, March 2024). Stated as the rack's load, neither "max" nor "typical"; NVIDIA's DGX
/// SuperPOD GB200 reference architecture budgets 1.2 MW TDP per scalable unit of 8 racks with
/// their networks and management (150 kW per rack all-in,
/// https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/dgx-superpod-architecture.html,
/// read 2026-12-01), which bounds it. The power shelves are rated 8 x 33 kW (N+N, Mission
/// Control power shelf integration): a rating, not the draw.
pub const NVL72_RACK: Part = part("gb200-nvl72-rack", "GB200 NVL72 rack (18 compute trays, 9 NVLink switch trays, power shelves)", PartKind::System, Some(120_000.0),
    src!("120 kW per rack as stated for DGX GB200 NVL72 at GTC 2024, https://servethehome.com/?p=76755 (2024-03); bounded by NVIDIA DGX SuperPOD GB200 RA 1.2 MW TDP per 8-rack SU, https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/dgx-superpod-architecture.html (read 2026-12-01)"));
/// A GB200 compute tray (2 Grace + 4 B200, 4 ConnectX-7, 2 BlueField-3), inside the rack's figure.
pub const NVL72_COMPUTE_TRAY: Part = inside(part("gb200-compute-tray", "GB200 compute tray (2 Grace, 4 B200)", PartKind::System, Some(0.0),
    src!("18 per rack, inside the rack's figure, https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html (2026-12-01)")));
/// A power shelf of an NVL72 rack (6 PSUs of 5.5 kW), inside the rack's figure.
pub const NVL72_POWER_SHELF: Part = inside(part("gb200-power-shelf", "power shelf (6 x 5.5 kW PSUs)", PartKind::Facility, Some(0.0),
    src!("8 per GB200 rack in NVIDIA's reference design, https://docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/powershelf.md (2026-12-01); its losses are inside the rack's figure")));
/// GB300 NVL72 rack: the same 72-GPU NVLink5 rack with Blackwell Ultra (Microsoft Learn, ND
/// GB300 v6: 72 GPUs per rack, 130 TB/s NVLink). Its draw is not published in what was read,
/// so it has no figure and a GB300 bill names it unpowered.
pub const GB300_NVL72_RACK: Part = part("gb300-nvl72-rack", "GB300 NVL72 rack (18 compute trays, 9 NVLink switch trays, power shelves)", PartKind::System, None,
    src!("GB300 NVL72: 72 Blackwell Ultra GPUs per rack on NVLink5 (Microsoft Learn, ND GB300 v6 sizes); rack draw not published"));
/// A GB300 compute tray (2 Grace + 4 B300), inside the rack's figure.
pub const GB300_COMPUTE_TRAY: Part = inside(part("gb300-compute-tray", "GB300 compute tray (2 Grace, 4 Blackwell Ultra)", PartKind::System, Some(0.0),
    src!("18 per rack, inside the rack's figure (Microsoft Learn, ND GB300 v6 sizes)")));
/// NVLink switch tray of an NVL72 rack, inside the rack's figure.
pub const NVLINK_TRAY: Part = inside(part("nvlink-switch-tray", "NVLink switch tray (2 NVLink5 switch chips)", PartKind::ScaleUpSwitch, Some(0.0),
    src!("9 per GB200 NVL72 rack, inside the rack's figure, https://docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/nvlink (2026-11-30)")));
/// NVSwitch chips on a DGX/HGX baseboard, inside the system's figure.
pub const NVSWITCH_CHIP: Part = inside(part("nvswitch-chip", "NVSwitch chip (on the GPU baseboard)", PartKind::ScaleUpSwitch, Some(0.0),
    src!("4 per DGX/HGX H100/H200, 2 per B200 (DGX user guides); inside the system's figure")));

/// ConnectX-7 inside a DGX: counted in the DGX's figure.
pub const CX7_IN_DGX: Part = inside(part("connectx-7-dgx", "ConnectX-7 400G (in the DGX)", PartKind::Nic, Some(0.0),
    src!("DGX H100/B200 user guides: 8 ConnectX-7 behind 4 OSFP cages, inside the system's figure")));

/// Passive copper (DAC) of the NIC's rate: "near zero power" (NVIDIA MCP7Y00 DAC product
/// specification, https://docs.nvidia.com/networking/display/MCP7Y00NXXX800pub, 2026-11-30; the
/// EEPROM draws at most 0.1 W, NVIDIA MCP7H00 specifications).
pub const DAC: Part = part("dac", "passive copper cable (DAC), in a rack", PartKind::Cable, Some(0.0),
    src!("NVIDIA DAC product specifications: passive, EEPROM 0.1 W max, https://docs.nvidia.com/networking/display/MCP7Y00NXXX800pub (2026-11-30)"));
/// A multimode MPO fiber, one per 400G link (passive).
pub const FIBER_MM: Part = part("fiber-mpo-mm", "multimode MPO-12/APC fiber (up to 50 m)", PartKind::Cable, Some(0.0),
    src!("NVIDIA twin-port transceiver docs: one 4-channel MPO fiber per 400G port, passive, https://docs.nvidia.com/networking/display/800GMMA4Z00NS/Overview (2026-11-30)"));
/// A single-mode MPO fiber, one per 400G link (passive).
pub const FIBER_SM: Part = part("fiber-mpo-sm", "single-mode MPO-12/APC fiber (up to 500 m)", PartKind::Cable, Some(0.0),
    src!("NVIDIA MMS4X00-NM docs: one single-mode MPO fiber per 400G port, passive, https://docs.nvidia.com/networking/display/mms4x00nm800g500m/application+overview (2026-11-30)"));
/// Twin-port 2x400G OSFP multimode (2xSR4, 50 m): 15 W in every configuration (NVIDIA
/// MMA4Z00-NS, https://docs.nvidia.com/networking/display/800gmma4z00nst/overview, 2026-11-30).
pub const TWIN_SR4: Part = part("mma4z00-ns", "twin-port OSFP 2x400G multimode 2xSR4 (MMA4Z00-NS, 50 m)", PartKind::Transceiver, Some(15.0),
    src!("NVIDIA MMA4Z00-NS(-T): 15 W, https://docs.nvidia.com/networking/display/800gmma4z00nst/overview (2026-11-30)"));
/// Twin-port 2x400G OSFP single mode (2xDR4, 500 m): 17 W in every configuration (NVIDIA
/// MMS4X00-NM, https://docs.nvidia.com/networking/display/mms4x00nm800g500m/application+overview, 2026-11-30).
pub const TWIN_DR4: Part = part("mms4x00-nm", "twin-port OSFP 2x400G single-mode 2xDR4 (MMS4X00-NM, 500 m)", PartKind::Transceiver, Some(17.0),
    src!("NVIDIA MMS4X00-NM: 17 W, https://docs.nvidia.com/networking/display/mms4x00nm800g500m/application+overview (2026-11-30)"));
/// Single-port 400G OSFP multimode (SR4, 50 m) for a ConnectX-7 card: 9 W max, 8 W typical
/// (NVIDIA MMA4Z00-NS400, https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios, 2026-11-30).
pub const SINGLE_SR4: Part = part("mma4z00-ns400", "single-port OSFP 400G multimode SR4 (MMA4Z00-NS400, 50 m)", PartKind::Transceiver, Some(9.0),
    src!("NVIDIA MMA4Z00-NS400: 9 W max, https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios (2026-11-30)"));
/// An optical module of a rate NVIDIA's figures above do not cover (HDR 200G, 800G, 100GbE):
/// counted, power not published here.
pub const OPTIC_OTHER: Part = part("optic", "optical transceiver at the NIC's rate", PartKind::Transceiver, None,
    src!("count only: no power figure in this catalog for this rate"));
/// An optical fiber for rates other than 400G (passive).
pub const FIBER_OTHER: Part = part("fiber", "optical fiber", PartKind::Cable, Some(0.0), src!("passive"));

/// Count-only parts: the networks and facility items a DGX SuperPOD reference architecture
/// lists beside the compute fabric (storage and in-band management fabric, out-of-band
/// management, UFM, racks, PDUs). Counted from the sizing rules in their doc comments; they are
/// not in the bill's power or cost totals (`Scope::CountOnly`), so they are never "unpowered".
///
/// Storage and in-band management ports of a system: 2 per DGX H100/H200/B200 (2 dual-port
/// ConnectX-7 or BlueField-3 cards, one port each to storage and in-band management; DGX
/// B200 user guide, https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html)
/// and per GB200 compute tray (2 BlueField-3, DGX GB200 user guide, hardware).
pub const STORAGE_PORT: Part = part("storage-inband-port", "storage and in-band management NIC port (system side)", PartKind::Nic, None,
    src!("2 per DGX system or GB200 compute tray: DGX B200 and DGX GB200 user guides, https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html (2026-12-01)"));
/// Out-of-band management port (1 GbE BMC): one per system or tray, per NVLink switch tray and
/// per fabric switch.
pub const OOB_PORT: Part = part("oob-port", "out-of-band management port (1 GbE BMC)", PartKind::Nic, None,
    src!("one BMC port per system, tray and switch (DGX user guides: 1 GbE RJ45 BMC)"));
/// An out-of-band management switch of 48 1 GbE ports (a sizing rule: OOB ports / 48, rounded up;
/// the reference architectures name the role, not a count for every size).
pub const OOB_SWITCH: Part = part("oob-switch", "out-of-band management switch (48 x 1 GbE)", PartKind::Switch, None,
    src!("sizing rule: one 48-port 1 GbE switch per 48 BMC ports; the DGX SuperPOD RAs list an out-of-band network"));
/// UFM appliances: an HA pair per InfiniBand compute fabric (the DGX SuperPOD reference
/// architectures' management rack holds "UFM appliances").
pub const UFM: Part = part("ufm-appliance", "NVIDIA UFM appliance (InfiniBand fabric manager, HA pair)", PartKind::System, None,
    src!("DGX SuperPOD RAs: management rack with UFM appliances, https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html (2026-12-01); 2 = an HA pair"));
/// A rack for air-cooled systems: 4 DGX H100/H200 per rack (DGX SuperPOD data-center design
/// H100, planning), 2 DGX B200 per rack (the B200 RA: "power per rack exceeds 25 kW" at
/// 14.3 kW each), 4 of any other server (an assumption the line names).
pub const RACK: Part = part("rack", "rack (compute systems)", PartKind::Facility, Some(0.0),
    src!("4 DGX H100 per rack (https://docs.nvidia.com/dgx-superpod/design-guides/dgx-superpod-data-center-design-h100/latest/planning.html), 2 DGX B200 per rack (B200 RA: over 25 kW per rack); passive"));
/// Rack PDUs: 3 per air-cooled rack ("three (3) 2U rack PDUs for maximum redundancy", DGX
/// SuperPOD B300 RA, https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html).
pub const PDU: Part = part("pdu", "rack PDU", PartKind::Facility, Some(0.0),
    src!("3 per air-cooled rack, DGX SuperPOD B300 RA, https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html (2026-12-01)"));
/// Management top-of-rack switches of an NVL72 rack: 2 per rack (DGX GB200 user guide).
pub const NVL72_MGMT_TOR: Part = part("gb200-mgmt-tor", "NVL72 management top-of-rack switch", PartKind::Switch, None,
    src!("2 per GB200 NVL72 rack, https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html (2026-12-01)"));

/// Every fixed part (switch and NIC parts come from the catalog: [`switch_part`], [`nic_part`]).
pub const PARTS: [Part; 30] = [
    DGX_H100, DGX_H200, DGX_B200, DGX_B300, CX8_IN_DGX, INSTINCT_SERVER, GPU_SERVER, NVL72_RACK, GB300_NVL72_RACK, NVL72_COMPUTE_TRAY, GB300_COMPUTE_TRAY, NVL72_POWER_SHELF, NVLINK_TRAY, NVSWITCH_CHIP, CX7_IN_DGX, DAC, FIBER_MM, FIBER_SM, TWIN_SR4, TWIN_DR4,
    SINGLE_SR4, OPTIC_OTHER, STORAGE_PORT, OOB_PORT, OOB_SWITCH, UFM, RACK, PDU, NVL72_MGMT_TOR, GPU_IN_RACK,
];

/// QM9700 maximum power with active cables, W: NVIDIA QM97x0 hardware user manual,
/// Specifications (https://networking-docs.nvidia.com/qm97x0hw/specifications; 747 W typical
/// with passive cables). Active cables and optics draw their power from the switch's ports
/// (NVIDIA DGX SuperPOD cabling guide, "Port Power",
/// https://docs.nvidia.com/dgx-superpod/design-guide-cabling-data-centers/latest/port-power.html).
pub const QM9700_MAX_W: f64 = 1_720.0;
/// Port power budget of one QM9700 OSFP cage, W: Class 8 (17 W) OSFP112 modules (QM97XX user
/// manual, Interfaces, https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces).
pub const QM9700_CAGE_W: f64 = 17.0;
/// OSFP cages of a QM9700 (32 twin-port cages, 64 NDR ports).
pub const QM9700_CAGES: f64 = 32.0;
/// A QM9700's own power, W: its published maximum less the port power of its 32 cages, because
/// the bill counts every optic at its own figure on its own line (derived: 1,720 - 32 x 17 =
/// 1,176 W; the same boundary as the datasheet maximum, without counting optics twice).
pub const QM9700_OWN_W: f64 = QM9700_MAX_W - QM9700_CAGES * QM9700_CAGE_W;

/// The switch part of a switch class. Power: the QM9700's published maximum less its port power
/// ([`QM9700_OWN_W`]); no vendor maximum was found for the others (searched 2026-11-30 and
/// 2026-12-01 for QM8700, Q3400, SN5600 and the NVL72 NVLink switch tray; SN5600's manual
/// gives a typical figure only; what was read is listed in docs/bom.md): `None`, and power
/// totals say "at least".
pub fn switch_part(kind: SwitchKind) -> Part {
    let power = match kind {
        SwitchKind::Quantum2 => Some(QM9700_OWN_W),
        _ => None,
    };
    let (id, src) = match kind {
        SwitchKind::QuantumHdr => ("qm8700", src!("NVIDIA Quantum QM8700: 40 HDR 200G QSFP56 ports; no published system power")),
        SwitchKind::Quantum2 => ("qm9700", src!("NVIDIA QM97x0 user manual, Specifications: 1,720 W maximum with active cables, https://networking-docs.nvidia.com/qm97x0hw/specifications; less 32 OSFP cages x 17 W counted with the optics (2026-12-01)")),
        SwitchKind::QuantumX800 => ("q3400", src!("NVIDIA Quantum-X800 Q3400: 144 XDR 800G ports; no published system power")),
        SwitchKind::Spectrum4 => ("sn5600", src!("NVIDIA SN5000 manual: SN5600 64x 800GbE or 128x 400GbE, https://docs.nvidia.com/networking/display/sn5000/data+interfaces (2026-11-30); no published system power")),
        _ => ("eth-100-tor", src!("a 32x 100GbE top-of-rack class switch; no published system power")),
    };
    part(id, kind.spec().name, PartKind::Switch, power, src)
}

/// The switch classes a scale-out fabric is built from.
pub const SCALE_OUT_SWITCHES: [SwitchKind; 5] = [SwitchKind::QuantumHdr, SwitchKind::Quantum2, SwitchKind::QuantumX800, SwitchKind::Spectrum4, SwitchKind::Eth100];

/// Whether a part id is a scale-out switch's.
pub fn is_switch(id: &str) -> bool {
    SCALE_OUT_SWITCHES.iter().any(|k| switch_part(*k).id == id)
}

/// Logical ports per cage of a switch at a port rate: twin-port OSFP (2 ports of 400G per
/// 800G cage) on Quantum-2 and Spectrum-4 at 400G, and Quantum-X800 (2 XDR ports per cage).
pub fn ports_per_cage(kind: SwitchKind, nic: NicKind) -> u32 {
    match (kind, nic) {
        (SwitchKind::Quantum2, _) | (SwitchKind::QuantumX800, _) => 2,
        (SwitchKind::Spectrum4, NicKind::Roce400) => 2,
        _ => 1,
    }
}

/// The NIC part of a cluster's NIC when it sits in a server with no system figure.
pub fn nic_part(nic: NicKind) -> Part {
    let (id, name) = match nic {
        NicKind::IbHdr => ("connectx-6-hdr", "ConnectX-6 HDR 200G"),
        NicKind::IbNdr => ("connectx-7-ndr", "ConnectX-7 NDR 400G"),
        NicKind::IbXdr => ("connectx-8-xdr", "ConnectX-8 SuperNIC XDR 800G"),
        NicKind::Roce400 => ("connectx-7-400gbe", "ConnectX-7 400GbE"),
        NicKind::Roce800 => ("connectx-8-800gbe", "ConnectX-8 SuperNIC 800GbE"),
        NicKind::Eth100Tcp => ("nic-100gbe", "100GbE NIC"),
        // Part of an AWS instance: not sold separately, no power or price of its own.
        NicKind::Efa100 => ("aws-efa-100", "AWS EFA 100G interface"),
        NicKind::Efa200 => ("aws-efa-200", "AWS EFA 200G interface"),
        NicKind::Efa400 => ("aws-efa-400", "AWS EFA 400G interface"),
        NicKind::Roce100 => ("connectx-6dx-100gbe", "ConnectX-6 Dx 100GbE"),
        NicKind::Roce200 => ("connectx-6dx-200gbe", "ConnectX-6 Dx 200GbE"),
        // Part of a GCP A3 Mega VM: not sold separately.
        NicKind::Tcpxo200 => ("gcp-tcpxo-200", "GCP A3 Mega 200G GPU NIC (TCPXO)"),
    };
    match nic {
        NicKind::Efa100 | NicKind::Efa200 | NicKind::Efa400 => {
            part(id, name, PartKind::Nic, None, src!("AWS EC2 User Guide, network cards: part of a rented instance, neither sold nor powered on its own (count only)"))
        }
        NicKind::Tcpxo200 => part(id, name, PartKind::Nic, None, src!("Google Cloud, A3 Mega machine type: part of a rented VM, neither sold nor powered on its own (count only)")),
        _ => part(id, name, PartKind::Nic, None, src!("NVIDIA ConnectX product briefs (rates); no power figure in this catalog")),
    }
}

/// The system part of a DGX-shaped node (8 GPUs of a DGX generation), if there is one.
pub fn dgx_part(gpu: GpuKind, gpus_per_node: u32) -> Option<Part> {
    match (gpu, gpus_per_node) {
        (GpuKind::H100, 8) => Some(DGX_H100),
        (GpuKind::H200, 8) => Some(DGX_H200),
        (GpuKind::B200, 8) => Some(DGX_B200),
        (GpuKind::B300, 8) => Some(DGX_B300),
        _ => None,
    }
}

/// A GPU on its own line, at its TDP (the catalog's figure and source).
pub fn gpu_part(gpu: GpuKind) -> Part {
    part("gpu", gpu.spec().name, PartKind::Gpu, Some(gpu.spec().tdp_w), src!("GPU TDP from the GPU's datasheet (catalog::gpu); host, fans and cooling not counted"))
}

/// A GB200 GPU inside an NVL72 rack: counted, its power inside the rack's figure.
pub const GPU_IN_RACK: Part = inside(part("gb200-gpu", "GB200 Blackwell GPU (in the rack's figure)", PartKind::Gpu, Some(0.0),
    src!("72 per NVL72 rack, inside the rack's figure")));

/// Every id a price book may name.
pub fn known_ids() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = PARTS.iter().map(|p| p.id).collect();
    v.push(FIBER_OTHER.id);
    v.push("gpu");
    for k in SCALE_OUT_SWITCHES {
        v.push(switch_part(k).id);
    }
    for n in NicKind::ALL {
        v.push(nic_part(n).id);
    }
    v
}
