//! The busbw-vs-size chart: the shared SVG renderer's output placed in the DOM. Redrawn when
//! the evaluation, the colour scheme or the layout width class changes.

use crate::eval::{Evaluation, KEY_BYTES, SWEEP_MAX, SWEEP_MIN};
use fabricscope_charts::{collective_chart, ChartOptions, Series, Theme};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub eval: Rc<Evaluation>,
    pub dark: bool,
    /// Phone-width layout: draw a smaller chart so text stays legible when scaled down.
    pub compact: bool,
}

/// Renders the chart for `e` (also used by tests).
pub fn chart_svg(e: &Evaluation, dark: bool, compact: bool) -> String {
    let label = format!(
        "AllReduce, {} GPUs ({} nodes × {})",
        e.total_gpus, e.cluster.nodes, e.cluster.gpus_per_node
    );
    let series = [Series {
        label: label.clone(),
        points: e.curve.clone(),
    }];
    let (width, height) = if compact { (420, 380) } else { (920, 460) };
    let opts = ChartOptions {
        width,
        height,
        min_bytes: SWEEP_MIN,
        max_bytes: SWEEP_MAX,
        highlight_bytes: Some(KEY_BYTES),
        x_label: if compact {
            "message size, bytes".into()
        } else {
            "message size, bytes (log scale)".into()
        },
        y_label: if compact {
            "busbw, GB/s per direction".into()
        } else {
            "busbw, GB/s per direction (log scale)".into()
        },
        description: format!("Bus bandwidth against message size for {label}"),
        ..ChartOptions::default()
    };
    collective_chart(&series, &opts, &Theme::for_dark(dark))
}

#[component]
pub fn CollectiveChart(props: &Props) -> Html {
    let svg = use_memo(
        (props.eval.clone(), props.dark, props.compact),
        |(e, dark, compact)| AttrValue::from(chart_svg(e, *dark, *compact)),
    );
    html! {
        <figure class="panel chart" data-testid="chart" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <span class="chart-title">{ "AllReduce bus bandwidth vs message size" }</span>
                <span class="chart-sub">{ "all GPUs of the cluster · NCCL 2.27.5 tuning model · dot marks 1 GiB" }</span>
            </figcaption>
            <div class="chart-svg">{ Html::from_html_unchecked((*svg).clone()) }</div>
        </figure>
    }
}
