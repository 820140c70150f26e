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
