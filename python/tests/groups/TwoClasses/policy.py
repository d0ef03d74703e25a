from connect4.policy import Policy


class First(Policy):
    def mount(self):
        pass

    def act(self, s):
        return 0


class Second(Policy):
    def mount(self):
        pass

    def act(self, s):
        return 1
