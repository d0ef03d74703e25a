"""Course policies through the real adapter process, on the wire and inside
the real arena."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from binaries import cargo_binary

HERE = Path(__file__).parent
GROUPS = HERE / "groups"
COURSE = HERE / "course"
# The time beyond its move time the tests of play give every engine, in
# milliseconds: ten seconds, which no engine that answers reaches however
# loaded the machine (only a hung one would), so that no result depends on
# the machine's speed. The clock's own tests (marked `clock`) keep theirs.
UNHURRIED_MARGIN_MS = "10000"


def arena_binary():
    """The arena built by cargo (CONNECT4_ARENA overrides)."""
    return cargo_binary("connect4-arena", "CONNECT4_ARENA", "cargo build -p connect4-arena")


def policy_spec(name, group, limit="movetime=2000"):
    """An arena engine spec that runs `group` through the adapter."""
    return (
        f"name={name},cmd={sys.executable},arg=-m,arg=c4bridge.policy,"
        f"arg={GROUPS / group},arg=--path,arg={COURSE},{limit}"
    )


def run_match(tmp_path, first, second, games=10, extra=()):
    log = tmp_path / "games.jsonl"
    out = subprocess.run(
        [arena_binary(), "match", "--engine", first, "--engine", second,
         "--games", str(games), "--concurrency", "2", "--log", str(log), *extra],
        capture_output=True, text=True, timeout=600,
    )
    games = [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []
    return out, games


def adapter(*args):
    """The adapter as a process speaking the protocol."""
    return subprocess.Popen(
        [sys.executable, "-m", "c4bridge.policy", *args, "--path", str(COURSE)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def exchange(proc, requests):
    out, err = proc.communicate("".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    return [json.loads(l) for l in out.splitlines()], err, proc.returncode


def test_the_tactical_policy_beats_random_as_each_colour(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("tactical", "Tactical"),
        "name=random,cmd=self,option.agent='random:seed=3'", games=20,
    )
    assert out.returncode == 0, out.stderr
    assert len(games) == 20
    for colour in ("first", "second"):
        won = [g for g in games if g[colour] == "tactical"
               and g["result"] == ("1-0" if colour == "first" else "0-1")]
        assert len(won) >= 9, f"as {colour}: {len(won)} of 10\n{out.stdout}"
    assert all(g["reason"] in ("line", "full board") for g in games)


def test_a_policy_that_raises_forfeits_with_its_traceback(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("raises", "RaisesThird"),
        "name=ab,cmd=self,option.agent='alphabeta:depth=2'", games=2,
    )
    assert len(games) == 2, out.stderr
    for g in games:
        if g["reason"] == "crash":
            assert "RuntimeError: the third move went wrong on purpose" in g["detail"], g
    assert any(g["reason"] == "crash" for g in games)
    assert "Traceback" in (tmp_path / "games.jsonl.stderr").read_text()


def test_prints_go_to_stderr_and_games_go_on(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("printer", "Printer"),
        "name=random,cmd=self,option.agent='random:seed=4'", games=4,
    )
    assert out.returncode == 0, out.stderr
    assert [g["reason"] for g in games if g["reason"] not in ("line", "full board")] == []
    assert "thinking about" in (tmp_path / "games.jsonl.stderr").read_text()


def test_a_column_out_of_range_is_passed_on_and_judged(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("wild", "OutOfRange"), "name=ab,cmd=self,depth=1", games=2,
    )
    assert len(games) == 2, out.stderr
    for g in games:
        assert g["reason"] == "illegal move", g
        # Told in the policy's own columns: it returned 7, past 0 to 6.
        assert "your code returned 7, which is no column: the board's columns are 0 to 6" in g["detail"], g


def test_a_model_file_beside_the_policy_is_found(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("model", "WithModel"), "name=random,cmd=self,option.agent=random",
        games=2,
    )
    assert out.returncode == 0, out.stderr
    assert all(g["reason"] in ("line", "full board") for g in games)


def test_the_board_is_the_course_s_and_columns_shift_by_one():
    # After 4 then 5 (1-based), the policy sees red (-1) at the bottom of
    # 0-based column 3 and yellow (1) in column 4, row 5 (the bottom row).
    proc = adapter(str(GROUPS / "WithModel"))
    replies, err, status = exchange(proc, [
        {"cmd": "hello", "id": 1},
        {"cmd": "position", "moves": "44", "id": 2},
        {"cmd": "go", "movetime_ms": 100, "id": 3},
        {"cmd": "position", "moves": "444444", "id": 4},
        {"cmd": "go", "movetime_ms": 100, "id": 5},
    ])
    assert status == 0, err
    assert replies[0]["type"] == "hello" and replies[0]["protocol"] == "connect4-jsonl"
    assert replies[2] == {"type": "bestmove", "move": 4, "id": 3}
    # Column 4 is full: the model's next choice, 0-based 2, is move 3.
    assert replies[4] == {"type": "bestmove", "move": 3, "id": 5}
    assert "adapter overhead" in err


def test_a_full_column_is_passed_on():
    proc = adapter(str(GROUPS / "TwoClasses") + ":First")
    replies, err, status = exchange(proc, [
        {"cmd": "position", "moves": "111111"},
        {"cmd": "go", "movetime_ms": 100, "id": "full"},
    ])
    assert status == 0, err
    assert replies[-1] == {"type": "bestmove", "move": 1, "id": "full"}


def test_targets_that_name_no_single_policy_are_clear_errors():
    proc = adapter(str(GROUPS / "TwoClasses"))
    _, err, status = exchange(proc, [])
    assert status == 2
    assert "expected exactly one class with mount() and act(), found First, Second" in err
    assert "keep only one class with both methods in policy.py" in err, err
    proc = adapter(str(GROUPS / "TwoClasses") + ":Third")
    _, err, status = exchange(proc, [])
    assert status == 2 and "no class 'Third'" in err
    proc = adapter(str(GROUPS / "Missing"))
    _, err, status = exchange(proc, [])
    assert status == 2 and "no such file" in err


def test_mount_gets_the_move_time_when_it_takes_one():
    # RandomPolicy.mount(timeout=None) stores it; the adapter passes 0.25 s.
    sys.path.insert(0, str(COURSE))
    try:
        from c4bridge.board import Board
        from c4bridge.policy import PolicyPlayer, load_class
        cls = load_class(str(GROUPS / "Random"))
        player = PolicyPlayer(cls)
        player.new_game(Board(), 250)
        assert player.policy.timeout == 0.25
        column, _ = player.choose(Board.from_moves("4"), 250)
        assert 0 <= column < 7
    finally:
        sys.path.remove(str(COURSE))


def test_a_random_policy_plays_legal_games(tmp_path):
    out, games = run_match(
        tmp_path, policy_spec("random-policy", "Random"),
        "name=random,cmd=self,option.agent='random:seed=9'", games=6,
    )
    assert out.returncode == 0, out.stderr
    assert len(games) == 6
    assert all(g["reason"] in ("line", "full board") for g in games), games


def test_a_full_column_is_judged_illegal_in_the_arena(tmp_path):
    # From an opening that fills column 1, the policy that always plays
    # (0-based) column 0 plays into a full column.
    openings = tmp_path / "openings.txt"
    openings.write_text("111111\n")
    out, games = run_match(
        tmp_path, policy_spec("stubborn", "TwoClasses") .replace("TwoClasses", "TwoClasses:First"),
        "name=ab,cmd=self,depth=1", games=2, extra=("--openings", str(openings)),
    )
    assert len(games) == 2, out.stderr
    stubborn_lost = [g for g in games if g["reason"] == "illegal move"]
    assert stubborn_lost, games
    assert all("column 1 is full" in g["detail"] or "full" in g["detail"] for g in stubborn_lost)


def test_the_example_in_help_runs_as_written():
    """The example `connect4-policy --help` gives is a real arena command:
    with the group and the adapter's path filled in, `--check` starts both
    engines (it once named a subcommand that --help does not list)."""
    import shlex
    help_text = subprocess.run(
        [sys.executable, "-m", "c4bridge.policy", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout
    example = " ".join(help_text.split("Example:", 1)[1].split())
    words = shlex.split(example)
    assert words[0] == "connect4-arena"
    adapter = f"cmd={sys.executable},arg=-m,arg=c4bridge.policy"
    words = [
        w.replace("cmd=connect4-policy", adapter)
        .replace("arg=groups/Mine", f"arg={GROUPS / 'Random'},arg=--path,arg={COURSE}")
        for w in words
    ]
    out = subprocess.run([arena_binary(), *words[1:], "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "check passed" in out.stdout


@pytest.mark.parametrize("value, column", [
    (3, 3), (__import__("numpy").int64(5), 5), (2.0, 2),
    (__import__("numpy").float32(6.0), 6),
])
def test_integers_and_whole_numbers_are_columns(value, column):
    from c4bridge.protocol import as_column
    assert as_column(value) == (column, None)


@pytest.mark.parametrize("value, why", [
    (3.9, "not a fraction"), ("3", "expected a column"), (True, "not a yes/no value"),
    (float("inf"), "not an infinite"), (float("nan"), "not an infinite"), (None, "expected a column"),
    (__import__("numpy").array([1, 2]), "not an array"),
])
def test_anything_else_is_refused_with_the_value_named(value, why, capsys):
    """3.9 was played as column 3, "3" and True were accepted, and inf gave
    a raw OverflowError traceback."""
    from c4bridge.protocol import PlayerError, call_player
    with pytest.raises(PlayerError):
        call_player("MyPolicy.act()", lambda: value)
    err = capsys.readouterr().err
    assert err.startswith(f"MyPolicy.act() returned {repr(value)[:40]}"), err
    assert why in err and "Traceback" not in err, err


# The course's shapes of mount and act: each plays full games in the arena,
# and checks in act that mount got what it should (a wrong value raises,
# which the arena records as a crash).
MOUNT_SHAPES = {
    "no_parameter": ("def mount(self):\n        self.got = 2.0", "return 3"),
    "positional_any_name": ("def mount(self, time_out):\n        self.got = time_out",
                            "return numpy.int64(3)"),
    "keyword_timeout": ("def mount(self, timeout=None):\n        self.got = timeout",
                        "return 3.0"),
    "default_any_name": ("def mount(self, budget=1.0):\n        self.got = budget",
                         "return numpy.int32(3)"),
    "keyword_only": ("def mount(self, *, seconds):\n        self.got = seconds", "return 3"),
    "any_keywords": ("def mount(self, **options):\n        self.got = options['timeout']",
                     "return numpy.float64(3.0)"),
}


def shaped_policy(tmp_path, name, mount, act):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "policy.py").write_text(
        "import numpy\n\n\n"
        f"class Shaped:\n    {mount}\n\n"
        "    def act(self, s):\n"
        "        if self.got != 2.0:\n"
        "            raise ValueError(f'mount got {self.got!r}')\n"
        "        free = [c for c in (3, 2, 4, 1, 5, 0, 6) if s[0][c] == 0]\n"
        f"        if free[0] == 3:\n            {act}\n"
        "        return free[0]\n"
    )
    return f"name={name},cmd={sys.executable},arg=-m,arg=c4bridge.policy,arg={folder},movetime=2000"


@pytest.mark.parametrize("shape", sorted(MOUNT_SHAPES))
def test_every_course_shape_of_mount_and_act_plays_full_games(tmp_path, shape):
    mount, act = MOUNT_SHAPES[shape]
    # What is tested is mount's shape, not the clock: a loaded machine may
    # take seconds to start Python and numpy (CI lost a game on time so).
    out, games = run_match(
        tmp_path, shaped_policy(tmp_path, shape, mount, act),
        "name=random,cmd=self,option.agent='random:seed=5'", games=2,
        extra=("--time-margin", UNHURRIED_MARGIN_MS),
    )
    assert out.returncode == 0, out.stderr
    assert len(games) == 2
    for g in games:
        assert g["reason"] in ("line", "full board"), g


def test_a_mount_that_needs_two_arguments_is_told_what_is_accepted(tmp_path):
    spec = shaped_policy(tmp_path, "two", "def mount(self, a, b):\n        self.got = a", "return 3")
    out, games = run_match(tmp_path, spec, "name=random,cmd=self,option.agent=random", games=2)
    assert games and all(g["reason"] == "crash" for g in games), games
    said = (tmp_path / "games.jsonl.stderr").read_text()
    assert "mount(self, a, b) needs 2 arguments" in said, said
    assert "mount(self, time_out)" in said


def test_the_template_plays_passes_the_checks_and_is_never_overwritten(tmp_path):
    folder = tmp_path / "mine"
    made = subprocess.run([sys.executable, "-m", "c4bridge.policy", "new", str(folder)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    text = (folder / "policy.py").read_text()
    assert "row 0 is the TOP row" in text and "-1 is a piece of the first player" in text
    results = tmp_path / "results.json"
    graded = subprocess.run(
        [arena_binary(), "grade", "--kind", "policy", "--submission", str(folder),
         "--python", sys.executable, "--games", "10", "--match-games", "4",
         "--results", str(results)],
        capture_output=True, text=True, timeout=600,
    )
    assert graded.returncode == 0, graded.stderr
    tests = {t["name"]: t for t in json.loads(results.read_text())["tests"]}
    for name, t in tests.items():
        if "discipline" in name or "ompliance" in name or "first player against random" in name:
            assert t["score"] == t["max_score"], (name, t["output"])
    # A second `new` leaves the student's work as it is.
    (folder / "policy.py").write_text(text + "\n# my changes\n")
    again = subprocess.run([sys.executable, "-m", "c4bridge.policy", "new", str(folder)],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "exists already" in again.stderr
    assert (folder / "policy.py").read_text().endswith("# my changes\n")


PROTOCOL_WORDS = ("hello", "bestmove", "engine", "forfeit", "protocol", "stall", "ping")


def grade_policy(tmp_path, folder, *extra):
    results = tmp_path / "results.json"
    out = subprocess.run(
        [arena_binary(), "grade", "--kind", "policy", "--submission", str(folder),
         "--python", sys.executable, "--games", "4", "--match-games", "4", "--tactics", "2",
         "--results", str(results), *extra],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(results.read_text())


def test_policy_feedback_speaks_python_with_whole_tracebacks(tmp_path):
    folder = tmp_path / "raises"
    folder.mkdir()
    (folder / "policy.py").write_text(
        (GROUPS / "RaisesThird" / "policy.py").read_text()
        .replace("from connect4.policy import Policy", "Policy = object"))
    r = grade_policy(tmp_path, folder)
    text = json.dumps(r).lower()
    for word in PROTOCOL_WORDS:
        assert word not in text, f"'{word}' in the feedback: {r}"
    first = r["tests"][0]["output"]
    assert 'File "policy.py", line 11, in act' in first, first
    assert "RuntimeError: the third move went wrong on purpose" in first, first
    assert "c4bridge" not in first and " | " not in first, first
    assert "[-1," in first and "row 0 is the top row" in first, first


def test_a_mount_that_outlasts_the_move_is_named_and_paid_for_once(tmp_path):
    # Issue #75, item 1: the student reads that mount() held the move, with
    # the time allowed and waited; once a test's games all stopped so,
    # the other tests are not played (each would wait again).
    folder = tmp_path / "slow-mount"
    folder.mkdir()
    (folder / "policy.py").write_text(
        "import time\n\n\nclass Slow:\n    def mount(self, time_out):\n"
        "        time.sleep(60)\n\n    def act(self, board):\n        return 3\n")
    r = grade_policy(tmp_path, folder)
    first = r["tests"][0]["output"]
    assert "Slow.mount() did not return within the time per move (1000 ms; the game waited " \
        in first, first
    assert "before your first move of each game" in first, first
    others = [t["output"] for t in r["tests"][1:] if "games were not played" in t["output"]]
    assert others, r["tests"]
    assert all("every game was lost before your code's first move" in o for o in others), others
    text = json.dumps(r).lower()
    for word in PROTOCOL_WORDS:
        assert word not in text, f"'{word}' in the feedback: {r}"
    checks = next(t["output"] for t in r["tests"] if "act returns a free column" in t["output"])
    assert "not judged, since act returned no move" in checks, checks


def test_a_policy_that_cannot_load_is_told_why_in_python_terms(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "policy.py").write_text("import not_a_module_anywhere\n")
    r = grade_policy(tmp_path, folder)
    assert r["score"] == 0
    assert "your code could not be loaded" in r["output"], r["output"]
    assert "ModuleNotFoundError: No module named 'not_a_module_anywhere'" in r["output"]
    for word in PROTOCOL_WORDS:
        assert word not in r["output"].lower(), r["output"]


def test_the_move_that_lost_is_named_in_0_based_columns(tmp_path):
    folder = tmp_path / "leftmost"
    folder.mkdir()
    (folder / "policy.py").write_text(
        "class Leftmost:\n    def mount(self):\n        pass\n\n"
        "    def act(self, s):\n        return [c for c in range(7) if s[0][c] == 0][0]\n")
    r = grade_policy(tmp_path, folder)
    told = [t["output"] for t in r["tests"] if "your move " in t["output"]]
    assert told, r
    import re
    for output in told:
        for played, kept in re.findall(r"your move \d+ \(column (\d)\).*?Playing column (\d) kept", output):
            assert int(played) != int(kept)
            assert 0 <= int(played) <= 6 and 0 <= int(kept) <= 6
    assert "(column 0)" in "".join(told), told


def test_grade_engine_stops_at_once_on_code_that_cannot_load(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "policy.py").write_text("import not_a_module_anywhere\n")
    results = tmp_path / "results.json"
    engine = f"name=mine,cmd={sys.executable},arg=-m,arg=c4bridge.policy,arg={folder}"
    out = subprocess.run(
        [arena_binary(), "grade", "--kind", "policy", "--engine", engine,
         "--results", str(results)],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    r = json.loads(results.read_text())
    assert "no game was played" in r["output"], r["output"]
    assert "No module named 'not_a_module_anywhere'" in r["output"]
    assert all(t["output"].startswith("not run:") for t in r["tests"]), r["tests"]


ONE_BASED = """
import numpy as np
from connect4.policy import Policy


