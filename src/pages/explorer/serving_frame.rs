//! The explorer's serving section: serving.html in a frame.

use crate::widgets::PageFrame;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FrameProps {
    /// The explorer's settled link (`encode` of its scenario).
    pub link: Rc<String>,
}

/// The explorer's serving section: serving.html (its own wasm) in a frame for the cluster of
/// the link (see [`PageFrame`]).
#[function_component(ServingFrame)]
pub fn serving_frame(p: &FrameProps) -> Html {
    let fragment = Rc::new(format!("s={}", p.link));
    html! {
        <PageFrame page="serving.html" {fragment} kind="serving" heading="Serving · LLM inference on this cluster"
            frame_title="Serving panel for this cluster: model, deployment, curve, breakdown and search"
            open_text="Open the serving panel on its own page" />
    }
}
