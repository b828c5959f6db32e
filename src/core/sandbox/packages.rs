//! Bare imports to package-CDN URLs: `import { Chart } from "chart.js"`
//! becomes `https://esm.sh/chart.js@4.4.1?external=react`, with the version
//! the project's `package.json` names, subpaths (`react-dom/client`) and
//! scoped names (`@tanstack/react-query`) kept, and what cannot run in a
//! browser (Node built-ins, Node-only packages) refused with words for the
//! person and the engineer.
//!
//! One copy of a shared dependency: every package URL carries
//! `?external=` with the project's other package names, so the CDN leaves
//! those imports bare and this resolver (one version per name) resolves
//! them again: `react-dom` and the app share the one `react` it names.
//!
//! Pure: it builds URLs and reads `package.json`; it fetches nothing (the
//! browser's package cache does) and decides nothing about modules' text.

use std::collections::BTreeMap;

use super::FileMap;

/// The package CDN a new setting starts with.
pub const DEFAULT_CDN: &str = "https://esm.sh";

/// The versions a project asks for: `package.json`'s dependencies (all
/// kinds), name → version as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub versions: BTreeMap<String, String>,
    /// `true` when the project has a `package.json` (even an empty one).
    pub present: bool,
}

impl Manifest {
    /// The root `package.json` of the project, if it has one that parses.
    pub fn of(files: &FileMap) -> Self {
        files.get("package.json").map(|text| Self::parse(text)).unwrap_or_default()
    }

    pub fn parse(text: &str) -> Self {
        let mut versions = BTreeMap::new();
        let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        // Later kinds do not override earlier ones: what runs is `dependencies`.
        for kind in ["dependencies", "peerDependencies", "devDependencies", "optionalDependencies"] {
            if let Some(map) = value.get(kind).and_then(|m| m.as_object()) {
                for (name, version) in map {
                    if let Some(v) = version.as_str() {
                        versions.entry(name.clone()).or_insert_with(|| v.to_owned());
                    }
                }
            }
        }
        Self { versions, present: true }
    }
}

/// Why a bare import gets no URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A Node.js built-in (`fs`, `node:path`, …).
    NodeBuiltin(String),
    /// A package that runs only in Node.js (a server, a database driver).
    NodeOnly(String),
    /// Not a package name npm could have.
    NotAPackage(String),
}

impl Refusal {
    /// One line for the person (the preview's console) and the engineer.
    pub fn text(&self, importer: &str) -> String {
        match self {
            Self::NodeBuiltin(spec) => format!(
                "{importer} imports \"{spec}\", a Node.js built-in module; the project runs in the browser tab, where it does not exist. Use browser APIs instead (fetch, localStorage, IndexedDB, File)."
            ),
            Self::NodeOnly(name) => format!(
                "{importer} imports \"{name}\", a package that runs only in Node.js (a server or native code); the project runs in the browser tab with no server. Keep the data in the browser (localStorage, IndexedDB) or use a package made for browsers."
            ),
            Self::NotAPackage(spec) => format!("{importer} imports \"{spec}\", which is neither a project file nor an npm package name."),
        }
    }
}

/// Node.js built-ins that have no browser counterpart on a package CDN.
/// Others (`events`, `buffer`, `util`, `path`) the CDN serves as browser
/// polyfills, so they are left to it unless written `node:…`.
const NODE_BUILTINS: &[&str] = &[
    "assert/strict", "async_hooks", "child_process", "cluster", "dgram", "dns", "fs", "fs/promises", "http", "http2", "https", "inspector",
    "module", "net", "os", "perf_hooks", "readline", "repl", "sqlite", "tls", "v8", "vm", "worker_threads",
];

/// Packages that need Node.js (servers, databases, native addons).
const NODE_ONLY: &[&str] = &[
    "@prisma/client", "bcrypt", "better-sqlite3", "body-parser", "cors", "dotenv", "express", "fastify", "fs-extra", "knex", "koa", "mongodb",
    "mongoose", "multer", "mysql", "mysql2", "nodemailer", "nodemon", "pg", "prisma", "puppeteer", "sequelize", "sharp", "socket.io", "sqlite3", "ws",
];

/// A package name and the subpath after it: `@a/b/c` → (`@a/b`, `/c`).
pub fn split_specifier(spec: &str) -> Option<(&str, &str)> {
    let name_end = if spec.starts_with('@') {
        let slash = spec.find('/')?;
        spec[slash + 1..].find('/').map_or(spec.len(), |i| slash + 1 + i)
    } else {
        spec.find('/').unwrap_or(spec.len())
    };
    let (name, sub) = spec.split_at(name_end);
    let valid = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'));
    let ok = match name.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(scope, pkg)| valid(scope) && valid(pkg)),
        None => valid(name) && !name.starts_with('.') && !name.starts_with('_'),
    };
    ok.then_some((name, sub))
}

