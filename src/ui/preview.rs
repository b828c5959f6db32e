//! The project running: the live preview (a sandboxed frame, rebuilt when
//! the files change), its console, "Run tests" with the results per test,
//! "Ask the team to fix" beside each error of the page, and "Open in new
//! tab"; for a Python project, the Terminal (`TerminalView`: Run, Stop, the
//! output as a log, a line of input, the program's errors with "Ask the
//! team to fix"). Everything runs in `web::sandbox`; this pane shows it and
//! holds no logic of its own.

use leptos::html::Div;
use leptos::prelude::*;

use crate::core::sandbox::python::python_entry;
use crate::core::sandbox::{snapshot, ConsoleLine, Outcome, Sandbox};
use crate::web::sandbox::{TerminalState, WebSandbox};

use super::Shared;

#[component]
pub fn PreviewPane() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let sandbox: Option<WebSandbox> = shared.edge.with_value(|e| e.as_ref().and_then(|e| e.sandbox()));
    let Some(sandbox) = sandbox else {
        return view! { <section class="card preview"><h2>"Preview"</h2><p class="note">"The sandbox is not available in this browser."</p></section> }.into_any();
    };
    let tick = RwSignal::new(0u64);
    sandbox.on_change(move || tick.update(|t| *t += 1));
    let host = NodeRef::<Div>::new();
    let placed = sandbox.clone();
    host.on_load(move |div| {
        let _ = div.append_child(placed.host());
    });
    let files_of = move || shared.project_files().and_then(|f| f.try_borrow().ok().map(|f| snapshot(&f)));
    // Rebuild the preview whenever a file changes and there is a page to show.
    let rebuild = sandbox.clone();
    Effect::new(move |_| {
        let has_page = shared.files.with(|f| f.iter().any(|(p, _)| p.ends_with(".html")));
        if !has_page {
            return;
        }
        if let Some(files) = files_of() {
            let sandbox = rebuild.clone();
            leptos::task::spawn_local(async move {
                let _ = sandbox.preview(files).await;
            });
        }
    });
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let fix_error = RwSignal::new(None::<String>);
    let stored = StoredValue::new_local(sandbox);
    let run_tests = move |_| {
        let Some(files) = files_of() else { return };
        let sandbox = stored.get_value();
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            if let Err(e) = sandbox.run_tests(files, None).await {
                error.set(Some(e.to_string()));
            }
            busy.set(false);
        });
    };
    let open_tab = move |_| {
        if let Err(e) = stored.with_value(|s| s.open_in_tab()) {
            error.set(Some(e));
        }
    };
    let console = move || {
        tick.get();
        stored.with_value(|s| s.console())
    };
    let report = move || {
        tick.get();
        stored.with_value(|s| s.last_report())
    };
    // The automatic fix mode: once per page shown (an error sent waits for
    // the next page, whose console starts empty), when the team is at rest.
    let auto_sent = StoredValue::new(false);
    Effect::new(move |_| {
        shared.versions.track();
        let lines = console();
        if lines.is_empty() {
            auto_sent.set_value(false);
        } else if !auto_sent.get_value() && super::versions::auto_fix(shared, &lines) {
            auto_sent.set_value(true);
        }
    });
    let has_preview = move || {
        tick.get();
        stored.with_value(|s| s.has_preview())
    };
    // A Python project's program, when it has one (the core decides which file).
    let program = Memo::new(move |_| {
        shared.files.track();
        files_of().and_then(|f| python_entry(&f).map(str::to_owned))
    });
    // "Select": an element picked in the frame becomes the composer's chip.
    let selecting = move || {
        tick.get();
        stored.with_value(|s| s.selecting())
    };
    Effect::new(move |_| {
        tick.track();
        if let Some(picked) = stored.with_value(|s| s.take_picked()) {
            shared.picked.set(Some(picked));
        }
    });
    let toggle_select = move |_| stored.with_value(|s| s.select(!s.selecting()));
    let leave_select = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" && stored.with_value(|s| s.selecting()) {
            ev.prevent_default();
            stored.with_value(|s| s.select(false));
        }
    };
    view! {
        <section class="card preview" aria-label="Preview" data-testid="preview" on:keydown=leave_select>
            <h2>"Preview"</h2>
            <div class="row">
                <button data-testid="select-mode" disabled=move || !has_preview() aria-pressed=move || selecting().to_string()
                    on:click=toggle_select>"Select"</button>
                <button data-testid="run-tests" disabled=move || busy.get() on:click=run_tests>
                    {move || if busy.get() { "Running tests…" } else { "Run tests" }}
                </button>
                <button data-testid="open-tab" disabled=move || !has_preview() on:click=open_tab>"Open in new tab"</button>
            </div>
            <Show when=selecting>
                <p class="note" role="status" data-testid="select-note">"Point at an element of the page and click it to ask the team about it. Escape leaves Select mode."</p>
            </Show>
            <Show when=move || !has_preview() && program.get().is_none()>
                <p class="note preview-empty">"No page yet: when the team writes an index.html, it runs here."</p>
            </Show>
            <Show when=move || program.get().is_some()>
                <TerminalView sandbox=stored tick=tick entry=program files=files_of />
            </Show>
            <div class="preview-frame" node_ref=host></div>
            {move || error.get().map(|e| view! { <p class="error" data-testid="sandbox-error">{e}</p> })}
            <details class="console" open>
                <summary>"Console"</summary>
                <ol data-testid="console">
                    {move || console().into_iter().map(|line| {
                        let class = format!("console-{}", line.level);
                        // An error of the page can go to the team as a request.
                        let fixable = matches!(line.level.as_str(), "uncaught" | "error").then(|| line.clone());
                        // Where it came from, when the frame could tell.
                        let place = line.source.as_ref().map(|s| format!("{}:{}", s.path, s.line));
                        view! {
                            <li class=class><span class="note">{line.level}</span>" "{line.text}
                                {place.map(|place| view! { " "<span class="note console-source" data-testid="console-source">"("{place}")"</span> })}
                                {fixable.map(|line| view! {
                                    " "<button data-testid="ask-fix" disabled=move || !super::versions::team_at_rest(shared)
                                        on:click=move |_| fix_error.set(super::versions::ask_team(shared, crate::core::host::Request::Fix(line.clone())).err())>
                                        "Ask the team to fix"
                                    </button>
                                })}
                            </li>
                        }
                    }).collect_view()}
                </ol>
                {move || fix_error.get().map(|e| view! { <p class="error" role="alert" data-testid="fix-error">{e}</p> })}
            </details>
            {move || report().map(|report| view! {
                <div class="tests" data-testid="test-results">
                    <p><b>{format!("Tests: {}", report.summary())}</b></p>
                    <ul>
                        {report.results.into_iter().map(|r| {
                            let (class, mark) = match r.outcome {
                                Outcome::Passed => ("passed", "✓"),
                                Outcome::Failed => ("failed", "✗"),
                                Outcome::Error => ("error", "!"),
                                Outcome::TimedOut => ("timed-out", "✗"),
                            };
                            view! {
                                <li class=class>
                                    <span class="state">{mark}</span>" "{format!("{} › {}", r.file, r.name)}
                                    {(!r.message.is_empty()).then(|| view! { <pre class="note">{r.message.clone()}</pre> })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </div>
            })}
        </section>
    }
    .into_any()
}

/// The Terminal of a Python project: its program's output as a log, a line
/// of input for `input()`, Run and Stop, and its errors with "Ask the team
/// to fix". A plain accessible console (`<pre role=log>` and a text field):
/// no terminal emulator, the programs are line-based.
#[component]
fn TerminalView(
    sandbox: StoredValue<WebSandbox, LocalStorage>,
    tick: RwSignal<u64>,
    entry: Memo<Option<String>>,
    files: impl Fn() -> Option<crate::core::sandbox::FileMap> + Copy + 'static,
) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let terminal = move || {
        tick.get();
        sandbox.with_value(|s| s.terminal())
    };
    let state = Memo::new(move |_| terminal().state);
    let live = move || matches!(state.get(), TerminalState::Running | TerminalState::Waiting);
    let busy = move || matches!(state.get(), TerminalState::Starting | TerminalState::Running | TerminalState::Waiting);
    let line = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let fix_error = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let run = move |_| {
        let Some(files) = files() else { return };
        error.set(sandbox.with_value(|s| s.run_program(files)).err());
    };
    let stop = move |_| sandbox.with_value(|s| s.stop_program());
    let send = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if live() {
            sandbox.with_value(|s| s.send_line(&line.get_untracked()));
            line.set(String::new());
        }
    };
    // The field takes the focus when the program asks for a line.
    Effect::new(move |_| {
        if state.get() == TerminalState::Waiting {
            if let Some(field) = input.get() {
                let _ = field.focus();
            }
        }
    });
    let status = move || match state.get() {
        TerminalState::Idle => String::new(),
        TerminalState::Starting => "Starting Python…".into(),
        TerminalState::Running => "Running".into(),
        TerminalState::Waiting => "Waiting for your input".into(),
        TerminalState::Ended(text) => text,
    };
    view! {
        <section class="terminal" aria-label="Terminal" data-testid="terminal-pane">
            <h3>"Terminal"</h3>
            <div class="row">
                <button data-testid="run-program" on:click=run>{move || format!("Run {}", entry.get().unwrap_or_default())}</button>
                <button data-testid="stop-program" disabled=move || !busy() on:click=stop>"Stop"</button>
                <span class="note" role="status" data-testid="terminal-state">{status}</span>
            </div>
            {move || error.get().map(|e| view! { <p class="error" data-testid="terminal-error-text">{e}</p> })}
            <pre class="terminal-log" role="log" aria-label="Program output" tabindex="0" data-testid="terminal">
                {move || terminal().output.into_iter().map(|(stream, text)| view! { <span class=format!("term-{stream}")>{text}</span> }).collect_view()}
            </pre>
            <form class="row terminal-input" on:submit=send>
                <label for="terminal-input">"Input"</label>
                <input id="terminal-input" node_ref=input data-testid="terminal-input" autocomplete="off" spellcheck="false"
                    disabled=move || !live() prop:value=move || line.get() on:input=move |ev| line.set(event_target_value(&ev)) />
                <button type="submit" data-testid="terminal-send" disabled=move || !live()>"Send"</button>
            </form>
            <ul class="terminal-errors">
                {move || terminal().errors.into_iter().map(|e: ConsoleLine| {
                    let place = e.source.as_ref().map(|s| format!("{}:{}", s.path, s.line));
                    let first = e.text.lines().last().unwrap_or_default().to_owned();
                    view! {
                        <li class="console-uncaught" data-testid="terminal-error">{first}
                            {place.map(|place| view! { " "<span class="note console-source">"("{place}")"</span> })}
                            " "<button data-testid="ask-fix" disabled=move || !super::versions::team_at_rest(shared)
                                on:click=move |_| fix_error.set(super::versions::ask_team(shared, crate::core::host::Request::Fix(e.clone())).err())>
                                "Ask the team to fix"
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            {move || fix_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}
