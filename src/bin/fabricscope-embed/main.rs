//! embed.html's wasm: one chart of the link's scenario, sized to its iframe
//! (fabricscope_web::pages::embed), without the explorer's app.
fn main() {
    fabricscope_web::pages::embed::mount_page();
}
