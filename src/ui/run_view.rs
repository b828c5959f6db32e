//! The team at work: the status line, Stop / Resume, the conversation
//! (answers streaming in, messages between roles, replies to the user
//! highlighted, questions with an answer box, errors), the plan board, and
//! the project's files (markdown rendered safely with diagrams drawn, code
//! highlighted: `artifacts`). Where each goes on the page is `workspace`'s.

use leptos::prelude::*;

use crate::core::row_groups::{groups, rows_of};
use crate::core::view::{Entry, EntryKind};

use super::plan_edit::{provide_edit_state, PlanEditor, TaskActions};
use super::replay::ReplayBanner;
use super::artifacts::{CodeFile, Markdown};
use super::lazy_project::{ProjectTab, Tab};
use super::Shared;

#[component]
pub fn RunPanel() -> impl IntoView {
    let shared = expect_context::<Shared>();
    // A session (or the replay) is shown.
    let started = move || shared.run_shown();
    provide_edit_state();
    view! {
        <Show when=started>
            <section class="run" aria-label="The team at work">
                <Toolbar/>
                <super::workspace::Workspace
                    talk=ViewFn::from(move || view! {
                        // Made again for each session: rows are keyed by entry id,
                        // which another session's entries share.
                        {move || { shared.session_id.track(); view! { <Conversation/> } }}
                        <super::versions::Composer/>
                    })
                    preview=ViewFn::from(|| view! { <ProjectTab tab=Tab::Preview/> })
                    code=ViewFn::from(|| view! { <ProjectTab tab=Tab::Code/> })
                    docs=ViewFn::from(|| view! { <ProjectTab tab=Tab::Docs/> })
                    plan=ViewFn::from(|| view! { <ProjectTab tab=Tab::Plan/> })
                    versions=ViewFn::from(|| view! { <ProjectTab tab=Tab::Versions/> })
                />
            </section>
        </Show>
    }
}

/// The status line, Stop / Resume, and the tokens per role: one line
/// above the workspace, so the status shows without scrolling.
#[component]
fn Toolbar() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let dialog = expect_context::<super::settings_dialog::SettingsDialogState>();
    let status = move || {
        let replay = if shared.replay.get() { "Replay · " } else { "" };
        // The words are the core's (`HostState::status`).
        format!("{replay}{}", shared.state.with(|s| shared.view.with(|v| s.status(v))))
    };
    let stop = move |_| if let Some(host) = shared.host() { host.stop() };
    let resume = move |_| super::host::resume(shared);
    view! {
        <div class="run-bar" class:working=move || shared.running.get()>
            <span class="pulse" aria-hidden="true"></span>
            <p class="status" data-testid="status" role="status" aria-live="polite">{status}</p>
            <details class="tokens">
                <summary>"Tokens per role"</summary>
                <div class="tokens-pop">
                <table>
                    <thead><tr><th>"Role"</th><th>"Calls"</th><th>"In"</th><th>"Cached"</th><th>"Out"</th><th>"$"</th></tr></thead>
                    <tbody>
                        {move || shared.view.with(|v| v.cost.iter().map(|(role, c)| view! {
                            <tr>
                                <td>{role.clone()}</td>
                                <td>{c.calls}</td>
                                <td>{c.prompt_tokens}</td>
                                <td>{c.cached_tokens}</td>
                                <td>{c.completion_tokens}{if c.estimated { " (est.)" } else { "" }}</td>
                                <td>{format!("{:.4}", c.dollars)}</td>
                            </tr>
                        }).collect_view())}
                    </tbody>
                </table>
                </div>
            </details>
            // The one Stop on the page (the composer offers none): beside
            // the status, so it is there whichever side a phone shows;
            // shown only while there is something to stop, like Resume.
            <Show when=move || shared.state.with(|s| s.can_stop())>
                <button data-testid="stop" class="small" on:click=stop>"Stop"</button>
            </Show>
            // Offered only when there is work to carry on (the host's
            // `can_resume`): not during a run, nor after one that is done
            // (unless the plan was edited since).
            <Show when=move || shared.state.with(|s| s.can_resume())>
                <button data-testid="resume" class="primary small" disabled=move || shared.running.get() on:click=resume>"Resume"</button>
            </Show>
            {move || shared.waiting().map(|n| view! {
                <p class="error resume-note" role="alert"><span data-testid="resume-note">{n}</span>" "
                    <button class="link" data-testid="resume-settings" on:click=move |_| dialog.show()>"Open Settings"</button>
                </p>
            })}
        </div>
    }
}

