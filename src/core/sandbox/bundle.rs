//! Turning the project's files into something a sandbox can run without a
//! server: the preview document, with every `<script src>` and stylesheet
//! `<link href>` that names a project file replaced by a `data:` URL, and
//! JavaScript modules whose relative imports are themselves `data:` URLs
//! (resolved depth-first, so a module graph becomes one self-contained URL).
//!
//! A [`Project`] (see `prepare`) adds what Vite-shaped projects expect:
//! packages fetched from the package CDN (bare imports, resolved by
//! `packages::Resolver`, inlined like project files, one module per URL so
//! one copy of a shared dependency), TypeScript and JSX already turned into
//! JavaScript, extensionless imports (`./App` → `./App.tsx`), CSS imports
//! as injected `<style>`s (CSS modules with their class names as given),
//! JSON, `?raw` and asset imports as values, `import.meta.env`, and
//! Tailwind's browser build when the project asks for Tailwind.
//!
//! This is text rewriting, not an HTML or JavaScript parser: it finds
//! `<script …>` and `<link …>` tags and the string after `import`/`from`,
//! skipping comments and other strings. `<img src>` and CSS `url()`s (in
//! stylesheets, `<style>` and imported CSS) that name project files
//! become `data:` URLs too (a picture, a font); absolute URLs (`https:`)
//! and fetches of project files are left alone (the sandbox has no
//! network, so they fail visibly in its console).

use std::collections::BTreeMap;

use super::base64;
use super::packages::{join_url, Resolver};
use super::{SandboxError, SourceRef};
use crate::core::files::ProjectFiles;

/// What is linked: the project's files (their scripts plain JavaScript)
/// and, once `prepare` ran, the package modules it fetched and what it
/// could not do.
#[derive(Debug, Clone, Default)]
pub struct Project {
    pub files: FileMap,
    /// Package modules by URL (the CDN's answers, as fetched).
    pub packages: BTreeMap<String, String>,
    /// Resolves bare imports; `None`: bare imports are left as written.
    pub resolver: Option<Resolver>,
    /// Lines for the person's console and the engineer: imports that cannot
    /// run in a browser, packages that could not be fetched, files the
    /// transformer refused.
    pub problems: Vec<Problem>,
    /// The URL of Tailwind's browser build, when the project asks for it.
    pub tailwind: Option<String>,
}

/// Something that keeps part of the project from running, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub text: String,
    pub source: Option<SourceRef>,
}

impl Project {
    /// Plain files: no packages, bare imports left alone.
    pub fn plain(files: FileMap) -> Self {
        Self { files, ..Self::default() }
    }
}

/// Path → content: a snapshot of the project's files.
pub type FileMap = BTreeMap<String, String>;

/// The current content of every file.
pub fn snapshot(files: &ProjectFiles) -> FileMap {
    files.paths().filter_map(|p| files.read(p).ok().map(|c| (p.to_owned(), c.to_owned()))).collect()
}

/// What the frame's bridge reports as the file of an error in the page
/// itself (an inline script), whose URL is the frame's.
pub const DOCUMENT: &str = "document";

/// The preview document and what went into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewDoc {
    pub entry: String,
    pub html: String,
    pub included: Vec<String>,
    pub missing: Vec<String>,
    /// The `data:` URL of every script the document loads, with its path:
    /// how an error's file is told from the URL the browser reports.
    pub sources: Vec<(String, String)>,
    /// What `prepare` found that cannot run, as console lines.
    pub problems: Vec<Problem>,
    /// The line of `html` the prelude starts on, and how many lines it adds.
    prelude_at: u32,
    prelude_lines: u32,
}

impl PreviewDoc {
    /// The same, without the page: what maps an error back to its file.
    pub fn without_html(mut self) -> Self {
        self.html = String::new();
        self
    }

