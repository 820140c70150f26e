//! The app's state, one reducer over a plain struct, and the root component.
//! Messages change the cluster (re-running the model) or only the view (op, algbw, mapping,
//! which never re-runs it). A model error is kept beside the last valid evaluation, so the
//! page explains the error next to the control at fault and keeps its charts.

use crate::components::{
    count_field, memo, ClaimsProps, CollectiveProps, CountFieldProps, ExportProps, FormulaProps,
    HierarchyProps, KeyNumbersProps, MappingProps, PickersProps, PresetsProps, Same, SummaryProps, TierTableProps, Trained,
    TrainingProps,
};
use crate::eval::{count_text, evaluate_at, in_racks, with_gpu, Count, Evaluation, Gauge};
use crate::hooks::{use_frozen, use_in_view, use_media_query};
use crate::training::{constraints, use_training, workload, DEFAULT_WORKLOAD};
use crate::url;
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::training::{Constraints, Recompute};
use fabricscope_model::{
    cluster_preset, Cluster, Collective, ModelError, Scenario, SizeRange, TrainingChoice, YAxis,
};
use fabricscope_model::presets::matching_preset;
use std::rc::Rc;
use yew::prelude::*;

/// The page's state. `cluster` is what the user asked for (possibly invalid); `view` is the
/// last cluster that evaluated, which is what the page draws.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub cluster: Cluster,
    /// Each number box's text: the cluster's value, or what is being typed (applied on
    /// commit: change, Enter, blur), in [`Count::ALL`] order.
    pub texts: [String; 6],
    pub view: Option<Rc<Evaluation>>,
    pub error: Option<ModelError>,
    /// Collective shown in the throughput chart.
    pub op: Collective,
    /// Show algbw instead of busbw.
    pub algbw: bool,
    /// The throughput chart's y axis and sizes.
    pub y_axis: YAxis,
    pub sizes: SizeRange,
    /// The headline size (bytes) of the key numbers and the formula.
    pub key_bytes: u64,
    /// The training job and the layout sizes the user pinned (each brought down to a valid
    /// size when used; see [`State::fixed`]).
    pub training: TrainingChoice,
    /// Messages from reading the page's link (fields that fell back to defaults).
    pub link_notes: Vec<String>,
}

/// What the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A slider moved to a value (None = auto).
    SetCount(Count, Option<u32>),
    /// A number box's text as typed (not applied yet).
    EditCount(Count, String),
    /// The number box was committed (change, Enter, blur): apply its text, or show why not.
    CommitCount(Count),
    Gpu(GpuKind),
    ScaleUp(ScaleUp),
    Nic(NicKind),
    Sharp(bool),
    Nvls(bool),
    RailOptimized(bool),
    /// The fat tree's leaf oversubscription (None: non-blocking); the tree is re-sized at it.
    Oversubscription(Option<f64>),
    Preset(&'static str),
    /// View-only: no model run.
    Op(Collective),
    Algbw(bool),
    YAxis(YAxis),
    Sizes(SizeRange),
    /// The headline size: re-reads the key numbers and the formula (no new sweep).
    KeyBytes(u64),
    Tp(u32),
    Pp(u32),
    Cp(u32),
    Ep(u32),
    Best(bool),
    Workload(String),
    /// Micro-batch size; 0 leaves it to the search.
    MicroBatch(u32),
    Recompute(Option<Recompute>),
    Zero(Option<u8>),
    /// The training software (a framework id).
    Framework(String),
    /// Virtual pipeline stages per GPU; `None`: the search's choice.
    Interleave(Option<u32>),
    /// Runs the model on the state the page was opened with (see [`State::from_url_unevaluated`]).
    Evaluate,
}

fn texts_of(c: &Cluster) -> [String; 6] {
    Count::ALL.map(|k| k.text(Gauge::of(k, c).shown(c)))
}