#[component]
fn Conversation() -> impl IntoView {
    let shared = expect_context::<Shared>();
    // Past this many entries, style.css skips laying out the groups of rows
    // out of view (issue #21); not below: a skipped entry's innerText is empty.
    const LONG_CONVERSATION: usize = 200;
    let total = Memo::new(move |_| shared.view.with(|v| v.entries.len()));
    // A long session's rows come newest first, a few groups a frame (`progressive`).
    let pane = NodeRef::new();
    let from = super::progressive::progressive_from_end(total, pane);
    let is_long = move || total.get() > LONG_CONVERSATION;
    view! {
        <section class="card conversation" class:long=is_long aria-label="Conversation" data-testid="conversation" node_ref=pane>
            // The replay's note opens the conversation and scrolls with it:
            // above a scrolling pane it stood over the message under it.
            <ReplayBanner/>
            <For each=move || groups(from.get(), total.get()) key=|group| *group let:group>
                <RowGroup group=group/>
            </For>
        </section>
    }
}

/// The rows of one group (`core::row_groups`): a box of its own, so the
/// page can skip a whole group out of view.
#[component]
fn RowGroup(group: usize) -> impl IntoView {
    let shared = expect_context::<Shared>();
    // Each row is keyed by what can change, so a streaming answer re-renders
    // only its own row.
    let rows = move || {
        shared.view.with(|v| {
            v.entries[rows_of(group, v.entries.len())].iter().map(|e| (e.id, e.text.len(), e.live, e.kind, e.deeds.len())).collect::<Vec<_>>()
        })
    };
    view! {
        <div class="row-group">
            <For each=rows key=|row| *row let:row>
                {
                    let entry = shared.view.with_untracked(|v| v.entries[rows_of(group, v.entries.len())].iter().find(|e| e.id == row.0).cloned());
                    entry.map(|e| view! { <Row entry=e/> })
                }
            </For>
        </div>
    }
}

fn initial(role: &str) -> String {
    // ASCII upper case: `char::to_uppercase` would ship Unicode's case
    // table (~12 KB of wasm) for one letter of a role's name.
    role.chars().next().map(|c| c.to_ascii_uppercase().to_string()).unwrap_or_default()
}

/// A role's summary of its earlier work: its words folded under one line.
fn summary_row(entry: Entry, covered: u32) -> AnyView {
    view! {
        <article class="entry summary" data-testid="summary">
            <div class="avatar" aria-hidden="true">{initial(&entry.role)}</div>
            <details class="bubble">
                <summary><b>{entry.role.clone()}</b>" "{crate::core::view::summary_label(covered)}</summary>
                <Markdown text=entry.text.clone() finished=true/>
            </details>
        </article>
    }
    .into_any()
}

#[component]
fn Row(entry: Entry) -> impl IntoView {
    if let EntryKind::Summary { covered } = entry.kind {
        return summary_row(entry, covered);
    }
    let shared = expect_context::<Shared>();
    let class = format!("entry {}", entry.kind.class());
    let live = entry.live;
    let question = match entry.kind {
        EntryKind::Question { question_id, answered: false } => Some(question_id),
        _ => None,
    };
    let answer = RwSignal::new(String::new());
    let send = move || {
        let (Some(id), text) = (question, answer.get_untracked()) else { return };
        if text.trim().is_empty() {
            return;
        }
        let Some(host) = shared.host() else { return };
        if host.answer(id, text.trim()).is_ok() {
            shared.view.update(|v| v.answered(id, text.trim()));
        }
    };
    view! {
        <article class=class data-live=live.to_string()>
            <div class="avatar" aria-hidden="true">{initial(&entry.role)}</div>
            <div class="bubble">
                <header>
                    <b>{entry.role.clone()}</b>{live.then(|| view! { <span class="live">" typing…"</span> })}
                    {(entry.kind == EntryKind::Shared).then(|| view! { <span class="from-link">" · from the share link"</span> })}
                </header>
                // A shared link's conversation is someone else's words: text.
                {if entry.kind == EntryKind::Shared {
                    view! { <p class="shared-line" data-testid="shared-line">{entry.text.clone()}</p> }.into_any()
                } else {
                    view! { <Markdown text=entry.text.clone() finished=!live/> }.into_any()
                }}
                <super::attach::RequestImages images=entry.images.clone()/>
                // What the commands did, in words (plain text, never HTML).
                {(!entry.deeds.is_empty()).then(|| view! {
                    <ul class="deeds" data-testid="deeds">
                        {entry.deeds.iter().map(|d| view! { <li>{d.clone()}</li> }).collect_view()}
                    </ul>
                })}
                {entry.commands.clone().map(|c| view! {
                    <details class="commands"><summary>"Show commands"</summary><pre><code>{c}</code></pre></details>
                })}
                {question.map(|_| view! {
                    <form class="answer" on:submit=move |ev| { ev.prevent_default(); send(); }>
                        <input type="text" data-testid="answer" aria-label="Your answer" placeholder="Your answer"
                            prop:value=answer on:input=move |ev| answer.set(event_target_value(&ev)) />
                        <button type="submit" class="primary">"Answer"</button>
                    </form>
                })}
            </div>
        </article>
    }
    .into_any()
}

