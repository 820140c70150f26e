//! Panel 2: collective throughput against message size, inside one scale-up domain and across
//! the whole cluster, like an nccl-tests plot, with NCCL's algorithm and protocol marked
//! wherever its choice changes. busbw or algbw, a linear or log axis, the bandwidth-bound
//! sizes or all of them. Hovering or arrow keys read out any size's exact values.

use crate::widgets::state::Action;
use crate::widgets::eval::{size_words, Evaluation};
use fabricscope_charts::report::{scope_label, throughput_chart};
use fabricscope_charts::scale::{gbps_label, interval_label};
use fabricscope_model::calibration::apply::collective_ratios;
use fabricscope_charts::Theme;
use fabricscope_model::report::Curve;
use fabricscope_model::units::Bytes;
use fabricscope_model::{Collective, SizeRange, View, YAxis};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use super::{ChartSvg, Same};
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    pub eval: Same<Evaluation>,
    pub op: Collective,
    pub algbw: bool,
    pub y_axis: YAxis,
    pub sizes: SizeRange,
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

/// The view the chart draws (the page's sweep, the panel's choices).
pub fn chart_view(op: Collective, algbw: bool, y_axis: YAxis, sizes: SizeRange, key_bytes: u64) -> View {
    View { selected_op: op, algbw, y_axis, sizes, key_bytes: Bytes(key_bytes), ..View::default() }
}

/// The chart for the page's evaluation, also used by tests: the same renderer as exports.
/// "NCCL 2.27.5 tuning model" or "RCCL tuning model 5 (gfx942)": the table the choices come from.
fn tuning_label(c: &fabricscope_model::Cluster) -> String {
    let lib = c.library_label();
    if lib.contains("tuning model") {
        lib
    } else {
        format!("{lib} tuning model")
    }
}

pub fn collective_svg(e: &Evaluation, v: &View, dark: bool, compact: bool) -> String {
    let (width, height) = if compact { (420, 400) } else { (760, 460) };
    throughput_chart(&e.report, v, &Theme::for_dark(dark), width, height, compact)
}

/// What the readout says for size 2^`exp` on `curves`.
pub fn readout(curves: &[Curve], exp: u32, algbw: bool) -> String {
    let bytes = 1u64 << exp.min(63);
    let what = if algbw { "algbw" } else { "busbw" };
    let parts: Vec<String> = curves
        .iter()
        .filter_map(|c| {
            let p = c.points.iter().find(|p| p.bytes.0 == bytes)?;
            let v = if algbw { p.algbw.0 } else { p.busbw.0 };
            let range = collective_ratios(&p.trust).map_or_else(|| "not validated".to_string(), |(lo, hi)| interval_label(v * lo, v * hi));
            Some(format!("{}: {} GB/s {what} ({range}; {} {}, {})", scope_label(c), gbps_label(v), p.algorithm, p.protocol, p.time))
        })
        .collect();
    format!("{} — {}", size_words(bytes), parts.join("; "))
}

type Key = (super::Same<Evaluation>, View, bool, bool);
thread_local! {
    static DRAWN: std::cell::RefCell<Option<(Key, AttrValue)>> = const { std::cell::RefCell::new(None) };
}

