//! An element the person picked in the preview ("Select"): what the frame
//! reported of it (tag, text, a selector, its outer HTML), cut to sizes, the
//! project file and line it most likely came from, the chip the composer
//! shows, and the words a follow-up about it carries to the team.
//!
//! It trusts nothing the frame sent (every field is cut and only ever
//! text) and finds a source by searching the project's files; it does not
//! parse HTML or run anything.

use super::bundle::{entry_html, is_script, FileMap};
use super::SourceRef;

/// The most of the element's outer HTML the team gets.
pub const MAX_HTML: usize = 2_000;
const MAX_TEXT: usize = 80;
const MAX_SELECTOR: usize = 300;
const MAX_TAG: usize = 40;

/// A picked element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickedElement {
    pub tag: String,
    /// Its visible text, whitespace folded, cut.
    pub text: String,
    /// A selector that finds it again (an id when it has one).
    pub selector: String,
    /// Its outer HTML as the page had it, cut to [`MAX_HTML`].
    pub html: String,
    /// Where it came from: the element's tag in an HTML file, else a
    /// script that names its id or class.
    pub source: Option<SourceRef>,
}

impl PickedElement {
    /// What the frame reported, cut to size, its source looked up in `files`.
    pub fn from_frame(tag: &str, text: &str, selector: &str, html: &str, files: &FileMap) -> Self {
        let tag = cut(&tag.to_ascii_lowercase(), MAX_TAG);
        let text = cut(&text.split_whitespace().collect::<Vec<_>>().join(" "), MAX_TEXT);
        let selector = cut(selector.trim(), MAX_SELECTOR);
        let html = cut(html, MAX_HTML);
        let source = source_of(&tag, &selector, &html, files);
        Self { tag, text, selector, html, source }
    }

    /// The chip's words: `div #score "Score: 0" (index.html:12)`.
    pub fn chip(&self) -> String {
        let mut out = format!("<{}> {}", self.tag, self.selector);
        if !self.text.is_empty() {
            out.push_str(&format!(" \"{}\"", self.text));
        }
        if let Some(s) = &self.source {
            out.push_str(&format!(" ({}:{})", s.path, s.line));
        }
        out
    }

    /// The follow-up the team gets: the person's words, then the element.
    pub fn request(&self, words: &str) -> String {
        let place = match &self.source {
            Some(s) => format!("It comes from {} line {}.", s.path, s.line),
            None => "Its source file could not be told.".to_owned(),
        };
        format!(
            "{}\n\nThis request is about one element of the page, picked in the preview: <{}> with the selector `{}`{}. {place} Its HTML as the page showed it:\n```html\n{}\n```",
            words.trim(),
            self.tag,
            self.selector,
            if self.text.is_empty() { String::new() } else { format!(" and the text \"{}\"", self.text) },
            self.html
        )
    }
}

