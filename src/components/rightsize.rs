//! Panel 4: the right-sizer. A button runs it (in slices, see `crate::rightsize`); its answer
//! is the Pareto chart of the fabric options (`fabricscope_charts::pareto`, the CLI's renderer)
//! and the pick in words, priced again from the page's book on every edit (no new run).

use super::{cached, esc};
use crate::rightsize::Sized;
use fabricscope_charts::pareto::pareto_chart;
use fabricscope_charts::Theme;
use fabricscope_design::bom::PriceBook;
use fabricscope_design::rightsize::{Axis, RightSize};
use std::fmt::Write;
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

/// The chart and the pick, in words.
fn answer_html(r: &RightSize, dark: bool, compact: bool) -> String {
    let (w, h) = if compact { (360, 260) } else { (720, 340) };
    let unit = if r.axis == Axis::CostUsd { "USD" } else { "kW" };
    let ranked = r.candidates.iter().filter(|c| c.comparable(r.axis)).count();
    // No chart without a ranked option: the words below say why and name the fastest.
    let mut o = if ranked > 0 { pareto_chart(r, w, h, &Theme::for_dark(dark)) } else { String::new() };
    if let (Some(fi), Some(pi)) = (r.fastest, r.pick) {
        let (f, p) = (&r.candidates[fi], &r.candidates[pi]);
        let _ = write!(o, "<p data-testid=\"rightsize-pick\">Cheapest within 2% of the fastest: <strong>{}</strong>, {:.3} s per step ({})", esc(&p.label), p.step_time_s, esc(&p.layout));
        match r.pick_saves() {
            _ if fi == pi => o.push_str(", itself the fastest.</p>"),
            Some(x) => {
                let _ = write!(o, ", {x:.1} {unit} less than the fastest ranked option; fastest of all: {}, {:.3} s.</p>", esc(&f.label), f.step_time_s);
            }
            None => {
                let _ = write!(o, "; fastest of all: {}, {:.3} s.</p>", esc(&f.label), f.step_time_s);
            }
        }
    }
    if r.pick.is_none() {
        let missing = r.missing_power();
        let fastest = r.fastest.map_or(String::new(), |i| format!(" Fastest: {}, {:.3} s per step.", esc(&r.candidates[i].label), r.candidates[i].step_time_s));
        let _ = write!(o, "<p data-testid=\"rightsize-none\">No option can be ranked: an option is ranked by power only when every part has a figure, and there is no published power for {} (give them a power figure or prices in the price book).{fastest}</p>", esc(&missing.join(", ")));
    }
    o.push_str("<ul class=\"small\">");
    for s in r.steps.iter().take(4) {
        let _ = write!(
            o,
            "<li>{} → {}: saves {:.1} {unit} ({:.1}%) for {:.1}% longer steps</li>",
            esc(&r.candidates[s.from].label),
            esc(&r.candidates[s.to].label),
            s.saves,
            100.0 * s.saves_frac,
            100.0 * s.slower_frac
        );
    }
    let _ = write!(
        o,
        "</ul><p class=\"muted small\" data-testid=\"rightsize-systems\">{ranked} of {} options ranked by {}{}. Systems: {}. Each is timed with the layouts the search ranks best here ({}).</p>",
        r.candidates.len(),
        if r.axis == Axis::CostUsd { "cost" } else { "power (price every item of your system to rank by cost)" },
        match r.missing_power() {
            m if r.axis == Axis::PowerKw && !m.is_empty() => format!("; not ranked: no published power for {}", esc(&m.join(", "))),
            _ => String::new(),
        },
        esc(&r.systems().join(", ")),
        esc(&r.layouts.join(", "))
    );
    o
}

/// The last answer drawn (its number, dark, compact, book) and its markup.
type Drawn = Option<((u64, bool, bool, PriceBook), AttrValue)>;

thread_local! {
    static DRAWN: std::cell::RefCell<Drawn> = const { std::cell::RefCell::new(None) };
}

/// The heading and what the panel does (static markup).
const HEAD: &str = "<h3 id=\"rightsize-h\">4 · Right-size the fabric</h3><p class=\"muted small\">The scale-up domain (8-GPU servers or NVL72 racks, 8- or 4-GPU boards), the NICs each platform ships with, NICs per node, rails or not, 1:1 to 3:1 at each tier: every fabric for these GPUs, costed from its bill of materials and timed on the job.</p>";

pub fn rightsize_panel(p: &Props) -> Html {
    let body = match (&p.sized, p.progress) {
        (_, Some((done, total))) => AttrValue::from(format!("<p class=\"muted\" aria-live=\"polite\">Costing and timing fabric options… {done} of {total}</p>")),
        (Some(s), None) => match &s.result {
            Ok(r) => DRAWN.with(|c| cached(c, (s.seq, p.dark, p.compact, p.book.clone()), |(_, _, _, book)| AttrValue::from(answer_html(&r.repriced(book), p.dark, p.compact)))),
            Err(e) => AttrValue::from(format!("<p class=\"error\">{}</p>", esc(&e.to_string()))),
        },
        (None, None) => AttrValue::Static(""),
    };
    let start = p.start.clone();
    html! {
        <section class="panel wide rightsize" data-testid="rightsize" aria-labelledby="rightsize-h">
            { Html::from_html_unchecked(AttrValue::Static(HEAD)) }
            <button type="button" disabled={p.progress.is_some()} onclick={Callback::from(move |_| start.emit(()))} data-testid="rightsize-run">{ format!("Right-size for {}", p.job) }</button>
            { Html::from_html_unchecked(body) }
        </section>
    }
}
