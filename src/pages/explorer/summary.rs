//! The headline numbers in one line that stays on screen (sticky) while the controls scroll on
//! a phone, where the results sit below about 900 px of controls: the chosen collective's busbw at the
//! headline size with its 90% interval, the tier that limits it, and the training step time and MFU
//! with the step's once searched.

use crate::widgets::{Same, Trained};
use crate::widgets::eval::{bottleneck_text, size_words, Evaluation};
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::Collective;
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    pub eval: Same<Evaluation>,
    pub op: Collective,
    pub training: Trained,
    /// The controls hold a cluster the model refused (the numbers are the last valid one's).
    pub stale: bool,
}

impl crate::widgets::Panel for Props {
    /// Drawn again only when the evaluation, the collective, the training view or staleness
    /// change.
    fn view(&self) -> Html {
        summary_bar(self)
    }
}

fn summary_bar(props: &Props) -> Html {
    let (eval, op, stale) = (&props.eval, props.op, props.stale);
    let collective = match &eval.key_of(op) {
        Some(k) => html! {
            <>
                <span>{ format!("{} {} ", op.name(), size_words(eval.key_bytes)) }<b data-value={k.busbw.0.to_string()}>{ format!("{} GB/s", gbps_label(k.busbw.0)) }</b>{ format!(" busbw, {}", super::key_numbers::interval_words(k)) }</span>
                <span>{ format!("limited by {}", bottleneck_text(k.bottleneck)) }</span>
            </>
        },
        None => html! { <span>{ "1 GPU: no collective" }</span> },
    };
    let step = match props.training.as_deref() {
        Some(Ok(TrainingView { chosen: Some(c), .. })) => html! {
            <span>{ "step " }<b>{ seconds_label(c.step_time_s) }</b>{ format!(" ({}) · MFU ", super::key_numbers::step_range_words(c)) }<b>{ format!("{:.0}%", c.mfu * 100.0) }</b></span>
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