fn attr_f(e: &web_sys::Element, name: &str) -> f64 {
    e.get_attribute(name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

/// The SVG's scale (CSS px per SVG px) and its left edge within the cursor layer (a wide
/// screen centres a chart narrower than its panel).
fn svg_box(overlay: &web_sys::Element, svg: &web_sys::Element) -> (f64, f64) {
    let shown = svg.client_width() as f64;
    let scale = shown / attr_f(svg, "width").max(1.0);
    (scale, ((overlay.client_width() as f64 - shown) / 2.0).max(0.0))
}

/// Moves the crosshair to 2^`exp` (clamped to the plot) and writes `text` of it into the
/// element `readout_id`. Reads the plot's place from the SVG's attributes: no layout, no model
/// run, no redraw.
fn cursor_to(overlay: &web_sys::Element, exp: f64, readout_id: &str, text: &dyn Fn(u32) -> String) -> Option<()> {
    let wrap = overlay.parent_element()?;
    let plot = wrap.query_selector("[data-role=plot]").ok()??;
    let svg = wrap.query_selector("svg").ok()??;
    let (x_lo, x_hi) = (attr_f(&plot, "data-x-lo"), attr_f(&plot, "data-x-hi"));
    let e = exp.round().clamp(x_lo.ceil(), x_hi.floor());
    let (scale, left) = svg_box(overlay, &svg);
    let px = left + (attr_f(&plot, "x") + (e - x_lo) / (x_hi - x_lo).max(1e-9) * attr_f(&plot, "width")) * scale;
    let top = attr_f(&plot, "y") * scale;
    let h = attr_f(&plot, "height") * scale;
    let _ = overlay.set_attribute("data-at", &format!("{e}"));
    let line = overlay.query_selector(".crosshair").ok()??;
    // Through the CSSOM: the page's CSP refuses inline style attributes.
    if let Ok(style) = js_sys::Reflect::get(&line, &"style".into()) {
        for (k, v) in [("display", "block".to_string()), ("left", format!("{px:.1}px")), ("top", format!("{top:.1}px")), ("height", format!("{h:.1}px"))] {
            let _ = js_sys::Reflect::set(&style, &k.into(), &v.into());
        }
    }
    let doc = web_sys::window()?.document()?;
    doc.get_element_by_id(readout_id)?.set_text_content(Some(&text(e as u32)));
    Some(())
}

/// What a chart cursor reads out at x = 2^exp.
pub(crate) type ReadoutFn = Rc<dyn Fn(u32) -> String>;

/// The pointer, key and focus handlers of a chart cursor layer over a log2 x axis: the
/// crosshair snaps to powers of two and `text` of the one under it goes into `readout_id`;
/// focus starts at 2^`start`.
pub(crate) fn cursor_handlers(start: f64, readout_id: &'static str, text: ReadoutFn) -> (Callback<MouseEvent>, Callback<KeyboardEvent>, Callback<FocusEvent>) {
    let layer = |t: Option<web_sys::EventTarget>| t.and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    let at = move |o: &web_sys::Element| o.get_attribute("data-at").and_then(|v| v.parse::<f64>().ok()).unwrap_or(start);
    let on_move = {
        let text = text.clone();
        Callback::from(move |ev: MouseEvent| {
            let Some(o) = layer(ev.target()) else { return };
            if let Some(x) = exp_at(&o, ev.offset_x() as f64) {
                cursor_to(&o, x, readout_id, &*text);
            }
        })
    };
    let on_key = {
        let text = text.clone();
        Callback::from(move |ev: KeyboardEvent| {
            let Some(o) = layer(ev.target()) else { return };
            let at = at(&o);
            let to = match ev.key().as_str() {
                "ArrowLeft" | "ArrowDown" => at - 1.0,
                "ArrowRight" | "ArrowUp" => at + 1.0,
                "PageDown" => at - 5.0,
                "PageUp" => at + 5.0,
                "Home" => 0.0,
                "End" => 64.0,
                _ => return,
            };
            ev.prevent_default();
            cursor_to(&o, to, readout_id, &*text);
        })
    };
    let on_focus = Callback::from(move |ev: FocusEvent| {
        let Some(o) = layer(ev.target()) else { return };
        cursor_to(&o, at(&o), readout_id, &*text);
    });
    (on_move, on_key, on_focus)
}

/// The exponent under the pointer.
fn exp_at(overlay: &web_sys::Element, offset_x: f64) -> Option<f64> {
    let wrap = overlay.parent_element()?;
    let plot = wrap.query_selector("[data-role=plot]").ok()??;
    let svg = wrap.query_selector("svg").ok()??;
    let (scale, left) = svg_box(overlay, &svg);
    let (x_lo, x_hi) = (attr_f(&plot, "data-x-lo"), attr_f(&plot, "data-x-hi"));
    let x = (offset_x - left) / scale - attr_f(&plot, "x");
    Some(x_lo + x / attr_f(&plot, "width").max(1.0) * (x_hi - x_lo))
}

impl super::Panel for Props {
    /// Drawn again when the props change; the drawing is cached on what it draws (see
    /// `super::cached`).
    fn view(&self) -> Html {
        collective_panel(self)
    }
}

fn collective_panel(props: &Props) -> Html {
    let op = props.op;
    let e = props.eval.0.clone();
    let view = chart_view(op, props.algbw, props.y_axis, props.sizes, e.key_bytes);
    let curves: Rc<Vec<Curve>> = Rc::new(e.report.curves.iter().filter(|c| c.op == op).cloned().collect());
    let empty = curves.is_empty();
    let key = (super::Same(e.clone()), view.clone(), props.dark, props.compact);
    let svg = DRAWN.with(|c| super::cached(c, key, |(e, v, dark, compact)| AttrValue::from(collective_svg(&e.0, v, *dark, *compact))));
    let on_algbw = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| cb.emit(Action::Algbw(super::checked_of(&e))))
    };
    let algbw = props.algbw;
    let key_exp = (e.key_bytes as f64).log2();
    let (on_move, on_key, on_focus) = {
        let curves = curves.clone();
        cursor_handlers(key_exp, "busbw-readout", Rc::new(move |e| readout(&curves, e, algbw)))
    };
    let seg = |name: &'static str, on: bool, label: &'static str, action: Action, testid: &'static str| {
        let cb = props.on_action.clone();
        html! {
            <label class={classes!("seg", on.then_some("on"))}>
                <input type="radio" {name} checked={on} data-testid={testid}
                    onchange={Callback::from(move |_| cb.emit(action.clone()))} />
                { label }
            </label>
        }
    };
    let linear = props.y_axis == YAxis::Linear;
    let bw_sizes = props.sizes == SizeRange::BandwidthBound;
    html! {
        <figure class="panel chart" data-testid="chart" data-theme={if props.dark { "dark" } else { "light" }}>
            <figcaption>
                <h3 class="chart-title">{ format!("2 · {} throughput vs message size", op.name()) }</h3>
                <span class="chart-sub">{ format!("{} · hollow dots: {}'s algorithm and protocol change · filled dot: {}", tuning_label(&e.cluster), e.report.summary.library, size_words(e.key_bytes)) }</span>
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
                <div class="segmented" role="radiogroup" aria-label="y axis">
                    { seg("yaxis", linear, "linear", Action::YAxis(YAxis::Linear), "axis-linear") }
                    { seg("yaxis", !linear, "log", Action::YAxis(YAxis::Log), "axis-log") }
                </div>
                <div class="segmented" role="radiogroup" aria-label="Message sizes">
                    { seg("sizes", bw_sizes, "bandwidth-bound sizes", Action::Sizes(SizeRange::BandwidthBound), "sizes-bandwidth") }
                    { seg("sizes", !bw_sizes, "all sizes", Action::Sizes(SizeRange::All), "sizes-all") }
                </div>
                <label class="check">
                    <input id="algbw-toggle" type="checkbox" checked={props.algbw} onchange={on_algbw} />
                    { " show algbw (bytes ÷ time) instead of busbw" }
                </label>
            </div>
            if empty {
                <p class="empty">{ "A single GPU runs no collectives." }</p>
            }
            <div class="chart-svg chart-plot">
                <ChartSvg {svg} />
                if !empty {
                    <div class="chart-cursor" tabindex="0" role="group" data-testid="chart-cursor"
                        aria-label="Chart values: move the pointer over the chart, or use the arrow keys, to read the exact values at each message size"
                        aria-describedby="busbw-readout"
                        onmousemove={on_move} onkeydown={on_key} onfocus={on_focus}>
                        <div class="crosshair" aria-hidden="true"></div>
                    </div>
                }
            </div>
            <p class="muted band-note">{ "Shaded: each curve's 90% interval (9 in 10 published measurements of its class fell inside when left out); none where none back it." }</p>
            <p id="busbw-readout" class="readout" aria-live="polite" data-testid="readout">
                { readout(&curves, key_exp as u32, algbw) }
            </p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::eval::evaluate;
    use fabricscope_model::Cluster;

    #[test]
    fn the_readout_states_each_series_exactly() {
        // 2 x 8 H100: NVLS inside a node, NVLSTree across both (the CLI prints the same).
        let e = evaluate(&Cluster { nodes: 2, ..Cluster::default() }).expect("valid");
        let curves: Vec<Curve> = e.report.curves.iter().filter(|c| c.op == Collective::AllReduce).cloned().collect();
        let r = readout(&curves, 30, false);
        let one = curves[0].points.iter().find(|p| p.bytes.0 == 1 << 30).expect("1 GiB");
        assert!(r.starts_with("1 GiB — inside one domain, 8 GPUs: "), "{r}");
        // With its 90% interval, the one the CLI's JSON states (`collective --json`'s
        // intervals.busbw_GBps comes from the same calibration level).
        let (lo, hi) = collective_ratios(&one.trust).expect("NVLS inside a node is calibrated");
        let cli = one.intervals().expect("the CLI's interval");
        assert!((cli.busbw_gbps.lo - one.busbw.0 * lo).abs() < 1e-9 && (cli.busbw_gbps.hi - one.busbw.0 * hi).abs() < 1e-9);
        assert!(r.contains(&format!("{} GB/s busbw ({}; NVLS Simple", gbps_label(one.busbw.0), interval_label(one.busbw.0 * lo, one.busbw.0 * hi))), "{r}");
        assert!(r.contains("; whole cluster, 16 GPUs: ") && r.contains("NVLSTree Simple"), "{r}");
        assert!(readout(&curves, 20, true).starts_with("1 MiB — ") && readout(&curves, 20, true).contains("GB/s algbw"));
    }
}
