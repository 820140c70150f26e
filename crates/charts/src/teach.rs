//! One frame of a collective played on a small cluster (model `teach::schedule`): domains with
//! their GPUs, scale-up switch and NICs; the chunks of the step under way on their links; how
//! much each GPU has sent against the algorithm's formula. The page plays frames; the CLI
//! writes one.

use crate::svg::Doc;
use crate::theme::Theme;
use fabricscope_teach::{Frame, LinkKind, Play, Schedule};
use fabricscope_teach::schedule::End;

/// Names of the two kinds of link, for the legend (e.g. "NVLink4 + NVSwitch", "InfiniBand NDR").
pub struct LinkNames<'a> {
    pub scale_up: &'a str,
    pub nic: &'a str,
}

/// The names of `topo`'s scale-up and NIC tiers, as its tier table shows them.
pub fn link_names(topo: &fabricscope_model::Topology) -> (String, String) {
    use fabricscope_model::TierKind;
    let name = |k: TierKind| topo.tiers.iter().find(|t| t.kind == k).map(|t| t.name.clone());
    let up = name(TierKind::ScaleUp).or_else(|| name(TierKind::Pcie)).unwrap_or_default();
    (up.clone(), name(TierKind::Nic).unwrap_or(up))
}

fn play_name(p: Play) -> &'static str {
    match p {
        Play::Ring => "Ring AllReduce",
        Play::Tree => "Double binary tree AllReduce",
        Play::Nvls => "NVLS AllReduce",
        Play::NvlsTree => "NVLSTree AllReduce",
        Play::AllToAll => "AllToAll",
        Play::KvHandoff => "KV handoff, prefill node to decode node",
    }
}

