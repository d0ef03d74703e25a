"""The environments students train in, on the engine: PettingZoo's AEC
environment (`connect_four_v3`'s agents, spaces, observations, action
mask and illegal-move rule), a Gymnasium environment for one agent
against any player, a Kaggle ConnectX `agent` and an OpenSpiel bot of any
of the project's players. pettingzoo, gymnasium and pyspiel are imported
only when asked for."""

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
    """A Kaggle ConnectX `agent(observation, configuration)` playing as
    `player` (a Player or agent spec)."""
    ours = as_player(player, ms=ms)

    def agent(observation, configuration):
        board = observation["board"] if isinstance(observation, dict) else observation.board
        columns = configuration["columns"] if isinstance(configuration, dict) \
            else configuration.columns
        rows = configuration["rows"] if isinstance(configuration, dict) else configuration.rows
        inarow = configuration["inarow"] if isinstance(configuration, dict) \
            else configuration.inarow
        position = Position.from_board(list(board), convention="kaggle",
                                       rules=f"{columns}x{rows}x{inarow}")
        return int(ours.choose(position))

    agent.__name__ = f"c4engine_{getattr(ours, 'name', 'player')}"
    return agent


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
