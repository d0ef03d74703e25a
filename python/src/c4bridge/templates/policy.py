"""My Connect 4 policy for the course, graded as the course's Policy.

How the grader plays it: each game gets a new MyPolicy(), one call to
mount() before the first move, then one call to act(board) for each of my
moves. act must return a column that is not full, in time, and print
nothing (print goes to the grader's log, not to the game).

The board act receives is a 6 x 7 numpy array of ints:
  - board[row][column], row 0 is the TOP row and row 5 the bottom one;
  - columns are numbered 0 to 6, left to right (the grader's feedback
    numbers them the same way);
  - -1 is a piece of the first player, 1 a piece of the second player,
    0 an empty cell.
For example, after the first player drops in column 3 and the second in
column 4, the board is

    [[ 0,  0,  0,  0,  0,  0,  0],
     [ 0,  0,  0,  0,  0,  0,  0],
     [ 0,  0,  0,  0,  0,  0,  0],
     [ 0,  0,  0,  0,  0,  0,  0],
     [ 0,  0,  0,  0,  0,  0,  0],
     [ 0,  0,  0, -1,  1,  0,  0]]

and a column c is free while board[0][c] == 0. Four in a row, across, down
or diagonal, wins.

This template wins when it can, blocks the opponent's four when it must,
and otherwise plays the free column nearest the centre: make it better.
"""

import numpy as np

try:
    # The course's base class, when the course package is on the path.
    from connect4.policy import Policy
except ImportError:
    Policy = object

ROWS, COLUMNS = 6, 7


class MyPolicy(Policy):
    def mount(self, time_out=None):
        """Called once a game, with the time per move in seconds."""
        self.time_out = time_out

    def act(self, board):
        """The column (0 to 6) to play in `board`, which is not full."""
        board = np.asarray(board)
        me = -1 if np.count_nonzero(board == -1) == np.count_nonzero(board == 1) else 1
        free = [c for c in range(COLUMNS) if board[0][c] == 0]
        for player in (me, -me):  # win now, else stop the opponent's win
            for column in free:
                if wins(drop(board, column, player), player):
                    return column
        return min(free, key=lambda c: abs(c - COLUMNS // 2))


def drop(board, column, player):
    """A copy of `board` with `player`'s piece dropped in `column`."""
    after = board.copy()
    row = max(r for r in range(ROWS) if board[r][column] == 0)
    after[row][column] = player
    return after


def wins(board, player):
    """Whether `player` has four in a row on `board`."""
    mine = board == player
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(ROWS):
            for c in range(COLUMNS):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < ROWS and 0 <= cc < COLUMNS and mine[rr][cc] for rr, cc in cells):
                    return True
    return False
