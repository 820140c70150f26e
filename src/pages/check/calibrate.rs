//! Your cluster, measured (issue 40): several nccl-tests / rccl-tests logs of one cluster (files,
//! a folder, or pasted one at a time) fitted into its effective parameters, as `fabricscope
//! calibrate` fits them (the same function, `fabricscope_check::calibrate`): each parameter with
//! its uncertainty and the rows that constrain it, what differs from the catalog in words, each
//! measured row against the catalog's and the calibrated prediction, the calibration file to
//! download (what `calibrate --json` prints, which `--calibration` takes), and a link that opens
//! the serving page on the cluster as measured. The fit runs in the page's worker.

use crate::plumbing::staged::{use_staged, Done, Staged, StagedTask};
use crate::plumbing::worker::Task;
use crate::widgets::export::{download_text, read_text_then};
use crate::widgets::Same;
use fabricscope_check::calibrate::{calibrate, read_log, FitRow, Fitted};
use fabricscope_check::{CalibrationFile, Given};
use fabricscope_model::link::encode;
use fabricscope_model::{Cluster, ModelError, Scenario};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Most logs one calibration reads (the CLI's limit).
pub const MAX_LOGS: usize = 64;
/// Largest log read, bytes (the check's limit).
const MAX_LOG_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// A calibration job's text starts with this line; any other job is a log to read.
const JOB_PREFIX: &str = "fabricscope-calibrate\n";

/// One log: the name it came with and its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogText {
    pub name: String,
    pub text: String,
}

/// The calibration the worker runs.
#[derive(Serialize, Deserialize)]
struct Job {
    design: Cluster,
    logs: Vec<LogText>,
}

/// The fit as a staged job: one step (a few hundred predictions). Its answer is the calibration
/// file's text, byte for byte what `calibrate --json` prints (the download); the page reads the
/// file back from it to show.
pub struct Fit(Option<Job>);

impl Staged for Fit {
    type Answer = String;
    fn step(&mut self, _more: &mut dyn FnMut() -> bool) -> Result<Option<String>, ModelError> {
        let Some(job) = self.0.take() else { return Err(ModelError::new("log", "the calibration was already answered")) };
        let mut logs = Vec::with_capacity(job.logs.len());
        for l in job.logs {
            logs.push(read_log(&l.name, l.text.into_bytes())?);
        }
        calibrate(&logs, &job.design, &Given::default()).map(|f| Some(f.to_json()))
    }
    fn progress(&self) -> (usize, usize) {
        (0, 1)
    }
}

/// check.html's worker jobs: a calibration, or (anything else) a log's text to read.
pub fn worker_task(job: &str) -> Box<dyn Task> {
    match job.strip_prefix(JOB_PREFIX) {
        Some(json) => Box::new(StagedTask(serde_json::from_str::<Job>(json).map(|j| Fit(Some(j))).map_err(|e| ModelError::new("log", format!("unreadable calibration request: {e}"))))),
        None => super::panel::worker_task(job),
    }
}

type Key = (Same<Vec<LogText>>, Cluster);

fn make((logs, design): &Key) -> Result<(Fit, String), ModelError> {
    if logs.0.is_empty() {
        return Err(ModelError::new("log", "add at least one log to calibrate on"));
    }
    let job = Job { design: design.clone(), logs: (*logs.0).clone() };
    let text = format!("{JOB_PREFIX}{}", serde_json::to_string(&job).unwrap_or_default());
    Ok((Fit(Some(job)), text))
}

fn field_of(name: &str) -> &'static str {
    if name == "log" {
        "log"
    } else {
        "calibration"
    }
}

/// The cluster the logs describe, as measured (its calibration inside: every page and link
/// that takes a cluster takes it) or as designed (the catalog's values).
fn scenario_of(f: &CalibrationFile, measured: bool) -> Scenario {
    let cluster = if measured { f.cluster.as_measured(&f.calibration) } else { f.designed_cluster() };
    Scenario { cluster, ..Scenario::default() }
}