/// Bare specifiers to URLs on one CDN with one project's versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolver {
    cdn: String,
    manifest: Manifest,
    /// The names kept external on every package URL (sorted).
    shared: Vec<String>,
}

impl Resolver {
    /// `cdn` is a base URL (`https://esm.sh`, a trailing `/` is dropped);
    /// `shared` the package names the project itself imports, used when it
    /// has no `package.json` to name them.
    pub fn new(cdn: &str, manifest: Manifest, imported: impl IntoIterator<Item = String>) -> Self {
        let cdn = cdn.trim().trim_end_matches('/').to_owned();
        let mut shared: Vec<String> = if manifest.present { manifest.versions.keys().cloned().collect() } else { imported.into_iter().collect() };
        shared.retain(|name| split_specifier(name).is_some_and(|(n, sub)| n == name && sub.is_empty()));
        shared.sort_unstable();
        shared.dedup();
        Self { cdn, manifest, shared }
    }

    pub fn cdn(&self) -> &str {
        &self.cdn
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Whether `spec` is bare: not relative, not absolute, not a URL.
    pub fn is_bare(spec: &str) -> bool {
        !(spec.is_empty() || spec.starts_with('.') || spec.starts_with('/') || spec.contains("://") || spec.starts_with("data:") || spec.starts_with("blob:"))
    }

    /// The URL of a bare import, or why there is none.
    pub fn resolve(&self, spec: &str) -> Result<String, Refusal> {
        if let Some(builtin) = spec.strip_prefix("node:") {
            return Err(Refusal::NodeBuiltin(format!("node:{builtin}")));
        }
        if NODE_BUILTINS.contains(&spec) {
            return Err(Refusal::NodeBuiltin(spec.to_owned()));
        }
        let (name, sub) = split_specifier(spec).ok_or_else(|| Refusal::NotAPackage(spec.to_owned()))?;
        if NODE_ONLY.contains(&name) {
            return Err(Refusal::NodeOnly(name.to_owned()));
        }
        let (name, version) = match self.manifest.versions.get(name).map(String::as_str).map(str::trim) {
            // `"preact-compat": "npm:@preact/compat@17"`: another package.
            Some(alias) if alias.starts_with("npm:") => {
                let target = &alias[4..];
                let at = target.rfind('@').filter(|&i| i > 0);
                match at {
                    Some(i) => (target[..i].to_owned(), pinned(&target[i + 1..])),
                    None => (target.to_owned(), None),
                }
            }
            Some(range) => (name.to_owned(), pinned(range)),
            None => (name.to_owned(), None),
        };
        let mut url = format!("{}/{name}", self.cdn);
        if let Some(version) = version {
            url.push('@');
            url.push_str(&version);
        }
        url.push_str(sub);
        let external: Vec<&str> = self.shared.iter().map(String::as_str).filter(|n| *n != name).collect();
        if !external.is_empty() {
            url.push_str("?external=");
            url.push_str(&external.join(","));
        }
        Ok(url)
    }

    /// What to show for a package URL in a console line or a stack: the
    /// path after the CDN (`react-dom@18.3.1/client`), without the query.
    pub fn display(&self, url: &str) -> String {
        let rest = url.strip_prefix(&self.cdn).map(|r| r.trim_start_matches('/')).unwrap_or(url);
        rest.split('?').next().unwrap_or(rest).to_owned()
    }
}

/// The version to put in the URL for a `package.json` range: an exact or
/// caret/tilde version is pinned to the version written (`^18.2.0` →
/// `18.2.0`, a version the range allows, and the same URL on every run, so
/// the package cache serves it offline); `18.x` → `18`; `*`, `latest`, an
/// empty string, a git or file source → none (the CDN's newest); any other
/// range is passed on, percent-encoded, for the CDN to resolve.
pub fn pinned(range: &str) -> Option<String> {
    let range = range.trim();
    if range.is_empty() || range == "*" || range == "latest" || range.contains(':') || range.contains('/') {
        return None;
    }
    let bare = range.trim_start_matches(['^', '~', '=', 'v']).trim();
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')) && s.starts_with(|c: char| c.is_ascii_digit());
    if plain(bare) {
        let x_range = bare.split('.').position(|p| p == "x" || p == "X" || p == "*");
        return Some(match x_range {
            Some(i) => bare.split('.').take(i).collect::<Vec<_>>().join("."),
            None => bare.to_owned(),
        })
        .filter(|v| !v.is_empty());
    }
    let mut encoded = String::new();
    for byte in range.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_' | b'~') {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    Some(encoded)
}

/// The URL a module at `base` means by `spec` (a CDN module's own import:
/// `/react@18.3.1/es2022/react.mjs`, `./chunk.js` or a full URL); `None`
/// for a bare specifier (the resolver's) or anything else.
pub fn join_url(base: &str, spec: &str) -> Option<String> {
    if spec.starts_with("https://") || spec.starts_with("http://") {
        return Some(spec.to_owned());
    }
    let scheme_end = base.find("://")? + 3;
    let origin_end = base[scheme_end..].find('/').map_or(base.len(), |i| scheme_end + i);
    let origin = &base[..origin_end];
    if let Some(path) = spec.strip_prefix('/') {
        return (!path.starts_with('/')).then(|| format!("{origin}/{path}"));
    }
    if !(spec.starts_with("./") || spec.starts_with("../")) {
        return None;
    }
    let path = base[origin_end..].split(['?', '#']).next().unwrap_or_default();
    let mut parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    parts.pop();
    let (spec_path, query) = spec.split_once('?').map_or((spec, None), |(p, q)| (p, Some(q)));
    for segment in spec_path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let mut url = format!("{origin}/{}", parts.join("/"));
    if let Some(q) = query {
        url.push('?');
        url.push_str(q);
    }
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(package_json: Option<&str>) -> Resolver {
        let manifest = package_json.map(Manifest::parse).unwrap_or_default();
        Resolver::new("https://esm.sh/", manifest, ["chart.js".to_owned(), "react".to_owned()])
    }

    const VITE_REACT: &str = r#"{"name":"app","private":true,"type":"module",
        "dependencies":{"react":"^18.3.1","react-dom":"18.3.1","chart.js":"~4.4.1","@tanstack/react-query":"5.x","preact-compat":"npm:@preact/compat@17.1.2"},
        "devDependencies":{"typescript":"^5.4.0","react":"19.0.0","vite":"latest"}}"#;

