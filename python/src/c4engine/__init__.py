"""The connect4 engine inside Python: positions, the exact solver and the
clocked search, in-process (no subprocess, no JSON).

    >>> import c4engine
    >>> p = c4engine.Position("4453")        # the command line's moves, columns from 1
    >>> p.legal()                            # columns from 0 from here on
    [0, 1, 2, 3, 4, 5, 6]
    >>> c4engine.best_move(p)
    2
    >>> c4engine.score(c4engine.Position.from_columns([3, 3, 4]))
    2
    >>> c4engine.scores("4453")              # None for a full column
    [-5, -5, -2, -3, -4, -2, -2]

Positions come from a move string (`Position("4453")`, columns from 1 as
the command line writes them), a list of columns from 0
(`Position.from_columns([3, 3, 4, 2])`) or a board array
(`Position.from_board(board, convention="course")`: the course's 6 x 7
numpy board, row 0 on top, -1 the first player, 1 the second; "kaggle":
ConnectX's flat board of 1 and 2, or its observation; "pettingzoo":
connect_four_v3's planes of the player to move and the opponent, or its
observation; "openspiel": connect_four's observation tensor, or a pyspiel
state). Every column the module answers or takes after that counts
from 0.

Scores are the solver's: from the side to move, positive when it wins,
the larger the sooner (on the standard board, 22 minus the number of its
own stones at the win), 0 for a draw, negative when it loses.

The functions below use one shared `Solver` (with the opening book);
make your own `Solver(book=..., hash_mb=..., threads=...)` to keep its
table apart. Long calls release the GIL and stop on Ctrl-C
(KeyboardInterrupt). Bad positions and moves raise `PositionError`, a
`ValueError`, in the words of the command line, columns counted as the
input counted them.

Players: `Player(spec)` is any of the project's agents ('random',
'greedy', 'minimax:depth=4', 'alphabeta:depth=4,eval=windows',
'expectimax', 'mcts', 'qlearning:model=FILE', 'perfect'), and
`play_game` / `play_match` play them against each other or against a
course Policy, a Kaggle agent or a function of a Position; `verdicts`
judges every move of a game with the solver.

The teacher: `accuracy(player, positions)` or `accuracy(player,
games=N, opponent=...)` is the share of a player's moves that keep the
solver's value, with the moves that gave it away.

Environments: `pettingzoo_env()` (PettingZoo's connect_four_v3 on the
engine), `gymnasium_env(opponent)` (one agent against any player) and
`kaggle_agent(player)` (a ConnectX agent), `openspiel_bot(player)` and
`textarena_agent(player)` (for TextArena's ConnectFour-v0),
the environments rewarding by the game's
result or, with reward="verdict", by the solver's verdict on each move.

This package is not the course's `connect4` package: both can be
imported side by side. `c4engine.__version__` is its version, the
engine's.
"""

import threading

from . import _native
from ._native import Player, Position, PositionError, Solver, __version__, verdicts
from .batch import BatchSolver
from .envs import gymnasium_env, kaggle_agent, openspiel_bot, pettingzoo_env, textarena_agent
from .games import as_player, play_game, play_match
from .teacher import accuracy

try:
    import gymnasium as _gymnasium  # noqa: F401 (only to know it is there)
except ImportError:
    pass
else:
    from .registration import register as _register
    _register()

__all__ = [
    "LEVELS",
    "BatchSolver",
    "accuracy",
    "level",
    "Player",
    "Position",
    "PositionError",
    "Solver",
    "as_player",
    "gymnasium_env",
    "kaggle_agent",
    "openspiel_bot",
    "pettingzoo_env",
    "textarena_agent",
    "play_game",
    "play_match",
    "verdicts",
    "best_move",
    "outcome",
    "principal_variation",
    "score",
    "scores",
    "think",
]

# Players to practise against, weakest first: level(n) is LEVELS[n - 1].
# Each is bounded by depth, simulations or nodes, never by time, so that a
# level is as strong on a slow machine as on a fast one. Their measured
# scores against each other are in docs/python.md
# (scripts/measure-levels.py measures them). The engine's list
# (connect4::agents::LEVELS), which the web server's /solve plays too.
LEVELS = list(_native.LEVELS)


def level(n, *, seed=None):
    """The player of difficulty level `n` (1, the weakest, to
    len(LEVELS), the perfect player)."""
    if not isinstance(n, int) or not 1 <= n <= len(LEVELS):
        raise ValueError(f"level {n!r}: levels are 1 to {len(LEVELS)}")
    return Player(LEVELS[n - 1], seed=seed)


_shared = None
_shared_lock = threading.Lock()


def _solver():
    """The shared solver, made on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Solver()
        return _shared


def score(position):
    """The exact score of `position` (a Position or a move string)."""
    return _solver().score(position)


def scores(position):
    """Each column's exact score, None for a full column."""
    return _solver().scores(position)


def outcome(position):
    """'win', 'draw' or 'loss' for the side to move."""
    return _solver().outcome(position)


def best_move(position, *, tie_break="centre"):
    """A best column (from 0); ties go to the first in centre-first order
    ('centre'), the lowest column ('left') or one at random ('random')."""
    return _solver().best_move(position, tie_break=tie_break)


def principal_variation(position):
    """The columns of a perfectly played game from `position` to its end."""
    return _solver().principal_variation(position)


def think(position, ms):
    """The clocked search's answer within `ms` milliseconds (see
    Solver.think)."""
    return _solver().think(position, ms)
