//! The hardware pickers: GPU, scale-up fabric, scale-out NIC (with SHARP), and NVLS.
//! Every option of the catalog is offered; the model says which combinations cannot exist,
//! and its message shows under the picker at fault.

use crate::app::Action;
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::Cluster;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

pub struct Props {
    pub cluster: Cluster,
    pub gpu_error: Option<String>,
    pub scale_up_error: Option<String>,
    pub nic_error: Option<String>,
    pub on_action: Callback<Action>,
}

fn select_value(e: &Event) -> String {
    let s: HtmlSelectElement = e.target_unchecked_into();
    s.value()
}

fn error(id: &str, e: &Option<String>) -> Html {
    match e {
        Some(m) => html! { <p id={id.to_string()} class="error" role="alert">{ m }</p> },
        None => html! {},
    }
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn pickers(props: &Props) -> Html {
    let c = &props.cluster;
    let cb = props.on_action.clone();
    let on_gpu = {
        let cb = cb.clone();
        Callback::from(move |e: Event| {
            if let Some(g) = GpuKind::from_id(&select_value(&e)) {
                cb.emit(Action::Gpu(g));
            }
        })
    };
    let on_su = {
        let cb = cb.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = ScaleUp::from_id(&select_value(&e)) {
                cb.emit(Action::ScaleUp(s));
            }
        })
    };
    let on_nic = {
        let cb = cb.clone();
        Callback::from(move |e: Event| {
            if let Some(n) = NicKind::from_id(&select_value(&e)) {
                cb.emit(Action::Nic(n));
            }
        })
    };
    let on_sharp = {
        let cb = cb.clone();
        Callback::from(move |e: Event| cb.emit(Action::Sharp(super::checked_of(&e))))
    };
    let on_nvls = {
        let cb = cb.clone();
        Callback::from(move |e: Event| cb.emit(Action::Nvls(super::checked_of(&e))))
    };
    let on_rail = {
        let cb = cb.clone();
        Callback::from(move |e: Event| cb.emit(Action::RailOptimized(super::checked_of(&e))))
    };
    let sharp_ok = c.nic.spec().sharp_capable;
    html! {
        <fieldset class="group pickers">
            <legend>{ "Hardware" }</legend>
            <div class={classes!("pick", props.gpu_error.is_some().then_some("invalid"))}>
                <label for="gpu-select">{ "GPU" }</label>
                <select id="gpu-select" onchange={on_gpu} aria-invalid={props.gpu_error.is_some().to_string()}>
                    { for GpuKind::ALL.iter().map(|g| html! {
                        <option value={g.id()} selected={*g == c.gpu}>{ g.spec().name }</option>
                    }) }
                </select>
                { error("gpu-error", &props.gpu_error) }
            </div>
            <div class={classes!("pick", props.scale_up_error.is_some().then_some("invalid"))}>
                <label for="scale-up-select">{ "Scale-up fabric" }</label>
                <select id="scale-up-select" onchange={on_su}
                    aria-invalid={props.scale_up_error.is_some().to_string()}
                    aria-describedby={props.scale_up_error.is_some().then_some("scale-up-error")}>
                    { for ScaleUp::ALL.iter().map(|s| html! {
                        <option value={s.id()} selected={*s == c.scale_up}>{ s.name() }</option>
                    }) }
                </select>
                { error("scale-up-error", &props.scale_up_error) }
            </div>
            <div class={classes!("pick", props.nic_error.is_some().then_some("invalid"))}>
                <label for="nic-select">{ "Scale-out NIC" }</label>
                <select id="nic-select" onchange={on_nic}
                    aria-invalid={props.nic_error.is_some().to_string()}
                    aria-describedby={props.nic_error.is_some().then_some("nic-error")}>
                    { for NicKind::ALL.iter().map(|n| html! {
                        <option value={n.id()} selected={*n == c.nic}>{ n.spec().name }</option>
                    }) }
                </select>
                { error("nic-error", &props.nic_error) }
            </div>
            <div class="checks">
                <label class="check" title={if sharp_ok { "InfiniBand SHARP in-network reduction (NCCL CollNet)" } else { "SHARP needs InfiniBand" }}>
                    <input id="sharp-check" type="checkbox" checked={c.sharp} disabled={!sharp_ok && !c.sharp} onchange={on_sharp} />
                    { " SHARP" }
                </label>
                <label class="check" title="NVLink SHARP (NVLS) where the GPUs and NVSwitch have it">
                    <input id="nvls-check" type="checkbox" checked={c.nvls} onchange={on_nvls} />
                    { " NVLS" }
                </label>
                <label class="check" title="NIC k of every node goes to the leaves of rail k">
                    <input id="rail-check" type="checkbox" checked={c.rail_optimized} onchange={on_rail} />
                    { " Rail-optimized" }
                </label>
            </div>
        </fieldset>
    }
}
