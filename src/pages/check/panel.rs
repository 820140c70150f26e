//! "Check a real cluster": paste or drop nccl-tests output; the page reads it (nothing is
//! sent anywhere), says what it read and what it assumed, draws the measured points over the
//! expected curve and band, lists each size and gives the verdict, with CSV and SVG/PNG export.
//! Shown by check.html ([`super::page`]), not by the explorer.

use crate::widgets::export::{chosen, download_png, download_text, read_text, svg_size};
use crate::widgets::ChartSvg;
use fabricscope_charts::check::check_chart;
use fabricscope_charts::scale::interval_label;
use fabricscope_charts::Theme;
use fabricscope_check::{check_csv, check_with, next_line, CheckReport, Given, Log, Measured, Parser};
use fabricscope_model::units::{format_size, Bytes};
use fabricscope_model::{Cluster, ModelError};
use std::fmt::Write;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows of the per-size table shown (a sweep has about 40 per run; the CSV has them all).
const TABLE_ROWS: usize = 400;

/// Largest log read (a verbose NCCL_DEBUG=INFO log of a multi-node sweep is a few MiB).
const MAX_LOG_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

pub struct Props {
    pub measured: Vec<Measured>,
    /// The design the page shows: NIC and fabric come from it.
    pub cluster: Cluster,
    /// What was picked on the page: wins over the log, as the CLI's flags do.
    pub given: Given,
    pub dark: bool,
    pub compact: bool,
    /// What the last read said (not nccl-tests output; lines not read).
    pub note: UseStateHandle<Option<String>>,
    /// The runs read (empty: cleared).
    pub on_measured: Callback<Vec<Measured>>,
}

type Checked = Rc<Result<CheckReport, ModelError>>;
/// What a check is of: the runs, the design and what was picked.
type CheckKey = (Vec<Measured>, Cluster, Given);

thread_local! {
    static REPORT: std::cell::RefCell<Option<(CheckKey, Checked)>> = const { std::cell::RefCell::new(None) };
}

/// Longest slice of reading in one task, ms: well under the 50 ms of a long task, as the
/// training search slices its work (src/training.rs).
const SLICE_MS: f64 = 8.0;
/// Lines read between looks at the clock.
const LINES_PER_LOOK: usize = 64;
/// Logs at least this long (bytes) are read in the page's Web Worker (src/plumbing/worker.rs), off the
/// main thread; shorter ones in main-thread slices, as every log where no worker runs (a
/// worker's start, ~0.1 s the first time, is more than reading 64 KiB takes).
const WORKER_MIN_BYTES: usize = 64 * 1024;

thread_local! {
    /// Numbers each reading: a newer paste stops an older reading's slices.
    static READING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// The worker channel of this page's readings.
    static CHANNEL: u32 = crate::plumbing::worker::channel();
}

/// Reads lines of `text` from `*at` while `more()` (asked every [`LINES_PER_LOOK`] lines);
/// true once all are read.
fn read_lines(text: &str, at: &mut usize, parser: &mut Parser, more: &mut dyn FnMut() -> bool) -> bool {
    let mut lines = 0;
    while *at < text.len() {
        // Lines end in LF, CRLF or a lone CR (the reader's own rule).
        let (line, used) = next_line(&text[*at..]);
        parser.line(line);
        *at += used;
        lines += 1;
        if lines % LINES_PER_LOOK == 0 && !more() {
            break;
        }
    }
    *at >= text.len()
}

/// A log being read, line by line, in slices of at most [`SLICE_MS`] (a 1 MB log is read
/// without a long task, with its progress in the note).
struct Reading {
    text: String,
    at: usize,
    parser: Parser,
    gen: u32,
    note: UseStateHandle<Option<String>>,
    on_measured: Callback<Vec<Measured>>,
}