impl State {
    pub fn new(cluster: Cluster) -> State {
        State::unevaluated(cluster).evaluated()
    }

    /// The state of `cluster` before the model has run on it (no view, no error).
    fn unevaluated(cluster: Cluster) -> State {
        State {
            texts: texts_of(&cluster),
            cluster,
            view: None,
            error: None,
            op: Collective::AllReduce,
            algbw: false,
            y_axis: YAxis::default(),
            sizes: SizeRange::default(),
            key_bytes: crate::eval::KEY_BYTES,
            training: TrainingChoice::default(),
            link_notes: Vec::new(),
        }
    }

    /// The state the page's URL describes (default cluster when it has no link).
    pub fn from_url() -> State {
        State::from_url_unevaluated().first_evaluation()
    }

    /// The state the page's URL describes (default cluster when it has no link), before the
    /// model has run: the page shows its controls in one task and the model's answer in the
    /// next ([`Action::Evaluate`]), so neither is a long task.
    pub fn from_url_unevaluated() -> State {
        match url::read() {
            Some(d) => State::decoded(d),
            None => State::unevaluated(Cluster::default()),
        }
    }

    /// Whether the model has yet to run on the state (see [`State::from_url_unevaluated`]).
    pub fn loading(&self) -> bool {
        self.view.is_none() && self.error.is_none()
    }

    /// The state a decoded link describes: cluster, chart choice and training choice, with a
    /// note for each field that fell back to its default.
    pub fn from_decoded(d: fabricscope_model::link::Decoded) -> State {
        State::decoded(d).first_evaluation()
    }

    /// The model run on the state a link opened. A link to an impossible cluster still gets
    /// charts (of the default cluster) beside the message saying what is wrong with it.
    fn first_evaluation(self) -> State {
        let mut s = self.evaluated();
        if s.view.is_none() {
            s.view = State::default().view;
        }
        s
    }

    /// [`State::from_decoded`] before the model has run.
    fn decoded(d: fabricscope_model::link::Decoded) -> State {
        let sc = d.scenario;
        let mut s = State::unevaluated(sc.cluster);
        s.key_bytes = sc.view.headline_bytes().0;
        s.link_notes = d.warnings;
        s.op = sc.view.selected_op;
        s.algbw = sc.view.algbw;
        (s.y_axis, s.sizes) = (sc.view.y_axis, sc.view.sizes);
        let mut t = sc.training;
        if let Err(e) = workload(&t.workload) {
            s.link_notes.push(format!(
                "training.workload: {}; showing {DEFAULT_WORKLOAD}",
                e.message
            ));
            t.workload = DEFAULT_WORKLOAD.to_string();
        }
        (t.tp, t.pp, t.cp, t.ep) = (t.tp.max(1), t.pp.max(1), t.cp.max(1), t.ep.max(1));
        s.training = t;
        s
    }

    /// The scenario to put in the link: the last cluster that evaluated, so a link never
    /// points at an impossible combination the user was halfway through fixing.
    pub fn scenario(&self) -> Scenario {
        let cluster = match &self.view {
            Some(v) => v.cluster.clone(),
            None => self.cluster.clone(),
        };
        let mut s = Scenario::new(cluster);
        s.view.selected_op = self.op;
        s.view.algbw = self.algbw;
        (s.view.y_axis, s.view.sizes) = (self.y_axis, self.sizes);
        s.view.key_bytes = fabricscope_model::units::Bytes(self.key_bytes);
        s.training = self.training.clone();
        s
    }

