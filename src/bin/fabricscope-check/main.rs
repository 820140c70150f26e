//! check.html's wasm: mounts "Check a real cluster" (fabricscope_web::pages::check) only; started
//! again in the page's Web Worker (no `window`), it reads long logs instead.
fn main() {
    if fabricscope_web::plumbing::worker::in_worker() {
        fabricscope_web::plumbing::worker::serve(fabricscope_web::pages::check::worker_task);
    } else {
        fabricscope_web::pages::check::mount();
    }
}
