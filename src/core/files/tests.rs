//! Tests for the project files: path normalization, versions, delete and
//! rename, listing, the error texts, serde, and the `Editor.*` commands
//! run through a command registry.
//!
//! `check` runs a one-line script of operations on fresh files and
//! compares the outputs, one per operation, `|`-separated.

use expect_test::expect;
use futures::executor::block_on;
use serde_json::json;

use super::{normalize_path, register_editor_commands, ProjectFiles};
use crate::core::commands::{Command, Registry};

#[test]
fn paths_are_normalized() {
    let check = |raw: &str, expect: &str| {
        let got = normalize_path(raw).unwrap_or_else(|e| format!("error: {e}"));
        assert_eq!(got, expect, "path: {raw:?}");
    };
    check("docs/prd.md", "docs/prd.md");
    check("./a", "a");
    check("a//b", "a/b");
    check("/abs", "abs");
    check("/docs/prd.md/", "docs/prd.md");
    check("a\\b\\c.py", "a/b/c.py");
    check("  src / main.rs ", "src/main.rs");
    check("a/./b/../c", "a/c");
    check("a/..", "error: invalid path 'a/..': it names no file; give a path such as docs/prd.md");
    check("../x", "error: invalid path '../x': '..' climbs above the project root; paths are relative to the project");
    check(
        "a/../../x",
        "error: invalid path 'a/../../x': '..' climbs above the project root; paths are relative to the project",
    );
    check("", "error: invalid path '': it names no file; give a path such as docs/prd.md");
    check("/", "error: invalid path '/': it names no file; give a path such as docs/prd.md");
    check(".", "error: invalid path '.': it names no file; give a path such as docs/prd.md");
    check("a\nb", "error: invalid path 'a\nb': it contains a control character such as a line break");
    check("Docs/PRD.md", "Docs/PRD.md");
    check("数据/说明.md", "数据/说明.md");
}

/// Script operations, `;`-separated: `w PATH TEXT`, `a PATH TEXT`, `r PATH`,
/// `v PATH` (version), `rv PATH N`, `h PATH` (history), `d PATH`,
/// `m FROM TO`, `l [DIR]`, `e PATH` (exists). TEXT is the rest of the
/// operation, with `\n` for a line break.
fn run(script: &str) -> String {
    let mut files = ProjectFiles::default();
    let mut outputs = Vec::new();
    for op in script.split(';').map(str::trim).filter(|op| !op.is_empty()) {
        let before = files.clone();
        let mut words = op.splitn(3, ' ');
        let verb = words.next().unwrap_or_default();
        let path = words.next().unwrap_or_default();
        let rest = words.next().unwrap_or_default().replace("\\n", "\n");
        let result = match verb {
            "w" => files.write(path, rest).map(|v| format!("v{v}")),
            "a" => files.append(path, &rest).map(|v| format!("v{v}")),
            "r" => files.read(path).map(|c| format!("{c:?}")),
            "v" => files.version(path).map(|v| format!("v{v}")),
            "rv" => files.read_version(path, rest.parse().unwrap_or(0)).map(|c| format!("{c:?}")),
            "h" => files.history(path).map(|h| format!("{h:?}")),
            "d" => files.delete(path).map(|()| "deleted".to_owned()),
            "m" => files.rename(path, &rest).map(|()| "moved".to_owned()),
            "l" => files.list(Some(path)).map(|l| format!("{l:?}")),
            "e" => Ok(files.exists(path).to_string()),
            other => panic!("unknown op {other}"),
        };
        outputs.push(match result {
            Ok(out) => out,
            Err(e) => {
                assert_eq!(files, before, "a refused `{op}` changed the files");
                format!("error: {e}")
            }
        });
    }
    outputs.join(" | ")
}

fn check(script: &str, expect: &str) {
    assert_eq!(run(script), expect, "script: {script}");
}

