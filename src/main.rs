fn main() {
    fabricscope_web::mount();
}
