//! Share links on the site: "Copy share link" beside the downloads, and the
//! page a link opens: the shared project read-only (its page running in a
//! sandbox frame of its own, its files listed, the conversation as text
//! when the sender included it), "Make a copy" to continue it
//! as a new session of this browser, or the words saying why the link
//! cannot be opened. The format, its limits and checks and the copy are
//! `core::share`'s; the compression is `web::share`'s. Nothing here runs
//! what the link holds: only the sandbox frame does.

use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::sandbox::{snapshot, Sandbox};
use crate::core::share::SharedProject;
use crate::core::store::Store;
use crate::web::sandbox::WebSandbox;
use crate::web::session::now_ms;

use super::Shared;

/// "Copy share link": the open project's files in a link, copied, and
/// shown to be copied by hand; too large, the size said and the one-file
/// download offered instead.
#[component]
pub fn ShareButton() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let made = RwSignal::new(None::<Result<(String, bool), String>>);
    let with_conversation = RwSignal::new(false);
    let make = move |_| {
        let Some(files) = shared.project_files().and_then(|f| f.try_borrow().ok().map(|f| snapshot(&f))) else { return };
        let title = shared.sessions.with_untracked(|list| {
            let id = shared.session_id.get_untracked();
            list.iter().find(|s| Some(&s.id) == id.as_ref()).map(|s| s.title.clone())
        });
        let idea = shared.versions.with_untracked(|v| v.first().map(|v| v.request.clone())).unwrap_or_default();
        let title = title.unwrap_or_else(|| crate::core::host::title_of(&idea));
        let conversation = if with_conversation.get_untracked() { shared.view.with_untracked(crate::core::share::conversation_of) } else { Vec::new() };
        let project = SharedProject { title, idea, files, conversation };
        spawn_local(async move {
            let result = match crate::web::share::link(&project).await {
                Ok(url) => {
                    let copied = crate::web::share::copy(&url).await;
                    Ok((url, copied))
                }
                Err(e) => Err(e.to_string()),
            };
            made.set(Some(result));
        });
    };
    view! {
        <button data-testid="share" disabled=move || shared.files.with(Vec::is_empty) on:click=make>"Copy share link"</button>
        <label class="check"><input type="checkbox" data-testid="share-conversation" prop:checked=with_conversation
            on:change=move |ev| with_conversation.set(event_target_checked(&ev))/>" with the conversation"</label>
        {move || made.get().map(|result| match result {
            Ok((url, copied)) => view! {
                <div class="share-made" role="status" data-testid="share-made">
                    <p class="note">
                        {if copied { "Link copied. " } else { "Copy this link: " }}
                        {format!(
                            "It holds the project's files{} ({} KB), read-only for whoever opens it; never your key or settings.",
                            if with_conversation.get_untracked() { " and the conversation" } else { "" },
                            url.len().div_ceil(1024)
                        )}
                    </p>
                    <input readonly data-testid="share-link" aria-label="Share link" prop:value=url/>
                </div>
            }.into_any(),
            // Too large for a link: the one-file download, right there.
            Err(e) => view! {
                <div class="share-made" role="alert">
                    <p class="error" data-testid="share-error">{e}</p>
                    <button data-testid="share-one-file" on:click=move |_| super::run_view::download_one_file(shared)>"Download as one file"</button>
                </div>
            }.into_any(),
        })}
    }
}

