//! check.html's root ("Check a real cluster", its own wasm: src/bin/fabricscope-check): the
//! design of the link, the hardware pickers, the check panel, and the scenario file with the
//! measured runs. Nothing is sent anywhere; the link (`#s=`) follows every change.

use crate::widgets::state::{pick_hardware, Action};
use crate::plumbing::hooks::{DARK, NARROW};
use crate::widgets::export::{import_scenario, save_scenario, scenario_buttons};
use crate::widgets::{pickers, PickersProps};
use super::{check_panel, CheckProps};
use crate::plumbing::hooks::use_media_query;
use crate::plumbing::url;
use fabricscope_check::{file_value, infer, link_of, link_of_noted, runs_of, Given, Measured};
use fabricscope_model::link::{measured_in_file, measured_in_link, Decoded};
use fabricscope_model::Scenario;
use yew::prelude::*;

/// check.html's worker jobs: long logs read and calibrations fitted off the main thread (its
/// `main` in a worker).
pub use super::calibrate::worker_task;

/// The page's state: the scenario of the link (its cluster is the design checked against,
/// its measured runs what the log said) and notes on fields of the link or file that fell back.
#[derive(Clone, Default, PartialEq)]
struct Page {
    scenario: Scenario,
    /// The runs read from a log, link or file.
    runs: Vec<Measured>,
    notes: Vec<String>,
    /// The fields picked on the page: they win over the log, as the CLI's flags do.
    given: Given,
}

impl Page {
    fn from_url() -> Page {
        let measured = url::link().and_then(|l| measured_in_link(&l));
        url::read().map(|d| Page::of(d, measured)).unwrap_or_default()
    }

    /// A decoded link or file with its measured runs (as it holds them), read.
    fn of(mut d: Decoded, measured: Option<serde_json::Value>) -> Page {
        let runs = runs_of(measured, &mut d.warnings);
        Page { scenario: d.scenario, runs, notes: d.warnings, given: Given::default() }
    }
}

/// The cluster a check of `runs` judges against (none without runs) and its hardware fields,
/// each with where it came from.
fn judged(runs: &[Measured], design: &fabricscope_model::Cluster, given: &Given) -> Option<(fabricscope_model::Cluster, Vec<fabricscope_check::Field>)> {
    if runs.is_empty() {
        return None;
    }
    let inf = infer(runs, design, given);
    let fields = inf.fields.into_iter().filter(|f| ["gpu", "scale_up", "nic", "library", "network"].contains(&f.name)).collect();
    Some((inf.cluster, fields))
}

/// Mounts the page into `#app`, one timer tick after the wasm is instantiated (two short
/// tasks rather than one long one, as the explorer does).
pub fn mount() {
    gloo_timers::callback::Timeout::new(0, || {
        if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app")) {
            yew::Renderer::<CheckPage>::with_root(el).render();
        }
    })
    .forget();
}

