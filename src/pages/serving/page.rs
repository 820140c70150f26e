//! serving.html's root (issue 24, its own wasm: src/bin/fabricscope-serving): the serving panel
//! for the cluster of the link (`#s=`). The explorer shows it in a frame (`?frame`: no masthead),
//! loaded once scrolled near and moved to each settled cluster by its link's fragment, so the
//! serving model, its chart and search cost the explorer's bundle and input path nothing.

use crate::plumbing::hooks::{DARK, NARROW};
use super::ServingPanel;
use crate::plumbing::hooks::use_media_query;
use crate::plumbing::url;
use fabricscope_model::Cluster;
use yew::prelude::*;

fn cluster_of_link() -> Cluster {
    url::read().map(|d| d.scenario.cluster).unwrap_or_default()
}

/// Mounts the page (see [`crate::widgets::page_frame::mount_framed`]).
pub fn mount() {
    crate::widgets::page_frame::mount_framed::<ServingPage>();
}

#[component]
fn ServingPage() -> Html {
    let cluster = use_state_eq(cluster_of_link);
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    {
        // The explorer moves the frame's fragment to each settled cluster.
        let cluster = cluster.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| gloo_events::EventListener::new(&w, "hashchange", move |_| cluster.set(cluster_of_link())));
            move || drop(listener)
        });
    }
    use_effect(crate::plumbing::hooks::sync_selects);
    html! { <ServingPanel cluster={(*cluster).clone()} {dark} {compact} /> }
}
