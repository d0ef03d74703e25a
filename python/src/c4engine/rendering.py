"""How the single environments show the board: 'ansi' (the board as text,
X the first player, O the second), 'rgb_array' (an image, rows x columns
of CELL pixels, as a height x width x 3 uint8 array, drawn with numpy
alone) and 'human' (that image in a pygame window, which needs pygame)."""

import numpy as np

MODES = ("ansi", "rgb_array", "human")
FPS = 4
# Pixels a cell, and the colours: the board, an empty hole, each player's stone.
CELL = 64
_BOARD, _HOLE = (0, 64, 160), (235, 235, 235)
# The course's board: -1 the first player, 1 the second.
_STONES = {-1: (220, 40, 40), 1: (245, 200, 30)}


def check(render_mode):
    """`render_mode` if it is None or one of MODES; 'human' needs pygame."""
    if render_mode is not None and render_mode not in MODES:
        raise ValueError(f"render_mode '{render_mode}': expected None, 'ansi', 'rgb_array' "
                         "or 'human'")
    if render_mode == "human":
        try:
            import pygame  # noqa: F401 - only its presence is checked here
        except ImportError:
            raise ValueError("render_mode 'human' needs pygame (pip install pygame)") from None
    return render_mode


def _disc():
    """Where a cell's round hole is: a CELL x CELL mask."""
    y, x = np.mgrid[0:CELL, 0:CELL]
    centre, radius = (CELL - 1) / 2, CELL * 0.42
    return (x - centre) ** 2 + (y - centre) ** 2 <= radius ** 2


_DISC = _disc()


def image(position):
    """`position` as an RGB image: a (rows * CELL) x (columns * CELL) x 3
    uint8 array, row 0 on top."""
    board = position.board("course")
    rows, columns = board.shape
    out = np.empty((rows * CELL, columns * CELL, 3), np.uint8)
    out[:] = _BOARD
    for (row, column), stone in np.ndenumerate(board):
        cell = out[row * CELL:(row + 1) * CELL, column * CELL:(column + 1) * CELL]
        cell[_DISC] = _STONES.get(int(stone), _HOLE)
    return out


def render(env, position):
    """What `env.render()` answers in `env.render_mode`: the text, the
    image, or None (after drawing it in the window, or with no mode)."""
    mode = env.render_mode
    if mode == "ansi":
        return str(position)
    if mode == "rgb_array":
        return image(position)
    if mode == "human":
        _show(env, image(position))
    return None


def _show(env, picture):
    """Draws `picture` in `env`'s pygame window, made at the first call."""
    import pygame

    if env.window is None:
        pygame.init()
        pygame.display.set_caption("c4engine")
        env.window = pygame.display.set_mode(picture.shape[1::-1])
        env.clock = pygame.time.Clock()
    pygame.event.pump()
    surface = pygame.surfarray.make_surface(picture.swapaxes(0, 1))
    env.window.blit(surface, (0, 0))
    pygame.display.flip()
    env.clock.tick(env.metadata["render_fps"])


def close(env):
    """Closes `env`'s window, if it opened one."""
    if getattr(env, "window", None) is not None:
        import pygame

        pygame.display.quit()
        env.window = None
