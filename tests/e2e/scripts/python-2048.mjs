// The software company writes a command-line 2048 game in Python, as
// MetaGPT's own recorded runs write such a project (game.py with a Game
// class, main.py reading moves with input(), tests/test_game.py with
// unittest): QA's first run fails (the merge is missing), the failure goes
// to the engineer, the fix passes. Then a follow-up whose change makes a
// move loop for ever, and so a test (stopped by the time limit, so the version breaks the
// tests). main.py has a bug of its own: "n" (a new game) calls a method
// Game does not have, so the Terminal shows a traceback. Our own test data, as the local LLM server's turns; each turn
// matches its role's system prompt.

const answer = (thought, commands) => `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, 2)}\n\`\`\``;
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });
const as = (member, text) => ({ match: `named ${member}, your goal`, text });

const MERGE_BUGGY = `    @staticmethod
    def merge_row(row):
        """Slides a row's tiles to the left; returns the new row and the points gained."""
        tiles = [v for v in row if v]
        return tiles + [0] * (len(row) - len(tiles)), 0
`;

const MERGE_FIXED = `    @staticmethod
    def merge_row(row):
        """Slides a row's tiles to the left, merging equal neighbours once; returns the new row and the points gained."""
        tiles = [v for v in row if v]
        merged, gained, i = [], 0, 0
        while i < len(tiles):
            if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
                merged.append(tiles[i] * 2)
                gained += tiles[i] * 2
                i += 2
            else:
                merged.append(tiles[i])
                i += 1
        return merged + [0] * (len(row) - len(merged)), gained
`;

const game = (merge) => `import random


class Game:
    """The 2048 board: a square grid of tiles, the score, and the four moves."""

    def __init__(self, size=4, seed=None):
        self.size = size
        self.score = 0
        self.random = random.Random(seed)
        self.board = [[0] * size for _ in range(size)]
        self.add_tile()
        self.add_tile()

    def add_tile(self):
        empty = [(r, c) for r in range(self.size) for c in range(self.size) if self.board[r][c] == 0]
        if empty:
            r, c = self.random.choice(empty)
            self.board[r][c] = 4 if self.random.random() < 0.1 else 2

${merge}
    def move(self, direction):
        """Moves every tile towards 'left', 'right', 'up' or 'down'; True if anything moved."""
        turns = {"left": 0, "down": 1, "right": 2, "up": 3}[direction]
        board = self.board
        for _ in range(turns):
            board = [list(row) for row in zip(*board[::-1])]
        rows = []
        for row in board:
            new_row, gained = self.merge_row(row)
            self.score += gained
            rows.append(new_row)
        for _ in range((4 - turns) % 4):
            rows = [list(row) for row in zip(*rows[::-1])]
        moved = rows != self.board
        self.board = rows
        return moved

    def can_move(self):
        for r in range(self.size):
            for c in range(self.size):
                if self.board[r][c] == 0:
                    return True
                if c + 1 < self.size and self.board[r][c] == self.board[r][c + 1]:
                    return True
                if r + 1 < self.size and self.board[r][c] == self.board[r + 1][c]:
                    return True
        return False
`;

export const GAME_PY_BUGGY = game(MERGE_BUGGY);
export const GAME_PY_FIXED = game(MERGE_FIXED);

export const MAIN_PY = `from game import Game

KEYS = {"a": "left", "d": "right", "w": "up", "s": "down"}


def render(game):
    print(f"Score: {game.score}")
    for row in game.board:
        print(" ".join(f"{v:4}" if v else "   ." for v in row))


def main():
    game = Game(seed=2048)
    print("2048 in the terminal: w/a/s/d to move, n for a new game, q to quit.")
    while True:
        render(game)
        if not game.can_move():
            print("Game over!")
            break
        key = input("Move (w/a/s/d, q quits): ").strip().lower()
        if key == "q":
            print(f"Bye! Final score: {game.score}")
            break
        if key == "n":
            game = Game.new_game()
            continue
        if key not in KEYS:
            print("Use w, a, s or d.")
            continue
        if game.move(KEYS[key]):
            game.add_tile()


if __name__ == "__main__":
    main()
`;

