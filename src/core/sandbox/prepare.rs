//! Getting a project ready to link: its TypeScript and JSX turned into
//! JavaScript, and every package module it needs fetched (bare imports
//! resolved through the package CDN, then the modules those import, until
//! nothing is missing), through the `PackageHost` port.
//!
//! The browser implements the port with its package cache (a module
//! fetched once is served from Cache Storage, offline too) and a lazily
//! loaded transformer; the native tests with maps. Nothing here does IO or
//! knows where a module came from.

use std::collections::BTreeSet;

use futures::future::{join_all, LocalBoxFuture};

use super::bundle::{harness_module, inline_modules, is_script, is_tooling, needs_transform, FileMap, Problem, Project};
use super::packages::{join_url, split_specifier, Manifest, Resolver};
use super::SourceRef;

/// Why a file could not be transformed: its line (1-based) and the
/// transformer's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformError {
    pub line: u32,
    pub message: String,
}

/// What the tab lends `prepare`: modules by URL and a transformer.
pub trait PackageHost {
    /// The module at `url` (from the package cache, else the CDN); the
    /// error is a short reason in words ("the package CDN answered 404").
    fn fetch(&self, url: String) -> LocalBoxFuture<'_, Result<String, String>>;

    /// `source` (TypeScript, JSX or TSX, named `path`) as JavaScript on the
    /// same lines, JSX through the automatic runtime of `jsx_import_source`.
    fn transform(&self, path: String, source: String, jsx_import_source: String) -> LocalBoxFuture<'_, Result<String, TransformError>>;
}

/// How many rounds of imports-of-imports are followed before giving up (a
/// package graph deeper than this is broken, not big).
const MAX_ROUNDS: usize = 40;

/// The project ready to link: `files` with scripts as JavaScript, the
/// packages it imports fetched from `cdn`, and what could not be done.
pub async fn prepare(files: FileMap, cdn: &str, host: &dyn PackageHost) -> Project {
    let manifest = Manifest::of(&files);
    let jsx = jsx_import_source(&files, &manifest);
    let mut project = Project::plain(files);
    let pending: Vec<(String, String)> = project.files.iter().filter(|(p, _)| needs_transform(p) && !is_tooling(p)).map(|(p, s)| (p.clone(), s.clone())).collect();
    let results = join_all(pending.into_iter().map(|(path, source)| {
        let jsx = jsx.clone();
        async move {
            let out = host.transform(path.clone(), source, jsx).await;
            (path, out)
        }
    }))
    .await;
    for (path, result) in results {
        match result {
            Ok(js) => {
                project.files.insert(path, js);
            }
            Err(e) => project.problems.push(Problem {
                text: format!("{path} could not be read as TypeScript/JSX: {}", e.message),
                source: Some(SourceRef { path: path.clone(), line: e.line.max(1) }),
            }),
        }
    }
    // Every module the project has: its script files and its pages' inline modules.
    let modules: Vec<(String, String)> = project
        .files
        .iter()
        .filter(|(p, _)| is_script(p) && !is_tooling(p))
        .map(|(p, s)| (p.clone(), s.clone()))
        .chain(project.files.iter().filter(|(p, _)| p.ends_with(".html") || p.ends_with(".htm")).flat_map(|(p, s)| inline_modules(s).into_iter().map(|m| (p.clone(), m.to_owned()))))
        .collect();
    let imported: BTreeSet<String> = modules
        .iter()
        .flat_map(|(_, s)| specifiers(s))
        .filter(|s| Resolver::is_bare(s) && harness_module(s).is_none())
        .filter_map(|s| split_specifier(&s).map(|(name, _)| name.to_owned()))
        .collect();
    let resolver = Resolver::new(cdn, manifest, imported);
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    for (path, source) in &modules {
        for spec in specifiers(source).into_iter().filter(|s| Resolver::is_bare(s) && harness_module(s).is_none()) {
            match resolver.resolve(&spec) {
                Ok(url) => {
                    wanted.insert(url);
                }
                Err(refusal) => project.problems.push(Problem { text: refusal.text(path), source: line_of_import(source, &spec).map(|line| SourceRef { path: path.clone(), line }) }),
            }
        }
    }
    if wants_tailwind(&project.files, resolver.manifest()) {
        let url = format!("{}/@tailwindcss/browser@4/dist/index.global.js?raw", resolver.cdn());
        wanted.insert(url.clone());
        project.tailwind = Some(url);
    }
    let mut failed: BTreeSet<String> = BTreeSet::new();
    for _ in 0..MAX_ROUNDS {
        let round: Vec<String> = wanted.iter().filter(|u| !project.packages.contains_key(*u) && !failed.contains(*u)).cloned().collect();
        if round.is_empty() {
            break;
        }
        let fetched = join_all(round.into_iter().map(|url| async move {
            let got = host.fetch(url.clone()).await;
            (url, got)
        }))
        .await;
        for (url, got) in fetched {
            match got {
                Ok(source) => {
                    // Tailwind's build is a classic script, not a module.
                    if project.tailwind.as_deref() != Some(url.as_str()) {
                        for spec in specifiers(&source) {
                            let next = if Resolver::is_bare(&spec) { resolver.resolve(&spec).ok() } else { join_url(&url, &spec) };
                            wanted.extend(next);
                        }
                    }
                    project.packages.insert(url, source);
                }
                Err(reason) => {
                    project.problems.push(Problem { text: format!("the package {} could not be loaded: {reason}", resolver.display(&url)), source: None });
                    failed.insert(url);
                }
            }
        }
    }
    project.resolver = Some(resolver);
    project
}

