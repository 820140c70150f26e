//! aws-ofi-nccl's region tuner: the algorithm and protocol NCCL runs on AWS EFA instances
//! where the plugin's tuner overrides NCCL's own choice.
//!
//! Source: aws/aws-ofi-nccl @2daf7d30 (2026-08-21), src/tuner/nccl_ofi_regions.cpp. The tuner
//! places each call at the point (log2 bytes, log2 ranks) and returns the first region (a
//! polygon of that plane) that holds it; NCCL then runs that algorithm and protocol (the
//! tuner sets its cost to 0). It steps aside, leaving NCCL's own choice, when the
//! communicator spans 2 nodes or fewer ("the regions are not well defined"), when the
//! platform has no table for the collective, and when no region holds the point.
//!
//! Ported here: the p5/p5e table (8 H100 or H200 per node on 32x 100G EFA) for all_reduce
//! with 8 ranks per node, the one whose rows validation/collectives-amd-efa.csv has. The
//! p5en, p6-b200 and p6-b300 tables are not ported: on those shapes the model keeps NCCL's
//! own choice (and says "not validated" there, no rows being available).

use crate::nccl::tuning::{Algorithm, Func, Protocol};

/// The plugin's `TUNER_MAX_SIZE` (100 GiB) and `TUNER_MAX_RANKS` (2^20): the far corner
/// the open regions are extended to.
const MAX_SIZE: f64 = 100.0 * 1024.0 * 1024.0 * 1024.0;
const MAX_RANKS: f64 = 1024.0 * 1024.0;

/// The instance families the plugin has tables for (`enum nccl_ofi_tuner_platform`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfiPlatform {
    /// p5.48xlarge / p5e.48xlarge: 8 H100 or H200, 32x 100G EFA.
    P5,
}

impl OfiPlatform {
    /// The platform of a node: Hopper GPUs, 8 per node, on 32 interfaces of 100G EFA.
    pub fn of(hopper: bool, gpus_per_node: u32, efa_interfaces: u32, efa_gbps: f64) -> Option<OfiPlatform> {
        (hopper && gpus_per_node == 8 && efa_interfaces == 32 && efa_gbps == 100.0).then_some(OfiPlatform::P5)
    }

    /// The tuner's choice for `func` of `bytes` on `ranks` ranks over `nodes` nodes, if it
    /// makes one.
    pub fn choose(self, func: Func, bytes: u64, ranks: u32, nodes: u32) -> Option<(Algorithm, Protocol)> {
        if nodes <= 2 || ranks != 8 * nodes || func != Func::AllReduce {
            return None;
        }
        let p = (log2(bytes as f64), log2(ranks as f64));
        p5_all_reduce().into_iter().find(|r| inside(p, &r.2)).map(|r| (r.0, r.1))
    }
}

fn log2(v: f64) -> f64 {
    // The plugin maps 0 to 1e-6 before taking the logarithm.
    if v == 0.0 { 1e-6f64.log2() } else { v.log2() }
}

type Pt = (f64, f64);

/// `extend_region`: the point where the line through `a` and `b` (log2 plane) leaves the box
/// of corner `z`, returned in linear units as the plugin does.
fn extend(a: Pt, b: Pt, z: Pt) -> Pt {
    let (a, b, z) = ((log2(a.0), log2(a.1)), (log2(b.0), log2(b.1)), (log2(z.0), log2(z.1)));
    let r = if a.0 == b.0 {
        (a.0, z.1)
    } else if a.1 == b.1 {
        (z.0, a.1)
    } else {
        let m = (a.1 - b.1) / (a.0 - b.0);
        let c = b.1 - m * b.0;
        let zy = m * z.0 + c;
        if zy < z.1 { (z.0, zy) } else { ((z.1 - c) / m, z.1) }
    };
    (r.0.exp2(), r.1.exp2())
}

