//! Panel 5b: rules of thumb beside what the model says for this cluster (Report.claims).

use crate::eval::Evaluation;
use crate::training::TrainingView;
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
    html! {
        <section class="panel prose" data-testid="claims" aria-labelledby="claims-h">
            <h3 id="claims-h">{ "5 · Rules of thumb, checked" }</h3>
            if claims.is_empty() {
                <p class="muted">{ "This cluster has no second tier to compare: add nodes and NICs." }</p>
            }
            <dl class="claims">
                { for claims.iter().map(|c| html! {
                    <div class="claim" data-claim={c.id}>
                        <dt>{ format!("“{}”", c.claim) }</dt>
                        <dd>
                            <span class="claim-value" data-value={c.value.to_string()}>{ format!("{:.1}×", c.value) }</span>
                            { " " }{ &c.answer }
                        </dd>
                    </div>
                }) }
                { for rules.iter().map(|r| html! {
                    <div class="claim" data-claim={r.id.clone()}>
                        <dt>{ format!("“{}”", r.claim) }</dt>
                        <dd>
                            if let Some(x) = r.ratio {
                                <span class="claim-value" data-value={x.to_string()}>{ format!("{:.2}×", x) }</span>
                                { " " }
                            }
                            { &r.answer }
                        </dd>
                    </div>
                }) }
            </dl>
        </section>
    }
}
