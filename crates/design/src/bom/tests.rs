//! Bill-of-materials tests against published counts and datasheet figures.

use super::*;
use crate::catalog::{GpuKind, NicKind};
use crate::topology::Cluster;

fn superpod() -> Bom {
    bom(&Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap(), &PriceBook::default())
}

fn line<'a>(b: &'a Bom, g: Group, item: &str) -> &'a Line {
    b.lines.iter().find(|l| l.group == g && l.item == item).unwrap_or_else(|| panic!("no {item} in {g:?}"))
}

#[test]
fn dgx_h100_superpod_is_32_leaves_and_16_spines() {
    // NVIDIA DGX SuperPOD H100 reference architecture: 4 SUs of 32 DGX H100 on 8x NDR rails,
    // 32 QM9700 leaves and 16 spines in the compute fabric.
    let b = superpod();
    let t: Vec<(SwitchLevel, u64)> = b.switch_tiers.iter().map(|t| (t.tier, t.switches)).collect();
    assert_eq!(t, vec![(SwitchLevel::Leaf, 32), (SwitchLevel::Spine, 16)]);
    assert_eq!(b.switches_total, 48);
    assert_eq!(b.nics, 1024);
    // Non-blocking: every leaf port in use (32 down, 32 up), every spine port too.
    let leaf = &b.switch_tiers[0];
    assert_eq!((leaf.ports_used, leaf.ports_free, leaf.links_down, leaf.links_up), (2048, 0, 1024, 1024));
    assert_eq!((b.switch_tiers[1].ports_used, b.switch_tiers[1].ports_free), (1024, 0));
    // Twin-port OSFP at both ends of every link: 4 per DGX (8 NICs in 4 cages), 512 at the
    // leaves' down side, 512 + 512 between leaves and spines; one MPO fiber per 400G link.
    assert_eq!(line(&b, Group::Leaf, "mma4z00-ns").count, 128 * 4 + 512);
    assert_eq!(line(&b, Group::Spine, "mma4z00-ns").count, 1024);
    assert_eq!(b.transceivers, 2048);
    assert_eq!(b.cables, 2048);
    // DGX H100: 10.2 kW max each; the network's optics at 15 W per twin-port module.
    assert_eq!(line(&b, Group::Compute, "dgx-h100").unit_power_w, Some(10_200.0));
    // QM9700: NVIDIA's 1,720 W maximum less the 32 cages' 17 W port power the optics lines carry.
    assert_eq!(line(&b, Group::Leaf, "qm9700").unit_power_w, Some(1_720.0 - 32.0 * 17.0));
    assert!((b.power_kw - (128.0 * 10.2 + 2048.0 * 0.015 + 48.0 * 1.176)).abs() < 1e-9, "{}", b.power_kw);
    assert!((b.network_power_kw - (30.72 + 48.0 * 1.176)).abs() < 1e-9);
    // Issue 19: every part of a 128-node DGX H100 SuperPOD is powered, 1.35-1.50 MW in all.
    assert!(b.unpowered.is_empty(), "{:?}", b.unpowered);
    assert!((1_350.0..=1_500.0).contains(&b.power_kw), "{}", b.power_kw);
    // Nothing is priced by default.
    assert_eq!(b.cost_usd, None);
    assert_eq!(b.unpriced, vec!["dgx-h100", "qm9700", "mma4z00-ns", "fiber-mpo-mm"]);
}

