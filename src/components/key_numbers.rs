//! The headline numbers at the chosen size (1 GiB unless the picker says otherwise): busbw,
//! time, which algorithm and protocol NCCL picks, and what limits it.

use crate::app::Action;
use fabricscope_model::trust::Trust;
use fabricscope_model::Collective;
use crate::eval::{bottleneck_text, in_racks, size_words, Evaluation, KEY_CHOICES};
use fabricscope_charts::scale::gbps_label;
use super::{esc, raw};
use std::fmt::Write;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
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

/// The headline's band in a few words ("±2%", "±2%, extrapolated", "not validated"); the
/// full sentence is [`Trust::describe`] on the line under the cards.
fn band_words(t: &Trust) -> String {
    match t.error_band_pct {
        None => "not validated".to_string(),
        Some(p) if t.extrapolated => format!("±{p:.0}%, extrapolated"),
        Some(p) => format!("±{p:.0}%"),
    }
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn key_numbers(props: &Props) -> Html {
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
    let mut o = String::with_capacity(2048);
    o.push_str("<div class=\"stats\" data-testid=\"stats\">");
    let op = props.op.name();
    // AllReduce's limit is read in words (the reading); another collective's names its bottleneck.
    let reading = e.reading.as_ref().filter(|_| props.op == Collective::AllReduce);
    let mut trust_line = String::new();
    match &e.key_of(props.op) {
        None => o.push_str("<div class=\"stat\" data-testid=\"gpus\"><span class=\"stat-label\">GPUs</span><span class=\"stat-value\" data-value=\"1\">1</span><span class=\"stat-sub\">a single GPU has nobody to talk to</span></div>"),
        Some(k) => {
            let _ = write!(
                o,
                "<div class=\"stat accent\" data-testid=\"busbw\"><span class=\"stat-label\">{op} busbw at {size}</span><span class=\"stat-value\"><span data-testid=\"busbw-value\" data-value=\"{}\">{}</span><span class=\"unit\"> GB/s</span></span><span class=\"stat-sub\">per direction, per GPU · {}</span></div>",
                k.busbw.0,
                gbps_label(k.busbw.0),
                band_words(&k.trust)
            );
            // The whole trust sentence (its measured scale, how far outside it this cluster
            // is) on a full-width line: in the card it wrapped to 4 or 6 lines as a dragged
            // slider crossed the measured scale, moving every panel below on each input.
            trust_line = format!("<p class=\"trust-line\">{op} busbw: <span data-testid=\"trust\">{}</span></p>", esc(&k.trust.describe()));
            let _ = write!(
                o,
                "<div class=\"stat\" data-testid=\"time\"><span class=\"stat-label\">Time for {size}</span><span class=\"stat-value\" data-value=\"{}\">{}</span><span class=\"stat-sub\">algbw {} GB/s</span></div>",
                k.time.0,
                esc(&k.time.to_string()),
                gbps_label(k.algbw.0)
            );
            let _ = write!(
                o,
                "<div class=\"stat\" data-testid=\"choice\"><span class=\"stat-label\">{lib}'s choice at {size}</span><span class=\"stat-value\" data-testid=\"algorithm\">{}</span><span class=\"stat-sub\"><span data-testid=\"protocol\">{}</span> protocol · limited by {}</span></div>",
                esc(k.algorithm),
                esc(k.protocol),
                esc(&reading.map_or_else(|| bottleneck_text(k.bottleneck).to_string(), |r| r.limited_by.clone())),
                lib = s.library
            );
            let _ = write!(
                o,
                "<div class=\"stat\" data-testid=\"gpus\"><span class=\"stat-label\">GPUs in the {op}</span><span class=\"stat-value\" data-value=\"{}\">{}</span><span class=\"stat-sub\">{}</span></div>",
                e.total_gpus,
                e.total_gpus,
                esc(&gpus_sub)
            );
        }
    }
    o.push_str("</div>");
    html! {
        <div class="headline">
            { size_picker(e.key_bytes, &props.on_action) }
            { raw(o) }
            if !trust_line.is_empty() {
                { raw(trust_line) }
            }
        </div>
    }
}