#[component]
pub(super) fn PlanBoard() -> impl IntoView {
    let shared = expect_context::<Shared>();
    view! {
        <section class="card plan" aria-label="Plan" data-testid="plan">
            <h2>"Plan"</h2>
            <Show when=move || shared.plan.with(|p| !p.is_empty()) fallback=|| view! { <p class="note">"No plan yet."</p> }>
                <ol>
                    {move || shared.plan.with(|plan| {
                        // The current task is the plan's (`Plan::current_task`).
                        let current = plan.current_task_id();
                        plan.tasks().iter().map(|t| {
                            let is_current = Some(t.id.as_str()) == current;
                            let class = if t.is_finished { "done" } else if is_current { "current" } else { "todo" };
                            let deps = if t.dependent_task_ids.is_empty() { String::new() } else { format!(" after {}", t.dependent_task_ids.join(", ")) };
                            view! {
                                <li class=class>
                                    <span class="state">{if t.is_finished { "✓" } else if is_current { "▶" } else { "·" }}</span>
                                    <span>{t.instruction.clone()}</span>
                                    <span class="note">{format!(" — {}{}", if t.assignee.is_empty() { "unassigned".to_string() } else { t.assignee.clone() }, deps)}</span>
                                    <TaskActions task=t.clone()/>
                                </li>
                            }
                        }).collect_view()
                    })}
                </ol>
            </Show>
            <PlanEditor/>
        </section>
    }
}

