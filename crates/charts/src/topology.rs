//! A drawing of the cluster: spine and leaf switches, scale-up domains with their GPUs, switch
//! and NICs. Large clusters are drawn in aggregate (a few domains and switches, an ellipsis,
//! the last one, and counts), never as thousands of boxes. GPUs are shaded by pipeline stage,
//! TP groups are bracketed, each GPU names its DP replica, and each layer of links is coloured
//! by the parallelism whose traffic crosses it. Plain SVG text, no plotters: it is all boxes.

use crate::svg::{error_svg, escape, Doc};
use crate::text::{text_width, wrap};
use crate::theme::{Rgb, Theme};
use std::fmt::Write;

/// One kind of parallel traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Par {
    Tp,
    Cp,
    Ep,
    Dp,
    Pp,
}

impl Par {
    pub fn name(self) -> &'static str {
        match self {
            Par::Tp => "TP",
            Par::Cp => "CP",
            Par::Ep => "EP",
            Par::Dp => "DP",
            Par::Pp => "PP",
        }
    }
    /// Colour of this parallelism's links and brackets.
    pub fn color(self, theme: &Theme) -> Rgb {
        match self {
            Par::Tp => theme.series[0],
            Par::Dp => theme.series[1],
            Par::Pp => theme.series[2],
            Par::Ep => theme.series[4],
            Par::Cp => theme.series[5],
        }
    }
}

/// Parallel sizes in Megatron's default rank order: TP fastest, then DP, then PP (CP and EP
/// are folded into DP here; the training model's own mapping replaces this when given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
}

impl Layout {
    /// Everything data-parallel.
    pub fn data_parallel(gpus: u32) -> Layout {
        Layout { tp: 1, pp: 1, dp: gpus.max(1) }
    }
    /// (TP rank, DP replica, PP stage) of global GPU `g`.
    pub fn role(&self, g: u32) -> (u32, u32, u32) {
        let tp = self.tp.max(1);
        let dp = self.dp.max(1);
        (g % tp, (g / tp) % dp, g / (tp * dp))
    }
    /// (stride, size) of each parallel dimension in rank order.
    pub fn dims(&self) -> [(Par, u32, u32); 3] {
        let tp = self.tp.max(1);
        let dp = self.dp.max(1);
        [(Par::Tp, 1, tp), (Par::Dp, tp, dp), (Par::Pp, tp * dp, self.pp.max(1))]
    }
}

/// The cluster as the drawing needs it (from the model's topology).
#[derive(Clone, Debug, PartialEq)]
pub struct TopoSpec {
    pub nodes: u32,
    pub gpus_per_node: u32,
    /// GPUs per scale-up domain (a node, or an NVL72 rack).
    pub domain_gpus: u32,
    pub nics_per_node: u32,
    /// 0 when the cluster has no scale-out network.
    pub leaves: u32,
    pub spines: u32,
    /// Core switches above the spines of a three-tier tree (0 below three tiers).
    pub cores: u32,
    pub nodes_per_leaf: u32,
    pub oversubscription: f64,
    /// Scale-up fabric, NIC and switch names.
    pub scale_up: String,
    pub nic: String,
    pub switch: String,
    pub layout: Layout,
}

/// Which parallelism's traffic crosses each layer of links.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Traffic {
    /// GPU to scale-up switch.
    pub scale_up: Vec<Par>,
    /// NIC to leaf.
    pub network: Vec<Par>,
    /// Leaf to spine.
    pub spine: Vec<Par>,
    /// A TP group spans more than one scale-up domain.
    pub tp_leaves_domain: bool,
}

fn total(spec: &TopoSpec) -> u32 {
    spec.nodes.saturating_mul(spec.gpus_per_node)
}