impl Reading {
    fn slice(mut self) {
        if READING.with(|g| g.get()) != self.gen {
            return;
        }
        let start = js_sys::Date::now();
        if !read_lines(&self.text, &mut self.at, &mut self.parser, &mut || js_sys::Date::now() - start <= SLICE_MS) {
            let pct = self.at * 100 / self.text.len().max(1);
            self.note.set(Some(format!("Reading the log: {pct}% ({} lines)…", self.parser.lines())));
            gloo_timers::callback::Timeout::new(0, move || self.slice()).forget();
            return;
        }
        // The check and its drawing in a task of their own, after the last slice of reading.
        let Reading { parser, note, on_measured, gen, .. } = self;
        gloo_timers::callback::Timeout::new(0, move || {
            if READING.with(|g| g.get()) == gen {
                let (runs, n) = summary(parser.finish());
                note.set(n);
                on_measured.emit(runs);
            }
        })
        .forget();
    }
}

/// What a finished reading says: its runs, or why not (a bad paste clears the old verdict:
/// the runs it was about are no longer what the box holds), and the note on what was not read.
fn summary(read: Result<Log, ModelError>) -> (Vec<Measured>, Option<String>) {
    match read {
        Ok(log) => {
            let (runs, skipped) = Measured::from_log_noted(&log);
            let mut n = String::new();
            if log.unread_count > 0 {
                let _ = write!(n, "{} line(s) not read as nccl-tests output:", log.unread_count);
                for u in &log.unread {
                    let _ = write!(n, "\nline {}: {}", u.line, u.text);
                }
            }
            if log.rejected_count > 0 {
                let _ = write!(n, "{}{} result row(s) not read as measurements:", if n.is_empty() { "" } else { "\n" }, log.rejected_count);
                for u in &log.rejected {
                    let _ = write!(n, "\nline {}: {}", u.line, u.text);
                }
            }
            for k in &skipped {
                let _ = write!(n, "{}Skipped {k}.", if n.is_empty() { "" } else { "\n" });
            }
            (runs, (!n.is_empty()).then_some(n))
        }
        Err(e) => (Vec::new(), Some(e.message)),
    }
}

/// A log read in the worker; its answer is [`summary`]'s, as JSON.
struct ReadTask {
    text: String,
    at: usize,
    parser: Parser,
}

impl crate::plumbing::worker::Task for ReadTask {
    fn run(&mut self, more: &mut dyn FnMut() -> bool) -> crate::plumbing::worker::Step {
        if !read_lines(&self.text, &mut self.at, &mut self.parser, more) {
            return crate::plumbing::worker::Step::More(self.at as u64, self.text.len() as u64);
        }
        let answer = summary(std::mem::take(&mut self.parser).finish());
        crate::plumbing::worker::Step::Done(serde_json::to_string(&answer).unwrap_or_default())
    }
}

/// check.html's worker jobs (its `main` in a worker serves them): a log's text, read.
pub fn worker_task(job: &str) -> Box<dyn crate::plumbing::worker::Task> {
    Box::new(ReadTask { text: job.to_string(), at: 0, parser: Parser::default() })
}

/// Reads pasted or dropped text into measured runs, or says why not: a long log in the
/// page's worker (the note shows its progress), else in main-thread slices.
fn read(text: String, note: &UseStateHandle<Option<String>>, on_measured: &Callback<Vec<Measured>>) {
    let gen = READING.with(|g| {
        g.set(g.get().wrapping_add(1));
        g.get()
    });
    let reading = Reading { text, at: 0, parser: Parser::default(), gen, note: note.clone(), on_measured: on_measured.clone() };
    let ch = CHANNEL.with(|c| *c);
    if reading.text.len() < WORKER_MIN_BYTES {
        crate::plumbing::worker::cancel(ch, gen as u64);
        return reading.slice();
    }
    let live = move || READING.with(|g| g.get()) == gen;
    let on_progress = {
        let note = note.clone();
        move |done: u64, total: u64| {
            if live() {
                note.set(Some(format!("Reading the log in a background worker: {}%…", done * 100 / total.max(1))));
            }
        }
    };
    let on_done = {
        let (note, on_measured) = (note.clone(), on_measured.clone());
        move |answer: String| {
            if !live() {
                return;
            }
            let (runs, n) = serde_json::from_str::<(Vec<Measured>, Option<String>)>(&answer).unwrap_or_else(|e| (Vec::new(), Some(format!("The background reading's answer was unreadable ({e}); paste the log again."))));
            note.set(n);
            on_measured.emit(runs);
        }
    };
    let job = reading.text.clone();
    note.set(Some("Reading the log in a background worker: 0%…".into()));
    crate::plumbing::worker::run(ch, gen as u64, job, on_progress, on_done, move || reading.slice());
}

