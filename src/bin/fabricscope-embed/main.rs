//! embed.html's wasm: one chart of the link's scenario, sized to its iframe
//! (fabricscope_web::embed), without the explorer's app.
fn main() {
    fabricscope_web::embed::mount_page();
}
