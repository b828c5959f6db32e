//! Share links in the tab: the project's payload compressed with the
//! browser's `CompressionStream('deflate-raw')` (`share.js`) into the
//! fragment `core::share` makes, and a link's fragment read back, its
//! decompression stopped at `core::share::MAX_INFLATED`.
//!
//! It decides nothing about the format, its limits or what a valid
//! project is (all in `core::share`), and it runs nothing it reads.

use wasm_bindgen::prelude::*;

use crate::core::share::{compressed_of, fragment, ShareError, SharedProject, MAX_INFLATED};

#[wasm_bindgen(module = "/src/web/share.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn deflate(bytes: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inflate(bytes: &[u8], max: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = copyText)]
    async fn copy_text(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = forgetLink)]
    fn forget_link();
}

/// This page's address with `project` in its fragment.
pub async fn link(project: &SharedProject) -> Result<String, ShareError> {
    let compressed = deflate(&project.payload()).await.map_err(|_| ShareError::NotAProject("this browser could not compress it".into()))?;
    let hash = fragment(&js_sys::Uint8Array::new(&compressed).to_vec())?;
    let location = web_sys::window().map(|w| w.location());
    let page = location.map(|l| format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())).unwrap_or_default();
    Ok(format!("{page}{hash}"))
}

/// The project in a share link's fragment (`#p=…`), checked.
pub async fn open(hash: &str) -> Result<SharedProject, ShareError> {
    let compressed = compressed_of(hash)?;
    let inflated = inflate(&compressed, MAX_INFLATED as f64)
        .await
        .map_err(|_| ShareError::Damaged("its data does not unpack".into()))?;
    if inflated.is_null() {
        return Err(ShareError::TooLargeInside);
    }
    SharedProject::read(&js_sys::Uint8Array::new(&inflated).to_vec())
}

/// The page's fragment, when it is a share link.
pub fn current() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    crate::core::share::is_share(&hash).then_some(hash)
}

/// Take the share link out of the address bar (the page no longer shows it).
pub fn forget() {
    forget_link();
}

/// Put `text` on the clipboard; false when the browser refused.
pub async fn copy(text: &str) -> bool {
    copy_text(text).await.as_bool() == Some(true)
}
