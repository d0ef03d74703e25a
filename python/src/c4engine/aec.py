"""A PettingZoo AEC environment of Connect 4 on the engine: the agents,
spaces, observation layout, action mask, rewards and illegal-move rule
of PettingZoo's own `connect_four_v3`, with the game kept natively and
changed in place (a step is one native call, an observation one more);
rewards by the game's result or by the solver's verdict on each move."""

from gymnasium import spaces
from pettingzoo import AECEnv

from ._native import _Board
from . import observations, rendering, rewards

# What _Board.play answers.
_GOES_ON, _WON, _NOT_PLAYED = _Board.GOES_ON, _Board.WON, _Board.NOT_PLAYED


class ConnectFour(AECEnv):
    """`connect_four_v3` on the engine (see `c4engine.pettingzoo_env`)."""

    metadata = {"name": "c4engine_connect_four", "render_modes": list(rendering.MODES),
                "is_parallelizable": False, "render_fps": rendering.FPS}

    def __init__(self, *, rules="7x6x4", reward="result", render_mode=None):
        super().__init__()
        self.render_mode = rendering.check(render_mode)
        self.reward = rewards.check(reward)
        self.verdicts = rewards.Verdicts() if reward == "verdict" else None
        self.board = _Board(rules)
        self.width, self.height = self.board.columns, self.board.rows
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        self._viewer = {"player_0": 1, "player_1": 2}
        self._other = {"player_0": "player_1", "player_1": "player_0"}
        self.action_spaces = {a: spaces.Discrete(self.width) for a in self.agents}
        self.observation_spaces = {a: observations.space(self.height, self.width)
                                   for a in self.agents}
        self.window = None

    @property
    def position(self):
        """The game's `Position` now."""
        return self.board.position()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.board.reset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        return observations.observe(self.board, self._viewer[agent], self.height, self.width,
                                    masked=agent == self.agent_selection)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        before = self.board.position() if self.verdicts is not None else None
        outcome = self.board.play(action)
        # What the agent was owed since its last move, it has seen in last().
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        if outcome == _NOT_PLAYED:
            self._illegal(agent, int(action))
            return
        if before is not None:
            self.rewards[agent] = self.verdicts.move(before, self.board.position())
        if outcome != _GOES_ON:
            if outcome == _WON and self.reward == "result":
                self.rewards[agent], self.rewards[self._other[agent]] = 1, -1
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self._other[agent]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent, column):
        """connect_four_v3's rule (its TerminateIllegalWrapper): an illegal
        move ends the game for both, -1 to the agent that made it and 0 to
        the other; the dead agents then step."""
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards[agent] = -1.0
        self.infos[agent] = {"illegal": f"column {column} is full"}
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self):
        return rendering.render(self, self.board.position())

    def close(self):
        rendering.close(self)