    #[test]
    fn bare_specifiers_get_the_package_json_versions_and_keep_the_others_external() {
        let r = resolver(Some(VITE_REACT));
        let ext = |except: &str| {
            let names = ["@tanstack/react-query", "chart.js", "preact-compat", "react", "react-dom", "typescript", "vite"];
            names.iter().filter(|n| **n != except).copied().collect::<Vec<_>>().join(",")
        };
        assert_eq!(r.resolve("react"), Ok(format!("https://esm.sh/react@18.3.1?external={}", ext("react"))), "dependencies win over devDependencies");
        assert_eq!(r.resolve("react-dom/client"), Ok(format!("https://esm.sh/react-dom@18.3.1/client?external={}", ext("react-dom"))));
        assert_eq!(r.resolve("react/jsx-runtime"), Ok(format!("https://esm.sh/react@18.3.1/jsx-runtime?external={}", ext("react"))));
        assert_eq!(r.resolve("chart.js/auto"), Ok(format!("https://esm.sh/chart.js@4.4.1/auto?external={}", ext("chart.js"))));
        assert_eq!(r.resolve("@tanstack/react-query"), Ok(format!("https://esm.sh/@tanstack/react-query@5?external={}", ext("@tanstack/react-query"))));
        assert_eq!(r.resolve("vite/client"), Ok(format!("https://esm.sh/vite/client?external={}", ext("vite"))), "latest: no version");
        // An alias names another package; the alias itself stays external for the others.
        assert_eq!(r.resolve("preact-compat"), Ok(format!("https://esm.sh/@preact/compat@17.1.2?external={}", ext("@preact/compat"))));
    }

    #[test]
    fn one_shared_copy_every_importer_gets_the_same_url() {
        // The app's `react` and react-dom's own bare `react` (left external by
        // the CDN) resolve through the same resolver: one URL, one module.
        let r = resolver(Some(VITE_REACT));
        let from_app = r.resolve("react").unwrap();
        let from_react_dom = r.resolve("react").unwrap();
        assert_eq!(from_app, from_react_dom);
        assert!(r.resolve("react-dom").unwrap().contains("external=") && r.resolve("react-dom").unwrap().contains(",react,"));
    }