/// Where the groups of `spec.layout` run: for each dimension, whether some group has two
/// members in one domain, in two domains, under two different leaves. Groups of one
/// dimension are translates of each other except at boundaries, so every group is checked.
pub fn megatron_traffic(spec: &TopoSpec) -> Traffic {
    let mut t = Traffic::default();
    let dom = spec.domain_gpus.max(1) as u64;
    let gpn = spec.gpus_per_node.max(1) as u64;
    let npl = spec.nodes_per_leaf.max(1) as u64;
    let n = total(spec) as u64;
    for (par, stride, size) in spec.layout.dims() {
        if size <= 1 {
            continue;
        }
        let (stride, size) = (stride as u64, size as u64);
        let span = stride * (size - 1);
        let (mut inside, mut across, mut spine) = (false, false, false);
        // Group bases: every rank whose index in this dimension is 0 (sampled if many).
        let bases = (0..n).filter(|g| (g / stride) % size == 0);
        for (k, g0) in bases.enumerate() {
            if k > 4096 {
                break;
            }
            let g1 = g0 + span;
            if g1 >= n {
                continue;
            }
            if stride < dom && (g0 / dom == (g0 + stride) / dom) {
                inside = true;
            }
            if g0 / dom != g1 / dom {
                across = true;
            }
            if spec.leaves > 1 && (g0 / gpn) / npl != (g1 / gpn) / npl {
                spine = true;
            }
        }
        if inside {
            t.scale_up.push(par);
        }
        if across {
            t.network.push(par);
            if par == Par::Tp {
                t.tp_leaves_domain = true;
            }
        }
        if spine {
            t.spine.push(par);
        }
    }
    t
}

/// Size of the drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopoOptions {
    pub width: u32,
    pub height: u32,
}

impl Default for TopoOptions {
    fn default() -> Self {
        TopoOptions { width: 920, height: 430 }
    }
}

/// Indices to draw out of `n`: all when they fit in `max`, else the first `max - 1` and the
/// last, with `None` marking the gap.
fn sample(n: u32, max: u32) -> Vec<Option<u32>> {
    let max = max.max(2);
    if n <= max {
        (0..n).map(Some).collect()
    } else {
        let mut v: Vec<Option<u32>> = (0..max - 1).map(Some).collect();
        v.push(None);
        v.push(Some(n - 1));
        v
    }
}

/// The drawing's pen: rounded, stroked boxes and middle-aligned labels on top of the shared
/// SVG writer (which batches the link segments).
struct Svg(Doc);

impl Svg {
    fn new(font: &'static str) -> Svg {
        Svg(Doc::fragment(font))
    }
    fn flush(&mut self) {
        self.0.flush();
    }
    #[allow(clippy::too_many_arguments)]
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, r: f64, fill: &str, stroke: &str) {
        self.0.rect(x, y, w, h, fill, &format!(" rx=\"{r}\" stroke=\"{stroke}\""));
    }
    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, color: &str, width: f64) {
        self.0.seg(x1, y1, x2, y2, color, width);
    }
    #[allow(clippy::too_many_arguments)]
    fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, color: &str, weight: u32, t: &str) {
        self.0.text(x, y, size, anchor, "middle", color, weight, t);
    }
}

fn pars(v: &[Par]) -> String {
    if v.is_empty() {
        "no parallel traffic".into()
    } else {
        v.iter().map(|p| p.name()).collect::<Vec<_>>().join(" + ")
    }
}

