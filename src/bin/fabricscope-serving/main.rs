//! serving.html's wasm: mounts the serving panel (fabricscope_web::serving_page) only.
fn main() {
    fabricscope_web::serving_page::mount();
}
