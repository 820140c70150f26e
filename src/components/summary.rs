//! The headline numbers in one line that stays on screen (sticky) while the controls scroll on
//! a phone, where the results sit below about 900 px of controls: the chosen collective's busbw at the
//! headline size, the tier that limits it, and the training step time and MFU once searched.

use crate::eval::{bottleneck_text, size_words, Evaluation};
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::ModelError;
use std::rc::Rc;
use yew::prelude::*;

/// Drawn as a plain function (a line of text, redrawn with the numbers).
pub fn summary_bar(eval: &Evaluation, op: fabricscope_model::Collective, training: &Option<Rc<Result<TrainingView, ModelError>>>, stale: bool) -> Html {
    let collective = match &eval.key_of(op) {
        Some(k) => html! {
            <>
                <span>{ format!("{} {} ", op.name(), size_words(eval.key_bytes)) }<b data-value={k.busbw.0.to_string()}>{ format!("{} GB/s", gbps_label(k.busbw.0)) }</b>{ " busbw" }</span>
                <span>{ format!("limited by {}", bottleneck_text(k.bottleneck)) }</span>
            </>
        },
        None => html! { <span>{ "1 GPU: no collective" }</span> },
    };
    let step = match training.as_deref() {
        Some(Ok(TrainingView { chosen: Some(c), .. })) => html! {
            <span>{ "step " }<b>{ seconds_label(c.step_time_s) }</b>{ " · MFU " }<b>{ format!("{:.0}%", c.mfu * 100.0) }</b></span>
        },
        _ => Html::default(),
    };
    html! {
        <div class="summary-bar" data-testid="summary-bar" aria-hidden="true">
            { collective }
            { step }
            if stale { <span class="summary-stale">{ "last valid cluster" }</span> }
        </div>
    }
}
