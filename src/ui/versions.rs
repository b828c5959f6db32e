//! The iteration loop's screens: the composer for follow-up requests, the
//! project's versions (list, a version's diff against the one before,
//! restore, roll back a version that breaks the tests, the switches for
//! automatic fixes and rollback), and the helpers
//! the files view and the preview console use to hand a change or an error
//! to the team.
//!
//! Every rule (when a request is accepted, what a version holds, how a
//! restore works) is the host's and the controller's (`core::host`,
//! `core::session`); this file shows their answers and refusals. Diff lines are model output: they are rendered as
//! text, never as HTML.

use leptos::prelude::*;

use crate::core::host::Request;
use crate::core::sandbox::ConsoleLine;
use crate::core::versions::{grouped, Automatic, FileChange, LineTag, ProjectVersion, RequestKind, VersionBill};

use super::Shared;

/// A request may be sent: the host's answer, as it pushed it last.
pub(crate) fn team_at_rest(shared: Shared) -> bool {
    shared.state.with(|s| s.at_rest())
}

/// Hand the team `request` (a follow-up, a preview error) through the host,
/// with the page's settings and key as they are now. A refusal comes back
/// in words; a request waiting for the key is said beside Resume.
pub(crate) fn ask_team(shared: Shared, request: Request) -> Result<(), String> {
    super::host::configured(shared).send(request).map_err(|e| e.to_string())
}

/// The automatic fix mode: the first error of the preview goes to the
/// team by itself when it is switched on and the team is at rest (the
/// controller refuses a fourth in a row). Returns whether one was sent.
pub(crate) fn auto_fix(shared: Shared, console: &[ConsoleLine]) -> bool {
    // Read first, so the caller's effect runs again when the team rests.
    let (at_rest, fix, started) = shared.state.with(|s| (s.at_rest(), s.automatic.fix, s.started));
    if !at_rest || !fix || !started {
        return false;
    }
    let Some(error) = console.iter().find(|l| matches!(l.level.as_str(), "uncaught" | "error")) else { return false };
    ask_team(shared, Request::AutoFix(error.clone())).is_ok()
}

/// Switch an automatic mode (the host saves it with the session).
fn set_automatic(shared: Shared, change: impl FnOnce(&mut Automatic)) {
    let Some(host) = shared.host() else { return };
    let mut automatic = shared.state.with_untracked(|s| s.automatic);
    change(&mut automatic);
    host.set_automatic(automatic);
}

/// A text box for the next request, under the conversation; Stop in
/// place of Send while the team works.
#[component]
pub fn Composer() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let text = RwSignal::new(String::new());
    let refusal = RwSignal::new(None::<String>);
    // A replay's recorded model has no answers for new requests.
    let at_rest = move || team_at_rest(shared) && !shared.replay.get();
    let send = move || {
        let words = text.get_untracked();
        // With a picked element, the request is about it.
        let request = shared.picked.with_untracked(|p| p.as_ref().map(|p| p.request(&words))).unwrap_or(words);
        let images = shared.attached.images.get_untracked();
        let request = if images.is_empty() { Request::Text(request) } else { Request::WithImages(request, images) };
        match ask_team(shared, request) {
            Ok(()) => {
                text.set(String::new());
                shared.picked.set(None);
                shared.attached.clear();
                refusal.set(None);
            }
            Err(e) => refusal.set(Some(e)),
        }
    };
    view! {
        <section class="card composer" aria-label="Ask for a change" data-testid="composer">
            <label for="follow-up">"Ask for a change"</label>
            {move || shared.picked.get().map(|picked| view! {
                <p class="picked-chip" data-testid="picked-chip">
                    <span class="visually-hidden">"About the element "</span>
                    <code>{picked.chip()}</code>
                    <button class="ghost small" data-testid="picked-remove" aria-label="Remove the picked element" on:click=move |_| shared.picked.set(None)>"×"</button>
                </p>
            })}
            <textarea
                id="follow-up"
                data-testid="follow-up"
                placeholder="Make the title red"
                disabled=move || !at_rest()
                prop:value=text
                on:input=move |ev| text.set(event_target_value(&ev))
                on:paste=move |ev| { super::attach::Attached::take(shared, &ev); }
                on:dragover=move |ev| ev.prevent_default()
                on:drop=move |ev| { super::attach::Attached::take(shared, &ev); }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <super::attach::AttachedImages disabled=Signal::derive(move || !at_rest())/>
            <div class="row">
                // While the team works (or a request waits), Send waits; the
                // status bar's Stop is the one way to stop it.
                <button class="primary" data-testid="send" disabled=move || !at_rest() || text.with(|t| t.trim().is_empty())
                    on:click=move |_| send()>"Send"</button>
                {move || (!at_rest()).then(|| view! { <span class="note" data-testid="composer-note">{move || if shared.replay.get() {
                    crate::core::host::Refusal::Replay.to_string()
                } else if let Some(why) = shared.waiting() {
                    why
                } else {
                    "The team is at work; you can send a change when it is done or stopped.".to_string()
                }}</span> })}
                <span class="note">"Enter sends, Shift+Enter starts a new line."</span>
            </div>
            {move || refusal.get().map(|e| view! { <p class="error" role="alert" data-testid="send-error">{e}</p> })}
        </section>
    }
}