#[test]
fn versions_count_every_write() {
    check("w a.md one; w /a.md two; w ./a.md two; v a.md; r a.md", "v1 | v2 | v3 | v3 | \"two\"");
    check("w a.md one; w a.md two; rv a.md 1; rv a.md 2; rv a.md 3; rv a.md 0", "v1 | v2 | \"one\" | \"two\" | error: a.md has no version 3; its versions are 1 to 2 | error: a.md has no version 0; its versions are 1 to 2");
    check("w a.md one; w a.md two; h a.md", "v1 | v2 | [\"one\", \"two\"]");
    check("w a.md x; a a.md y; a a.md z\\n; a a.md w; r a.md", "v1 | v2 | v3 | v4 | \"x\\ny\\nz\\nw\"");
    check("w e.md ; a e.md y; r e.md", "v1 | v2 | \"y\"");
    check("a nope.md y", "error: no file nope.md; the project has no files yet");
}

#[test]
fn delete_and_rename() {
    check(
        "w a.md x; d a.md; e a.md; r a.md",
        "v1 | deleted | false | error: no file a.md; the project has no files yet",
    );
    check("w a.md x; d a.md; w a.md y; v a.md", "v1 | deleted | v1 | v1");
    check("w a.md x; w a.md y; m a.md docs/b.md; h docs/b.md; e a.md", "v1 | v2 | moved | [\"x\", \"y\"] | false");
    check(
        "w a.md x; w b.md y; m a.md b.md",
        "v1 | v1 | error: a file b.md already exists; delete it first or choose another name",
    );
    check("w a.md x; m a.md ./a.md; r a.md", "v1 | moved | \"x\"");
    check("w a x; m a a/b; r a/b", "v1 | moved | \"x\"");
    check("w a x; w c/d y; m a c/d/e", "v1 | v1 | error: cannot create c/d/e: c/d is a file, not a directory");
    check("m x.md y.md", "error: no file x.md; the project has no files yet");
    check(
        "w a.md x; m a.md ../b.md",
        "v1 | error: invalid path '../b.md': '..' climbs above the project root; paths are relative to the project",
    );
}

#[test]
fn a_path_is_a_file_or_a_directory_never_both() {
    check("w docs x; w docs/prd.md y", "v1 | error: cannot create docs/prd.md: docs is a file, not a directory");
    check(
        "w docs/prd.md y; w docs x",
        "v1 | error: docs is a directory (it holds docs/prd.md); give the path of a file",
    );
    check("w docs/prd.md y; r docs", "v1 | error: docs is a directory (it holds docs/prd.md); give the path of a file");
    check(
        "w docs-x y; w docs/a z; w docs x",
        "v1 | v1 | error: docs is a directory (it holds docs/a); give the path of a file",
    );
}

#[test]
fn listing() {
    check(
        "w src/main.rs a; w docs/prd.md b; w docs/design/api.md c; w docs.md d; w README.md e; l; l docs; l /docs/; l docs/design; l src/main.rs; l nowhere; l ../x",
        "v1 | v1 | v1 | v1 | v1 | [\"README.md\", \"docs.md\", \"docs/design/api.md\", \"docs/prd.md\", \"src/main.rs\"] | \
         [\"docs/design/api.md\", \"docs/prd.md\"] | [\"docs/design/api.md\", \"docs/prd.md\"] | [\"docs/design/api.md\"] | [] | [] | \
         error: invalid path '../x': '..' climbs above the project root; paths are relative to the project",
    );
}