    /// The project file and line behind a place the frame reported: a
    /// script's `data:` URL is its file; [`DOCUMENT`] (the page itself, an
    /// inline script) is the entry page, less the prelude's lines. `None`
    /// for the prelude's own lines and for URLs of no project file.
    pub fn source_of(&self, url: &str, line: u32) -> Option<SourceRef> {
        if line == 0 {
            return None;
        }
        if url.starts_with("data:") {
            return self.sources.iter().find(|(u, _)| u == url).map(|(_, path)| SourceRef { path: path.clone(), line });
        }
        if url != DOCUMENT {
            return None;
        }
        let line = if line < self.prelude_at || self.prelude_lines == 0 {
            line
        } else if line >= self.prelude_at + self.prelude_lines {
            line - self.prelude_lines
        } else {
            return None;
        };
        Some(SourceRef { path: self.entry.clone(), line })
    }

    /// `text` (a console line, a stack) with every script's `data:` URL
    /// replaced by its path, and any other `data:` URL shortened: a stack
    /// then reads `at start (game.js:12:5)`, not kilobytes of base64.
    pub fn readable(&self, text: &str) -> String {
        let mut out = text.to_string();
        // Longest first: a module's URL holds the URLs of its imports (then
        // by URL, so the order is total and the sort need not be stable).
        let mut sources: Vec<&(String, String)> = self.sources.iter().collect();
        sources.sort_unstable_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        for (url, path) in sources {
            if out.contains(url.as_str()) {
                out = out.replace(url.as_str(), path);
            }
        }
        let mut short = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find("data:") {
            short.push_str(&rest[..at]);
            let end = rest[at..].find(|c: char| c.is_whitespace() || c == ')' || c == '"' || c == '\'').map_or(rest.len(), |i| at + i);
            let url = &rest[at..end];
            // Keep a place's ":line:column" after the shortened URL.
            let place = url.rfind(',').map_or("", |comma| {
                let tail = &url[comma..];
                tail.find(':').map_or("", |colon| &tail[colon..])
            });
            short.push_str("data:…");
            short.push_str(place);
            rest = &rest[end..];
        }
        short.push_str(rest);
        short
    }
}

/// The HTML file the preview shows: `index.html` at the shallowest depth,
/// else the first HTML file by depth and name.
pub fn entry_html(files: &FileMap) -> Option<&str> {
    // The first of the smallest keys: what a stable sort would put first.
    files.keys().map(String::as_str).filter(|p| p.ends_with(".html") || p.ends_with(".htm")).min_by_key(|p| (p.matches('/').count(), !is_index(p), *p))
}

fn is_index(path: &str) -> bool {
    path.rsplit('/').next().is_some_and(|name| name == "index.html")
}

/// The entry document with the project's scripts and styles inlined as
/// `data:` URLs and `prelude` (the sandbox's console bridge) placed first
/// in `<head>`.
pub fn preview_document(files: &FileMap, prelude: &str) -> Result<PreviewDoc, SandboxError> {
    project_document(&Project::plain(files.clone()), prelude)
}

