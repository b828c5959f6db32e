// One scripted request for the team leader Mike and his engineer Alex, as
// the local LLM server's turns: Mike gives Alex one task, Alex does the
// work, Mike closes it and tells the person. Our own test data; shared by
// the journeys that run a first request and a follow-up (iterate, summary,
// bill).
import { roleZeroAnswer as answer } from '../harness.mjs';

export const cmd = (name, args = {}) => ({ command_name: name, args });
export const end = () => ({ command_name: 'end' });

/** The turns as [role, turn] pairs: who answers each (for tests that route or bill by role). */
export function oneTaskByRole(id, instruction, work, done) {
  return [
    ['Mike', { text: 'TASK' }],
    ['Mike', { text: answer('One task for Alex.', [
      cmd('Plan.append_task', { task_id: id, dependent_task_ids: [], instruction, assignee: 'Alex' }),
      cmd('TeamLeader.publish_team_message', { content: instruction, send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is on it.' }),
      end(),
    ]) }],
    ['Alex', { text: answer('On it.', [...work, end()]) }],
    ['Mike', { text: answer('Done.', [cmd('Plan.finish_current_task'), cmd('RoleZero.reply_to_human', { content: done }), end()]) }],
  ];
}

/** The same turns, in the order the server answers them. */
export const oneTask = (id, instruction, work, done) => oneTaskByRole(id, instruction, work, done).map(([, turn]) => turn);
