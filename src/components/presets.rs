//! Preset clusters: one button each; the one matching the current cluster is pressed.

use crate::app::Action;
use fabricscope_model::presets::{matching_preset, CLUSTER_PRESETS};
use fabricscope_model::Cluster;
use yew::prelude::*;

pub struct Props {
    pub cluster: Cluster,
    pub on_action: Callback<Action>,
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn presets(props: &Props) -> Html {
    let active = matching_preset(&props.cluster);
    html! {
        <div class="presets" role="group" aria-label="Preset clusters">
            { for CLUSTER_PRESETS.iter().map(|p| {
                let cb = props.on_action.clone();
                let id = p.id;
                let pressed = active == Some(id);
                html! {
                    <button type="button" class={classes!("preset", pressed.then_some("active"))}
                        data-preset={id} aria-pressed={pressed.to_string()} title={p.describe()}
                        onclick={Callback::from(move |_| cb.emit(Action::Preset(id)))}>
                        { p.name }
                    </button>
                }
            }) }
        </div>
    }
}
