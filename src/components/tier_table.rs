//! Panel 5: the catalog's tiers side by side, generated from `tier_table()`; rows of the
//! current cluster's fabric and NIC are marked.

use fabricscope_charts::scale::gbps_label;
use fabricscope_model::report::tier_table;
use fabricscope_model::Cluster;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub cluster: Cluster,
}

#[component]
pub fn TierTable(props: &Props) -> Html {
    let rows = use_memo((), |_| tier_table());
    let su = props.cluster.scale_up.name();
    let nic = props.cluster.nic.spec().name;
    html! {
        <section class="panel table-panel wide" data-testid="tiers" aria-labelledby="tiers-h">
            <h3 id="tiers-h">{ "5 · Interconnect tiers compared" }</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="tiers-h">
                <table>
                    <colgroup>
                        <col class="c-name" /><col class="c-num" /><col class="c-num" /><col class="c-num" /><col /><col /><col />
                    </colgroup>
                    <thead>
                        <tr>
                            <th scope="col">{ "Tier" }</th>
                            <th scope="col" class="num">{ "GB/s per dir." }</th>
                            <th scope="col" class="num">{ "GB/s bidir." }</th>
                            <th scope="col" class="num">{ "Latency" }</th>
                            <th scope="col">{ "Domain" }</th>
                            <th scope="col">{ "Congestion control" }</th>
                            <th scope="col">{ "Best fit" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|r| {
                            let mine = r.name.starts_with(su) || r.name.starts_with(nic);
                            html! {
                                <tr class={classes!(mine.then_some("mine"))} aria-current={mine.then_some("true")}>
                                    <th scope="row">{ &r.name }{ if mine { " ◀" } else { "" } }</th>
                                    <td class="num">{ gbps_label(r.per_direction.0) }</td>
                                    <td class="num">{ gbps_label(r.bidirectional.0) }</td>
                                    <td class="num">{ r.latency.to_string() }</td>
                                    <td>{ r.facts.domain }</td>
                                    <td>{ r.facts.congestion_control }</td>
                                    <td>{ r.facts.best_fit }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            <p class="muted small">{ "Scale-up rows: per GPU with the GPU it ships with; NIC rows: per NIC. ◀ marks this cluster's fabric and NIC." }</p>
        </section>
    }
}
