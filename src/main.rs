//! The site's entry point: mounts the Leptos app into the page body.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    tabteam::ui::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("tabteam runs in the browser: build it with `trunk build` (see README.md).");
}