/// Bytes in KiB or MiB, for counters.
pub fn size_text(b: f64) -> String {
    if b >= (1u64 << 20) as f64 {
        format!("{:.2} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// Where things sit: GPU centres, each domain's switch bar, the network.
struct Geo {
    /// Domains side by side (else stacked, with the network on the right).
    wide: bool,
    /// GPUs on a circle joined pair by pair (an xGMI mesh), not in a row above a switch.
    mesh: bool,
    gpu: Vec<(f64, f64)>,
    r: f64,
    switch_y: Vec<f64>,
    /// Bottom of each domain's box (the NIC stubs end there).
    bottom: Vec<f64>,
    net: f64,
}

impl Geo {
    fn new(s: &Schedule, w: f64) -> (Geo, f64) {
        let (d, g) = (s.instance.domains as usize, s.instance.per_domain as usize);
        let wide = (w - 16.0) / d as f64 >= 150.0;
        let (cols, cell_w) = if wide { (d, (w - 16.0) / d as f64) } else { (1, w - 56.0) };
        let mesh = s.instance.mesh_links().is_some();
        // A mesh's circle: as wide as the cell allows, at most 110 px across the middle.
        let ring_r = ((cell_w - 60.0) / 2.0).clamp(40.0, 110.0);
        let cell_h = if mesh { 2.0 * ring_r + 92.0 } else { 112.0 };
        let top = 62.0;
        let mut geo = Geo { wide, mesh, gpu: Vec::new(), r: 0.0, switch_y: Vec::new(), bottom: Vec::new(), net: 0.0 };
        let spacing = (cell_w - 16.0) / g as f64;
        geo.r = if mesh { 11.0 } else { (spacing * 0.36).min(11.0) };
        for dom in 0..d {
            let (x0, y0) = (8.0 + (dom % cols) as f64 * cell_w, top + (dom / cols) as f64 * cell_h);
            for k in 0..g {
                geo.gpu.push(if mesh {
                    let a = std::f64::consts::TAU * k as f64 / g as f64 - std::f64::consts::FRAC_PI_2;
                    (x0 + cell_w / 2.0 + ring_r * a.cos(), y0 + 30.0 + ring_r + ring_r * a.sin())
                } else {
                    (x0 + 8.0 + spacing * (k as f64 + 0.5), y0 + 30.0)
                });
            }
            // A mesh's name sits under its lowest GPU and that GPU's counter bar.
            geo.switch_y.push(y0 + if mesh { 2.0 * ring_r + 66.0 } else { 70.0 });
            geo.bottom.push(y0 + cell_h - 12.0);
        }
        let rows = d.div_ceil(cols);
        let h = top + rows as f64 * cell_h;
        geo.net = if wide { h + 6.0 } else { w - 24.0 };
        (geo, h + if wide { 64.0 } else { 70.0 })
    }
    /// Centre of GPU `r` (the origin for a rank the instance does not have).
    fn at(&self, r: u32) -> (f64, f64) {
        self.gpu.get(r as usize).copied().unwrap_or_default()
    }
    fn domain(&self, s: &Schedule, r: u32) -> usize {
        (s.instance.domain_of(r) as usize).min(self.switch_y.len().saturating_sub(1))
    }
    /// The path a transfer's chunk follows.
    fn path(&self, s: &Schedule, from: End, to: End, link: LinkKind) -> Vec<(f64, f64)> {
        match (from, to) {
            (End::Gpu(a), End::Switch(_)) => {
                let p = self.at(a);
                vec![p, (p.0, self.switch_y[self.domain(s, a)])]
            }
            (End::Switch(_), End::Gpu(b)) => {
                let p = self.at(b);
                vec![(p.0, self.switch_y[self.domain(s, b)]), p]
            }
            (End::Gpu(a), End::Gpu(b)) => {
                let (pa, pb) = (self.at(a), self.at(b));
                let (da, db) = (self.domain(s, a), self.domain(s, b));
                if link == LinkKind::ScaleUp && self.mesh {
                    // The mesh's own link between the two GPUs.
                    vec![pa, pb]
                } else if link == LinkKind::ScaleUp {
                    let y = self.switch_y[da];
                    vec![pa, (pa.0, y), (pb.0, y), pb]
                } else {
                    // NIC stubs run beside the scale-up links, right of the GPU.
                    let o = self.r * 0.7;
                    let (xa, xb) = (pa.0 + o, pb.0 + o);
                    if self.wide {
                        vec![pa, (xa, pa.1 + self.r), (xa, self.net), (xb, self.net), (xb, pb.1 + self.r), pb]
                    } else {
                        let (ya, yb) = (self.bottom[da], self.bottom[db]);
                        vec![pa, (xa, pa.1 + self.r), (xa, ya), (self.net, ya), (self.net, yb), (xb, yb), (xb, pb.1 + self.r), pb]
                    }
                }
            }
            _ => Vec::new(),
        }
    }
}

/// Length of a segment (a mesh's links run on the diagonal).
fn seg_len(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.0).hypot(b.1 - a.1)
}

/// The point a fraction `f` of the way along `pts`.
fn along(pts: &[(f64, f64)], f: f64) -> (f64, f64) {
    let len: f64 = pts.windows(2).map(|w| seg_len(w[0], w[1])).sum();
    let mut left = len * f.clamp(0.0, 1.0);
    for w in pts.windows(2) {
        let l = seg_len(w[0], w[1]);
        if left <= l && l > 0.0 {
            let t = left / l;
            return (w[0].0 + (w[1].0 - w[0].0) * t, w[0].1 + (w[1].1 - w[0].1) * t);
        }
        left -= l;
    }
    pts.last().copied().unwrap_or((0.0, 0.0))
}

/// Frame `f` of schedule `s`, `width` pixels wide.
pub fn teach_frame(s: &Schedule, f: &Frame, names: &LinkNames, theme: &Theme, width: u32) -> String {
    let w = width.clamp(300, 1200) as f64;
    let (geo, h) = Geo::new(s, w);
    let mut doc = Doc::new(w as u32, h as u32, theme);
    let (text, muted, grid) = (theme.text.hex(), theme.muted.hex(), theme.axis.hex());
    let (up_c, nic_c) = (theme.series_color(0).hex(), theme.series_color(1).hex());
    let inst = s.instance;
    let g = inst.per_domain as usize;
    let n_steps = s.steps.len();
    doc.text(8.0, 14.0, 13.0, "start", "middle", &text, 600, play_name(s.play));
    doc.text(8.0, 31.0, 12.0, "start", "middle", &muted, 400, &format!("{} per GPU · {} {}{} × {} GPUs", size_text(s.bytes.as_f64()), inst.domains, if inst.rack { "rack" } else { "node" }, if inst.domains > 1 { "s" } else { "" }, g));
    let phase = s.steps.get(f.step).map_or("", |st| st.phase);
    let status = if f.done { format!("done in {:.1} µs ({} steps)", s.total().0, n_steps) } else { format!("step {} of {}: {} · {:.1} of {:.1} µs", f.step + 1, n_steps, phase, f.t.0, s.total().0) };
    doc.text(8.0, 48.0, 12.0, "start", "middle", &text, 400, &status);
    // Domains, switches, links.
    let end = s.frame(s.total());
    let most = end.sent.iter().map(|x| x.0 + x.1).fold(1.0, f64::max);
    let active: Vec<(u32, u32)> = s.steps.get(f.step).filter(|_| !f.done).map_or(Vec::new(), |st| {
        st.transfers.iter().filter_map(|t| match (t.from, t.to, t.link) {
            (End::Gpu(a), End::Gpu(b), LinkKind::ScaleUp) => Some((a.min(b), a.max(b))),
            _ => None,
        }).collect()
    });
    let used = fabricscope_teach::mesh::used_links(s);
    for dom in 0..inst.domains as usize {
        if geo.mesh {
            draw_mesh(&mut doc, &geo, s, dom, &active, &used, theme);
            continue;
        }
        let (x_first, y) = geo.gpu[dom * g];
        let x_last = geo.gpu[dom * g + g - 1].0;
        let pad = geo.r + 8.0;
        doc.rect(x_first - pad, y - 26.0, x_last - x_first + 2.0 * pad, geo.bottom[dom] - y + 22.0, "none", &format!(" stroke=\"{grid}\" rx=\"6\""));
        doc.text(x_first - pad + 4.0, y - 17.0, 10.0, "start", "middle", &muted, 400, &format!("{} {}", if inst.rack { "rack" } else { "node" }, dom + 1));
        let sy = geo.switch_y[dom];
        doc.rect(x_first - geo.r, sy - 4.0, x_last - x_first + 2.0 * geo.r, 8.0, &grid, " rx=\"3\"");
        doc.text((x_first + x_last) / 2.0, sy + 14.0, 10.0, "middle", "middle", &muted, 400, if inst.switch() { "switch" } else { "PCIe / host" });
        for k in 0..g {
            let (cx, cy) = geo.gpu[dom * g + k];
            doc.seg(cx, cy, cx, sy, &up_c, 2.0);
            if inst.domains > 1 {
                let pts = geo.path(s, End::Gpu((dom * g + k) as u32), End::Gpu(((dom * g + k + g) % inst.ranks() as usize) as u32), LinkKind::Nic);
                doc.flush();
                let stub = if geo.wide { &pts[1..3] } else { &pts[1..4] };
                doc.polyline_dashed(stub, &nic_c, 1.0, "3 3");
            }
        }
    }
    if inst.domains > 1 {
        if geo.wide {
            doc.rect(8.0, geo.net - 3.0, w - 16.0, 6.0, &nic_c, " rx=\"3\" opacity=\"0.5\"");
        } else {
            let (y0, y1) = (geo.bottom[0], geo.bottom[inst.domains as usize - 1]);
            doc.rect(geo.net - 3.0, y0 - 6.0, 6.0, y1 - y0 + 12.0, &nic_c, " rx=\"3\" opacity=\"0.5\"");
        }
    }
    doc.flush();
    // GPUs with what each has sent.
    for (r, (cx, cy)) in geo.gpu.iter().enumerate() {
        doc.circle(*cx, *cy, geo.r, &theme.background.hex(), &text, 1.5);
        if geo.r >= 7.0 {
            doc.text(*cx, *cy, 9.0, "middle", "central", &text, 600, &r.to_string());
        }
        let sent = f.sent.get(r).map_or(0.0, |x| x.0 + x.1);
        let bw = geo.r * 2.2;
        doc.rect(cx - bw / 2.0, cy + geo.r + 4.0, bw, 4.0, &theme.grid.hex(), "");
        doc.rect(cx - bw / 2.0, cy + geo.r + 4.0, bw * (sent / most).min(1.0), 4.0, &text, "");
    }
    // Chunks of the step under way: an arrived chunk waits, faded, for the slowest one.
    if let Some(st) = s.steps.get(f.step) {
        for (tr, p) in st.transfers.iter().zip(&f.progress) {
            let pts = geo.path(s, tr.from, tr.to, tr.link);
            let (x, y) = along(&pts, *p);
            let c = theme.series_color(tr.chunk as usize + 2).hex();
            let faded = if *p >= 1.0 && !f.done { " opacity=\"0.45\"" } else { "" };
            doc.rect(x - 4.5, y - 4.5, 9.0, 9.0, &c, &format!(" stroke=\"{text}\" stroke-width=\"0.8\"{faded}"));
        }
    }
    // Legend: one line per link kind when wide, name and rate on two lines when narrow.
    let mut ly = h - if geo.wide { 40.0 } else { 54.0 };
    let up_name = match inst.mesh_links() {
        Some(l) => format!("{} ({l} links per GPU, one per peer; a lit link carries a chunk now)", names.scale_up),
        None => names.scale_up.to_string(),
    };
    let kinds = [(up_name.as_str(), inst.scale_up_bw.0, &up_c, 2.0, ""), (names.nic, inst.nic_bw.0, &nic_c, 1.5, "3 3")];
    for (name, bw, color, width, dash) in kinds.iter().take(if inst.domains > 1 { 2 } else { 1 }) {
        let rate = format!("{bw:.0} GB/s per GPU per direction");
        doc.line_dashed((8.0, ly), (24.0, ly), color, *width, dash);
        if geo.wide {
            doc.text(28.0, ly, 11.0, "start", "middle", &text, 400, &format!("{name} {rate}"));
            ly += 15.0;
        } else {
            doc.text(28.0, ly, 11.0, "start", "middle", &text, 400, name);
            doc.text(28.0, ly + 13.0, 11.0, "start", "middle", &muted, 400, &rate);
            ly += 28.0;
        }
    }
    let (what, formula) = s.play.formula();
    let title = format!("{}: {}; {what} {} of {formula} = {}", play_name(s.play), status, size_text(s.measured(f)), size_text(s.expected()));
    doc.finish(&title)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_teach::{schedule, Instance};
    use fabricscope_model::units::{Bytes, Micros};
    use fabricscope_model::Cluster;

    #[test]
    fn a_frame_mid_ring_shows_every_gpu_and_chunk_and_the_formula() {
        let topo = Cluster { nodes: 2, ..Cluster::default() }.topology().unwrap();
        let s = schedule(Play::Ring, Instance::of(&topo), Bytes(16 << 20)).unwrap();
        let f = s.frame(Micros(s.total().0 / 2.0));
        let names = LinkNames { scale_up: "NVLink4", nic: "NDR" };
        for w in [360, 900] {
            let svg = teach_frame(&s, &f, &names, &Theme::dark(), w);
            assert_eq!(svg.matches("<circle").count(), 16, "{w}");
            // 16 chunks in flight plus the legend has no rects of 9 px.
            assert_eq!(svg.matches("width=\"9.0\"").count(), 16, "{w}");
            assert!(svg.contains("2(n-1)/n x S = 30.00 MiB"), "{w}");
            let (vw, _) = crate::svg_size(&svg);
            assert_eq!(vw, w);
        }
    }

    #[test]
    fn an_xgmi_node_is_drawn_as_a_mesh_with_the_links_in_use_lit() {
        let c = Cluster { gpu: fabricscope_model::catalog::GpuKind::Mi300x, nodes: 1, scale_up: fabricscope_model::catalog::ScaleUp::Xgmi, nvls: false, ..Cluster::default() };
        let s = schedule(Play::Ring, Instance::of(&c.topology().unwrap()), Bytes(16 << 20)).unwrap();
        let f = s.frame(Micros(s.total().0 * 0.01));
        let svg = teach_frame(&s, &f, &LinkNames { scale_up: "xGMI", nic: "" }, &Theme::light(), 900);
        assert_eq!(svg.matches("<circle").count(), 8);
        assert!(svg.contains("xGMI mesh: no switch") && svg.contains("7 links per GPU"));
        // Every GPU on the circle: no two share a row of more than two.
        let geo = Geo::new(&s, 900.0).0;
        let (cx, cy) = geo.gpu.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / 8.0, a.1 + p.1 / 8.0));
        let radii: Vec<f64> = geo.gpu.iter().map(|p| (p.0 - cx).hypot(p.1 - cy)).collect();
        assert!(radii.iter().all(|r| (r - radii[0]).abs() < 1e-6 && *r > 30.0), "{radii:?}");
        // The step under way lights 8 links (the ring's), drawn 4 px wide.
        let lit = svg.split("stroke-width=\"4\" d=\"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("");
        assert_eq!(lit.matches('M').count(), 8, "{svg}");
        // The 20 links the ring does not use stay faint.
        let faint = svg.split("stroke-width=\"0.8\" d=\"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("");
        assert_eq!(faint.matches('M').count(), 20);
    }
}

/// One domain of a mesh: its box, every GPU-to-GPU link faint, the links the play uses in the
/// scale-up colour, the links carrying a chunk now thick, and its NIC stubs.
fn draw_mesh(doc: &mut Doc, geo: &Geo, s: &Schedule, dom: usize, active: &[(u32, u32)], used: &[(u32, u32)], theme: &Theme) {
    let inst = s.instance;
    let (muted, grid, up_c, nic_c) = (theme.muted.hex(), theme.axis.hex(), theme.series_color(0).hex(), theme.series_color(1).hex());
    let g = inst.per_domain as usize;
    let pts = &geo.gpu[dom * g..dom * g + g];
    let (x0, x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, _) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad = geo.r + 18.0;
    doc.rect(x0 - pad, y0 - 26.0, x1 - x0 + 2.0 * pad, geo.bottom[dom] - y0 + 22.0, "none", &format!(" stroke=\"{grid}\" rx=\"6\""));
    doc.text(x0 - pad + 4.0, y0 - 17.0, 10.0, "start", "middle", &muted, 400, &format!("node {}", dom + 1));
    doc.text((x0 + x1) / 2.0, geo.switch_y[dom], 10.0, "middle", "middle", &muted, 400, "xGMI mesh: no switch");
    for (a, b) in fabricscope_teach::mesh::links(&inst, dom as u32) {
        let (pa, pb) = (geo.at(a), geo.at(b));
        let (color, width) = if active.contains(&(a, b)) {
            (&up_c, 4.0)
        } else if used.contains(&(a, b)) {
            (&up_c, 1.6)
        } else {
            (&grid, 0.8)
        };
        doc.seg(pa.0, pa.1, pb.0, pb.1, color, width);
    }
    if inst.domains > 1 {
        for k in 0..g {
            let r = (dom * g + k) as u32;
            let path = geo.path(s, End::Gpu(r), End::Gpu((r + g as u32) % inst.ranks()), LinkKind::Nic);
            doc.flush();
            let stub = if geo.wide { &path[1..3] } else { &path[1..4] };
            doc.polyline_dashed(stub, &nic_c, 1.0, "3 3");
        }
    }
}
