import random

import numpy as np

from connect4.policy import Policy


class RandomPolicy(Policy):
    def mount(self, timeout=None):
        self.timeout = timeout
        self.rng = random.Random(5)

    def act(self, s: np.ndarray) -> int:
        return self.rng.choice([c for c in range(s.shape[1]) if s[0][c] == 0])
