//! The app's state, one reducer over a plain struct, and the root component.
//! Messages change the cluster; the reducer re-runs the model. A model error is kept beside
//! the last valid evaluation, so the page explains the error and keeps its chart.

use crate::components::{CollectiveChart, KeyNumbers, NodeControl};
use crate::eval::{evaluate, parse_nodes, Evaluation};
use crate::hooks::use_media_query;
use fabricscope_model::{Cluster, ModelError};
use std::rc::Rc;
use yew::prelude::*;

/// The page's state. `cluster` is what the user asked for (possibly invalid); `view` is the
/// last cluster that evaluated, which is what the page draws.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub cluster: Cluster,
    /// The number box's text, kept as typed (it may not parse).
    pub nodes_text: String,
    pub view: Option<Rc<Evaluation>>,
    pub error: Option<ModelError>,
}

/// What the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Slider: a node count.
    SetNodes(u32),
    /// Number box: text as typed.
    EditNodes(String),
}

impl State {
    pub fn new(cluster: Cluster) -> State {
        let nodes_text = cluster.nodes.to_string();
        State {
            cluster,
            nodes_text,
            view: None,
            error: None,
        }
        .evaluated()
    }

    fn evaluated(mut self) -> State {
        match evaluate(&self.cluster) {
            Ok(e) => {
                self.view = Some(Rc::new(e));
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
        self
    }
}

impl Default for State {
    fn default() -> Self {
        State::new(Cluster::default())
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::SetNodes(n) => {
                next.cluster.nodes = n;
                next.nodes_text = n.to_string();
            }
            Action::EditNodes(text) => {
                next.nodes_text = text;
                match parse_nodes(&next.nodes_text) {
                    Ok(n) => next.cluster.nodes = n,
                    Err(e) => {
                        next.error = Some(e);
                        return Rc::new(next);
                    }
                }
            }
        }
        Rc::new(next.evaluated())
    }
}

const DARK: &str = "(prefers-color-scheme: dark)";
/// Below this width the chart is drawn smaller so its text stays legible when scaled.
const NARROW: &str = "(max-width: 640px)";

#[component]
pub fn App() -> Html {
    let state = use_reducer(State::default);
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);

    let on_nodes = {
        let state = state.clone();
        Callback::from(move |n: u32| state.dispatch(Action::SetNodes(n)))
    };
    let on_text = {
        let state = state.clone();
        Callback::from(move |t: String| state.dispatch(Action::EditNodes(t)))
    };
    // The chart is stale when the current input failed: say which cluster it shows, and
    // keep the slider on that cluster while the number box holds the rejected text.
    let stale = state.error.is_some();
    let shown_nodes = match (&state.view, stale) {
        (Some(v), true) => v.cluster.nodes,
        _ => state.cluster.nodes,
    };

    html! {
        <div class="page">
            <header class="masthead">
                <div class="brand">
                    <svg class="logo" viewBox="0 0 32 32" aria-hidden="true">
                        <circle cx="6" cy="6" r="3"/><circle cx="26" cy="6" r="3"/>
                        <circle cx="6" cy="26" r="3"/><circle cx="26" cy="26" r="3"/>
                        <circle cx="16" cy="16" r="4"/>
                        <path d="M6 6 16 16 26 6M6 26 16 16 26 26" fill="none" stroke-width="2"/>
                    </svg>
                    <div>
                        <h1>{ "Fabricscope" }</h1>
                        <p class="tagline">{ "How fast can a GPU cluster talk? NCCL's own cost model, in your browser." }</p>
                    </div>
                </div>
            </header>
            <main class="layout">
                <section class="panel controls" aria-labelledby="cluster-heading">
                    <h2 id="cluster-heading">{ "Cluster" }</h2>
                    if let Some(v) = &state.view {
                        <dl class="facts">
                            <dt>{ "Node" }</dt><dd>{ &v.node_summary }</dd>
                            <dt>{ "Scale-up" }</dt><dd>{ &v.scale_up }</dd>
                            <dt>{ "Scale-out" }</dt><dd>{ &v.nics }</dd>
                        </dl>
                    }
                    <NodeControl
                        nodes={shown_nodes}
                        gpus_per_node={state.cluster.gpus_per_node}
                        text={state.nodes_text.clone()}
                        error={state.error.clone()}
                        {on_nodes}
                        {on_text}
                    />
                </section>
                <section class={classes!("results", stale.then_some("stale"))} aria-live="polite" aria-labelledby="results-heading">
                    <h2 id="results-heading" class="visually-hidden">{ "Results" }</h2>
                    if let Some(v) = &state.view {
                        if stale {
                            <p class="stale-note">{ format!("Showing the last valid cluster: {} nodes.", v.cluster.nodes) }</p>
                        }
                        <KeyNumbers eval={v.clone()} />
                        <CollectiveChart eval={v.clone()} {dark} {compact} />
                    } else {
                        <p class="empty">{ "Nothing to show yet: fix the cluster on the left." }</p>
                    }
                </section>
            </main>
            <footer class="footnote">
                <p>
                    { "Every bandwidth is per direction unless it says bidirectional. " }
                    { "busbw follows nccl-tests: algbw × 2(n−1)/n for AllReduce. " }
                    { "Sizes are powers of two (1G = 2³⁰ bytes)." }
                </p>
            </footer>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(s: State, a: Action) -> State {
        (*Rc::new(s).reduce(a)).clone()
    }

    #[test]
    fn slider_recomputes() {
        let s0 = State::default();
        let s1 = reduce(s0.clone(), Action::SetNodes(64));
        assert_eq!(s1.cluster.nodes, 64);
        assert_eq!(s1.nodes_text, "64");
        assert!(s1.error.is_none());
        assert_ne!(s0.view, s1.view);
    }

    #[test]
    fn bad_input_keeps_the_last_valid_view() {
        let s0 = State::default();
        let s1 = reduce(s0.clone(), Action::EditNodes("0".into()));
        assert_eq!(s1.error.as_ref().map(|e| e.field), Some("nodes"));
        assert_eq!(s1.view, s0.view, "last valid chart kept");
        let s2 = reduce(s1, Action::EditNodes("abc".into()));
        assert!(s2.error.is_some());
        assert_eq!(s2.nodes_text, "abc");
        assert_eq!(s2.view, s0.view);
        let s3 = reduce(s2, Action::EditNodes("8".into()));
        assert!(s3.error.is_none());
        assert_eq!(s3.view.as_ref().map(|v| v.cluster.nodes), Some(8));
    }
}
