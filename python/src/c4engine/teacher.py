"""The teacher: how often a player's moves keep the solver's value of the
position (a win stays a win, a draw a draw), over positions you give or
over games against an opponent, and where they gave it away. A win rate
says how a player fares against one opponent; accuracy says how close to
perfect its moves are, whoever it plays."""

import random

from ._native import Position, Solver
from .games import as_player, play_game
from .rewards import Verdicts, drop

__all__ = ["accuracy"]


def _position(item, rules):
    """A Position from a Position, a move string, or a (moves, score) pair
    as the public solved sets list them."""
    if isinstance(item, Position):
        return item
    if isinstance(item, (tuple, list)):
        item = item[0]
    return Position(item, rules=rules)


def accuracy(player, positions=None, *, games=20, opponent="random", rules="7x6x4",
             ms=None, seed=None, keep=20):
    """The share of `player`'s moves that keep the solver's value.

    Over `positions` (Positions, move strings, or (moves, score) pairs as
    in the public solved sets) when given: the player's move in each.
    Otherwise over `games` games against `opponent` in colour-swapped
    pairs from random two-move openings (`seed` repeats them): every move
    of the player's that the solver proves.

    A dict of 'accuracy' (kept / judged, or None when nothing was judged),
    'kept', 'judged', and 'lost': up to `keep` of the moves that gave the
    value away, each with its 'position', 'column', a 'keeping' column and
    'drop' (-1: a win to a draw or a draw to a loss; -2: a win to a loss).
    """
    ours = as_player(player, ms=ms)
    if positions is not None:
        return _tally(*_judge_positions(ours, positions, rules, keep))
    rng = random.Random(seed)
    solver = Solver()
    kept = judged = 0
    lost = []
    for index in range(games):
        if index % 2 == 0:
            opening = Position("", rules=rules)
            for _ in range(2):
                opening = opening.play(rng.choice(opening.legal()))
        mark = 1 if index % 2 == 0 else 2
        pair = (ours, opponent) if mark == 1 else (opponent, ours)
        game = play_game(*pair, opening=opening, ms=ms, judge=True,
                         seed=None if seed is None else seed * 1000 + index)
        position = Position.from_columns(game["moves"][:game["opening"]], rules=rules)
        for verdict in game["verdicts"][game["opening"]:]:
            mine = position.to_move == mark
            if mine and verdict["before"] is not None and verdict["after"] is not None:
                judged += 1
                if verdict["lost"]:
                    if len(lost) < keep:
                        lost.append({"position": position, "column": verdict["column"],
                                     "keeping": verdict["keeping"]
                                     if verdict["keeping"] is not None
                                     else solver.best_move(position),
                                     "drop": drop(verdict["before"], verdict["after"])})
                else:
                    kept += 1
            position = position.play(verdict["column"])
    return _tally(kept, judged, lost)


def _judge_positions(player, positions, rules, keep):
    """(kept, judged, lost) of `player`'s move in each of `positions`."""
    judge = Verdicts()
    kept = judged = 0
    lost = []
    for item in positions:
        position = _position(item, rules)
        if position.is_over():
            continue
        player.new_game(None)
        column = player.choose(position)
        if column not in position.legal():
            raise ValueError(f"{player.name} answered {column!r} in {position!r}, "
                             f"which is not a legal column (legal: {position.legal()})")
        given = judge.move(position, position.play(column))
        judged += 1
        if given == 0:
            kept += 1
        elif len(lost) < keep:
            lost.append({"position": position, "column": column,
                         "keeping": judge.solver.best_move(position), "drop": given})
    return kept, judged, lost


def _tally(kept, judged, lost):
    return {"accuracy": kept / judged if judged else None, "kept": kept, "judged": judged,
            "lost": lost}
