//! The compare page's serving overlay: one served model and deployment shape on each pinned
//! design, their curves (tokens/s per GPU against per user as batch grows) on one chart drawn
//! by the explorer's renderer. A design that cannot host the deployment is named with the
//! model's reason, never dropped in silence.

use crate::widgets::serving_choice::{field_select, Field};
use crate::widgets::ChartSvg;
use crate::widgets::serving_choice::ServingChoice;
use fabricscope_charts::serving::caption;
use fabricscope_charts::{serving_chart, ServingChart, ServingSeries, Theme};
use fabricscope_model::Cluster;
use fabricscope_serving::curve::curve_of;
use fabricscope_serving::step::Server;
use fabricscope_serving::{serving_preset, Precision};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Each pinned design: its label ("A · name") and cluster.
    pub designs: Vec<(String, Cluster)>,
    pub dark: bool,
    pub compact: bool,
}

/// The question people ask: DeepSeek-V3 wide-EP decode, EP 32 over 32 attention DP ranks.
fn default_choice() -> ServingChoice {
    ServingChoice { model: "deepseek-v3", tp: 1, ep: 32, dp: 32, batch: 64, precision: Precision::Fp8, ..ServingChoice::default() }
}

/// The overlay's SVG and, per design that cannot host the deployment, why.
fn overlay(designs: &[(String, Cluster)], c: &ServingChoice, dark: bool, compact: bool) -> (Option<AttrValue>, Vec<String>) {
    let Some(model) = serving_preset(c.model) else { return (None, vec![format!("unknown model {}", c.model)]) };
    let d = c.deployment();
    let mut series = Vec::new();
    let mut refused = Vec::new();
    for (name, cluster) in designs {
        let curve = cluster.topology().and_then(|t| curve_of(&mut Server::new(&t, &model)?, &d));
        match curve {
            Ok(cv) => series.push(ServingSeries::of(&cv, Some(format!("{name}: {}", cv.label())), Some(c.batch))),
            Err(e) => refused.push(format!("{name}: cannot host it: {}: {}", e.field.replace('_', " "), e.message)),
        }
    }
    if series.is_empty() {
        return (None, refused);
    }
    let (w, h) = if compact { (400, 400) } else { (760, 420) };
    (Some(serving_chart(&ServingChart { series, prefill: false, batch_labels: false, caption: false }, w, h, &Theme::for_dark(dark)).into()), refused)
}

#[function_component(CompareServing)]
pub fn compare_serving(p: &Props) -> Html {
    let node = use_node_ref();
    let in_view = crate::plumbing::hooks::use_on_screen(node.clone());
    let choice = use_state_eq(default_choice);
    let c = *choice;
    // Computed once per change of designs or deployment, and only once on screen.
    let drawn = use_mut_ref(|| None::<((Vec<(String, Cluster)>, ServingChoice, bool, bool), (Option<AttrValue>, Vec<String>))>);
    if in_view {
        let key = (p.designs.clone(), c, p.dark, p.compact);
        let mut cell = drawn.borrow_mut();
        if cell.as_ref().is_none_or(|(k, _)| *k != key) {
            let v = overlay(&p.designs, &c, p.dark, p.compact);
            *cell = Some((key, v));
        }
    }
    let (svg, refused) = drawn.borrow().as_ref().map(|(_, v)| v.clone()).unwrap_or_default();
    let max = p.designs.iter().map(|(_, c)| c.total_gpus()).max().unwrap_or(8);
    html! {
        <section ref={node} class="panel chart wide serving" data-testid="compare-serving" aria-labelledby="compare-serving-h">
            <div class="figcaption">
                <h2 id="compare-serving-h" class="chart-title">{ "Serving on each design" }</h2>
                <span class="chart-sub">{ "One model and deployment (decode) on every pinned design: where its TP or EP group leaves the NVLink domain, the curve drops" }</span>
            </div>
            <div class="toolbar" role="group" aria-label="Served model and deployment on every design">
                { for [Field::Model, Field::Tp, Field::Ep, Field::Dp, Field::Precision].iter().map(|f| field_select(*f, false, &choice, max, None)) }
            </div>
            if !refused.is_empty() {
                <ul class="notes" data-testid="compare-serving-refused">
                    { for refused.iter().map(|r| html! { <li>{ r.clone() }</li> }) }
                </ul>
            }
            if let Some(svg) = svg {
                <figure class="serving-figure">
                    <div class="chart-svg" data-testid="compare-serving-chart"><ChartSvg {svg} /></div>
                    <figcaption class="muted small">{ caption(false) }{ " The designs may differ in GPU (HBM bandwidth, FLOPs) as well as in fabric: the explorer's serving panel breaks one design's step down." }</figcaption>
                </figure>
            } else if refused.is_empty() {
                <p class="muted">{ "Pin designs above to compare how each serves." }</p>
            }
        </section>
    }
}
