//! Python projects in the sandbox, the decisions only: which files are
//! Python tests (`test_*.py`, `*_test.py`, `.py` files under `tests/`),
//! which file is the program's entry, and what a `requirements.txt` asks
//! for that the tab cannot give, in words.
//!
//! Deliberately not here: running Python. Pyodide runs in the sandbox
//! frame's worker (`web::sandbox`, `python_worker.js`, `python_runner.py`);
//! the site ships Python's standard library and no other package, so every
//! requirement but the test runner's own is refused by name.

use super::FileMap;

/// Packages a `requirements.txt` may list that need no installing: the
/// tab's test runner does what the project uses them for (plain `def
/// test_…` functions with `assert`, `unittest`).
const PROVIDED: &[&str] = &["pytest", "unittest2"];

/// Modules that need a display or a window system, which the tab's
/// Terminal does not have; the worker names them in its message.
pub const DISPLAY_MODULES: &[&str] = &["pygame", "tkinter", "turtle", "curses"];

/// A Python source file.
pub fn is_python(path: &str) -> bool {
    path.ends_with(".py")
}

/// A Python test file: `test_*.py`, `*_test.py`, or any module under a
/// `tests/` (or `test/`) folder but its `__init__.py` and `conftest.py`.
pub fn is_python_test(path: &str) -> bool {
    if !is_python(path) {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == "__init__.py" || name == "conftest.py" {
        return false;
    }
    let under_tests = path.split('/').rev().skip(1).any(|d| d == "tests" || d == "test");
    under_tests || name.starts_with("test_") || name.ends_with("_test.py")
}

/// The file a Python project's program starts from: `main.py` (the
/// shallowest), else `__main__.py`, `app.py`, `game.py`, `cli.py`, else the
/// one non-test module that has an `if __name__ == "__main__":` block.
pub fn python_entry(files: &FileMap) -> Option<&str> {
    let shallowest = |name: &str| {
        files
            .keys()
            .filter(|p| p.rsplit('/').next() == Some(name))
            .min_by_key(|p| (p.matches('/').count(), p.as_str()))
            .map(String::as_str)
    };
    if let Some(found) = ["main.py", "__main__.py", "app.py", "cli.py", "game.py"].iter().find_map(|n| shallowest(n)) {
        return Some(found);
    }
    let mut with_main = files
        .iter()
        .filter(|(p, text)| is_python(p) && !is_python_test(p) && text.contains("__name__") && text.contains("__main__"))
        .map(|(p, _)| p.as_str());
    let first = with_main.next()?;
    with_main.next().is_none().then_some(first)
}

/// Whether the project has Python to run (tests or a program).
pub fn has_python(files: &FileMap) -> bool {
    files.keys().any(|p| is_python(p))
}

/// What `requirements.txt` (at the root) lists that the tab cannot
/// install, one sentence per package, for the person and the engineer.
pub fn requirement_problems(files: &FileMap) -> Vec<String> {
    let Some(text) = files.get("requirements.txt") else { return Vec::new() };
    requirement_names(text)
        .into_iter()
        .filter(|name| !PROVIDED.contains(&name.as_str()))
        .map(|name| {
            format!(
                "the package {name} (requirements.txt) is not available here: Python runs in the browser tab with its standard library only, and installs nothing from PyPI"
            )
        })
        .collect()
}

/// The package names of a requirements file, lower-cased, `_` as `-`,
/// each once; comments, options (`-r`, `--index-url`) and URLs skipped.
pub fn requirement_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('-') || line.contains("://") {
            continue;
        }
        let end = line.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')).unwrap_or(line.len());
        let name = line[..end].to_ascii_lowercase().replace('_', "-");
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> FileMap {
        list.iter().map(|(p, c)| (p.to_string(), c.to_string())).collect()
    }

    #[test]
    fn which_python_files_are_tests() {
        for yes in ["test_game.py", "tests/test_game.py", "game_test.py", "tests/helpers.py", "src/tests/board.py", "test/x.py"] {
            assert!(is_python_test(yes), "{yes}");
        }
        for no in ["game.py", "main.py", "tests/__init__.py", "tests/conftest.py", "testing.py", "tests/test_game.js", "contest.py"] {
            assert!(!is_python_test(no), "{no}");
        }
    }

    #[test]
    fn the_entry_is_main_py_else_the_one_module_with_a_main_block() {
        assert_eq!(python_entry(&files(&[("game.py", ""), ("src/main.py", ""), ("main.py", "")])), Some("main.py"));
        assert_eq!(python_entry(&files(&[("board.py", ""), ("pkg/main.py", "")])), Some("pkg/main.py"));
        let runs = "def play():\n    pass\n\nif __name__ == \"__main__\":\n    play()\n";
        assert_eq!(python_entry(&files(&[("board.py", ""), ("snake.py", runs), ("tests/test_snake.py", runs)])), Some("snake.py"));
        assert_eq!(python_entry(&files(&[("a.py", runs), ("b.py", runs)])), None, "two candidates: none is guessed");
        assert_eq!(python_entry(&files(&[("index.html", ""), ("board.py", "x = 1")])), None);
    }

    #[test]
    fn requirements_name_what_cannot_be_installed() {
        let text = "# tools\npytest>=7\nnumpy==1.26.0  # arrays\nRich[jupyter] ; python_version > '3.8'\n-r dev.txt\nhttps://x.test/a.whl\nSome_Pkg\nnumpy\n";
        assert_eq!(requirement_names(text), ["pytest", "numpy", "rich", "some-pkg"]);
        let problems = requirement_problems(&files(&[("requirements.txt", text)]));
        assert_eq!(problems.len(), 3, "pytest needs no installing: {problems:?}");
        assert_eq!(
            problems[0],
            "the package numpy (requirements.txt) is not available here: Python runs in the browser tab with its standard library only, and installs nothing from PyPI"
        );
        assert!(requirement_problems(&files(&[("main.py", "")])).is_empty());
    }
}
