"""A Gymnasium environment of Connect 4 for one agent against any of the
project's players (or any player `c4engine.as_player` takes): the
observation is PettingZoo's (the agent's and the opponent's planes, and
the action mask), the action a column from 0; an illegal move ends the
episode with -1, as in PettingZoo; rewards by the game's result or by the
solver's verdict on each of the agent's moves."""

import gymnasium
from gymnasium import spaces

from ._native import Position
from . import observations, rewards
from .games import as_player


class ConnectFourVs(gymnasium.Env):
    """One agent against `opponent` (see `c4engine.gymnasium_env`)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponent="random", *, play_first=True, rules="7x6x4",
                 reward="result", ms=None, render_mode=None):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode '{render_mode}': expected None or 'ansi'")
        self.render_mode = render_mode
        self.opponent = as_player(opponent, ms=ms)
        self.play_first = play_first
        self.reward = rewards.check(reward)
        self.verdicts = rewards.Verdicts() if reward == "verdict" else None
        self.empty = Position("", rules=rules)
        self.width, self.height = self.empty.board("course").shape[::-1]
        self.action_space = spaces.Discrete(self.width)
        self.observation_space = observations.space(self.height, self.width)
        self.position = self.empty
        self.me = 1 if play_first else 2
        self.done = False

    def _observation(self):
        return observations.observe(self.position, self.me, self.height, self.width)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.opponent.new_game(int(self.np_random.integers(2**62)))
        self.position = self.empty
        self.done = False
        if not self.play_first:
            self.position = self.position.play(self.opponent.choose(self.position))
        return self._observation(), {}

    def step(self, action):
        if self.done:
            raise RuntimeError("the episode is over: call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r}: expected a column from 0 to {self.width - 1}")
        column = int(action)
        if column not in self.position.legal():
            self.done = True
            return self._observation(), -1.0, True, False, {"illegal": f"column {column} is full"}
        before = self.position
        self.position = before.play(column)
        reward = 0.0
        if self.verdicts is not None:
            reward = float(self.verdicts.move(before, self.position))
        if not self.position.is_over():
            self.position = self.position.play(self.opponent.choose(self.position))
        if self.position.is_over() and self.reward == "result":
            winner = self.position.winner()
            reward = 0.0 if winner is None else (1.0 if winner == self.me else -1.0)
        self.done = self.position.is_over()
        return self._observation(), reward, self.done, False, {}

    def render(self):
        if self.render_mode == "ansi":
            return str(self.position)
        return None
