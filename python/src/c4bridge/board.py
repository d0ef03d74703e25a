"""The game as the protocol gives it (moves from the empty board, on a board
of any supported size) and the grids that Python players expect."""

import numpy as np


class BoardError(ValueError):
    """A position the protocol sent that cannot be played; the message names
    the move."""


class Board:
    """A Connect-4 board built from moves: 1-based columns, first player
    first."""

    def __init__(self, columns=7, rows=6, inarow=4):
        self.columns, self.rows, self.inarow = columns, rows, inarow
        self.moves = []
        # cells[row][column], row 0 at the bottom: 0 empty, 1 first, 2 second.
        self.cells = [[0] * columns for _ in range(rows)]
        self.heights = [0] * columns

    def play(self, column):
        """Plays a 1-based column for the side to move."""
        if not isinstance(column, int) or not 1 <= column <= self.columns:
            raise BoardError(
                f"move {len(self.moves) + 1} ('{column}'): no column {column} on a "
                f"{self.columns}-column board"
            )
        c = column - 1
        if self.heights[c] >= self.rows:
            raise BoardError(f"move {len(self.moves) + 1} ('{column}'): column {column} is full")
        self.cells[self.heights[c]][c] = 1 + len(self.moves) % 2
        self.heights[c] += 1
        self.moves.append(column)

    @classmethod
    def from_moves(cls, moves, columns=7, rows=6, inarow=4):
        """A board after `moves`: a move string such as "4453" or a list of
        1-based columns."""
        board = cls(columns, rows, inarow)
        if isinstance(moves, str):
            for i, ch in enumerate(moves):
                if not ch.isdigit():
                    raise BoardError(f"move {i + 1} ('{ch}'): not a column number")
                board.play(int(ch))
        else:
            for m in moves:
                board.play(int(m) if isinstance(m, (int, float)) and m == int(m) else m)
        return board

    @property
    def ply(self):
        """Stones on the board."""
        return len(self.moves)

    def mover(self):
        """1 if the first player is to move, else 2."""
        return 1 + self.ply % 2

    def legal_columns(self):
        """0-based columns that are not full."""
        return [c for c in range(self.columns) if self.heights[c] < self.rows]

    def course_grid(self):
        """The course's board: a rows x columns numpy array of ints, row 0 at
        the top, -1 the first player (red), 1 the second (yellow), 0 empty."""
        grid = np.zeros((self.rows, self.columns), dtype=int)
        for r in range(self.rows):
            for c in range(self.columns):
                v = self.cells[r][c]
                grid[self.rows - 1 - r][c] = -1 if v == 1 else (1 if v == 2 else 0)
        return grid

    def kaggle_board(self):
        """Kaggle's board: one flat list, top row first, 0 empty, 1 and 2 by
        mark (the first player's mark is 1)."""
        return [self.cells[r][c] for r in range(self.rows - 1, -1, -1) for c in range(self.columns)]