#[component]
fn CheckPage() -> Html {
    let page = use_state(Page::from_url);
    let dark = use_media_query(DARK);
    let compact = use_media_query(NARROW);
    url::use_link_writer((page.scenario.clone(), page.runs.clone()), "check.html", |(s, r)| link_of(s, r), String::new());
    use_effect(crate::plumbing::hooks::sync_selects);
    // What the link leaves out to stay under the length a link may have.
    let link_note = use_memo((page.scenario.clone(), page.runs.clone()), |(s, r)| link_of_noted(s, r).1);
    let check_note = use_state(|| None::<String>);
    let file_note = use_state(|| None::<String>);
    let c = &page.scenario.cluster;

    // The cluster the check judges against: the log's where it says (an AMD GPU, EFA, a
    // GB300 rack), what was picked where given, the design's where neither says. The pickers
    // show it; its hardware fields are listed under them.
    let judging = use_memo((page.runs.clone(), c.clone(), page.given), |(r, c, g)| judged(r, c, g));
    let shown = (*judging).as_ref().map_or(c, |(j, _)| j);
    let error = shown.topology().err();
    let error_for = |f: &str| error.as_ref().filter(|e| e.field == f).map(|e| e.message.clone());

    let on_action = {
        let page = page.clone();
        Callback::from(move |a: Action| {
            let mut p = (*page).clone();
            // A pick changes the cluster the pickers show (the judged one) and is given from
            // now on: the log no longer overrides that field.
            if let Some((j, _)) = judged(&p.runs, &p.scenario.cluster, &p.given) {
                p.scenario.cluster = j;
            }
            match a {
                Action::Gpu(_) => p.given.gpu = true,
                Action::ScaleUp(_) => p.given.scale_up = true,
                Action::Nic(_) => p.given.nic = true,
                _ => {}
            }
            pick_hardware(&mut p.scenario.cluster, a);
            page.set(p);
        })
    };
    let on_forget = {
        let page = page.clone();
        Callback::from(move |_: MouseEvent| {
            let mut p = (*page).clone();
            p.given = Given::default();
            page.set(p);
        })
    };
    let on_measured = {
        let page = page.clone();
        Callback::from(move |m| {
            let mut p = (*page).clone();
            p.runs = m;
            page.set(p);
        })
    };
    let save = {
        let (s, r) = (page.scenario.clone(), page.runs.clone());
        Callback::from(move |_: MouseEvent| save_scenario(&file_value(&s, &r)))
    };
    let import = {
        let (page, note, check_note) = (page.clone(), file_note.clone(), check_note.clone());
        Callback::from(move |e: Event| {
            let (page, n, cn) = (page.clone(), note.clone(), check_note.clone());
            import_scenario(e, note.clone(), move |d, text| {
                n.set(None);
                cn.set(None);
                let mut p = Page::of(d, measured_in_file(text));
                p.notes = p.notes.into_iter().map(|w| format!("Imported file: {w}")).collect();
                page.set(p);
            })
        })
    };
    html! {
        // On a phone the log's box comes first (check.css: `.check-layout`), the design under it.
        <div class="layout check-layout">
            <section class="panel controls export" aria-labelledby="design-heading">
                <h2 id="design-heading">{ "Design" }</h2>
                if !page.notes.is_empty() {
                    <ul class="notes" role="status" data-testid="link-notes">
                        { for page.notes.iter().map(|n| html! { <li>{ n }</li> }) }
                    </ul>
                }
                { pickers(&PickersProps {
                    cluster: shown.clone(),
                    gpu_error: error_for("gpu"),
                    scale_up_error: error_for("scale_up"),
                    nic_error: error_for("nic").or_else(|| error_for("sharp")),
                    on_action,
                }) }
                if let Some((_, fields)) = &*judging {
                    <p class="hint">{ "The pickers show the hardware the log's run is checked against; a pick is used at once, as given, even where the log says otherwise:" }</p>
                    <ul class="notes" data-testid="judged-hardware">
                        { for fields.iter().map(|f| html! {
                            <li data-source={f.source.id()}>{ f.label() }</li>
                        }) }
                    </ul>
                }
                if page.given != Given::default() {
                    <div class="export-row">
                        <button type="button" onclick={on_forget} data-testid="forget-picks">{ "Forget the picks: use what the log says" }</button>
                    </div>
                }
                <p class="hint" data-testid="design">{ format!("The link's design: {} node{} × {} GPUs. Where the log's header names the GPU and the hosts, those count instead.", c.nodes, if c.nodes == 1 { "" } else { "s" }, c.gpus_per_node) }</p>
                <h2>{ "Keep it" }</h2>
                <p class="hint">{ "The scenario file keeps the design and every measured point; the link, the design and the plateau." }</p>
                <div class="export-row">{ scenario_buttons(save, import) }</div>
                if let Some(n) = &*link_note {
                    <p class="hint" role="status" data-testid="link-note">{ n }</p>
                }
                if let Some(n) = &*file_note {
                    <p class="export-note" role="alert">{ n }</p>
                }
            </section>
            <div class="panels">
                { check_panel(&CheckProps { measured: page.runs.clone(), cluster: c.clone(), given: page.given, dark, compact, note: check_note, on_measured }) }
                <super::calibrate::CalibratePanel design={c.clone()} />
            </div>
        </div>
    }
}
