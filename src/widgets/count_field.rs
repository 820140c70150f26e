//! A count: a range slider (power-of-two or listed steps, "auto" first where the model can
//! size it) paired with a number box for any value. The slider applies on every `input`
//! event, so the page follows the thumb while it is dragged; the box applies what was typed on
//! commit (change, Enter, blur), so a half-typed number never reaches the model. The model's
//! message for this field shows here.

use crate::widgets::state::{Action, State};
use crate::widgets::eval::{count_text, Count, Gauge};
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    /// Unit and slider stops for this cluster.
    pub gauge: Gauge,
    pub label: &'static str,
    /// The requested value in the control's unit (None = auto).
    pub value: Option<u32>,
    /// The number box's text.
    pub text: String,
    /// Human text: "32 nodes, 256 GPUs", "auto (8 leaves)".
    pub valuetext: String,
    pub error: Option<String>,
    pub on_action: Callback<Action>,
}

impl super::Panel for Props {
    /// Drawn again only when what the field shows changes.
    fn view(&self) -> Html {
        count_field(self)
    }
}

/// Drawn as a plain function on compare.html (not a component: one generic component less
/// in its bundle); the explorer draws it through [`super::memo`].
pub fn count_field(props: &Props) -> Html {
    let g = &props.gauge;
    let k = g.kind;
    let on_slider = {
        let cb = props.on_action.clone();
        let g = g.clone();
        Callback::from(move |e: InputEvent| {
            crate::plumbing::hooks::mark_dragging();
            if let Ok(pos) = super::value_of(&e).parse::<u32>() {
                cb.emit(Action::SetCount(k, g.at(pos)));
            }
        })
    };
    let on_number = {
        let cb = props.on_action.clone();
        Callback::from(move |e: InputEvent| cb.emit(Action::EditCount(k, super::value_of(&e))))
    };
    let on_commit = {
        let cb = props.on_action.clone();
        Callback::from(move |_: Event| cb.emit(Action::CommitCount(k)))
    };
    let on_key = {
        let cb = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                cb.emit(Action::CommitCount(k));
            }
        })
    };
    let id = k.id();
    let slider_id = format!("{id}-slider");
    let number_id = format!("{id}-number");
    let err_id = format!("{id}-error");
    let invalid = props.error.is_some();
    let steps = &g.steps;
    // The values the positions stand for (after "auto"), for tests and tools reading the page.
    let stops = steps.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ");
    let first = if k.auto() { "auto".to_string() } else { steps[0].to_string() };
    let last = steps[steps.len() - 1].to_string();
    html! {
        <div class={classes!("field", invalid.then_some("invalid"))} data-field={k.field()}>
            <div class="field-head">
                <label for={slider_id.clone()}>{ props.label }</label>
                <output for={format!("{slider_id} {number_id}")} class="field-value">{ &props.valuetext }</output>
            </div>
            <div class="field-inputs">
                <input
                    id={slider_id}
                    type="range"
                    min="0"
                    max={g.max_pos().to_string()}
                    step="1"
                    value={g.pos(props.value).to_string()}
                    data-stops={stops}
                    aria-valuetext={props.valuetext.clone()}
                    aria-describedby={invalid.then(|| err_id.clone())}
                    oninput={on_slider}
                />
                <input
                    id={number_id}
                    type="text"
                    inputmode="numeric"
                    autocomplete="off"
                    spellcheck="false"
                    aria-label={format!("{} (exact{})", props.label, if k.auto() { ", or auto" } else { "" })}
                    aria-invalid={invalid.to_string()}
                    aria-describedby={invalid.then(|| err_id.clone())}
                    value={props.text.clone()}
                    oninput={on_number}
                    onchange={on_commit}
                    onkeydown={on_key}
                />
            </div>
            <div class="scale" aria-hidden="true">
                <span>{ first }</span><span>{ last }</span>
            </div>
            if let Some(e) = &props.error {
                <p id={err_id} class="error" role="alert">{ e }</p>
            }
        </div>
    }
}


/// The slider and box of count `k` (`derived`: the fabric's size where the model chose it).
pub(crate) fn count_control(state: &State, k: Count, derived: Option<u32>, dispatch: &Callback<Action>) -> Html {
    count_field(&count_props(state, k, derived, dispatch))
}

/// What the slider and box of count `k` show.
pub(crate) fn count_props(state: &State, k: Count, derived: Option<u32>, dispatch: &Callback<Action>) -> Props {
    let gauge = Gauge::of(k, &state.cluster);
    Props {
        value: gauge.shown(&state.cluster),
        label: k.label(&state.cluster),
        gauge,
        text: state.texts[k as usize].clone(),
        valuetext: count_text(k, &state.cluster, derived),
        error: state.error_for(k.field()),
        on_action: dispatch.clone(),
    }
}

