//! compare.html's wasm: mounts "Compare and price designs" (fabricscope_web::compare_page) only.
fn main() {
    fabricscope_web::compare_page::mount();
}
