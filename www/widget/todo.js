// The demo host app: a todo list whose actions the tabteam assistant beside
// it may call. It hands the widget three tools (add, complete, delete all,
// the last only after the visitor approves) and keeps the list in the
// widget's readable context, so the agent sees the list as it is now. No
// inline script, no eval: it runs under the strict CSP in pkg/README.md.
//
// Query parameters (used by the end-to-end test, handy by hand):
//   base=<provider base URL>  model=<model>  storage=<storage key>
// With `base`, the assistant uses an OpenAI-compatible provider there
// without a key.
const query = new URLSearchParams(location.search);
const assistant = document.getElementById('assistant');
// Attributes are read when the element upgrades: set them before the
// package defines <tabteam-agent>.
if (query.get('base')) {
  for (const [name, value] of [['preset', 'custom'], ['base-url', query.get('base')], ['price-in', '1'], ['price-out', '2'], ['key-source', 'none']]) {
    assistant.setAttribute(name, value);
  }
}
if (query.get('model')) assistant.setAttribute('model', query.get('model'));
// With `storage`, the conversation is kept (storage-key): a reload resumes it.
if (query.get('storage')) assistant.setAttribute('storage-key', query.get('storage'));

const todos = [
  { id: 1, text: 'Water the plants', priority: 'normal', done: false },
  { id: 2, text: 'Book the dentist', priority: 'high', done: false },
];
let nextId = 3;
const list = document.getElementById('todo-list');

/** The list as the agent reads it (its context) and as tools report it. */
function describe() {
  if (!todos.length) return 'The list is empty.';
  return todos.map((t) => `${t.id}. ${t.text} (${t.priority}${t.done ? ', done' : ''})`).join('\n');
}

function render() {
  list.replaceChildren(
    ...todos.map((t) => {
      const li = document.createElement('li');
      li.className = t.done ? 'done' : '';
      li.dataset.id = String(t.id);
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = t.done;
      box.setAttribute('aria-label', `Done: ${t.text}`);
      box.addEventListener('change', () => {
        t.done = box.checked;
        changed();
      });
      const id = document.createElement('span');
      id.className = 'id';
      id.textContent = `#${t.id}`;
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = t.text;
      const priority = document.createElement('span');
      priority.className = `priority ${t.priority}`;
      priority.textContent = t.priority;
      li.append(box, id, text, priority);
      return li;
    }),
  );
  document.getElementById('todo-empty').hidden = todos.length > 0;
}

function changed() {
  render();
  assistant.setContext('todo list', describe());
}

function add(text, priority = 'normal') {
  const todo = { id: nextId++, text: text.trim(), priority, done: false };
  todos.push(todo);
  changed();
  return todo;
}

document.getElementById('add-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('new-todo');
  if (input.value.trim()) add(input.value);
  input.value = '';
});

// For the end-to-end test and the curious: the events the assistant fired.
const demo = { events: [], todos, ready: false };
window.tabteamDemo = demo;
for (const name of ['tool-call', 'tool-result', 'finished', 'error', 'ready']) {
  assistant.addEventListener(name, (event) => demo.events.push({ name, detail: event.detail }));
}
assistant.addEventListener('ready', () => {
  demo.ready = true;
});

render();
await import('./pkg/tabteam-widget.js');

// The tools: plain functions of this page. The model chooses one by name
// and gives arguments checked against `parameters`; the widget runs them.
assistant.tools = [
  {
    name: 'add_todo',
    description: 'Add an item to the visitor\'s todo list.',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'What to do, as the visitor would write it.' },
        priority: { type: 'string', enum: ['low', 'normal', 'high'], description: 'How urgent it is; normal if not said.' },
      },
      required: ['text'],
    },
    run({ text, priority }) {
      const todo = add(text, priority);
      return `Added #${todo.id} "${todo.text}". The list now:\n${describe()}`;
    },
  },
  {
    name: 'complete_todo',
    description: 'Mark an item as done, by its number.',
    parameters: { type: 'object', properties: { id: { type: 'integer', description: 'The item\'s number (#).' } }, required: ['id'] },
    run({ id }) {
      const todo = todos.find((t) => t.id === id);
      if (!todo) throw new Error(`There is no item #${id}. The items are: ${todos.map((t) => `#${t.id}`).join(', ') || 'none'}.`);
      todo.done = true;
      changed();
      return { id, text: todo.text, done: true };
    },
  },
  {
    name: 'delete_all',
    description: 'Delete every item on the list. It cannot be undone.',
    parameters: { type: 'object', properties: {} },
    confirm: true,
    run() {
      const count = todos.length;
      todos.length = 0;
      changed();
      return `Deleted ${count} items.`;
    },
  },
];
assistant.setContext('todo list', describe());