#[component]
pub(super) fn Files() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let selected = RwSignal::new(None::<String>);
    let content = move || {
        let path = selected.get()?;
        let _version = shared.files.with(|f| f.iter().find(|(p, _)| *p == path).map(|(_, v)| *v));
        shared.read_file(&path).map(|text| (path, text))
    };
    let selected_version = move |path: &str| shared.files.with_untracked(|f| f.iter().find(|(p, _)| p == path).map(|(_, v)| *v));
    // The hand edit of the selected file: its text while the box is open.
    let editing = RwSignal::new(None::<String>);
    let edit_error = RwSignal::new(None::<String>);
    let at_rest = move || super::versions::team_at_rest(shared);
    let save_edit = move |_| {
        let (Some(path), Some(text)) = (selected.get_untracked(), editing.get_untracked()) else { return };
        let Some(host) = shared.host() else { return };
        match host.edit_file(&path, &text) {
            Ok(_) => {
                editing.set(None);
                edit_error.set(None);
            }
            Err(e) => edit_error.set(Some(e.to_string())),
        }
    };
    view! {
        <section class="card files" aria-label="Files" data-testid="files">
            <div class="row">
                <h2>"Files"</h2>
                <button data-testid="zip" disabled=move || shared.files.with(Vec::is_empty) on:click=move |_| download_zip(shared)>"Download zip"</button>
                <button data-testid="one-file" disabled=move || shared.files.with(Vec::is_empty) on:click=move |_| download_one_file(shared)>"Download as one file"</button>
                <super::share::ShareButton/>
            </div>
            <Show when=move || shared.files.with(|f| !f.is_empty()) fallback=|| view! { <p class="note">"No files yet."</p> }>
                <ul>
                    {move || shared.files.get().into_iter().map(|(path, version)| {
                        let p = path.clone();
                        let here = path.clone();
                        view! {
                            <li class:selected=move || selected.with(|s| s.as_deref() == Some(here.as_str()))><button class="link" on:click=move |_| { editing.set(None); selected.set(Some(p.clone())); }>{path.clone()}</button>
                            <span class="note">{format!(" v{version}")}</span></li>
                        }
                    }).collect_view()}
                </ul>
            </Show>
            {move || content().map(|(path, text)| view! {
                <div class="row">
                    <span class="note">{path.clone()}</span>
                    <button data-testid="edit-file" disabled=move || !at_rest() || editing.with(Option::is_some)
                        on:click=move |_| editing.set(Some(text.clone()))>"Edit"</button>
                </div>
            })}
            {move || editing.with(Option::is_some).then(|| view! {
                <div class="hand-edit" data-testid="hand-edit">
                    <textarea data-testid="edit-text" aria-label="The file's text" spellcheck="false"
                        prop:value=move || editing.get().unwrap_or_default()
                        on:input=move |ev| editing.set(Some(event_target_value(&ev)))></textarea>
                    <div class="row">
                        <button class="primary" data-testid="edit-save" disabled=move || !at_rest() on:click=save_edit>"Save"</button>
                        <button data-testid="edit-cancel" on:click=move |_| { editing.set(None); edit_error.set(None); }>"Cancel"</button>
                    </div>
                </div>
            })}
            {move || edit_error.get().map(|e| view! { <p class="error" role="alert" data-testid="edit-error">{e}</p> })}
            // Keyed by the file's version: the highlighter rewrites the
            // viewer's DOM, so a changed file (a hand edit, the team's
            // edit) gets a new viewer instead of a patch of the old one.
            <For each=move || content().map(|(path, text)| (selected_version(&path), path, text)).into_iter()
                key=|(version, path, _)| (path.clone(), *version) let:shown>
                {
                    let (_, path, text) = shown;
                    if path.ends_with(".md") {
                        view! { <Markdown text=text testid="viewer"/> }.into_any()
                    } else {
                        view! { <CodeFile path=path text=text/> }.into_any()
                    }
                }
            </For>
        </section>
    }
}

/// The file name (without extension) of the open session's downloads.
fn download_stem(shared: Shared) -> String {
    let title = shared.sessions.with_untracked(|list| {
        let id = shared.session_id.get_untracked();
        list.iter().find(|s| Some(&s.id) == id.as_ref()).map(|s| s.title.clone())
    });
    crate::core::store::file_stem(title.as_deref().unwrap_or("tabteam-project"))
}

/// The app as `<title>.html`: one file that runs opened from disk, with
/// no network (`web::sandbox::one_file`). What could not be put in it is
/// said in the banner.
pub(super) fn download_one_file(shared: Shared) {
    let Some(files) = shared.project_files().and_then(|f| f.try_borrow().ok().map(|f| crate::core::sandbox::snapshot(&f))) else { return };
    let stem = download_stem(shared);
    leptos::task::spawn_local(async move {
        let note = match crate::web::sandbox::one_file(files).await {
            Ok(doc) => match crate::web::download::save(&format!("{stem}.html"), "text/html", doc.html.as_bytes()) {
                Err(e) => Some(e),
                Ok(()) if doc.missing.is_empty() && doc.problems.is_empty() => None,
                Ok(()) => {
                    let lines: Vec<String> = doc.missing.iter().map(|m| format!("{m} is not in the project")).chain(doc.problems.iter().map(|p| p.text.clone())).collect();
                    Some(format!("{stem}.html was saved, but parts of the app will not work in it: {}", lines.join("; ")))
                }
            },
            Err(e) => Some(format!("The one-file app could not be made: {e}")),
        };
        if note.is_some() {
            shared.storage_note.set(note);
        }
    });
}

/// The project's files as `<title>.zip`.
fn download_zip(shared: Shared) {
    let stem = download_stem(shared);
    let zipped = shared.project_files().map(|f| f.borrow().to_zip(&stem));
    let result = match zipped {
        Some(Ok(bytes)) => crate::web::download::save(&format!("{stem}.zip"), "application/zip", &bytes),
        Some(Err(e)) => Err(format!("the zip could not be made: {e}")),
        None => Ok(()),
    };
    if let Err(e) = result {
        shared.storage_note.set(Some(e));
    }
}
