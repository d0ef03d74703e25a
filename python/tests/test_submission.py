"""Our engine as a Kaggle agent, inside kaggle-environments itself."""

import time

import pytest

from binaries import cargo_binary
from c4bridge import submission

kaggle_environments = pytest.importorskip("kaggle_environments")

def engine_binary():
    """The engine built by cargo (CONNECT4_ENGINE overrides)."""
    return cargo_binary("connect4", "CONNECT4_ENGINE", "cargo build")


def rewards(agents):
    env = kaggle_environments.make("connectx", debug=True)
    env.run(agents)
    last = env.steps[-1]
    assert [s["status"] for s in last] == ["DONE", "DONE"], last
    return [s["reward"] for s in last], len(env.steps)


@pytest.mark.clock
def test_our_submission_beats_negamax_and_random_with_either_colour(tmp_path):
    out = tmp_path / "submission"
    assert submission.main(["--out", str(out), "--movetime", "300", "--engine", engine_binary()]) == 0
    main = str(out / "main.py")
    start = time.monotonic()
    (first, _), steps_a = rewards([main, "negamax"])
    (_, second), steps_b = rewards(["negamax", main])
    assert first == 1, "as the first player the engine wins from the empty board"
    assert second is not None and second >= 0, "as the second player it does not lose to negamax"
    (first, _), _ = rewards([main, "random"])
    (_, second), _ = rewards(["random", main])
    assert (first, second) == (1, 1)
    # Each step well inside Kaggle's default 2 s actTimeout.
    per_step = (time.monotonic() - start) / (steps_a + steps_b)
    assert per_step < 2.0, per_step


def test_a_broken_engine_falls_back_to_legal_moves(tmp_path, capfd):
    out = tmp_path / "broken"
    assert submission.main(["--out", str(out), "--engine", engine_binary()]) == 0
    # An engine that dies at once.
    (out / "connect4").write_text("#!/bin/sh\nexit 3\n")
    (first, second), _ = rewards([str(out / "main.py"), "random"])
    assert first is not None and second is not None
    assert "playing a move of its own" in capfd.readouterr().err


def test_missing_engine_is_a_clear_error(tmp_path, capsys):
    code = submission.main(["--out", str(tmp_path / "x"), "--engine", str(tmp_path / "nope")])
    assert code == 2
    assert "no engine binary" in capsys.readouterr().err