/// serving.html on the cluster the logs describe, as measured.
pub fn serving_link(f: &CalibrationFile) -> String {
    format!("serving.html#s={}", encode(&scenario_of(f, true)))
}

/// The explorer on the cluster as measured, or as designed.
pub fn explorer_link(f: &CalibrationFile, measured: bool) -> String {
    format!("{}#s={}", if measured { "measured.html" } else { "./" }, encode(&scenario_of(f, measured)))
}

/// compare.html with the cluster as designed and as measured side by side.
pub fn compare_link(f: &CalibrationFile) -> String {
    use fabricscope_design::compare::{encode_designs, Design};
    let designs = [("As designed", false), ("As measured", true)].map(|(name, m)| Design { name: name.to_string(), scenario: scenario_of(f, m) });
    format!("compare.html#s={}&d={}", encode(&designs[1].scenario), encode_designs(&designs))
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The page's design: what the logs do not say is taken from it.
    pub design: Cluster,
}

/// Adds `files` (at most [`MAX_LOGS`] in all) to `logs`, or says in `note` why one was not.
fn add_files(files: Vec<web_sys::File>, logs: UseStateHandle<Same<Vec<LogText>>>, note: UseStateHandle<Option<String>>) {
    let mut readable = Vec::new();
    for file in files {
        if file.size() > MAX_LOG_BYTES {
            note.set(Some(format!("{} not added: {:.1} MiB, over the 16 MiB a log may have.", file.name(), file.size() / 1048576.0)));
        } else {
            readable.push(file);
        }
    }
    // The files are read at once and finish in any order; the logs are added together, in the
    // order they were chosen, so the page's list (and its cluster.json) is the CLI's for the
    // same files in the same order.
    let slots: Rc<RefCell<Vec<Option<Result<LogText, String>>>>> = Rc::new(RefCell::new(vec![None; readable.len()]));
    for (i, file) in readable.iter().enumerate() {
        let (slots, logs, note, name) = (slots.clone(), logs.clone(), note.clone(), file.name());
        read_text_then(file, move |text| {
            let all = {
                let mut s = slots.borrow_mut();
                s[i] = Some(text.map(|text| LogText { name: name.clone(), text }).ok_or(name));
                if s.iter().any(Option::is_none) {
                    return;
                }
                std::mem::take(&mut *s)
            };
            let mut v = (*logs.0).clone();
            let mut refused = Vec::new();
            for log in all.into_iter().flatten() {
                match log {
                    Ok(log) if v.len() < MAX_LOGS => v.push(log),
                    Ok(log) => refused.push(format!("{} not added: a calibration reads at most {MAX_LOGS} logs.", log.name)),
                    Err(name) => refused.push(format!("{name} not added: the browser could not read it.")),
                }
            }
            if let Some(first) = refused.into_iter().next() {
                note.set(Some(first));
            }
            logs.set(Same(Rc::new(v)));
        });
    }
}

/// The files of an `<input type=file>` or a drop.
fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).filter(|f| f.size() > 0.0).collect()
}

