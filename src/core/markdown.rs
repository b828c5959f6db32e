//! Markdown to HTML that is safe to put in the page, for model output.
//!
//! Model output is untrusted. Rather than render everything and then try to
//! clean it, this never produces anything dangerous: raw HTML in the
//! markdown (block or inline) is turned into plain text before rendering,
//! so no tag, attribute or event handler from the model reaches the DOM;
//! links and images keep only `http:`, `https:`, `mailto:`, fragment and
//! relative targets (a `javascript:` or `data:` link becomes its text);
//! images become links to their source, so nothing is fetched without a
//! click. pulldown-cmark escapes all text it writes. Mermaid code blocks
//! are marked (`class="language-mermaid"`) for the UI to draw.

use pulldown_cmark::{html, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Render `markdown` to HTML with no markup from the input itself.
pub fn to_safe_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut dropped_links = Vec::new();
    let mut in_image = false;
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        // The model's HTML is shown, never parsed.
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            if is_safe_url(&dest_url) {
                dropped_links.push(false);
                Some(Event::Start(Tag::Link { link_type, dest_url, title, id }))
            } else {
                dropped_links.push(true);
                None
            }
        }
        Event::End(TagEnd::Link) => match dropped_links.pop() {
            Some(true) => None,
            _ => Some(Event::End(TagEnd::Link)),
        },
        Event::Start(Tag::Image { dest_url, title, id, .. }) => {
            in_image = true;
            if is_safe_url(&dest_url) && !dest_url.is_empty() {
                dropped_links.push(false);
                Some(Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url, title, id }))
            } else {
                dropped_links.push(true);
                None
            }
        }
        Event::End(TagEnd::Image) => {
            in_image = false;
            match dropped_links.pop() {
                Some(true) => None,
                _ => Some(Event::End(TagEnd::Link)),
            }
        }
        Event::Text(text) if in_image => Some(Event::Text(CowStr::from(format!("[image: {text}]")))),
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    // A code block scrolls sideways when its lines are long: focusable, so
    // a keyboard can scroll it too (axe: scrollable-region-focusable). Text
    // is escaped, so every `<pre>` here is a code block's.
    if out.contains("<pre>") {
        out = out.replace("<pre>", "<pre tabindex=\"0\">");
    }
    out
}

/// Only web links, mail, fragments and relative paths.
fn is_safe_url(url: &str) -> bool {
    let lowered: String = url.trim().chars().filter(|c| !c.is_control() && !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    match lowered.split_once(':') {
        // "a/b:c" or "#x:y" is a path or a fragment, not a scheme.
        Some((scheme, _)) if !scheme.contains(['/', '?', '#']) => matches!(scheme, "http" | "https" | "mailto"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing the model writes may become a tag or attribute of its own.
    #[test]
    fn hostile_markdown_renders_inert() {
        let cases: &[&str] = &[
            "<script>window.pwned = 1</script>",
            "hello <img src=x onerror=\"window.pwned=1\"> world",
            "<iframe src=\"https://evil.example\"></iframe>",
            "[click](javascript:window.pwned=1)",
            "[click](JaVaScRiPt:alert(1))",
            "[click]( java\tscript:alert(1))",
            "![x](javascript:alert(1))",
            "[data](data:text/html;base64,PHNjcmlwdD4=)",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<svg onload=alert(1)>",
            "`<script>` in code is fine",
            "```html\n<script>alert(1)</script>\n```",
            "<details open ontoggle=alert(1)>",
        ];
        for input in cases {
            let html = to_safe_html(input);
            for (tag, attributes) in tags(&html) {
                assert!(ALLOWED_TAGS.contains(&tag.as_str()), "{input:?} made a <{tag}>: {html}");
                for (name, value) in attributes {
                    assert!(ALLOWED_ATTRIBUTES.contains(&name.as_str()), "{input:?} made {name}=: {html}");
                    assert!(name != "href" || is_safe_url(&value), "{input:?} made href={value}: {html}");
                }
            }
        }
    }

    const ALLOWED_TAGS: &[&str] = &[
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "a", "code", "pre", "ul", "ol", "li", "table",
        "thead", "tbody", "tr", "th", "td", "blockquote", "hr", "br", "input",
    ];
    const ALLOWED_ATTRIBUTES: &[&str] = &["href", "title", "class", "style", "type", "disabled", "checked", "start", "tabindex"];

    #[test]
    fn code_blocks_can_be_scrolled_by_keyboard() {
        assert_eq!(to_safe_html("```js\nlet x = 1;\n```"), "<pre tabindex=\"0\"><code class=\"language-js\">let x = 1;\n</code></pre>\n");
        assert_eq!(to_safe_html("`<pre>` inline"), "<p><code>&lt;pre&gt;</code> inline</p>\n");
    }

    /// The real tags of `html` (as a browser would see them) with their
    /// attributes. Text between tags is skipped; `&lt;` is not a tag.
    fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(start) = rest.find('<') {
            rest = &rest[start + 1..];
            let end = rest.find('>').expect("tags are closed");
            let inside = rest[..end].trim_start_matches('/').trim_end_matches('/');
            rest = &rest[end + 1..];
            let mut parts = inside.splitn(2, char::is_whitespace);
            let name = parts.next().unwrap_or_default().to_ascii_lowercase();
            let mut attributes = Vec::new();
            let mut attrs = parts.next().unwrap_or_default().trim();
            while !attrs.is_empty() {
                let (attr, after) = attrs.split_once('=').unwrap_or((attrs, ""));
                let after = after.trim_start();
                let (value, remaining) = match after.strip_prefix('"') {
                    Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
                    None => after.split_once(' ').unwrap_or((after, "")),
                };
                attributes.push((attr.trim().to_ascii_lowercase(), value.replace("&amp;", "&")));
                attrs = remaining.trim();
            }
            out.push((name, attributes));
        }
        out
    }

    #[test]
    fn ordinary_markdown_still_renders() {
        let cases: &[(&str, &str)] = &[
            ("# Title", "<h1>Title</h1>"),
            ("a **b**", "<strong>b</strong>"),
            ("[docs](https://example.com/a)", "<a href=\"https://example.com/a\">docs</a>"),
            ("[file](docs/prd.md)", "<a href=\"docs/prd.md\">file</a>"),
            ("[top](#goals)", "<a href=\"#goals\">top</a>"),
            ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>2</td>"),
            ("```mermaid\nclassDiagram\n  A <|-- B\n```", "<code class=\"language-mermaid\">classDiagram\n  A &lt;|-- B\n</code>"),
            ("![chart](https://example.com/c.png)", "<a href=\"https://example.com/c.png\">[image: chart]</a>"),
            ("x < y & z", "x &lt; y &amp; z"),
        ];
        for (input, want) in cases {
            let html = to_safe_html(input);
            assert!(html.contains(want), "{input:?} → {html}");
        }
    }

    #[test]
    fn unsafe_links_keep_their_text() {
        assert_eq!(to_safe_html("[click me](javascript:x)"), "<p>click me</p>\n");
    }
}
