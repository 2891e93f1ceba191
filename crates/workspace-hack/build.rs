// A build script makes cargo unify the build-dependencies listed in
// Cargo.toml (proc-macro crates such as syn) too.
fn main() {}
