//! The headline numbers in one line that stays on screen (sticky) while the controls scroll on
//! a phone, where the results sit below about 900 px of controls: the chosen collective's busbw at the
//! headline size, the tier that limits it, and the training step time and MFU once searched.

use crate::eval::{bottleneck_text, size_words, Evaluation};
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::ModelError;
use super::{esc, raw};
use std::fmt::Write;
use std::rc::Rc;
use yew::prelude::*;

/// Drawn as a plain function, as one HTML string (a line of text, redrawn with the numbers).
pub fn summary_bar(eval: &Evaluation, op: fabricscope_model::Collective, training: &Option<Rc<Result<TrainingView, ModelError>>>, stale: bool) -> Html {
    let mut o = String::with_capacity(512);
    o.push_str("<div class=\"summary-bar\" data-testid=\"summary-bar\" aria-hidden=\"true\">");
    match &eval.key_of(op) {
        Some(k) => {
            let _ = write!(
                o,
                "<span>{} {} <b data-value=\"{}\">{} GB/s</b> busbw</span><span>limited by {}</span>",
                op.name(),
                size_words(eval.key_bytes),
                k.busbw.0,
                gbps_label(k.busbw.0),
                bottleneck_text(k.bottleneck)
            );
        }
        None => o.push_str("<span>1 GPU: no collective</span>"),
    }
    if let Some(Ok(TrainingView { chosen: Some(c), .. })) = training.as_deref() {
        let _ = write!(o, "<span>step <b>{}</b> · MFU <b>{:.0}%</b></span>", esc(&seconds_label(c.step_time_s)), c.mfu * 100.0);
    }
    if stale {
        o.push_str("<span class=\"summary-stale\">last valid cluster</span>");
    }
    o.push_str("</div>");
    raw(o)
}
