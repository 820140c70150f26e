//! The headline numbers at the chosen size (1 GiB unless the picker says otherwise): busbw,
//! time, which algorithm and protocol NCCL picks, and what limits it.

use crate::widgets::state::Action;
use fabricscope_model::calibration::apply::collective_ratios;
use fabricscope_model::{Collective, Prediction};
use crate::widgets::eval::{bottleneck_text, in_racks, size_words, Evaluation, KEY_CHOICES};
use fabricscope_charts::scale::{gbps_label, interval_label};
use crate::widgets::Same;
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    pub eval: Same<Evaluation>,
    /// The collective chosen in the throughput panel: the headline follows it.
    pub op: Collective,
    pub on_action: Callback<Action>,
}

/// The headline-size picker.
fn size_picker(current: u64, on_action: &Callback<Action>) -> Html {
    let cb = on_action.clone();
    let onchange = Callback::from(move |e: Event| {
        let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
        if let Ok(b) = sel.value().parse::<u64>() {
            cb.emit(Action::KeyBytes(b));
        }
    });
    html! {
        <label class="key-size">
            { "Headline size " }
            <select {onchange} data-testid="key-size" aria-label="Message size of the headline numbers">
                { for KEY_CHOICES.iter().map(|b| html! { <option value={b.to_string()} selected={*b == current}>{ size_words(*b) }</option> }) }
            </select>
        </label>
    }
}

/// The headline busbw's 90% interval in a few words ("90%: 304-331", "90%: 210-380,
/// extrapolated", "not validated"); what it rests on is behind the line under the cards.
pub(super) fn interval_words(k: &Prediction) -> String {
    match collective_ratios(&k.trust) {
        Some((lo, hi)) if k.trust.extrapolated => format!("{}, extrapolated", interval_label(k.busbw.0 * lo, k.busbw.0 * hi)),
        Some((lo, hi)) => interval_label(k.busbw.0 * lo, k.busbw.0 * hi),
        None => "not validated".to_string(),
    }
}

/// A training figure's interval in a few words, or "not validated".
pub(super) fn range_words(range: Option<[f64; 2]>, scale: f64) -> String {
    range.map_or_else(|| "not validated".to_string(), |[lo, hi]| interval_label(lo * scale, hi * scale))
}

/// A step's 90% interval in the unit its headline uses ("90%: 336-549 ms", "90%: 5.68-9.29 s").
pub(super) fn step_range_words(c: &fabricscope_model::training::StepReport) -> String {
    let (scale, unit) = if c.step_time_s < 1.0 { (1000.0, "ms") } else { (1.0, "s") };
    format!("{} {unit}", range_words(c.step_time_interval(), scale))
}

/// What an interval means, in one sentence (issue 34): the long provenance is behind a
/// disclosure.
pub(super) const INTERVAL_MEANING: &str = "9 in 10 measurements of this kind fell inside when left out";

impl crate::widgets::Panel for Props {
    /// Drawn again only when the evaluation or the collective changes (`on_action` is App's
    /// one stable callback).
    fn view(&self) -> Html {
        key_numbers(self)
    }
}

fn key_numbers(props: &Props) -> Html {
    let e = &props.eval;
    let size_text = size_words(e.key_bytes);
    let size = size_text.as_str();
    let s = &e.report.summary;
    let gpus_sub = format!(
        "{} {} × {} · {} domain{} of {}",
        e.cluster.nodes,
        if in_racks(&e.cluster) { "trays" } else { "nodes" },
        e.cluster.gpus_per_node,
        s.domains,
        if s.domains == 1 { "" } else { "s" },
        s.domain_gpus
    );
    let op = props.op.name();
    // AllReduce's limit is read in words (the reading); another collective's names its bottleneck.
    let reading = e.reading.as_ref().filter(|_| props.op == Collective::AllReduce);
    let stats = match &e.key_of(props.op) {
        None => html! {
            <div class="stat" data-testid="gpus"><span class="stat-label">{ "GPUs" }</span><span class="stat-value" data-value="1">{ "1" }</span><span class="stat-sub">{ "a single GPU has nobody to talk to" }</span></div>
        },
        Some(k) => html! { <>
            <div class="stat accent" data-testid="busbw">
                <span class="stat-label">{ format!("{op} busbw at {size}") }</span>
                <span class="stat-value"><span data-testid="busbw-value" data-value={k.busbw.0.to_string()}>{ gbps_label(k.busbw.0) }</span><span class="unit">{ " GB/s" }</span></span>
                <span class="stat-sub">{ format!("per direction, per GPU · {}", interval_words(k)) }</span>
            </div>
            <div class="stat" data-testid="time">
                <span class="stat-label">{ format!("Time for {size}") }</span>
                <span class="stat-value" data-value={k.time.0.to_string()}>{ k.time.to_string() }</span>
                <span class="stat-sub">{ format!("algbw {} GB/s", gbps_label(k.algbw.0)) }</span>
            </div>
            <div class="stat" data-testid="choice">
                <span class="stat-label">{ format!("{}'s choice at {size}", s.library) }</span>
                <span class="stat-value" data-testid="algorithm">{ k.algorithm }</span>
                <span class="stat-sub"><span data-testid="protocol">{ k.protocol }</span>{ format!(" protocol · limited by {}", reading.map_or_else(|| bottleneck_text(k.bottleneck).to_string(), |r| r.limited_by.clone())) }</span>
            </div>
            <div class="stat" data-testid="gpus">
                <span class="stat-label">{ format!("GPUs in the {op}") }</span>
                <span class="stat-value" data-value={e.total_gpus.to_string()}>{ e.total_gpus }</span>
                <span class="stat-sub">{ gpus_sub }</span>
            </div>
        </> },
    };
    html! {
        <div class="headline">
            { size_picker(e.key_bytes, &props.on_action) }
            <div class="stats" data-testid="stats">{ stats }</div>
            // The whole trust sentence (its measured scale, how far outside it this cluster
            // is) on a full-width line: in the card it wrapped to 4 or 6 lines as a dragged
            // slider crossed the measured scale, moving every panel below on each input.
            if let Some(k) = e.key_of(props.op) {
                <p class="trust-line" data-testid="interval">{ format!("{op} busbw {} GB/s: {INTERVAL_MEANING} ", interval_words(&k)) }<span data-testid="trust">{ k.trust.rests_on() }</span></p>
            }
            if let (true, Some(words)) = (cfg!(feature = "calibrate"), &e.calibrated) {
                <p class="trust-line" data-testid="calibrated">{ format!("{words}. The catalog design is the same link without the calibration (Check's \"as designed\" link).") }</p>
            }
        </div>
    }
}
