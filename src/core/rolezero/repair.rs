//! Local repairs for JSON a model almost got right.
//!
//! Each repair touches only spots that are never valid JSON, so applying it
//! to text that already parses changes nothing: trailing commas before a
//! closing bracket, backslashes that start no JSON escape (`\s` in a regex,
//! `C:\Users` in a path: doubled, so the text keeps the backslash), raw
//! control characters inside strings (multi-line code written verbatim),
//! and, as a separate last resort, Python literals (single quotes, `True`,
//! `False`, `None`). None of these guesses at missing quotes or brackets;
//! that is left to the model (`parse::repair_prompt`). A backslash before a
//! letter that does start an escape (`\n` in `C:\new`) cannot be told apart
//! from an intended newline and is left alone.

/// Which repairs changed the text, for the notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Repairs {
    pub trailing_commas: bool,
    pub escapes: bool,
    pub control_chars: bool,
    pub python: bool,
}

impl Repairs {
    pub(super) fn describe(self) -> Vec<&'static str> {
        let mut done = Vec::new();
        if self.python {
            done.push("converted Python quoting and literals to JSON");
        }
        if self.trailing_commas {
            done.push("removed trailing commas");
        }
        if self.escapes {
            done.push("doubled backslashes that started no JSON escape");
        }
        if self.control_chars {
            done.push("escaped raw line breaks or tabs inside strings");
        }
        done
    }
}

/// Trailing commas, bad escapes and control characters, in one pass.
pub(super) fn repair_json(text: &str, repairs: &mut Repairs) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_string = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            match c {
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\\' => match chars.get(i + 1) {
                    Some(&next) if is_escape(&chars, i + 1) => {
                        out.push(c);
                        out.push(next);
                        i += 1;
                    }
                    _ => {
                        repairs.escapes = true;
                        out.push_str("\\\\");
                    }
                },
                '\n' => push_control(&mut out, "\\n", repairs),
                '\r' => push_control(&mut out, "\\r", repairs),
                '\t' => push_control(&mut out, "\\t", repairs),
                c if (c as u32) < 0x20 => push_control(&mut out, &format!("\\u{:04x}", c as u32), repairs),
                _ => out.push(c),
            }
        } else {
            match c {
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                ',' if matches!(next_significant(&chars, i + 1), Some(']' | '}')) => repairs.trailing_commas = true,
                _ => out.push(c),
            }
        }
        i += 1;
    }
    out
}

/// Single-quoted strings become double-quoted ones and the bare words
/// `True`, `False`, `None` become `true`, `false`, `null`.
pub(super) fn python_to_json(text: &str, repairs: &mut Repairs) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' => {
                // Copy a double-quoted string as it is.
                out.push(c);
                i += 1;
                while i < chars.len() {
                    out.push(chars[i]);
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i + 1]);
                        i += 1;
                    } else if chars[i] == '"' {
                        break;
                    }
                    i += 1;
                }
            }
            '\'' => {
                repairs.python = true;
                out.push('"');
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    match chars[i] {
                        '\\' if chars.get(i + 1) == Some(&'\'') => {
                            out.push('\'');
                            i += 1;
                        }
                        '\\' if i + 1 < chars.len() => {
                            out.push('\\');
                            out.push(chars[i + 1]);
                            i += 1;
                        }
                        '"' => out.push_str("\\\""),
                        other => out.push(other),
                    }
                    i += 1;
                }
                out.push('"');
            }
            c if c.is_ascii_alphabetic() && !chars.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric()) => {
                let end =
                    chars[i..].iter().position(|c| !c.is_alphanumeric() && *c != '_').map_or(chars.len(), |n| i + n);
                let word: String = chars[i..end].iter().collect();
                let replaced = match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                };
                if replaced != word {
                    repairs.python = true;
                }
                out.push_str(replaced);
                i = end;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

fn push_control(out: &mut String, escaped: &str, repairs: &mut Repairs) {
    repairs.control_chars = true;
    out.push_str(escaped);
}

/// Whether the char at `at` (after a backslash) completes a JSON escape.
fn is_escape(chars: &[char], at: usize) -> bool {
    match chars.get(at) {
        Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => true,
        Some('u') => chars.len() > at + 4 && chars[at + 1..at + 5].iter().all(char::is_ascii_hexdigit),
        _ => false,
    }
}

fn next_significant(chars: &[char], from: usize) -> Option<char> {
    chars.get(from..)?.iter().copied().find(|c| !c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::{python_to_json, repair_json, Repairs};

    fn check(input: &str, expect: &str) {
        let mut repairs = Repairs::default();
        assert_eq!(repair_json(input, &mut repairs), expect, "input: {input}");
    }

    fn check_python(input: &str, expect: &str) {
        let mut repairs = Repairs::default();
        assert_eq!(python_to_json(input, &mut repairs), expect, "input: {input}");
    }

    #[test]
    fn repairs() {
        check(r#"[1, 2,]"#, r#"[1, 2]"#);
        check("{\"a\": 1,\n}", "{\"a\": 1\n}");
        check(r#"["a,]", "b",  ]"#, r#"["a,]", "b"  ]"#);
        check(r#"{"re": "\d+\s"}"#, r#"{"re": "\\d+\\s"}"#);
        check(r#"{"p": "C:\Users\me"}"#, r#"{"p": "C:\\Users\\me"}"#);
        check(r#"{"ok": "a\nb\"c\\d\u00e9\/"}"#, r#"{"ok": "a\nb\"c\\d\u00e9\/"}"#);
        check(r#"{"u": "\u12"}"#, r#"{"u": "\\u12"}"#);
        check("{\"code\": \"a\n\tb\r\"}", r#"{"code": "a\n\tb\r"}"#);
        check("\"\u{1}\"", r#""\u0001""#);
        check(r#"{"end": "\"#, r#"{"end": "\\"#);
        check(r#"{"a": [1, 2], "b": 3}"#, r#"{"a": [1, 2], "b": 3}"#);
    }

    #[test]
    fn python_literals() {
        check_python(r#"{'a': 'it\'s "x"', 'b': True}"#, r#"{"a": "it's \"x\"", "b": true}"#);
        check_python(r#"{"a": 'b', "c": None, "d": False}"#, r#"{"a": "b", "c": null, "d": false}"#);
        check_python(r#"{"keep": "it's True"}"#, r#"{"keep": "it's True"}"#);
        check_python(r#"{"Trueish": NoneX}"#, r#"{"Trueish": NoneX}"#);
    }
}
