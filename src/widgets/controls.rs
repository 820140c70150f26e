//! The page's two small form controls, a select and a checkbox, built in one place: every
//! picker uses them, so the markup (ids, aria attributes) is the same everywhere and the
//! bundle carries one copy of the code instead of one per picker.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// One `<option>` of a [`select`].
pub struct Opt {
    pub value: String,
    pub text: String,
    pub selected: bool,
    /// Tooltip (e.g. what a preset is).
    pub title: Option<&'static str>,
    /// Offered but not choosable (its text says why).
    pub disabled: bool,
}

impl Opt {
    pub fn new(value: impl Into<String>, text: impl Into<String>, selected: bool) -> Opt {
        Opt { value: value.into(), text: text.into(), selected, title: None, disabled: false }
    }
}

/// How a [`select`] is labelled and whether it is at fault.
#[derive(Default)]
pub struct SelectAttrs {
    /// Accessible name when no `<label for>` names it.
    pub aria_label: Option<&'static str>,
    pub disabled: bool,
    /// Id of the message that explains why the value is invalid.
    pub error_id: Option<&'static str>,
}

/// A `<select>` that reports the chosen option's value. The option marked `selected` is what
/// the page shows: [`crate::plumbing::hooks::sync_selects`] puts it back after every render, since a
/// select the user has touched ignores later changes of the attribute.
#[inline(never)]
pub fn select(id: &'static str, opts: Vec<Opt>, attrs: SelectAttrs, on_change: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let s: HtmlSelectElement = e.target_unchecked_into();
        on_change.emit(s.value());
    });
    let invalid = attrs.error_id.is_some();
    html! {
        <select {id} {onchange} disabled={attrs.disabled} aria-label={attrs.aria_label}
            aria-invalid={invalid.then_some("true")} aria-describedby={attrs.error_id}>
            { for opts.into_iter().map(|o| html! {
                <option value={o.value} selected={o.selected} disabled={o.disabled} title={o.title}>{ o.text }</option>
            }) }
        </select>
    }
}

/// A labelled checkbox that reports its new state.
#[inline(never)]
pub fn check(id: &'static str, text: &'static str, title: &'static str, checked: bool, disabled: bool, on_change: Callback<bool>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        on_change.emit(input.checked());
    });
    html! {
        <label class="check" {title}>
            <input {id} type="checkbox" {checked} {disabled} {onchange} />
            { text }
        </label>
    }
}

/// A callback for a control's text that sends the action `parse` makes of it, if any (one
/// closure type for every picker).
pub fn parsed<A: 'static>(on_action: &Callback<A>, parse: fn(&str) -> Option<A>) -> Callback<String> {
    let cb = on_action.clone();
    Callback::from(move |v: String| {
        if let Some(a) = parse(&v) {
            cb.emit(a);
        }
    })
}

/// Options for a list of sizes, `current` selected.
pub fn numbers(values: Vec<u32>, current: u32) -> Vec<Opt> {
    values.into_iter().map(|v| Opt::new(v.to_string(), v.to_string(), v == current)).collect()
}
