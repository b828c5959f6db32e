//! The printed table: scenario | figure | tabteam | MetaGPT 0.8.2 | ratio,
//! as a Markdown table whose columns line up in a terminal too.
//!
//! MetaGPT's figures are SCENARIOS.md's (medians on this kind of machine);
//! each scenario attaches its own. The ratio is MetaGPT's figure divided by
//! ours, so 100× means a hundred times less time or memory.

use super::{Figure, Unit};

/// MetaGPT 0.8.2's figure for a row.
#[derive(Debug, Clone)]
pub struct Reference {
    /// As SCENARIOS.md gives it.
    pub text: &'static str,
    /// In the row's unit, for the ratio; None when there is nothing to
    /// divide (an error, or a different amount of work).
    pub value: Option<f64>,
}

/// The table, a title line first.
pub fn render(title: &str, figures: &[Figure]) -> String {
    let header = ["scenario", "figure", "tabteam", "MetaGPT 0.8.2", "ratio"].map(String::from);
    let rows: Vec<[String; 5]> = figures
        .iter()
        .map(|f| {
            let (text, ratio) = match &f.metagpt {
                Some(r) => (r.text.to_string(), r.value.map_or_else(|| "—".to_string(), |v| ratio(v / f.value))),
                None => ("—".to_string(), "—".to_string()),
            };
            [f.scenario.to_string(), f.name.clone(), value(f.value, f.unit), text, ratio]
        })
        .collect();
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    // Text columns flush left, figures flush right.
    let line = |row: &[String; 5]| {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                let pad = " ".repeat(w - cell.chars().count());
                if i == 2 || i == 4 {
                    format!("{pad}{cell}")
                } else {
                    format!("{cell}{pad}")
                }
            })
            .collect();
        format!("| {} |", cells.join(" | "))
    };
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| if i == 2 || i == 4 { format!("{}:", "-".repeat(w - 1)) } else { "-".repeat(w) })
        .collect();
    let mut out = format!("{title}\n\n{}\n| {} |\n", line(&header), rule.join(" | "));
    for row in &rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// Three significant digits, at most, without exponent.
fn sig(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Ms if v >= 1000.0 => format!("{} s", sig(v / 1000.0)),
        Unit::Ms if v >= 1.0 => format!("{} ms", sig(v)),
        Unit::Ms if v >= 0.001 => format!("{} µs", sig(v * 1e3)),
        Unit::Ms => format!("{} ns", sig(v * 1e6)),
        Unit::Bytes if v >= 1e6 => format!("{} MB", sig(v / 1e6)),
        Unit::Bytes if v >= 1e3 => format!("{} KB", sig(v / 1e3)),
        Unit::Bytes => format!("{v:.0} B"),
        Unit::Count if v >= 100.0 => thousands(&format!("{v:.0}")),
        Unit::Count => sig(v),
    }
}

fn ratio(r: f64) -> String {
    if r >= 1e4 {
        format!("{}×", thousands(&format!("{r:.0}")))
    } else {
        format!("{}×", sig(r))
    }
}

/// Digits grouped by thousands: "1234567" → "1,234,567".
pub fn thousands(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