fn kind_text(kind: RequestKind) -> String {
    match kind {
        RequestKind::Idea => "idea".into(),
        RequestKind::FollowUp => "follow-up".into(),
        RequestKind::Fix => "fix".into(),
        RequestKind::Restore { from } => format!("restore of version {from}"),
    }
}

/// Puts a version back; shows the new version, or why not.
#[derive(Clone, Copy)]
struct Restore {
    shared: Shared,
    selected: RwSignal<Option<u32>>,
    error: RwSignal<Option<String>>,
}

impl Restore {
    fn run(self, number: u32) {
        let Some(host) = self.shared.host() else { return };
        match host.restore(number) {
            Ok(v) => {
                self.error.set(None);
                self.selected.set(Some(v.number));
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }
}

/// The project's versions, newest first, with the selected one's diff.
#[component]
pub fn VersionsPanel() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let selected = RwSignal::new(None::<u32>);
    let error = RwSignal::new(None::<String>);
    let at_rest = move || team_at_rest(shared);
    let restore = Restore { shared, selected, error };
    // The controller's choice of the version to roll back to.
    let last_passing = move || {
        shared.versions.track();
        shared.host().and_then(|h| h.session()).and_then(|s| s.project.try_borrow().ok().and_then(|p| p.last_passing().map(|v| v.number)))
    };
    // The switches show the open session's modes.
    let automatic = move || shared.state.with(|s| s.automatic);
    // What each version cost, per role: the core's reading of the ledger.
    let bills = Memo::new(move |_| {
        shared.versions.track();
        shared.host().and_then(|h| h.session()).map(|s| s.bills()).unwrap_or_default()
    });
    view! {
        <section class="card versions" aria-label="Versions" data-testid="versions">
            <h2>"Versions"</h2>
            <div class="row automatic">
                <label>
                    <input type="checkbox" data-testid="auto-fix" prop:checked=move || automatic().fix
                        on:change=move |ev| { let on = event_target_checked(&ev); set_automatic(shared, |a| a.fix = on) }/>
                    " Fix preview errors automatically"
                </label>
                <label>
                    <input type="checkbox" data-testid="auto-rollback" prop:checked=move || automatic().rollback
                        on:change=move |ev| { let on = event_target_checked(&ev); set_automatic(shared, |a| a.rollback = on) }/>
                    " Roll back automatically when a change breaks the tests"
                </label>
            </div>
            <Show when=move || shared.versions.with(|v| !v.is_empty()) fallback=|| view! { <p class="note">"A version is made each time the team finishes a request."</p> }>
                <ol reversed>
                    {move || shared.versions.get().into_iter().rev().map(|v| {
                        let bill = bills.with(|b| b.iter().find(|b| b.version == v.number).cloned());
                        view! {
                            <VersionRow version=v bill=bill selected=selected at_rest=Signal::derive(at_rest) last_passing=Signal::derive(last_passing) restore=restore/>
                        }
                    }).collect_view()}
                </ol>
            </Show>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="version-error">{e}</p> })}
            {move || selected.get().map(|n| view! { <VersionDiff number=n at_rest=Signal::derive(at_rest) restore=restore/> })}
        </section>
    }
}

