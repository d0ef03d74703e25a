from connect4.policy import Policy


class RaisesOnThirdMove(Policy):
    def mount(self):
        self.moves = 0

    def act(self, s):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("the third move went wrong on purpose")
        return [c for c in range(7) if s[0][c] == 0][0]
