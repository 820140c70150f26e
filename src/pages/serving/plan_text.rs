//! What the planner's views share: the question as a `fabricscope serve --search` line, a
//! figure with its 90% interval under it, and the button that starts a plan with its progress.

use super::plan_job::PlanForm;
use crate::widgets::serving_choice::ServingChoice;
use fabricscope_charts::scale::interval_label;
use fabricscope_model::cluster_flags::cli_flags;
use fabricscope_model::interval::Interval;
use fabricscope_model::Cluster;
use fabricscope_serving::planner::Mode;
use fabricscope_serving::DEFAULTS;
use yew::prelude::*;

/// The same question as `fabricscope serve --search` flags.
pub fn cli_line(cluster: &Cluster, choice: &ServingChoice, f: &PlanForm) -> String {
    let mut l = format!(
        "fabricscope serve --search --rate {} --ttft-ms {} --tpot-ms {} --model {} --precision {} --input-len {} --output-len {}",
        f.rate,
        f.ttft_ms,
        f.tpot_ms,
        choice.model,
        choice.precision.id(),
        choice.input_len,
        DEFAULTS.output_len
    );
    if f.mode != Mode::Auto {
        l.push_str(if f.mode == Mode::Disaggregated { " --disaggregated true" } else { " --disaggregated false" });
    }
    if let Some(e) = f.engine {
        l.push_str(&format!(" --engine {}", e.id()));
    }
    if let Some(p) = f.percentile {
        l.push_str(&format!(" --percentile {p}"));
    }
    if f.prefix_cache_hit > 0.0 {
        l.push_str(&format!(" --prefix-cache-hit {}", f.prefix_cache_hit));
    }
    if f.mtp_acceptance != 1.0 {
        l.push_str(&format!(" --mtp-acceptance {}", f.mtp_acceptance));
    }
    format!("{l} {}", cli_flags(cluster))
}

/// A figure and, under it, its 90% interval.
pub fn with_interval(v: String, i: Option<&Interval>) -> Html {
    html! { <>{ v }if let Some(i) = i { <br /><span class="muted small">{ interval_label(i.lo, i.hi) }</span> }</> }
}


/// The button that starts a plan (`ids`: its test id and its status's) and the status beside it
/// ("planning: 40% of 96 layouts").
pub fn run_button(ids: (&'static str, &'static str), text: &'static str, progress: Option<(usize, usize)>, start: &Callback<()>) -> Html {
    html! {
        <>
            <button type="button" data-testid={ids.0} disabled={progress.is_some()} onclick={start.reform(|_: MouseEvent| ())}>{ text }</button>
            <span class="status" role="status" data-testid={ids.1}>
                { match progress {
                    Some((d, t)) if t > 0 => format!("planning: {}% of {t} layouts", 100 * d / t),
                    Some(_) => "planning…".to_string(),
                    None => String::new(),
                } }
            </span>
        </>
    }
}
