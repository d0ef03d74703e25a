"""Many games of Connect 4 in one call, stepped natively: numpy arrays in
and out, no Python per game.

Two forms over the same native batch:

- `VectorEnv`, a Gymnasium vector environment: one learner against an
  opponent inside the batch (`"random"`, any player spec such as
  `"greedy"` or `"alphabeta:depth=4"`, or `"perfect"`), with Gymnasium's
  autoreset modes; its observations are the single environment's
  (`gymnasium_env`): the learner's and the opponent's planes and the
  action mask.
- `init` and `step`, pgx's functional form: self-play (the caller plays
  both sides), a `State` of arrays in and a new one out.

Rules as in PettingZoo's connect_four_v3: a win 1, a loss -1, a draw 0; a
full column ends the game with -1 for the player who chose it. A column
off the board is a `ValueError` naming the game and the value.
"""

from typing import NamedTuple

import numpy as np

from ._native import _Batch

AUTORESET_MODES = ("next_step", "same_step", "disabled")


def _rules_shape(rules):
    from ._native import Position
    rows, columns = Position("", rules=rules).board("course").shape
    return rows, columns


def _actions(actions, games, columns):
    """`actions` as int64 bytes, one column a game, or a ValueError naming
    the first that is not a column."""
    a = np.asarray(actions)
    if a.shape != (games,):
        raise ValueError(f"actions: expected shape ({games},), one column a game, got {a.shape}")
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.floor(a)):
            a = a.astype(np.int64)
        else:
            raise ValueError(f"actions: expected whole numbers, got dtype {a.dtype}")
    bad = np.flatnonzero((a < 0) | (a > columns - 1))
    if bad.size:
        g = int(bad[0])
        raise ValueError(f"actions[{g}] = {int(a[g])}: expected a column from 0 to {columns - 1}")
    return a.astype("<i8").tobytes()


def _seeds(seed, games):
    """Per-game seeds as int64 bytes from one seed or a sequence."""
    if np.ndim(seed) == 0:
        rng = np.random.default_rng(int(seed))
        seeds = rng.integers(0, 2**63, size=games, dtype=np.int64)
    else:
        seeds = np.asarray(seed)
        if seeds.shape != (games,):
            raise ValueError(f"seed: expected one int or {games} of them, got shape {seeds.shape}")
        seeds = seeds.astype(np.uint64).view(np.int64)
    return seeds.astype("<i8").tobytes()


class _Arrays:
    """One call's outputs as numpy arrays over the native bytearrays."""

    def __init__(self, raw, games, rows, columns, rewards_per_game):
        obs, mask, rewards, terminated, truncated, to_move, final = raw
        shape = (games, rows, columns, 2)
        self.observation = np.frombuffer(obs, np.int8).reshape(shape)
        self.action_mask = np.frombuffer(mask, np.int8).reshape(games, columns)
        rewards = np.frombuffer(rewards, "<f4")
        self.rewards = rewards.reshape(games, 2) if rewards_per_game == 2 else rewards
        self.terminated = np.frombuffer(terminated, np.bool_)
        self.truncated = np.frombuffer(truncated, np.bool_)
        self.to_move = np.frombuffer(to_move, np.int8)
        self.final = None if final is None else np.frombuffer(final, np.int8).reshape(shape)


class State(NamedTuple):
    """A batch of games between two steps, pgx's `State`: each array has
    the games first."""

    current_player: np.ndarray
    """The player to move: 0 the first player, 1 the second."""
    observation: np.ndarray
    """(games, rows, columns, 2) bool: the player to move's stones, then
    its opponent's, row 0 on top."""
    legal_action_mask: np.ndarray
    """(games, columns) bool; all True in a game that ended."""
    rewards: np.ndarray
    """(games, 2) float32: the first player's and the second's rewards of
    the step."""
    terminated: np.ndarray
    """(games,) bool: the game ended at this step (the next step starts a
    new one, its action unused)."""
    truncated: np.ndarray
    """(games,) bool: always False."""
    batch: object
    """The native games (each step copies them: a state never changes)."""


def _state(raw, batch, games, rows, columns):
    a = _Arrays(raw, games, rows, columns, 2)
    return State(a.to_move.astype(np.int32), a.observation.view(np.bool_),
                 a.action_mask.view(np.bool_), a.rewards, a.terminated, a.truncated, batch)


def init(batch_size, seed=0, *, rules="7x6x4"):
    """`batch_size` new games of self-play, seeded from `seed` (one int, or
    one a game); pgx's `init`."""
    rows, columns = _rules_shape(rules)
    batch = _Batch(batch_size, rules, None, "first", "next_step", 0)
    raw = batch.reset(_seeds(seed, batch_size))
    return _state(raw, batch, batch_size, rows, columns)


