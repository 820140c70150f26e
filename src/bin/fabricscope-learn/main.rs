//! The Learn page's wasm (learn.html): only the teach exports ([`teach`]) that assets/teach.js
//! calls, with the model and the charts they use; the explorer's Yew app is not linked, so
//! each page loads only its own code.

mod teach;

/// Nothing to mount: learn.html is static markup that teach.js fills by calling the exports.
fn main() {}