/// The same for a prepared project: packages inlined, Tailwind's browser
/// build after the prelude when the project asks for it.
pub fn project_document(project: &Project, prelude: &str) -> Result<PreviewDoc, SandboxError> {
    let files = &project.files;
    let mut linker = Linker::new(project);
    let Some(entry) = entry_html(files) else {
        let existing = if files.is_empty() { "none".to_owned() } else { files.keys().cloned().collect::<Vec<_>>().join(", ") };
        return Err(SandboxError::NothingToRun(format!("the project has no HTML file to preview; existing files: {existing}")));
    };
    let source = &files[entry];
    let dir = parent_dir(entry);
    let mut doc = PreviewDoc {
        entry: entry.to_owned(),
        html: String::with_capacity(source.len()),
        included: Vec::new(),
        missing: Vec::new(),
        sources: Vec::new(),
        problems: project.problems.clone(),
        prelude_at: 0,
        prelude_lines: 0,
    };
    let lower = source.to_ascii_lowercase();
    let mut at = 0;
    while let Some(open) = lower[at..].find('<').map(|i| at + i) {
        let Some(end) = tag_end(source, open) else { break };
        let tag = &source[open..end];
        let name = tag_name(tag);
        let target = match name.as_str() {
            "script" => Some(("src", attr(tag, "type").is_some_and(|(_, t)| t.trim().eq_ignore_ascii_case("module")))),
            "link" if attr(tag, "rel").is_some_and(|(_, r)| r.split_whitespace().any(|w| w.eq_ignore_ascii_case("stylesheet"))) => Some(("href", false)),
            "img" => Some(("src", false)),
            _ => None,
        };
        let rewritten = target.and_then(|(key, module)| {
            let (span, value) = attr(tag, key)?;
            let Some(path) = resolve_file(&dir, value) else {
                if !value.trim().is_empty() && !value.contains(':') && !value.starts_with("//") {
                    doc.missing.push(value.to_owned());
                }
                return None;
            };
            if !files.contains_key(&path) {
                doc.missing.push(value.to_owned());
                return None;
            }
            let url = if module {
                let linked = linker.file(&path);
                doc.included.extend(linker.included.drain(..));
                match linked {
                    Ok(url) => url,
                    Err(e) => {
                        doc.missing.push(e.to_string());
                        return None;
                    }
                }
            } else {
                doc.included.push(path.clone());
                match name.as_str() {
                    "link" => data_url("text/css", &inline_css_urls(&files[&path], &parent_dir(&path), files)),
                    "img" => data_url(mime_of(&path), &files[&path]),
                    _ => data_url("text/javascript", &files[&path]),
                }
            };
            Some(format!("{}\"{url}\"{}", &tag[..span.0], &tag[span.1..]))
        });
        doc.html.push_str(&source[at..open]);
        doc.html.push_str(rewritten.as_deref().unwrap_or(tag));
        at = end;
        // An inline module's imports are rewritten like a file's.
        let inline_module = name == "script" && attr(tag, "src").is_none() && attr(tag, "type").is_some_and(|(_, t)| t.trim().eq_ignore_ascii_case("module"));
        if inline_module {
            let close = lower[at..].find("</script").map_or(source.len(), |i| at + i);
            let body = &source[at..close];
            let linked = linker.rewrite(body, &Importer::File { dir: dir.clone(), path: entry.to_owned() });
            doc.included.extend(linker.included.drain(..));
            match linked {
                Ok(body) => doc.html.push_str(&body),
                Err(e) => {
                    doc.missing.push(e.to_string());
                    doc.html.push_str(body);
                }
            }
            at = close;
        } else if name == "script" || name == "style" {
            // Raw text: copied as it is (a style's `url()`s inlined), never read as tags.
            let close = lower[at..].find(&format!("</{name}")).map_or(source.len(), |i| at + i);
            if name == "style" {
                doc.html.push_str(&inline_css_urls(&source[at..close], &dir, files));
            } else {
                doc.html.push_str(&source[at..close]);
            }
            at = close;
        }
    }
    doc.html.push_str(&source[at..]);
    let tailwind = project.tailwind.as_ref().and_then(|url| project.packages.get(url));
    let prelude = match tailwind {
        // Classic script after the bridge: it styles the page as it renders.
        Some(script) => format!("{prelude}<script src=\"{}\"></script>", data_url("text/javascript", script)),
        None => prelude.to_owned(),
    };
    let prelude = prelude.as_str();
    let (html, at) = insert_prelude(&doc.html, prelude);
    doc.prelude_at = line_of(&doc.html, at);
    doc.prelude_lines = prelude.matches('\n').count() as u32;
    doc.html = html;
    doc.included.extend(linker.included.drain(..));
    doc.missing.extend(linker.missing.drain(..));
    dedup(&mut doc.included);
    dedup(&mut doc.missing);
    // A classic script's URL is rebuilt as the document built it (the same
    // bytes give the same URL); modules' are the linker's.
    for path in doc.included.iter().filter(|p| is_script(p)) {
        doc.sources.push((data_url("text/javascript", &files[path]), path.clone()));
    }
    doc.sources.append(&mut linker.sources);
    Ok(doc)
}

