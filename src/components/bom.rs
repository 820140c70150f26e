//! Panel 8: the cluster's bill of materials (`fabricscope_design::bom`): switches per tier with
//! ports used and free, NICs, optics and cables, power per line and in total, cost where
//! priced, and a CSV download. Markup written as one string, redrawn only when the cluster
//! changes.

use super::{cached, esc};
use crate::components::export::download_text;
use fabricscope_design::bom::{bom, Bom, Group, PriceBook};
use fabricscope_design::bom::bom_csv;
use fabricscope_model::Cluster;
use std::fmt::Write;
use std::rc::Rc;
use yew::prelude::*;

fn table_html(b: &Bom) -> String {
    let mut o = String::with_capacity(4 * 1024);
    let tiers: Vec<String> = b.switch_tiers.iter().map(|t| format!("{} {}", t.switches, Group::from(t.tier).id())).collect();
    let _ = write!(
        o,
        "<h3 id=\"bom-h\">2 · Bill of materials and power</h3><p class=\"muted small\" data-testid=\"bom-counts\">{} switches ({}), {} NICs, {} transceivers, {} cables</p><div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"bom-h\"><table><thead><tr><th scope=\"col\">Item</th><th scope=\"col\" class=\"num\">Count</th><th scope=\"col\" class=\"num\">W each</th><th scope=\"col\" class=\"num\">kW</th></tr></thead><tbody>",
        b.switches_total,
        if tiers.is_empty() { "none".to_string() } else { tiers.join(" + ") },
        b.nics,
        b.transceivers,
        b.cables
    );
    let mut group = None;
    for l in &b.lines {
        if group != Some(l.group) {
            group = Some(l.group);
            let tier = b.switch_tiers.iter().find(|t| Group::from(t.tier) == l.group);
            let name = match l.group {
                Group::Compute => "Compute",
                Group::Nic => "Scale-out NICs",
                Group::Leaf => "Leaf switches and their links",
                Group::Spine => "Spine switches and their links",
                Group::Core => "Core switches and their links",
                Group::Storage => "Storage and in-band management (count only)",
                Group::Management => "Out-of-band management and fabric managers (count only)",
                Group::Facility => "Racks and PDUs (count only)",
            };
            let _ = write!(o, "<tr class=\"group\"><th colspan=\"4\" scope=\"rowgroup\">{name}");
            if let Some(t) = tier {
                let _ = write!(o, " · {} ports used, {} free", t.ports_used, t.ports_free);
            }
            o.push_str("</th></tr>");
        }
        let (each, kw) = match (l.included, l.unit_power_w) {
            _ if !l.counted() => ("count only".to_string(), "–".to_string()),
            (true, _) => ("in system".to_string(), "–".to_string()),
            (false, Some(w)) => {
                let kw = w * l.count as f64 / 1000.0;
                (format!("{w:.0}"), if kw >= 100.0 { format!("{kw:.0}") } else { format!("{kw:.1}") })
            }
            (false, None) => ("n/p".to_string(), "–".to_string()),
        };
        let _ = write!(o, "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{each}</td><td class=\"num\">{kw}</td></tr>", esc(l.name), l.count);
    }
    let _ = write!(
        o,
        "</tbody></table></div><p data-testid=\"bom-power\">Power {}{:.1} kW, {}.{} Cost: {}</p><p class=\"muted small\">Power covers the compute systems (their published maximum; NVL72: the rack's stated load) and the compute fabric; storage, management and facility lines are counted only. n/p: not published, not counted. Every item's source: <code>fabricscope bom --json</code>. Prices: the price book below; none are built in.</p>",
        if b.unpowered.is_empty() { "" } else { "at least " },
        b.power_kw,
        b.network_power_text(),
        if b.unpowered.is_empty() { String::new() } else { format!(" No published figure: {}.", esc(&b.unpowered.join(", "))) },
        match (b.cost_usd, b.cost_per_gpu()) {
            (Some(c), Some(g)) => format!("{c:.0} USD, {g:.0} USD per GPU, network {:.1}%.", 100.0 * b.network_cost_share().unwrap_or(0.0)),
            _ if b.priced_usd > 0.0 => format!("incomplete: {:.0} USD for the priced items; no price for {}.", b.priced_usd, esc(&b.unpriced.join(", "))),
            _ => "not priced.".to_string(),
        }
    );
    o
}

/// The last cluster and prices drawn, their bill and markup.
type Drawn = Option<((Cluster, PriceBook), Option<(Rc<Bom>, AttrValue)>)>;

thread_local! {
    static DRAWN: std::cell::RefCell<Drawn> = const { std::cell::RefCell::new(None) };
}

/// The bill of `cluster` priced from `book`, and its markup (drawn once per change).
fn drawn(cluster: &Cluster, book: &PriceBook) -> Option<(Rc<Bom>, AttrValue)> {
    DRAWN.with(|c| {
        cached(c, (cluster.clone(), book.clone()), |(c, book)| {
            let b = Rc::new(bom(&c.topology().ok()?, book));
            let html = AttrValue::from(table_html(&b));
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
            { Html::from_html_unchecked(html) }
            <button type="button" onclick={save} data-testid="bom-csv">{ "Download bill of materials (CSV)" }</button>
        </section>
    }
}
