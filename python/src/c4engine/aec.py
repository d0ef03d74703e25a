"""A PettingZoo AEC environment of Connect 4 on the engine: the agents,
spaces, observation layout, action mask, rewards and illegal-move rule
of PettingZoo's own `connect_four_v3`, with the position kept natively;
rewards by the game's result or by the solver's verdict on each move."""

from gymnasium import spaces
from pettingzoo import AECEnv

from ._native import Position
from . import observations, rewards


class ConnectFour(AECEnv):
    """`connect_four_v3` on the engine (see `c4engine.pettingzoo_env`)."""

    metadata = {"name": "c4engine_connect_four", "render_modes": ["ansi"],
                "is_parallelizable": False}

    def __init__(self, *, rules="7x6x4", reward="result", render_mode=None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode '{render_mode}': expected None or 'ansi'")
        self.render_mode = render_mode
        self.reward = rewards.check(reward)
        self.verdicts = rewards.Verdicts() if reward == "verdict" else None
        self.empty = Position("", rules=rules)
        self.width, self.height = self.empty.board("course").shape[::-1]
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(self.width) for a in self.agents}
        self.observation_spaces = {a: observations.space(self.height, self.width)
                                   for a in self.agents}
        self.position = self.empty

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.position = self.empty
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent):
        player = self.possible_agents.index(agent) + 1
        return observations.observe(self.position, player, self.height, self.width,
                                    masked=agent == self.agent_selection)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if not self.action_spaces[agent].contains(action):
            raise ValueError(f"action {action!r}: expected a column from 0 to {self.width - 1}")
        other = self.possible_agents[1 - self.possible_agents.index(agent)]
        # What the agent was owed since its last move, it has seen in last().
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        column = int(action)
        if column not in self.position.legal():
            # connect_four_v3's rule (its TerminateIllegalWrapper): an
            # illegal move ends the game for both, -1 to the agent that
            # made it and 0 to the other; the dead agents then step.
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards[agent] = -1.0
            self.infos[agent] = {"illegal": f"column {column} is full"}
            self._accumulate_rewards()
            self._deads_step_first()
            return
        before = self.position
        self.position = before.play(column)
        if self.verdicts is not None:
            self.rewards[agent] = self.verdicts.move(before, self.position)
        if self.position.is_over():
            if self.reward == "result" and self.position.winner():
                self.rewards[agent], self.rewards[other] = 1, -1
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = other
        self._accumulate_rewards()

    def render(self):
        if self.render_mode == "ansi":
            return str(self.position)
        return None

    def close(self):
        pass