/// The project as one HTML file that runs when opened from disk with no
/// network ("Download as one file"): the preview's document, linked the
/// same way (project modules, stylesheets and the package modules `prepare`
/// fetched, all `data:` URLs; Tailwind's script when asked for), without
/// the sandbox's console bridge. A page with no charset gets `utf-8`, since
/// a file opened from disk has no header to say it. What could not be
/// inlined is in the document's `missing` and `problems`, for the person.
pub fn single_file(project: &Project) -> Result<PreviewDoc, SandboxError> {
    let declares_charset = entry_html(&project.files).is_some_and(|entry| project.files[entry].to_ascii_lowercase().contains("charset"));
    project_document(project, if declares_charset { "" } else { "<meta charset=\"utf-8\">" })
}

/// A `data:` URL of the module at `path` whose relative imports point at
/// `data:` URLs of the modules they name. A cycle is refused.
pub fn module_url(files: &FileMap, path: &str) -> Result<String, SandboxError> {
    Linker::new(&Project::plain(files.clone())).file(path)
}

/// The same for a prepared project (packages, transformed sources).
pub fn project_module_url(project: &Project, path: &str) -> Result<String, SandboxError> {
    Linker::new(project).file(path)
}

/// The test files under `path` (a file, a directory, or everything):
/// `*.test.js`, `*.spec.js`, `.mjs` alike, and any script under a `tests/`
/// or `test/` directory.
pub fn test_files(files: &FileMap, path: Option<&str>) -> Result<Vec<String>, SandboxError> {
    let wanted = path.map(|p| p.trim().trim_start_matches("./").trim_end_matches('/')).filter(|p| !p.is_empty());
    if let Some(file) = wanted {
        if files.contains_key(file) {
            return if is_script(file) || super::python::is_python(file) {
                Ok(vec![file.to_owned()])
            } else {
                Err(SandboxError::NothingToRun(format!("{file} is not a JavaScript or Python file")))
            };
        }
    }
    let found: Vec<String> = files
        .keys()
        .filter(|p| wanted.is_none_or(|dir| p.starts_with(&format!("{dir}/"))))
        .filter(|p| is_test(p))
        .cloned()
        .collect();
    if found.is_empty() {
        let listed = |keep: fn(&str) -> bool| {
            let found: Vec<&str> = files.keys().map(String::as_str).filter(|p| keep(p)).collect();
            if found.is_empty() { "none".to_owned() } else { found.join(", ") }
        };
        let place = wanted.map(|w| format!(" under {w}")).unwrap_or_default();
        let python = if super::python::has_python(files) { format!("; Python files: {}", listed(super::python::is_python)) } else { String::new() };
        return Err(SandboxError::NothingToRun(format!(
            "no test files{place} (a test file ends in .test.js or .test.ts, or lives under tests/; a Python test file is test_*.py or *_test.py); JavaScript files: {}{python}",
            listed(is_script)
        )));
    }
    Ok(found)
}

/// A JavaScript or TypeScript module (TypeScript and JSX are plain
/// JavaScript by the time they are linked: `prepare` transformed them).
pub fn is_script(path: &str) -> bool {
    [".js", ".mjs", ".jsx", ".ts", ".tsx", ".mts"].iter().any(|ext| path.ends_with(ext)) && !path.ends_with(".d.ts")
}

/// The bodies of an HTML page's inline `<script type="module">`s: their
/// imports are the page's too.
pub fn inline_modules(html: &str) -> Vec<&str> {
    let lower = html.to_ascii_lowercase();
    let mut bodies = Vec::new();
    let mut at = 0;
    while let Some(open) = lower[at..].find("<script").map(|i| at + i) {
        let Some(end) = tag_end(html, open) else { break };
        let tag = &html[open..end];
        let close = lower[end..].find("</script").map_or(html.len(), |i| end + i);
        if attr(tag, "src").is_none() && attr(tag, "type").is_some_and(|(_, t)| t.trim().eq_ignore_ascii_case("module")) {
            bodies.push(&html[end..close]);
        }
        at = close.max(end);
    }
    bodies
}

