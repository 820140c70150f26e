//! Fabricscope's web app. `main.rs` only calls [`mount`]; browser tests mount [`App`] into
//! their own element.
//!
//! | module | what it holds |
//! |---|---|
//! | [`eval`] | what the page shows, computed from the cluster (pure, testable natively) |
//! | [`app`] | the state reducer and the root component |
//! | [`components`] | one file per control or panel |
//! | [`designs`] | the pinned designs (A-D): their reducer, link part and saved copy |
//! | [`compare_work`] | each design's search and scaling curves, in slices |
//! | [`embed`] | `?embed=<chart>`: one chart sized to its iframe, linking back |
//! | [`training`] | the training job: chosen layout, top layouts, MFU grid, rules (search debounced) |
//! | [`congestion`] | the flow model's study over seeds, in slices while its panel is on screen |
//! | [`rightsize`] | the right-sizer, run on request in slices |
//! | [`serving`] | the serving panel's deployment, its curve and the search in slices |
//! | [`congestion_page`] | congestion.html's root: the flow model's panel for the link's design and the pinned designs (the explorer and compare frame it; its own wasm, src/bin/fabricscope-congestion) |
//! | [`serving_page`] | serving.html's root: the serving panel for the link's cluster (the explorer frames it; its own wasm, src/bin/fabricscope-serving) |
//! | [`prices`] | compare.html's price book: read from the link or this browser, saved |
//! | [`worker`] | long work off the main thread: the page's own wasm in a module Web Worker, jobs by channel and generation, main-thread slices where no worker runs |
//! | [`hooks`] | browser-facing hooks (media queries) |
//! | [`url`] | the scenario in the page's link (read on load, written debounced) |
//! | [`compare_page`] | compare.html's root: compare and price designs (its own wasm, src/bin/fabricscope-compare) |
//! | [`check_page`] | check.html's root: check a real cluster (its own wasm, src/bin/fabricscope-check) |
//! | [`learn`] | learn.html's root: collectives played, algorithms, lessons, glossary (its own wasm, src/bin/fabricscope-learn) |

pub mod app;
pub mod compare_work;
pub mod check_page;
pub mod compare_page;
pub mod congestion;
pub mod components;
pub mod designs;
pub mod embed;
pub mod eval;
pub mod hooks;
pub mod learn;
pub mod prices;
pub mod rightsize;
pub mod serving;
pub mod serving_page;
pub mod congestion_page;
pub mod training;
pub mod url;
pub mod worker;

pub use app::App;

/// Mounts the app into `#app` when the page has one, else into `<body>`, one timer tick after
/// the wasm module is instantiated: instantiating and the first render are then two tasks,
/// each short (issue 9: no main-thread task over 50 ms).
pub fn mount() {
    gloo_timers::callback::Timeout::new(0, mount_now).forget();
}

fn mount_now() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    // Embeds (`?embed=`) are embed.html's (its own, smaller wasm); pages.js moves an older
    // explorer embed link there before this runs.
    match root {
        Some(el) => {
            yew::Renderer::<App>::with_root(el).render();
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}