/// The p5/p5e all_reduce regions for 8 ranks per node, in the plugin's order (first match wins),
/// vertices in (bytes, ranks), taken to the log2 plane.
fn p5_all_reduce() -> Vec<(Algorithm, Protocol, Vec<Pt>)> {
    let far = (MAX_SIZE, MAX_RANKS);
    let ext_tree_ll128 = extend((402653184.0, 2048.0), (402653184.0, 4096.0), far);
    let ext_nvlstree_1 = extend((8053063680.0, 160.0), (9663676416.0, 192.0), far);
    let ext_nvlstree_2 = ext_tree_ll128;
    let ext_ring_simple = ext_nvlstree_1;
    let regions: Vec<(Algorithm, Protocol, Vec<Pt>)> = vec![
        (
            Algorithm::Tree,
            Protocol::Ll128,
            vec![
                (0.0, 16.0),
                (31457280.0, 16.0),
                (37748736.0, 32.0),
                (117440512.0, 64.0),
                (301989888.0, 128.0),
                (301989888.0, 256.0),
                (335544320.0, 512.0),
                (536870912.0, 1024.0),
                (402653184.0, 2048.0),
                (402653184.0, 4096.0),
                ext_tree_ll128,
                (0.0, ext_tree_ll128.1),
            ],
        ),
        (Algorithm::NvlsTree, Protocol::Simple, vec![(31457281.0, 16.0), (MAX_SIZE, 16.0), (31457281.0, 16.0)]),
        (
            Algorithm::Ring,
            Protocol::Ll128,
            vec![
                (31457280.0, 17.0),
                (1073741824.0, 17.0),
                (2147483648.0, 64.0),
                (2147483648.0, 128.0),
                (1342177280.0, 160.0),
                (2147483648.0, 256.0),
                (1074790400.0, 256.0),
                (444596224.0, 160.0),
                (301989888.0, 128.0),
                (117440512.0, 64.0),
                (37748736.0, 32.0),
            ],
        ),
        (
            Algorithm::NvlsTree,
            Protocol::Simple,
            vec![
                (2147483648.0, 128.0),
                (6442450944.0, 128.0),
                (8053063680.0, 160.0),
                (9663676416.0, 192.0),
                ext_nvlstree_1,
                ext_nvlstree_2,
                (402653184.0, 4096.0),
                (402653184.0, 2048.0),
                (536870912.0, 1024.0),
                (335544320.0, 512.0),
                (301989888.0, 256.0),
                (310378496.0, 160.0),
                (444596224.0, 160.0),
                (1074790400.0, 256.0),
                (2684354560.0, 256.0),
                (2147483648.0, 224.0),
                (1342177280.0, 160.0),
            ],
        ),
        (
            Algorithm::Ring,
            Protocol::Simple,
            vec![
                (1073741824.0, 17.0),
                (ext_ring_simple.0, 17.0),
                ext_ring_simple,
                (9663676416.0, 192.0),
                (8053063680.0, 160.0),
                (2684354560.0, 64.0),
                (1610612736.0, 32.0),
            ],
        ),
    ];
    regions.into_iter().map(|(a, p, v)| (a, p, v.into_iter().map(|(x, y)| (log2(x), log2(y))).collect())).collect()
}

/// `is_inside_region`: on an edge counts as inside; otherwise the parity of the crossings of
/// a ray towards a point beyond every region.
fn inside(p: Pt, poly: &[Pt]) -> bool {
    const EPS: f64 = 1e-10;
    let n = poly.len();
    if (0..n).any(|i| on_segment(p, poly[i], poly[(i + 1) % n], EPS)) {
        return true;
    }
    let (lo_x, hi_x) = poly.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v.0), h.max(v.0)));
    let (lo_y, hi_y) = poly.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v.1), h.max(v.1)));
    if p.0 < lo_x || p.0 > hi_x || p.1 < lo_y || p.1 > hi_y {
        return false;
    }
    let e = (log2(2.0 * MAX_SIZE), log2(2.0 * MAX_RANKS));
    let crossings = (0..n).filter(|&i| segments_cross(p, e, poly[i], poly[(i + 1) % n])).count();
    crossings % 2 == 1
}

fn cross(a: Pt, b: Pt) -> f64 {
    a.0 * b.1 - a.1 * b.0
}

fn sub(a: Pt, b: Pt) -> Pt {
    (a.0 - b.0, a.1 - b.1)
}

fn on_segment(p: Pt, a: Pt, b: Pt, eps: f64) -> bool {
    let (ab, ap) = (sub(b, a), sub(p, a));
    let len2 = ab.0 * ab.0 + ab.1 * ab.1;
    if len2 == 0.0 {
        return ap.0.hypot(ap.1) < eps;
    }
    let t = (ap.0 * ab.0 + ap.1 * ab.1) / len2;
    if !(0.0..=1.0).contains(&t) {
        return false;
    }
    (cross(ab, ap).abs() / len2.sqrt()) < eps
}

fn segments_cross(p0: Pt, p1: Pt, q0: Pt, q1: Pt) -> bool {
    let (d, e) = (sub(p1, p0), sub(q1, q0));
    let den = cross(d, e);
    if den == 0.0 {
        return false;
    }
    let w = sub(q0, p0);
    let t = cross(w, e) / den;
    let u = cross(w, d) / den;
    (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(bytes: u64, nodes: u32) -> Option<(Algorithm, Protocol)> {
        OfiPlatform::P5.choose(Func::AllReduce, bytes, 8 * nodes, nodes)
    }

    #[test]
    fn p5_regions_as_the_plugin_draws_them() {
        // Two nodes or fewer: NCCL's own choice.
        assert_eq!(at(1 << 30, 2), None);
        // Small messages run Tree LL128 up to the region's edge (36 MiB at 32 ranks).
        assert_eq!(at(32 << 20, 4), Some((Algorithm::Tree, Protocol::Ll128)));
        assert_eq!(at(100 << 20, 8), Some((Algorithm::Tree, Protocol::Ll128)));
        // Mid sizes Ring LL128, large ones Ring Simple (at 32 ranks beyond ~1.5 GiB).
        assert_eq!(at(256 << 20, 4), Some((Algorithm::Ring, Protocol::Ll128)));
        assert_eq!(at(1 << 30, 4), Some((Algorithm::Ring, Protocol::Ll128)));
        assert_eq!(at(8 << 30, 4), Some((Algorithm::Ring, Protocol::Simple)));
        // 128 ranks between 2 and 6 GiB: NVLSTree Simple.
        assert_eq!(at(4 << 30, 16), Some((Algorithm::NvlsTree, Protocol::Simple)));
        // Other collectives and layouts: no table.
        assert_eq!(OfiPlatform::P5.choose(Func::AllGather, 1 << 30, 32, 4), None);
        assert_eq!(OfiPlatform::P5.choose(Func::AllReduce, 1 << 30, 16, 4), None);
    }
}
