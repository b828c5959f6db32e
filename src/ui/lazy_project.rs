//! The second lazily fetched module, `project` (issue #37): what a run's
//! first streamed answers do not need. Built with the `split` feature, the
//! functions marked `split!` here go, with everything only they reach,
//! into `split_project.wasm`: the Project side's tabs (Preview with the
//! Python terminal, Code with the downloads and "Copy share link", Docs,
//! Plan with its editing, Versions with the diff and Restore), the share
//! page, and the sandbox's work (`LazySandbox`: tests, preview, the
//! bundler). The run module (`lazy`) keeps the team, the store, the
//! conversation and the composer.
//!
//! The module is fetched when the Project side is first shown (beside the
//! first run, whose answers do not wait for it), or by the first sandbox
//! call or share link. A failed fetch is said in words in the tab, with
//! "Try again"; a sandbox call waits for the fetch, and fails as the
//! sandbox failing (its code could not be loaded) only when the fetch
//! does, which the team reads as a tool error.
//!
//! Not here: what a tab shows (their own files) or any rule of a session.

use std::rc::Rc;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::sandbox::{ConsoleLine, FileMap, PreviewInfo, Sandbox, SandboxError, TestReport};
use crate::web::sandbox::WebSandbox;

use super::lazy::enter;
use super::Shared;

/// A split point in the module `project` (a plain function without `split`).
macro_rules! split {
    ($(#[$meta:meta])* fn $($rest:tt)*) => {
        $(#[$meta])*
        #[cfg_attr(feature = "split", leptos::wasm_split::wasm_split(project, wasm_split_path = ::leptos::wasm_split))]
        fn $($rest)*
    };
}

/// The Project side's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Preview,
    Code,
    Docs,
    Plan,
    Versions,
}

/// Where the module stands.
#[derive(Clone, Default)]
pub enum ProjectLoad {
    #[default]
    NotAsked,
    Loading,
    Failed,
    Ready(Arc<Panels>),
}

/// The tabs' views, made in the module.
pub struct Panels {
    preview: ViewFn,
    code: ViewFn,
    docs: ViewFn,
    plan: ViewFn,
    versions: ViewFn,
}

impl Panels {
    fn get(&self, tab: Tab) -> &ViewFn {
        match tab {
            Tab::Preview => &self.preview,
            Tab::Code => &self.code,
            Tab::Docs => &self.docs,
            Tab::Plan => &self.plan,
            Tab::Versions => &self.versions,
        }
    }
}

/// Said in a tab when the module cannot be fetched.
const LOAD_FAILED: &str = "The project's views could not be loaded (offline?).";

/// Only for its preload, `load_project`: fetch the module, or say why not.
#[cfg(feature = "split")]
#[leptos::wasm_split::wasm_split(project, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_project))]
fn loaded() -> Result<(), leptos::wasm_split::SplitLoaderError> {
    Ok(())
}

/// Fetch the module (once); false when it cannot be fetched.
async fn fetched() -> bool {
    #[cfg(feature = "split")]
    return load_project().await.is_ok();
    #[cfg(not(feature = "split"))]
    true
}

split! {
    fn panels() -> Panels {
        Panels {
            preview: ViewFn::from(|| {
                let shared = expect_context::<Shared>();
                // Made again for each session: it holds that team's sandbox.
                move || { shared.session_id.track(); view! { <super::preview::PreviewPane/> } }
            }),
            code: ViewFn::from(|| view! { <super::run_view::Files/> }),
            docs: ViewFn::from(|| view! { <super::docs::DocsPane/> }),
            plan: ViewFn::from(|| view! { <super::run_view::PlanBoard/> }),
            versions: ViewFn::from(|| view! { <super::versions::VersionsPanel/> }),
        }
    }
}

/// Fetch the module and make the tabs' views, unless under way or done.
pub fn load(shared: Shared) {
    if matches!(shared.project.get_untracked(), ProjectLoad::Loading | ProjectLoad::Ready(_)) {
        return;
    }
    shared.project.set(ProjectLoad::Loading);
    spawn_local(async move {
        let load = if fetched().await { ProjectLoad::Ready(Arc::new(enter!(panels()))) } else { ProjectLoad::Failed };
        shared.project.set(load);
    });
}

/// One tab of the Project side: its view once the module is here, a line
/// saying it is on its way before, or why not with "Try again".
#[component]
pub fn ProjectTab(tab: Tab) -> impl IntoView {
    let shared = expect_context::<Shared>();
    load(shared);
    move || match shared.project.get() {
        ProjectLoad::Ready(panels) => panels.get(tab).run(),
        ProjectLoad::Failed => view! {
            <p class="error" role="alert" data-testid="project-load-failed">{LOAD_FAILED}" "
                <button class="small" on:click=move |_| load(shared)>"Try again"</button></p>
        }
        .into_any(),
        _ => view! { <p class="note loading" role="status">"Loading…"</p> }.into_any(),
    }
}

split! {
    fn share_page(hash: String) -> ViewFn {
        ViewFn::from(move || view! { <super::share::SharedPage hash=hash.clone()/> })
    }
}

/// The page of a share link (see `share::SharedPage`), or None when the
/// module cannot be fetched.
pub async fn shared_page(hash: String) -> Option<ViewFn> {
    if !fetched().await {
        return None;
    }
    Some(enter!(share_page(hash)))
}

/// The team's sandbox: the frame is made with the session (the Preview
/// shows it), its work (tests, preview, the bundler) is in the module
/// `project`, fetched by the first call if the Project side has not.
pub struct LazySandbox(WebSandbox);

/// `BrowserEdge::site`'s sandbox port.
pub fn lazy_sandbox(sandbox: WebSandbox) -> Rc<dyn Sandbox> {
    Rc::new(LazySandbox(sandbox))
}

split! {
    fn sandbox_tests(sandbox: WebSandbox, files: FileMap, path: Option<String>) -> LocalBoxFuture<'static, Result<TestReport, SandboxError>> {
        Box::pin(async move { sandbox.run_tests(files, path).await })
    }
}

split! {
    fn sandbox_preview(sandbox: WebSandbox, files: FileMap) -> LocalBoxFuture<'static, Result<PreviewInfo, SandboxError>> {
        Box::pin(async move { sandbox.preview(files).await })
    }
}

/// A sandbox call made while the module cannot be fetched.
fn not_fetched() -> SandboxError {
    SandboxError::Failed("its code could not be loaded (the page is offline?)".into())
}

impl Sandbox for LazySandbox {
    fn run_tests(&self, files: FileMap, path: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>> {
        let sandbox = self.0.clone();
        Box::pin(async move {
            if !fetched().await {
                return Err(not_fetched());
            }
            enter!(sandbox_tests(sandbox, files, path)).await
        })
    }

    fn preview(&self, files: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>> {
        let sandbox = self.0.clone();
        Box::pin(async move {
            if !fetched().await {
                return Err(not_fetched());
            }
            enter!(sandbox_preview(sandbox, files)).await
        })
    }

    fn console(&self) -> Vec<ConsoleLine> {
        Sandbox::console(&self.0)
    }
}
