//! The fat tree with its loaded links (crates/flow's `link_loads`): leaves, spines and cores
//! of the first plane, each switch pair's links coloured and widened by utilisation, failed
//! links dashed, the bottleneck tier highlighted. Large tiers are drawn in part (at most
//! [`MAX_SHOWN`] switches per tier, then "…"); parallel links between two switches are one
//! line that says how many links it stands for (`data-links`).

use crate::svg::Doc;
use crate::text::fit;
use crate::theme::Theme;
use fabricscope_flow::graph::LinkTier;
use fabricscope_flow::Loads;
use fabricscope_model::topology::SwitchLevel;
use std::fmt::Write;

/// Most switches drawn per tier (count): 16 leaves stay legible at phone width.
pub const MAX_SHOWN: usize = 16;

/// Utilisation at or above which a link counts as full (dimensionless: max-min rates fill a
/// bottleneck to float precision, so 0.95 only separates full links from nearly full ones).
pub const FULL: f64 = 0.95;

/// Size and words of the drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadsOptions {
    pub width: u32,
    /// The tier the study found limiting ("nic", "leaf-spine" or "spine-core").
    pub bottleneck_tier: String,
    /// What the loads are of (e.g. "the median of 16 ECMP seeds"), for the title.
    pub what: String,
}

/// One drawn line: the links between two switches (one direction pair each).
#[derive(Clone, Copy, Debug, Default)]
struct Bundle {
    links: u32,
    failed: u32,
    /// Highest utilisation of either direction of any live link.
    util: f64,
}

/// Which bin a utilisation falls in: 0 idle, 1 under half, 2 under [`FULL`], 3 full.
fn bin(u: f64) -> usize {
    if u <= 1e-9 {
        0
    } else if u < 0.5 {
        1
    } else if u < FULL {
        2
    } else {
        3
    }
}

/// Colour and stroke width of a bin.
fn stroke(theme: &Theme, b: usize) -> (String, f64) {
    match b {
        0 => (theme.axis.hex(), 1.0),
        1 => (theme.series[0].hex(), 2.0),
        2 => (theme.series[1].hex(), 3.5),
        _ => (theme.series[4].hex(), 5.0),
    }
}

/// The switches of one level in plane 0, in id order.
fn level(l: &Loads, lv: SwitchLevel) -> Vec<u32> {
    l.fabric.switches.iter().enumerate().filter(|(_, s)| s.level == lv && s.plane == 0).map(|(i, _)| i as u32).collect()
}

/// The first [`MAX_SHOWN`] - 1 switches and whether more were left out (all when they fit).
fn shown(ids: &[u32]) -> (&[u32], usize) {
    if ids.len() <= MAX_SHOWN {
        (ids, 0)
    } else {
        (&ids[..MAX_SHOWN - 1], ids.len() - (MAX_SHOWN - 1))
    }
}

