//! Panel 2: collective throughput against message size (8 B to 16 GiB), inside one scale-up
//! domain and across the whole cluster, like an nccl-tests plot, with NCCL's algorithm and
//! protocol marked wherever its choice changes. busbw by default, algbw on a toggle.

use crate::app::Action;
use crate::eval::{choice_changes, Evaluation, KEY_BYTES, SWEEP_MAX, SWEEP_MIN};
use fabricscope_charts::{collective_chart, ChartOptions, Mark, Series, Theme};
use fabricscope_model::report::{Curve, Scope};
use fabricscope_model::Collective;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
    pub op: Collective,
    pub algbw: bool,
    pub dark: bool,
    pub compact: bool,
    pub on_action: Callback<Action>,
}

/// The ops the panel offers.
pub const OPS: [Collective; 4] = [
    Collective::AllReduce,
    Collective::AllGather,
    Collective::ReduceScatter,
    Collective::AllToAll,
];

/// The chart for `curves` (those of one op), also used by tests.
pub fn collective_svg(curves: &[Curve], op: Collective, algbw: bool, dark: bool, compact: bool) -> String {
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for c in curves {
        let where_ = match c.scope {
            Scope::Domain => format!("inside one domain, {} GPUs", c.placement.ranks),
            Scope::Cluster => format!("whole cluster, {} GPUs", c.placement.ranks),
        };
        let i = series.len();
        series.push(Series {
            label: where_,
            points: c.points.iter().map(|p| (p.bytes.0, if algbw { p.algbw.0 } else { p.busbw.0 })).collect(),
        });
        for (bytes, label) in choice_changes(c) {
            marks.push(Mark { series: i, bytes, label });
        }
    }
    let what = if algbw { "algbw" } else { "busbw" };
    let (width, height) = if compact { (420, 380) } else { (760, 440) };
    let opts = ChartOptions {
        width,
        height,
        min_bytes: SWEEP_MIN,
        max_bytes: SWEEP_MAX,
        highlight_bytes: Some(KEY_BYTES),
        x_label: if compact { "message size, bytes".into() } else { "message size, bytes (log scale)".into() },
        y_label: if compact { format!("{what}, GB/s per direction") } else { format!("{what}, GB/s per direction (log scale)") },
        description: format!("{} {what} against message size, inside one domain and across the cluster, with NCCL's algorithm marked", op.name()),
        marks,
        ..ChartOptions::default()
    };
    collective_chart(&series, &opts, &Theme::for_dark(dark))
}

type Key = (Vec<Curve>, Collective, bool, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

/// Drawn as a plain function with a one-entry cache (see `super::cached`).
pub fn collective_panel(props: &Props) -> Html {
    let op = props.op;
    let curves: Vec<Curve> = props.eval.report.curves.iter().filter(|c| c.op == op).cloned().collect();
    let empty = curves.is_empty();
    let key = (curves, op, props.algbw, props.dark, props.compact);
    let svg = DRAWN.with(|c| super::cached(c, key, |(curves, op, algbw, dark, compact)| AttrValue::from(collective_svg(curves, *op, *algbw, *dark, *compact))));
    let on_algbw = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| cb.emit(Action::Algbw(super::checked_of(&e))))
    };
    html! {
        <figure class="panel chart" data-testid="chart" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <span class="chart-title">{ format!("2 · {} throughput vs message size", op.name()) }</span>
                <span class="chart-sub">{ "NCCL 2.27.5 tuning model · hollow dots: NCCL's algorithm and protocol change · filled dot: 1 GiB" }</span>
            </figcaption>
            <div class="toolbar">
                <div class="segmented" role="radiogroup" aria-label="Collective">
                    { for OPS.iter().map(|o| {
                        let cb = props.on_action.clone();
                        let o = *o;
                        html! {
                            <label class={classes!("seg", (o == op).then_some("on"))}>
                                <input type="radio" name="op" value={o.id()} checked={o == op}
                                    onchange={Callback::from(move |_| cb.emit(Action::Op(o)))} />
                                { o.name() }
                            </label>
                        }
                    }) }
                </div>
                <label class="check">
                    <input id="algbw-toggle" type="checkbox" checked={props.algbw} onchange={on_algbw} />
                    { " show algbw (bytes ÷ time) instead of busbw" }
                </label>
            </div>
            if empty {
                <p class="empty">{ "A single GPU runs no collectives." }</p>
            }
            <div class="chart-svg">{ Html::from_html_unchecked(svg) }</div>
        </figure>
    }
}
