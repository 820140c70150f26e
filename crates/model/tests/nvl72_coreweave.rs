//! CoreWeave's GB200 NVL72 all_reduce runs in one, two and twenty racks (NCCL 2.26.2, MNNVL,
//! InfiniBand between racks; validation/collectives-nvl72-racks.csv, released from the reserved
//! sources on 2026-12-06), timed with `--nccl 2.26.2`: NVLS inside one rack, NVLSTree across
//! racks, trays of 4 GPUs with one NDR NIC per GPU (the NIC count is not stated by the source).
//!
//! One and two racks are held within 20% (median over the rows of each). The twenty-rack run
//! had NVLS off (NCCL_NVLS_ENABLE=0 in the job's script, coreweave/nccl-tests pull request 48);
//! judged so (docs/collective-accuracy.md) the model's Tree and Ring are still +47% to +210%,
//! issue 35's open item, not asserted here.

mod common;

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::nccl::NcclVersion;
use fabricscope_model::topology::Placement;
use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, ProtoChoice};

/// (racks, bytes, measured busbw GB/s) from the CSV.
fn rows() -> Vec<(u32, u64, f64)> {
    let t = common::read_csv(include_str!("../../../validation/collectives-nvl72-racks.csv"));
    let col = |n: &str| t[0].iter().position(|h| h == n).expect(n);
    let (g, b, bw, v) = (col("gpus"), col("message_bytes"), col("busbw_GBps"), col("nccl_version"));
    t[1..]
        .iter()
        .map(|r| {
            assert!(r[v].starts_with("2.26.2"), "{:?}", r[v]);
            (r[g].parse::<u32>().unwrap() / 72, r[b].parse().unwrap(), r[bw].parse().unwrap())
        })
        .collect()
}

fn model_busbw(racks: u32, bytes: u64) -> f64 {
    let c = Cluster {
        gpu: GpuKind::Gb200,
        scale_up: ScaleUp::Nvl72,
        gpus_per_node: 4,
        nodes: 18 * racks,
        nics_per_node: 4,
        nic: NicKind::IbNdr,
        sharp: false,
        nccl: NcclVersion::from_id("2.26.2").expect("the CLI offers --nccl 2.26.2"),
        ..Cluster::default()
    };
    let t = c.topology().expect("buildable");
    let comm = Comm::new(&t, Placement { ranks: 72 * racks, per_domain: 72 }).expect("whole racks");
    comm.predict(Collective::AllReduce, Bytes(bytes), AlgoChoice::Auto, ProtoChoice::Auto).expect("runs").busbw.0
}

fn median_error(racks: u32) -> f64 {
    let mut e: Vec<f64> = rows().into_iter().filter(|r| r.0 == racks).map(|(n, b, m)| ((model_busbw(n, b) - m) / m).abs()).collect();
    assert_eq!(e.len(), 3, "{racks} racks: three rows");
    e.sort_by(|a, b| a.total_cmp(b));
    e[1]
}

#[test]
fn one_and_two_racks_within_20_percent() {
    for racks in [1, 2] {
        let m = median_error(racks);
        assert!(m <= 0.20, "{racks} racks: median {:.1}%", m * 100.0);
    }
}

/// The channels NCCL 2.26.2 runs Ring and Tree on across GB200 racks, from its source: the
/// search's 15 rings (one NIC each) duplicated to 30 (src/graph/connect.cc:452), and with NVLS
/// on copied up to NVLS's 32 channels (connect.cc:493-494; `NVLS_NCHANNELS_SM100`,
/// src/transport/nvls.cc:148). With NCCL_NVLS_ENABLE=0, as the twenty-rack job ran, NVLS has no
/// channels (nvls.cc:152-157) and 30 stay: two on each of the 15 NICs, none busier. 2.27.5's
/// search finds 16 rings: 32 either way. The same copy takes 8 NDR NICs of B200 nodes from 16
/// channels to 32.
#[test]
fn nvls_pads_the_rings_to_its_channel_count_only_when_on() {
    let channels = |gpu: GpuKind, gpn: u32, nodes: u32, nccl: NcclVersion, nvls: bool| {
        let scale_up = if gpu == GpuKind::Gb200 { ScaleUp::Nvl72 } else { ScaleUp::NvSwitch { gen: 5 } };
        let c = Cluster { gpu, scale_up, gpus_per_node: gpn, nodes, nics_per_node: gpn, nic: NicKind::IbNdr, nvls, nccl, ..Cluster::default() };
        let t = c.topology().expect("a buildable cluster");
        Comm::new(&t, t.whole()).expect("the whole cluster").channels("Ring")
    };
    for racks in [2, 20] {
        assert_eq!(channels(GpuKind::Gb200, 4, 18 * racks, NcclVersion::V2_26_2, false), 30, "{racks} racks, NVLS off");
        assert_eq!(channels(GpuKind::Gb200, 4, 18 * racks, NcclVersion::V2_26_2, true), 32, "{racks} racks, NVLS on");
        assert_eq!(channels(GpuKind::Gb200, 4, 18 * racks, NcclVersion::V2_27_5, false), 32, "{racks} racks, 2.27.5");
    }
    assert_eq!(channels(GpuKind::B200, 8, 4, NcclVersion::V2_27_5, false), 16);
    assert_eq!(channels(GpuKind::B200, 8, 4, NcclVersion::V2_27_5, true), 32);
}
