//! The company's prompt templates, one markdown file each under `prompts/`
//! (our own words; the `refine_*` ones carry MetaGPT's incremental prompts'
//! content: legacy content against new requirements), and `render`, which fills their `{{name}}` slots.
//!
//! The structured actions' templates are the *context* of an `ActionNode`
//! prompt (the node adds the format, the fields and the rules); the code and
//! test templates are the whole user prompt. No template logic beyond
//! substitution: a template that needs a condition gets its text from code.

/// The context of the PRD: `{{requirement}}`.
pub(crate) const WRITE_PRD: &str = include_str!("prompts/write_prd.md");
/// The context of the design: `{{prd}}`.
pub(crate) const WRITE_DESIGN: &str = concat!(include_str!("prompts/write_design.md"), include_str!("../sandbox/what_runs.md"));
/// The context of the task list: `{{design}}`.
pub(crate) const WRITE_TASKS: &str = include_str!("prompts/write_tasks.md");
/// One file of code: `{{design}}`, `{{tasks}}`, `{{code_so_far}}`, `{{path}}`, `{{language}}`.
pub(crate) const WRITE_CODE: &str = concat!(include_str!("prompts/write_code.md"), include_str!("../sandbox/what_runs.md"));
/// The refined PRD's context (incremental development): `{{legacy}}`, `{{requirement}}`.
pub(crate) const REFINE_PRD: &str = include_str!("prompts/refine_prd.md");
/// The refined design's context: `{{legacy}}`, `{{prd}}`. Without the
/// paragraph on what runs in the tab: the legacy design already chose
/// what runs, and the engineer, who writes the code and package.json,
/// reads it (issue #33: a follow-up sends what it needs).
pub(crate) const REFINE_DESIGN: &str = include_str!("prompts/refine_design.md");
/// The refined task list's context: `{{legacy}}`, `{{design}}`.
pub(crate) const REFINE_TASKS: &str = include_str!("prompts/refine_tasks.md");
/// One file rewritten for a change: `{{design}}`, `{{tasks}}`, `{{legacy_code}}`,
/// `{{path}}`, `{{change}}`, `{{current}}`, `{{language}}`.
pub(crate) const REFINE_CODE: &str = concat!(include_str!("prompts/refine_code.md"), include_str!("../sandbox/what_runs.md"));
/// One test file: `{{design}}`, `{{path}}`, `{{code}}`, `{{test_path}}`, `{{language}}`, `{{files}}`.
pub(crate) const WRITE_TEST: &str = concat!(include_str!("prompts/write_test.md"), include_str!("../sandbox/what_runs.md"));

/// `template` with every `{{name}}` replaced by its value, in one pass: a
/// value that itself contains `{{...}}` (code often does) is left as it is.
/// A slot with no value stays verbatim, so a typo shows in the prompt.
pub(crate) fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let value = after
            .find("}}")
            .and_then(|close| values.iter().find(|(name, _)| *name == after[..close].trim()).map(|(_, v)| (close, *v)));
        match value {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
