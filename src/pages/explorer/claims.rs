//! Panel 5b: rules of thumb beside what the model says for this cluster (Report.claims).

use crate::widgets::{Same, Trained};
use crate::widgets::eval::Evaluation;
use yew::prelude::*;

#[derive(PartialEq, Clone)]
pub struct Props {
    pub eval: Same<Evaluation>,
    pub training: Trained,
    /// The panel's element (App observes whether it is on screen).
    pub node: NodeRef,
}

impl crate::widgets::Panel for Props {
    /// Drawn again only when the evaluation or the training view changes (and, off screen,
    /// not while a slider is dragged).
    fn view(&self) -> Html {
        claims(self)
    }
}

fn claims(props: &Props) -> Html {
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
        <section ref={props.node.clone()} class="panel prose" data-testid="claims" aria-labelledby="claims-h">
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
