//! The node count: a power-of-two range slider paired with a number box. Both fire on every
//! `input` event, so the chart follows the thumb while it is dragged.

use crate::eval::{node_step, nodes_text, step_nodes, MAX_NODE_STEP};
use fabricscope_model::ModelError;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub nodes: u32,
    pub gpus_per_node: u32,
    pub text: String,
    pub error: Option<ModelError>,
    pub on_nodes: Callback<u32>,
    pub on_text: Callback<String>,
}

#[component]
pub fn NodeControl(props: &Props) -> Html {
    let on_slider = {
        let cb = props.on_nodes.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(step) = input.value().parse::<u32>() {
                cb.emit(step_nodes(step));
            }
        })
    };
    let on_number = {
        let cb = props.on_text.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            cb.emit(input.value());
        })
    };
    let invalid = props.error.is_some();
    let valuetext = nodes_text(props.nodes, props.gpus_per_node);
    let describedby = if invalid { "nodes-error" } else { "nodes-help" };
    html! {
        <div class={classes!("field", invalid.then_some("invalid"))}>
            <div class="field-head">
                <label for="nodes-slider">{ "Nodes" }</label>
                <output for="nodes-slider nodes-number" class="field-value">{ &valuetext }</output>
            </div>
            <div class="field-inputs">
                <input
                    id="nodes-slider"
                    type="range"
                    min="0"
                    max={MAX_NODE_STEP.to_string()}
                    step="1"
                    value={node_step(props.nodes).to_string()}
                    aria-valuetext={valuetext.clone()}
                    aria-describedby="nodes-help"
                    oninput={on_slider}
                />
                <input
                    id="nodes-number"
                    type="number"
                    inputmode="numeric"
                    min="1"
                    step="1"
                    aria-label="Nodes (exact count)"
                    aria-invalid={invalid.to_string()}
                    aria-describedby={describedby}
                    value={props.text.clone()}
                    oninput={on_number}
                />
            </div>
            <div class="scale" aria-hidden="true">
                <span>{ "1" }</span><span>{ "32" }</span><span>{ "1024" }</span>
            </div>
            if let Some(e) = &props.error {
                <p id="nodes-error" class="error" role="alert">{ &e.message }</p>
            } else {
                <p id="nodes-help" class="help">{ format!("Powers of two on the slider; type any count in the box. {} GPUs per node.", props.gpus_per_node) }</p>
            }
        </div>
    }
}