/// The drawing as SVG text.
pub fn fabric_loads_chart(l: &Loads, opts: &LoadsOptions, theme: &Theme) -> String {
    let w = opts.width.clamp(300, 2000) as f64;
    let narrow = w < 560.0;
    let leaves_all = level(l, SwitchLevel::Leaf);
    let spines_all = level(l, SwitchLevel::Spine);
    let cores_all = level(l, SwitchLevel::Core);
    let (leaves, more_leaves) = shown(&leaves_all);
    let (spines, more_spines) = shown(&spines_all);
    let (cores, more_cores) = shown(&cores_all);
    let tiers: Vec<(&str, &[u32], usize)> = [("core", cores, more_cores), ("spine", spines, more_spines), ("leaf", leaves, more_leaves)]
        .into_iter()
        .filter(|t| !t.1.is_empty())
        .collect();
    let row_gap = 96.0;
    let top = 34.0;
    // Six legend items: one row wide, three rows of two on a phone.
    let legend_h = if narrow { 66.0 } else { 26.0 };
    let h = top + row_gap * (tiers.len() as f64 - 1.0) + 58.0 + legend_h;
    let mut d = Doc::new(w as u32, h as u32, theme);
    let label_w = if narrow { 44.0 } else { 64.0 };
    let (x0, x1) = (label_w + 8.0, w - 10.0);
    // Switch positions: evenly over the width, with one slot for "…" where some are left out.
    let mut pos = std::collections::HashMap::new();
    let mut rows = Vec::new();
    for (i, (name, ids, more)) in tiers.iter().enumerate() {
        let y = top + row_gap * i as f64;
        let slots = ids.len() + usize::from(*more > 0);
        let step = (x1 - x0) / slots as f64;
        for (k, &id) in ids.iter().enumerate() {
            pos.insert(id, (x0 + step * (k as f64 + 0.5), y));
        }
        rows.push((*name, y, step, ids.len(), *more));
    }
    let bottleneck = opts.bottleneck_tier.as_str();
    let fabric_bottleneck = |t: LinkTier| t.label() == bottleneck;
    // The bottleneck tier's band, behind everything.
    let band = if theme.dark { "#3a2a12" } else { "#fff3e0" };
    let leaf_y = rows.last().map_or(top, |r| r.1);
    match bottleneck {
        "leaf-spine" if rows.len() >= 2 => d.rect(0.0, rows[rows.len() - 2].1 + 12.0, w, row_gap - 24.0, band, " data-role=\"bottleneck\""),
        "spine-core" if rows.len() >= 3 => d.rect(0.0, rows[0].1 + 12.0, w, row_gap - 24.0, band, " data-role=\"bottleneck\""),
        "nic" => d.rect(0.0, leaf_y + 12.0, w, 40.0, band, " data-role=\"bottleneck\""),
        _ => {}
    }
    // Bundles of switch-to-switch links between drawn switches, keyed by (lower, upper).
    let mut bundles: std::collections::BTreeMap<(u32, u32), Bundle> = std::collections::BTreeMap::new();
    for (i, x) in l.fabric.links.iter().enumerate() {
        if !matches!(x.tier, LinkTier::LeafToSpine | LinkTier::SpineToCore | LinkTier::SpineToLeaf | LinkTier::CoreToSpine) {
            continue;
        }
        if !(pos.contains_key(&x.from) && pos.contains_key(&x.to)) {
            continue;
        }
        let up = matches!(x.tier, LinkTier::LeafToSpine | LinkTier::SpineToCore);
        let key = if up { (x.from, x.to) } else { (x.to, x.from) };
        let b = bundles.entry(key).or_default();
        if up {
            b.links += 1;
            b.failed += u32::from(!x.alive);
        }
        if x.alive {
            b.util = b.util.max(l.utilisation[i]);
        }
    }
    let mut busiest = (0.0f64, "");
    // Many bundles: thinner strokes, so the lines stay apart.
    let thin = if bundles.len() > 48 { 0.5 } else { 1.0 };
    let count_labels = bundles.len() <= 12 && !narrow;
    let down_ink = theme.text.hex();
    for (&(lo, hi), b) in &bundles {
        let (Some(&(xa, ya)), Some(&(xb, yb))) = (pos.get(&lo), pos.get(&hi)) else { continue };
        let tier = if l.fabric.switches[lo as usize].level == SwitchLevel::Leaf { LinkTier::LeafToSpine } else { LinkTier::SpineToCore };
        if b.util > busiest.0 {
            busiest = (b.util, tier.label());
        }
        let alive = b.links - b.failed;
        let (ya, yb) = (ya - 10.0, yb + 10.0);
        if alive > 0 {
            let (c, sw) = stroke(theme, bin(b.util));
            let _ = write!(
                d.s,
                "<line x1=\"{xa:.1}\" y1=\"{ya:.1}\" x2=\"{xb:.1}\" y2=\"{yb:.1}\" stroke=\"{c}\" stroke-width=\"{}\" data-links=\"{alive}\" data-util=\"{:.3}\" data-tier=\"{}\"{}/>",
                sw * thin,
                b.util,
                tier.label(),
                if fabric_bottleneck(tier) { " data-bottleneck=\"1\"" } else { "" }
            );
        }
        if b.failed > 0 {
            // Beside the live line (10 px further along the leaf row), so both read.
            let off = if xa <= xb { -12.0 } else { 12.0 };
            let _ = write!(
                d.s,
                "<line x1=\"{:.1}\" y1=\"{ya:.1}\" x2=\"{:.1}\" y2=\"{yb:.1}\" stroke=\"{down_ink}\" stroke-width=\"2\" stroke-dasharray=\"5 4\" data-links=\"{}\" data-failed=\"1\" data-util=\"0\" data-tier=\"{}\"/>",
                xa + off,
                xb + off * 0.4,
                b.failed,
                tier.label()
            );
        }
        if count_labels && b.links > 1 {
            let (mx, my) = (xa + (xb - xa) * 0.3, ya + (yb - ya) * 0.3);
            let t = if b.failed > 0 { format!("×{alive} (+{} down)", b.failed) } else { format!("×{}", b.links) };
            d.text(mx + 6.0, my, 10.0, "start", "middle", &theme.text.hex(), 400, &t);
        }
    }
    // NIC links per drawn leaf: one stub below it, its busiest NIC's utilisation; dashed
    // when one of its NICs carries nothing while others of its leaf carry traffic (down).
    let mut nic = std::collections::HashMap::<u32, (u32, f64)>::new();
    for (i, x) in l.fabric.links.iter().enumerate() {
        if x.tier == LinkTier::NicToLeaf || x.tier == LinkTier::LeafToNic {
            let leaf = if x.tier == LinkTier::NicToLeaf { x.to } else { x.from };
            let e = nic.entry(leaf).or_default();
            e.0 += u32::from(x.tier == LinkTier::NicToLeaf);
            e.1 = e.1.max(l.utilisation[i]);
        }
    }
    for &id in leaves {
        let (Some(&(x, y)), Some(&(n, u))) = (pos.get(&id), nic.get(&id)) else { continue };
        let (c, sw) = stroke(theme, bin(u));
        let _ = write!(
            d.s,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{c}\" stroke-width=\"{sw}\" data-nics=\"{n}\" data-util=\"{u:.3}\" data-tier=\"nic\"/>",
            y + 12.0,
            y + 40.0
        );
        if u > busiest.0 {
            busiest = (u, "nic");
        }
    }
    // Switches on top of the links.
    let fs = if narrow { 10.0 } else { 11.0 };
    for &(name, y, step, n, more) in &rows {
        let tier_label = match name {
            "leaf" => "leaves",
            "spine" => "spines",
            _ => "cores",
        };
        d.text(6.0, y, fs, "start", "middle", &theme.muted.hex(), 600, tier_label);
        let bw = (step * 0.7).clamp(6.0, 40.0);
        let ids: Vec<u32> = match name {
            "leaf" => leaves.to_vec(),
            "spine" => spines.to_vec(),
            _ => cores.to_vec(),
        };
        for (k, id) in ids.iter().enumerate() {
            let Some(&(x, _)) = pos.get(id) else { continue };
            d.rect(x - bw / 2.0, y - 10.0, bw, 20.0, &theme.background.hex(), &format!(" stroke=\"{}\" stroke-width=\"1.5\" rx=\"3\"", theme.text.hex()));
            if bw >= 22.0 {
                let t = format!("{}{}", &name[..1].to_uppercase(), k + 1);
                d.text(x, y + 1.0, fs - 1.0, "middle", "middle", &theme.text.hex(), 400, &t);
            }
        }
        if more > 0 {
            let x = x0 + step * (n as f64 + 0.5);
            d.text(x, y + 1.0, fs, "middle", "middle", &theme.text.hex(), 400, "…");
            if !narrow {
                d.text(x, y + 16.0, fs - 2.0, "middle", "hanging", &theme.muted.hex(), 400, &format!("+{more}"));
            }
        }
    }
    d.text(6.0, leaf_y + 28.0, fs, "start", "middle", &theme.muted.hex(), 600, "NICs");
    // Legend.
    let ly = leaf_y + 58.0;
    let items: [(usize, &str); 4] = [(0, "idle"), (1, "under 50%"), (2, "50-95%"), (3, "95% or more")];
    let mut lx = 8.0;
    let mut row_y = ly;
    let step = if narrow { (w - 16.0) / 2.0 } else { 0.0 };
    let put = |d: &mut Doc, draw: &dyn Fn(&mut Doc, f64, f64), text: &str, lx: &mut f64, row_y: &mut f64| {
        let tw = crate::text::text_width(text, 11.0, false) + 34.0;
        let adv = if narrow { step } else { tw + 10.0 };
        if *lx + adv > w {
            *lx = 8.0;
            *row_y += 20.0;
        }
        draw(d, *lx, *row_y);
        d.text_role(*lx + 26.0, *row_y, 11.0, "start", "middle", &theme.text.hex(), 400, &fit(text, 11.0, false, adv - 30.0), "legend");
        *lx += adv;
    };
    for (b, t) in items {
        let (c, sw) = stroke(theme, b);
        put(&mut d, &|d: &mut Doc, x, y| d.line_dashed((x, y), (x + 20.0, y), &c, sw, ""), t, &mut lx, &mut row_y);
    }
    put(&mut d, &|d: &mut Doc, x, y| d.line_dashed((x, y), (x + 20.0, y), &down_ink, 2.0, "5 4"), "down", &mut lx, &mut row_y);
    put(&mut d, &|d: &mut Doc, x, y| d.rect(x, y - 7.0, 20.0, 14.0, band, &format!(" stroke=\"{}\"", theme.axis.hex())), "bottleneck tier", &mut lx, &mut row_y);
    let failed: u32 = bundles.values().map(|b| b.failed).sum();
    let total: u32 = bundles.values().map(|b| b.links).sum();
    let title = format!("Fabric loads, plane 1 ({}): links coloured by utilisation", opts.what);
    let desc = format!(
        "{} of {} leaves, {} of {} spines{} drawn; {} switch links drawn, {} down; busiest link {:.0}% ({}); bottleneck tier {}",
        leaves.len(),
        leaves_all.len(),
        spines.len(),
        spines_all.len(),
        if cores_all.is_empty() { String::new() } else { format!(", {} of {} cores", cores.len(), cores_all.len()) },
        total,
        failed,
        busiest.0 * 100.0,
        if busiest.1.is_empty() { "none" } else { busiest.1 },
        bottleneck
    );
    let svg = d.finish(&title);
    // The description follows the title (text alternative for screen readers and the CLI).
    match svg.find("</title>") {
        Some(i) => format!("{}<desc>{}</desc>{}", &svg[..i + 8], crate::escape(&desc), &svg[i + 8..]),
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_flow::graph::ClosSpec;
    use fabricscope_flow::{link_loads, Fabric, Failures, Options, Placement, Routing};
    use fabricscope_model::units::GBps;

    fn spec(leaves: u32, spines: u32, up: u32) -> ClosSpec {
        ClosSpec {
            nodes: leaves * 4,
            nics_per_node: 8,
            line: GBps(50.0),
            rail_optimized: false,
            planes: 1,
            rails_per_plane: 8,
            leaves_per_plane: leaves,
            down_per_leaf: 32,
            up_per_leaf: up,
            nodes_per_leaf: 4,
            spines_per_plane: spines,
            spine_up: 0,
            cores_per_plane: 0,
            nodes_per_pod: leaves * 4,
        }
    }

    fn attr_sum(svg: &str, attr: &str, only: &str) -> u32 {
        svg.split("<line").skip(1).filter(|l| l.split("/>").next().is_some_and(|a| a.contains(only))).filter_map(|l| l.split(&format!("{attr}=\"")).nth(1)?.split('"').next()?.parse::<u32>().ok()).sum()
    }

    fn utils(svg: &str) -> Vec<f64> {
        svg.split("data-util=\"").skip(1).filter_map(|x| x.split('"').next()?.parse().ok()).collect()
    }

    /// 4 leaves x 16 uplinks to 2 spines: every one of the 64 links is drawn (as 8 bundles),
    /// the two taken down are dashed, loads lie in [0, 1], the bottleneck band is there.
    #[test]
    fn every_link_drawn_and_failed_ones_dashed() {
        let fab = Fabric::build(spec(4, 2, 16)).unwrap();
        let o = Options { routing: Routing::Ecmp, placement: Placement::Scattered, failures: Failures { links_down: 2, ..Failures::default() }, ..Options::default() };
        let l = link_loads(&fab, &o, 1).unwrap();
        for t in [Theme::light(), Theme::dark()] {
            let svg = fabric_loads_chart(&l, &LoadsOptions { width: 720, bottleneck_tier: "leaf-spine".into(), what: "seed 1".into() }, &t);
            assert_eq!(attr_sum(&svg, "data-links", "data-tier=\"leaf-spine\""), 64);
            assert_eq!(attr_sum(&svg, "data-links", "data-failed"), 2);
            // Uplinks 0 and 1 of leaf 0 go to spines 1 and 2: two dashed bundles, and the
            // legend's sample; nothing else is dashed.
            assert_eq!(svg.matches("data-failed").count(), 2);
            assert_eq!(svg.matches("stroke-dasharray").count(), 3);
            assert_eq!(attr_sum(&svg, "data-nics", ""), 128);
            let u = utils(&svg);
            assert!(!u.is_empty() && u.iter().all(|x| (0.0..=1.0).contains(x)), "{u:?}");
            assert!(svg.contains("data-role=\"bottleneck\""));
            assert!(svg.contains("<desc>4 of 4 leaves, 2 of 2 spines drawn; 64 switch links drawn, 2 down;"), "{svg}");
            assert!(svg.contains("<title>"));
        }
    }

    /// 40 leaves: 15 drawn and "…" for the other 25; the links drawn are those of the drawn
    /// leaves (15 x 4 uplinks).
    #[test]
    fn a_large_tier_is_drawn_in_part() {
        let fab = Fabric::build(spec(40, 4, 4)).unwrap();
        let o = Options { routing: Routing::Adaptive, ..Options::default() };
        let l = link_loads(&fab, &o, 1).unwrap();
        let svg = fabric_loads_chart(&l, &LoadsOptions { width: 360, bottleneck_tier: "nic".into(), what: "adaptive".into() }, &Theme::light());
        assert_eq!(attr_sum(&svg, "data-links", "data-tier=\"leaf-spine\""), 15 * 4);
        assert!(crate::texts(&svg).iter().any(|t| t == "…"));
        assert!(svg.contains("15 of 40 leaves"));
    }
}
