//! `closest`: the known name a misspelt one most likely meant, for "did you
//! mean" hints in error texts.
//!
//! Only a hint: it never changes what runs (the registry does not execute a
//! guessed command). Matches, in order of preference: the same name in
//! another case; the same last segment after the separator (`.` for
//! commands: `append_task` for `Plan.append_task`; `/` for paths:
//! `app.py` for `src/app.py`); the smallest edit distance within
//! a quarter of the name's length (at least 2).

/// The candidate closest to `name`, if any is close enough; `separator`
/// splits names into segments (`.` for commands, `/` for paths).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
    separator: char,
) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    if let Some(same) = candidates.clone().into_iter().find(|c| c.to_ascii_lowercase() == lower) {
        return Some(same);
    }
    let last = |s: &str| s.rsplit(separator).next().unwrap_or(s).to_ascii_lowercase();
    let tail = last(&lower);
    if let Some(same_tail) = candidates.clone().into_iter().find(|c| last(c) == tail) {
        return Some(same_tail);
    }
    let limit = (name.chars().count() / 4).max(2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_ascii_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars, two rows.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    fn check(name: &str, expect: Option<&str>) {
        let known = ["Plan.append_task", "Plan.reset_task", "Editor.write", "end"];
        assert_eq!(closest(name, known.iter().copied(), '.'), expect, "name: {name}");
    }

    #[test]
    fn suggestions() {
        check("plan.APPEND_task", Some("Plan.append_task"));
        check("append_task", Some("Plan.append_task"));
        check("Planner.append_task", Some("Plan.append_task"));
        check("Plan.apend_task", Some("Plan.append_task"));
        check("Plan.reset_tsk", Some("Plan.reset_task"));
        check("Editor.wirte", Some("Editor.write"));
        check("ned", Some("end"));
        check("Browser.goto", None);
        check("", None);
    }

    #[test]
    fn path_suggestions() {
        let check = |name: &str, expect: Option<&str>| {
            let known = ["docs/prd.md", "src/app.py", "tests/test_app.py"];
            assert_eq!(closest(name, known.iter().copied(), '/'), expect, "name: {name}");
        };
        check("DOCS/PRD.md", Some("docs/prd.md"));
        check("app.py", Some("src/app.py"));
        check("lib/app.py", Some("src/app.py"));
        check("docs/prd.txt", Some("docs/prd.md"));
        check("src/main.py", None);
    }
}