/// Draws `spec` with the link colours of `traffic`.
pub fn topology_chart(spec: &TopoSpec, traffic: &Traffic, opts: &TopoOptions, theme: &Theme) -> String {
    let (w, h) = (opts.width.clamp(300, 4000), opts.height.clamp(240, 4000));
    if spec.nodes == 0 || spec.gpus_per_node == 0 || spec.domain_gpus == 0 {
        return error_svg(w, h, theme, "no GPUs to draw");
    }
    let (wf, hf) = (w as f64, h as f64);
    let narrow = w < 560;
    let mut g = Svg::new(theme.font);
    let _ = write!(
        g.0.s,
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" preserveAspectRatio=\"xMidYMid meet\"><title>{}</title>",
        escape(&format!(
            "Topology: {} GPUs in {} domains of {}, {} leaf, {} spine and {} core switches; links carry {} (scale-up), {} (network), {} (spine)",
            total(spec),
            total(spec) / spec.domain_gpus,
            spec.domain_gpus,
            spec.leaves,
            spec.spines,
            spec.cores,
            pars(&traffic.scale_up),
            pars(&traffic.network),
            pars(&traffic.spine)
        ))
    );
    let bg = theme.background.hex();
    let text = theme.text.hex();
    let muted = theme.muted.hex();
    let grid = theme.grid.hex();
    let axis = theme.axis.hex();
    g.rect(0.0, 0.0, wf, hf, 0.0, &bg, "none");

    let fs = if narrow { 11.0 } else { 12.0 };
    let pad = if narrow { 8.0 } else { 14.0 };
    let label_w = if narrow { 0.0 } else { 96.0 };
    let x0 = pad + label_w;
    let inner = wf - x0 - pad;

    // What the links carry, then the warning, where the eye lands.
    let mut top = pad + 6.0;
    let caption = if spec.leaves > 0 && spec.nics_per_node > 0 {
        format!(
            "{} · {}:1 oversubscription · NIC links carry {}{}",
            spec.switch,
            {
                let v = spec.oversubscription;
                if v >= 10.0 { format!("{v:.0}") } else { format!("{v:.2}").trim_end_matches('0').trim_end_matches('.').to_string() }
            },
            pars(&traffic.network),
            if spec.leaves > 1 && spec.spines > 0 { format!(" · spine links carry {}", pars(&traffic.spine)) } else { String::new() }
        )
    } else {
        format!("one scale-up domain, no scale-out network · {} links carry {}", spec.scale_up, pars(&traffic.scale_up))
    };
    for l in wrap(&caption, fs - 0.5, false, wf - 2.0 * pad) {
        g.text(pad, top, fs - 0.5, "start", &muted, 400, &l);
        top += 16.0;
    }
    top += 4.0;
    if traffic.tp_leaves_domain {
        let err = if theme.dark { "#ff8a80" } else { "#b42318" };
        let warn = format!(
            "⚠ TP {} leaves the {}-GPU scale-up domain: its AllReduces cross the network",
            spec.layout.tp, spec.domain_gpus
        );
        for l in wrap(&warn, fs + 1.0, true, wf - 2.0 * pad) {
            g.text(pad, top, fs + 1.0, "start", err, 650, &l);
            top += 18.0;
        }
        top += 2.0;
    }

    let link_color = |v: &[Par]| v.first().map(|p| p.color(theme).hex()).unwrap_or_else(|| axis.clone());
    let has_net = spec.leaves > 0 && spec.nics_per_node > 0;
    let two_level = spec.leaves > 1 && spec.spines > 0;
    let three_level = two_level && spec.cores > 0;
    let sw_h = 24.0;
    let core_y = top + 4.0;
    let spine_y = if three_level { core_y + 74.0 } else { top + 4.0 };
    let leaf_y = if two_level { spine_y + 74.0 } else { top + 4.0 };
    let dom_y = if has_net { leaf_y + sw_h + 56.0 } else { top + 10.0 };
    // The legend's rows, laid out now: its height comes out of the drawing's.
    let legend_items: Vec<(String, String, bool)> = {
        let mut v = vec![
            (Par::Tp.color(theme).hex(), format!("TP {}", spec.layout.tp), false),
            // The drawing's data-parallel axis is the gradient group, which spans CP too
            // (Megatron reduces gradients over DP x CP); GPU boxes carry its rank, d<rank>.
            (Par::Dp.color(theme).hex(), format!("DP×CP {} (d = its rank)", spec.layout.dp), false),
            (Par::Pp.color(theme).hex(), format!("PP {}", spec.layout.pp), false),
        ];
        v.push((String::new(), if narrow { "shade = stage".into() } else { "GPU shade = pipeline stage".into() }, true));
        v
    };
    let item_w = |label: &str| 20.0 + text_width(label, fs - 1.0, false) + if narrow { 10.0 } else { 18.0 };
    let mut legend_rows = 1;
    {
        let mut lx = pad;
        for (_, label, _) in &legend_items {
            if lx > pad && lx + item_w(label) > wf - pad {
                legend_rows += 1;
                lx = pad;
            }
            lx += item_w(label);
        }
    }
    let legend_h = 10.0 + legend_rows as f64 * 16.0;
    // A frame too short for the domains grows the drawing (a viewBox scales it back).
    let (h0, hf) = (h, hf.max(dom_y + 120.0 + legend_h + pad).ceil());
    let h = hf as u32;
    let dom_h = hf - dom_y - legend_h - pad;

    // Domains to draw and their boxes.
    let domains = total(spec) / spec.domain_gpus;
    let max_dom = if narrow { 2 } else if spec.domain_gpus > 16 { 3 } else { 4 };
    let dom_sample = sample(domains, max_dom);
    let slots = dom_sample.len() as f64;
    let gap_w = 26.0;
    let n_real = dom_sample.iter().filter(|d| d.is_some()).count() as f64;
    let n_gaps = slots - n_real;
    let dom_gap = 12.0;
    let dom_w = ((inner - n_gaps * gap_w - (slots - 1.0) * dom_gap) / n_real.max(1.0)).max(40.0);
    let mut dom_x = Vec::new();
    let mut x = x0;
    for d in &dom_sample {
        match d {
            Some(i) => {
                dom_x.push((Some(*i), x));
                x += dom_w + dom_gap;
            }
            None => {
                dom_x.push((None, x));
                x += gap_w + dom_gap;
            }
        }
    }

    // Switch rows.
    let row = |g: &mut Svg, y: f64, n: u32, max: u32, name: &str| -> Vec<(Option<u32>, f64, f64)> {
        let s = sample(n, max);
        let cnt = s.len() as f64;
        let sgap = 10.0;
        let bw = ((inner - (cnt - 1.0) * sgap) / cnt).min(120.0);
        let used = cnt * bw + (cnt - 1.0) * sgap;
        let mut xx = x0 + (inner - used) / 2.0;
        let mut out = Vec::new();
        for i in s {
            match i {
                Some(k) => {
                    g.rect(xx, y, bw, sw_h, 5.0, &grid, &axis);
                    if bw > 34.0 {
                        g.text(xx + bw / 2.0, y + sw_h / 2.0, fs - 1.0, "middle", &text, 500, &format!("{}{}", &name[..1], k));
                    }
                    out.push((Some(k), xx, bw));
                }
                None => {
                    g.text(xx + bw / 2.0, y + sw_h / 2.0, fs + 2.0, "middle", &muted, 700, "…");
                    out.push((None, xx, bw));
                }
            }
            xx += bw + sgap;
        }
        out
    };
    let max_sw = if narrow { 4 } else { 8 };
    let mut leaf_boxes = Vec::new();
    let mut spine_boxes = Vec::new();
    if has_net {
        if two_level {
            spine_boxes = row(&mut g, spine_y, spec.spines, max_sw, "spine");
        }
        if three_level {
            let core_boxes = row(&mut g, core_y, spec.cores, max_sw, "core");
            // Spine-to-core links: every drawn spine to every drawn core (the traffic that
            // leaves a pod; coloured like the spine links, which carry it first).
            let c = link_color(&traffic.spine);
            for (_, sx, sw) in spine_boxes.iter().filter(|b| b.0.is_some()) {
                for (_, cx, cw) in core_boxes.iter().filter(|b| b.0.is_some()) {
                    g.line(sx + sw / 2.0, spine_y, cx + cw / 2.0, core_y + sw_h, &c, 1.0);
                }
            }
        }
        leaf_boxes = row(&mut g, leaf_y, spec.leaves, max_sw, "leaf");
        // Leaf-to-spine links: every drawn leaf to every drawn spine.
        if two_level {
            let c = link_color(&traffic.spine);
            let wdt = if traffic.spine.is_empty() { 1.0 } else { 1.5 };
            for (_, lx, lw) in leaf_boxes.iter().filter(|b| b.0.is_some()) {
                for (_, sx, sw) in spine_boxes.iter().filter(|b| b.0.is_some()) {
                    g.line(lx + lw / 2.0, leaf_y, sx + sw / 2.0, spine_y + sw_h, &c, wdt);
                }
            }
        }
        // Row labels and counts, left of the rows.
        if !narrow {
            if three_level {
                g.text(pad, core_y + 6.0, fs, "start", &text, 600, "Core");
                g.text(pad, core_y + 21.0, fs - 1.0, "start", &muted, 400, &format!("{} switches", spec.cores));
            }
            if two_level {
                g.text(pad, spine_y + 6.0, fs, "start", &text, 600, "Spine");
                g.text(pad, spine_y + 21.0, fs - 1.0, "start", &muted, 400, &format!("{} switches", spec.spines));
            }
            g.text(pad, leaf_y + 6.0, fs, "start", &text, 600, "Leaf");
            g.text(pad, leaf_y + 21.0, fs - 1.0, "start", &muted, 400, &format!("{} switch{}", spec.leaves, if spec.leaves == 1 { "" } else { "es" }));
        } else {
            g.text(wf - pad, leaf_y + sw_h + 12.0, fs - 1.0, "end", &muted, 400, &format!(
                    "{} leaves{}{}",
                    spec.leaves,
                    if two_level { format!(" · {} spines", spec.spines) } else { String::new() },
                    if three_level { format!(" · {} cores", spec.cores) } else { String::new() }
                ));
        }
    }
    if !narrow {
        g.text(pad, dom_y + 10.0, fs, "start", &text, 600, "Scale-up");
        g.text(pad, dom_y + 26.0, fs - 1.0, "start", &muted, 400, &format!("{} domain{}", total(spec) / spec.domain_gpus, if total(spec) / spec.domain_gpus == 1 { "" } else { "s" }));
    }

    // Leaf groups: which leaves a node's NICs reach.
    let npl = spec.nodes_per_leaf.max(1);
    let groups = spec.nodes.div_ceil(npl).max(1);
    let leaves_per_group = (spec.leaves / groups).max(1);
    let nodes_per_domain = (spec.domain_gpus / spec.gpus_per_node).max(1);
    let pp_color = theme.series[3];
    let layout = spec.layout;
    let stages = layout.pp.max(1);
    let net_c = link_color(&traffic.network);
    let su_c = link_color(&traffic.scale_up);

    // Domains are drawn over their links: links go into `g` first, boxes into `dg`.
    let mut dg = Svg::new(theme.font);
    for (d, dx) in &dom_x {
        let Some(d) = d else {
            dg.text(dx + gap_w / 2.0, dom_y + dom_h / 2.0, fs + 4.0, "middle", &muted, 700, "…");
            dg.text(dx + gap_w / 2.0, dom_y + dom_h / 2.0 + 18.0, fs - 2.0, "middle", &muted, 400, &format!("{}", domains.saturating_sub(dom_x.iter().filter(|v| v.0.is_some()).count() as u32)));
            continue;
        };
        let (dx, d) = (*dx, *d);
        // The box goes under its content, sized to it: write the content first, then splice.
        let box_at = dg.0.s.len();
        let first_node = d * nodes_per_domain;
        let title = if nodes_per_domain > 1 {
            format!("domain {d} · {} trays", nodes_per_domain)
        } else {
            format!("node {first_node}")
        };
        dg.text(dx + 8.0, dom_y + 12.0, fs - 1.0, "start", &text, 600, &title);
        let gx = dx + 8.0;
        let avail_w = dom_w - 16.0;

        // NICs on top, where their links leave for the leaves.
        let nic_h = if has_net { 16.0 } else { 0.0 };
        if has_net {
            let nics = spec.nics_per_node * nodes_per_domain;
            let ny = dom_y + 22.0;
            if nics <= 16 && avail_w / nics as f64 >= 7.0 {
                let nw = avail_w / nics as f64;
                for k in 0..nics {
                    dg.rect(gx + k as f64 * nw + 1.0, ny, nw - 2.0, 8.0, 2.0, &axis, "none");
                }
            } else {
                dg.rect(gx, ny, avail_w, 8.0, 2.0, &axis, "none");
            }
            dg.text(dx + dom_w - 8.0, dom_y + 12.0, fs - 2.0, "end", &muted, 400, &format!("{nics} NICs"));
            let group = (first_node / npl).min(groups - 1);
            let lo = group * leaves_per_group;
            let hi = if spec.leaves <= 1 { 1 } else { (lo + leaves_per_group).min(spec.leaves) };
            let mut targets: Vec<f64> = leaf_boxes
                .iter()
                .filter(|b| b.0.is_some_and(|k| k >= lo && k < hi))
                .map(|b| b.1 + b.2 / 2.0)
                .collect();
            if targets.is_empty() {
                // The leaves of this group are in the elided run.
                targets = leaf_boxes.iter().filter(|b| b.0.is_none()).map(|b| b.1 + b.2 / 2.0).collect();
            }
            let nw = if traffic.network.is_empty() { 1.0 } else { 1.8 };
            let n_t = targets.len().max(1) as f64;
            for (k, tx) in targets.iter().enumerate() {
                let sx = gx + avail_w * (k as f64 + 0.5) / n_t;
                // Side by side when several parallelisms share the NICs.
                for (j, p) in traffic.network.iter().enumerate().take(3) {
                    let off = (j as f64 - (traffic.network.len().min(3) as f64 - 1.0) / 2.0) * 3.0;
                    g.line(sx + off, ny, tx + off, leaf_y + sw_h, &p.color(theme).hex(), nw);
                }
                if traffic.network.is_empty() {
                    g.line(sx, ny, *tx, leaf_y + sw_h, &net_c, nw);
                }
            }
        }

        // GPUs in a grid.
        let n = spec.domain_gpus;
        let gy = dom_y + 22.0 + nic_h;
        let avail_h = dom_h - (gy - dom_y) - 14.0 - 14.0;
        let mut cols = n;
        // Fewest rows whose cells stay at least as wide as tall.
        for r in 1..=n {
            let c = n.div_ceil(r);
            let cw = avail_w / c as f64;
            let ch = avail_h / r as f64;
            if cw >= ch.min(40.0) * 0.8 || c == 1 {
                cols = c;
                break;
            }
        }
        let rows = n.div_ceil(cols);
        let cell_w = avail_w / cols as f64;
        let cell_h = (avail_h / rows as f64).min(cell_w * 1.2).min(44.0);
        let base = d * spec.domain_gpus;
        let show_text = cell_w >= 22.0 && cell_h >= 16.0;
        for i in 0..n {
            let (r, c) = (i / cols, i % cols);
            let x = gx + c as f64 * cell_w + 1.5;
            let y = gy + r as f64 * cell_h + 1.5;
            let gg = base + i;
            let (tpi, dpi, ppi) = layout.role(gg);
            // GPUs past the layout's last rank stay idle (its DP does not use them all).
            let idle = ppi >= stages;
            let shade = if idle {
                0.04
            } else if stages > 1 {
                0.25 + 0.6 * ppi as f64 / (stages - 1) as f64
            } else {
                0.45
            };
            let _ = write!(
                dg.0.s,
                "<rect class=\"gpu\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"{}\" fill-opacity=\"{shade:.2}\" stroke=\"{}\" stroke-width=\"1\"/>",
                cell_w - 3.0,
                cell_h - 7.0,
                pp_color.hex(),
                pp_color.hex()
            );
            if show_text {
                let label = if idle { "idle".to_string() } else { format!("d{dpi}") };
                dg.text(x + (cell_w - 3.0) / 2.0, y + (cell_h - 7.0) / 2.0, (fs - 2.0).min(cell_h * 0.45), "middle", &text, 500, &label);
            }
            // TP bracket under the GPU, joined with its TP neighbours.
            if layout.tp > 1 && !idle {
                let tpc = Par::Tp.color(theme).hex();
                let by = y + cell_h - 4.5;
                let x1 = x - if tpi > 0 && c > 0 { 3.0 } else { 0.0 };
                dg.line(x1, by, x + cell_w - 3.0, by, &tpc, 2.5);
            }
        }
        // Scale-up switch bar under the GPUs, with their links.
        let sw_y = gy + rows as f64 * cell_h + 6.0;
        for c in 0..cols.min(n) {
            let cx = gx + c as f64 * cell_w + cell_w / 2.0;
            dg.line(cx, sw_y - 6.0, cx, sw_y, &su_c, if traffic.scale_up.is_empty() { 1.0 } else { 2.0 });
        }
        dg.rect(gx, sw_y, avail_w, 14.0, 3.0, &grid, &su_c);
        let short = spec.scale_up.split(" (").next().unwrap_or(&spec.scale_up).to_string();
        dg.text(gx + avail_w / 2.0, sw_y + 7.5, (fs - 2.0).min(11.0), "middle", &text, 500, &short);
        let box_h = (sw_y + 14.0 + 10.0 - dom_y).min(dom_h);
        let mut b = Svg::new(theme.font);
        b.rect(dx, dom_y, dom_w, box_h, 8.0, &bg, &axis);
        dg.0.s.insert_str(box_at, &b.0.s);
    }
    g.flush();
    dg.flush();
    g.0.s.push_str(&dg.0.s);

    // Legend, in rows from the bottom of the drawing.
    let mut ly = hf - pad - 8.0 - (legend_rows - 1) as f64 * 16.0;
    let mut lx = pad;
    for (c, label, swatch_box) in legend_items {
        if lx > pad && lx + item_w(&label) > wf - pad {
            lx = pad;
            ly += 16.0;
        }
        if swatch_box {
            let _ = write!(g.0.s, "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"14\" height=\"10\" rx=\"2\" fill=\"{}\" fill-opacity=\"0.55\"/>", ly - 5.0, pp_color.hex());
        } else {
            g.line(lx, ly, lx + 16.0, ly, &c, 3.0);
        }
        g.text(lx + 20.0, ly, fs - 1.0, "start", &text, 400, &label);
        lx += item_w(&label);
    }
    g.flush();
    g.0.s.push_str("</svg>");
    if h != h0 {
        g.0.s = g.0.s
            .replacen(&format!("height=\"{h0}\" viewBox=\"0 0 {w} {h0}\""), &format!("height=\"{h}\" viewBox=\"0 0 {w} {h}\""), 1)
            .replacen(&format!("height=\"{:.1}\"", h0 as f64), &format!("height=\"{hf:.1}\""), 1);
    }
    g.0.s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(nodes: u32, layout: Layout) -> TopoSpec {
        TopoSpec {
            nodes,
            gpus_per_node: 8,
            domain_gpus: 8,
            nics_per_node: 8,
            leaves: if nodes <= 8 { 1 } else { nodes / 4 },
            spines: if nodes <= 8 { 0 } else { nodes / 8 },
            cores: 0,
            nodes_per_leaf: if nodes <= 8 { nodes } else { 32 },
            oversubscription: 1.0,
            scale_up: "NVLink4 + NVSwitch".into(),
            nic: "InfiniBand NDR 400G".into(),
            switch: "Quantum-2".into(),
            layout,
        }
    }

    #[test]
    fn megatron_order_puts_tp_inside_and_dp_pp_on_the_network() {
        let s = pod(128, Layout { tp: 8, pp: 4, dp: 32 });
        let t = megatron_traffic(&s);
        assert_eq!(t.scale_up, vec![Par::Tp]);
        assert_eq!(t.network, vec![Par::Dp, Par::Pp]);
        // DP groups span 32 nodes = one leaf group; PP groups cross leaves.
        assert_eq!(t.spine, vec![Par::Pp]);
        assert!(!t.tp_leaves_domain);
        assert_eq!(s.layout.role(8 * 32), (0, 0, 1));
        assert_eq!(s.layout.role(9), (1, 1, 0));
    }

    #[test]
    fn tp_16_on_8_gpu_nodes_is_flagged() {
        let s = pod(4, Layout { tp: 16, pp: 1, dp: 2 });
        let t = megatron_traffic(&s);
        assert!(t.tp_leaves_domain);
        assert!(t.network.contains(&Par::Tp) && t.scale_up.contains(&Par::Tp));
        let svg = topology_chart(&s, &t, &TopoOptions::default(), &Theme::light());
        assert!(crate::texts(&svg).iter().any(|x| x.starts_with("⚠ TP 16 leaves")), "{:?}", crate::texts(&svg));
    }

    #[test]
    fn large_clusters_are_drawn_in_aggregate() {
        let s = pod(2048, Layout::data_parallel(16384));
        let t = megatron_traffic(&s);
        assert_eq!(t.scale_up, vec![Par::Dp]);
        let svg = topology_chart(&s, &t, &TopoOptions::default(), &Theme::dark());
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        // 4 domains of 8 GPUs drawn, not 16384.
        assert_eq!(svg.matches("class=\"gpu\"").count(), 32);
        assert!(svg.len() < 60_000, "{} bytes", svg.len());
        assert!(crate::texts(&svg).iter().any(|x| x == "512 switches"), "{:?}", crate::texts(&svg));
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
        let narrow = topology_chart(&s, &t, &TopoOptions { width: 400, height: 460 }, &Theme::light());
        assert_eq!(narrow.matches("class=\"gpu\"").count(), 16);
    }

    #[test]
    fn three_tier_trees_draw_their_cores_above_the_spines() {
        // 1024 nodes x 8 NICs, not rail-optimized: 256 leaves, 256 spines, 128 cores.
        let s = TopoSpec { leaves: 256, spines: 256, cores: 128, nodes_per_leaf: 4, ..pod(1024, Layout::data_parallel(8192)) };
        let svg = topology_chart(&s, &megatron_traffic(&s), &TopoOptions::default(), &Theme::light());
        let texts = crate::texts(&svg);
        let y_of = |label: &str| svg.split("<text").find(|t| t.contains(&format!(">{label}<"))).and_then(|t| t.split("y=\"").nth(1)).and_then(|t| t.split('"').next()).and_then(|y| y.parse::<f64>().ok());
        assert!(texts.iter().any(|x| x == "128 switches"), "{texts:?}");
        let (core, spine, leaf) = (y_of("Core").unwrap(), y_of("Spine").unwrap(), y_of("Leaf").unwrap());
        assert!(core < spine && spine < leaf, "{core} {spine} {leaf}");
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }

    #[test]
    fn single_node_and_nvl72_draw() {
        let mut s = pod(1, Layout { tp: 8, pp: 1, dp: 1 });
        s.nics_per_node = 0;
        s.leaves = 0;
        let t = megatron_traffic(&s);
        assert!(t.network.is_empty());
        let svg = topology_chart(&s, &t, &TopoOptions::default(), &Theme::light());
        assert_eq!(svg.matches("class=\"gpu\"").count(), 8);
        let nvl = TopoSpec { nodes: 72, gpus_per_node: 4, domain_gpus: 72, nics_per_node: 4, leaves: 9, spines: 5, nodes_per_leaf: 8, ..pod(72, Layout { tp: 8, pp: 2, dp: 18 }) };
        let t = megatron_traffic(&nvl);
        assert_eq!(t.scale_up, vec![Par::Tp, Par::Dp]);
        let svg = topology_chart(&nvl, &t, &TopoOptions::default(), &Theme::light());
        assert_eq!(svg.matches("class=\"gpu\"").count(), 72 * 3);
        let bad = topology_chart(&TopoSpec { nodes: 0, ..nvl }, &t, &TopoOptions::default(), &Theme::light());
        assert!(bad.contains("no GPUs"));
    }
}
