// A scripted "2048 game" run of the software company (team leader Mike and
// his members), as the local LLM server's turns. Our own test data: each
// answer is what a model would write — thoughts, then one JSON command list.

const answer = (thought, commands) => `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, 2)}\n\`\`\``;
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });
const lead = (to, brief, status) => answer('Next step.', [
  cmd('Plan.finish_current_task'),
  cmd('TeamLeader.publish_team_message', { content: brief, send_to: to }),
  cmd('RoleZero.reply_to_human', { content: status }),
  end(),
]);

export const PRD = [
  '# 2048', '', '## Product goals', '- Play 2048 in the browser', '',
  '## Competitive quadrant chart', '```mermaid', 'quadrantChart', '    title Reach and engagement',
  '    x-axis Low Reach --> High Reach', '    y-axis Low Engagement --> High Engagement',
  '    "Our game": [0.6, 0.7]', '```', '',
].join('\n');
export const DESIGN = [
  '# Design', '', '```mermaid', 'classDiagram', '    class Game {', '        +int[][] grid', '        +move(dir)', '    }', '```', '',
  '```mermaid', 'sequenceDiagram', '    participant U as User', '    participant G as Game', '    U->>G: key press', '    G-->>U: new grid', '```', '',
].join('\n');
export const GAME_JS = 'export function slide(row) { const v = row.filter(Boolean); return v.concat(Array(4 - v.length).fill(0)); }\n';

export function companyTurns() {
  return [
    { text: 'TASK' },
    {
      text: answer('A software request: plan it and start with the PRD.', [
        cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the PRD', assignee: 'Alice' }),
        cmd('Plan.append_task', { task_id: '2', dependent_task_ids: ['1'], instruction: 'Design the system', assignee: 'Bob' }),
        cmd('Plan.append_task', { task_id: '3', dependent_task_ids: ['2'], instruction: 'Write the code', assignee: 'Alex' }),
        cmd('TeamLeader.publish_team_message', { content: 'Write the PRD for: a 2048 game', send_to: 'Alice' }),
        cmd('RoleZero.reply_to_human', { content: 'Alice is writing the PRD.' }),
        end(),
      ]),
    },
    { text: answer('Writing the PRD.', [write('docs/prd.md', PRD), end()]) },
    { text: lead('Bob', 'Design it; the PRD is docs/prd.md', 'Bob is designing.') },
    { text: answer('Designing.', [write('docs/system_design.md', DESIGN), end()]) },
    { text: lead('Alex', 'Write the code from docs/system_design.md', 'Alex is coding.') },
    { text: answer('Coding.', [write('game.js', GAME_JS), write('index.html', '<!doctype html><title>2048</title><script type=module src=game.js></script>\n'), end()]) },
    {
      text: answer('All done.', [
        cmd('Plan.finish_current_task'),
        cmd('RoleZero.reply_to_human', { content: 'Your 2048 game is ready: index.html and game.js; docs/ holds the PRD and design.' }),
        end(),
      ]),
    },
  ];
}
