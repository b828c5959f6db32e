//! Scanning model text that holds JSON: the characters that are *outside*
//! JSON string literals, so brackets, braces or fences inside strings are
//! not taken for structure. Used by every extractor that looks for a JSON
//! value in prose (ActionNode answers, RoleZero command lists).
//!
//! It does not parse JSON; it only skips string literals (with their
//! escapes). Quote characters themselves are not yielded.

/// `(byte offset, char)` of each character of `text` outside string
/// literals.
pub fn outside_strings(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    text.char_indices().filter(move |&(_, c)| {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            false
        } else if c == '"' {
            in_string = true;
            false
        } else {
            true
        }
    })
}

#[cfg(test)]
mod tests {
    use super::outside_strings;

    #[test]
    fn skips_string_literals_and_their_escapes() {
        let cases: &[(&str, &str)] = &[
            (r#"{"a": "[x]"}"#, "{: }"),
            (r#"["a\"]", 1]"#, "[, 1]"),
            (r#"{"p": "C:\\"} ok"#, "{: } ok"),
            (r#"x "unterminated ["#, "x "),
            ("no strings", "no strings"),
        ];
        for (text, want) in cases {
            let got: String = outside_strings(text).map(|(_, c)| c).collect();
            assert_eq!(got, *want, "{text}");
        }
    }

    #[test]
    fn offsets_are_byte_offsets_into_the_text() {
        let text = r#""é" [x]"#;
        let at: Vec<usize> = outside_strings(text).filter(|&(_, c)| c == '[').map(|(at, _)| at).collect();
        assert_eq!(at, [text.find('[').unwrap()]);
    }
}
