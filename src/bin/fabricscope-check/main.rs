//! check.html's wasm: mounts "Check a real cluster" (fabricscope_web::check_page) only; started
//! again in the page's Web Worker (no `window`), it reads long logs instead.
fn main() {
    if fabricscope_web::worker::in_worker() {
        fabricscope_web::worker::serve(fabricscope_web::check_page::worker_task);
    } else {
        fabricscope_web::check_page::mount();
    }
}