#[test]
fn cost_only_when_every_line_has_a_price() {
    let base = superpod();
    let mut book: Vec<Price> = base
        .lines
        .iter()
        .filter(|l| !l.included && l.counted())
        .map(|l| Price { item: l.item.to_string(), usd: Some(1.0), power_w: None, source: "test".into(), date: "2026-11-30".into() })
        .collect();
    let all = bom(&Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap(), &PriceBook(book.clone()));
    // One dollar per unit: the cost is the number of priced units.
    let units: u64 = all.lines.iter().filter(|l| !l.included && l.counted()).map(|l| l.count).sum();
    assert_eq!(all.cost_usd, Some(units as f64));
    assert_eq!(all.cost_per_gpu(), Some(units as f64 / 1024.0));
    let net: u64 = all.lines.iter().filter(|l| !l.included && l.group.is_network()).map(|l| l.count).sum();
    assert_eq!(all.network_cost_usd, Some(net as f64));
    book.retain(|p| p.item != "dgx-h100");
    let partial = bom(&Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap(), &PriceBook(book));
    assert_eq!(partial.cost_usd, None);
    assert_eq!(partial.unpriced, vec!["dgx-h100"]);
    assert_eq!(partial.network_cost_usd, Some(net as f64));
    assert_eq!(partial.priced_usd, (units - 128) as f64);
}

#[test]
fn price_book_rejects_unknown_parts_and_bad_amounts() {
    let bad = PriceBook(vec![Price { item: "unobtainium".into(), usd: Some(1.0), power_w: None, source: String::new(), date: String::new() }]);
    assert_eq!(bad.validate().unwrap_err().field, "prices");
    let neg = PriceBook(vec![Price { item: "qm9700".into(), usd: Some(-1.0), power_w: None, source: String::new(), date: String::new() }]);
    assert!(neg.validate().unwrap_err().message.contains("0 or more"));
    let nan = PriceBook(vec![Price { item: "qm9700".into(), usd: None, power_w: Some(f64::NAN), source: String::new(), date: String::new() }]);
    assert!(nan.validate().is_err());
    // Issue 20: 1e308 per part summed to "inf". Refused in a file, brought down with a note
    // where a page decodes a link; a typed one is refused (the edited test).
    let huge = PriceBook(vec![Price { item: "qm9700".into(), usd: Some(1e308), power_w: Some(1e300), source: String::new(), date: String::new() }]);
    assert!(huge.validate().unwrap_err().message.contains("at most 1,000,000,000"));
    let (clamped, notes) = huge.clamped();
    assert_eq!((clamped.usd("qm9700"), clamped.power_w("qm9700")), (Some(MAX_USD), Some(MAX_POWER_W)));
    assert_eq!(notes.len(), 2);
    assert!(notes[0].starts_with("qm9700: usd 1e308 is over the bound of 1,000,000,000"), "{notes:?}");
    let b = bom(&Cluster { nodes: 4096, ..Cluster::default() }.topology().unwrap(), &clamped);
    assert!(b.priced_usd.is_finite() && b.power_kw.is_finite());
}

#[test]
fn the_users_power_figure_completes_the_total() {
    // A switch draw the user got from a vendor quote (a test input, not a catalog figure).
    let book = PriceBook(vec![Price { item: "qm9700".into(), usd: None, power_w: Some(1000.0), source: "quote".into(), date: String::new() }]);
    let b = bom(&Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap(), &book);
    assert!(b.unpowered.is_empty());
    assert!((b.power_kw - (128.0 * 10.2 + 2048.0 * 0.015 + 48.0)).abs() < 1e-9, "the user's 1,000 W replaces the catalog's 1,176 W");
    assert_eq!(line(&b, Group::Leaf, "qm9700").source, "the user's price book");
}

