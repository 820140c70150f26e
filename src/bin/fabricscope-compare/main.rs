//! compare.html's wasm: mounts "Compare and price designs" (fabricscope_web::pages::compare) only.
fn main() {
    fabricscope_web::pages::compare::mount();
}
