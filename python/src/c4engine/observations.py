"""What the environments show an agent, PettingZoo's connect_four_v3
layout for both of them: the planes of the agent's stones and of its
opponent's (rows x columns x 2, row 0 on top) and the action mask (1
where a column has room), as int8 arrays; and the space they lie in."""

import numpy as np
from gymnasium import spaces


def space(height, width):
    """The observation space of a board `height` rows by `width` columns."""
    return spaces.Dict({
        "observation": spaces.Box(0, 1, (height, width, 2), np.int8),
        "action_mask": spaces.Box(0, 1, (width,), np.int8),
    })


def observe(board, player, height, width, masked=True):
    """The game of `board` (a native `_Board`) as `player` (1 or 2) sees
    it; with `masked` False the mask is all zeros (connect_four_v3 shows
    the mask to the agent to move alone). The arrays are fresh and
    writable: an agent may keep them."""
    planes = np.frombuffer(board.planes(player), dtype=np.int8).reshape(height, width, 2)
    if masked:
        mask = np.frombuffer(board.mask(), dtype=np.int8)
    else:
        mask = np.zeros(width, np.int8)
    return {"observation": planes, "action_mask": mask}
