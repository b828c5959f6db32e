//! The Docs tab: the project's markdown documents (the PRD, the system
//! design with its diagrams, the task list, any other `.md` file), one at
//! a time, rendered by `artifacts::Markdown`. It reads the files the Code
//! tab lists; it edits nothing.

use leptos::prelude::*;

use super::artifacts::Markdown;
use super::Shared;

/// A document's name in the tab strip: the known ones by what they are.
fn doc_label(path: &str) -> String {
    match path.rsplit('/').next().unwrap_or(path) {
        "prd.md" => "PRD".into(),
        "system_design.md" => "Design".into(),
        "tasks.md" => "Tasks".into(),
        name => name.trim_end_matches(".md").to_string(),
    }
}

#[component]
pub fn DocsPane() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let docs = move || shared.files.with(|f| f.iter().filter(|(p, _)| p.ends_with(".md")).cloned().collect::<Vec<_>>());
    let chosen = RwSignal::new(None::<String>);
    // The chosen document, or the first one once there is one.
    let shown = move || {
        let list = docs();
        let pick = chosen.get().filter(|c| list.iter().any(|(p, _)| p == c));
        pick.or_else(|| list.first().map(|(p, _)| p.clone())).and_then(|path| {
            let version = list.iter().find(|(p, _)| *p == path).map(|(_, v)| *v);
            let text = shared.read_file(&path)?;
            Some((path, version, text))
        })
    };
    view! {
        <section class="pane docs" aria-label="Docs" data-testid="docs">
            <Show when=move || !docs().is_empty() fallback=|| view! {
                <p class="note empty">"No documents yet. The product manager's PRD, the architect's design and the task list appear here as they are written."</p>
            }>
                <div class="doc-list">
                    {move || docs().into_iter().map(|(path, _)| {
                        let p = path.clone();
                        let current = {
                            let path = path.clone();
                            move || shown().is_some_and(|(s, _, _)| s == path)
                        };
                        view! {
                            <button class="chip" class:selected=current.clone() aria-pressed=move || current().to_string()
                                title=path.clone() on:click=move |_| chosen.set(Some(p.clone()))>{doc_label(&path)}</button>
                        }
                    }).collect_view()}
                </div>
                // Keyed by path and version: the renderer rewrites its DOM
                // (diagrams), so a changed document gets a fresh one.
                <For each=move || shown().into_iter() key=|(path, version, _)| (path.clone(), *version) let:doc>
                    <Markdown text=doc.2 testid="doc"/>
                </For>
            </Show>
        </section>
    }
}