class OneBased(Policy):
    \"\"\"Counts columns from 1, as a student might: 1 to 7.\"\"\"

    def mount(self):
        pass

    def act(self, s):
        free = [c for c in range(7) if s[0][c] == 0]
        return max(free) + 1
"""


def test_a_policy_s_illegal_moves_are_told_in_its_own_columns(tmp_path):
    # Issue #43, item 2: the match's stop message speaks of the values the
    # code returned (from 0), and asks whether it counts columns from 1.
    group = tmp_path / "OneBased"
    group.mkdir()
    (group / "policy.py").write_text(ONE_BASED)
    spec = (f"name=onebased,cmd={sys.executable},arg=-m,arg=c4bridge.policy,"
            f"arg={group},arg=--path,arg={COURSE},movetime=2000")
    out, games = run_match(tmp_path, spec, "name=ab,cmd=self,depth=1", games=6)
    assert out.returncode != 0, out.stdout
    assert "your code returned 7, which is no column: the board's columns are 0 to 6" in out.stderr, out.stderr
    assert "does it count columns from 1?" in out.stderr, out.stderr
    lost = [g for g in games if g["reason"] == "illegal move"]
    assert lost and all(g["zero_based"] == ["onebased"] for g in lost), games


EXAMPLE = HERE.parent.parent / "docs" / "grading" / "example-results.json"


def test_the_documented_example_results_are_what_the_grader_writes_now(tmp_path):
    # Issue #43, item 7: docs/grading/example-results.json is the course's
    # tactical policy graded by the standard policy tests, as the grader
    # writes it now (C4_UPDATE_EXAMPLES=1 rewrites it after a change).
    config = tmp_path / "grader.toml"
    config.write_text(f'[submission]\nkind = "policy"\npython_path = ["{COURSE}"]\n')
    results = tmp_path / "results.json"
    graded = subprocess.run(
        [arena_binary(), "grade", "--config", str(config), "--submission", str(GROUPS / "Tactical"),
         "--python", sys.executable, "--results", str(results)],
        capture_output=True, text=True, timeout=600,
    )
    assert graded.returncode == 0, graded.stderr
    now = json.loads(results.read_text())
    if os.environ.get("C4_UPDATE_EXAMPLES"):
        EXAMPLE.write_text(json.dumps(now, indent=2, ensure_ascii=False) + "\n")
    documented = json.loads(EXAMPLE.read_text())
    # The time taken, and the moves' times, are this machine's.
    for r in (now, documented):
        r.pop("execution_time", None)
        for t in r["tests"]:
            t["output"] = "\n".join(l for l in t["output"].split("\n")
                                    if not l.startswith("- your moves took "))
    assert now == documented, "docs/grading/example-results.json is stale: run with C4_UPDATE_EXAMPLES=1"
    # A Python student's terms: columns from 0, the array it receives.
    text = json.dumps(now)
    assert "bestmove" not in text and "columns 1 to 7" not in text
