//! serving.html's root (issue 24, its own wasm: src/bin/fabricscope-serving): the serving panel
//! for the cluster of the link (`#s=`) and, when the link carries compare.html's pinned designs
//! (`d=`), the planner on each of them side by side. The explorer shows it in a frame (`?frame`: no masthead),
//! loaded once scrolled near and moved to each settled cluster by its link's fragment, so the
//! serving model, its chart and search cost the explorer's bundle and input path nothing.

use crate::plumbing::hooks::{DARK, NARROW};
use super::ServingPanel;
use crate::plumbing::hooks::use_media_query;
use crate::plumbing::url;
use super::plan_compare::PinnedDesign;
use fabricscope_model::fitted::Calibration;
use fabricscope_model::Cluster;
use std::rc::Rc;
use yew::prelude::*;

/// The link's cluster, as measured where it carries a calibration (check.html's fit): inside
/// the cluster (`s=`), or in an older link's `cal=`, attached here.
fn cluster_of_link() -> Cluster {
    let mut c = url::read().map(|d| d.scenario.cluster).unwrap_or_default();
    if c.calibration.is_none() {
        if let Some(Ok(cal)) = url::fragment_param("cal=").map(|p| Calibration::from_link(&p, &c)) {
            c = c.as_measured(&cal);
        }
    }
    c
}

/// The calibration of the link's cluster `c` ([`cluster_of_link`]), or why an older link's
/// `cal=` could not apply to it (one it could is already inside `c`).
fn calibration_of(c: &Cluster) -> Option<Result<Rc<Calibration>, String>> {
    match c.measured() {
        Some(r) => Some(r.map(Rc::new)),
        None => url::fragment_param("cal=").map(|p| Calibration::from_link(&p, c).map(Rc::new)),
    }
}

/// The designs compare.html pins (its frame's `d=`), each a name and a cluster (as measured
/// where it carries a calibration: the planner plans on it, as `serve --search --calibration`).
fn designs_of_link() -> Vec<PinnedDesign> {
    let param = url::fragment_param("d=");
    param.as_deref().map(fabricscope_design::compare::decode_designs).map(|(list, _)| list).unwrap_or_default().into_iter().map(|d| PinnedDesign { name: d.name, cluster: d.scenario.cluster }).collect()
}

/// Mounts the page (see [`crate::widgets::page_frame::mount_framed`]).
pub fn mount() {
    crate::widgets::page_frame::mount_framed::<ServingPage>();
}

#[component]
fn ServingPage() -> Html {
    let cluster = use_state_eq(cluster_of_link);
    let designs = use_state_eq(|| Rc::new(designs_of_link()));
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    {
        // The explorer moves the frame's fragment to each settled cluster.
        let (cluster, designs) = (cluster.clone(), designs.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo_events::EventListener::new(&w, "hashchange", move |_| {
                    cluster.set(cluster_of_link());
                    designs.set(Rc::new(designs_of_link()));
                })
            });
            move || drop(listener)
        });
    }
    use_effect(crate::plumbing::hooks::sync_selects);
    // Derived from the cluster (its text is read once per change of the link).
    let calibration = (*use_memo((*cluster).clone(), calibration_of)).clone();
    if designs.is_empty() {
        html! { <ServingPanel cluster={(*cluster).clone()} {calibration} {dark} {compact} /> }
    } else {
        // Framed in compare.html: the pinned designs under the same targets.
        html! { <super::plan_panel::PlanDesigns cluster={(*cluster).clone()} designs={(*designs).clone()} {dark} {compact} /> }
    }
}
