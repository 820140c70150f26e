//! `fabricscope bom`: the bill of materials of a cluster (systems, NICs, switches per tier with
//! ports used and free, transceivers and cables), its power and, with `--prices`, its cost.

use crate::cluster_args::ClusterArgs;
use crate::error::CliError;
use crate::output;
use clap::Args;
use fabricscope_design::bom::{bom, prices, Bom, Group, PriceBook, TierBom};
use fabricscope_design::bom::bom_csv;
use fabricscope_model::figures::usd;
use serde::Serialize;
use std::io::Read;

#[derive(Args, Clone, Debug)]
pub struct BomArgs {
    /// Print one JSON object instead of text
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the lines as CSV
    #[arg(long)]
    pub csv: bool,
    /// Price book (JSON: [{"item", "usd", "power_w", "source", "date"}, ...]; power_w replaces the catalog's figure); without it nothing is priced
    #[arg(long, value_name = "FILE")]
    pub prices: Option<String>,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Serialize)]
struct ItemJson<'a> {
    group: &'static str,
    item: &'static str,
    name: &'static str,
    count: u64,
    unit_power_w: Option<f64>,
    unit_price_usd: Option<f64>,
    /// Inside another item (its power and price are that item's).
    included: bool,
    /// "modelled" (in the totals) or "count only".
    scope: &'static str,
    source: &'a str,
}

#[derive(Serialize)]
struct BomJson<'a> {
    gpus: u64,
    nodes: u64,
    racks: Option<u64>,
    switch_tiers: &'a [TierBom],
    switches_total: u64,
    nics: u64,
    transceivers: u64,
    cables: u64,
    /// Sum of the items with a published power figure (a lower bound when `unpowered` lists any).
    power_kw: f64,
    network_power_kw: f64,
    unpowered: &'a [&'static str],
    /// What the power total covers.
    power_boundary: &'static str,
    /// What the bill does not count at all.
    not_counted: &'static [&'static str],
    /// Null unless every item has a price.
    cost_usd: Option<f64>,
    cost_per_gpu_usd: Option<f64>,
    network_cost_usd: Option<f64>,
    priced_usd: f64,
    unpriced: &'a [&'static str],
    items: Vec<ItemJson<'a>>,
}

/// Reads a price book file: a JSON array of prices, or an object with a `prices` array. A
/// file over [`prices::MAX_FILE_BYTES`] is refused as too large, by its size before reading
/// and by what was read where the size is not known (a pipe): never parsed cut short.
pub fn read_prices(path: &str) -> Result<PriceBook, CliError> {
    let flag = "--prices";
    let shown = fabricscope_model::error::printable(path, 80);
    let cannot = |e: std::io::Error| CliError::new(flag, format!("cannot read {shown}: {e}"));
    let too_large = |e: fabricscope_model::ModelError| CliError::new(flag, format!("{shown}: {}", e.message));
    let file = std::fs::File::open(path).map_err(cannot)?;
    if let Ok(m) = file.metadata() {
        prices::check_file_size(m.len()).map_err(too_large)?;
    }
    let mut bytes = Vec::new();
    file.take(prices::MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    prices::check_file_size(bytes.len() as u64).map_err(too_large)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| CliError::new(flag, format!("{shown} is not UTF-8 text ({e})")))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| CliError::new(flag, format!("not valid JSON: {e}")))?;
    let list = match value.get("prices") {
        Some(p) => p.clone(),
        None => value,
    };
    let book = PriceBook::from_value(&list).map_err(|e| CliError::new(flag, format!("a price book is [{{\"item\", \"usd\", \"power_w\", \"source\", \"date\"}}, ...]: {}", e.message)))?;
    book.validate().map_err(|e| CliError::new(flag, e.message))?;
    Ok(book)
}