#[component]
fn VersionRow(
    version: ProjectVersion,
    bill: Option<VersionBill>,
    selected: RwSignal<Option<u32>>,
    at_rest: Signal<bool>,
    last_passing: Signal<Option<u32>>,
    restore: Restore,
) -> impl IntoView {
    let (n, breaks) = (version.number, version.breaks_tests);
    let tests = version.tests.map(|t| if t.failed == 0 { format!(" · tests: {} passed", t.passed) } else { format!(" · tests: {} passed, {} failed", t.passed, t.failed) });
    view! {
        <li data-testid="version" data-number=n.to_string() class:selected=move || selected.get() == Some(n)>
            <button class="link" data-testid="version-open" on:click=move |_| selected.set(Some(n))>{format!("Version {n}")}</button>
            " "<span data-testid="version-request">{version.request.clone()}</span>
            <span class="note">{format!(" · {}{} · ${:.4}", kind_text(version.kind), tests.unwrap_or_default(), version.spent.cost)}</span>
            {breaks.then(|| view! {
                <span class="breaks" data-testid="breaks-tests">" breaks tests "</span>
            })}
            {move || breaks.then(|| last_passing.get()).flatten().map(|good| view! {
                <button data-testid="roll-back" disabled=move || !at_rest.get() on:click=move |_| restore.run(good)>
                    {format!("Roll back to version {good}")}
                </button>
            })}
            {bill.filter(|b| !b.roles.is_empty()).map(|b| view! { <BillTable bill=b/> })}
        </li>
    }
}

/// What a version cost, per role: folded to who spent what, a table open.
#[component]
fn BillTable(bill: VersionBill) -> impl IntoView {
    let who = bill.roles.iter().map(|r| format!("{} ${:.4}", r.role, r.tally.cost)).collect::<Vec<_>>().join(" · ");
    let row = |role: String, t: crate::core::cost::Tally, total: bool| view! {
        <tr data-testid=if total { "bill-total" } else { "bill-role" } data-role=role.clone()>
            {if total { view! { <th scope="row">{role.clone()}</th> }.into_any() } else { view! { <td>{role.clone()}</td> }.into_any() }}
            <td>{t.calls}</td>
            <td>{grouped(t.prompt_tokens)}</td>
            <td>{grouped(t.cached_tokens)}</td>
            <td>{grouped(t.completion_tokens)}</td>
            <td>{format!("${:.4}", t.cost)}</td>
        </tr>
    };
    let total = bill.total;
    view! {
        <details class="bill" data-testid="version-bill">
            <summary>{format!("Cost by role: {who}")}</summary>
            <table>
                <thead><tr><th scope="col">"Role"</th><th scope="col">"Calls"</th><th scope="col">"Tokens in"</th><th scope="col">"Cached"</th><th scope="col">"Out"</th><th scope="col">"Dollars"</th></tr></thead>
                <tbody>
                    {bill.roles.into_iter().map(|r| row(r.role, r.tally, false)).collect_view()}
                    {(total.calls > 0).then(|| row("Version total".to_string(), total, true))}
                </tbody>
            </table>
        </details>
    }
}

/// Version `number` against the one before: per file, its lines.
#[component]
fn VersionDiff(number: u32, at_rest: Signal<bool>, restore: Restore) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let diff = move || {
        shared.versions.track();
        shared.host().and_then(|h| h.session()).map(|s| s.diff(number).map_err(|e| e.to_string()))
    };
    view! {
        <div class="diff" data-testid="diff" data-number=number.to_string()>
            <div class="row">
                <h3>{format!("Version {number}: what changed")}</h3>
                // Not offered where it would change nothing.
                <Show when=move || !shared.state.with(|s| s.is_current(number))>
                    <button data-testid="restore-version" disabled=move || !at_rest.get() on:click=move |_| restore.run(number)>"Restore this version"</button>
                </Show>
            </div>
            {move || match diff() {
                None => view! { <p class="note">"No session is open."</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                Some(Ok(files)) if files.is_empty() => view! { <p class="note">"No file changed."</p> }.into_any(),
                Some(Ok(files)) => files.into_iter().map(|f| {
                    let change = match f.change {
                        FileChange::Added => "added",
                        FileChange::Removed => "removed",
                        FileChange::Changed => "changed",
                    };
                    view! {
                        <div class="diff-file" data-testid="diff-file" data-path=f.path.clone() data-change=change>
                            <p><b>{f.path.clone()}</b><span class="note">{format!(" {change}")}</span></p>
                            // Focusable: it scrolls sideways (axe: scrollable-region-focusable).
                            <pre tabindex="0">{f.lines.into_iter().map(|l| {
                                let (class, mark) = match l.tag {
                                    LineTag::Same => ("same", "  "),
                                    LineTag::Added => ("added", "+ "),
                                    LineTag::Removed => ("removed", "- "),
                                    LineTag::Gap => ("gap", ""),
                                };
                                let text = if l.tag == LineTag::Gap { "…".to_string() } else { format!("{mark}{}", l.text) };
                                view! { <span class=format!("line {class}")>{text}"\n"</span> }
                            }).collect_view()}</pre>
                        </div>
                    }
                }).collect_view().into_any(),
            }}
        </div>
    }
}
