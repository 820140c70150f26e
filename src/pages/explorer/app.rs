//! The explorer's root component: the controls, the panels and the frames of serving.html and
//! congestion.html, over the shared cluster state ([`crate::widgets::state`]).

use crate::widgets::{memo, CollectiveProps, ExportProps, PickersProps, PresetsProps, Same, Trained};
use super::{ClaimsProps, FormulaProps, HierarchyProps, KeyNumbersProps, MappingProps, SummaryProps, TierTableProps, TrainingProps};
use crate::widgets::count_field::count_props;
use crate::widgets::eval::{in_racks, Count};
use crate::widgets::state::{Action, State};
use crate::plumbing::hooks::{use_frozen, use_in_view, use_media_query, DARK, NARROW};
use crate::widgets::training::use_training;
use crate::plumbing::url;
use fabricscope_model::Cluster;
use fabricscope_model::presets::matching_preset;
use yew::prelude::*;

/// What a GB200 tray is, under the NVL72 size control (NVIDIA GB200 NVL72 datasheet).
const TRAY_NOTE: &str = "A compute tray is 4 Blackwell GPUs and 2 Grace CPUs (two GB200 superchips); a rack is 18 trays, one NVLink domain of 72 GPUs.";

/// The cluster as JSON, for the page's `data-requested` (what the controls hold) and
/// `data-model` (what the charts were computed from) attributes: tests compare every control
/// with them.
fn json(c: &Cluster) -> String {
    // Through a Value, as the link does: the same serializer code in the bundle, not a second.
    serde_json::to_value(c).map(|v| fabricscope_model::link::json_text(&v)).unwrap_or_default()
}
/// Steps after the first render in which the explorer's parts join (see `shown` in [`App`]).
const LATE_PANELS: u8 = 7;
/// The step at which the serving and congestion frames join the page.
const FRAMES_STEP: u8 = 5;
#[component]
pub fn App() -> Html {
    // The controls first; the model runs in the next task (see State::from_url_unevaluated).
    let state = use_reducer(State::from_url_unevaluated);
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            gloo_timers::callback::Timeout::new(0, move || dispatcher.dispatch(Action::Evaluate)).forget();
        });
    }
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    let settled = url::use_link_writer(state.scenario(), "", fabricscope_model::link::encode, String::new());
    let embed_id = use_state(|| "busbw".to_string());
    let export_note = use_state(|| None::<String>);
    // Checking the pinned sizes against the model takes a few hundred checks: once per change
    // of the choice or the GPU count, not on every input.
    let fixed = *use_memo((state.training.clone(), state.view.as_ref().map(|v| v.total_gpus)), {
        let state = state.clone();
        move |_| state.fixed()
    });
    // The page joins in steps, one per frame: the controls first, then (once the model has
    // answered) the headline numbers and the hierarchy's frame, the throughput chart, the
    // hierarchy's drawing and the panels below (see `use_steps`).
    let shown = crate::plumbing::hooks::use_steps_after(LATE_PANELS, !state.loading());
    // The frames' link (issue 24): encoded once per settled change, and only once the frames
    // join (step FRAMES_STEP). The first encode builds the link format's baseline (a whole
    // Scenario deserialized per field): in the first render's task it made a 50-65 ms task;
    // it is built in a task of its own one step before the frames need it.
    let frames = shown >= FRAMES_STEP;
    let serving_link = use_memo((settled.clone(), frames), |(s, frames)| if *frames { fabricscope_model::link::encode(s) } else { String::new() });
    use_effect_with(shown == FRAMES_STEP - 1, |warm| {
        if *warm {
            gloo_timers::callback::Timeout::new(0, || drop(fabricscope_model::link::encode(&fabricscope_model::Scenario::default()))).forget();
        }
    });
    // While a slider is dragged, a panel off screen keeps the props it was last drawn with
    // (so it skips rendering) and catches up when the drag comes to rest or it scrolls into
    // view; the topology drawing and the training charts also wait while off screen (see
    // components::mapping and components::training).
    let dragging = crate::plumbing::hooks::use_dragging();
    let mapping_node = use_node_ref();
    let mapping_in_view = use_in_view(mapping_node.clone(), shown >= 4);
    let mapping_shown = use_mut_ref(|| None);
    let training_node = use_node_ref();
    let training_in_view = use_in_view(training_node.clone(), shown >= 5);
    let formula_node = use_node_ref();
    let formula_in_view = use_in_view(formula_node.clone(), shown >= 6);
    let claims_node = use_node_ref();
    let claims_in_view = use_in_view(claims_node.clone(), shown >= 6);
    let export_node = use_node_ref();
    let export_in_view = use_in_view(export_node.clone(), shown >= 7);
    let (training, progress) = use_training(
        state.view.as_ref().map(|v| v.cluster.clone()),
        state.training.workload.clone(),
        fixed,
        crate::widgets::training::framework_of(&state.training).unwrap_or_default(),
    );
    let training: Trained = training.map(Same);
    // The congestion frame's link: the design, and the training layout on show (`p=`), so the
    // panel times that step over its seeds (issue 25).
    let chosen = training.as_ref().and_then(|t| t.0.as_ref().as_ref().ok().and_then(|v| v.chosen.as_ref().map(|r| r.mapping)));
    let congestion_fragment = use_memo((serving_link.clone(), chosen), |(l, par)| match par {
        Some(par) => format!("s={l}&{}{}", crate::widgets::training::LAYOUT_PARAM, crate::widgets::training::layout_param(par)),
        None => format!("s={l}"),
    });

    // One callback for the page's life: panels compare it by identity.
    let dispatch = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| Callback::from(move |a: Action| dispatcher.dispatch(a)))).clone()
    };
    // Pickers show the model's state after any sequence of inputs (see sync_selects).
    use_effect(crate::plumbing::hooks::sync_selects);
    let stale = state.error.is_some();
    let general_error = state.error.as_ref().filter(|e| {
        !Count::ALL.iter().any(|k| k.field() == e.field)
            && !["gpu", "scale_up", "nic", "sharp", "nvls"].contains(&e.field)
    });
    let fabric = state.view.as_ref().and_then(|v| v.report.summary.fabric.as_ref());
    let derived = |k: Count| -> Option<u32> {
        let f = fabric?;
        match k {
            Count::Leaves => Some(f.leaves),
            Count::Spines => Some(f.spines),
            Count::Radix => Some(f.radix),
            _ => None,
        }
    };
    let tree_error = state.error.as_ref().is_some_and(|e| {
        [Count::Leaves, Count::Spines, Count::Radix]
            .iter()
            .any(|k| k.field() == e.field)
    });
    let tree_note = match fabric {
        Some(f) if f.cores > 0 => format!(
            "{} leaves, {} spines, {} cores, {:.2}:1",
            f.leaves, f.spines, f.cores, f.oversubscription
        ),
        Some(f) if f.leaves > 1 => format!(
            "{} leaves, {} spines, {:.2}:1",
            f.leaves, f.spines, f.oversubscription
        ),
        Some(f) => format!("{} leaf, {} ports", f.leaves, f.radix),
        None => "no scale-out network".to_string(),
    };
    let field = |k: Count| memo(count_props(&state, k, derived(k), &dispatch));

    // The panels below the charts, each once its step has come; held as they were while
    // off screen during a drag.
    let view = state.view.clone().map(Same).filter(|_| shown >= 1);
    let live = |in_view: bool| in_view || !dragging;
    let mapping = use_frozen(
        view.clone().filter(|_| shown >= 4).map(|v| MappingProps {
            eval: v, fixed, training: training.clone(), dark, compact, on_action: dispatch.clone(),
            node: mapping_node.clone(), in_view: mapping_in_view, shown: Same(mapping_shown.clone()),
        }),
        live(mapping_in_view),
    );
    let training_panel = use_frozen(
        view.clone().filter(|_| shown >= 5).map(|v| TrainingProps {
            choice: state.training.clone(), fixed, total: v.total_gpus, training: training.clone(), searching: progress.is_some(), progress, dark, compact, on_action: dispatch.clone(),
            node: training_node.clone(), in_view: training_in_view, calibrated: v.calibrated.clone(),
        }),
        live(training_in_view),
    );
    let formula = use_frozen(
        view.clone().filter(|_| shown >= 6).map(|v| FormulaProps { eval: v, node: formula_node.clone() }),
        live(formula_in_view),
    );
    let claims = use_frozen(
        view.clone().filter(|_| shown >= 6).map(|v| ClaimsProps { eval: v, training: training.clone(), node: claims_node.clone() }),
        live(claims_in_view),
    );
    let export = use_frozen(
        view.clone().filter(|_| shown >= 7).map(|v| ExportProps {
            scenario: state.scenario(), settled, eval: v, training: training.clone(), dark, embed_id: embed_id.clone(), note: export_note.clone(), node: export_node.clone(),
        }),
        live(export_in_view),
    );

    // The masthead and footer are static markup in index.html (shown before the wasm loads,
    // and no bytes of it).
    html! {
        <main class="layout" data-requested={json(&state.cluster)} data-model={state.view.as_ref().map(|v| json(&v.cluster))}>
            if let Some(v) = &view {
                { memo(SummaryProps { eval: v.clone(), op: state.op, training: training.clone(), stale }) }
            }
            <section class="panel controls" aria-labelledby="cluster-heading">
                <h2 id="cluster-heading">{ "Cluster" }</h2>
                if !state.link_notes.is_empty() {
                    <ul class="notes" data-testid="link-notes">
                        { for state.link_notes.iter().map(|n| html! { <li>{ n }</li> }) }
                    </ul>
                }
                { memo(PresetsProps { active: matching_preset(&state.cluster), more: shown >= 1, on_action: dispatch.clone() }) }
                { memo(PickersProps {
                    cluster: state.cluster.clone(),
                    gpu_error: state.error_for("gpu"),
                    scale_up_error: state.error_for("scale_up"),
                    nic_error: state.error_for("nic").or_else(|| state.error_for("sharp")),
                    on_action: dispatch.clone(),
                }) }
                <fieldset class="group">
                    <legend>{ "Size" }</legend>
                    { field(Count::Nodes) }
                    if in_racks(&state.cluster) {
                        <p class="hint" data-testid="tray-note">{ TRAY_NOTE }</p>
                    }
                    { field(Count::GpusPerNode) }
                    { field(Count::NicsPerNode) }
                </fieldset>
                // Folded on phones (open when one of its fields is at fault), so the charts
                // are a short scroll below the sliders.
                <details class="group tree" open={!compact || tree_error}>
                    <summary>{ "Fat tree" }<span class="summary-note">{ tree_note }</span></summary>
                    { field(Count::Leaves) }
                    { field(Count::Spines) }
                    { field(Count::Radix) }
                </details>
                if let Some(e) = general_error {
                    <p class="error" role="alert" data-testid="general-error">{ format!("{}: {}", e.field, e.message) }</p>
                }
            </section>
            <section class={classes!("results", stale.then_some("stale"))} aria-labelledby="results-heading">
                <h2 id="results-heading" class="visually-hidden">{ "Results" }</h2>
                if shown == 0 {
                } else if let Some(v) = &view {
                    <p class="stale-note" aria-live="polite" data-testid="stale-note">
                        if stale {
                            { format!("Showing the last valid cluster: {} nodes × {} {}. Fix the highlighted control to update.", v.cluster.nodes, v.cluster.gpus_per_node, v.report.summary.gpu) }
                        } else {
                            { format!("{} · {} · {}", v.node_summary, v.scale_up, v.nics) }
                        }
                    </p>
                    { memo(KeyNumbersProps { eval: v.clone(), op: state.op, on_action: dispatch.clone() }) }
                    // Each panel in a place of its own (an `if`), never shifted by one that
                    // joins before it: a Memo at a place keeps drawing the same panel.
                    <div class="panels">
                        // The throughput chart first (the page's first chart), then the
                        // hierarchy's drawing, each laid out in its own frame.
                        { memo(HierarchyProps { eval: v.clone(), dark, compact, pending: shown < 3 }) }
                        if shown >= 2 {
                            { memo(CollectiveProps { eval: v.clone(), op: state.op, algbw: state.algbw, y_axis: state.y_axis, sizes: state.sizes, dark, compact, on_action: dispatch.clone() }) }
                        }
                        if let Some(p) = mapping {
                            { memo(p) }
                        }
                        if let Some(p) = training_panel {
                            { memo(p) }
                        }
                        if frames {
                            // Serving (issue 24): serving.html's own wasm in a frame, loaded
                            // when scrolled near and moved to each settled cluster.
                            <super::ServingFrame link={serving_link.clone()} />
                            // Congestion (issue 25): congestion.html's own wasm, framed the same way.
                            <crate::widgets::PageFrame page="congestion.html" fragment={congestion_fragment.clone()} kind="congestion"
                                heading="Congestion, sharing and failures · this cluster's fat tree under the flow model"
                                frame_title="Congestion panel for this cluster: routing, oversubscription, neighbours, failures, throughput band over seeds"
                                open_text="Open the congestion panel on its own page" />
                        }
                        if let Some(p) = formula {
                            { memo(p) }
                        }
                        if let Some(p) = claims {
                            { memo(p) }
                        }
                        if shown >= 7 {
                            { memo(TierTableProps { scale_up: v.cluster.scale_up.name(), nic: v.cluster.nic.spec().name }) }
                        }
                        if let Some(p) = export {
                            { memo(p) }
                        }
                    </div>
                } else {
                    <p class="empty">{ "Nothing to show yet: fix the cluster on the left." }</p>
                }
            </section>
        </main>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::training::DEFAULT_WORKLOAD;
    use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
    use fabricscope_model::training::Recompute;
    use fabricscope_model::{cluster_preset, Collective, SizeRange, YAxis};
    use std::rc::Rc;

    #[test]
    fn a_link_restores_the_chart_and_training_choices() {
        use fabricscope_model::link::{decode, encode};
        let mut s = State::default();
        for a in [
            Action::Op(Collective::AllToAll),
            Action::Algbw(true),
            Action::YAxis(YAxis::Log),
            Action::Sizes(SizeRange::All),
            Action::KeyBytes(64 << 20),
            Action::Workload("gpt3-175b".into()),
            Action::Best(false),
            Action::Tp(4),
            Action::Pp(2),
            Action::MicroBatch(2),
            Action::Recompute(Some(Recompute::Full)),
            Action::Zero(Some(1)),
        ] {
            s = reduce(s, a);
        }
        let back = State::from_decoded(decode(&encode(&s.scenario())));
        assert!(back.link_notes.is_empty(), "{:?}", back.link_notes);
        assert_eq!(
            (back.op, back.algbw, back.training.workload.as_str()),
            (Collective::AllToAll, true, "gpt3-175b")
        );
        assert_eq!((back.y_axis, back.sizes, back.key_bytes), (YAxis::Log, SizeRange::All, 64 << 20));
        assert_eq!(back.view.as_ref().and_then(|v| v.key).map(|k| k.bytes.0), Some(64 << 20), "the headline follows the size");
        let t = &back.training;
        assert_eq!((t.best, t.tp, t.pp, t.micro_batch, t.zero), (false, 4, 2, 2, Some(1)));
        assert_eq!(t.recompute, Some(Recompute::Full));
        assert_eq!(back.scenario(), s.scenario());
        // An unknown workload falls back with a note naming the field.
        let mut sc = s.scenario();
        sc.training.workload = "gpt-9000".into();
        let back = State::from_decoded(decode(&encode(&sc)));
        assert_eq!(back.training.workload, DEFAULT_WORKLOAD);
        assert!(
            back.link_notes
                .iter()
                .any(|n| n.starts_with("training.workload")),
            "{:?}",
            back.link_notes
        );
    }

    /// A calibrated link opens the cluster as measured (the headline timed with the fit and
    /// said so); a slider keeps it (the node count is the question), another GPU drops it with
    /// a note, back to the catalog's numbers.
    #[test]
    fn a_calibrated_link_opens_as_measured_and_other_hardware_drops_it() {
        use fabricscope_model::fitted::{Calibration, Share, TierFit};
        let cal = Calibration { network: TierFit { bandwidth: Some(Share { share: 0.6, rel_uncertainty: 0.03, by_op: Vec::new() }), latency: None }, measured_nodes: vec![2], logs: 2, ..Default::default() };
        let plain = Cluster::default();
        let measured = plain.as_measured(&cal);
        use fabricscope_model::link::{decode, encode};
        let s = State::from_decoded(decode(&encode(&fabricscope_model::Scenario::new(measured.clone()))));
        assert!(s.link_notes.is_empty(), "{:?}", s.link_notes);
        let busbw = |s: &State| s.view.as_ref().and_then(|v| v.key).map(|k| k.busbw.0).unwrap_or(0.0);
        let catalog = State::new(plain);
        assert!(busbw(&s) < 0.8 * busbw(&catalog), "{} against {}", busbw(&s), busbw(&catalog));
        let words = s.view.as_ref().and_then(|v| v.calibrated.clone()).unwrap_or_default();
        assert!(words.starts_with("Calibrated from 2 logs: measured at 2 nodes, predicted at 4"), "{words}");
        let s = reduce(s, Action::SetCount(Count::Nodes, Some(16)));
        assert!(s.cluster.calibration.is_some() && s.link_notes.is_empty());
        let s = reduce(s, Action::Gpu(fabricscope_model::catalog::GpuKind::B200));
        assert_eq!(s.cluster.calibration, None);
        assert!(s.link_notes.iter().any(|n| n.contains("calibration no longer applies") && n.contains("not b200 ib-ndr 8")), "{:?}", s.link_notes);
        assert!(s.view.as_ref().is_some_and(|v| v.calibrated.is_none()));
    }

    fn reduce(s: State, a: Action) -> State {
        (*Rc::new(s).reduce(a)).clone()
    }

    #[test]
    fn slider_recomputes() {
        let s0 = State::default();
        let s1 = reduce(s0.clone(), Action::SetCount(Count::Nodes, Some(64)));
        assert_eq!(s1.cluster.nodes, 64);
        assert_eq!(s1.texts[0], "64");
        assert!(s1.error.is_none());
        assert_ne!(s0.view, s1.view);
    }

    #[test]
    fn the_headline_size_rereads_the_key_numbers_only() {
        let s0 = State::default();
        let s1 = reduce(s0.clone(), Action::KeyBytes(64 << 20));
        let (a, b) = (s0.view.clone().unwrap(), s1.view.clone().unwrap());
        assert_eq!(b.key_bytes, 64 << 20);
        assert_eq!(b.key.map(|k| k.bytes.0), Some(64 << 20));
        assert_eq!(a.report, b.report, "the sweep is the same");
        assert_eq!(s1.scenario().view.key_bytes.0, 64 << 20);
        let s2 = reduce(s1, Action::YAxis(YAxis::Log));
        assert!(Rc::ptr_eq(s2.view.as_ref().unwrap(), &b), "the axis is view-only");
    }

    #[test]
    fn view_actions_do_not_rerun_the_model() {
        let s0 = State::default();
        let s1 = reduce(s0.clone(), Action::Algbw(true));
        assert!(s1.algbw);
        assert!(Rc::ptr_eq(
            s0.view.as_ref().unwrap(),
            s1.view.as_ref().unwrap()
        ));
        let s2 = reduce(s1, Action::Op(Collective::AllToAll));
        assert!(Rc::ptr_eq(
            s0.view.as_ref().unwrap(),
            s2.view.as_ref().unwrap()
        ));
    }

    fn commit(s: State, k: Count, text: &str) -> State {
        let s = reduce(s, Action::EditCount(k, text.into()));
        reduce(s, Action::CommitCount(k))
    }

    #[test]
    fn bad_input_keeps_the_last_valid_view() {
        let s0 = State::default();
        let s1 = commit(s0.clone(), Count::Nodes, "0");
        assert_eq!(s1.error.as_ref().map(|e| e.field), Some("nodes"));
        assert_eq!(s1.view, s0.view, "last valid chart kept");
        let s2 = commit(s1, Count::Nodes, "abc");
        assert!(s2.error.is_some());
        assert_eq!(s2.texts[0], "abc");
        assert_eq!(s2.view, s0.view);
        let s3 = commit(s2, Count::Nodes, "8");
        assert!(s3.error.is_none());
        assert_eq!(s3.view.as_ref().map(|v| v.cluster.nodes), Some(8));
    }

    /// Issue 9: typing applies nothing until the box is committed; "1e9" is refused with
    /// its reason and the design stays; "99999" is named out of range, never clamped.
    #[test]
    fn number_boxes_apply_on_commit() {
        let s0 = State::default();
        let typing = reduce(s0.clone(), Action::EditCount(Count::Nodes, "1".into()));
        assert_eq!((typing.cluster.nodes, typing.texts[0].as_str()), (4, "1"), "a keystroke changes only the box");
        assert!(typing.error.is_none() && Rc::ptr_eq(typing.view.as_ref().unwrap(), s0.view.as_ref().unwrap()));
        let e9 = commit(s0.clone(), Count::Nodes, "1e9");
        assert_eq!(e9.cluster, s0.cluster, "the design stays at the last committed value");
        assert_eq!(e9.scenario(), s0.scenario(), "and so does the link");
        assert!(e9.error_for("nodes").unwrap().contains("whole number"));
        let big = commit(s0.clone(), Count::Nodes, "99999");
        assert!(big.error_for("nodes").unwrap().contains("between 1 and 65536"), "{:?}", big.error);
        assert_eq!(big.scenario(), s0.scenario(), "the link keeps the last valid cluster");
        // Any other control drops the half-typed text: every box shows the cluster again.
        let s = reduce(e9, Action::SetCount(Count::GpusPerNode, Some(4)));
        assert_eq!((s.texts[0].as_str(), s.texts[1].as_str()), ("4", "4"));
        assert!(s.error.is_none());
    }

    /// Issue 9's sequence: after it, the cluster (what every picker shows) is the preset's.
    #[test]
    fn presets_replace_whatever_the_pickers_held() {
        let mut s = State::default();
        for a in [Action::Nic(NicKind::IbHdr), Action::Gpu(GpuKind::A100), Action::Nic(NicKind::Roce800), Action::Preset("dgx-a100-superpod")] {
            s = reduce(s, a);
            assert!(s.error.is_none(), "{:?}", s.error);
        }
        let want = cluster_preset("dgx-a100-superpod").unwrap().cluster();
        assert_eq!(s.cluster, want);
        assert_eq!(s.scenario().cluster, want);
    }

    #[test]
    fn impossible_combos_blame_the_field() {
        // Choosing the A100 takes its NVLink3 fabric; forcing NVLink4 back is blamed on it.
        let s = reduce(State::default(), Action::Gpu(GpuKind::A100));
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.cluster.scale_up, ScaleUp::NvSwitch { gen: 3 });
        let s = reduce(s, Action::ScaleUp(ScaleUp::NvSwitch { gen: 4 }));
        assert_eq!(s.error.as_ref().map(|e| e.field), Some("scale_up"));
        assert!(s.error_for("scale_up").unwrap().contains("nvlink3"));
        let s = reduce(s, Action::ScaleUp(ScaleUp::NvSwitch { gen: 3 }));
        assert!(s.error.is_none());
        let s = reduce(s, Action::SetCount(Count::Leaves, Some(1)));
        let s = reduce(s, Action::SetCount(Count::Nodes, Some(128)));
        assert_eq!(s.error.as_ref().map(|e| e.field), Some("leaf_switches"));
        let s = reduce(s, Action::SetCount(Count::Leaves, None));
        assert!(s.error.is_none());
        let s = reduce(s, Action::Sharp(true));
        assert!(s.error.is_none());
        let s = reduce(s, Action::Nic(NicKind::Roce400));
        assert!(
            !s.cluster.sharp && s.error.is_none(),
            "Ethernet turns SHARP off"
        );
    }

    #[test]
    fn presets_set_everything() {
        let s = reduce(State::default(), Action::Preset("gb200-nvl72"));
        assert_eq!(s.cluster.gpu, GpuKind::Gb200);
        assert_eq!(s.texts[1], "4");
        assert!(s.error.is_none());
        assert_eq!(s.view.as_ref().unwrap().report.summary.domain_gpus, 72);
    }
}