/// What a share link opened: the project read-only, or why not.
#[component]
pub fn SharedPage(hash: String) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let opened = RwSignal::new(None::<Result<SharedProject, String>>);
    spawn_local(async move {
        opened.set(Some(crate::web::share::open(&hash).await.map_err(|e| e.to_string())));
    });
    let leave = move |_| {
        crate::web::share::forget();
        shared.share_view.set(None);
    };
    view! {
        <section class="card shared-page" aria-labelledby="shared-title" data-testid="shared-page">
            {move || match opened.get() {
                None => view! { <p class="note loading" role="status">"Opening the shared project…"</p> }.into_any(),
                Some(Err(e)) => view! {
                    <h2 id="shared-title">"This share link cannot be opened"</h2>
                    <p class="error" role="alert" data-testid="shared-error">{e}</p>
                    <button class="primary" data-testid="shared-leave" on:click=leave>"Start your own session"</button>
                }.into_any(),
                Some(Ok(project)) => view! { <SharedProjectView project/> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn SharedProjectView(project: SharedProject) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let copy_error = RwSignal::new(None::<String>);
    let copying = RwSignal::new(false);
    let sandbox = WebSandbox::new(5_000).ok();
    let frame = NodeRef::<Div>::new();
    if let Some(sandbox) = sandbox.clone() {
        let files = project.files.clone();
        frame.on_load(move |div| {
            let _ = div.append_child(sandbox.host());
            spawn_local(async move {
                let _ = sandbox.preview(files).await;
            });
        });
    }
    let paths: Vec<String> = project.files.keys().cloned().collect();
    let conversation = project.conversation.clone();
    let with_talk = !conversation.is_empty();
    let title = project.title.clone();
    let stored = StoredValue::new(project);
    let make_copy = move |_| {
        let Some(store) = shared.store.get_value() else {
            copy_error.set(Some("This browser keeps no sessions here (its storage is off), so a copy cannot be made.".into()));
            return;
        };
        let document = match stored.with_value(|p| p.copy_document(&shared.settings.get_untracked())) {
            Ok(document) => document,
            Err(e) => return copy_error.set(Some(e.to_string())),
        };
        copying.set(true);
        spawn_local(async move {
            match store.import_session(&document, now_ms()).await {
                Ok(record) => {
                    crate::web::share::forget();
                    shared.share_view.set(None);
                    super::host::open(shared, record.id).await;
                }
                Err(e) => {
                    copy_error.set(Some(format!("The copy could not be saved: {e}")));
                    copying.set(false);
                }
            }
        });
    };
    let leave = move |_| {
        crate::web::share::forget();
        shared.share_view.set(None);
    };
    view! {
        <h2 id="shared-title" data-testid="shared-title">{format!("Shared with you: {title}")}</h2>
        <p class="note">"Read-only: someone's project, running in a sandbox that cannot reach your sessions, your key or the network. Make a copy to change it with your own team."</p>
        <div class="row">
            <button class="primary" data-testid="shared-copy" disabled=move || copying.get() || !shared.store_ready.get() on:click=make_copy>"Make a copy"</button>
            <button data-testid="shared-leave" on:click=leave>"Start your own session"</button>
        </div>
        {move || copy_error.get().map(|e| view! { <p class="error" role="alert" data-testid="shared-copy-error">{e}</p> })}
        // The page, and beside it (below it on a narrow screen) the
        // conversation when the link carries one, as text.
        <div class="shared-body" class:with-talk=with_talk>
            {if sandbox.is_some() {
                view! { <div class="preview-frame" data-testid="shared-preview" node_ref=frame></div> }.into_any()
            } else {
                view! { <p class="note">"The sandbox is not available in this browser, so the project's page cannot be shown."</p> }.into_any()
            }}
            {(!conversation.is_empty()).then(|| view! {
                <section class="shared-conversation" data-testid="shared-conversation" aria-labelledby="shared-talk" tabindex="0">
                    <h3 id="shared-talk">{format!("The conversation ({} entries)", conversation.len())}</h3>
                    <ol>{conversation.into_iter().map(|line| view! { <li><b>{line.who}</b>" "<span class="shared-line">{line.text}</span></li> }).collect_view()}</ol>
                </section>
            })}
        </div>
        <details class="shared-files">
            <summary>{format!("{} files", paths.len())}</summary>
            <ul data-testid="shared-files">{paths.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
        </details>
    }
}
