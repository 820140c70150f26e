//! The served model and deployment a user chooses (plain data) and its labelled `<select>`s,
//! shared by serving.html's panel and compare.html's serving overlay.

use crate::widgets::controls::{numbers, select, Opt, SelectAttrs};
use fabricscope_serving::{Deployment, Phase, Precision, DEFAULTS, SERVING_PRESETS};
use yew::prelude::*;

/// What the user chose in the panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServingChoice {
    /// A serving preset id (`fabricscope_serving::SERVING_PRESETS`).
    pub model: &'static str,
    pub phase: Phase,
    pub tp: u32,
    pub ep: u32,
    pub dp: u32,
    /// Sequences per attention DP rank.
    pub batch: u32,
    /// Tokens of KV cache per sequence (decode).
    pub context: u32,
    /// Prompt tokens per request.
    pub input_len: u32,
    pub precision: Precision,
    pub disaggregated: bool,
}

impl Default for ServingChoice {
    fn default() -> Self {
        // The lengths are the CLI's (`fabricscope_serving::DEFAULTS`): one design, one answer.
        let d = DEFAULTS.deployment();
        ServingChoice { model: "llama3-70b", phase: Phase::Decode, tp: 8, ep: 1, dp: 1, batch: 32, context: d.context, input_len: d.input_len, precision: d.precision, disaggregated: false }
    }
}

impl ServingChoice {
    /// What a search depends on: the choice without the layout and batch it searches.
    pub fn search_key(&self) -> ServingChoice {
        ServingChoice { phase: Phase::Decode, tp: 1, ep: 1, dp: 1, batch: 1, ..*self }
    }
    pub fn deployment(&self) -> Deployment {
        Deployment {
            phase: self.phase,
            tp: self.tp,
            ep: self.ep,
            dp: self.dp,
            batch: self.batch,
            context: self.context,
            input_len: self.input_len,
            precision: self.precision,
            disaggregated: self.disaggregated,
            ..DEFAULTS.deployment()
        }
    }
}

/// Id of the error message; the control it names points at it.
pub(crate) const ERROR_ID: &str = "serving-error";

fn pow2(max: u32) -> Vec<u32> {
    (0..20).map(|i| 1u32 << i).take_while(|v| *v <= max.max(1)).collect()
}

/// Sizes offered, with the current one even when it is not a power of two.
fn sizes(mut v: Vec<u32>, current: u32) -> Vec<Opt> {
    if !v.contains(&current) {
        v.push(current);
        v.sort_unstable();
    }
    numbers(v, current)
}

/// A control of the deployment: one `<select>` each, built by [`field_select`].
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Field {
    Model,
    Phase,
    Tp,
    Ep,
    Dp,
    Batch,
    Context,
    Input,
    Precision,
}

impl Field {
    /// The explorer panel's controls, in order.
    pub const EXPLORER: [Field; 9] = [Field::Model, Field::Phase, Field::Tp, Field::Ep, Field::Dp, Field::Batch, Field::Context, Field::Input, Field::Precision];
    /// Label, short name, accessible name, and the model's field name in its errors.
    fn about(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Field::Model => ("Model ", "model", "Served model", "model"),
            Field::Phase => ("Phase ", "phase", "Phase: decode or prefill", "phase"),
            Field::Tp => ("TP ", "tp", "Tensor parallelism", "tp"),
            Field::Ep => ("EP ", "ep", "Expert parallelism", "ep"),
            Field::Dp => ("DP ", "dp", "Attention data parallelism", "dp"),
            Field::Batch => ("Batch ", "batch", "Sequences per attention DP rank", "batch"),
            Field::Context => ("Context ", "context", "Tokens of KV cache per sequence", "context"),
            Field::Input => ("Input ", "input", "Prompt tokens per request", "input_len"),
            Field::Precision => ("Precision ", "precision", "Weight and matmul precision", "precision"),
        }
    }
    /// Element ids: the explorer's and the compare page's.
    fn ids(self) -> (&'static str, &'static str) {
        match self {
            Field::Model => ("serving-model", "cmp-serving-model"),
            Field::Phase => ("serving-phase", "cmp-serving-phase"),
            Field::Tp => ("serving-tp", "cmp-serving-tp"),
            Field::Ep => ("serving-ep", "cmp-serving-ep"),
            Field::Dp => ("serving-dp", "cmp-serving-dp"),
            Field::Batch => ("serving-batch", "cmp-serving-batch"),
            Field::Context => ("serving-context", "cmp-serving-context"),
            Field::Input => ("serving-input", "cmp-serving-input"),
            Field::Precision => ("serving-precision", "cmp-serving-precision"),
        }
    }
    /// The options offered on a cluster of `total` GPUs, the current one selected.
    fn options(self, c: &ServingChoice, total: u32) -> Vec<Opt> {
        let range = |lo: u32, hi: u32| (lo..=hi).map(|i| 1u32 << i).collect::<Vec<u32>>();
        match self {
            Field::Model => SERVING_PRESETS.iter().map(|(id, about)| Opt { title: Some(*about), ..Opt::new(*id, *id, *id == c.model) }).collect(),
            Field::Phase => [Phase::Decode, Phase::Prefill].iter().map(|ph| Opt::new(ph.id(), ph.id(), *ph == c.phase)).collect(),
            Field::Precision => Precision::ALL.iter().map(|pr| Opt::new(pr.id(), pr.id().to_uppercase(), *pr == c.precision)).collect(),
            Field::Tp => sizes(pow2(total.min(256)), c.tp),
            Field::Ep => sizes(pow2(total.min(1024)), c.ep),
            Field::Dp => sizes(pow2(total.min(1024)), c.dp),
            Field::Batch => sizes(pow2(4096), c.batch),
            Field::Context => sizes(range(9, 17), c.context),
            Field::Input => sizes(range(7, 15), c.input_len),
        }
    }
    /// `c` with this field set to the option `v`.
    fn apply(self, c: &mut ServingChoice, v: &str) {
        let n = v.parse::<u32>().unwrap_or(1).max(1);
        match self {
            Field::Model => {
                if let Some((id, _)) = SERVING_PRESETS.iter().find(|(id, _)| *id == v) {
                    c.model = id;
                }
            }
            Field::Phase => c.phase = Phase::from_id(v).unwrap_or_default(),
            Field::Precision => c.precision = Precision::from_id(v).unwrap_or_default(),
            Field::Tp => c.tp = n,
            Field::Ep => c.ep = n,
            Field::Dp => c.dp = n,
            Field::Batch => c.batch = n,
            Field::Context => c.context = n,
            Field::Input => c.input_len = n,
        }
    }
}

/// The labelled `<select>` of `f` (the explorer's id, or the compare page's), marked invalid when the model's
/// error (`err_field`) names it.
#[inline(never)]
pub(crate) fn field_select(f: Field, explorer: bool, choice: &UseStateHandle<ServingChoice>, total: u32, err_field: Option<&str>) -> Html {
    let (label, _, aria, model_field) = f.about();
    let id = if explorer { f.ids().0 } else { f.ids().1 };
    let attrs = SelectAttrs { aria_label: Some(aria), error_id: (err_field == Some(model_field)).then_some(ERROR_ID), ..SelectAttrs::default() };
    let on = {
        let choice = choice.clone();
        Callback::from(move |v: String| {
            let mut next = *choice;
            f.apply(&mut next, &v);
            choice.set(next);
        })
    };
    html! { <label class="inline">{ label }{ select(id, f.options(choice, total), attrs, on) }</label> }
}
