//! serving.html's wasm: mounts the serving panel (fabricscope_web::serving_page) only; started
//! again in the page's Web Worker (no `window`), it runs the panel's searches instead.
fn main() {
    if fabricscope_web::worker::in_worker() {
        fabricscope_web::worker::serve(fabricscope_web::serving::worker_task);
    } else {
        fabricscope_web::serving_page::mount();
    }
}
