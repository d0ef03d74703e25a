from connect4.policy import Policy


class OutOfRange(Policy):
    def mount(self):
        pass

    def act(self, s):
        return 7  # 0-based: one past the last column
