// Three scripted runs of the company for the eval's own test
// (eval-run.test.mjs): a calculator and a fruit search built correctly, a
// todo list built wrongly (it adds, but neither keeps nor deletes). Our
// own test data, as the local LLM server's turns; each turn matches its
// role's system prompt. The calculator's team leader first asks a
// question, which the eval answers with its fixed reply, and its QA
// engineer's test fails once (a fix round) before the engineer's fix; the fruit
// search's engineer writes a trailing comma (repaired locally); the todo
// list's team leader first answers without any command list (refused, and
// asked again).
import { readFileSync } from 'node:fs';

const answer = (thought, commands) => `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, 2)}\n\`\`\``;
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });
const as = (member, text) => ({ match: `named ${member}, your goal`, text });

export const CALC_JS = `export function apply(a, op, b) {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
  }
  throw new Error('unknown operation ' + op);
}
`;

// The first calc.js divides wrongly; QA's test catches it.
const CALC_JS_BUGGY = CALC_JS.replace('return a / b;', 'return a * b;');

const CALC_MAIN = `import { apply } from './calc.js';
const display = document.getElementById('display');
let current = '0', stored = null, op = null, fresh = true;
function show() { display.textContent = current; }
function key(k) {
  if (/^\\d$/.test(k)) { current = fresh ? k : current + k; fresh = false; }
  else if (k === 'C') { current = '0'; stored = null; op = null; fresh = true; }
  else if (k === '=') { if (op) { current = String(apply(stored, op, Number(current))); op = null; fresh = true; } }
  else { stored = op ? apply(stored, op, Number(current)) : Number(current); op = k; fresh = true; }
  show();
}
document.querySelectorAll('button').forEach((b) => b.addEventListener('click', () => key(b.dataset.key)));
show();
`;

const CALC_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Calculator</title>
<style>.keys { display: grid; grid-template-columns: repeat(4, 3rem); gap: 4px } #display { font: 2rem monospace }</style></head>
<body>
<div id="display">0</div>
<div class="keys">
${['7', '8', '9', '/', '4', '5', '6', '*', '1', '2', '3', '-', '0', 'C', '=', '+'].map((k) => `<button data-key="${k}">${{ '/': '÷', '*': '×', '-': '−' }[k] ?? k}</button>`).join('\n')}
</div>
<script type="module" src="main.js"></script>
</body></html>
`;

const CALC_TEST = `import { apply } from '../calc.js';
test('adds', () => { expect(apply(7, '+', 8)).toEqual(15); });
test('divides', () => { expect(apply(8, '/', 2)).toEqual(4); });
`;

const FRUIT_HTML = readFileSync(new URL('../../../eval/reference/fruit-search/index.html', import.meta.url), 'utf8');

// Adds to the list, but keeps nothing and deletes nothing.
const TODO_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Todo</title></head>
<body>
<h1>Todo</h1>
<input id="task" placeholder="What needs doing?">
<ul id="list"></ul>
<script>
document.getElementById('task').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !e.target.value.trim()) return;
  const li = document.createElement('li');
  li.textContent = e.target.value.trim();
  document.getElementById('list').append(li);
  e.target.value = '';
});
</script>
</body></html>
`;

/** An answer whose JSON has trailing commas, as models often write it. */
const trailingCommas = (thought, commands) => answer(thought, commands).replace(/\n\]\n```$/, ',\n]\n```');

const plan = (what, files, { sloppy = false } = {}) => [
  as('Mike', answer('One task for Alex.', [
    cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: `Write the ${what}`, assignee: 'Alex' }),
    cmd('TeamLeader.publish_team_message', { content: `Write the ${what}`, send_to: 'Alex' }),
    cmd('RoleZero.reply_to_human', { content: `Alex is writing the ${what}.` }),
    end(),
  ])),
  as('Alex', (sloppy ? trailingCommas : answer)('Writing it.', [...Object.entries(files).map(([p, c]) => write(p, c)), end()])),
  as('Mike', answer('Done.', [
    cmd('Plan.finish_current_task'),
    cmd('RoleZero.reply_to_human', { content: `The ${what} is ready.` }),
    end(),
  ])),
];

/** The turns of the three runs, in the order the eval runs them (task ids sorted). */
export function evalTurns() {
  return [
    // calculator: a question first, then the app; QA's tests fail once, Alex fixes, they pass.
    as('Mike', 'TASK'),
    as('Mike', answer('A question first.', [cmd('RoleZero.ask_human', { question: 'Do you need memory keys (M+, MR)?' })])),
    as('Mike', answer('Plan: the code, then the tests.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the calculator', assignee: 'Alex' }),
      cmd('Plan.append_task', { task_id: '2', dependent_task_ids: ['1'], instruction: 'Test the calculator', assignee: 'Edward' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write the calculator: index.html, main.js, calc.js (apply)', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is writing the calculator.' }),
      end(),
    ])),
    as('Alex', answer('Writing it.', [write('index.html', CALC_HTML), write('main.js', CALC_MAIN), write('calc.js', CALC_JS_BUGGY), end()])),
    as('Mike', answer('Next: tests.', [
      cmd('Plan.finish_current_task'),
      cmd('TeamLeader.publish_team_message', { content: 'Test calc.js', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is testing the calculator.' }),
      end(),
    ])),
    as('Edward', answer('Writing and running the tests.', [write('tests/calc.test.js', CALC_TEST), cmd('Sandbox.run_tests'), end()])),
    as('Mike', answer('Waiting for the fix.', [cmd('RoleZero.reply_to_human', { content: 'A test fails; Alex is fixing it.' }), end()])),
    as('Alex', answer('Division multiplied; fixing apply.', [write('calc.js', CALC_JS), end()])),
    as('Mike', answer('Ask for a rerun.', [
      cmd('TeamLeader.publish_team_message', { content: 'Alex fixed calc.js; run the tests again', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is running the tests again.' }),
      end(),
    ])),
    as('Edward', answer('Running the tests again.', [cmd('Sandbox.run_tests'), end()])),
    as('Mike', answer('All done.', [
      cmd('Plan.finish_current_task'),
      cmd('RoleZero.reply_to_human', { content: 'The calculator is ready and its tests pass.' }),
      end(),
    ])),
    // fruit-search
    as('Mike', 'TASK'),
    ...plan('fruit search', { 'index.html': FRUIT_HTML }, { sloppy: true }),
    // todo (wrong), after an answer with no command list
    as('Mike', 'TASK'),
    as('Mike', 'I will ask Alex to write the todo list right away.'),
    ...plan('todo list', { 'index.html': TODO_HTML }),
  ];
}