    fn evaluated(mut self) -> State {
        match evaluate_at(&self.cluster, self.key_bytes) {
            Ok(e) => {
                self.view = Some(Rc::new(e));
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// What the training search keeps fixed: the sizes the user pinned, brought down to
    /// ones the cluster and workload allow (nothing pinned while the job itself is invalid).
    pub fn fixed(&self) -> Constraints {
        let total = self.view.as_ref().map(|v| v.total_gpus).unwrap_or(1);
        match workload(&self.training.workload) {
            Ok(w) => constraints(&self.training, total, &w),
            Err(_) => Constraints::default(),
        }
    }

    /// The error for a model field, if it is the one at fault.
    pub fn error_for(&self, field: &str) -> Option<String> {
        self.error
            .as_ref()
            .filter(|e| e.field == field)
            .map(|e| e.message.clone())
    }
}

impl Default for State {
    fn default() -> Self {
        State::new(Cluster::default())
    }
}

/// A hardware picker's choice applied to `c` (the explorer and check.html share the pickers);
/// other actions leave it as it is.
pub(crate) fn pick_hardware(c: &mut Cluster, action: Action) {
    match action {
        Action::Gpu(g) => *c = with_gpu(c, g),
        Action::ScaleUp(s) => c.scale_up = s,
        Action::Nic(n) => {
            c.nic = n;
            // SHARP exists on InfiniBand only; switching to Ethernet turns it off rather
            // than leaving an error the user did not cause.
            if !n.spec().sharp_capable {
                c.sharp = false;
            }
        }
        Action::Sharp(b) => c.sharp = b,
        Action::Nvls(b) => c.nvls = b,
        Action::RailOptimized(b) => c.rail_optimized = b,
        _ => {}
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let c = &mut next.cluster;
        match action {
            Action::Evaluate => return Rc::new(next.first_evaluation()),
            Action::SetCount(k, v) => k.set(c, v),
            Action::EditCount(k, text) => {
                // Typing changes nothing until the box is committed.
                next.texts[k as usize] = text;
                return Rc::new(next);
            }
            Action::CommitCount(k) => match Gauge::of(k, c).parse(c, &self.texts[k as usize]) {
                Ok(v) => k.set(c, v),
                Err(e) => {
                    // The design stays at the last committed value; the box keeps the text
                    // and says why it was not applied.
                    next.error = Some(e);
                    return Rc::new(next);
                }
            },
            Action::Gpu(_) | Action::ScaleUp(_) | Action::Nic(_) | Action::Sharp(_) | Action::Nvls(_) | Action::RailOptimized(_) => pick_hardware(c, action),
            Action::Oversubscription(r) => {
                // The ratio sizes the spines: a spine count the user gave would override it.
                c.oversubscription = r;
                c.spine_switches = None;
            }
            Action::Preset(id) => {
                if let Some(p) = cluster_preset(id) {
                    next.cluster = p.cluster();
                }
            }
            Action::Op(op) => {
                next.op = op;
                return Rc::new(next);
            }
            Action::Algbw(b) => {
                next.algbw = b;
                return Rc::new(next);
            }
            Action::YAxis(a) => {
                next.y_axis = a;
                return Rc::new(next);
            }
            Action::Sizes(r) => {
                next.sizes = r;
                return Rc::new(next);
            }
            Action::KeyBytes(b) => {
                next.key_bytes = b;
                return Rc::new(next.evaluated());
            }
            Action::Tp(_)
            | Action::Pp(_)
            | Action::Cp(_)
            | Action::Ep(_)
            | Action::Best(_)
            | Action::Workload(_)
            | Action::MicroBatch(_)
            | Action::Recompute(_)
            | Action::Zero(_)
            | Action::Framework(_)
            | Action::Interleave(_) => {
                let t = &mut next.training;
                match action {
                    Action::Tp(v) => (t.tp, t.best) = (v, false),
                    Action::Pp(v) => (t.pp, t.best) = (v, false),
                    Action::Cp(v) => (t.cp, t.best) = (v, false),
                    Action::Ep(v) => (t.ep, t.best) = (v, false),
                    Action::Best(b) => t.best = b,
                    Action::Workload(w) => t.workload = w,
                    Action::MicroBatch(m) => t.micro_batch = m,
                    Action::Recompute(r) => t.recompute = r,
                    Action::Zero(z) => t.zero = z,
                    Action::Framework(f) => t.framework = f,
                    Action::Interleave(v) => t.interleave = v,
                    _ => {}
                }
                return Rc::new(next);
            }
        }
        // Every box shows the cluster again (a half-typed entry elsewhere is dropped).
        next.texts = texts_of(&next.cluster);
        if next.cluster == self.cluster && next.texts == self.texts && self.error.is_none() {
            return self;
        }
        Rc::new(next.evaluated())
    }
}

/// What a GB200 tray is, under the NVL72 size control (NVIDIA GB200 NVL72 datasheet).
const TRAY_NOTE: &str = "A compute tray is 4 Blackwell GPUs and 2 Grace CPUs (two GB200 superchips); a rack is 18 trays, one NVLink domain of 72 GPUs.";

/// The cluster as JSON, for the page's `data-requested` (what the controls hold) and
/// `data-model` (what the charts were computed from) attributes: tests compare every control
/// with them.
fn json(c: &Cluster) -> String {
    // Through a Value, as the link does: the same serializer code in the bundle, not a second.
    serde_json::to_value(c).map(|v| fabricscope_model::link::json_text(&v)).unwrap_or_default()
}

pub(crate) const DARK: &str = "(prefers-color-scheme: dark)";
/// Steps after the first render in which the explorer's parts join (see `shown` in [`App`]).
const LATE_PANELS: u8 = 7;
/// The step at which the serving and congestion frames join the page.
const FRAMES_STEP: u8 = 5;
/// Below this width charts are drawn smaller so their text stays legible when scaled.
pub(crate) const NARROW: &str = "(max-width: 640px)";

/// The slider and box of count `k` (`derived`: the fabric's size where the model chose it).
pub(crate) fn count_control(state: &State, k: Count, derived: Option<u32>, dispatch: &Callback<Action>) -> Html {
    count_field(&count_props(state, k, derived, dispatch))
}

/// What the slider and box of count `k` show.
fn count_props(state: &State, k: Count, derived: Option<u32>, dispatch: &Callback<Action>) -> CountFieldProps {
    let gauge = Gauge::of(k, &state.cluster);
    CountFieldProps {
        value: gauge.shown(&state.cluster),
        label: k.label(&state.cluster),
        gauge,
        text: state.texts[k as usize].clone(),
        valuetext: count_text(k, &state.cluster, derived),
        error: state.error_for(k.field()),
        on_action: dispatch.clone(),
    }
}

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
    let shown = crate::hooks::use_steps_after(LATE_PANELS, !state.loading());
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
    let dragging = crate::hooks::use_dragging();
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
        crate::training::framework_of(&state.training).unwrap_or_default(),
    );
    let training: Trained = training.map(Same);
    // The congestion frame's link: the design, and the training layout on show (`p=`), so the
    // panel times that step over its seeds (issue 25).
    let chosen = training.as_ref().and_then(|t| t.0.as_ref().as_ref().ok().and_then(|v| v.chosen.as_ref().map(|r| r.mapping)));
    let congestion_fragment = use_memo((serving_link.clone(), chosen), |(l, par)| match par {
        Some(par) => format!("s={l}&{}{}", crate::training::LAYOUT_PARAM, crate::training::layout_param(par)),
        None => format!("s={l}"),
    });

    // One callback for the page's life: panels compare it by identity.
    let dispatch = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| Callback::from(move |a: Action| dispatcher.dispatch(a)))).clone()
    };
    // Pickers show the model's state after any sequence of inputs (see sync_selects).
    use_effect(crate::hooks::sync_selects);
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
            node: training_node.clone(), in_view: training_in_view,
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
                            <crate::components::ServingFrame link={serving_link.clone()} />
                            // Congestion (issue 25): congestion.html's own wasm, framed the same way.
                            <crate::components::PageFrame page="congestion.html" fragment={congestion_fragment.clone()} kind="congestion"
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
