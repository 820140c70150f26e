//! serving.html's root (issue 24, its own wasm: src/bin/fabricscope-serving): the serving panel
//! for the cluster of the link (`#s=`). The explorer shows it in a frame (`?frame`: no masthead),
//! loaded once scrolled near and moved to each settled cluster by its link's fragment, so the
//! serving model, its chart and search cost the explorer's bundle and input path nothing.

use crate::app::{DARK, NARROW};
use crate::components::ServingPanel;
use crate::hooks::use_media_query;
use crate::url;
use fabricscope_model::Cluster;
use yew::prelude::*;

fn cluster_of_link() -> Cluster {
    url::read().map(|d| d.scenario.cluster).unwrap_or_default()
}

/// Mounts the page into `#app` one timer tick after the wasm is instantiated; in a frame
/// (`?frame`), marks the document so the stylesheet hides the masthead and footer.
pub fn mount() {
    gloo_timers::callback::Timeout::new(0, || {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        if doc.url().unwrap_or_default().contains("?frame") {
            if let Some(html) = doc.document_element() {
                let _ = html.class_list().add_1("frame-mode");
            }
        }
        if let Some(el) = doc.get_element_by_id("app") {
            yew::Renderer::<ServingPage>::with_root(el).render();
        }
    })
    .forget();
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
    use_effect(crate::hooks::sync_selects);
    html! { <ServingPanel cluster={(*cluster).clone()} {dark} {compact} /> }
}
