//! Panel 5b: rules of thumb beside what the model says for this cluster (Report.claims).

use crate::eval::Evaluation;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::ModelError;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
    pub training: Option<Rc<Result<TrainingView, ModelError>>>,
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn claims(props: &Props) -> Html {
    let claims = &props.eval.report.claims;
    let rules = props.training.as_deref().and_then(|t| t.as_ref().ok()).map(|t| t.rules.clone()).unwrap_or_default();
    // A ratio of two outcomes reads "1.7×"; a share of the step reads "3%".
    let item = |id: &str, claim: &str, value: Option<f64>, share: bool, answer: &str| {
        let value = value.map(|v| {
            let shown = if share { format!("{:.0}% of step", v * 100.0) } else if v >= 1.0 { format!("{v:.1}×") } else { format!("{v:.2}×") };
            html! { <><span class="claim-value" data-value={v.to_string()}>{ shown }</span>{ " " }</> }
        });
        html! {
            <div class="claim" data-claim={id.to_string()}>
                <dt>{ format!("“{claim}”") }</dt>
                <dd>{ value }{ answer }</dd>
            </div>
        }
    };
    html! {
        <section class="panel prose" data-testid="claims" aria-labelledby="claims-h">
            <h3 id="claims-h">{ "6 · Rules of thumb, checked" }</h3>
            if claims.is_empty() {
                <p class="muted">{ "This cluster has no second tier to compare: add nodes and NICs." }</p>
            }
            <dl class="claims">
                { for claims.iter().map(|c| item(c.id, c.claim, Some(c.value), false, &c.answer)) }
                { for rules.iter().map(|r| item(&r.id, &r.claim, r.ratio, r.ratio_is_share, &r.answer)) }
            </dl>
        </section>
    }
}