/// The runtime JSX compiles to: `jsxImportSource` in `tsconfig.json` (or
/// `jsconfig.json`), else Preact when the project lists Preact and not
/// React, else React.
pub fn jsx_import_source(files: &FileMap, manifest: &Manifest) -> String {
    for config in ["tsconfig.json", "tsconfig.app.json", "jsconfig.json"] {
        let Some(text) = files.get(config) else { continue };
        // tsconfig allows comments, so it is searched, not parsed.
        if let Some(at) = text.find("\"jsxImportSource\"") {
            let rest = &text[at + "\"jsxImportSource\"".len()..];
            let value = rest.trim_start().strip_prefix(':').map(str::trim_start).and_then(|r| r.strip_prefix('"')).and_then(|r| r.split_once('"')).map(|(v, _)| v);
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                return value.to_owned();
            }
        }
    }
    let has = |name: &str| manifest.versions.contains_key(name);
    if has("preact") && !has("react") {
        "preact".to_owned()
    } else {
        "react".to_owned()
    }
}

/// Whether the project asks for Tailwind: a `tailwind.config.*`, a
/// stylesheet with `@tailwind` or `@import "tailwindcss"`, or
/// `tailwindcss` in `package.json`.
pub fn wants_tailwind(files: &FileMap, manifest: &Manifest) -> bool {
    manifest.versions.contains_key("tailwindcss")
        || manifest.versions.contains_key("@tailwindcss/vite")
        || files.iter().any(|(path, text)| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.starts_with("tailwind.config.")
                || (path.ends_with(".css") && (text.contains("@tailwind ") || text.contains("@import \"tailwindcss") || text.contains("@import 'tailwindcss")))
        })
}

/// The import specifiers of a module, as written.
fn specifiers(source: &str) -> Vec<String> {
    super::bundle::import_specifiers(source).into_iter().map(|(a, b)| source[a..b].to_owned()).collect()
}

fn line_of_import(source: &str, spec: &str) -> Option<u32> {
    let quoted = [format!("\"{spec}\""), format!("'{spec}'")];
    let at = quoted.iter().filter_map(|q| source.find(q.as_str())).min()?;
    Some(source[..at].matches('\n').count() as u32 + 1)
}
