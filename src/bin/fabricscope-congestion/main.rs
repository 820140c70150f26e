//! congestion.html's wasm: mounts the congestion page (fabricscope_web::congestion_page) only.
fn main() {
    fabricscope_web::congestion_page::mount();
}
