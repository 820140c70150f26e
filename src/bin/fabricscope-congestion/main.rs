//! congestion.html's wasm: mounts the congestion page (fabricscope_web::pages::congestion) only;
//! started again in the page's Web Worker (no `window`), it runs the panels' studies instead.
fn main() {
    if fabricscope_web::plumbing::worker::in_worker() {
        fabricscope_web::plumbing::worker::serve(fabricscope_web::pages::congestion::worker_task);
    } else {
        fabricscope_web::pages::congestion::mount();
    }
}