/// Reads a chosen or dropped file as text, then [`read`].
fn read_file(file: web_sys::File, note: UseStateHandle<Option<String>>, on_measured: Callback<Vec<Measured>>) {
    if file.size() > MAX_LOG_BYTES {
        note.set(Some(format!("Not read: the file is {:.1} MiB, over the 16 MiB a log may have; paste the part with the results.", file.size() / 1024.0 / 1024.0)));
        return;
    }
    let n = note.clone();
    read_text(&file, note, move |text| read(text, &n, &on_measured));
}

/// The fields read, plateaus, verdict and per-size table.
fn report(r: &CheckReport) -> Html {
    let fields = r.fields.iter().map(|f| html! {
        <><span class={f.source.id()} data-source={f.source.id()}>{ f.label() }</span>{ " " }</>
    });
    let plateaus = r.plateaus.iter().map(|p| html! {
        <p data-testid="check-plateau">
            { format!("Plateau, run {} ({}): ", p.run + 1, p.op.id()) }<b>{ format!("{:.2} GB/s", p.measured_busbw) }</b>
            { format!(" busbw at {} against {:.2} expected ({}), {:.0}%", format_size(Bytes(p.bytes)), p.expected_busbw, p.algorithm, p.ratio * 100.0) }
        </p>
    });
    let verdict = r.verdict.iter().map(|c| html! {
        <li><b>{ &c.cause }</b><br />{ &c.evidence }<br /><i>{ "Next:" }</i>{ format!(" {}", c.next_step) }</li>
    });
    let rows = r.rows.iter().take(TABLE_ROWS).map(|w| {
        let band = match (w.within_band, w.interval) {
            (Some(b), Some([lo, hi])) => format!("{} ({})", if b { "yes" } else { "no" }, interval_label(lo, hi)),
            // Too few printed digits to place the row inside or outside the interval.
            (None, Some(_)) => "< 0.1 GB/s".into(),
            _ => "no interval".into(),
        };
        html! {
            <tr>
                <td>{ w.run + 1 }</td><td>{ w.op.id() }</td><td>{ format_size(Bytes(w.bytes)) }</td>
                <td>{ format!("{:.2}", w.measured_busbw) }</td><td>{ format!("{:.2}", w.expected_busbw) }</td><td>{ format!("{:.2}", w.ratio) }</td><td>{ band }</td>
            </tr>
        }
    });
    html! { <>
        <p class="check-fields" data-testid="check-fields">{ for fields }</p>
        if !r.overruled.is_empty() {
            <ul class="notes" role="status" data-testid="check-overruled">
                { for r.overruled.iter().map(|o| html! { <li>{ o.text() }</li> }) }
            </ul>
        }
        { for plateaus }
        <ol class="verdict" data-testid="check-verdict">{ for verdict }</ol>
        <div class="table-wrap">
            <table class="check-table" data-testid="check-table">
                <thead><tr>
                    <th>{ "run" }</th><th>{ "op" }</th><th>{ "size" }</th><th>{ "measured GB/s" }</th><th>{ "expected GB/s" }</th><th>{ "ratio" }</th><th>{ "inside its 90% interval" }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    </> }
}

