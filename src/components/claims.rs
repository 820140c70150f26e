//! Panel 5b: rules of thumb beside what the model says for this cluster (Report.claims).

use crate::eval::Evaluation;
use fabricscope_model::training::explore::TrainingView;
use fabricscope_model::ModelError;
use super::{esc, raw};
use std::fmt::Write;
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
    let mut o = String::with_capacity(4096);
    o.push_str("<section class=\"panel prose\" data-testid=\"claims\" aria-labelledby=\"claims-h\"><h3 id=\"claims-h\">6 · Rules of thumb, checked</h3>");
    if claims.is_empty() {
        o.push_str("<p class=\"muted\">This cluster has no second tier to compare: add nodes and NICs.</p>");
    }
    o.push_str("<dl class=\"claims\">");
    // A ratio of two outcomes reads "1.7×"; a share of the step reads "3%".
    let mut item = |id: &str, claim: &str, value: Option<f64>, share: bool, answer: &str| {
        let _ = write!(o, "<div class=\"claim\" data-claim=\"{}\"><dt>“{}”</dt><dd>", esc(id), esc(claim));
        if let Some(v) = value {
            let shown = if share { format!("{:.0}% of step", v * 100.0) } else if v >= 1.0 { format!("{v:.1}×") } else { format!("{v:.2}×") };
            let _ = write!(o, "<span class=\"claim-value\" data-value=\"{v}\">{shown}</span> ");
        }
        let _ = write!(o, "{}</dd></div>", esc(answer));
    };
    for c in claims {
        item(c.id, c.claim, Some(c.value), false, &c.answer);
    }
    for r in &rules {
        item(&r.id, &r.claim, r.ratio, r.ratio_is_share, &r.answer);
    }
    o.push_str("</dl></section>");
    raw(o)
}