#[test]
fn not_found_lists_what_exists_and_suggests() {
    check(
        "w docs/prd.md x; w docs/design.md y; r docs/PRD.md; r docs/prd.txt; r src/app.py",
        "v1 | v1 | error: no file docs/PRD.md; did you mean docs/prd.md? existing files: docs/design.md, docs/prd.md | \
         error: no file docs/prd.txt; did you mean docs/prd.md? existing files: docs/design.md, docs/prd.md | \
         error: no file src/app.py; existing files: docs/design.md, docs/prd.md",
    );
    let mut files = ProjectFiles::default();
    for i in 0..25 {
        files.write(&format!("f{i:02}.txt"), "x").map(drop).unwrap_or_else(|e| panic!("{e}"));
    }
    let error = files.read("zzz/none.md").map(drop).map_err(|e| e.to_string());
    assert_eq!(
        error,
        Err("no file zzz/none.md; existing files: f00.txt, f01.txt, f02.txt, f03.txt, f04.txt, f05.txt, f06.txt, \
             f07.txt, f08.txt, f09.txt, f10.txt, f11.txt, f12.txt, f13.txt, f14.txt, f15.txt, f16.txt, f17.txt, \
             f18.txt, f19.txt and 5 more"
            .to_owned())
    );
}

#[test]
fn serde_round_trip_and_checked_load() {
    let mut files = ProjectFiles::default();
    for (path, content) in [("docs/prd.md", "one"), ("docs/prd.md", "two"), ("src/main.rs", "fn main() {}")] {
        files.write(path, content).map(drop).unwrap_or_else(|e| panic!("{e}"));
    }
    let text = serde_json::to_string(&files).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text, r#"{"files":{"docs/prd.md":["one","two"],"src/main.rs":["fn main() {}"]}}"#);
    let back: ProjectFiles = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, files);

    let load = |text: &str| serde_json::from_str::<ProjectFiles>(text).map(|f| f.len()).map_err(|e| e.to_string());
    assert_eq!(load(r#"{"files":{}}"#), Ok(0));
    assert_eq!(load(r#"{"files":{"/a":["x"]}}"#), Err("invalid path '/a': it is not in normalized form".to_owned()));
    assert_eq!(load(r#"{"files":{"../a":["x"]}}"#).map_err(|e| e.contains("climbs above")), Err(true));
    assert_eq!(load(r#"{"files":{"a":[]}}"#), Err("a has no content versions".to_owned()));
    assert_eq!(
        load(r#"{"files":{"a":["x"],"a/b":["y"]}}"#),
        Err("cannot create a/b: a is a file, not a directory".to_owned())
    );
}

fn editor() -> Registry<ProjectFiles> {
    let mut registry = Registry::default();
    register_editor_commands(&mut registry);
    registry
}

/// Runs the commands (name, args) one list at a time on the same files;
/// the report texts, `---`-separated.
fn run_editor(lists: &[&[(&str, serde_json::Value)]]) -> String {
    let registry = editor();
    let mut files = ProjectFiles::default();
    let texts: Vec<String> = lists
        .iter()
        .map(|list| {
            let commands = list.iter().map(|(name, args)| Command::new(*name, args.clone())).collect();
            block_on(registry.run_commands(&mut files, commands)).text()
        })
        .collect();
    texts.join("\n---\n")
}

#[test]
fn editor_commands_through_the_registry() {
    let got = run_editor(&[
        &[
            ("Editor.write", json!({"path": "/docs/prd.md", "content": "# PRD\n\nGoals"})),
            ("Editor.append", json!({"path": "docs/prd.md", "content": "- fast"})),
            ("Editor.write", json!({"path": "src/main.py", "content": "print(1)\n"})),
            ("Editor.read", json!({"path": "docs/prd.md"})),
            ("Editor.list", json!({})),
            ("Editor.list", json!({"dir": "src"})),
            ("Editor.list", json!({"dir": "tests"})),
        ],
        &[
            ("Editor.rename", json!({"path": "src/main.py", "new_path": "src/app.py"})),
            ("Editor.delete", json!({"path": "docs/prd.md"})),
            ("Editor.read", json!({"path": "docs/prd.md"})),
            ("Editor.list", json!({})),
        ],
        &[("Editor.write", json!({"path": "../etc/passwd", "content": "x"}))],
        &[
            ("Editor.write", json!({"path": "empty.txt", "content": ""})),
            ("Editor.read", json!({"path": "empty.txt"})),
            ("Editor.delete", json!({"path": "empty.txt"})),
            ("Editor.delete", json!({"path": "src/app.py"})),
            ("Editor.list", json!({"dir": "/"})),
            ("Editor.write", json!({"path": "a.md"})),
        ],
    ]);
    expect![[r#"
        Command Editor.write executed: wrote docs/prd.md (3 lines, version 1)

        Command Editor.append executed: appended to docs/prd.md (4 lines, version 2)

        Command Editor.write executed: wrote src/main.py (1 line, version 1)

        Command Editor.read executed: [File: docs/prd.md (4 lines total, version 2)]
        001|# PRD
        002|
        003|Goals
        004|- fast

        Command Editor.list executed: docs/prd.md
        src/main.py

        Command Editor.list executed: src/main.py

        Command Editor.list executed: no files under tests; existing files: docs/prd.md, src/main.py
        ---
        Command Editor.rename executed: renamed src/main.py to src/app.py

        Command Editor.delete executed: deleted docs/prd.md

        Command Editor.read failed: no file docs/prd.md; existing files: src/app.py

        Not run because Editor.read failed: Editor.list. Fix the failure, then send them again if they are still needed.
        ---
        Command Editor.write failed: invalid path '../etc/passwd': '..' climbs above the project root; paths are relative to the project
        ---
        Command Editor.write executed: wrote empty.txt (0 lines, version 1)

        Command Editor.read executed: [File: empty.txt (0 lines total, version 1)]
        (empty file)

        Command Editor.delete executed: deleted empty.txt

        Command Editor.delete executed: deleted src/app.py

        Command Editor.list executed: the project has no files yet

        Command Editor.write failed: Missing argument 'content'. Use Editor.write(path: str, content: str)."#]]
    .assert_eq(&got);
}

#[test]
fn editor_prompt() {
    expect![[r#"
        1. Editor.write(path: str, content: str):
        Write the whole content of a file, creating it (and its directories) or replacing what it held. Paths are relative to the project root, such as docs/prd.md.

        2. Editor.replace(path: str, old: str, new: str):
        Change part of an existing file: replace the text `old` (copied exactly from the file, with enough lines around the change to occur only once) by `new`. Use it for a local change instead of writing the whole file again.

        3. Editor.append(path: str, content: str):
        Add content at the end of an existing file, on a new line.

        4. Editor.read(path: str):
        Read a file; each line is shown with its number, as 001|text.

        5. Editor.list(dir: str = ''):
        List the project's files, all of them or those under a directory.

        6. Editor.delete(path: str):
        Delete a file and its history.

        7. Editor.rename(path: str, new_path: str):
        Move a file to a new path that is not taken; its history moves with it.
    "#]]
    .assert_eq(&editor().prepare_command_prompt());
}

#[test]
fn replace_changes_one_unique_snippet_or_nothing() {
    let mut files = ProjectFiles::default();
    files.write("a.css", "h1 { color: black; }\np { color: black; }\n").unwrap();
    assert_eq!(files.replace("a.css", "h1 { color: black; }", "h1 { color: red; }").unwrap(), 2);
    assert_eq!(files.read("a.css").unwrap(), "h1 { color: red; }\np { color: black; }\n");
    let twice = files.replace("a.css", "color", "colour").unwrap_err();
    assert_eq!(twice.to_string(), "a.css contains that text 2 times: copy `old` exactly from the file (read it first), with enough surrounding lines to be unique");
    let none = files.replace("a.css", "h2", "h3").unwrap_err();
    assert_eq!(none.to_string(), "a.css does not contain that text: copy `old` exactly from the file (read it first), with enough surrounding lines to be unique");
    assert!(files.replace("a.css", "", "x").is_err(), "an empty snippet matches nowhere in particular");
    assert!(files.replace("b.css", "x", "y").is_err(), "no such file");
    assert_eq!(files.version("a.css").unwrap(), 2, "a refused replace writes nothing");
}
