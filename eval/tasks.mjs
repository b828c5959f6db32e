//! The task set: every `*.mjs` of a directory (eval/tasks/ by default),
//! each exporting {id, title, idea, checks: [{name, run}]}, in the order of
//! their file names. A check's `run({page, reload, wait})` throws when the
//! app fails it; the helpers it may use are in eval/checks.mjs (a task set
//! elsewhere imports them from there). It checks their shape, nothing else.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

export const TASKS_DIR = fileURLToPath(new URL('./tasks/', import.meta.url));

/** The tasks of `dir`; with `only`, just those ids (an unknown id is an error that lists the known ones). */
export async function loadTasks(dir = TASKS_DIR, only = null) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort();
  const tasks = [];
  for (const f of files) {
    const task = (await import(pathToFileURL(resolve(join(dir, f))).href)).default;
    if (!task || typeof task.id !== 'string' || typeof task.idea !== 'string' || !Array.isArray(task.checks) || task.checks.length === 0) {
      throw new Error(`${f} does not export a task {id, title, idea, checks}`);
    }
    tasks.push(task);
  }
  if (!only) return tasks;
  const unknown = only.filter((id) => !tasks.some((t) => t.id === id));
  if (unknown.length) throw new Error(`no task named ${unknown.join(', ')} in ${dir} (there are: ${tasks.map((t) => t.id).join(', ')})`);
  return tasks.filter((t) => only.includes(t.id));
}
