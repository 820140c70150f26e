//! Panel 4: the right-sizer. A button runs it (in slices, see `super::rightsize`); its answer
//! is the Pareto chart of the fabric options (`fabricscope_charts::pareto`, the CLI's renderer)
//! and the pick in words, priced again from the page's book on every edit (no new run).

use crate::widgets::{cached, ChartSvg};
use super::rightsize::Sized;
use fabricscope_charts::pareto::pareto_chart;
use fabricscope_charts::Theme;
use fabricscope_design::bom::PriceBook;
use fabricscope_design::rightsize::{Axis, RightSize};
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub sized: Option<Rc<Sized>>,
    pub progress: Option<(usize, usize)>,
    pub start: Callback<()>,
    pub job: String,
    /// The page's price book: the answer is priced from it.
    pub book: PriceBook,
    pub dark: bool,
    pub compact: bool,
}

/// The chart and the pick, in words, and the design's own fabric's figure (`base`).
fn answer(r: &RightSize, base: &fabricscope_model::Cluster, dark: bool, compact: bool) -> Html {
    let (w, h) = if compact { (360, 260) } else { (720, 340) };
    let ranked = r.candidates.iter().filter(|c| c.comparable(r.axis)).count();
    // No chart without a ranked option: the words below say why and name the fastest.
    let chart = (ranked > 0).then(|| html! { <ChartSvg svg={pareto_chart(r, w, h, &Theme::for_dark(dark))} /> });
    let pick = match (r.fastest, r.pick) {
        (Some(fi), Some(pi)) => {
            let (f, p) = (&r.candidates[fi], &r.candidates[pi]);
            let rest = match r.pick_saves() {
                _ if fi == pi => ", itself the fastest.".to_string(),
                Some(x) => format!(", {} less than the fastest ranked option; fastest of all: {}, {:.3} s.", r.axis.amount(x), f.label, f.step_time_s),
                None => format!("; fastest of all: {}, {:.3} s.", f.label, f.step_time_s),
            };
            html! {
                <p data-testid="rightsize-pick">{ "Cheapest within 2% of the fastest: " }<strong>{ &p.label }</strong>{ format!(", {:.3} s per step ({})", p.step_time_s, p.layout) }{ rest }</p>
            }
        }
        _ => Html::default(),
    };
    let none = r.pick.is_none().then(|| {
        let fastest = r.fastest.map_or(String::new(), |i| format!(" Fastest: {}, {:.3} s per step.", r.candidates[i].label, r.candidates[i].step_time_s));
        html! {
            <p data-testid="rightsize-none">{ format!(
                "No option can be ranked: an option is ranked by power only when every part has a figure, and there is no published power for {} (give them a power figure or prices in the price book).{fastest}",
                r.missing_power().join(", ")
            ) }</p>
        }
    });
    let steps = r.steps.iter().take(4).map(|s| {
        html! { <li>{ format!("{} → {}: saves {} ({:.1}%) for {:.1}% longer steps", r.candidates[s.from].label, r.candidates[s.to].label, r.axis.amount(s.saves), 100.0 * s.saves_frac, 100.0 * s.slower_frac) }</li> }
    });
    let systems = format!(
        "{ranked} of {} options ranked by {}{}. Systems: {}. Each is timed with the layouts the search ranks best here ({}).",
        r.candidates.len(),
        if r.axis == Axis::CostUsd { "cost" } else { "power (price every item of your system to rank by cost)" },
        match r.missing_power() {
            m if r.axis == Axis::PowerKw && !m.is_empty() => format!("; not ranked: no published power for {}", m.join(", ")),
            _ => String::new(),
        },
        r.systems().join(", "),
        r.layouts.join(", ")
    );
    // The design as it stands, timed as every option is: the step the explorer and the table show.
    let own = r.own(base).map(|c| html! {
        <p data-testid="rightsize-own" data-value={c.step_time_s.to_string()}>{ format!("This design's own fabric, {}: {:.3} s per step ({}).", c.label, c.step_time_s, c.layout) }</p>
    });
    html! { <>
        { chart }
        { own }
        { pick }
        { none }
        <ul class="small">{ for steps }</ul>
        <p class="muted small" data-testid="rightsize-systems">{ systems }</p>
    </> }
}

/// The last answer drawn (its number, dark, compact, book) and its markup.
type Drawn = Option<((u64, bool, bool, PriceBook), Html)>;

thread_local! {
    static DRAWN: std::cell::RefCell<Drawn> = const { std::cell::RefCell::new(None) };
}

pub fn rightsize_panel(p: &Props) -> Html {
    let body = match (&p.sized, p.progress) {
        (_, Some((done, total))) => html! { <p class="muted" aria-live="polite">{ format!("Costing and timing fabric options… {done} of {total}") }</p> },
        (Some(s), None) => match &s.result {
            Ok(r) => DRAWN.with(|c| cached(c, (s.seq, p.dark, p.compact, p.book.clone()), |(_, _, _, book)| answer(&r.repriced(book), &s.key.0, p.dark, p.compact))),
            Err(e) => html! { <p class="error">{ e.to_string() }</p> },
        },
        (None, None) => Html::default(),
    };
    let start = p.start.clone();
    html! {
        <section class="panel wide rightsize" data-testid="rightsize" aria-labelledby="rightsize-h">
            <h3 id="rightsize-h">{ "4 · Right-size the fabric" }</h3>
            <p class="muted small">{ "The scale-up domain (8-GPU servers or NVL72 racks, 8- or 4-GPU boards), the NICs each platform ships with, NICs per node, rails or not, 1:1 to 3:1 at each tier: every fabric for these GPUs, costed from its bill of materials and timed on the job." }</p>
            <button type="button" disabled={p.progress.is_some()} onclick={Callback::from(move |_| start.emit(()))} data-testid="rightsize-run">{ format!("Right-size for {}", p.job) }</button>
            { body }
        </section>
    }
}
