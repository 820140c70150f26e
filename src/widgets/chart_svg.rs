//! The one place a string becomes markup: chart SVG drawn by `crates/charts`.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// SVG text from a `fabricscope_charts` renderer (or empty: nothing drawn).
    pub svg: AttrValue,
}

/// Inserts chart SVG as it is. The charts are text because one renderer serves the web page
/// and the CLI's SVG/PNG files alike (crates/charts, which escapes every label it writes);
/// redrawing them as Yew nodes would be a second renderer. Nothing else in the app is
/// inserted from a string.
#[function_component(ChartSvg)]
pub fn chart_svg(props: &Props) -> Html {
    Html::from_html_unchecked(props.svg.clone())
}
