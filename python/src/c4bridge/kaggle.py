"""``connect4-kaggle FILE.py``: a Kaggle ConnectX agent served as a protocol
engine.

The agent is the last callable the file defines, as kaggle-environments
takes it. Each ``go`` calls ``agent(observation, configuration)`` (or
``agent(observation)`` when it takes one parameter, as Kaggle does) with
Kaggle's structures, which allow both attribute and key access:

- ``observation``: ``board`` (flat, top row first, 0 empty, 1 and 2 by
  mark), ``mark`` (the mover's: 1 moves first), ``step`` (stones on the
  board), ``remainingOverageTime`` (seconds);
- ``configuration``: ``columns``, ``rows``, ``inarow`` (from ``newgame``'s
  rules), ``actTimeout`` (the move time in seconds), ``timeout``,
  ``episodeSteps``.

The 0-based column it returns goes out as the 1-based move, whatever it is.
"""

import argparse
import sys
import traceback

from .protocol import call_player, protocol_output, serve


class Struct(dict):
    """A dict whose keys are also attributes, as Kaggle's structures are."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


def load_agent(path):
    """The last callable that running the file at ``path`` defines."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    namespace = {"__name__": "c4bridge_kaggle_agent", "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    callables = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    if not callables:
        raise ValueError(f"{path}: defines no callable; Kaggle takes the last function defined")
    return callables[-1]


def positional_count(agent):
    """How many of (observation, configuration) ``agent`` takes: Kaggle calls
    ``agent(observation)`` when the agent has one parameter, else both."""
    import inspect
    try:
        params = list(inspect.signature(agent).parameters.values())
    except (TypeError, ValueError):
        return 2
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return 2
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return 1 if len(positional) == 1 else 2


class KaggleOverage:
    """Kaggle's overage bank: 60 s for the game, spent by moves over time."""

    SECONDS = 60.0


class KagglePlayer:
    """A Kaggle agent behind the protocol."""

    def __init__(self, agent, name):
        self.agent = agent
        self.name = name
        self.overage = KaggleOverage.SECONDS

    def new_game(self, board, movetime_ms):
        self.overage = KaggleOverage.SECONDS

    def choose(self, board, movetime_ms):
        act_timeout = 2.0 if movetime_ms is None else movetime_ms / 1000.0
        observation = Struct(
            board=board.kaggle_board(),
            mark=board.mover(),
            step=board.ply,
            remainingOverageTime=self.overage,
        )
        configuration = Struct(
            columns=board.columns,
            rows=board.rows,
            inarow=board.inarow,
            actTimeout=act_timeout,
            timeout=act_timeout,
            episodeSteps=board.columns * board.rows + 1,
        )
        what = f"connect4-kaggle: the agent in {self.name}"
        args = (observation, configuration)[:positional_count(self.agent)]
        column, spent = call_player(what, self.agent, *args)
        self.overage = max(0.0, self.overage - max(0.0, spent - act_timeout))
        return column, spent


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="connect4-kaggle",
        description="Serve a Kaggle ConnectX agent file as a connect4 protocol engine.",
        epilog="Example: connect4-arena match --engine 'name=mine,cmd=connect4-kaggle,"
        "arg=submission.py' --engine name=ref,cmd=connect4-arena,arg=engine",
    )
    parser.add_argument("file", help="the agent's .py file (its last callable is the agent)")
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="put DIR on sys.path first (repeatable), e.g. a course package")
    args = parser.parse_args(argv)
    for folder in reversed(args.path):
        sys.path.insert(0, folder)
    out = protocol_output()
    try:
        agent = load_agent(args.file)
    except Exception:
        print(f"connect4-kaggle: loading {args.file} failed:", file=sys.stderr)
        traceback.print_exc()
        return 2
    return serve(KagglePlayer(agent, args.file), f"kaggle agent ({args.file})", out=out)


if __name__ == "__main__":
    sys.exit(main())
