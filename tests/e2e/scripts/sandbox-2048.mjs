// The software company builds a playable 2048 page, QA tests it in the
// sandbox, a test fails, the failure goes to the engineer, who fixes the
// code, and QA's second run passes. Also a small "hostile" project for the
// isolation tests. Our own test data, as the local LLM server's turns; each
// turn matches its role's system prompt, since Mike and Alex answer in the
// same round.

const answer = (thought, commands) => `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, 2)}\n\`\`\``;
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });
const as = (member, text) => ({ match: `named ${member}, your goal`, text });

export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>2048</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<h1>2048</h1>
<p id="score">Score: 0</p>
<div id="board"></div>
<p class="hint">Use the arrow keys.</p>
<script type="module" src="main.js"></script>
</body>
</html>
`;

export const STYLE_CSS = `body { font-family: sans-serif; background: #faf8ef; color: #776e65; text-align: center; }
#board { display: grid; grid-template-columns: repeat(4, 64px); gap: 8px; background: #bbada0; padding: 8px; border-radius: 6px; width: max-content; margin: 0 auto; }
.tile { width: 64px; height: 64px; line-height: 64px; font-size: 24px; font-weight: bold; background: #cdc1b4; border-radius: 4px; }
.v2 { background: #eee4da; } .v4 { background: #ede0c8; } .v8 { background: #f2b179; color: #fff; }
`;

const SLIDE_BUGGY = `export function slideRow(row) {
  const tiles = row.filter((v) => v !== 0);
  return { row: tiles.concat(Array(row.length - tiles.length).fill(0)), gained: 0 };
}`;

const SLIDE_FIXED = `export function slideRow(row) {
  const tiles = row.filter((v) => v !== 0);
  const out = [];
  let gained = 0;
  for (let i = 0; i < tiles.length; i++) {
    if (tiles[i] === tiles[i + 1]) { out.push(tiles[i] * 2); gained += tiles[i] * 2; i++; }
    else out.push(tiles[i]);
  }
  return { row: out.concat(Array(row.length - out.length).fill(0)), gained };
}`;

const GAME_REST = `
// A new game: two 2s in the top row (deterministic, so a test can replay it).
export function newBoard() {
  const board = [0, 1, 2, 3].map(() => [0, 0, 0, 0]);
  board[0][1] = 2;
  board[0][3] = 2;
  return board;
}

const turn = (b) => b[0].map((_, c) => b.map((row) => row[c]).reverse());
const times = (b, n) => { for (let i = 0; i < n; i++) b = turn(b); return b; };

// Move every row towards dir: 'left', 'right', 'up' or 'down'.
export function move(board, dir) {
  const turns = { left: 0, down: 1, right: 2, up: 3 }[dir];
  let gained = 0;
  const slid = times(board, turns).map((row) => { const r = slideRow(row); gained += r.gained; return r.row; });
  const result = times(slid, (4 - turns) % 4);
  const moved = JSON.stringify(result) !== JSON.stringify(board);
  return { board: result, gained, moved };
}

// A 2 in the last empty cell (deterministic).
export function addTile(board) {
  for (let r = 3; r >= 0; r--) for (let c = 3; c >= 0; c--) if (board[r][c] === 0) { board[r][c] = 2; return board; }
  return board;
}
`;

export const GAME_JS_BUGGY = `${SLIDE_BUGGY}\n${GAME_REST}`;
export const GAME_JS_FIXED = `${SLIDE_FIXED}\n${GAME_REST}`;

export const MAIN_JS = `import { newBoard, move, addTile } from './game.js';

let board = newBoard();
let score = 0;
const view = document.getElementById('board');

function render() {
  view.replaceChildren(...board.flat().map((v) => {
    const tile = document.createElement('div');
    tile.className = 'tile' + (v ? ' v' + v : '');
    tile.textContent = v || '';
    return tile;
  }));
  document.getElementById('score').textContent = 'Score: ' + score;
}

const keys = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };
document.addEventListener('keydown', (event) => {
  const dir = keys[event.key];
  if (!dir) return;
  const result = move(board, dir);
  if (!result.moved) return;
  board = addTile(result.board);
  score += result.gained;
  console.log('moved', dir, 'score', score);
  render();
});

render();
console.log('2048 ready');
`;

export const GAME_TEST = `import { slideRow, move, newBoard } from '../game.js';

test('slides tiles to the left', () => {
  expect(slideRow([0, 2, 0, 4]).row).toEqual([2, 4, 0, 0]);
});

test('merges equal tiles once', () => {
  expect(slideRow([2, 2, 2, 2]).row).toEqual([4, 4, 0, 0]);
});

test('a left move on a new game makes a 4', () => {
  const { board, gained } = move(newBoard(), 'left');
  assert.equal(board[0][0], 4);
  assert.equal(gained, 4);
});
`;

/** The 2048 run with the write test → run → fix → run loop. */
export function debugLoopTurns() {
  return [
    as('Mike', 'TASK'),
    as('Mike', answer('Plan: the code, then the tests.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the 2048 game', assignee: 'Alex' }),
      cmd('Plan.append_task', { task_id: '2', dependent_task_ids: ['1'], instruction: 'Test the game', assignee: 'Edward' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write a 2048 game: index.html, style.css, game.js (logic), main.js (page)', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is writing the game.' }),
      end(),
    ])),
    as('Alex', answer('Writing the game.', [
      write('game.js', GAME_JS_BUGGY), write('main.js', MAIN_JS), write('index.html', INDEX_HTML), write('style.css', STYLE_CSS), end(),
    ])),
    as('Mike', answer('Next: tests.', [
      cmd('Plan.finish_current_task'),
      cmd('TeamLeader.publish_team_message', { content: 'Test game.js; the page is index.html', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is testing the game.' }),
      end(),
    ])),
    as('Edward', answer('Writing and running the tests.', [
      write('tests/game.test.js', GAME_TEST), cmd('Sandbox.preview'), cmd('Sandbox.run_tests'), end(),
    ])),
    as('Mike', answer('Waiting for the fix.', [
      cmd('RoleZero.reply_to_human', { content: 'A test fails; Alex is fixing it.' }), end(),
    ])),
    as('Alex', answer('The merge was missing; fixing slideRow.', [write('game.js', GAME_JS_FIXED), end()])),
    as('Mike', answer('Ask for a rerun.', [
      cmd('TeamLeader.publish_team_message', { content: 'Alex fixed game.js; run the tests again', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is running the tests again.' }),
      end(),
    ])),
    as('Edward', answer('Running the tests again.', [cmd('Sandbox.run_tests', { path: 'tests' }), cmd('Sandbox.read_console'), end()])),
    as('Mike', answer('All done.', [
      cmd('Plan.finish_current_task'),
      cmd('RoleZero.reply_to_human', { content: 'The 2048 game is ready and its tests pass.' }),
      end(),
    ])),
  ];
}

// What generated code would try, to reach the app. Each attempt logs
// "<what>: reached …" or "<what>: blocked <error name>".
const probesJs = (reachable) => `
async function probe(what, fn) {
  try { const v = await fn(); return what + ': reached ' + String(v).slice(0, 80); }
  catch (e) { return what + ': blocked ' + (e && e.name); }
}
const idbRead = () => new Promise((resolve, reject) => {
  const req = indexedDB.open('tabteam-e2e-secret');
  req.onsuccess = () => { try { const db = req.result; const t = db.transaction('s').objectStore('s').get('secret'); t.onsuccess = () => resolve(t.result); t.onerror = () => reject(t.error); } catch (e) { reject(e); } };
  req.onerror = () => reject(req.error);
});
export async function probes(dom) {
  const out = [];
  out.push(await probe('indexedDB', idbRead));
  out.push(await probe('localStorage', () => localStorage.getItem('tabteam-e2e-secret')));
  out.push(await probe('fetch', () => fetch('${reachable}').then((r) => r.status)));
  if (dom) {
    out.push(await probe('parent DOM', () => parent.document.querySelector('[data-testid=key]').value));
    out.push(await probe('top DOM', () => top.document.title));
    out.push(await probe('cookie', () => document.cookie));
  }
  return out;
}
`;

export const HOSTILE_PAGE = `<!doctype html><html><head><title>probe</title></head><body><p id="out">probing</p>
<script type="module">
import { probes } from './probe.js';
const lines = await probes(true);
for (const line of lines) console.log(line);
document.getElementById('out').textContent = lines.join(' | ');
</script></body></html>
`;

export const HOSTILE_TEST = `import { probes } from '../probe.js';
test('the worker cannot reach the app', async () => {
  const lines = await probes(false);
  for (const line of lines) assert(line.includes(': blocked '), line);
});
`;

export const LOOP_TEST = `test('spins forever', () => { while (true) {} });\n`;

/**
 * A run whose engineer writes the probes and an endless test. `reachable`
 * is a URL that answers any origin (the LLM server's health check), so a
 * blocked fetch is the sandbox's doing, not CORS.
 */
export function hostileTurns(reachable) {
  return [
    as('Mike', 'TASK'),
    as('Mike', answer('One task.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the page', assignee: 'Alex' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write the page', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is writing.' }),
      end(),
    ])),
    as('Alex', answer('Writing.', [
      write('probe.js', probesJs(reachable)), write('index.html', HOSTILE_PAGE), write('tests/probe.test.js', HOSTILE_TEST), write('tests/loop.test.js', LOOP_TEST), end(),
    ])),
    as('Mike', answer('Done.', [
      cmd('Plan.finish_current_task'),
      cmd('RoleZero.reply_to_human', { content: 'The page is written.' }),
      end(),
    ])),
  ];
}
