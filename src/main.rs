//! Placeholder until the web app lands.
fn main() {}
