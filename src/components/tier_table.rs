//! Panel 5: the catalog's tiers side by side, generated from `tier_table()`; rows of the
//! current cluster's fabric and NIC are marked.

use fabricscope_charts::scale::gbps_label;
use fabricscope_model::report::tier_table;
use fabricscope_model::Cluster;
use super::esc;
use std::fmt::Write;
use yew::prelude::*;

fn table_html(su: &str, nic: &str) -> String {
    let mut o = String::with_capacity(12 * 1024);
    o.push_str("<section class=\"panel table-panel wide\" data-testid=\"tiers\" aria-labelledby=\"tiers-h\"><h3 id=\"tiers-h\">7 · Interconnect tiers compared</h3><div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"tiers-h\"><table><colgroup><col class=\"c-name\"><col class=\"c-num\"><col class=\"c-num\"><col class=\"c-num\"><col><col><col></colgroup><thead><tr><th scope=\"col\">Tier</th><th scope=\"col\" class=\"num\">GB/s per dir.</th><th scope=\"col\" class=\"num\">GB/s bidir.</th><th scope=\"col\" class=\"num\">Latency</th><th scope=\"col\">Domain</th><th scope=\"col\">Congestion control</th><th scope=\"col\">Best fit</th></tr></thead><tbody>");
    for r in tier_table() {
        let mine = r.name.starts_with(su) || r.name.starts_with(nic);
        let _ = write!(
            o,
            "<tr{}><th scope=\"row\">{}{}</th><td class=\"num\" data-label=\"per dir.\">{}</td><td class=\"num\" data-label=\"bidir.\">{}</td><td class=\"num\" data-label=\"latency\">{}</td><td data-label=\"Domain\">{}</td><td data-label=\"Congestion control\">{}</td><td data-label=\"Best fit\">{}</td></tr>",
            if mine { " class=\"mine\" aria-current=\"true\"" } else { "" },
            esc(&r.name),
            if mine { " ◀" } else { "" },
            gbps_label(r.per_direction.0),
            gbps_label(r.bidirectional.0),
            esc(&r.latency.to_string()),
            esc(r.facts.domain),
            esc(r.facts.congestion_control),
            esc(r.facts.best_fit)
        );
    }
    o.push_str("</tbody></table></div><p class=\"muted small\">Scale-up rows: per GPU with the GPU it ships with; NIC rows: per NIC. ◀ marks this cluster's fabric and NIC.</p></section>");
    o
}

thread_local! {
    static DRAWN: std::cell::RefCell<Option<((&'static str, &'static str), AttrValue)>> = const { std::cell::RefCell::new(None) };
}

/// The table for `cluster`, built once per (scale-up fabric, NIC) pair.
pub fn tier_table_panel(cluster: &Cluster) -> Html {
    let key = (cluster.scale_up.name(), cluster.nic.spec().name);
    Html::from_html_unchecked(DRAWN.with(|c| super::cached(c, key, |(su, nic)| AttrValue::from(table_html(su, nic)))))
}