    #[test]
    fn a_package_not_in_package_json_gets_the_newest_and_without_package_json_the_imports_are_shared() {
        let r = resolver(Some(r#"{"dependencies":{"react":"18.3.1"}}"#));
        assert_eq!(r.resolve("lodash-es"), Ok("https://esm.sh/lodash-es?external=react".into()));
        let r = resolver(None);
        assert_eq!(r.resolve("react"), Ok("https://esm.sh/react?external=chart.js".into()));
        assert_eq!(r.resolve("chart.js"), Ok("https://esm.sh/chart.js?external=react".into()));
        let alone = Resolver::new("http://127.0.0.1:9/", Manifest::default(), Vec::new());
        assert_eq!(alone.resolve("htm/preact"), Ok("http://127.0.0.1:9/htm/preact".into()));
    }

    #[test]
    fn node_built_ins_and_node_only_packages_are_refused_in_words() {
        let r = resolver(Some(VITE_REACT));
        assert_eq!(r.resolve("node:fs"), Err(Refusal::NodeBuiltin("node:fs".into())));
        assert_eq!(r.resolve("node:path"), Err(Refusal::NodeBuiltin("node:path".into())));
        assert_eq!(r.resolve("fs/promises"), Err(Refusal::NodeBuiltin("fs/promises".into())));
        assert_eq!(r.resolve("child_process"), Err(Refusal::NodeBuiltin("child_process".into())));
        assert_eq!(r.resolve("express"), Err(Refusal::NodeOnly("express".into())));
        assert_eq!(r.resolve("better-sqlite3"), Err(Refusal::NodeOnly("better-sqlite3".into())));
        assert_eq!(r.resolve("Not A Name"), Err(Refusal::NotAPackage("Not A Name".into())));
        assert_eq!(r.resolve("@scope"), Err(Refusal::NotAPackage("@scope".into())));
        let text = Refusal::NodeBuiltin("node:fs".into()).text("src/db.ts");
        assert!(text.starts_with("src/db.ts imports \"node:fs\", a Node.js built-in module") && text.contains("Use browser APIs"), "{text}");
        assert!(Refusal::NodeOnly("express".into()).text("server.js").contains("runs only in Node.js"));
    }

    #[test]
    fn specifiers_split_into_name_and_subpath() {
        assert_eq!(split_specifier("react"), Some(("react", "")));
        assert_eq!(split_specifier("react-dom/client"), Some(("react-dom", "/client")));
        assert_eq!(split_specifier("@tanstack/react-query"), Some(("@tanstack/react-query", "")));
        assert_eq!(split_specifier("@vue/runtime-dom/dist/x.js"), Some(("@vue/runtime-dom", "/dist/x.js")));
        assert_eq!(split_specifier("@scope"), None);
        assert_eq!(split_specifier(".hidden"), None);
        assert!(Resolver::is_bare("react") && Resolver::is_bare("node:fs"));
        assert!(!Resolver::is_bare("./a") && !Resolver::is_bare("/src/a.ts") && !Resolver::is_bare("https://x/y") && !Resolver::is_bare("data:text/javascript,1"));
    }

    #[test]
    fn ranges_pin_to_the_version_written() {
        for (range, want) in [
            ("^18.3.1", Some("18.3.1")),
            ("~4.4.1", Some("4.4.1")),
            ("=1.0.0-beta.2", Some("1.0.0-beta.2")),
            ("v2", Some("2")),
            ("18.x", Some("18")),
            ("*", None),
            ("latest", None),
            ("", None),
            ("github:user/repo", None),
            ("file:../lib", None),
            (">=1.2.0 <2", Some("%3E%3D1.2.0%20%3C2")),
        ] {
            assert_eq!(pinned(range).as_deref(), want, "{range}");
        }
    }

    #[test]
    fn a_cdn_module_s_own_imports_join_its_url() {
        let base = "https://esm.sh/react-dom@18.3.1/client?external=react";
        assert_eq!(join_url(base, "/react-dom@18.3.1/es2022/client.mjs").as_deref(), Some("https://esm.sh/react-dom@18.3.1/es2022/client.mjs"));
        assert_eq!(join_url("https://esm.sh/a@1/es2022/x/y.mjs", "../z.mjs?v=1").as_deref(), Some("https://esm.sh/a@1/es2022/z.mjs?v=1"));
        assert_eq!(join_url("https://esm.sh/a@1/es2022/y.mjs", "./w.mjs").as_deref(), Some("https://esm.sh/a@1/es2022/w.mjs"));
        assert_eq!(join_url(base, "https://cdn.example/x.js").as_deref(), Some("https://cdn.example/x.js"));
        assert_eq!(join_url(base, "react"), None);
        assert_eq!(join_url(base, "//evil/x"), None);
        assert_eq!(resolver(None).display(base.replace("esm.sh/", "esm.sh/").as_str()), "react-dom@18.3.1/client");
    }
}
