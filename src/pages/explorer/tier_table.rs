//! Panel 5: the catalog's tiers side by side, generated from `tier_table()`; rows of the
//! current cluster's fabric and NIC are marked.

use fabricscope_charts::scale::gbps_label;
use fabricscope_model::report::tier_table;
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    /// The cluster's scale-up fabric and NIC (their rows are marked).
    pub scale_up: &'static str,
    pub nic: &'static str,
}

impl crate::widgets::Panel for Props {
    /// The catalog's table: drawn again only when the cluster's fabric or NIC changes.
    fn view(&self) -> Html {
        table(self)
    }
}

fn table(props: &Props) -> Html {
    let (su, nic) = (props.scale_up, props.nic);
    let rows = tier_table().into_iter().map(|r| {
        let mine = r.name.starts_with(su) || r.name.starts_with(nic);
        html! {
            <tr class={mine.then_some("mine")} aria-current={mine.then_some("true")}>
                <th scope="row">{ &r.name }{ if mine { " ◀" } else { "" } }</th>
                <td class="num" data-label="per dir.">{ gbps_label(r.per_direction.0) }</td>
                <td class="num" data-label="bidir.">{ gbps_label(r.bidirectional.0) }</td>
                <td class="num" data-label="latency">{ r.latency.to_string() }</td>
                <td data-label="Domain">{ r.facts.domain }</td>
                <td data-label="Congestion control">{ r.facts.congestion_control }</td>
                <td data-label="Best fit">{ r.facts.best_fit }</td>
            </tr>
        }
    });
    html! {
        <section class="panel table-panel wide" data-testid="tiers" aria-labelledby="tiers-h">
            <h3 id="tiers-h">{ "7 · Interconnect tiers compared" }</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="tiers-h">
                <table>
                    <colgroup><col class="c-name" /><col class="c-num" /><col class="c-num" /><col class="c-num" /><col /><col /><col /></colgroup>
                    <thead><tr>
                        <th scope="col">{ "Tier" }</th><th scope="col" class="num">{ "GB/s per dir." }</th><th scope="col" class="num">{ "GB/s bidir." }</th>
                        <th scope="col" class="num">{ "Latency" }</th><th scope="col">{ "Domain" }</th><th scope="col">{ "Congestion control" }</th><th scope="col">{ "Best fit" }</th>
                    </tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            <p class="muted small">{ "Scale-up rows: per GPU with the GPU it ships with; NIC rows: per NIC. ◀ marks this cluster's fabric and NIC." }</p>
        </section>
    }
}
