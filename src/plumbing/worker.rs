//! Long work off the main thread (issues 21, 24, 25): the page's own wasm started a second time
//! in a module Web Worker, so the worker costs no extra download (the same glue and wasm, from
//! the HTTP or service-worker cache) and no second build. The page posts a job as JSON on a
//! channel with a generation; the worker runs it in slices of [`WORKER_SLICE_MS`] (so a newer
//! job on the channel, or a cancel, stops it between two slices), posting progress after each
//! and the answer at the end; the page drops answers of any older generation. Where a worker
//! cannot start (no Worker, a CSP without it, a build without the bootstrap), the caller's
//! fallback runs the same job in main-thread slices, as before.
//!
//! The bootstrap is `worker-<hash>.js`, written by scripts/post-build.mjs next to each page and
//! named by `<meta name="fabricscope-worker">`: its first message names the glue (the page's
//! `<link rel=modulepreload>`) and the wasm (its `<link rel=preload>`), which it imports and
//! instantiates; the wasm's `main` sees no `window` and calls [`serve`] instead of mounting the
//! page. (Not in the bootstrap's query: a service worker answering from its cache gives the
//! worker the cached URL, without the query.)

use gloo_timers::callback::Timeout;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// A worker not ready this long after its start is given up for main-thread slices, ms (its
/// start compiles the page's wasm a second time: ~0.1 s measured on this 2-core box).
const READY_MS: u32 = 10_000;

/// Longest slice of a job in the worker, ms: the latency of a cancel and of progress updates
/// (the worker's slices block nothing the user sees).
pub const WORKER_SLICE_MS: f64 = 40.0;

/// What a worker job says after a slice.
pub enum Step {
    /// (done, total) so far.
    More(u64, u64),
    /// The answer, as JSON for the page.
    Done(String),
}

/// A job in the worker, run slice by slice.
pub trait Task {
    /// Works while `more()` (at least one unit per call).
    fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Step;
}

/// Makes a page's job from its JSON (one function per page: its `main` passes it to [`serve`]).
pub type Handler = fn(&str) -> Box<dyn Task>;

/// Page to worker: this header as JSON, then the job's text (none: cancel the channel's job),
/// two strings of one array, so a large job (a log) is never escaped into JSON again.
#[derive(Serialize, Deserialize)]
struct Request {
    ch: u32,
    gen: u64,
}

/// Worker to page: this header as JSON, then the answer's text for `Done`.
#[derive(Serialize, Deserialize)]
enum Reply {
    Ready,
    Progress { ch: u32, gen: u64, done: u64, total: u64 },
    Done { ch: u32, gen: u64 },
}

/// The two strings of a message.
fn message(head: &impl Serialize, body: Option<&str>) -> Option<js_sys::Array> {
    let head = serde_json::to_string(head).ok()?;
    Some(js_sys::Array::of2(&JsValue::from_str(&head), &body.map_or(JsValue::NULL, JsValue::from_str)))
}

/// A message's header and body.
fn unpack<T: for<'de> Deserialize<'de>>(data: JsValue) -> Option<(T, Option<String>)> {
    let a: js_sys::Array = data.dyn_into().ok()?;
    let head = serde_json::from_str(&a.get(0).as_string()?).ok()?;
    Some((head, a.get(1).as_string()))
}

/// Whether this wasm runs in a worker (no `window`): `main` then serves jobs.
pub fn in_worker() -> bool {
    web_sys::window().is_none()
}

// ---- worker side ----

thread_local! {
    /// The latest generation asked for on each channel (worker side).
    static LATEST: RefCell<HashMap<u32, u64>> = RefCell::new(HashMap::new());
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post_to_page(r: &Reply, answer: Option<&str>) {
    if let Some(m) = message(r, answer) {
        let _ = scope().post_message(&m);
    }
}

/// The worker's entry: runs the jobs the page posts with `handler`, then says it is ready.
pub fn serve(handler: Handler) {
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let Some((req, job)) = unpack::<Request>(e.data()) else { return };
        LATEST.with(|l| l.borrow_mut().insert(req.ch, req.gen));
        if let Some(job) = job {
            let task = handler(&job);
            Timeout::new(0, move || slice(req.ch, req.gen, task)).forget();
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post_to_page(&Reply::Ready, None);
}

fn slice(ch: u32, gen: u64, mut task: Box<dyn Task>) {
    if LATEST.with(|l| l.borrow().get(&ch) != Some(&gen)) {
        return;
    }
    let t0 = js_sys::Date::now();
    match task.run(&mut || js_sys::Date::now() - t0 < WORKER_SLICE_MS) {
        Step::Done(answer) => post_to_page(&Reply::Done { ch, gen }, Some(&answer)),
        Step::More(done, total) => {
            post_to_page(&Reply::Progress { ch, gen, done, total }, None);
            Timeout::new(0, move || slice(ch, gen, task)).forget();
        }
    }
}

// ---- page side ----

/// A job waiting for its answer.
struct Pending {
    gen: u64,
    progress: Box<dyn Fn(u64, u64)>,
    done: Option<Box<dyn FnOnce(String)>>,
    /// Runs the job on the main thread if the worker fails before answering.
    fallback: Option<Box<dyn FnOnce()>>,
}

enum State {
    Unstarted,
    /// Started; requests wait until it says it is ready.
    Starting(web_sys::Worker, Vec<js_sys::Array>),
    Ready(web_sys::Worker),
    Failed,
}

struct Pool {
    state: State,
    pending: HashMap<u32, Pending>,
    channels: u32,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool { state: State::Unstarted, pending: HashMap::new(), channels: 0 });
}

/// A new channel: one per panel whose jobs replace each other.
pub fn channel() -> u32 {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.channels += 1;
        p.channels
    })
}