#[test]
fn a_dgx_with_other_nics_keeps_its_figure() {
    // 4 XDR NICs in a DGX B200-class node: the chassis' 14.3 kW stays, the NICs are extra.
    let c = Cluster { gpu: GpuKind::B200, scale_up: crate::catalog::ScaleUp::NvSwitch { gen: 5 }, nic: NicKind::IbXdr, nics_per_node: 4, nodes: 8, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    assert_eq!(line(&b, Group::Compute, "dgx-b200").unit_power_w, Some(14_300.0));
    assert_eq!(line(&b, Group::Nic, "connectx-8-xdr").count, 32);
}

#[test]
fn nvl72_racks_count_switch_trays_and_gpus() {
    // 4 racks of 72 GB200 in trays of 4, one NIC per GPU.
    let c = Cluster { gpu: GpuKind::Gb200, nodes: 72, gpus_per_node: 4, scale_up: crate::catalog::ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    assert_eq!(b.racks, Some(4));
    assert_eq!(line(&b, Group::Compute, "nvlink-switch-tray").count, 36);
    assert_eq!(line(&b, Group::Compute, "gb200-gpu").count, 288);
    assert_eq!(b.nics, 288);
    // The rack's stated 120 kW covers its trays, GPUs and shelves: they are counted, not powered twice.
    assert!(!b.unpowered.contains(&"gb200-nvl72-rack"));
    assert!(line(&b, Group::Compute, "gb200-gpu").included && line(&b, Group::Compute, "gb200-compute-tray").count == 72);
    assert_eq!(line(&b, Group::Compute, "gb200-power-shelf").count, 32);
    // Compute trays' NICs take single-port modules; switch side twin-port.
    assert_eq!(line(&b, Group::Leaf, "mma4z00-ns400").count, 288);
}

#[test]
fn top_of_rack_leaves_are_copper() {
    // Not rail-optimized, 8 NICs per node on 64-port leaves: 4 nodes (one rack) per leaf.
    let c = Cluster { nodes: 16, rail_optimized: false, ..Cluster::default() };
    let t = c.topology().unwrap();
    assert_eq!(t.fabric.as_ref().unwrap().nodes_per_leaf, 4);
    let b = bom(&t, &PriceBook::default());
    // 128 NIC links on twin-port splitter DACs (2 links each).
    assert_eq!(line(&b, Group::Leaf, "dac").count, 64);
    assert!(b.lines.iter().all(|l| !(l.group == Group::Leaf && l.kind == PartKind::Transceiver)));
}

#[test]
fn three_tiers_use_single_mode_into_the_core() {
    let c = Cluster { nodes: 2048, nic: NicKind::IbNdr, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    assert_eq!(b.switch_tiers.len(), 3);
    let core_links = b.switch_tiers[1].links_up;
    assert_eq!(b.switch_tiers[2].links_down, core_links);
    assert_eq!(line(&b, Group::Core, "mms4x00-nm").count, core_links);
    assert_eq!(line(&b, Group::Core, "fiber-mpo-sm").count, core_links);
    for t in &b.switch_tiers {
        assert_eq!(t.ports_used + t.ports_free, t.switches * t.radix as u64);
    }
}

#[cfg(feature = "sources")]
#[test]
fn every_part_with_a_figure_names_its_source() {
    // Every published power figure cites a URL and the date it was read.
    for p in parts::PARTS.iter().filter(|p| p.power_w.is_some_and(|w| w > 0.0)) {
        assert!(p.source.contains("https://") && p.source.contains("2026-"), "{}: {}", p.id, p.source);
    }
    let b = superpod();
    assert!(b.lines.iter().all(|l| !l.source.is_empty()), "every line names its source");
}

#[test]
fn price_book_reads_its_json_and_refuses_unknown_keys() {
    let read = |t: &str| PriceBook::from_value(&serde_json::from_str(t).unwrap());
    let ok = read(r#"[{"item":"qm9700","usd":25000,"source":"quote","date":"2026-11-01"},{"item":"dac","power_w":0.1}]"#).unwrap();
    assert_eq!((ok.usd("qm9700"), ok.power_w("dac"), ok.usd("dac")), (Some(25000.0), Some(0.1), None));
    let unknown = read(r#"[{"item":"qm9700","price":1}]"#).unwrap_err();
    assert!(unknown.field == "prices" && unknown.message.contains("unknown field `price`"), "{unknown:?}");
    assert!(read(r#"[{"item":"qm9700","usd":"cheap"}]"#).is_err());
    assert!(read(r#"{"item":"qm9700"}"#).is_err());
    assert!(read("null").unwrap().is_empty(), "no prices: an empty book");
}

#[test]
fn an_edited_book_prices_the_bill_and_a_bad_number_keeps_the_book() {
    let b = superpod();
    let book = PriceBook::default().edited("qm9700", "usd", "30000").unwrap().edited("qm9700", "source", "quote").unwrap();
    assert_eq!(book.0.len(), 1);
    assert_eq!((book.usd("qm9700"), book.0[0].source.as_str()), (Some(30000.0), "quote"));
    // Repricing the built bill gives what building it with the book gives.
    let topo = Cluster { nodes: 128, ..Cluster::default() }.topology().unwrap();
    assert_eq!(b.repriced(&book), bom(&topo, &book));
    assert_eq!(b.repriced(&book).priced_usd, 48.0 * 30000.0);
    // A switch's power from the book replaces the catalog's (48 x 1,000 W for 48 x 1,176 W) and
    // names the book.
    let powered = book.edited("qm9700", "power_w", "1000").unwrap();
    let p = b.repriced(&powered);
    assert!((p.power_kw - b.power_kw - 48.0 * (1.0 - 1.176)).abs() < 1e-9, "{} {}", p.power_kw, b.power_kw);
    assert_eq!(line(&p, Group::Leaf, "qm9700").source, "the user's price book");
    // ... and back to the catalog's when the override goes.
    assert_eq!(b.repriced(&powered.edited("qm9700", "power_w", "").unwrap()).power_kw, b.power_kw);
    // Bad numbers name the field and leave the book as it was (the caller keeps it).
    for bad in ["-1", "abc", "1,0000", "inf", "NaN", "1e308", "2,000,000,000"] {
        let e = book.edited("qm9700", "usd", bad).unwrap_err();
        assert!(e.field == "prices" && e.message.starts_with("qm9700: usd is US dollars per unit"), "{bad}: {e}");
    }
    assert!(book.edited("qm9700", "power_w", "x").unwrap_err().message.contains("power_w is watts"));
    assert!(book.edited("nope", "usd", "1").unwrap_err().message.contains("unknown part 'nope'"));
    assert!(book.edited("qm9700", "colour", "1").is_err());
    // An entry emptied of everything is dropped.
    let cleared = book.edited("qm9700", "usd", "").unwrap().edited("qm9700", "source", " ").unwrap();
    assert!(cleared.is_empty() && cleared.to_value().is_null());
}

#[test]
fn a_price_book_file_is_a_list_or_a_scenario_with_prices() {
    let list = r#"[{"item": "qm9700", "usd": 30000, "source": "quote", "date": "2026-11-01"}]"#;
    let book = PriceBook::from_file_text(list).unwrap();
    assert_eq!(book.usd("qm9700"), Some(30000.0));
    let scenario = format!(r#"{{"version": 1, "prices": {list}}}"#);
    assert_eq!(PriceBook::from_file_text(&scenario).unwrap(), book);
    // Round trip through a scenario's `prices`.
    assert_eq!(PriceBook::from_value(&book.to_value()).unwrap(), book);
    for (bad, says) in [("{", "not JSON"), ("{}", "`prices`"), (r#"[{"item": "qm9700", "usd": -5}]"#, "usd must be"), (r#"[{"item": "qm9700", "cost": 5}]"#, "unknown field `cost`")] {
        let e = PriceBook::from_file_text(bad).unwrap_err();
        assert!(e.field == "prices" && e.message.contains(says), "{bad}: {e}");
    }
}

#[test]
fn a_books_value_is_what_its_serializer_writes() {
    let book = PriceBook(vec![
        Price { item: "qm9700".into(), usd: Some(30000.0), power_w: None, source: "quote".into(), date: "2026-11-01".into() },
        Price { item: "dgx-h100".into(), usd: None, power_w: Some(10_000.0), source: String::new(), date: String::new() },
    ]);
    assert_eq!(book.to_value(), serde_json::to_value(&book).unwrap());
}

/// With a switch's power unpublished (SN5600: NVIDIA gives a typical figure, no maximum) the
/// network's figure is a lower bound and its share is not given; a book that supplies the
/// switch's watts makes both known.
#[test]
fn the_networks_share_needs_every_network_items_power() {
    let roce = Cluster { nodes: 128, nic: NicKind::Roce400, ..Cluster::default() }.topology().unwrap();
    let b = bom(&roce, &PriceBook::default());
    assert_eq!(b.unpowered, vec!["sn5600"]);
    assert_eq!(b.network_power_share(), None);
    assert!(b.network_power_text().starts_with("network at least "), "{}", b.network_power_text());
    let book = PriceBook::from_file_text(r#"[{"item":"sn5600","power_w":1000,"source":"test","date":"2026-11-30"}]"#).unwrap();
    let p = bom(&roce, &book);
    let switches = p.switches_total as f64;
    // The switches' test figure (1 kW each) is added to what was counted before.
    assert!((p.network_power_kw - b.network_power_kw - switches).abs() < 1e-9, "{}", p.network_power_kw);
    let share = p.network_power_share().unwrap();
    assert!((share - p.network_power_kw / p.power_kw).abs() < 1e-12);
    assert!(p.network_power_text().starts_with("network "), "{}", p.network_power_text());
}

/// Issue 19 done-when: a 128-node DGX H100 SuperPOD has every part powered: 128 x 10.2 kW,
/// 2,048 twin-port optics at 15 W and 48 QM9700 at 1,176 W (NVIDIA's 1,720 W maximum less the
/// port power its optics draw, counted on their own lines) = 1,392.8 kW, within 1.35-1.50 MW.
#[test]
fn a_superpod_counts_every_part_with_a_published_figure() {
    let b = superpod();
    assert!(b.unpowered.is_empty(), "{:?}", b.unpowered);
    assert!((1350.0..=1500.0).contains(&b.power_kw), "{}", b.power_kw);
    assert!(b.network_power_text().starts_with("network 87.2 kW ("), "{}", b.network_power_text());
    // Passive parts are 0 W, a figure: never "unpowered"; count-only lines are outside the totals.
    for l in &b.lines {
        if l.kind == PartKind::Cable || l.kind == PartKind::Facility {
            assert!(!b.unpowered.contains(&l.item), "{}", l.item);
        }
    }
}

/// Issue 19 done-when: four GB200 NVL72 racks count their rack power: 4 x 120 kW with the
/// NDR fabric's switches and optics, within 460-600 kW, nothing unpowered.
#[test]
fn four_nvl72_racks_count_their_rack_power() {
    let c = Cluster { gpu: GpuKind::Gb200, nodes: 72, gpus_per_node: 4, scale_up: crate::catalog::ScaleUp::Nvl72, nics_per_node: 4, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    assert!((460.0..=600.0).contains(&b.power_kw), "{}", b.power_kw);
    assert!(b.unpowered.is_empty(), "{:?}", b.unpowered);
    assert!(b.power_kw >= 480.0);
}

/// `--oversubscription 2` builds leaves that are 2:1 (links down over links up), and the
/// performance model reads the same ratio from the built tree (before: 32 leaves with 21
/// uplinks for 32 NICs each, 1.52:1, while timed at 2:1).
#[test]
fn two_to_one_leaves_are_two_to_one() {
    let c = Cluster { nodes: 128, oversubscription: Some(2.0), ..Cluster::default() };
    let t = c.topology().unwrap();
    let b = bom(&t, &PriceBook::default());
    let leaf = &b.switch_tiers[0];
    assert_eq!(leaf.links_down as f64 / leaf.links_up as f64, 2.0, "{leaf:?}");
    assert_eq!((leaf.switches, leaf.links_down, leaf.links_up), (32, 1024, 512));
    assert_eq!(t.fabric.as_ref().unwrap().oversubscription, 2.0);
    // 3:1 where whole nodes do not divide: 3 leaves per rail of 43 nodes (the last 42), 15
    // uplinks each: at most 3:1, 2.84:1 over the tier, 2.87:1 on the busiest leaf (timed).
    let c3 = Cluster { nodes: 128, oversubscription: Some(3.0), ..Cluster::default() };
    let t3 = c3.topology().unwrap();
    let l3 = &bom(&t3, &PriceBook::default()).switch_tiers[0];
    let r = l3.links_down as f64 / l3.links_up as f64;
    assert!((2.8..=3.0).contains(&r), "{l3:?}");
    assert!((t3.fabric.as_ref().unwrap().oversubscription - r).abs() < 0.05);
}

/// The networks a reference architecture lists beside the compute fabric are in the bill as
/// count-only lines, outside the totals.
#[test]
fn storage_management_and_facility_are_counted_only() {
    let b = superpod();
    let scope = |g: Group, item: &str| line(&b, g, item).scope;
    assert_eq!(scope(Group::Storage, "storage-inband-port"), Scope::CountOnly);
    assert_eq!(line(&b, Group::Storage, "storage-inband-port").count, 256);
    assert_eq!(line(&b, Group::Management, "oob-port").count, 128 + 48);
    assert_eq!(line(&b, Group::Management, "ufm-appliance").count, 2);
    assert_eq!(line(&b, Group::Facility, "rack").count, 32);
    assert_eq!(line(&b, Group::Facility, "pdu").count, 96);
    assert_eq!(scope(Group::Compute, "dgx-h100"), Scope::Modelled);
    // Not in the counts of the compute fabric (the SuperPOD golden counts hold).
    assert_eq!((b.switches_total, b.transceivers, b.cables), (48, 2048, 2048));
}

/// Rail-only: each rail its own switches, none joins two rails. 32 DGX H100 on 8 rails: one
/// 64-port switch per rail (32 NICs each), no spine; 128 nodes: each rail a two-tier tree of its
/// own (4 leaves, 2 spines), 8 planes. Counted exactly: one plane per rail.
#[test]
fn rail_only_has_no_spine_between_rails() {
    let c = Cluster { nodes: 32, rail_only: true, ..Cluster::default() };
    let t = c.topology().unwrap();
    let f = t.fabric.as_ref().unwrap();
    assert_eq!((f.planes, f.leaves, f.spines), (8, 8, 0));
    let b = bom(&t, &PriceBook::default());
    assert_eq!(b.switch_tiers.len(), 1);
    assert_eq!(b.switches_total, 8);
    assert!(t.tiers.iter().any(|x| x.name.starts_with("rail-only leaf")));
    let big = Cluster { nodes: 128, rail_only: true, ..Cluster::default() }.topology().unwrap();
    let f = big.fabric.as_ref().unwrap();
    assert_eq!((f.planes, f.leaves, f.spines), (8, 32, 16));
    // Not rail-optimized: refused, naming the field.
    let e = Cluster { nodes: 32, rail_only: true, rail_optimized: false, ..Cluster::default() }.topology().unwrap_err();
    assert_eq!(e.field, "rail_only");
}

/// Planes counted exactly: 16,384 DGX H100 on 8 rails exceed one three-tier tree (64^3/4 =
/// 65,536 NICs), so the rails split into planes, each its own tree; the bill is the planes'
/// bills added up (switches, ports, optics, fibers), every NIC on one leaf port.
#[test]
fn planes_add_up_to_the_whole_bill() {
    let c = Cluster { nodes: 16384, ..Cluster::default() };
    let t = c.topology().unwrap();
    let f = t.fabric.as_ref().unwrap();
    assert!(f.planes > 1, "{} planes", f.planes);
    let p = f.planes as u64;
    let b = bom(&t, &PriceBook::default());
    let one = bom(&Cluster { nics_per_node: 8 / f.planes, ..c }.topology().unwrap(), &PriceBook::default());
    assert_eq!(b.switches_total, p * one.switches_total);
    assert_eq!(b.transceivers - 16384 * 4, p * (one.transceivers - 16384 * (one.nics / 16384).div_ceil(2)));
    assert_eq!(b.cables, p * one.cables);
    assert_eq!(b.switch_tiers[0].links_down, 16384 * 8);
    for (a, o) in b.switch_tiers.iter().zip(&one.switch_tiers) {
        assert_eq!((a.switches, a.ports_used, a.links_up), (p * o.switches, p * o.ports_used, p * o.links_up));
    }
}


#[test]
fn dgx_b300_is_powered_at_its_user_guide_figure() {
    // DGX B300: 14.5 kW max; its 8 ConnectX-8 (XDR) inside that figure.
    let c = Cluster { gpu: GpuKind::B300, scale_up: crate::catalog::ScaleUp::NvSwitch { gen: 5 }, nic: NicKind::IbXdr, nodes: 32, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    let dgx = line(&b, Group::Compute, "dgx-b300");
    assert_eq!((dgx.count, dgx.unit_power_w), (32, Some(14_500.0)));
    let nic = line(&b, Group::Nic, "connectx-8-dgx");
    assert!(nic.included && nic.count == 256);
    assert!(!b.unpowered.contains(&"dgx-b300"));
}

#[test]
fn instinct_servers_name_their_unpowered_host() {
    // 8x MI300X on xGMI: the host has no published figure; the GPUs count at 750 W board power.
    let c = Cluster {
        gpu: GpuKind::Mi300x,
        scale_up: crate::catalog::ScaleUp::Xgmi,
        nic: NicKind::Roce400,
        nvls: false,
        nodes: 16,
        ..Cluster::default()
    };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    assert_eq!(line(&b, Group::Compute, "instinct-8gpu-server").unit_power_w, None);
    assert!(b.unpowered.contains(&"instinct-8gpu-server"));
    let g = line(&b, Group::Compute, "gpu");
    assert_eq!((g.count, g.unit_power_w), (128, Some(750.0)));
    assert!(b.lines.iter().all(|l| l.item != "nvswitch-chip"));
}

#[test]
fn rented_efa_interfaces_are_counted_only() {
    // p5: 32 EFA interfaces per instance, part of the rented instance: counted, not powered.
    let c = Cluster { nodes: 4, nics_per_node: 32, nic: NicKind::Efa100, ..Cluster::default() };
    let b = bom(&c.topology().unwrap(), &PriceBook::default());
    let efa = line(&b, Group::Nic, "aws-efa-100");
    assert_eq!((efa.count, efa.scope), (128, Scope::CountOnly));
    assert!(!b.unpowered.contains(&"aws-efa-100"));
}

/// The goodput model counts what fails from the same design the bill counts: every NIC, switch
/// per tier, link into each tier and NVLink switch tray the bill lists.
#[test]
fn the_failure_model_counts_the_bills_parts() {
    for id in crate::presets::cluster_preset_ids() {
        let topo = crate::presets::cluster_preset(id).expect("preset").cluster().topology().expect("valid preset");
        let b = bom(&topo, &PriceBook::default());
        let inv = crate::goodput::Inventory::of(&topo);
        // Rented NICs (EFA) are listed as counted only; they fail all the same.
        let nics: u64 = b.lines.iter().filter(|l| l.group == Group::Nic).map(|l| l.count).sum();
        assert_eq!((inv.gpus, inv.nodes, inv.nics), (b.gpus, b.nodes, nics), "{id}");
        let tier = |l: SwitchLevel| b.switch_tiers.iter().find(|t| t.tier == l);
        assert_eq!(inv.leaves, tier(SwitchLevel::Leaf).map_or(0, |t| t.switches), "{id} leaves");
        assert_eq!(inv.spines, tier(SwitchLevel::Spine).map_or(0, |t| t.switches), "{id} spines");
        assert_eq!(inv.cores, tier(SwitchLevel::Core).map_or(0, |t| t.switches), "{id} cores");
        assert_eq!(inv.node_links, tier(SwitchLevel::Leaf).map_or(0, |t| t.links_down), "{id} NIC-leaf links");
        let above: u64 = b.switch_tiers.iter().filter(|t| t.tier != SwitchLevel::Leaf).map(|t| t.links_down).sum();
        assert_eq!(inv.fabric_links, above, "{id} links between tiers");
        let trays = b.lines.iter().filter(|l| l.item == parts::NVLINK_TRAY.id).map(|l| l.count).sum::<u64>();
        assert_eq!(inv.nvlink_trays, trays, "{id} NVLink switch trays");
    }
}
