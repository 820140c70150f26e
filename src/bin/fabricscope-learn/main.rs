//! The Learn page's wasm (learn.html): its Yew app (fabricscope_web::pages::learn), with the model and
//! the teaching chart it uses; the explorer's app is not linked, so each page loads only its
//! own code.

fn main() {
    fabricscope_web::pages::learn::mount();
}
