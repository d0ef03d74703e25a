"""A Gymnasium environment of Connect 4 for one agent against any of the
project's players (or any player `c4engine.as_player` takes): the
observation is PettingZoo's (the agent's and the opponent's planes, and
the action mask), the action a column from 0; an illegal move ends the
episode with -1, as in PettingZoo; rewards by the game's result or by the
solver's verdict on each of the agent's moves. The game is kept natively
and changed in place."""

import gymnasium
import numpy as np
from gymnasium import spaces

from ._native import _Board
from . import observations, rendering, rewards
from .games import as_player

# What _Board.play answers.
_GOES_ON, _WON, _NOT_PLAYED = _Board.GOES_ON, _Board.WON, _Board.NOT_PLAYED


class ConnectFourVs(gymnasium.Env):
    """One agent against `opponent` (see `c4engine.gymnasium_env`)."""

    metadata = {"render_modes": list(rendering.MODES), "render_fps": rendering.FPS}

    def __init__(self, opponent="random", *, play_first=True, rules="7x6x4",
                 reward="result", ms=None, render_mode=None):
        self.render_mode = rendering.check(render_mode)
        self.opponent = as_player(opponent, ms=ms)
        self.play_first = play_first
        self.reward = rewards.check(reward)
        self.verdicts = rewards.Verdicts() if reward == "verdict" else None
        self.board = _Board(rules)
        self.width, self.height = self.board.columns, self.board.rows
        self.action_space = spaces.Discrete(self.width)
        self.observation_space = observations.space(self.height, self.width)
        self.me = 1 if play_first else 2
        self.done = False
        self.window = None

    @property
    def position(self):
        """The game's `Position` now."""
        return self.board.position()

    def _observation(self):
        return observations.observe(self.board, self.me, self.height, self.width)

    def action_masks(self):
        """The columns with room, as booleans (sb3-contrib's MaskablePPO
        asks the environment for them)."""
        return np.frombuffer(self.board.mask(), dtype=np.int8).astype(bool)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.opponent.new_game(int(self.np_random.integers(2**62)))
        self.board.reset()
        self.done = False
        if not self.play_first:
            self._reply()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {}

    def _reply(self):
        """The opponent's move: what `_Board.play` answered for it."""
        position = self.board.position()
        column = self.opponent.choose(position)
        try:
            outcome = self.board.play(column)
        except ValueError:
            outcome = _NOT_PLAYED
        if outcome == _NOT_PLAYED:
            raise ValueError(f"the opponent {self.opponent.name} answered {column!r}, which is "
                             f"not a legal column (legal: {position.legal()})")
        return outcome

    def step(self, action):
        if self.done:
            raise RuntimeError("the episode is over: call reset()")
        before = self.board.position() if self.verdicts is not None else None
        outcome = self.board.play(action)
        if outcome == _NOT_PLAYED:
            self.done = True
            return (self._observation(), -1.0, True, False,
                    {"illegal": f"column {int(action)} is full"})
        reward = 0.0
        if before is not None:
            reward = float(self.verdicts.move(before, self.board.position()))
        if outcome == _GOES_ON:
            outcome = self._reply()
            if outcome == _WON and self.reward == "result":
                reward = -1.0
        elif outcome == _WON and self.reward == "result":
            reward = 1.0
        self.done = outcome != _GOES_ON
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self.done, False, {}

    def render(self):
        return rendering.render(self, self.board.position())

    def close(self):
        rendering.close(self)