/// The bootstrap's address and its first message (the page's glue and wasm), from the tags
/// Trunk and scripts/post-build.mjs wrote; `None` in a page without them (trunk serve, tests).
fn worker_url() -> Option<(String, js_sys::Array)> {
    let doc = web_sys::window()?.document()?;
    let attr = |sel: &str, name: &str| doc.query_selector(sel).ok().flatten().and_then(|e| e.get_attribute(name));
    let boot = attr("meta[name=fabricscope-worker]", "content")?;
    let glue = attr("link[rel=modulepreload]", "href")?;
    let wasm = attr("link[rel=preload][type='application/wasm']", "href")?;
    let base = doc.base_uri().ok().flatten()?;
    let abs = |u: &str| web_sys::Url::new_with_base(u, &base).ok();
    let first = js_sys::Array::of2(&JsValue::from_str(&abs(&glue)?.href()), &JsValue::from_str(&abs(&wasm)?.href()));
    Some((abs(&boot)?.href(), first))
}

fn start() -> Option<web_sys::Worker> {
    let (url, first) = worker_url()?;
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let w = web_sys::Worker::new_with_options(&url, &opts).ok()?;
    // Queued until the bootstrap has run; jobs wait for the wasm's "ready".
    w.post_message(&first).ok()?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
        if let Some((r, answer)) = unpack::<Reply>(e.data()) {
            on_reply(r, answer);
        }
    });
    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|_: web_sys::Event| fail());
    w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Timeout::new(READY_MS, || {
        if POOL.with(|p| matches!(p.borrow().state, State::Starting(..))) {
            fail();
        }
    })
    .forget();
    Some(w)
}

/// The worker could not load or crashed: every waiting job runs on the main thread.
fn fail() {
    let fallbacks: Vec<_> = POOL.with(|p| {
        let mut p = p.borrow_mut();
        if let State::Starting(w, _) | State::Ready(w) = &p.state {
            w.terminate();
        }
        p.state = State::Failed;
        p.pending.drain().filter_map(|(_, j)| j.fallback).collect()
    });
    for f in fallbacks {
        f();
    }
}

fn on_reply(r: Reply, answer: Option<String>) {
    match r {
        Reply::Ready => POOL.with(|p| {
            let mut p = p.borrow_mut();
            // Only a starting worker becomes ready (a late "ready" after a give-up changes nothing).
            if matches!(p.state, State::Starting(..)) {
                if let State::Starting(w, queued) = std::mem::replace(&mut p.state, State::Unstarted) {
                    for m in queued {
                        let _ = w.post_message(&m);
                    }
                    p.state = State::Ready(w);
                }
            }
        }),
        Reply::Progress { ch, gen, done, total } => {
            // Taken out while called: the callback may start another job.
            let job = POOL.with(|p| p.borrow_mut().pending.remove(&ch));
            if let Some(j) = job {
                if j.gen == gen {
                    (j.progress)(done, total);
                }
                POOL.with(|p| {
                    p.borrow_mut().pending.entry(ch).or_insert(j);
                });
            }
        }
        Reply::Done { ch, gen } => {
            let job = POOL.with(|p| {
                let mut p = p.borrow_mut();
                if p.pending.get(&ch).is_some_and(|j| j.gen == gen) {
                    p.pending.remove(&ch)
                } else {
                    None
                }
            });
            if let Some(done) = job.and_then(|j| j.done) {
                done(answer.unwrap_or_default());
            }
        }
    }
}

fn post(p: &mut Pool, req: &Request, job: Option<&str>) {
    let Some(m) = message(req, job) else { return };
    match &mut p.state {
        State::Starting(_, queued) => queued.push(m),
        State::Ready(w) => {
            let _ = w.post_message(&m);
        }
        State::Unstarted | State::Failed => {}
    }
}

/// Runs `job` (JSON for the page's [`Handler`]) in the worker as generation `gen` of `ch`,
/// replacing the channel's job: `progress` after each slice, `done` with the answer. Where
/// no worker runs (or it fails before answering), `fallback` runs instead, on the main thread.
pub fn run(ch: u32, gen: u64, job: String, progress: impl Fn(u64, u64) + 'static, done: impl FnOnce(String) + 'static, fallback: impl FnOnce() + 'static) {
    let fallback: Box<dyn FnOnce()> = Box::new(fallback);
    let refused = POOL.with(move |p| {
        let mut p = p.borrow_mut();
        if matches!(p.state, State::Unstarted) {
            p.state = match start() {
                Some(w) => State::Starting(w, Vec::new()),
                None => State::Failed,
            };
        }
        if matches!(p.state, State::Failed) {
            return Some(fallback);
        }
        p.pending.insert(ch, Pending { gen, progress: Box::new(progress), done: Some(Box::new(done)), fallback: Some(fallback) });
        post(&mut p, &Request { ch, gen }, Some(&job));
        None
    });
    // Outside the pool's borrow: the fallback may start jobs of its own.
    if let Some(f) = refused {
        f();
    }
}

/// Stops channel `ch`'s job (its answer, if already on its way, is dropped).
pub fn cancel(ch: u32, gen: u64) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.pending.remove(&ch).is_some() {
            post(&mut p, &Request { ch, gen }, None);
        }
    });
}
