//! The cluster being edited, one reducer over a plain struct, shared by every page that edits a
//! design (the explorer, compare, check, congestion). Messages change the cluster (re-running
//! the model) or only the view (op, algbw, mapping, which never re-runs it). A model error is
//! kept beside the last valid evaluation, so the page explains the error next to the control at
//! fault and keeps its charts.

use crate::widgets::eval::{with_gpu, Count, Evaluation, Gauge, evaluate_at};
use crate::widgets::training::{constraints, workload, DEFAULT_WORKLOAD};
use crate::plumbing::url;
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::training::{Constraints, Recompute};
use fabricscope_model::{
    cluster_preset, Cluster, Collective, ModelError, Scenario, SizeRange, TrainingChoice, YAxis,
};
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
            key_bytes: crate::widgets::eval::KEY_BYTES,
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
        // A calibration describes the hardware its logs ran on: another GPU, NIC or GPU count
        // per node (or a preset) is another cluster, back to the catalog's values, said so.
        #[cfg(feature = "calibrate")]
        if self.cluster.calibration.is_some() {
            if let Some(why) = next.cluster.calibration.as_ref().map_or(Some("a preset is the catalog design".to_string()), |_| next.cluster.measured().and_then(Result::err)) {
                next.cluster.calibration = None;
                next.link_notes.push(format!("The calibration no longer applies and was dropped ({why}); the numbers are the catalog design's."));
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