pub fn run(a: &BomArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let book = match &a.prices {
        Some(p) => read_prices(p)?,
        None => PriceBook::default(),
    };
    let b = bom(&topo, &book);
    if a.csv {
        return Ok(bom_csv(&b));
    }
    if a.json {
        return output::json(&json(&b));
    }
    Ok(format!("cluster: {}\n\n{}", output::cluster_line(&topo), text(&b)))
}

fn json(b: &Bom) -> BomJson<'_> {
    BomJson {
        gpus: b.gpus,
        nodes: b.nodes,
        racks: b.racks,
        switch_tiers: &b.switch_tiers,
        switches_total: b.switches_total,
        nics: b.nics,
        transceivers: b.transceivers,
        cables: b.cables,
        power_kw: b.power_kw,
        network_power_kw: b.network_power_kw,
        unpowered: &b.unpowered,
        power_boundary: fabricscope_design::bom::POWER_BOUNDARY,
        not_counted: &fabricscope_design::bom::NOT_COUNTED,
        cost_usd: b.cost_usd,
        cost_per_gpu_usd: b.cost_per_gpu(),
        network_cost_usd: b.network_cost_usd,
        priced_usd: b.priced_usd,
        unpriced: &b.unpriced,
        items: b
            .lines
            .iter()
            .map(|l| ItemJson {
                group: l.group.id(),
                item: l.item,
                name: l.name,
                count: l.count,
                unit_power_w: l.unit_power_w,
                unit_price_usd: l.unit_price_usd,
                included: l.included,
                scope: l.scope.id(),
                source: l.source,
            })
            .collect(),
    }
}

fn text(b: &Bom) -> String {
    let mut s = String::new();
    if !b.switch_tiers.is_empty() {
        s.push_str("switch tiers:\n");
        for t in &b.switch_tiers {
            s.push_str(&format!(
                "  {:<6} {:>5} x {} ({} ports): {} ports used, {} free\n",
                Group::from(t.tier).id(),
                t.switches,
                t.switch,
                t.radix,
                t.ports_used,
                t.ports_free
            ));
        }
        s.push('\n');
    }
    let opt = |v: Option<f64>, unit: &str| v.map_or("-".to_string(), |x| if unit == "USD" { usd(x) } else { format!("{x:.0} {unit}") });
    let mut group = None;
    for l in &b.lines {
        if group != Some(l.group) {
            s.push_str(&format!("{} ({}):\n", l.group.id(), l.scope.id()));
            group = Some(l.group);
        }
        let power = if l.included { "included".to_string() } else if !l.counted() { "count only".to_string() } else { opt(l.unit_power_w, "W") };
        s.push_str(&format!("  {:>7} x {:<62} {:>10} {:>12}\n", l.count, l.name, power, opt(l.unit_price_usd, "USD")));
    }
    s.push_str(&format!(
        "\ntotals: {} switches, {} NICs, {} transceivers, {} cables\n",
        b.switches_total, b.nics, b.transceivers, b.cables
    ));
    s.push_str(&format!(
        "power: {:.1} kW{}, {}\n",
        b.power_kw,
        if b.unpowered.is_empty() { String::new() } else { format!(" at least (no published figure: {})", b.unpowered.join(", ")) },
        b.network_power_text()
    ));
    s.push_str(&format!("power covers: {}\nnot counted: {}\n", fabricscope_design::bom::POWER_BOUNDARY, fabricscope_design::bom::NOT_COUNTED.join("; ")));
    match (b.cost_usd, b.cost_per_gpu()) {
        (Some(c), Some(g)) => s.push_str(&format!(
            "cost: {}, {} per GPU{}\n",
            usd(c),
            usd(g),
            b.network_cost_share().map_or(String::new(), |x| format!(", network {:.1}%", 100.0 * x))
        )),
        _ => s.push_str(&format!(
            "cost: not shown ({} without a price{}); give prices with --prices FILE\n",
            b.unpriced.join(", "),
            if b.priced_usd > 0.0 { format!("; {} for the priced items", usd(b.priced_usd)) } else { String::new() }
        )),
    }
    s
}
