//! Images with a request, on the page: the "Attach images" button, the
//! paste and drop handlers the first card's and the composer's text boxes
//! use, the thumbnails of what is attached (each with Remove), and the
//! thumbnails a person's request shows in the conversation.
//!
//! It decides nothing: how many images, which types and which models take
//! them are `core::image`'s (`image_check::check`, whose words the first
//! card and the composer show); reading and resizing is `web::images`.
//! The start-up module keeps only the button, the thumbnails and the
//! handlers' first step (taking the files from the event): reading the
//! files and checking them ([`read`]) run in the run module, behind
//! `lazy::attach`.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::core::image::MAX_IMAGES;
use crate::core::settings::Settings;
use crate::web::images;

use super::Shared;

/// Why the attached images cannot go under some settings, in words.
type Check = fn(&[String], &Settings) -> Option<String>;

/// The images of the request being written, and what could not be
/// attached, in words.
#[derive(Clone, Copy)]
pub struct Attached {
    pub images: RwSignal<Vec<String>>,
    pub problem: RwSignal<Option<String>>,
    /// `image_check::check`, set by the run module when it reads the
    /// first image (no image is attached before), so that the first card
    /// can say why images cannot go without carrying the check.
    check: RwSignal<Option<Check>>,
}

impl Attached {
    pub fn new() -> Self {
        Self { images: RwSignal::new(Vec::new()), problem: RwSignal::new(None), check: RwSignal::new(None) }
    }

    /// Attach the images `event` carries (a paste, a drop, the file
    /// input's change): read in the run module. False when it carries no
    /// file, so a paste of text goes on as usual.
    pub fn take(shared: Shared, event: &web_sys::Event) -> bool {
        let files = images::files(event.as_ref());
        if files.is_empty() {
            return false;
        }
        event.prevent_default();
        super::lazy::attach(shared, files);
        true
    }

    /// Why the attached images cannot go under `settings`, if they cannot.
    pub fn refusal(self, settings: &Settings) -> Option<String> {
        let check = self.check.get()?;
        self.images.with(|i| check(i, settings))
    }

    pub fn clear(self) {
        self.images.set(Vec::new());
        self.problem.set(None);
    }
}

/// Read `files` into `attached` (resized, as `data:` URLs), saying in words
/// what could not be attached. Run module only (`lazy::attach`).
pub fn read(attached: Attached, files: Vec<JsValue>) {
    attached.check.set(Some(|images, settings| crate::core::image_check::check(images, settings).err().map(|e| e.to_string())));
    leptos::task::spawn_local(async move {
        let mut refused = Vec::new();
        for read in images::read(files).await {
            match read {
                Ok(url) if attached.images.with_untracked(Vec::len) < MAX_IMAGES => attached.images.update(|i| i.push(url)),
                Ok(_) => refused.push(format!("At most {MAX_IMAGES} images can go with one request.")),
                Err(name) => refused.push(format!("{name} is not a PNG, JPEG, WebP or GIF image.")),
            }
        }
        refused.dedup();
        attached.problem.set((!refused.is_empty()).then(|| refused.join(" ")));
    });
}

/// The file button and the attached images' thumbnails, each with Remove.
#[component]
pub fn AttachedImages(#[prop(into)] disabled: Signal<bool>) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let attached = shared.attached;
    let input = NodeRef::<leptos::html::Input>::new();
    view! {
        <div class="attached" data-testid="attached">
            <input type="file" class="visually-hidden" tabindex="-1" aria-hidden="true" node_ref=input data-testid="attach-input"
                accept="image/png,image/jpeg,image/webp,image/gif" multiple
                on:change=move |ev| {
                    Attached::take(shared, &ev);
                    if let Some(input) = input.get_untracked() { input.set_value(""); }
                } />
            <button type="button" class="ghost small" data-testid="attach" disabled=disabled
                on:click=move |_| if let Some(input) = input.get_untracked() { input.click(); }>"Attach images"</button>
            <ul class="thumbs" aria-label="Attached images">
                {move || attached.images.get().into_iter().enumerate().map(|(i, url)| view! {
                    <li>
                        <img src=url alt=format!("Attached image {}", i + 1) data-testid="attached-image" />
                        <button type="button" class="ghost small" aria-label=format!("Remove image {}", i + 1) data-testid="remove-image"
                            on:click=move |_| attached.images.update(|v| { if i < v.len() { v.remove(i); } })>"×"</button>
                    </li>
                }).collect_view()}
            </ul>
            {move || attached.problem.get().map(|p| view! { <p class="error" role="alert" data-testid="attach-error">{p}</p> })}
        </div>
    }
}

/// The images a person's request carried, in the conversation.
#[component]
pub fn RequestImages(images: Vec<String>) -> impl IntoView {
    (!images.is_empty()).then(|| {
        let count = images.len();
        view! {
            <ul class="thumbs request-images" data-testid="request-images" aria-label="Images with this request">
                {images.into_iter().enumerate().map(|(i, url)| view! {
                    <li><img src=url alt=format!("Image {} of {count} with this request", i + 1) data-testid="request-image" /></li>
                }).collect_view()}
            </ul>
        }
    })
}
