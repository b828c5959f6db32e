// The eval's acceptance checks (eval/tasks/) judged on known apps: each
// task's checks all pass on its hand-written reference app (eval/reference/,
// built unlike what the checks' author would picture) and all fail on a
// blank page. Three reference apps at a time and every blank page at once,
// in one Chromium: about half a minute.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, after, describe, test } from 'node:test';
import { root } from './harness.mjs';
import { launchBrowser } from '../../eval/browser.mjs';
import { loadTasks } from '../../eval/tasks.mjs';
import { runChecks } from '../../eval/checks.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const tasks = await loadTasks();
const env = {};

before(async () => {
  env.site = await startStaticServer({ root: join(root, 'eval', 'reference') });
  env.browser = await launchBrowser();
  // The blank pages only wait for what never shows: all at once.
  env.blank = new Map(tasks.map((t) => [t.id, runChecks(env.browser, t, `${env.site.url}/blank/`)]));
});
after(async () => {
  await env.browser?.close();
  await env.site?.close();
});

test('the task set has at least 12 ideas, each with at least 3 checks', () => {
  assert.ok(tasks.length >= 12, `${tasks.length} tasks`);
  for (const t of tasks) assert.ok(t.checks.length >= 3, `${t.id} has ${t.checks.length} checks`);
  assert.deepEqual(new Set(tasks.map((t) => t.id)).size, tasks.length, 'task ids are unique');
});

describe('each task: its reference app passes every check, a blank page fails every one', { concurrency: 3 }, () => {
  for (const task of tasks) {
    test(task.id, async () => {
      const good = await runChecks(env.browser, task, `${env.site.url}/${task.id}/`);
      const blank = await env.blank.get(task.id);
      const failed = good.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.error}`);
      assert.deepEqual(failed, [], `the reference app of ${task.id} fails`);
      assert.deepEqual(good.pageErrors, [], `the reference app of ${task.id} throws`);
      assert.deepEqual(blank.checks.filter((c) => c.passed).map((c) => c.name), [], `checks of ${task.id} that a blank page passes`);
    });
  }
});
