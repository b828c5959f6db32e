//! Images a person attaches, read in the tab: the files of a paste, a
//! drop or the file button, each resized to `core::image::MAX_SIDE` on a
//! canvas (`images.js`) and handed back as a `data:` URL.
//!
//! It decides nothing about how many images may go, of which types, or to
//! which models (`core::image`), and it sends nothing.

use wasm_bindgen::prelude::*;

use crate::core::image::MAX_SIDE;

#[wasm_bindgen(module = "/src/web/images.js")]
extern "C" {
    #[wasm_bindgen(js_name = filesOf)]
    fn files_of(event: &JsValue) -> js_sys::Array;
    #[wasm_bindgen(js_name = readImage)]
    async fn read_image(file: &JsValue, max_side: u32) -> JsValue;
}

/// The files `event` carries (a paste, a drop, a file input's change).
pub fn files(event: &JsValue) -> Vec<JsValue> {
    files_of(event).iter().collect()
}

/// Each file as a `data:` URL, or its name when it is not an image the
/// team can take (not PNG, JPEG, WebP or GIF, or not decodable).
pub async fn read(files: Vec<JsValue>) -> Vec<Result<String, String>> {
    let mut out = Vec::new();
    for file in files {
        let name = js_sys::Reflect::get(&file, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_else(|| "A file".into());
        out.push(read_image(&file, MAX_SIDE).await.as_string().ok_or(name));
    }
    out
}
