//! Files to and from the person's disk: a download made from bytes in the
//! tab (no server), and the text of a file the person picked.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Offer `bytes` as a download named `name`.
pub fn save(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let fail = |what: &str| format!("the download could not be made ({what})");
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(|_| fail("blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("url"))?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("no document"))?;
    let a: web_sys::HtmlAnchorElement =
        document.create_element("a").map_err(|_| fail("link"))?.dyn_into().map_err(|_| fail("link"))?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // Revoked after the click has been handled.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 1_000);
    }
    Ok(())
}

/// The text of the first file picked in `input`.
pub async fn picked_text(input: &web_sys::HtmlInputElement) -> Result<String, String> {
    let file = input.files().and_then(|f| f.get(0)).ok_or("no file was picked")?;
    let text = JsFuture::from(file.text()).await.map_err(|_| "the file could not be read".to_string())?;
    text.as_string().ok_or_else(|| "the file is not text".to_string())
}
