//! Preset clusters: the common ones as buttons, the rest (cloud instances, AMD, newer NVIDIA
//! systems) in a labelled disclosure; the one matching the current cluster is pressed.

use crate::widgets::state::Action;
use fabricscope_model::presets::{ClusterPreset, CLUSTER_PRESETS};
use yew::prelude::*;

#[derive(PartialEq)]
pub struct Props {
    /// The preset the cluster is (`fabricscope_model::presets::matching_preset`), if any.
    pub active: Option<&'static str>,
    /// Whether the folded groups hold their buttons (the explorer's first render leaves them
    /// for the next frame: a shorter first task).
    pub more: bool,
    pub on_action: Callback<Action>,
}

impl super::Panel for Props {
    /// Drawn again only when the matching preset changes.
    fn view(&self) -> Html {
        presets(self)
    }
}

/// Shown as buttons at all times: one of each kind of fabric (InfiniBand pods, Spectrum-X and
/// RoCE Ethernet, NVL72 racks, PCIe, a cloud VM), so the hardware controls stay above the fold at 1400 x 900.
const COMMON: [&str; 8] = ["dgx-a100-superpod", "dgx-h100-superpod", "dgx-b200-superpod", "hgx-h200-spectrum-x", "h100-roce", "gb200-nvl72", "pcie-server", "cloud-100g"];

/// The other presets, in labelled groups; a preset in none of them goes to "Other systems".
const GROUPS: [(&str, &[&str]); 3] = [
    ("Cloud instances", &["aws-p4d", "aws-p5", "aws-p5en", "aws-p6-b200", "azure-nd-h100-v5", "azure-nd-gb200-v6", "gcp-a3-mega", "gcp-a3-ultra", "gcp-a4", "oci-gb200", "oci-gb300", "oci-mi355x"]),
    ("AMD Instinct", &["mi300x-roce", "mi355x-pollara"]),
    ("NVIDIA systems", &["gb200-nvl72-su", "gb300-nvl72", "b300-hgx"]),
];

fn button(p: &ClusterPreset, active: Option<&str>, cb: &Callback<Action>) -> Html {
    let cb = cb.clone();
    let id = p.id;
    let pressed = active == Some(id);
    html! {
        <button type="button" class={classes!("preset", pressed.then_some("active"))}
            data-preset={id} aria-pressed={pressed.to_string()} title={p.describe()}
            onclick={Callback::from(move |_| cb.emit(Action::Preset(id)))}>
            // Non-breaking hyphens: "Spectrum-X" stays whole in a phone's narrow button.
            { p.name.replace('-', "\u{2011}") }
        </button>
    }
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn presets(props: &Props) -> Html {
    let active = props.active;
    let cb = &props.on_action;
    let listed = |id: &str| COMMON.contains(&id) || GROUPS.iter().any(|(_, ids)| ids.contains(&id));
    let group = |ids: Vec<&ClusterPreset>| ids.into_iter().map(|p| button(p, active, cb)).collect::<Html>();
    let of = |ids: &[&str]| CLUSTER_PRESETS.iter().filter(|p| ids.contains(&p.id)).collect::<Vec<_>>();
    let mut groups: Vec<(&str, Vec<&ClusterPreset>)> = GROUPS.iter().map(|(label, ids)| (*label, of(ids))).collect();
    groups.push(("Other systems", CLUSTER_PRESETS.iter().filter(|p| !listed(p.id)).collect()));
    groups.retain(|(_, ps)| !ps.is_empty());
    // Open when the cluster shown is one of them (a link, a compare design), so the pressed
    // button is in sight.
    let open = groups.iter().any(|(_, ps)| ps.iter().any(|p| active == Some(p.id)));
    let count: usize = groups.iter().map(|(_, ps)| ps.len()).sum();
    html! {
        <div class="presets-box">
            <div class="presets" role="group" aria-label="Preset clusters">
                { group(of(&COMMON)) }
            </div>
            <details class="more-presets" data-testid="more-presets" {open}>
                <summary>{ format!("More presets ({count}): cloud, AMD, NVIDIA") }</summary>
                { for groups.into_iter().filter(|_| props.more).map(|(label, ps)| html! {
                    <div class="presets" role="group" aria-label={format!("Preset clusters: {label}")}>
                        <span class="presets-label" aria-hidden="true">{ label }</span>
                        { group(ps) }
                    </div>
                }) }
            </details>
        </div>
    }
}
