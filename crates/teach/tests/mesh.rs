//! Collectives played on an AMD xGMI mesh: direct links only, the ring's textbook bytes, no NVLS.

use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::topology::{Cluster, CpuVendor};
use fabricscope_model::units::Bytes;
use fabricscope_teach::schedule::End;
use fabricscope_teach::{mesh, schedule, unavailable, Fabric, Instance, LinkKind, Play};

fn mi300x(nodes: u32) -> Instance {
    let c = Cluster {
        gpu: GpuKind::Mi300x,
        nodes,
        gpus_per_node: 8,
        scale_up: ScaleUp::Xgmi,
        nics_per_node: 8,
        nic: NicKind::Roce400,
        nvls: false,
        cpu: CpuVendor::Amd,
        ..Cluster::default()
    };
    Instance::of(&c.topology().expect("an MI300X node is valid"))
}

#[test]
fn an_mi300x_node_is_a_mesh_of_seven_links_per_gpu() {
    let inst = mi300x(1);
    assert_eq!(inst.fabric, Fabric::Mesh { links: 7 });
    assert_eq!(mesh::links(&inst, 0).len(), 28, "8 GPUs fully connected: 8 x 7 / 2 links");
    // An NVIDIA node is a switch.
    assert_eq!(Instance::of(&Cluster::default().topology().unwrap()).fabric, Fabric::Switch);
}

#[test]
fn on_a_mesh_every_transfer_uses_the_direct_link_and_the_ring_sends_its_formula() {
    let inst = mi300x(1);
    for play in [Play::Ring, Play::AllToAll] {
        let s = schedule(play, inst, Bytes(16 << 20)).unwrap();
        for t in s.steps.iter().flat_map(|st| &st.transfers) {
            let (End::Gpu(a), End::Gpu(b)) = (t.from, t.to) else { panic!("{play:?}: a transfer through a switch on a mesh") };
            assert!(a != b && t.link == LinkKind::ScaleUp, "{play:?}: {a}->{b}");
            assert!(mesh::links(&inst, 0).contains(&(a.min(b), a.max(b))), "{play:?}: {a}-{b} is not a mesh link");
        }
        let end = s.frame(s.total());
        let n = inst.ranks() as f64;
        let want = play.factor(inst.ranks(), 1) * s.bytes.as_f64();
        assert!((s.measured(&end) - want).abs() < 1e-6 * want, "{play:?}");
        if play == Play::Ring {
            assert!((want - 2.0 * (n - 1.0) / n * s.bytes.as_f64()).abs() < 1e-6);
        }
    }
}

#[test]
fn a_ring_uses_two_of_seven_links_per_gpu_each_at_a_seventh_of_the_gpu() {
    let inst = mi300x(1);
    let s = schedule(Play::Ring, inst, Bytes(16 << 20)).unwrap();
    let used = mesh::used_links(&s);
    assert_eq!(used.len(), 8, "a ring of 8 GPUs uses 8 of the 28 links");
    for g in 0..8 {
        assert_eq!(used.iter().filter(|(a, b)| *a == g || *b == g).count(), 2, "GPU {g}");
    }
    // One chunk over one link: latency + bytes / (GPU bandwidth / 7).
    let t = &s.steps[0].transfers[0];
    let want = inst.scale_up_latency.0 + t.bytes.as_f64() / (inst.scale_up_bw.0 / 7.0 * 1e3);
    assert!((t.time.0 - want).abs() < 1e-9 * want, "{} vs {want}", t.time.0);
    let note = mesh::note(&s, Some(7)).unwrap();
    assert!(note.contains("2 of each GPU's links") && note.contains("28 links") && note.contains("no NVLS"), "{note}");
}

#[test]
fn a_mesh_has_no_nvls_and_says_why() {
    for nodes in [1, 2] {
        let inst = mi300x(nodes);
        for play in [Play::Nvls, Play::NvlsTree] {
            let why = unavailable(play, &inst).expect("no NVLS on xGMI");
            assert!(why.contains("no switch"), "{why}");
            assert!(schedule(play, inst, Bytes(1 << 20)).is_err());
        }
    }
    // Across two nodes the ring leaves each mesh over a NIC; inside, direct links only.
    let s = schedule(Play::Ring, mi300x(2), Bytes(1 << 20)).unwrap();
    assert!(s.steps.iter().flat_map(|st| &st.transfers).any(|t| t.link == LinkKind::Nic));
    assert!(mesh::note(&schedule(Play::Ring, Instance::of(&Cluster::default().topology().unwrap()), Bytes(1 << 20)).unwrap(), None).is_none());
}
