//! What a point-to-point mesh (AMD Infinity Fabric, xGMI) changes in a played collective: which
//! of the mesh's links a ring uses, and why RCCL runs several rings and no NVLS there.

use crate::schedule::{End, Instance, LinkKind, Schedule};

/// The links of one domain's mesh: every pair of its GPUs, as (lower rank, higher rank).
pub fn links(inst: &Instance, domain: u32) -> Vec<(u32, u32)> {
    let g = inst.per_domain;
    let first = domain * g;
    (0..g).flat_map(|a| (a + 1..g).map(move |b| (first + a, first + b))).collect()
}

/// The scale-up links a schedule uses at least once, as (lower rank, higher rank): on a mesh
/// the ring uses 2 of each GPU's links (the one it sends on, the one it receives on).
pub fn used_links(s: &Schedule) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for t in s.steps.iter().flat_map(|st| &st.transfers) {
        if let (End::Gpu(a), End::Gpu(b), LinkKind::ScaleUp) = (t.from, t.to, t.link) {
            let l = (a.min(b), a.max(b));
            if !out.contains(&l) {
                out.push(l);
            }
        }
    }
    out
}

/// What the mesh view explains, for a schedule on a mesh (`None` on a switch or a bus):
/// `channels` is what the model's RCCL runs for the ring on the whole design, when known.
pub fn note(s: &Schedule, channels: Option<u32>) -> Option<String> {
    let links = s.instance.mesh_links()?;
    let g = s.instance.per_domain;
    let pairs = g * (g - 1) / 2;
    let used = used_links(s).iter().filter(|(a, b)| s.instance.domain_of(*a) == s.instance.domain_of(*b)).count() as u32 / s.instance.domains.max(1);
    let per_gpu = match s.play {
        crate::Play::Ring => "This ring uses 2 of each GPU's links (one to send on, one to receive on), so one ring gets 1/".to_string() + &links.to_string() + " of a GPU's xGMI bandwidth.",
        _ => format!("Every transfer takes the direct link between its two GPUs; each link runs at 1/{links} of a GPU's xGMI bandwidth."),
    };
    let rings = match channels {
        Some(c) => format!(" RCCL runs {c} channels at once, on rings that follow different orders of the GPUs, so that every link carries a ring in each direction."),
        None => " RCCL runs several channels at once, on rings that follow different orders of the GPUs, so that every link carries a ring.".to_string(),
    };
    Some(format!(
        "An xGMI mesh: each of the {g} GPUs has its own link to each of the other {links} ({pairs} links, no switch). This play lights {used} of them. {per_gpu}{rings} With no switch nothing reduces in the network, so there is no NVLS: every GPU adds up what its peers send."
    ))
}
