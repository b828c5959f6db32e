//! Okapi BM25 ranking of short texts against a query, and the tokenizer it
//! uses.
//!
//! Tokens are lowercase runs of letters and digits; CJK characters (Han,
//! kana, Hangul) are single-character tokens, since those scripts do not
//! separate words with spaces. No stemming and no stop words: the inverse
//! document frequency already makes common words count for little. The
//! IDF is the non-negative form ln(1 + (N - n + 0.5) / (n + 0.5)), so a
//! word found in every text still counts a little and never negatively.

use std::collections::{HashMap, HashSet};

use litemap::LiteMap;

/// Term-frequency saturation.
pub(super) const K1: f64 = 1.5;
/// Length normalization.
pub(super) const B: f64 = 0.75;

/// The BM25 score of each document for the query, in document order.
pub(super) fn scores<'a>(query: &str, documents: impl IntoIterator<Item = &'a str>) -> Vec<f64> {
    let documents: Vec<Vec<String>> = documents.into_iter().map(tokens).collect();
    if documents.is_empty() {
        return Vec::new();
    }
    let count = documents.len() as f64;
    let average_length = documents.iter().map(Vec::len).sum::<usize>() as f64 / count;
    let query: HashSet<String> = tokens(query).into_iter().collect();

    let mut containing: HashMap<&str, usize> = HashMap::new();
    for document in &documents {
        let unique: HashSet<&str> = document.iter().map(String::as_str).collect();
        for term in unique.into_iter().filter(|t| query.contains(*t)) {
            *containing.entry(term).or_default() += 1;
        }
    }

    documents
        .iter()
        .map(|document| {
            // Ordered: the float sum below must add its terms in the same
            // order every time, or equal documents score a last bit apart
            // and the tie rule (the most recent wins) picks at random.
            let mut frequency: LiteMap<&str, usize> = LiteMap::new();
            for term in document.iter().filter(|t| query.contains(*t)) {
                *frequency.entry(term.as_str()).or_default() += 1;
            }
            let length_ratio = if average_length > 0.0 { document.len() as f64 / average_length } else { 0.0 };
            frequency
                .iter()
                .map(|(term, &f)| {
                    let n = containing.get(term).copied().unwrap_or_default() as f64;
                    let idf = (1.0 + (count - n + 0.5) / (n + 0.5)).ln();
                    let f = f as f64;
                    idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * length_ratio))
                })
                .sum()
        })
        .collect()
}

/// Lowercase word tokens; each CJK character is a token of its own.
/// Case is folded by `fold`, not `char::to_lowercase`: Unicode's full case
/// table costs the widget ~7.8 KB of gzipped wasm.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_cjk(c) {
            flush(&mut word, &mut out);
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            word.push(fold(c));
        } else {
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Lowercase for the scripts people mostly write requests in: ASCII,
/// Latin-1, Latin Extended-A, Greek and Cyrillic. Other letters stay as they
/// are (a rare capital elsewhere then counts as a word of its own).
fn fold(c: char) -> char {
    let lower = match c {
        'A'..='Z' | 'À'..='Ö' | 'Ø'..='Þ' | 'Α'..='Ρ' | 'Σ'..='Ω' | 'А'..='Я' => c as u32 + 32,
        'Ѐ'..='Џ' => c as u32 + 80,
        // Latin Extended-A pairs its letters capital, small (İ, ı, ĸ and ŉ
        // aside): even capitals up to U+0137, odd ones from U+0139 to
        // U+0148, even ones again from U+014A to U+0177, odd ones from
        // U+0179 (Ź Ż Ž).
        '\u{100}'..='\u{137}' | '\u{14A}'..='\u{177}' if c as u32 % 2 == 0 && c != 'İ' => c as u32 + 1,
        '\u{139}'..='\u{148}' | '\u{179}'..='\u{17E}' if c as u32 % 2 == 1 => c as u32 + 1,
        _ => c as u32,
    };
    char::from_u32(lower).unwrap_or(c)
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(std::mem::take(word));
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK Extension A
        | 0x4E00..=0x9FFF   // CJK Unified Ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // CJK Extensions B.. and supplements
    )
}