fn parameters(ps: &[Fitted]) -> Html {
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Fitted parameters">
            <table data-testid="calibration-parameters">
                <caption class="muted">{ "Each fitted parameter: its value with one standard deviation, the catalog's, and the measured rows that constrain it" }</caption>
                <thead><tr><th scope="col">{ "Parameter" }</th><th scope="col" class="num">{ "Fitted" }</th><th scope="col" class="num">{ "Catalog" }</th><th scope="col">{ "Constrained by" }</th></tr></thead>
                <tbody>
                    { for ps.iter().map(|p| html! {
                        <tr data-name={p.name.clone()} data-value={p.value.to_string()}>
                            <th scope="row">{ &p.name }</th>
                            <td class="num">{ format!("{:.3} ± {:.3} {}{}", p.value, p.uncertainty, p.unit, if p.at_bound { " (at a bound)" } else { "" }) }</td>
                            <td class="num">{ format!("{:.3}", p.catalog) }</td>
                            <td>{ format!("{} row{}", p.constrained_by.len(), if p.constrained_by.len() == 1 { "" } else { "s" }) }<span class="muted small">{ format!(": {}", p.constrained_by.iter().take(3).cloned().collect::<Vec<_>>().join("; ")) }</span></td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// A busbw to three significant figures at most ("0.35", "44.2", "357.9").
fn gbps(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

fn rows(rs: &[FitRow]) -> Html {
    // nccl-tests prints busbw to 0.01 GB/s: below 0.05 an error in percent is rounding.
    let err = |p: f64, m: f64| if m >= 0.05 { format!(" ({:+.0}%)", (p / m - 1.0) * 100.0) } else { String::new() };
    html! {
        <details data-testid="calibration-rows-details">
        <summary>{ format!("Every measured row against the catalog and the calibrated prediction ({} rows)", rs.len()) }</summary>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Measured rows against the catalog and the calibrated prediction">
            <table data-testid="calibration-rows">
                <caption class="muted">{ "Each measured row (busbw, GB/s) against the catalog design's prediction and the calibrated one, with their errors" }</caption>
                <thead><tr><th scope="col">{ "Row" }</th><th scope="col" class="num">{ "Measured" }</th><th scope="col" class="num">{ "Catalog" }</th><th scope="col" class="num">{ "Calibrated" }</th></tr></thead>
                <tbody>
                    { for rs.iter().map(|r| html! {
                        <tr>
                            <th scope="row">{ r.label() }</th>
                            <td class="num">{ gbps(r.measured_busbw) }</td>
                            <td class="num">{ format!("{}{}", gbps(r.catalog_busbw), err(r.catalog_busbw, r.measured_busbw)) }</td>
                            <td class="num" data-calibrated={r.calibrated_busbw.to_string()}>{ format!("{}{}", gbps(r.calibrated_busbw), err(r.calibrated_busbw, r.measured_busbw)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
        </details>
    }
}

fn fitted(text: &str, ms: f64) -> Html {
    let f = match serde_json::from_str::<CalibrationFile>(text) {
        Ok(f) => f,
        Err(e) => return html! { <p class="error" data-testid="calibration-error">{ format!("Not calibrated: the fit's file could not be read back: {e}") }</p> },
    };
    let f = &f;
    let text = text.to_string();
    let download = Callback::from(move |_: MouseEvent| download_text("cluster.json", "application/json", &text));
    let c = &f.cluster;
    html! {
        <div data-testid="calibration-result" data-logs={f.logs.len().to_string()}>
            <p>{ format!("Fitted from {} log{} ({} rows) of {} node{} × {} {} in {:.2} s: the cluster as measured.", f.logs.len(), if f.logs.len() == 1 { "" } else { "s" }, f.rows.len(), c.nodes, if c.nodes == 1 { "" } else { "s" }, c.gpus_per_node, c.gpu.id(), ms / 1000.0) }</p>
            <ul class="notes" data-testid="calibration-summary">
                { for f.summary.iter().chain(&f.features).map(|s| html! { <li>{ s }</li> }) }
                { for f.not_constrained.iter().map(|s| html! { <li class="muted">{ s }</li> }) }
            </ul>
            { parameters(&f.parameters) }
            { rows(&f.rows) }
            <div class="export-row">
                <button type="button" data-testid="calibration-download" onclick={download}>{ "Download cluster.json" }</button>
                <a data-testid="calibration-explorer-measured" href={explorer_link(f, true)}>{ "Explore this cluster as measured" }</a>
                <a data-testid="calibration-serving" href={serving_link(f)}>{ "Serve on it as measured" }</a>
                <a data-testid="calibration-compare" href={compare_link(f)}>{ "Compare as designed and as measured" }</a>
                <a data-testid="calibration-explorer" href={explorer_link(f, false)}>{ "Explore it as designed" }</a>
            </div>
            <p class="hint">{ "cluster.json is the file fabricscope calibrate --json writes: fabricscope train, serve, collective and the others take it with --calibration cluster.json. The links carry the fitted values (not the logs): the explorer, serving and compare time every collective as the logs measured it, at any node count, and say so beside each number." }</p>
        </div>
    }
}

#[function_component(CalibratePanel)]
pub fn calibrate_panel(p: &Props) -> Html {
    let logs = use_state(|| Same(Rc::new(Vec::<LogText>::new())));
    let note = use_state(|| None::<String>);
    let (done, progress, start) = use_staged((Same(logs.0.clone()), p.design.clone()), make, field_of);
    let done: Option<Rc<Done<Key, String>>> = done;
    let on_files = {
        let (logs, note) = (logs.clone(), note.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            add_files(files_of(input.files()), logs.clone(), note.clone());
            input.set_value("");
        })
    };
    let on_drop = {
        let (logs, note) = (logs.clone(), note.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            add_files(files_of(e.data_transfer().and_then(|d| d.files())), logs.clone(), note.clone());
        })
    };
    let add_pasted = {
        let (logs, note) = (logs.clone(), note.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(t) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("calibrate-paste")).and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) else { return };
            let text = t.value();
            if text.trim().is_empty() {
                return note.set(Some("Nothing pasted: paste one log's output, then add it.".into()));
            }
            if text.len() as f64 > MAX_LOG_BYTES {
                return note.set(Some("Not added: the pasted text is over the 16 MiB a log may have.".into()));
            }
            let mut v = (*logs.0).clone();
            if v.len() >= MAX_LOGS {
                return note.set(Some(format!("Not added: a calibration reads at most {MAX_LOGS} logs.")));
            }
            v.push(LogText { name: format!("pasted log {}", v.len() + 1), text });
            t.set_value("");
            note.set(None);
            logs.set(Same(Rc::new(v)));
        })
    };
    let remove = |i: usize| {
        let logs = logs.clone();
        Callback::from(move |_: MouseEvent| {
            let mut v = (*logs.0).clone();
            if i < v.len() {
                v.remove(i);
            }
            logs.set(Same(Rc::new(v)));
        })
    };
    let running = progress.is_some();
    html! {
        <section class="panel wide" data-testid="calibrate" aria-labelledby="calibrate-h" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
            <h2 id="calibrate-h">{ "Your cluster, measured: calibrate from several logs" }</h2>
            <p class="hint">{ "Give several nccl-tests or rccl-tests logs of one cluster (different collectives, sizes, node counts): the model's per-tier bandwidth shares and latencies are fitted to them, within physical bounds, and what no log exercised stays the catalog's. Logs of different clusters, or contradicting each other, are refused with the reason. Nothing leaves this page." }</p>
            <div class="toolbar" role="group" aria-label="Logs to calibrate on">
                <label class="inline">{ "Log files " }<input type="file" multiple=true data-testid="calibrate-files" onchange={on_files.clone()} /></label>
                <label class="inline">{ "A folder of logs " }<input type="file" webkitdirectory=true multiple=true data-testid="calibrate-folder" onchange={on_files} /></label>
            </div>
            <div><label for="calibrate-paste">{ "Or paste one log at a time" }</label></div>
            <div><textarea id="calibrate-paste" rows="4" placeholder="# nccl-tests output, one run" /></div>
            <div class="toolbar">
                <button type="button" data-testid="calibrate-add" onclick={add_pasted}>{ "Add the pasted log" }</button>
                <button type="button" data-testid="calibrate-run" disabled={running || logs.0.is_empty()} onclick={start.reform(|_: MouseEvent| ())}>{ format!("Calibrate on {} log{}", logs.0.len(), if logs.0.len() == 1 { "" } else { "s" }) }</button>
                <span class="status" role="status" data-testid="calibrate-status">{ if running { "fitting in a background worker…" } else { "" } }</span>
            </div>
            if let Some(n) = &*note {
                <p class="warning" role="alert">{ n }</p>
            }
            if !logs.0.is_empty() {
                <ul class="notes" data-testid="calibrate-logs">
                    { for logs.0.iter().enumerate().map(|(i, l)| html! {
                        <li>{ format!("{} ({:.0} KB) ", l.name, l.text.len() as f64 / 1024.0) }<button type="button" class="link" aria-label={format!("Remove {}", l.name)} onclick={remove(i)}>{ "remove" }</button></li>
                    }) }
                </ul>
            }
            if let Some(d) = &done {
                { match &d.result {
                    Err(e) => html! { <p class="error" data-testid="calibration-error">{ format!("Not calibrated: {}", e.message) }</p> },
                    Ok(text) => fitted(text, d.ms),
                } }
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plumbing::worker::Step;

    fn log(name: &str) -> LogText {
        let path = format!("{}/validation/logs/{name}", env!("CARGO_MANIFEST_DIR"));
        LogText { name: name.into(), text: std::fs::read_to_string(&path).unwrap() }
    }

    fn answer(job: &str) -> String {
        let mut task = worker_task(job);
        loop {
            if let Step::Done(a) = task.run(&mut || true) {
                return a;
            }
        }
    }

    /// The page's calibration job, run as the worker runs it, is `fabricscope calibrate`'s fit
    /// of the same logs on the same design (the CLI with no cluster flags: the default design);
    /// logs of two clusters are refused with the reason; any other job is a log to read.
    #[test]
    fn the_worker_fits_as_the_cli_does_and_refuses_two_clusters() {
        let logs = vec![log("h100-1node-all-gather-ring.txt"), log("h100-1node-all-reduce-nvls.txt")];
        let key = (Same(Rc::new(logs.clone())), Cluster::default());
        let (_, text) = make(&key).unwrap();
        let page: Result<String, (String, String)> = serde_json::from_str(&answer(&text)).unwrap();
        let page_text = page.unwrap();
        let page: CalibrationFile = serde_json::from_str(&page_text).unwrap();
        let read: Vec<_> = logs.iter().map(|l| read_log(&l.name, l.text.clone().into_bytes()).unwrap()).collect();
        let cli = calibrate(&read, &Cluster::default(), &Given::default()).unwrap();
        assert_eq!(page_text, cli.to_json());
        assert!(page.summary.iter().any(|s| s.starts_with("Inside the node as designed")), "{:?}", page.summary);
        // The links carry the cluster as measured: its link decodes to the calibration fitted.
        let measured = fabricscope_model::link::decode(serving_link(&page).trim_start_matches("serving.html#s="));
        assert!(measured.warnings.is_empty(), "{:?}", measured.warnings);
        let c = &measured.scenario.cluster;
        assert_eq!(c.measured(), Some(Ok(page.calibration.clone())));
        assert_eq!(fabricscope_model::link::decode(explorer_link(&page, false).trim_start_matches("./#s=")).scenario.cluster.calibration, None);
        assert!(explorer_link(&page, true).starts_with("measured.html#s="));
        let two = (Same(Rc::new(vec![log("h100-2node-a3mega-all-reduce.txt"), log("h100-1node-all-reduce-nvls.txt")])), Cluster::default());
        let refused: Result<String, (String, String)> = serde_json::from_str(&answer(&make(&two).unwrap().1)).unwrap();
        assert!(refused.unwrap_err().1.contains("are not the same cluster"));
        assert!(make(&(Same(Rc::new(Vec::new())), Cluster::default())).is_err());
        // A log's own text is read, as before.
        assert!(answer(&log("h100-1node-all-gather-ring.txt").text).contains("all_gather"));
    }
}
