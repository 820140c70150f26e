//! NCCL 2.27.5's own model outputs (validation/nccl-golden.csv, quoted by
//! meta-pytorch/autoparallel) reproduced within 0.5%: once from the channel graphs the CSV
//! states, once from a cluster description through Fabricscope's topology search.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::nccl::{Algorithm, CommFacts, Func, Graph, Graphs, NcclVersion, Protocol, Tuning};
use fabricscope_model::{Cluster, Comm};

struct Row {
    func: Func,
    algo: Algorithm,
    proto: Protocol,
    nodes: u32,
    gpus_per_node: u32,
    channels: u32,
    channel_bw: f64,
    latency_us: f64,
    algbw: f64,
}

fn rows() -> Vec<Row> {
    let text = include_str!("../../../validation/nccl-golden.csv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.splitn(13, ',').collect();
            Row {
                func: match f[0] {
                    "all_gather" => Func::AllGather,
                    "all_reduce" => Func::AllReduce,
                    "reduce_scatter" => Func::ReduceScatter,
                    other => panic!("unexpected collective {other}"),
                },
                algo: match f[1] {
                    "ring" => Algorithm::Ring,
                    "tree" => Algorithm::Tree,
                    other => panic!("unexpected algorithm {other}"),
                },
                proto: match f[2] {
                    "LL" => Protocol::Ll,
                    "LL128" => Protocol::Ll128,
                    "Simple" => Protocol::Simple,
                    other => panic!("unexpected protocol {other}"),
                },
                nodes: f[3].parse().unwrap(),
                gpus_per_node: f[4].parse().unwrap(),
                channels: f[6].parse().unwrap(),
                channel_bw: f[7].parse().unwrap(),
                latency_us: f[10].parse().unwrap(),
                algbw: f[11].parse().unwrap(),
            }
        })
        .collect()
}

fn close(got: f64, want: f64) -> bool {
    // The CSV rounds to 0.1: allow 0.5% or the rounding, whichever is larger.
    (got - want).abs() <= (want * 0.005).max(0.05)
}

#[test]
fn tuning_tables_match_nccl_2_27_5_outputs() {
    let rows = rows();
    assert_eq!(rows.len(), 15);
    for r in rows {
        let g = Graph { n_channels: r.channels, bw_intra: r.channel_bw, bw_inter: r.channel_bw };
        let graphs = Graphs { ring: g, tree: g, collnet_direct: g, collnet_chain: g, nvls: None, simple_tree: true };
        let facts = CommFacts {
            arch: fabricscope_model::catalog::Arch::Hopper,
            n_ranks: r.nodes * r.gpus_per_node,
            n_nodes: r.nodes,
            amd_cpu: false,
            intra_nvlink: true,
            nvls_support: false,
            collnet: false,
            nvswitch: true,
            latency_inter: 0.0,
            simple_only: false,
        };
        let t = Tuning::new(NcclVersion::V2_27_5.constants(), &facts, &graphs);
        let (lat, bw) = t.entry(r.func, r.algo, r.proto).expect("entry enabled");
        assert!(close(lat, r.latency_us), "{:?} {:?} {:?} {}x8: latency {lat} vs {}", r.func, r.algo, r.proto, r.nodes, r.latency_us);
        assert!(close(bw, r.algbw), "{:?} {:?} {:?} {}x8: algbw {bw} vs {}", r.func, r.algo, r.proto, r.nodes, r.algbw);
    }
}

#[test]
fn cluster_description_reproduces_the_same_tables() {
    for r in rows() {
        let cluster = Cluster {
            gpu: GpuKind::H100,
            nodes: r.nodes,
            gpus_per_node: r.gpus_per_node,
            scale_up: ScaleUp::NvSwitch { gen: 4 },
            nics_per_node: 8,
            nic: NicKind::IbNdr,
            ..Cluster::default()
        };
        let topo = cluster.topology().unwrap();
        let comm = Comm::new(&topo, topo.whole()).unwrap();
        assert_eq!(comm.graphs.ring.n_channels, r.channels);
        assert_eq!(comm.graphs.ring.bw_inter, r.channel_bw);
        let (lat, bw) = comm.tuning().entry(r.func, r.algo, r.proto).expect("entry enabled");
        assert!(close(lat, r.latency_us), "{:?} {:?} {:?} {}x8: latency {lat} vs {}", r.func, r.algo, r.proto, r.nodes, r.latency_us);
        assert!(close(bw, r.algbw), "{:?} {:?} {:?} {}x8: algbw {bw} vs {}", r.func, r.algo, r.proto, r.nodes, r.algbw);
    }
}

#[test]
fn predicted_time_follows_nccl_get_algo_time() {
    // 2x8 AllReduce Ring Simple at 1 GiB: latency x 1.4 (ring plateau) + bytes / (1000 x bw).
    let cluster = Cluster { nodes: 2, ..Cluster::default() };
    let topo = cluster.topology().unwrap();
    let comm = Comm::new(&topo, topo.whole()).unwrap();
    let bytes = 1u64 << 30;
    let t = comm.tuning().time(Func::AllReduce, Algorithm::Ring, Protocol::Simple, bytes).unwrap();
    let want = 131.6 * 1.4 + bytes as f64 / (1000.0 * 204.8);
    assert!((t - want).abs() / want < 0.005, "{t} vs {want}");
    // Tree LL at 4 KiB: the tree correction factor for log2(4096/64) = 6 is 0.7 (LL row).
    let t = comm.tuning().time(Func::AllReduce, Algorithm::Tree, Protocol::Ll, 4096).unwrap();
    let want = 25.2 + 4096.0 / (1000.0 * 16.6 * 0.7);
    assert!((t - want).abs() / want < 0.005, "{t} vs {want}");
}
