"""Win at once, else block, else the centre-most legal column."""

from connect4.connect_state import ConnectState
from connect4.policy import Policy


class TacticalPolicy(Policy):
    def mount(self):
        self.order = [3, 2, 4, 1, 5, 0, 6]

    def act(self, s):
        state = ConnectState(s)
        me = state.player()
        legal = state.legal()
        for c in legal:
            if state.play(c).wins(me):
                return c
        for c in legal:
            other = ConnectState(state.board.copy())
            r = max(r for r in range(6) if other.board[r][c] == 0)
            other.board[r][c] = -me
            if other.wins(-me):
                return c
        return next(c for c in self.order if c in legal)
