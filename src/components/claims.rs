//! Panel 5b: rules of thumb beside what the model says for this cluster (Report.claims).

use crate::eval::Evaluation;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub eval: Rc<Evaluation>,
}

#[component]
pub fn Claims(props: &Props) -> Html {
    let claims = &props.eval.report.claims;
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
            </dl>
        </section>
    }
}
