"""`BatchSolver`: the exact answers for many positions in one call, as
numpy arrays, shared among worker threads made once with the solver (each
with its own table), so that neither a call nor a position starts a
thread; the call waits without the GIL and stops on Ctrl-C."""

import numpy as np

from ._native import _BatchSolver


class BatchSolver:
    """Exact answers for many positions (Positions or move strings, all of
    one board, none over) in one call, over `threads` worker threads (the
    processors there are, if None), each with a table of `hash_mb` MiB and
    the opening book unless `book` is False."""

    def __init__(self, *, threads=None, hash_mb=None, book=True):
        self._native = _BatchSolver(threads=threads, hash_mb=hash_mb, book=book)

    @property
    def threads(self):
        """The worker threads."""
        return self._native.threads

    def score(self, positions):
        """Each position's exact score, int32 (n,)."""
        return np.frombuffer(self._native._scores_of(list(positions)), "<i4")

    def outcome(self, positions):
        """Each position's outcome for the side to move, int32 (n,): 1 a
        win, 0 a draw, -1 a loss (cheaper than the score)."""
        return np.frombuffer(self._native._outcomes_of(list(positions)), "<i4")

    def scores(self, positions):
        """Each column's exact score, float32 (n, columns), NaN for a full
        column."""
        positions = list(positions)
        raw = np.frombuffer(self._native._column_scores_of(positions), "<i4")
        if not positions:
            return np.zeros((0, 0), np.float32)
        values = raw.reshape(len(positions), -1).astype(np.float32)
        values[raw.reshape(values.shape) == np.iinfo(np.int32).min] = np.nan
        return values

    def best_move(self, positions):
        """Each position's best column (centre-first among equal ones) and
        its score: two int32 arrays (n,)."""
        raw = np.frombuffer(self._native._best_moves_of(list(positions)), "<i4").reshape(-1, 2)
        return raw[:, 0].copy(), raw[:, 1].copy()
