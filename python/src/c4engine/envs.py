"""The environments students train in, on the engine: PettingZoo's AEC
environment (`connect_four_v3`'s agents, spaces, observations, action
mask and illegal-move rule), a Gymnasium environment for one agent
against any player, a Kaggle ConnectX `agent`, an OpenSpiel bot and a
TextArena agent of any of the project's players. pettingzoo, gymnasium,
pyspiel and textarena are imported only when asked for."""

from .games import as_player
from ._native import Position


def pettingzoo_env(*, rules="7x6x4", reward="result", render_mode=None):
    """A PettingZoo AEC environment (needs pettingzoo): `reward` is
    'result' (1, -1 or 0 at the end, as connect_four_v3) or 'verdict'
    (each move's solver verdict: 0 kept, -1 or -2 gave the value away)."""
    from .aec import ConnectFour
    return ConnectFour(rules=rules, reward=reward, render_mode=render_mode)


def gymnasium_env(opponent="random", *, play_first=True, rules="7x6x4", reward="result",
                  ms=None, render_mode=None):
    """A Gymnasium environment (needs gymnasium) for one agent against
    `opponent` (a Player or agent spec, or any player `as_player` takes),
    moving first unless `play_first` is False."""
    from .gym import ConnectFourVs
    return ConnectFourVs(opponent, play_first=play_first, rules=rules, reward=reward, ms=ms,
                         render_mode=render_mode)


def kaggle_agent(player="perfect", *, ms=None):
    """A Kaggle agent `agent(observation, configuration)` playing as
    `player` (a Player or agent spec): of ConnectX (it answers the column,
    from 0), and of Kaggle's Game Arena Connect Four
    (`open_spiel_connect_four`, needs open_spiel: it answers
    `{"submission": column}`, and -1 on the set-up step, whose
    observation has no state)."""
    ours = as_player(player, ms=ms)

    def agent(observation, configuration):
        board = _field(observation, "board")
        if board is None:
            return _game_arena_move(ours, _field(observation, "serializedGameAndState"))
        columns, rows, inarow = (_field(configuration, k, required=True)
                                 for k in ("columns", "rows", "inarow"))
        position = Position.from_board(list(board), convention="kaggle",
                                       rules=f"{columns}x{rows}x{inarow}")
        return int(ours.choose(position))

    agent.__name__ = f"c4engine_{getattr(ours, 'name', 'player')}"
    return agent


def _field(record, key, required=False):
    """`record`'s `key`, a dict's item or a Kaggle Struct's attribute: None
    when it has none, or unless `required`, KeyError or AttributeError."""
    if isinstance(record, dict):
        return record[key] if required else record.get(key)
    return getattr(record, key) if required else getattr(record, key, None)


def _game_arena_move(ours, serialized):
    """The submission of `ours` in Game Arena's OpenSpiel state
    `serialized`: -1 on the set-up step, which shows none."""
    if not serialized:
        return {"submission": -1}
    import pyspiel
    _, state = pyspiel.deserialize_game_and_state(serialized)
    return {"submission": int(ours.choose(Position.from_board(state, convention="openspiel")))}


def openspiel_bot(player="perfect", *, ms=None):
    """A `pyspiel.Bot` (needs open_spiel) playing OpenSpiel's
    `connect_four` as `player` (a Player or agent spec)."""
    import pyspiel

    ours = as_player(player, ms=ms)

    class Bot(pyspiel.Bot):
        """`player` as an OpenSpiel bot."""

        def __init__(self):
            pyspiel.Bot.__init__(self)

        def step(self, state):
            return int(ours.choose(Position.from_board(state, convention="openspiel")))

        def restart_at(self, state):
            ours.new_game()

        def inform_action(self, state, player_id, action):
            pass

        def provides_policy(self):
            return False

        def provides_force_action(self):
            return False

        def is_clonable(self):
            return False

    return Bot()


def textarena_agent(player="perfect", *, ms=None):
    """A TextArena agent (`agent(observation) -> action`) for its
    `ConnectFour-v0`, playing as `player` (a Player or agent spec): it
    reads the last board the observation shows (TextArena's grid of `.`,
    `X` for player 0, who moves first, and `O`, the top row first) and
    answers `[col N]`, columns from 0. A `textarena.core.Agent` where
    textarena is installed, so that its wrappers take it; a function
    otherwise."""
    ours = as_player(player, ms=ms)

    def act(observation):
        return f"[col {int(ours.choose(textarena_position(observation)))}]"

    try:
        from textarena.core import Agent
    except ImportError:
        act.__name__ = f"c4engine_{getattr(ours, 'name', 'player')}"
        return act

    class TextArenaAgent(Agent):
        """`player` as a TextArena agent."""

        def __call__(self, observation):
            return act(observation)

    return TextArenaAgent()


# The line above each board of TextArena's Connect Four, and its cells.
_BOARD_STATE = "Board state:"
_CELLS = {".": 0, "X": -1, "O": 1}


def textarena_position(observation):
    """The Position of the last board in TextArena's Connect Four
    `observation` (its text); ValueError when it shows none."""
    if not isinstance(observation, str):
        raise TypeError(f"a TextArena observation is a str, not {type(observation).__name__}")
    at = observation.rfind(_BOARD_STATE)
    if at < 0:
        raise ValueError("the observation shows no board (TextArena's 'Board state:'): "
                         "the agent needs the game open (is_open=True)")
    lines = observation[at + len(_BOARD_STATE):].strip("\n").splitlines()
    rows = []
    # The columns' numbers and a line of dashes, then the rows.
    for line in lines[2:]:
        cells = line.split()
        if not cells or any(c not in _CELLS for c in cells):
            break
        rows.append([_CELLS[c] for c in cells])
    if not rows or len({len(r) for r in rows}) != 1:
        raise ValueError(f"the observation's last board is not a grid of '.', 'X' and 'O': "
                         f"{observation[at:at + 200]!r}")
    return Position.from_board(rows, convention="course")
