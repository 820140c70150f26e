//! congestion.html's root (issue 25, its own wasm: src/bin/fabricscope-congestion): the flow
//! model's "Congestion, sharing and failures" panel for the design of the link (`#s=`) and,
//! when the link carries pinned designs (`d=`, the compare page's), their fraction bands side
//! by side. The explorer and the compare page show it in a frame (`?frame`: no masthead),
//! loaded once scrolled near, so the flow model costs their bundles and input paths nothing.

use crate::widgets::state::State;
use crate::plumbing::hooks::{DARK, NARROW};
use super::{CompareCongestion, CongestionPanel};
use super::study::TrainingJob;
use crate::plumbing::hooks::use_media_query;
use fabricscope_design::compare::decode_designs;
use fabricscope_model::link::find_param;
use yew::prelude::*;

/// The page's link: its query and fragment (a new one remounts the panels on it).
fn link() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Mounts the page (see [`crate::widgets::page_frame::mount_framed`]).
pub fn mount() {
    crate::widgets::page_frame::mount_framed::<CongestionPage>();
}

#[component]
fn CongestionPage() -> Html {
    let hash = use_state_eq(link);
    {
        // The explorer and the compare page move the frame's fragment to each settled design.
        let hash = hash.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| gloo_events::EventListener::new(&w, "hashchange", move |_| hash.set(link())));
            move || drop(listener)
        });
    }
    html! { <Body key={(*hash).clone()} hash={(*hash).clone()} /> }
}

#[derive(Properties, PartialEq)]
struct BodyProps {
    hash: String,
}

/// The panels for one link; the explorer's State reads the design (and applies the panel's
/// oversubscription control to it, re-sizing the tree as the explorer does).
#[component]
fn Body(p: &BodyProps) -> Html {
    let state = use_reducer(State::from_url);
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(a))
    };
    let fragment = p.hash.trim_start_matches('#');
    // A design whose cluster carries a calibration is studied as measured, as the page's own.
    let designs = find_param("", fragment, "d=").map(decode_designs).map(|(list, _)| list).unwrap_or_default();
    let Some(v) = state.view.as_ref() else {
        return html! { <p class="empty">{ "Nothing to show: the link's design is not valid." }</p> };
    };
    let fabric = v.report.summary.fabric.as_ref();
    // The explorer's training layout on show, when the link carries one (`p=`).
    let training = crate::widgets::training::layout_of(fragment).zip(crate::widgets::training::framework_of(&state.training).ok()).map(|(parallel, framework)| TrainingJob { workload: state.training.workload.clone(), framework, parallel });
    // A `p=` that does not read back (an edited link) is said, not taken for no layout.
    let layout_unreadable = training.is_none() && find_param("", fragment, crate::widgets::training::LAYOUT_PARAM).is_some();
    html! {
        <>
            if let Some(words) = &v.calibrated {
                <p class="muted small" data-testid="congestion-calibrated">{ format!("{words}: the step and every collective are timed on the cluster as measured; the flow model's fractions of the network come from the fabric, which the logs do not change.") }</p>
            }
            if !designs.is_empty() {
                <CompareCongestion {designs} {dark} {compact} />
            }
            <CongestionPanel cluster={v.cluster.clone()} ratio={fabric.map_or(1.0, |f| f.oversubscription)}
                leaves={fabric.map_or(0, |f| f.leaves)} op={fabricscope_model::Collective::AllReduce}
                key_bytes={v.key_bytes} {dark} {compact} on_action={dispatch} {training} {layout_unreadable} />
        </>
    }
}