def step(state, action):
    """The state after each game's player to move plays its column of
    `action`; `state` is unchanged (pgx's `step`)."""
    games, rows, columns, _ = state.observation.shape
    batch = state.batch.copy()
    raw = batch.step(_actions(action, games, columns))
    return _state(raw, batch, games, rows, columns)


def random_actions(state):
    """A uniformly random legal column for the player to move in each game
    of `state` (0 in a game that ended on a full board), drawn natively
    from the batch's own generator (seeded with it): a random agent at the
    batch's speed."""
    return np.frombuffer(state.batch.random_actions(), "<i8")


def _gymnasium():
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    return gymnasium, spaces, AutoresetMode, VectorEnv


def make_vector_env(num_envs, opponent="random", **kwargs):
    """A `VectorEnv` of `num_envs` games against `opponent` (see
    `VectorEnv`)."""
    return _vector_env_class()(num_envs, opponent, **kwargs)


def _vector_env_class():
    gymnasium, spaces, AutoresetMode, BaseVectorEnv = _gymnasium()
    from . import observations

    modes = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
             "disabled": AutoresetMode.DISABLED}

    class C4VectorEnv(BaseVectorEnv):
        """`num_envs` games of one learner against `opponent` (`"random"`,
        a player spec, `"perfect"`), stepped natively. The learner moves
        first, second, or by turns (`seat`: "first", "second",
        "alternate"); rewards 1 win, -1 loss or full column, 0 draw.
        `autoreset_mode` is one of Gymnasium's modes (or its name)."""

        metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

        def __init__(self, num_envs, opponent="random", *, seat="first", rules="7x6x4",
                     autoreset_mode=AutoresetMode.NEXT_STEP, seed=0):
            names = {member: name for name, member in modes.items()}
            mode = names.get(autoreset_mode, autoreset_mode)
            if mode not in modes:
                raise ValueError(f"autoreset_mode {autoreset_mode!r}: expected a Gymnasium "
                                 f"AutoresetMode or one of {', '.join(AUTORESET_MODES)}")
            if opponent is None:
                raise ValueError("opponent None: a VectorEnv plays against an opponent; "
                                 "c4engine.vector.init and step are self-play")
            self.num_envs = int(num_envs)
            self.rows, self.columns = _rules_shape(rules)
            self.metadata = {**self.metadata, "autoreset_mode": modes[mode]}
            self._batch = _Batch(self.num_envs, rules, opponent, seat, mode, int(seed))
            self.single_observation_space = observations.space(self.rows, self.columns)
            self.single_action_space = spaces.Discrete(self.columns)
            self.observation_space = gymnasium.vector.utils.batch_space(
                self.single_observation_space, self.num_envs)
            self.action_space = gymnasium.vector.utils.batch_space(
                self.single_action_space, self.num_envs)
            self._mask = np.ones((self.num_envs, self.columns), np.int8)

        def _arrays(self, raw):
            a = _Arrays(raw, self.num_envs, self.rows, self.columns, 1)
            self._mask = a.action_mask
            return a, {"observation": a.observation, "action_mask": a.action_mask}

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                super().reset(seed=seed)
                raw = self._batch.reset(_seeds(seed, self.num_envs))
            elif options and "reset_mask" in options:
                mask = np.asarray(options["reset_mask"], np.bool_)
                if mask.shape != (self.num_envs,):
                    raise ValueError(f"reset_mask: expected shape ({self.num_envs},), "
                                     f"got {mask.shape}")
                raw = self._batch.reset(None, mask.astype(np.uint8).tobytes())
            else:
                raw = self._batch.reset()
            _, obs = self._arrays(raw)
            return obs, {}

        def step(self, actions):
            raw = self._batch.step(_actions(actions, self.num_envs, self.columns))
            a, obs = self._arrays(raw)
            infos = {}
            if a.final is not None and a.terminated.any():
                infos = {"final_obs": {"observation": a.final,
                                       "action_mask": np.ones_like(a.action_mask)},
                         "_final_obs": a.terminated.copy()}
            return obs, a.rewards, a.terminated, a.truncated, infos

        def random_actions(self):
            """A uniformly random legal column a game, drawn natively (for
            the learner's side; the opponent's generator is apart)."""
            return np.frombuffer(self._batch.random_actions(), "<i8")

        def action_masks(self):
            """The legal columns of each game (for sb3-contrib's
            MaskablePPO), bool (num_envs, columns)."""
            return self._mask.astype(np.bool_)

    return C4VectorEnv


def __getattr__(name):
    # The Gymnasium class is made on first use, so that importing
    # c4engine.vector does not need gymnasium (init and step do not).
    if name == "VectorEnv":
        cls = _vector_env_class()
        globals()["VectorEnv"] = cls
        return cls
    raise AttributeError(name)
