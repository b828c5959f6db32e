//! The person's edits on the plan board: append a task, change a task's
//! instruction, assignee or dependencies, reset a task, finish the current
//! one. Each runs as the team leader's `Plan.*` command through
//! `Runner::edit_plan`; the command's result or refusal is shown as it is.
//! Allowed only while the team is paused (the host refuses otherwise).


use leptos::prelude::*;

use crate::core::plan::Task;
use crate::core::plan_edit::{next_task_id, parse_ids, PlanEdit};

use super::Shared;

/// The outcome of the last edit: Ok(result) or Err(why refused).
#[derive(Clone, Copy)]
pub struct EditState {
    outcome: RwSignal<Option<Result<String, String>>>,
    /// The task being edited (None: a new task is appended).
    editing: RwSignal<Option<String>>,
    id: RwSignal<String>,
    deps: RwSignal<String>,
    instruction: RwSignal<String>,
    assignee: RwSignal<String>,
}

fn run(shared: Shared, state: EditState, edit: PlanEdit) {
    let Some(host) = shared.host() else { return };
    let outcome = host.edit_plan(&edit).map_err(|e| e.to_string());
    if outcome.is_ok() {
        state.editing.set(None);
        state.instruction.set(String::new());
    }
    state.outcome.set(Some(outcome));
}

/// Per-task buttons (edit, reset), shown beside each task.
#[component]
pub fn TaskActions(task: Task) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let state = expect_context::<EditState>();
    let paused = move || !shared.running.get() && !shared.replay.get();
    let edit_task = task.clone();
    let edit = move |_| {
        state.editing.set(Some(edit_task.id.clone()));
        state.id.set(edit_task.id.clone());
        state.deps.set(edit_task.dependent_task_ids.join(", "));
        state.instruction.set(edit_task.instruction.clone());
        state.assignee.set(edit_task.assignee.clone());
    };
    let id = task.id.clone();
    let reset = move |_| run(shared, state, PlanEdit::Reset { task_id: id.clone() });
    view! {
        <Show when=paused>
            <span class="task-actions">
                <button class="link" data-testid=format!("edit-task-{}", task.id) on:click=edit.clone()>"edit"</button>
                " "
                <button class="link" data-testid=format!("reset-task-{}", task.id) on:click=reset.clone()>"reset"</button>
            </span>
        </Show>
    }
}

/// The form under the plan: append or edit, and finish the current task.
#[component]
pub fn PlanEditor() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let state = expect_context::<EditState>();
    // A replay's plan is the recording's: its model has no answers for edits.
    let has_plan = move || shared.state.with(|s| s.has_plan && !s.replay);
    let paused = move || !shared.running.get();
    let submit = move || {
        let edit = match state.editing.get_untracked() {
            Some(task_id) => PlanEdit::Replace {
                task_id,
                dependent_task_ids: parse_ids(&state.deps.get_untracked()),
                instruction: state.instruction.get_untracked().trim().to_string(),
                assignee: state.assignee.get_untracked().trim().to_string(),
            },
            None => PlanEdit::Append {
                task_id: state.id.get_untracked().trim().to_string(),
                dependent_task_ids: parse_ids(&state.deps.get_untracked()),
                instruction: state.instruction.get_untracked().trim().to_string(),
                assignee: state.assignee.get_untracked().trim().to_string(),
            },
        };
        run(shared, state, edit);
    };
    // A new task gets the next free id unless the person typed one.
    Effect::new(move |_| {
        let next = shared.plan.with(|plan| next_task_id(plan.tasks()));
        if state.editing.get_untracked().is_none() {
            state.id.set(next);
        }
    });
    view! {
        <Show when=has_plan>
            <div class="plan-edit" data-testid="plan-edit">
                <Show when=paused fallback=|| view! {
                    <p class="note">"Stop the team to edit the plan; the team leader is told of your edits when it resumes."</p>
                }>
                    <form on:submit=move |ev| { ev.prevent_default(); submit(); }>
                        <p class="note">{move || match state.editing.get() {
                            Some(id) => format!("Change task {id}"),
                            None => "Add a task".to_string(),
                        }}</p>
                        <div class="plan-edit-grid">
                            <label>"Id"<input type="text" data-testid="task-id" prop:value=state.id
                                disabled=move || state.editing.get().is_some()
                                on:input=move |ev| state.id.set(event_target_value(&ev)) /></label>
                            <label>"After (ids)"<input type="text" data-testid="task-deps" placeholder="1, 2" prop:value=state.deps
                                on:input=move |ev| state.deps.set(event_target_value(&ev)) /></label>
                            <label>"Assignee"<input type="text" data-testid="task-assignee" placeholder="Alex" prop:value=state.assignee
                                on:input=move |ev| state.assignee.set(event_target_value(&ev)) /></label>
                        </div>
                        <label>"Instruction"<input type="text" data-testid="task-instruction" prop:value=state.instruction
                            on:input=move |ev| state.instruction.set(event_target_value(&ev)) /></label>
                        <div class="row">
                            <button type="submit" class="primary" data-testid="task-save">
                                {move || if state.editing.get().is_some() { "Save task" } else { "Add task" }}
                            </button>
                            <Show when=move || state.editing.get().is_some()>
                                <button type="button" on:click=move |_| state.editing.set(None)>"Cancel"</button>
                            </Show>
                            <button type="button" data-testid="finish-current" on:click=move |_| run(shared, state, PlanEdit::FinishCurrent)>
                                "Finish the current task"
                            </button>
                        </div>
                    </form>
                </Show>
                {move || state.outcome.get().map(|o| match o {
                    Ok(text) => view! { <p class="note" data-testid="plan-result" role="status">{text}</p> }.into_any(),
                    Err(text) => view! { <p class="error" data-testid="plan-error" role="alert">{text}</p> }.into_any(),
                })}
            </div>
        </Show>
    }
}

/// Provide the editor's state to the plan board's components.
pub fn provide_edit_state() {
    provide_context(EditState {
        outcome: RwSignal::new(None),
        editing: RwSignal::new(None),
        id: RwSignal::new("1".into()),
        deps: RwSignal::new(String::new()),
        instruction: RwSignal::new(String::new()),
        assignee: RwSignal::new(String::new()),
    });
}
