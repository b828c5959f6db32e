//! Code in and out of markdown: `extract_code` finds the code in a model's
//! answer, `fenced` wraps a file's code for a prompt.
//!
//! It reads fences only; it does not check that the code is valid in its
//! language, and it never repairs code.

/// The code of an answer: the content of its first fenced block (a ``` or
/// `~~~` fence, any info string), else the whole answer. A block the model never
/// closed (a cut-off answer) runs to the end. The result ends with one
/// newline, or is empty when there is no code at all.
pub fn extract_code(answer: &str) -> String {
    let lines: Vec<&str> = answer.lines().collect();
    let opening = lines.iter().enumerate().find_map(|(i, line)| fence_of(line).map(|fence| (i, fence)));
    let code = match opening {
        Some((start, (mark, len))) => {
            let body = &lines[start + 1..];
            let end = body.iter().position(|line| closes(line, mark, len)).unwrap_or(body.len());
            body[..end].join("\n")
        }
        None => answer.to_string(),
    };
    let code = code.trim_end();
    // Leading blank lines are noise; leading indentation is code.
    let code = code.trim_start_matches(['\n', '\r']);
    if code.trim().is_empty() {
        String::new()
    } else {
        format!("{code}\n")
    }
}

/// `code` in a fence tagged with the language of `path`, long enough that
/// no backtick run inside the code closes it.
pub fn fenced(path: &str, code: &str) -> String {
    let longest_run = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run.max(2) + 1);
    format!("{fence}{}\n{}\n{fence}", fence_language(path), code.trim_end())
}

/// The info string a fence for `path` gets: the language its extension
/// names, or the extension itself when it is not one we know.
pub fn fence_language(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return "";
    };
    match ext.to_ascii_lowercase().as_str() {
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "py" => "python",
        "rs" => "rust",
        "rb" => "ruby",
        "go" => "go",
        "htm" | "html" => "html",
        "css" => "css",
        "md" => "markdown",
        "json" => "json",
        "sh" => "bash",
        "yml" | "yaml" => "yaml",
        _ => ext,
    }
}

/// The fence character and length when `line` opens a fenced block.
fn fence_of(line: &str) -> Option<(char, usize)> {
    let line = line.trim_start();
    let mark = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|c| *c == mark).count();
    // A backtick fence's info string may not hold a backtick (CommonMark);
    // that keeps inline code such as ```x``` from opening a block.
    let info = &line[len..];
    (len >= 3 && !(mark == '`' && info.contains('`'))).then_some((mark, len))
}

/// Whether `line` closes a block opened by `len` `mark`s.
fn closes(line: &str, mark: char, len: usize) -> bool {
    let line = line.trim();
    line.len() >= len && line.chars().all(|c| c == mark)
}
