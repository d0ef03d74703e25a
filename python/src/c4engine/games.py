"""Games and matches between any two players: the project's agents
(`Player`, or an agent spec such as "alphabeta:depth=4"), a course
`Policy` (a class or an instance with `act(board)`, given the course's
numpy board), a Kaggle `agent(observation, configuration)`, or any
function of a `Position` that answers a column from 0.

A player that answers a column that cannot be played loses the game by
forfeit, with the reason; an exception in a player's code is raised to the
caller with its traceback.
"""

import inspect
import random

from ._native import Player, Position, verdicts

__all__ = ["as_player", "play_game", "play_match"]


class _Struct(dict):
    """A dict read by attribute too, as Kaggle's observations are."""

    __getattr__ = dict.__getitem__


class _Function:
    """A function of a Position."""

    def __init__(self, function):
        self.function = function
        self.name = getattr(function, "__name__", "function")

    def new_game(self, seed=None):
        pass

    def choose(self, position):
        return self.function(position)


class _Kaggle:
    """A Kaggle ConnectX agent: `agent(observation, configuration)`."""

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "__name__", "agent")

    def new_game(self, seed=None):
        pass

    def choose(self, position):
        columns, rows, inarow = (int(n) for n in position.rules.split("x"))
        observation = _Struct(board=position.board("kaggle"), mark=position.to_move,
                              step=len(position), remainingOverageTime=60)
        configuration = _Struct(columns=columns, rows=rows, inarow=inarow, timeout=2,
                                actTimeout=2, episodeSteps=1000)
        return self.agent(observation, configuration)


class _Course:
    """A course `Policy`: a fresh instance each game (when given the
    class), `mount()` before its first move, `act(board)` with the course's
    numpy board."""

    def __init__(self, policy):
        self.policy = policy
        self.instance = None
        self.name = getattr(policy, "__name__", type(policy).__name__)

    def new_game(self, seed=None):
        self.instance = self.policy() if inspect.isclass(self.policy) else self.policy
        mount = getattr(self.instance, "mount", None)
        if mount is not None:
            wanted = [p for p in inspect.signature(mount).parameters.values()
                      if p.default is inspect.Parameter.empty
                      and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            mount(*([1.0] if wanted else []))

    def choose(self, position):
        if self.instance is None:
            self.new_game()
        return self.instance.act(position.board("course"))


class _Ours:
    """One of the project's agents."""

    def __init__(self, player, ms):
        self.player = player
        self.ms = ms
        self.name = player.spec

    def new_game(self, seed=None):
        self.player.new_game(seed)

    def choose(self, position):
        return self.player.choose(position, self.ms)


def as_player(player, *, ms=None):
    """`player` as an object with `name`, `new_game(seed)` and
    `choose(position) -> column`. `ms` is the time per move of the
    project's agents that play on a clock (the solver and the searcher)."""
    if isinstance(player, (_Ours, _Course, _Kaggle, _Function)):
        return player
    if isinstance(player, str):
        return _Ours(Player(player), ms)
    if isinstance(player, Player):
        return _Ours(player, ms)
    if hasattr(player, "act"):
        return _Course(player)
    if callable(player):
        required = [p for p in inspect.signature(player).parameters.values()
                    if p.default is inspect.Parameter.empty]
        return _Kaggle(player) if len(required) == 2 else _Function(player)
    raise TypeError(f"{player!r} is not a player: give a Player or agent spec, a course "
                    "Policy, a Kaggle agent or a function of a Position")


def play_game(first, second, *, opening="", rules="7x6x4", ms=None, judge=False, seed=None):
    """One game: `first` moves first from `opening` (a move string with
    columns from 1, or a Position), `second` answers. A dict of 'moves'
    (every column from 0, the opening's first), 'opening' (how many of
    them were the opening's), 'winner' (1, 2 or None for a draw),
    'forfeit' (why the loser lost, if it did not lose on the board) and,
    with `judge`, 'verdicts' (the solver's verdict on every move)."""
    players = [as_player(first, ms=ms), as_player(second, ms=ms)]
    for i, player in enumerate(players):
        player.new_game(None if seed is None else seed * 2 + i)
    position = opening if isinstance(opening, Position) else Position(opening, rules=rules)
    start = len(position)
    forfeit = winner = None
    while not position.is_over():
        mover = position.to_move
        column = players[mover - 1].choose(position)
        legal = position.legal()
        if not isinstance(column, int) and hasattr(column, "__index__"):
            column = int(column)
        if not isinstance(column, int) or column not in legal:
            forfeit = (f"{players[mover - 1].name} returned {column!r}, which is not a legal "
                       f"column (legal: {legal})")
            winner = 3 - mover
            break
        position = position.play(column)
    if forfeit is None:
        winner = position.winner()
    result = {"moves": position.columns, "opening": start, "winner": winner,
              "forfeit": forfeit}
    if judge:
        result["verdicts"] = verdicts(position)
    return result


def play_match(a, b, *, games=10, opening_plies=2, rules="7x6x4", ms=None, judge=False,
               seed=None):
    """`games` games between `a` and `b` in colour-swapped pairs, each pair
    from a random opening of `opening_plies` moves (repeatable with
    `seed`). A dict of 'wins', 'draws' and 'losses' (for `a`), 'score'
    (a's share of the points) and 'games' (each as `play_game` answers it,
    with 'a_first')."""
    if games < 1:
        raise ValueError(f"games = {games}: at least 1")
    rng = random.Random(seed)
    played = []
    wins = draws = losses = 0
    for index in range(games):
        if index % 2 == 0:
            opening = Position("", rules=rules)
            for _ in range(opening_plies):
                if opening.is_over():
                    break
                opening = opening.play(rng.choice(opening.legal()))
        a_first = index % 2 == 0
        pair = (a, b) if a_first else (b, a)
        game = play_game(*pair, opening=opening, ms=ms, judge=judge,
                         seed=None if seed is None else seed * 1000 + index)
        game["a_first"] = a_first
        played.append(game)
        a_mark = 1 if a_first else 2
        if game["winner"] is None:
            draws += 1
        elif game["winner"] == a_mark:
            wins += 1
        else:
            losses += 1
    return {"wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / games, "games": played}
