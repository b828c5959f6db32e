//! The HTTP shapes the provider codecs speak: a request a codec builds and
//! the head of the response the transport got back.
//!
//! This file moves no bytes. The browser transport (`web::fetch`) sends an
//! [`HttpRequest`] and reports an [`HttpResponseHead`]; the codecs
//! (`openai`, `anthropic`, `gemini`, each a `codec::Codec`) are the only
//! ones that know what goes in a body.

use std::fmt;

/// An HTTP method. The codecs only ever need these two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
}

/// A request as a codec produces it; the transport sends it verbatim. Its
/// `Debug` output masks credential headers, so logging a request is safe.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    /// Exactly the headers to send, no more: extra headers break CORS
    /// preflights on several compatible servers.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// The status line and headers of a response, as far as the browser lets
/// script read them (CORS hides most non-safelisted headers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponseHead {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

impl HttpRequest {
    /// The value of the first header with this name, compared ignoring ASCII case.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// Headers whose values are credentials.
const SECRET_HEADERS: &[&str] = &["authorization", "x-api-key", "api-key", "x-goog-api-key"];

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| {
                let secret = SECRET_HEADERS.iter().any(|s| k.eq_ignore_ascii_case(s));
                (k.as_str(), if secret { "<redacted>" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body", &self.body)
            .finish()
    }
}

impl HttpResponseHead {
    pub fn new(status: u16, headers: Vec<(String, String)>) -> Self {
        Self { status, headers }
    }

    /// The value of the first header with this name, compared ignoring ASCII
    /// case, as HTTP header names are.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// True for 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Join a base URL and a path that starts with `/`, tolerating a trailing
/// slash on the base (users paste both forms).
pub(crate) fn join_url(base_url: &str, path: &str) -> String {
    format!("{}{}", base_url.trim().trim_end_matches('/'), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lookup_ignores_case() {
        let head = HttpResponseHead::new(429, vec![("Retry-After".into(), "3".into()), ("x-a".into(), "1".into())]);
        let check = |name: &str, want: Option<&str>| assert_eq!(head.header(name), want, "{name}");
        check("retry-after", Some("3"));
        check("RETRY-AFTER", Some("3"));
        check("X-A", Some("1"));
        check("x-b", None);
    }

    #[test]
    fn debug_masks_credentials() {
        let request = HttpRequest {
            method: Method::Post,
            url: "https://x/v1".into(),
            headers: vec![("Authorization".into(), "Bearer sk-1".into()), ("x-api-key".into(), "sk-2".into())],
            body: "{}".into(),
        };
        let text = format!("{request:?}");
        assert!(!text.contains("sk-1") && !text.contains("sk-2"), "{text}");
        assert!(text.contains("\"Authorization\", \"<redacted>\""), "{text}");
    }

    #[test]
    fn join_url_tolerates_trailing_slash() {
        let check = |base: &str, want: &str| assert_eq!(join_url(base, "/chat/completions"), want, "{base}");
        check("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions");
        check("https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions");
        check(" http://localhost:11434/v1// ", "http://localhost:11434/v1/chat/completions");
    }
}