/// A build tool's configuration (`vite.config.ts`, `tailwind.config.js`,
/// `postcss.config.js`, …): read by tools on a developer's machine, never
/// run in the tab, so neither transformed nor searched for packages.
pub fn is_tooling(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplitn(2, '.').nth(1).is_some_and(|stem| stem.ends_with(".config") || stem == "eslint.config")
}

/// Files the transformer must turn into JavaScript first.
pub fn needs_transform(path: &str) -> bool {
    [".jsx", ".ts", ".tsx", ".mts"].iter().any(|ext| path.ends_with(ext)) && !path.ends_with(".d.ts")
}

pub fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let under_tests = path.split('/').rev().skip(1).any(|d| d == "tests" || d == "test" || d == "__tests__");
    (is_script(path) && (under_tests || name.contains(".test.") || name.contains(".spec."))) || super::python::is_python_test(path)
}

/// Who imports: a project file (in `dir`) or a package module (its URL).
enum Importer {
    File { dir: String, path: String },
    Package { url: String },
}

/// Builds `data:` URLs depth-first, each module once (the same module
/// gives the same URL, so the browser keeps one instance of it).
struct Linker<'p> {
    project: &'p Project,
    done: BTreeMap<String, String>,
    stack: Vec<String>,
    missing: Vec<String>,
    included: Vec<String>,
    sources: Vec<(String, String)>,
}

/// The values `import.meta.env` has in the preview (Vite's development mode).
const IMPORT_META_ENV: &str = r#"({"MODE":"development","DEV":true,"PROD":false,"SSR":false,"BASE_URL":"/"})"#;

impl<'p> Linker<'p> {
    fn new(project: &'p Project) -> Self {
        Self { project, done: BTreeMap::new(), stack: Vec::new(), missing: Vec::new(), included: Vec::new(), sources: Vec::new() }
    }

    /// The `data:` URL of project file `path` (with a `?raw`/`?url` query kept apart).
    fn file(&mut self, path: &str) -> Result<String, SandboxError> {
        let key = format!("file:{path}");
        if let Some(url) = self.done.get(&key) {
            return Ok(url.clone());
        }
        let (file, query) = path.split_once('?').map_or((path, ""), |(f, q)| (f, q));
        if self.stack.iter().any(|p| p == file) {
            self.stack.push(file.to_owned());
            return Err(SandboxError::NothingToRun(format!("the modules import each other in a cycle ({}), which the sandbox cannot load", self.stack.join(" → "))));
        }
        let Some(source) = self.project.files.get(file) else {
            return Err(SandboxError::NothingToRun(format!("{file} does not exist")));
        };
        self.included.push(file.to_owned());
        let module = if query == "raw" {
            format!("export default {};\n", json_string(source))
        } else if query == "url" || (!is_script(file) && !file.ends_with(".css") && !file.ends_with(".json")) {
            format!("export default {};\n", json_string(&data_url(mime_of(file), source)))
        } else if file.ends_with(".css") {
            css_module(file, &inline_css_urls(source, &parent_dir(file), &self.project.files))
        } else if file.ends_with(".json") {
            match serde_json::from_str::<serde_json::Value>(source) {
                Ok(value) => format!("export default {value};\n"),
                Err(e) => format!("throw new SyntaxError({});\n", json_string(&format!("{file} is not valid JSON: {e}"))),
            }
        } else {
            self.stack.push(file.to_owned());
            let importer = Importer::File { dir: parent_dir(file), path: file.to_owned() };
            let out = self.rewrite(source, &importer);
            self.stack.pop();
            // Replaced within their lines: errors keep their line numbers.
            out?.replace("import.meta.env", IMPORT_META_ENV).replace("process.env.NODE_ENV", "\"development\"")
        };
        let url = data_url("text/javascript", &module);
        if is_script(file) {
            self.sources.push((url.clone(), file.to_owned()));
        }
        self.done.insert(key, url.clone());
        Ok(url)
    }

