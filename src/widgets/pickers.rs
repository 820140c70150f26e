//! The hardware pickers: GPU, scale-up fabric, scale-out NIC (with SHARP), and NVLS.
//! Every option of the catalog is listed; fabrics that cannot carry the chosen GPU are
//! disabled with the model's reason in their text (choosing a GPU moves to its own fabric),
//! and any other impossible combination shows the model's message under the picker at fault.

use crate::widgets::state::Action;
use crate::widgets::eval::scale_up_faults;
use fabricscope_model::catalog::{GpuKind, NicKind, ScaleUp};
use fabricscope_model::Cluster;
use super::controls::{check, parsed, select, Opt, SelectAttrs};
use yew::prelude::*;

pub struct Props {
    pub cluster: Cluster,
    pub gpu_error: Option<String>,
    pub scale_up_error: Option<String>,
    pub nic_error: Option<String>,
    pub on_action: Callback<Action>,
}

impl PartialEq for Props {
    /// Equal when the pickers show the same: the hardware and its messages, whatever the
    /// counts (a dragged slider leaves the pickers as they are).
    fn eq(&self, o: &Self) -> bool {
        let hw = |c: &Cluster| (c.gpu, c.scale_up, c.nic, c.sharp, c.nvls, c.rail_optimized);
        hw(&self.cluster) == hw(&o.cluster)
            && (&self.gpu_error, &self.scale_up_error, &self.nic_error) == (&o.gpu_error, &o.scale_up_error, &o.nic_error)
            && self.on_action == o.on_action
    }
}

impl super::Panel for Props {
    fn view(&self) -> Html {
        pickers(self)
    }
}

fn error(id: &str, e: &Option<String>) -> Html {
    match e {
        Some(m) => html! { <p id={id.to_string()} class="error" role="alert">{ m }</p> },
        None => html! {},
    }
}

/// A labelled picker with the model's message under it.
#[inline(never)]
fn pick(id: &'static str, label: &'static str, opts: Vec<Opt>, error_id: &'static str, error_msg: &Option<String>, on_change: Callback<String>) -> Html {
    let attrs = SelectAttrs { error_id: error_msg.is_some().then_some(error_id), ..SelectAttrs::default() };
    html! {
        <div class={classes!("pick", error_msg.is_some().then_some("invalid"))}>
            <label for={id}>{ label }</label>
            { select(id, opts, attrs, on_change) }
            { error(error_id, error_msg) }
        </div>
    }
}

/// Every fabric, those that cannot carry the cluster's GPU disabled with the reason (the
/// current one stays choosable so the picker never shows an option it cannot hold).
fn scale_up_opts(c: &Cluster) -> Vec<Opt> {
    let faults = scale_up_faults(c.gpu);
    ScaleUp::ALL
        .iter()
        .zip(faults.iter())
        .map(|(s, fault)| {
            let selected = *s == c.scale_up;
            match fault {
                Some(why) if !selected => Opt { disabled: true, ..Opt::new(s.id(), format!("{} — {why}", s.name()), false) },
                _ => Opt::new(s.id(), s.name(), selected),
            }
        })
        .collect()
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn pickers(props: &Props) -> Html {
    let c = &props.cluster;
    let cb = &props.on_action;
    let sharp_ok = c.nic.spec().sharp_capable;
    let nvls_ok = c.nvls_hardware();
    html! {
        <fieldset class="group pickers">
            <legend>{ "Hardware" }</legend>
            { pick("gpu-select", "GPU", GpuKind::ALL.iter().map(|g| Opt::new(g.id(), g.spec().name, *g == c.gpu)).collect(), "gpu-error", &props.gpu_error,
                parsed(cb, |v| GpuKind::from_id(v).map(Action::Gpu))) }
            { pick("scale-up-select", "Scale-up fabric", scale_up_opts(c), "scale-up-error", &props.scale_up_error,
                parsed(cb, |v| ScaleUp::from_id(v).map(Action::ScaleUp))) }
            { pick("nic-select", "Scale-out NIC", NicKind::ALL.iter().map(|n| Opt::new(n.id(), n.spec().name, *n == c.nic)).collect(), "nic-error", &props.nic_error,
                parsed(cb, |v| NicKind::from_id(v).map(Action::Nic))) }
            <div class="checks">
                { check("sharp-check", " SHARP", if sharp_ok { "InfiniBand SHARP in-network reduction (NCCL CollNet)" } else { "SHARP needs InfiniBand" }, c.sharp, !sharp_ok && !c.sharp, cb.reform(Action::Sharp)) }
                { check("nvls-check", " NVLS", if nvls_ok { "NVLink SHARP (NVLS) where the GPUs and NVSwitch have it" } else { "No NVLS on this hardware: it needs Hopper or later GPUs on NVSwitch (RCCL on xGMI has none)" }, c.nvls, !nvls_ok && !c.nvls, cb.reform(Action::Nvls)) }
                { check("rail-check", " Rail-optimized", "NIC k of every node goes to the leaves of rail k", c.rail_optimized, false, cb.reform(Action::RailOptimized)) }
            </div>
        </fieldset>
    }
}
