//! Panel 8: the cluster's bill of materials (`fabricscope_design::bom`): switches per tier with
//! ports used and free, NICs, optics and cables, power per line and in total, cost where
//! priced, and a CSV download. Redrawn only when the cluster or the prices change.

use crate::widgets::cached;
use crate::widgets::export::download_text;
use fabricscope_design::bom::{bom, Bom, Group, PriceBook};
use fabricscope_design::bom::bom_csv;
use fabricscope_model::Cluster;
use fabricscope_model::figures::{thousands, usd};
use std::rc::Rc;
use yew::prelude::*;

/// The name of a group's row.
fn group_name(g: Group) -> &'static str {
    match g {
        Group::Compute => "Compute",
        Group::Nic => "Scale-out NICs",
        Group::Leaf => "Leaf switches and their links",
        Group::Spine => "Spine switches and their links",
        Group::Core => "Core switches and their links",
        Group::Storage => "Storage and in-band management (count only)",
        Group::Management => "Out-of-band management and fabric managers (count only)",
        Group::Facility => "Racks and PDUs (count only)",
    }
}

/// The bill's totals in words: power, the network's part, what has no figure, the cost.
fn totals(b: &Bom) -> String {
    let cost = match (b.cost_usd, b.cost_per_gpu()) {
        (Some(c), Some(g)) => format!("{}, {} per GPU, network {:.1}%.", usd(c), usd(g), 100.0 * b.network_cost_share().unwrap_or(0.0)),
        _ if b.priced_usd > 0.0 => format!("incomplete: {} for the priced items; no price for {}.", usd(b.priced_usd), b.unpriced.join(", ")),
        _ => "not priced.".to_string(),
    };
    format!(
        "Power {}{} kW, {}.{} Cost: {cost}",
        if b.unpowered.is_empty() { "" } else { "at least " },
        if b.power_kw >= 1000.0 { thousands(b.power_kw) } else { format!("{:.1}", b.power_kw) },
        b.network_power_text(),
        if b.unpowered.is_empty() { String::new() } else { format!(" No published figure: {}.", b.unpowered.join(", ")) },
    )
}

fn table(b: &Bom) -> Html {
    let tiers: Vec<String> = b.switch_tiers.iter().map(|t| format!("{} {}", thousands(t.switches as f64), Group::from(t.tier).id())).collect();
    let counts = format!(
        "{} switches ({}), {} NICs, {} transceivers, {} cables",
        thousands(b.switches_total as f64),
        if tiers.is_empty() { "none".to_string() } else { tiers.join(" + ") },
        thousands(b.nics as f64),
        thousands(b.transceivers as f64),
        thousands(b.cables as f64)
    );
    let mut rows: Vec<Html> = Vec::with_capacity(b.lines.len() + 8);
    let mut group = None;
    for l in &b.lines {
        if group != Some(l.group) {
            group = Some(l.group);
            let ports = b
                .switch_tiers
                .iter()
                .find(|t| Group::from(t.tier) == l.group)
                .map(|t| format!(" · {} ports used, {} free", thousands(t.ports_used as f64), thousands(t.ports_free as f64)));
            rows.push(html! { <tr class="group"><th colspan="4" scope="rowgroup">{ group_name(l.group) }{ ports }</th></tr> });
        }
        let (each, kw) = match (l.included, l.unit_power_w) {
            _ if !l.counted() => ("count only".to_string(), "–".to_string()),
            (true, _) => ("in system".to_string(), "–".to_string()),
            (false, Some(w)) => {
                let kw = w * l.count as f64 / 1000.0;
                (thousands(w), if kw >= 100.0 { thousands(kw) } else { format!("{kw:.1}") })
            }
            (false, None) => ("n/p".to_string(), "–".to_string()),
        };
        rows.push(html! {
            <tr><td>{ l.name }</td><td class="num">{ thousands(l.count as f64) }</td><td class="num">{ each }</td><td class="num">{ kw }</td></tr>
        });
    }
    html! { <>
        <h3 id="bom-h">{ "2 · Bill of materials and power" }</h3>
        <p class="muted small" data-testid="bom-counts">{ counts }</p>
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="bom-h">
            <table>
                <thead><tr><th scope="col">{ "Item" }</th><th scope="col" class="num">{ "Count" }</th><th scope="col" class="num">{ "W each" }</th><th scope="col" class="num">{ "kW" }</th></tr></thead>
                <tbody>{ rows }</tbody>
            </table>
        </div>
        <p data-testid="bom-power">{ totals(b) }</p>
        <p class="muted small">
            { "Power covers the compute systems (their published maximum; NVL72: the rack's stated load) and the compute fabric; storage, management and facility lines are counted only. n/p: not published, not counted. Every item's source: " }
            <code>{ "fabricscope bom --json" }</code>
            { ". Prices: the price book below; none are built in." }
        </p>
    </> }
}

/// The last cluster and prices drawn, their bill and markup.
type Drawn = Option<((Cluster, PriceBook), Option<(Rc<Bom>, Html)>)>;

thread_local! {
    static DRAWN: std::cell::RefCell<Drawn> = const { std::cell::RefCell::new(None) };
}

/// The bill of `cluster` priced from `book`, and its markup (drawn once per change).
fn drawn(cluster: &Cluster, book: &PriceBook) -> Option<(Rc<Bom>, Html)> {
    DRAWN.with(|c| {
        cached(c, (cluster.clone(), book.clone()), |(c, book)| {
            let b = Rc::new(bom(&c.topology().ok()?, book));
            let html = table(&b);
            Some((b, html))
        })
    })
}

/// The bill the panel shows (the price book lists its items).
pub fn bom_of(cluster: &Cluster, book: &PriceBook) -> Option<Rc<Bom>> {
    drawn(cluster, book).map(|d| d.0)
}

/// The panel for `cluster`, priced from the page's book.
pub fn bom_panel(cluster: &Cluster, book: &PriceBook) -> Html {
    let Some((b, html)) = drawn(cluster, book) else { return Html::default() };
    let save = Callback::from(move |_: MouseEvent| download_text("fabricscope-bom.csv", "text/csv", &bom_csv(&b)));
    html! {
        <section class="panel table-panel wide bom" data-testid="bom" aria-labelledby="bom-h">
            { html }
            <button type="button" onclick={save} data-testid="bom-csv">{ "Download bill of materials (CSV)" }</button>
        </section>
    }
}
