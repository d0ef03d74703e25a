"""The course's game state (a stand-in): a 6 x 7 board, row 0 at the top,
-1 red (first), 1 yellow (second), 0 empty."""

import numpy as np


class ConnectState:
    ROWS, COLS = 6, 7

    def __init__(self, board=None):
        self.board = np.zeros((6, 7), dtype=int) if board is None else np.array(board)

    def player(self):
        """-1 if red is to move, else 1."""
        return -1 if np.count_nonzero(self.board) % 2 == 0 else 1

    def legal(self):
        return [c for c in range(7) if self.board[0][c] == 0]

    def play(self, c):
        b = self.board.copy()
        r = max(r for r in range(6) if b[r][c] == 0)
        b[r][c] = self.player()
        return ConnectState(b)

    def wins(self, who):
        b = self.board
        for r in range(6):
            for c in range(7):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(4)]
                    if all(0 <= y < 6 and 0 <= x < 7 and b[y][x] == who for y, x in cells):
                        return True
        return False
