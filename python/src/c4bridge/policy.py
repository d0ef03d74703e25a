"""``connect4-policy TARGET``: a course ``Policy`` served as a protocol
engine.

TARGET is a ``.py`` file, or a group folder holding ``policy.py``, optionally
followed by ``:ClassName``. Without a class name, the one class defined in
that module with both ``mount`` and ``act`` is taken. ``--path DIR``
(repeatable) goes on ``sys.path`` first, so that a course checkout's own
``connect4`` package imports; the policy's own folder is on the path too.

Every game gets a fresh instance and one ``mount()`` before its first move:
``mount(self)`` gets nothing, ``mount(self, time_out)`` (one parameter of
any name, or one named ``timeout``) gets the per-move time in seconds;
every ``go`` calls ``act(board)`` with the course's board: a 6 x 7 numpy
array of ints, row 0 at the top, -1 the first player, 1 the second, 0 empty.
The 0-based column it returns goes out as the 1-based move, whatever it is
(the arena judges it). An exception in ``mount`` or ``act`` prints its
traceback on stderr and ends the engine with status 1.
"""

import argparse
import importlib.util
import inspect
import os
import sys
import time
import traceback

from .protocol import PlayerError, call_player, serve


class TargetError(Exception):
    """A target that names no usable policy; the message says which file and
    lists what it found."""


def split_target(target):
    """The file and the class name (or None) of ``PATH[:ClassName]``."""
    path, name = target, None
    head, sep, tail = target.rpartition(":")
    if sep and tail.isidentifier() and head:
        path, name = head, tail
    if os.path.isdir(path):
        path = os.path.join(path, "policy.py")
    return path, name


def load_class(target, paths=()):
    """The policy class ``target`` names."""
    path, name = split_target(target)
    if not os.path.isfile(path):
        raise TargetError(f"{path}: no such file (give a .py file or a group folder with policy.py)")
    folder = os.path.dirname(os.path.abspath(path))
    for p in [folder, *reversed(list(paths))]:
        sys.path.insert(0, os.path.abspath(p))
    module_name = "c4bridge_policy_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    candidates = [
        c for _, c in inspect.getmembers(module, inspect.isclass)
        if c.__module__ == module_name and callable(getattr(c, "mount", None))
        and callable(getattr(c, "act", None))
    ]
    if name is not None:
        cls = getattr(module, name, None)
        if not inspect.isclass(cls):
            found = ", ".join(c.__name__ for c in candidates) or "none"
            raise TargetError(f"{path}: no class '{name}' (policy classes here: {found})")
        return cls
    if len(candidates) != 1:
        listed = ", ".join(sorted(c.__name__ for c in candidates)) or "none"
        file = os.path.basename(path)
        advice = (f"keep only one class with both methods in {file} (the one to play), "
                  f"or name it after the file as {file}:ClassName where you start it")
        if not candidates:
            advice = "write one class with mount(self) and act(self, board)"
        raise TargetError(
            f"{path}: expected exactly one class with mount() and act(), found {listed}: {advice}"
        )
    return candidates[0]


# The lines the bridge writes on stderr before and after each mount()
# (crates/grade/src/terms.rs reads them).
MOUNT_STARTED = "connect4-policy: calling"
MOUNT_RETURNED = "connect4-policy: mount() returned"


class MountError(Exception):
    """``mount`` has a shape the bridge cannot call."""