    /// The `data:` URL of a fetched package module.
    fn package(&mut self, url: &str) -> Result<String, SandboxError> {
        let key = format!("url:{url}");
        if let Some(done) = self.done.get(&key) {
            return Ok(done.clone());
        }
        let Some(source) = self.project.packages.get(url) else {
            return Err(SandboxError::NothingToRun(format!("{url} was not fetched")));
        };
        if self.stack.iter().any(|p| p == url) {
            let name = |u: &str| self.project.resolver.as_ref().map_or(u.to_owned(), |r| r.display(u));
            let cycle: Vec<String> = self.stack.iter().chain([&url.to_owned()]).map(|u| name(u)).collect();
            return Err(SandboxError::NothingToRun(format!("the packages import each other in a cycle ({}), which the sandbox cannot load", cycle.join(" → "))));
        }
        self.stack.push(url.to_owned());
        let out = self.rewrite(source, &Importer::Package { url: url.to_owned() });
        self.stack.pop();
        let data = data_url("text/javascript", &out?);
        let shown = self.project.resolver.as_ref().map_or(url.to_owned(), |r| r.display(url));
        self.sources.push((data.clone(), shown));
        self.done.insert(key, data.clone());
        Ok(data)
    }

    /// `source` with the imports this project can satisfy replaced by their
    /// `data:` URLs; the others stay as written (and fail in the console).
    fn rewrite(&mut self, source: &str, importer: &Importer) -> Result<String, SandboxError> {
        let mut out = String::with_capacity(source.len());
        let mut last = 0;
        for (start, end) in import_specifiers(source) {
            let spec = &source[start..end];
            let url = match importer {
                Importer::File { dir, path } if is_relative(spec) => match find_file(&self.project.files, dir, spec) {
                    Some(target) => Some(self.file(&target)?),
                    None => {
                        self.missing.push(format!("{spec} (imported by {path})"));
                        None
                    }
                },
                Importer::Package { url } if !Resolver::is_bare(spec) => match join_url(url, spec) {
                    Some(target) if self.project.packages.contains_key(&target) => Some(self.package(&target)?),
                    _ => None,
                },
                _ if harness_module(spec).is_some() => harness_module(spec).map(|m| data_url("text/javascript", m)),
                _ if Resolver::is_bare(spec) => match self.project.resolver.as_ref().map(|r| r.resolve(spec)) {
                    Some(Ok(target)) if self.project.packages.contains_key(&target) => Some(self.package(&target)?),
                    _ => None,
                },
                _ => None,
            };
            if let Some(url) = url {
                out.push_str(&source[last..start]);
                out.push_str(&url);
                last = end;
            }
        }
        out.push_str(&source[last..]);
        Ok(out)
    }
}

/// What a test imports to get the test harness's functions (`harness.js`
/// defines them as globals in each test worker): Node's own test runner
/// and assert, and vitest's names, so tests written for either run.
pub fn harness_module(spec: &str) -> Option<&'static str> {
    match spec {
        "node:test" => Some("export const { test, it, describe } = globalThis;\nexport default globalThis.test;\n"),
        "node:assert" | "node:assert/strict" | "assert" | "assert/strict" => Some(
            "const assert = globalThis.assert;\nexport default assert;\nexport const { ok, equal, strictEqual, notEqual, notStrictEqual, deepEqual, deepStrictEqual, throws } = assert;\n",
        ),
        "vitest" | "@jest/globals" => Some("export const { test, it, describe, expect, assert } = globalThis;\n"),
        _ => None,
    }
}

