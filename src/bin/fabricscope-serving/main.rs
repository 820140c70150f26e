//! serving.html's wasm: mounts the serving panel (fabricscope_web::pages::serving) only; started
//! again in the page's Web Worker (no `window`), it runs the panel's searches instead.
fn main() {
    if fabricscope_web::plumbing::worker::in_worker() {
        fabricscope_web::plumbing::worker::serve(fabricscope_web::pages::serving::worker_task);
    } else {
        fabricscope_web::pages::serving::mount();
    }
}
