"""A small stand-in for the course's own `connect4` package, made for these
tests: student policies import `connect4.policy` and
`connect4.connect_state` from it."""