/// The project file a relative import names: as written, else with a
/// script extension, else its directory's `index` (Vite's and Node's
/// resolution); a `?raw`/`?url` query is kept on the path.
fn find_file(files: &FileMap, dir: &str, spec: &str) -> Option<String> {
    let query = spec.split_once('?').map(|(_, q)| q).filter(|q| matches!(*q, "raw" | "url"));
    let path = resolve(dir, spec)?;
    let with = |p: String| match query {
        Some(q) => format!("{p}?{q}"),
        None => p,
    };
    if files.contains_key(&path) {
        return Some(with(path));
    }
    const EXTENSIONS: [&str; 6] = [".tsx", ".ts", ".jsx", ".js", ".mjs", ".mts"];
    // `./util.js` written for `util.ts` (TypeScript's own convention).
    let stem = path.strip_suffix(".js").or_else(|| path.strip_suffix(".jsx")).or_else(|| path.strip_suffix(".mjs"));
    let candidates = EXTENSIONS
        .iter()
        .map(|ext| format!("{path}{ext}"))
        .chain(stem.into_iter().flat_map(|stem| [".ts", ".tsx", ".mts"].map(|ext| format!("{stem}{ext}"))))
        .chain(EXTENSIONS.iter().map(|ext| format!("{path}/index{ext}")));
    candidates.into_iter().find(|p| files.contains_key(p)).map(with)
}

/// A stylesheet as a module: it adds a `<style>` to the page (nothing in a
/// test worker, which has no page) and exports the class names as given
/// (a CSS module's names are not scoped here).
fn css_module(path: &str, css: &str) -> String {
    format!(
        "const css = {};\nif (typeof document !== 'undefined') {{ const style = document.createElement('style'); style.dataset.file = {}; style.textContent = css; document.head.appendChild(style); }}\nexport default new Proxy({{}}, {{ get: (_, name) => typeof name === 'string' ? name : undefined }});\nexport {{ css }};\n",
        json_string(css),
        json_string(path)
    )
}

