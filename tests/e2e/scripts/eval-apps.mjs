// Three scripted runs of the company for the eval's own test
// (eval-run.test.mjs): a calculator and a fruit search built correctly, a
// todo list built wrongly (it adds, but neither keeps nor deletes). Our
// own test data, as the local LLM server's turns; each turn matches its
// role's system prompt. The calculator's team leader first asks a
// question, which the eval answers with its fixed reply.
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

const plan = (what, files) => [
  as('Mike', answer('One task for Alex.', [
    cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: `Write the ${what}`, assignee: 'Alex' }),
    cmd('TeamLeader.publish_team_message', { content: `Write the ${what}`, send_to: 'Alex' }),
    cmd('RoleZero.reply_to_human', { content: `Alex is writing the ${what}.` }),
    end(),
  ])),
  as('Alex', answer('Writing it.', [...Object.entries(files).map(([p, c]) => write(p, c)), end()])),
  as('Mike', answer('Done.', [
    cmd('Plan.finish_current_task'),
    cmd('RoleZero.reply_to_human', { content: `The ${what} is ready.` }),
    end(),
  ])),
];

/** The turns of the three runs, in the order the eval runs them (task ids sorted). */
export function evalTurns() {
  return [
    // calculator: a question first, then the app with its tests.
    as('Mike', 'TASK'),
    as('Mike', answer('A question first.', [cmd('RoleZero.ask_human', { question: 'Do you need memory keys (M+, MR)?' })])),
    ...plan('calculator', { 'index.html': CALC_HTML, 'main.js': CALC_MAIN, 'calc.js': CALC_JS, 'tests/calc.test.js': CALC_TEST }),
    // fruit-search
    as('Mike', 'TASK'),
    ...plan('fruit search', { 'index.html': FRUIT_HTML }),
    // todo (wrong)
    as('Mike', 'TASK'),
    ...plan('todo list', { 'index.html': TODO_HTML }),
  ];
}
