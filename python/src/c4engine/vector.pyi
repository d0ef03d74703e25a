"""Type stubs of c4engine.vector: many games in one call."""

from typing import Any, NamedTuple, Sequence

import numpy as np

AUTORESET_MODES: tuple[str, str, str]

class State(NamedTuple):
    current_player: np.ndarray
    observation: np.ndarray
    legal_action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    batch: Any

def init(batch_size: int, seed: int | Sequence[int] = 0, *, rules: str = "7x6x4") -> State: ...
def step(state: State, action: Any) -> State: ...
def random_actions(state: State) -> np.ndarray: ...

class VectorEnv:
    num_envs: int
    metadata: dict[str, Any]
    def __init__(self, num_envs: int, opponent: str = "random", *, seat: str = "first",
                 rules: str = "7x6x4", autoreset_mode: Any = ..., seed: int = 0) -> None: ...
    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]: ...
    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]: ...
    def random_actions(self) -> np.ndarray: ...
    def action_masks(self) -> np.ndarray: ...

def make_vector_env(num_envs: int, opponent: str = "random", **kwargs: Any) -> VectorEnv: ...
