"""The engine side of the connect4 protocol (``connect4-jsonl`` version 1)
for a Python player: one JSON request per line on stdin, one JSON reply per
line on the real stdout, flushed.

What the player code prints goes to stderr: file descriptor 1 is pointed at
stderr before any player code runs, and the protocol writes to a private copy
of the original stdout. So a ``print`` in a policy, or a C extension writing
to fd 1, can never corrupt the protocol.
"""

import json
import os
import sys
import time

from .board import Board, BoardError

PROTOCOL = "connect4-jsonl"
VERSION = 1


class PlayerError(Exception):
    """The player's own code failed; the traceback is already on stderr."""


def call_player(what, fn, *args):
    """Calls the player's code ``fn(*args)``: its result as a column (an
    int) and the seconds it took. A failure prints the traceback (or what
    came back instead of a column) on stderr, under ``what``, and raises
    :class:`PlayerError`."""
    import traceback

    begin = time.perf_counter()
    try:
        result = fn(*args)
    except Exception:
        print(f"{what} raised:", file=sys.stderr)
        traceback.print_exc()
        raise PlayerError() from None
    spent = time.perf_counter() - begin
    column, why = as_column(result)
    if column is None:
        print(f"{what} returned {shown(result)}: {why}", file=sys.stderr)
        raise PlayerError() from None
    return column, spent


def shown(value):
    """``value`` for a message: its repr, cut short, and its type."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} (of type {type(value).__name__})"


def as_column(value):
    """A player's answer as a column: ``(column, None)`` for an integer
    (Python's or numpy's) or a whole finite float, else ``(None, why)``.
    ``True``, ``"3"`` and ``3.9`` are refused, not read as 1, 3 or 3."""
    import numbers

    expected = "expected a column, an integer such as 3"
    if isinstance(value, bool) or (hasattr(value, "dtype") and value.dtype.kind == "b"):
        return None, expected + ", not a yes/no value"
    if hasattr(value, "shape") and getattr(value, "shape", ()) != ():
        return None, expected + ", not an array"
    if isinstance(value, numbers.Integral):
        return int(value), None
    if isinstance(value, numbers.Real):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return None, expected + ", not an infinite or undefined number"
        if not number.is_integer():
            return None, expected + ", not a fraction"
        return int(number), None
    return None, expected


def protocol_output():
    """The real stdout for protocol lines; fd 1 and ``sys.stdout`` become
    stderr for everything else."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


class Stats:
    """Time per move: in the player's own code, and in the adapter around it."""

    def __init__(self):
        self.moves = 0
        self.player = 0.0
        self.total = 0.0

    def add(self, player_seconds, total_seconds):
        self.moves += 1
        self.player += player_seconds
        self.total += total_seconds

    def summary(self, name):
        if not self.moves:
            return f"{name}: no moves"
        return (
            f"{name}: {self.moves} moves, player {1e3 * self.player / self.moves:.3f} ms "
            f"a move, adapter overhead {1e3 * (self.total - self.player) / self.moves:.3f} ms a move"
        )


def serve(player, name, out=None, inp=None):
    """Answers requests until ``quit`` or end of input. ``player`` has
    ``new_game(board, movetime_ms)`` and ``choose(board, movetime_ms)`` (a
    0-based column, passed on as it is). Returns the exit status."""
    out = out or protocol_output()
    inp = inp or sys.stdin
    board = Board()
    stats = Stats()
    started = False

    def send(reply, request):
        if isinstance(request, dict) and "id" in request:
            reply["id"] = request["id"]
        out.write(json.dumps(reply) + "\n")
        out.flush()

    def error(code, message, request):
        send({"type": "error", "code": code, "message": message}, request)

    for line in inp:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as e:
            error("bad_json", f"not JSON: {e}", None)
            continue
        if not isinstance(request, dict):
            error("bad_json", "expected a JSON object", None)
            continue
        cmd = request.get("cmd")
        try:
            if cmd == "hello":
                send({"type": "hello", "protocol": PROTOCOL, "version": VERSION,
                      "engine": {"name": name, "version": "python"}, "options": []}, request)
            elif cmd == "ping":
                send({"type": "pong"}, request)
            elif cmd == "newgame":
                rules = request.get("rules") or {}
                board = Board(rules.get("columns", 7), rules.get("rows", 6), rules.get("inarow", 4))
                started = False
                send({"type": "ok"}, request)
            elif cmd == "position":
                board = position(request, board)
                send({"type": "ok"}, request)
            elif cmd == "go":
                movetime = request.get("movetime_ms")
                clock = request.get("clock")
                if movetime is None and isinstance(clock, dict):
                    movetime = max(1, clock.get("time_ms", 1000) // 10)
                if not started:
                    player.new_game(board, movetime)
                    started = True
                begin = time.perf_counter()
                column, player_seconds = player.choose(board, movetime)
                send({"type": "bestmove", "move": column + 1}, request)
                stats.add(player_seconds, time.perf_counter() - begin)
            elif cmd in ("stop", "setoption"):
                send({"type": "ok"}, request)
            elif cmd == "analyze":
                error("bad_request", "this engine does not analyze", request)
            elif cmd == "quit":
                send({"type": "ok"}, request)
                break
            else:
                error("unknown_command", f"unknown command '{cmd}'", request)
        except BoardError as e:
            error("illegal_move", str(e), request)
        except PlayerError:
            print(stats.summary(name), file=sys.stderr)
            return 1
    print(stats.summary(name), file=sys.stderr)
    return 0


def position(request, board):
    """The board a ``position`` request asks for, on the current board size."""
    moves = request.get("moves")
    if moves is None and request.get("board") is not None:
        raise BoardError("this engine takes positions as moves, not as a grid")
    return Board.from_moves(moves or "", board.columns, board.rows, board.inarow)