/// The file and line behind an element: its id (`id="score"`) or its
/// opening tag as written in an HTML file (the entry first); else the first
/// script that names its id or a class of the selector.
fn source_of(tag: &str, selector: &str, html: &str, files: &FileMap) -> Option<SourceRef> {
    let id = selector.strip_prefix('#').filter(|id| !id.is_empty() && id.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_'));
    let opening = html.find('>').map(|end| &html[..=end]).filter(|o| o.starts_with('<'));
    let mut pages: Vec<&str> = files.keys().map(String::as_str).filter(|p| p.ends_with(".html") || p.ends_with(".htm")).collect();
    if let Some(entry) = entry_html(files) {
        pages.retain(|p| *p != entry);
        pages.insert(0, entry);
    }
    let id_marks: Vec<String> = id.map(|id| vec![format!("id=\"{id}\""), format!("id='{id}'"), format!("id={id}")]).unwrap_or_default();
    for page in &pages {
        let text = &files[*page];
        for mark in id_marks.iter().map(String::as_str).chain(opening) {
            if let Some(at) = text.find(mark) {
                return Some(line_at(page, text, at));
            }
        }
    }
    // Built by a script: the one that names its id, else its first class.
    let class = selector
        .rsplit(' ')
        .next()
        .and_then(|last| last.split('.').nth(1))
        .map(|c| c.split([':', '[', '#']).next().unwrap_or(c))
        .filter(|c| !c.is_empty());
    let names: Vec<String> = match (id, class) {
        (Some(id), _) => vec![format!("'{id}'"), format!("\"{id}\""), format!("#{id}")],
        (None, Some(class)) => vec![format!("'{class}'"), format!("\"{class}\""), format!(".{class}")],
        (None, None) => vec![format!("'{tag}'"), format!("\"{tag}\"")],
    };
    files.iter().filter(|(p, _)| is_script(p) && !super::bundle::is_test(p)).find_map(|(path, text)| {
        names.iter().find_map(|n| text.find(n.as_str())).map(|at| line_at(path, text, at))
    })
}

fn line_at(path: &str, text: &str, at: usize) -> SourceRef {
    SourceRef { path: path.to_owned(), line: text[..at].matches('\n').count() as u32 + 1 }
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> FileMap {
        [
            ("index.html", "<!doctype html>\n<html>\n<body>\n  <h1 class=\"title\">2048</h1>\n  <div id=\"score\">Score: 0</div>\n  <div id=\"board\"></div>\n  <script type=\"module\" src=\"game.js\"></script>\n</body>\n</html>\n"),
            ("game.js", "const board = document.getElementById('board');\nfunction tile(n) {\n  const el = document.createElement('div');\n  el.className = 'tile';\n  return el;\n}\n"),
            ("tests/game.test.js", "test('tile', () => { 'tile'; });\n"),
        ]
        .into_iter()
        .map(|(p, c)| (p.to_owned(), c.to_owned()))
        .collect()
    }

    #[test]
    fn an_element_with_an_id_is_found_in_the_page_that_writes_it() {
        let picked = PickedElement::from_frame("DIV", "  Score:\n 0 ", "#score", "<div id=\"score\">Score: 0</div>", &game());
        assert_eq!(picked.text, "Score: 0");
        assert_eq!(picked.source, Some(SourceRef { path: "index.html".into(), line: 5 }));
        assert_eq!(picked.chip(), "<div> #score \"Score: 0\" (index.html:5)");
        let request = picked.request("Make it bigger ");
        assert_eq!(
            request,
            "Make it bigger\n\nThis request is about one element of the page, picked in the preview: <div> with the selector `#score` and the text \"Score: 0\". It comes from index.html line 5. Its HTML as the page showed it:\n```html\n<div id=\"score\">Score: 0</div>\n```"
        );
    }

    #[test]
    fn an_element_without_an_id_is_found_by_its_opening_tag_or_the_script_that_builds_it() {
        let title = PickedElement::from_frame("h1", "2048", "body > h1.title", "<h1 class=\"title\">2048</h1>", &game());
        assert_eq!(title.source, Some(SourceRef { path: "index.html".into(), line: 4 }));
        // A tile is made by game.js (not by the test that names it too).
        let tile = PickedElement::from_frame("div", "2", "#board > div.tile:nth-of-type(3)", "<div class=\"tile\">2</div>", &game());
        assert_eq!(tile.source, Some(SourceRef { path: "game.js".into(), line: 4 }));
        let unknown = PickedElement::from_frame("span", "", "body > span:nth-of-type(1)", "<span></span>", &game());
        assert_eq!(unknown.source, None);
        assert!(unknown.request("x").contains("Its source file could not be told."));
        assert_eq!(unknown.chip(), "<span> body > span:nth-of-type(1)");
    }

    #[test]
    fn the_engineer_s_prompts_say_what_a_request_about_a_picked_element_means() {
        let request = PickedElement::from_frame("div", "", "#score", "<div id=\"score\"></div>", &game()).request("x");
        assert!(request.contains("one element of the page, picked in the preview"));
        // The words the engineers' prompts use for such a request.
        assert!(include_str!("../mgx/prompts/alex.md").contains("one element of the page picked in the preview"));
        assert!(include_str!("../company/prompts/refine_code.md").contains("one element of the page picked in the\npreview"));
    }

    #[test]
    fn what_the_frame_sends_is_cut_to_size() {
        let long = "x".repeat(10_000);
        let picked = PickedElement::from_frame(&long, &long, &long, &long, &game());
        assert_eq!(picked.html.chars().count(), MAX_HTML + 1);
        assert_eq!(picked.text.chars().count(), MAX_TEXT + 1);
        assert_eq!(picked.selector.chars().count(), MAX_SELECTOR + 1);
        assert_eq!(picked.tag.chars().count(), MAX_TAG + 1);
    }
}