export const TEST_GAME_PY = `import unittest

from game import Game


class TestMergeRow(unittest.TestCase):
    def test_slides_tiles_left(self):
        self.assertEqual(Game.merge_row([0, 2, 0, 4]), ([2, 4, 0, 0], 0))

    def test_merges_equal_tiles_once(self):
        self.assertEqual(Game.merge_row([2, 2, 2, 2]), ([4, 4, 0, 0], 8))


def test_new_game_has_two_tiles():
    game = Game(seed=1)
    assert sum(1 for row in game.board for v in row if v) == 2


def test_left_move_scores_the_merge():
    game = Game(seed=1)
    game.board = [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    assert game.move("left")
    assert game.board[0] == [4, 0, 0, 0]
    assert game.score == 4
`;

/** The first request: write, test (fails), fix, test again (passes). */
export function pythonTurns() {
  return [
    as('Mike', 'TASK'),
    as('Mike', answer('Plan: the code, then the tests.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the command-line 2048 game in Python', assignee: 'Alex' }),
      cmd('Plan.append_task', { task_id: '2', dependent_task_ids: ['1'], instruction: 'Test the game', assignee: 'Edward' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write a command-line 2048 game in Python: game.py (the Game class), main.py (reads moves with input())', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is writing the game.' }),
      end(),
    ])),
    as('Alex', answer('Writing the game.', [write('game.py', GAME_PY_BUGGY), write('main.py', MAIN_PY), end()])),
    as('Mike', answer('Next: tests.', [
      cmd('Plan.finish_current_task'),
      cmd('TeamLeader.publish_team_message', { content: 'Test game.py with unittest', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is testing the game.' }),
      end(),
    ])),
    as('Edward', answer('Writing and running the tests.', [write('tests/test_game.py', TEST_GAME_PY), cmd('Sandbox.run_tests'), end()])),
    as('Mike', answer('Waiting for the fix.', [cmd('RoleZero.reply_to_human', { content: 'A test fails; Alex is fixing it.' }), end()])),
    as('Alex', answer('The merge was missing; fixing merge_row.', [cmd('Editor.replace', { path: 'game.py', old: MERGE_BUGGY, new: MERGE_FIXED }), end()])),
    as('Mike', answer('Ask for a rerun.', [
      cmd('TeamLeader.publish_team_message', { content: 'Alex fixed game.py; run the tests again', send_to: 'Edward' }),
      cmd('RoleZero.reply_to_human', { content: 'Edward is running the tests again.' }),
      end(),
    ])),
    as('Edward', answer('Running the tests again.', [cmd('Sandbox.run_tests', { path: 'tests' }), end()])),
    as('Mike', answer('All done.', [
      cmd('Plan.finish_current_task'),
      cmd('RoleZero.reply_to_human', { content: 'The 2048 game is ready: run main.py in the Terminal. Its tests pass.' }),
      end(),
    ])),
  ];
}

/** The follow-up: a change that makes merging loop for ever. */
export function loopingFollowUp() {
  return [
    as('Mike', 'TASK'),
    as('Mike', answer('One task for Alex.', [
      cmd('Plan.append_task', { task_id: '3', dependent_task_ids: [], instruction: 'Let a move wait until the board settles', assignee: 'Alex' }),
      cmd('TeamLeader.publish_team_message', { content: 'Let Game.move wait until the board settles', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is on it.' }),
      end(),
    ])),
    as('Alex', answer('Waiting for the board.', [cmd('Editor.replace', { path: 'game.py', old: '        moved = rows != self.board\n', new: '        while rows != self.board:\n            pass\n        moved = True\n' }), end()])),
    as('Mike', answer('Done.', [cmd('Plan.finish_current_task'), cmd('RoleZero.reply_to_human', { content: 'A move waits for the board now.' }), end()])),
  ];
}
