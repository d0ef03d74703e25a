"""The course's policy interface (a stand-in)."""

from abc import ABC, abstractmethod

import numpy as np


class Policy(ABC):
    """A player: mount() before each game, act(board) -> 0-based column."""

    @abstractmethod
    def mount(self) -> None:
        ...

    @abstractmethod
    def act(self, s: np.ndarray) -> int:
        ...
