"""``connect4-kaggle-submission --out DIR``: the connect4 engine as a Kaggle
ConnectX agent.

The folder gets the engine binary and a ``main.py`` whose ``agent`` starts
the engine once, keeps it across steps, sends it the board and a move time
that leaves a margin inside ``actTimeout``, and plays its ``bestmove``. If
the engine cannot be started, dies or does not answer in time, the agent
says so on stderr and plays a legal move of its own (a win at once, else
the centre-most column), so a game is never lost to a crash.

Kaggle takes a ``.tar.gz`` with ``main.py`` at its root::

    tar -czf submission.tar.gz -C DIR .
"""

import argparse
import os
import shutil
import stat
import sys

# The agent Kaggle runs. It uses only the standard library.
MAIN_PY = r'''"""The connect4 engine (a perfect Connect-4 solver with an opening book) as
a Kaggle ConnectX agent; written by connect4-kaggle-submission."""

import json
import os
import select
import subprocess
import sys
import time

MOVETIME_MS = {movetime}
# Kept in reserve inside actTimeout for pipes, process wake-up and Kaggle.
MARGIN_S = 0.35


def _folder():
    """The folder of this file (Kaggle runs it from a string compiled with
    its path), else Kaggle's agent folder, else the working directory."""
    here = os.path.dirname(os.path.abspath(sys._getframe(0).f_code.co_filename))
    for folder in (here, "/kaggle_simulations/agent", os.getcwd()):
        if os.path.isfile(os.path.join(folder, "connect4")):
            return folder
    return here


class _Engine:
    """The engine process and its output, read line by line with a deadline."""

    def __init__(self, rows, columns, inarow):
        path = os.path.join(_folder(), "connect4")
        if not os.access(path, os.X_OK):
            os.chmod(path, 0o755)
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buffer = b""
        self.next_id = 0
        self.ask({{"cmd": "hello"}}, time.monotonic() + 10)
        rules = {{"columns": columns, "rows": rows, "inarow": inarow}}
        self.ask({{"cmd": "newgame", "rules": rules}}, time.monotonic() + 10)
        self.rules = (rows, columns, inarow)

    def ask(self, request, deadline):
        """Sends `request` and returns its final reply before `deadline`."""
        self.next_id += 1
        request["id"] = self.next_id
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            line = self._line(deadline)
            reply = json.loads(line)
            if reply.get("id") == self.next_id and reply.get("type") != "info":
                return reply

    def _line(self, deadline):
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no answer from the engine in time")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("the engine exited")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def close(self):
        try:
            self.proc.kill()
        except OSError:
            pass


_engine = None


def _fallback(board, columns, rows, inarow, mark):
    """A legal move without the engine: a win at once, else centre first."""
    legal = [c for c in range(columns) if board[c] == 0]
    def wins(c):
        r = max(r for r in range(rows) if board[r * columns + c] == 0)
        cells = set((r2, c2) for r2 in range(rows) for c2 in range(columns)
                    if board[r2 * columns + c2] == mark) | {{(r, c)}}
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            n = 1
            for s in (1, -1):
                y, x = r + s * dr, c + s * dc
                while (y, x) in cells:
                    n += 1
                    y, x = y + s * dr, x + s * dc
            if n >= inarow:
                return True
        return False
    for c in legal:
        if wins(c):
            return c
    return min(legal, key=lambda c: abs(2 * c - (columns - 1)))


def agent(observation, configuration):
    global _engine
    board = list(observation["board"])
    rows, columns = configuration["rows"], configuration["columns"]
    inarow = configuration["inarow"]
    act_timeout = float(configuration.get("actTimeout", 2) or 2)
    start = time.monotonic()
    deadline = start + max(0.05, act_timeout - MARGIN_S)
    movetime = max(1, min(MOVETIME_MS, int((deadline - start) * 1000) - 100))
    try:
        if _engine is None or _engine.rules != (rows, columns, inarow) or _engine.proc.poll() is not None:
            if _engine is not None:
                _engine.close()
            _engine = _Engine(rows, columns, inarow)
            deadline = max(deadline, time.monotonic() + movetime / 1000 + 0.2)
        reply = _engine.ask({{"cmd": "position", "board": board}}, deadline)
        if reply.get("type") != "ok":
            raise ValueError("the engine refused the board: " + str(reply.get("message")))
        reply = _engine.ask({{"cmd": "go", "movetime_ms": movetime}}, deadline)
        column = int(reply["move"]) - 1
        if 0 <= column < columns and board[column] == 0:
            return column
        raise ValueError("the engine answered " + json.dumps(reply))
    except Exception as e:
        print("connect4 agent: " + str(e) + "; playing a move of its own", file=sys.stderr)
        if _engine is not None:
            _engine.close()
            _engine = None
        return _fallback(board, columns, rows, inarow, observation["mark"])
'''


def find_engine(given):
    """The engine binary: the one given, else ``connect4`` on the PATH, else
    this checkout's release build."""
    if given:
        return given
    on_path = shutil.which("connect4")
    if on_path:
        return on_path
    here = os.path.dirname(os.path.abspath(__file__))
    for up in range(1, 6):
        root = os.path.join(here, *[".."] * up)
        candidate = os.path.join(root, "target", "release", "connect4")
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    return None


def write(out, engine, movetime_ms):
    """Writes the submission folder ``out``."""
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, "connect4")
    shutil.copyfile(engine, target)
    os.chmod(target, os.stat(target).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    with open(os.path.join(out, "main.py"), "w", encoding="utf-8") as f:
        f.write(MAIN_PY.format(movetime=int(movetime_ms)))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="connect4-kaggle-submission",
        description="Write a Kaggle ConnectX submission folder: main.py and the connect4 engine.",
        epilog="Example: connect4-kaggle-submission --out submission && "
        "tar -czf submission.tar.gz -C submission .",
    )
    parser.add_argument("--out", required=True, help="the folder to write")
    parser.add_argument("--movetime", type=int, default=1000, metavar="MS",
                        help="the engine's time per move in ms (kept inside actTimeout)")
    parser.add_argument("--engine", help="the connect4 binary (default: on PATH, or target/release)")
    args = parser.parse_args(argv)
    if args.movetime < 1:
        print(f"connect4-kaggle-submission: --movetime {args.movetime}: expected at least 1", file=sys.stderr)
        return 2
    engine = find_engine(args.engine)
    if engine is None or not os.path.isfile(engine):
        print(
            f"connect4-kaggle-submission: no engine binary at {engine or 'connect4 (not on PATH)'}; "
            "build it (cargo build --release) or give --engine PATH",
            file=sys.stderr,
        )
        return 2
    write(args.out, engine, args.movetime)
    print(f"wrote {args.out}/main.py and {args.out}/connect4 (from {engine}); pack it with "
          f"tar -czf submission.tar.gz -C {args.out} .")
    return 0


if __name__ == "__main__":
    sys.exit(main())
