//! Images a person attaches to a request (site only: feature `images`).
//!
//! An image travels as a `data:` URL (`data:image/png;base64,…`), already
//! resized by the page (`web/images.js`) to [`MAX_SIDE`]. The request's
//! message keeps its images in its metadata under [`IMAGES`], one URL a
//! line, so the session's store, export, import and resume keep them with
//! no format of their own. Which roles see them ([`SEEN_BY`]) and what each
//! costs ([`TOKENS_PER_IMAGE`]) are decided here, once; whether they may go
//! with a request is `image_check` (which models take them:
//! `llm::presets::accepts_images`). A leaf: it imports nothing of the core.
//!
//! It deliberately writes no provider's JSON (each codec writes its own
//! image part from [`parse`]) and decodes no pixels.

/// Metadata key of a message's images: `data:` URLs, one a line.
pub const IMAGES: &str = "images";

/// The image types every provider with images takes.
pub const MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// At most this many images go with one request.
pub const MAX_IMAGES: usize = 4;

/// The longest side the page resizes an image to: Anthropic's
/// recommended largest (1568 px), within OpenAI's 2048 px and Gemini's.
pub const MAX_SIDE: u32 = 1568;

/// The largest `data:` URL accepted (Anthropic refuses images over 5 MB;
/// a resized image is far smaller).
pub const MAX_URL_BYTES: usize = 5 * 1024 * 1024;

/// The estimated prompt tokens of one image, for the budget check and the
/// window: an image of at most 1568 px a side and 1.15 megapixels costs
/// Anthropic about 1,600 tokens (pixels / 750) and OpenAI at most 1,105
/// (high detail, 85 + 170 a 512 px tile); the larger is counted for all.
pub const TOKENS_PER_IMAGE: u64 = 1_600;

/// The profiles of the roles that see a request's images: the team
/// leader, the product manager, the engineer and the assistant. The
/// others work from what these wrote.
pub const SEEN_BY: [&str; 4] = ["Team Leader", "Product Manager", "Engineer", "Assistant"];

/// One image read from its `data:` URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageRef<'a> {
    pub media_type: &'a str,
    pub base64: &'a str,
}

/// Why images cannot go with a request, in words for the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageProblem {
    #[error("At most {MAX_IMAGES} images can go with one request: remove {0}.")]
    TooMany(usize),
    #[error("One of the images could not be read: attach PNG, JPEG, WebP or GIF files.")]
    Unreadable,
    #[error("One of the images is too large even after resizing: attach a smaller one.")]
    TooLarge,
    /// The model (or a role's own model) is not known to take images.
    #[error("{0} does not take images: choose a model that does in Settings (for example gpt-4o or a Claude model), or remove the images.")]
    ModelRefuses(String),
}

/// The image in a `data:` URL of an accepted type, if it is one.
pub fn parse(url: &str) -> Option<ImageRef<'_>> {
    let rest = url.strip_prefix("data:")?;
    let (media_type, base64) = rest.split_once(";base64,")?;
    let base64_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    (MEDIA_TYPES.contains(&media_type) && !base64.is_empty() && base64.bytes().all(base64_char)).then_some(ImageRef { media_type, base64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

    #[test]
    fn parses_data_urls_of_accepted_types_only() {
        assert_eq!(parse(PNG), Some(ImageRef { media_type: "image/png", base64: "iVBORw0KGgo=" }));
        assert_eq!(parse("data:image/webp;base64,UklGRg==").map(|i| i.media_type), Some("image/webp"));
        for bad in ["data:image/svg+xml;base64,PHN2Zz4=", "data:image/png,plain", "https://x/y.png", "data:image/png;base64,", "data:image/png;base64,a b"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

}