/// The panel after the text box: buttons, note, status, chart, fields, plateaus, verdict and
/// table.
fn body(p: &Props, checked: Option<&Result<CheckReport, ModelError>>) -> Html {
    let result = match checked {
        Some(Ok(r)) => {
            let (class, status) = match r.healthy {
                Some(true) => ("ok", "Healthy: the plateau matches the model."),
                Some(false) => ("bad", "Not healthy, or not what the design expects: see the causes below."),
                None => ("unknown", "Cannot judge: see the first cause below."),
            };
            let svg = check_chart(r, &Theme::for_dark(p.dark), if p.compact { 420 } else { 760 });
            html! { <>
                <p class={classes!("check-status", class)} data-testid="check-status">{ status }</p>
                <div class="chart-svg" data-testid="check-chart"><ChartSvg {svg} /></div>
                { report(r) }
                <div class="export-row">
                    <button type="button" data-act="csv" data-testid="check-csv">{ "Download table (CSV)" }</button>
                    <button type="button" data-act="svg" data-testid="check-svg">{ "Download chart (SVG)" }</button>
                    <button type="button" data-act="png" data-testid="check-png">{ "Download chart (PNG)" }</button>
                    <button type="button" data-act="clear" data-testid="check-clear">{ "Clear the log and results" }</button>
                </div>
            </> }
        }
        Some(Err(e)) => html! { <p class="error" role="alert" data-testid="check-error">{ format!("{}: {}", e.field, e.message) }</p> },
        None => Html::default(),
    };
    html! { <>
        <div class="export-row">
            <button type="button" data-act="run" data-testid="check-run">{ "Check" }</button>
            <label class="export-import">{ "Open log…" }<input type="file" accept=".txt,.log,.out,text/plain" data-testid="check-file" /></label>
        </div>
        if let Some(n) = &*p.note {
            <p class="export-note check-note" role="status" data-testid="check-note">{ n }</p>
        }
        { result }
    </> }
}

/// Why a text of `units` UTF-16 code units (a JS string's length, known before the text is
/// copied into the page's memory) is not read, if it is over the log limit.
fn too_long(units: u32) -> Option<String> {
    (f64::from(units) > MAX_LOG_BYTES).then(|| {
        format!(
            "Not read: the pasted text is {:.1} MiB, over the 16 MiB a log may have. Paste the part with the results (the '#  Rank' header and the rows), or drop the file.",
            f64::from(units) / 1024.0 / 1024.0
        )
    })
}

/// The length of a JS string value (0 for anything else), without copying it.
fn js_len(v: &wasm_bindgen::JsValue) -> u32 {
    v.dyn_ref::<js_sys::JsString>().map_or(0, js_sys::JsString::length)
}

/// The text box's content, or why it is not read (over the limit: measured before it is
/// copied out of the box).
fn pasted() -> Result<String, String> {
    let Some(t) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("check-log")) else { return Ok(String::new()) };
    let value = js_sys::Reflect::get(&t, &"value".into()).unwrap_or_default();
    match too_long(js_len(&value)) {
        Some(why) => Err(why),
        None => Ok(value.as_string().unwrap_or_default()),
    }
}

/// A paste into the box: one over the limit is refused before the box takes it (a 64 MB
/// paste put in the box alone is seconds of the main thread), with the limit in the note.
fn on_paste(e: &Event, note: &UseStateHandle<Option<String>>) {
    let data = js_sys::Reflect::get(e, &"clipboardData".into()).ok().filter(|d| !d.is_null() && !d.is_undefined());
    let text = data.and_then(|d| {
        let get: js_sys::Function = js_sys::Reflect::get(&d, &"getData".into()).ok()?.dyn_into().ok()?;
        get.call1(&d, &"text".into()).ok()
    });
    if let Some(why) = text.as_ref().map(js_len).and_then(too_long) {
        e.prevent_default();
        note.set(Some(why));
    }
}

