//! congestion.html's wasm: mounts the congestion page (fabricscope_web::congestion_page) only;
//! started again in the page's Web Worker (no `window`), it runs the panels' studies instead.
fn main() {
    if fabricscope_web::worker::in_worker() {
        fabricscope_web::worker::serve(fabricscope_web::congestion::worker_task);
    } else {
        fabricscope_web::congestion_page::mount();
    }
}
