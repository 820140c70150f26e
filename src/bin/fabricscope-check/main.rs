//! check.html's wasm: mounts "Check a real cluster" (fabricscope_web::check_page) only.
fn main() {
    fabricscope_web::check_page::mount();
}