pub fn check_panel(p: &Props) -> Html {
    let key = (p.measured.clone(), p.cluster.clone(), p.given);
    let report: Option<Checked> = (!p.measured.is_empty()).then(|| REPORT.with(|c| crate::widgets::cached(c, key, |(m, c, g)| Rc::new(check_with(m, c, g)))));
    // One listener per event for the whole panel: buttons say what they do in data-act.
    let on_click = {
        let (note, on_measured, report) = (p.note.clone(), p.on_measured.clone(), report.clone());
        let (dark, compact) = (p.dark, p.compact);
        Callback::from(move |e: MouseEvent| {
            let act = e.target_unchecked_into::<web_sys::Element>().get_attribute("data-act").unwrap_or_default();
            let done = report.as_deref().and_then(|r| r.as_ref().ok());
            let svg = || done.map(|r| check_chart(r, &Theme::for_dark(dark), if compact { 420 } else { 760 }));
            match act.as_str() {
                "run" => match pasted() {
                    Ok(text) => read(text, &note, &on_measured),
                    Err(why) => note.set(Some(why)),
                },
                "clear" => {
                    // A reading still in slices (or in the worker) stops too.
                    let gen = READING.with(|g| {
                        g.set(g.get().wrapping_add(1));
                        g.get()
                    });
                    crate::plumbing::worker::cancel(CHANNEL.with(|c| *c), gen as u64);
                    note.set(None);
                    on_measured.emit(Vec::new());
                }
                "csv" => {
                    if let Some(r) = done {
                        download_text("fabricscope-check.csv", "text/csv", &check_csv(r));
                    }
                }
                "svg" => {
                    if let Some(svg) = svg() {
                        download_text("fabricscope-check.svg", "image/svg+xml", &svg);
                    }
                }
                "png" => {
                    if let Some(svg) = svg() {
                        let (w, h) = svg_size(&svg);
                        let _ = download_png("fabricscope-check.png".into(), &svg, w, h);
                    }
                }
                _ => {}
            }
        })
    };
    let on_file = {
        let (note, on_measured) = (p.note.clone(), p.on_measured.clone());
        Callback::from(move |e: Event| {
            // The text box fires `change` too: only a file input has a file.
            if let Some(f) = chosen(&e) {
                read_file(f, note.clone(), on_measured.clone());
            }
        })
    };
    let on_drop = {
        let (note, on_measured) = (p.note.clone(), p.on_measured.clone());
        Callback::from(move |e: DragEvent| {
            if let Some(f) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                e.prevent_default();
                read_file(f, note.clone(), on_measured.clone());
            }
        })
    };
    let on_paste = {
        let note = p.note.clone();
        Callback::from(move |e: Event| on_paste(&e, &note))
    };
    html! {
        <section class="panel export check-panel" aria-labelledby="check-heading" data-testid="check" onclick={on_click} onchange={on_file} ondrop={on_drop} onpaste={on_paste} ondragover={Callback::from(|e: DragEvent| e.prevent_default())}>
            <h2 id="check-heading">{ "Check a real cluster" }</h2>
            <p class="hint">{ "Paste or drop what all_reduce_perf (or any nccl-tests or rccl-tests *_perf) printed. It is read here, in your browser; nothing is sent anywhere. The log names the GPU (NVIDIA or AMD), the layout, the library and the network where it has them; what it does not say comes from the design you pick." }</p>
            <textarea id="check-log" rows="6" spellcheck="false" aria-label="nccl-tests output" data-testid="check-log" placeholder="# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 …" />
            { body(p, report.as_deref()) }
            if let Some(more) = report.as_deref().and_then(|r| r.as_ref().ok()).map(|r| r.rows.len()).filter(|n| *n > TABLE_ROWS) {
                <p class="hint" data-testid="check-table-more">{ format!("The table shows the first {TABLE_ROWS} of {more} sizes; the CSV has them all.") }</p>
            }
        </section>
    }
}
