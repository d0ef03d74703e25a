from connect4.policy import Policy

print("importing the printer policy (this goes to stderr)")


class Printer(Policy):
    def mount(self):
        print("mounted")

    def act(self, s):
        print("thinking about", s.tolist())
        return [c for c in (3, 2, 4, 1, 5, 0, 6) if s[0][c] == 0][0]