/// `css` (of a file in `dir`) with each `url()` that names a project file
/// replaced by its `data:` URL; others (absolute, `data:`, `#fragment`,
/// missing files) as written.
fn inline_css_urls(css: &str, dir: &str, files: &FileMap) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(open) = rest.to_ascii_lowercase().find("url(") {
        let body_start = open + 4;
        let Some(close) = rest[body_start..].find(')').map(|i| body_start + i) else { break };
        let value = rest[body_start..close].trim().trim_matches(|c| c == '"' || c == '\'');
        let path = (!value.starts_with('#')).then(|| resolve_file(dir, value)).flatten().filter(|p| files.contains_key(p));
        out.push_str(&rest[..body_start]);
        match path {
            Some(path) => out.push_str(&format!("\"{}\"", data_url(mime_of(&path), &files[&path]))),
            None => out.push_str(&rest[body_start..close]),
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default().to_ascii_lowercase().as_str() {
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "css" => "text/css",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "js" | "mjs" => "text/javascript",
        _ => "text/plain",
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

fn data_url(mime: &str, content: &str) -> String {
    format!("data:{mime};charset=utf-8;base64,{}", base64::encode(content.as_bytes()))
}

fn is_relative(spec: &str) -> bool {
    spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/')
}

fn parent_dir(path: &str) -> String {
    path.rsplit_once('/').map(|(dir, _)| dir.to_owned()).unwrap_or_default()
}

/// `spec` relative to `dir`, normalized; `None` when it climbs above the root.
fn resolve(dir: &str, spec: &str) -> Option<String> {
    let spec = spec.split(['?', '#']).next().unwrap_or_default();
    let mut parts: Vec<&str> = if spec.starts_with('/') { Vec::new() } else { dir.split('/').filter(|s| !s.is_empty()).collect() };
    for segment in spec.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// A URL in the document that names a project file: its path. Absolute
/// URLs (`scheme:`, `//host`) are not project files.
fn resolve_file(dir: &str, url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() || url.starts_with("//") || url.contains(':') {
        return None;
    }
    let spec = if url.starts_with('/') || url.starts_with("./") || url.starts_with("../") { url.to_owned() } else { format!("./{url}") };
    resolve(dir, &spec)
}

fn dedup(list: &mut Vec<String>) {
    let mut seen = std::collections::BTreeSet::new();
    list.retain(|x| seen.insert(x.clone()));
}

/// The end (exclusive) of the tag opening at `open`, skipping quoted
/// attribute values; comments are returned whole.
fn tag_end(source: &str, open: usize) -> Option<usize> {
    let rest = &source[open..];
    if rest.starts_with("<!--") {
        return rest.find("-->").map(|i| open + i + 3);
    }
    let mut quote = None;
    for (i, c) in rest.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(open + i + 1),
            _ => {}
        }
    }
    None
}

fn tag_name(tag: &str) -> String {
    tag.trim_start_matches('<').chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase()
}

/// The span of attribute `name`'s value in `tag` (including its quotes)
/// and the value itself.
fn attr<'t>(tag: &'t str, name: &str) -> Option<((usize, usize), &'t str)> {
    let bytes = tag.as_bytes();
    let mut i = tag.find(|c: char| c.is_whitespace())?;
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        let key_start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let key = &tag[key_start..i];
        if key.is_empty() {
            return None;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b'=' {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            let (start, value_start, value_end, end) = match bytes.get(j) {
                Some(&q @ (b'"' | b'\'')) => {
                    let close = tag[j + 1..].find(q as char).map(|k| j + 1 + k)?;
                    (j, j + 1, close, close + 1)
                }
                _ => {
                    let stop = tag[j..].find(|c: char| c.is_whitespace() || c == '>').map_or(tag.len(), |k| j + k);
                    (j, j, stop, stop)
                }
            };
            if key.eq_ignore_ascii_case(name) {
                return Some(((start, end), &tag[value_start..value_end]));
            }
            i = end;
        } else {
            if key.eq_ignore_ascii_case(name) {
                return Some(((j, j), ""));
            }
            i = j;
        }
    }
    None
}

/// Puts `prelude` right after `<head …>`, else after `<html …>`, else after
/// the doctype, else first: it must run before the project's scripts.
/// Returns the document and the byte where the prelude went.
fn insert_prelude(html: &str, prelude: &str) -> (String, usize) {
    let lower = html.to_ascii_lowercase();
    let after = |needle: &str| {
        let mut from = 0;
        while let Some(i) = lower[from..].find(needle).map(|i| from + i) {
            let next = lower.as_bytes().get(i + needle.len()).copied();
            if matches!(next, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
                return tag_end(html, i);
            }
            from = i + needle.len();
        }
        None
    };
    let at = after("<head").or_else(|| after("<html")).or_else(|| after("<!doctype")).unwrap_or(0);
    (format!("{}{prelude}{}", &html[..at], &html[at..]), at)
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> u32 {
    text[..at].matches('\n').count() as u32 + 1
}

/// Byte spans of the module specifiers in `source`: the string literal
/// after `from`, after a bare `import`, or in `import(`. Comments, other
/// strings and template literals are skipped.
pub(super) fn import_specifiers(source: &str) -> Vec<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = source[i..].find('\n').map_or(bytes.len(), |k| i + k),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = source[i + 2..].find("*/").map_or(bytes.len(), |k| i + 2 + k + 2),
            q @ (b'"' | b'\'' | b'`') => {
                let end = string_end(bytes, i, q);
                if q != b'`' && follows_import_keyword(&source[..i]) {
                    spans.push((i + 1, end.saturating_sub(1).max(i + 1)));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    spans
}

/// The index just past the closing quote of the literal opening at `open`.
fn string_end(bytes: &[u8], open: usize, quote: u8) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            b'\n' if quote != b'`' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn follows_import_keyword(before: &str) -> bool {
    let trimmed = before.trim_end();
    let trimmed = trimmed.strip_suffix('(').map(str::trim_end).unwrap_or(trimmed);
    ["from", "import"].iter().any(|kw| {
        trimmed.ends_with(kw) && !trimmed[..trimmed.len() - kw.len()].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
    })
}
