//! The explorer (index.html): its root component and the panels only it shows.

mod app;
mod claims;
mod formula;
mod hierarchy;
mod key_numbers;
mod mapping;
mod moe;
mod serving_frame;
mod summary;
mod tier_table;
mod training;

pub use app::App;
pub use claims::Props as ClaimsProps;
pub use formula::Props as FormulaProps;
pub use hierarchy::{hierarchy_svg, Props as HierarchyProps};
pub use key_numbers::Props as KeyNumbersProps;
pub use mapping::Props as MappingProps;
pub use serving_frame::{FrameProps as ServingFrameProps, ServingFrame};
pub use summary::Props as SummaryProps;
pub use tier_table::Props as TierTableProps;
pub use training::Props as TrainingProps;

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
