"""What a move earns in the environments: the game's result (1 for the
winner, -1 for the loser, 0 for a draw, at the end, as PettingZoo's
connect_four_v3 gives it), or the solver's verdict on the move itself (0
when it kept the value of the position for its player, -1 when it gave a
win away to a draw or a draw to a loss, -2 a win to a loss), given at
once, so that a learner knows which move was the mistake."""

from ._native import Solver

REWARDS = ("result", "verdict")
_RANK = {"loss": 0, "draw": 1, "win": 2}


def drop(before, after):
    """The verdict on a move from the values for its player `before` and
    `after` it ('win', 'draw', 'loss'): 0, -1 or -2."""
    return min(0, _RANK[after] - _RANK[before])


def check(reward):
    """`reward` if it names one of REWARDS."""
    if reward not in REWARDS:
        raise ValueError(f"reward '{reward}': expected 'result' or 'verdict'")
    return reward


# The boards the exact solver answers at once (with the opening book
# early): the standard one and the smaller ones. On a larger board a
# position may take it minutes; there each value is searched for at most
# LARGE_BOARD_MS and a move whose value is not proven by then counts as
# kept (0).
EXACT_CELLS = 42
LARGE_BOARD_MS = 500


def cells(position):
    """The cells of `position`'s board."""
    width, height, _ = position.rules.split("x")
    return int(width) * int(height)


class Verdicts:
    """The solver's verdict on single moves, with a table kept between
    them (the opening book answers the early positions)."""

    def __init__(self):
        self.solver = Solver()

    def value(self, position):
        """The value of `position` for the player to move, None when not
        proven within LARGE_BOARD_MS on a board larger than the standard
        one."""
        if cells(position) <= EXACT_CELLS:
            return _RANK[self.solver.outcome(position)]
        outcome = self.solver.think(position, LARGE_BOARD_MS)["outcome"]
        return None if outcome is None else _RANK[outcome]

    def move(self, before, after):
        """The verdict on the move from `before` to `after`: 0, -1 or -2
        (0 when a value is not proven)."""
        was = self.value(before)
        if after.is_over():
            now = 2 if after.winner() else 1
        else:
            value = self.value(after)
            now = None if value is None else 2 - value
        if was is None or now is None:
            return 0
        return min(0, now - was)
