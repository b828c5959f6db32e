// Projects written the way capable models write them today (issue #35): a
// Vite-shaped React + TypeScript + Tailwind counter with a chart.js chart
// and vitest-style tests; a Preact + htm page with no build step; and a
// page whose code imports node:fs. Our own test data, as the scripted LLM
// server's turns (Mike plans, Alex writes, Edward runs the tests).

const answer = (thought, commands) => `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, 2)}\n\`\`\``;
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });
const as = (member, text) => ({ match: `named ${member}, your goal`, text });

export const REACT_PROJECT = {
  'package.json': JSON.stringify({
    name: 'click-counter',
    private: true,
    version: '0.0.0',
    type: 'module',
    scripts: { dev: 'vite', build: 'tsc && vite build', test: 'vitest' },
    dependencies: { 'chart.js': '^4.6.1', react: '^18.3.1', 'react-dom': '^18.3.1' },
    devDependencies: {
      '@types/react': '^18.3.3', '@types/react-dom': '^18.3.0', '@vitejs/plugin-react': '^4.3.1', autoprefixer: '^10.4.19',
      postcss: '^8.4.38', tailwindcss: '^3.4.4', typescript: '^5.4.5', vite: '^5.3.1', vitest: '^1.6.0',
    },
  }, null, 2),
  'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Click counter</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`,
  'vite.config.ts': `import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({ plugins: [react()] });
`,
  'tailwind.config.js': `/** @type {import('tailwindcss').Config} */
export default {
  content: ['./index.html', './src/**/*.{ts,tsx}'],
  theme: { extend: {} },
  plugins: [],
};
`,
  'postcss.config.js': `export default { plugins: { tailwindcss: {}, autoprefixer: {} } };
`,
  'tsconfig.json': `{
  "compilerOptions": {
    "target": "ES2020",
    "module": "ESNext",
    "jsx": "react-jsx",
    "strict": true,
    // Vite's template has comments in its tsconfig.
    "moduleResolution": "bundler"
  },
  "include": ["src", "tests"]
}
`,
  'src/index.css': `@tailwind base;
@tailwind components;
@tailwind utilities;
`,
  'src/counter.ts': `export interface Counter {
  count: number;
  history: number[];
}

export function increment(counter: Counter): Counter {
  const count = counter.count + 1;
  return { count, history: [...counter.history, count] };
}
`,
  'src/main.tsx': `import React from 'react';
import ReactDOM from 'react-dom/client';
import App from './App';
import './index.css';

ReactDOM.createRoot(document.getElementById('root')!).render(
  <React.StrictMode>
    <App />
  </React.StrictMode>,
);
`,
  'src/App.tsx': `import { useEffect, useRef, useState } from 'react';
import { Chart } from 'chart.js/auto';
import { increment, type Counter } from './counter';

export default function App() {
  const [counter, setCounter] = useState<Counter>({ count: 0, history: [0] });
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);

  useEffect(() => {
    if (!canvas.current) return;
    chart.current = new Chart(canvas.current, {
      type: 'line',
      data: { labels: ['0'], datasets: [{ label: 'Clicks', data: [0] }] },
      options: { animation: false },
    });
    console.log('chart ready in', import.meta.env.MODE, 'mode');
    return () => chart.current?.destroy();
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.labels = counter.history.map((_, i) => String(i));
    c.data.datasets[0].data = counter.history;
    c.update();
  }, [counter]);

  return (
    <main className="p-6 font-sans">
      <h1 className="text-2xl font-bold mb-4">Click counter</h1>
      <button
        id="count"
        className="bg-blue-500 text-white px-4 py-2 rounded"
        onClick={() => setCounter(increment(counter))}
      >
        Clicked {counter.count} times
      </button>
      <div className="mt-6 w-96"><canvas ref={canvas} /></div>
    </main>
  );
}
`,
  'tests/counter.test.ts': `import { describe, expect, it } from 'vitest';
import { Chart } from 'chart.js';
import { increment, type Counter } from '../src/counter';

describe('increment', () => {
  it('adds one and keeps the history', () => {
    const start: Counter = { count: 0, history: [0] };
    expect(increment(increment(start))).toEqual({ count: 2, history: [0, 1, 2] });
  });
  it('imports the chart package', () => {
    expect(typeof Chart).toBe('function');
  });
});
`,
};

export const PREACT_PROJECT = {
  'index.html': `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Todo</title></head>
<body>
<div id="app"></div>
<script type="module">
  import { h, render } from 'preact';
  import { useState } from 'preact/hooks';
  import htm from 'htm';
  const html = htm.bind(h);
  function Todos() {
    const [items, setItems] = useState(['Write the page']);
    return html\`<ul id="todos">\${items.map((t) => html\`<li>\${t}</li>\`)}</ul>
      <button id="add" onClick=\${() => setItems([...items, 'Item ' + (items.length + 1)])}>Add</button>\`;
  }
  render(html\`<\${Todos} />\`, document.getElementById('app'));
  console.log('preact ready');
</script>
</body>
</html>
`,
  'package.json': JSON.stringify({ name: 'todo', type: 'module', dependencies: { preact: '10.27.2', htm: '3.1.1' } }, null, 2),
  'src/store.ts': `import { readFileSync } from 'node:fs';

export function load(): string[] {
  return JSON.parse(readFileSync('todos.json', 'utf8'));
}
`,
  'tests/store.test.ts': `import { load } from '../src/store';
import { test, expect } from 'vitest';

test('loads the todos', () => {
  expect(Array.isArray(load())).toBe(true);
});
`,
};

/** Alex writes `files`; Edward runs the tests (`testRounds` times: a failing run goes to Alex, who answers once). */
export function projectTurns(files, { testRounds = 1 } = {}) {
  const turns = [
    as('Mike', 'TASK'),
    as('Mike', answer('Two tasks.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the project', assignee: 'Alex' }),
      cmd('Plan.append_task', { task_id: '2', dependent_task_ids: ['1'], instruction: 'Run the tests', assignee: 'Edward' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write the project', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is writing the project.' }),
      end(),
    ])),
    as('Alex', answer('Writing.', [...Object.entries(files).map(([p, c]) => write(p, c)), end()])),
    as('Mike', answer('Now the tests.', [
      cmd('Plan.finish_current_task'),
      cmd('TeamLeader.publish_team_message', { content: 'Run the tests', send_to: 'Edward' }),
      end(),
    ])),
  ];
  turns.push(as('Edward', answer('Running the tests.', [cmd('Sandbox.run_tests', { path: '' }), cmd('Sandbox.preview'), end()])));
  if (testRounds > 1) {
    // The failure went to Alex too; Mike waits, Alex answers, Mike closes.
    turns.push(as('Mike', answer('Waiting for Alex.', [cmd('RoleZero.reply_to_human', { content: 'A test fails; Alex is looking.' }), end()])));
    turns.push(as('Alex', answer('The store reads a file with node:fs, which the tab cannot run; it needs localStorage.', [end()])));
  }
  turns.push(as('Mike', answer('Done.', [
    cmd('Plan.finish_current_task'),
    cmd('RoleZero.reply_to_human', { content: 'The project is written and tested.' }),
    end(),
  ])));
  return turns;
}