def mount_arguments(method, seconds):
    """How to call ``mount``: ``(args, kwargs)``.

    The course writes ``mount(self)``, ``mount(self, timeout=None)`` or
    ``mount(self, time_out)``: with no parameter it gets nothing; with one
    (whatever its name, positional or keyword, with or without a default) it
    gets the time per move in seconds; a parameter named ``timeout`` gets it
    wherever it stands. More parameters without defaults cannot be filled.
    """
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return (), {}
    if any(p.name == "timeout" and p.kind != p.POSITIONAL_ONLY for p in params):
        return (), {"timeout": seconds}
    required = [p for p in params if p.default is p.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if len(required) > 1:
        names = ", ".join(p.name for p in required)
        raise MountError(
            f"mount(self, {names}) needs {len(required)} arguments, but the grader gives "
            "mount at most one: the time per move in seconds (write mount(self) or "
            "mount(self, time_out))")
    if not params:
        return (), {}
    first = required[0] if required else params[0]
    if first.kind == first.KEYWORD_ONLY:
        return (), {first.name: seconds}
    if first.kind == first.VAR_KEYWORD:
        return (), {"timeout": seconds}
    return (seconds,), {}


class PolicyPlayer:
    """A policy class behind the protocol."""

    def __init__(self, cls):
        self.cls = cls
        self.policy = None

    def new_game(self, board, movetime_ms):
        seconds = None if movetime_ms is None else movetime_ms / 1000.0
        try:
            self.policy = self.cls()
            args, kwargs = mount_arguments(self.policy.mount, seconds)
        except MountError as e:
            print(f"connect4-policy: {self.cls.__name__}.{e}", file=sys.stderr)
            raise PlayerError() from None
        except Exception:
            print(f"connect4-policy: creating {self.cls.__name__}() raised:", file=sys.stderr)
            traceback.print_exc()
            raise PlayerError() from None
        # Said on stderr around the call, so that the arena can tell a
        # mount() that never returns from an act() that never does.
        limit = "none" if seconds is None else f"{seconds:g} s"
        print(f"{MOUNT_STARTED} {self.cls.__name__}.mount(), the time per move {limit}",
              file=sys.stderr, flush=True)
        begin = time.perf_counter()
        try:
            self.policy.mount(*args, **kwargs)
        except Exception:
            print(f"connect4-policy: {self.cls.__name__}.mount() raised:", file=sys.stderr)
            traceback.print_exc()
            raise PlayerError() from None
        print(f"{MOUNT_RETURNED} in {time.perf_counter() - begin:.3f} s", file=sys.stderr,
              flush=True)

    def choose(self, board, movetime_ms):
        what = f"connect4-policy: {self.cls.__name__}.act()"
        return call_player(what, self.policy.act, board.course_grid())


def new_policy(argv):
    """``connect4-policy new DIR``: writes the template policy into DIR."""
    parser = argparse.ArgumentParser(
        prog="connect4-policy new",
        description="Write a template course policy (policy.py) that plays legal moves, "
        "passes the grader's checks and explains the board in its comments.",
        epilog="Example: connect4-policy new my-policy && "
        "connect4-arena grade --kind policy --submission my-policy",
    )
    parser.add_argument("dir", help="the folder to write policy.py in (made if missing)")
    args = parser.parse_args(argv)
    target = os.path.join(args.dir, "policy.py")
    if os.path.exists(target):
        print(f"connect4-policy new: {target} exists already; it is left as it is "
              "(choose another folder)", file=sys.stderr)
        return 2
    template = os.path.join(os.path.dirname(__file__), "templates", "policy.py")
    try:
        os.makedirs(args.dir, exist_ok=True)
        with open(template, encoding="utf-8") as f:
            text = f.read()
        with open(target, "x", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"connect4-policy new: cannot write {target}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {target}: play it with\n  connect4-arena match --engine "
          f"'name=mine,cmd=connect4-policy,arg={args.dir}' --engine name=greedy,cmd=self,"
          "option.agent=greedy --games 10\nand grade it with\n  connect4-arena grade "
          f"--kind policy --submission {args.dir}")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new"]:
        return new_policy(argv[1:])
    parser = argparse.ArgumentParser(
        prog="connect4-policy",
        description="Serve a course Policy (mount(), act(board)) as a connect4 protocol engine.",
        epilog="To start a policy: connect4-policy new DIR. "
        "Example: connect4-arena match --engine 'name=mine,cmd=connect4-policy,"
        "arg=groups/Mine' --engine name=ref,cmd=self",
    )
    parser.add_argument("target", help="a .py file or a group folder with policy.py, [:ClassName]")
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="put DIR on sys.path first (repeatable), e.g. a course checkout")
    args = parser.parse_args(argv)
    out = None
    try:
        from .protocol import protocol_output
        out = protocol_output()
        cls = load_class(args.target, args.path)
    except TargetError as e:
        print(f"connect4-policy: {e}", file=sys.stderr)
        return 2
    except Exception:
        print(f"connect4-policy: loading {args.target} failed:", file=sys.stderr)
        traceback.print_exc()
        return 2
    return serve(PolicyPlayer(cls), f"{cls.__name__} ({args.target})", out=out)


if __name__ == "__main__":
    sys.exit(main())
