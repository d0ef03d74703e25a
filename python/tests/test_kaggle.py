"""Kaggle ConnectX agents through the real adapter process: kaggle-
environments' own agents as files, inside the real arena."""

import json
import subprocess
import sys

import pytest

from test_policy import UNHURRIED_MARGIN_MS, arena_binary, run_match

kaggle_environments = pytest.importorskip("kaggle_environments")


def agent_file(tmp_path, name):
    """A submission-style file whose last callable is kaggle's `name` agent."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        "from kaggle_environments.envs.connectx.connectx import "
        f"{name}_agent as kaggle_{name}\n\n\n"
        "def agent(observation, configuration):\n"
        f"    return kaggle_{name}(observation, configuration)\n"
    )
    return path


def spec(name, path, limit="movetime=2000"):
    return f"name={name},cmd={sys.executable},arg=-m,arg=c4bridge.kaggle,arg={path},{limit}"


def test_kaggle_s_negamax_and_random_play_in_the_arena(tmp_path):
    log = tmp_path / "games.jsonl"
    out = subprocess.run(
        [arena_binary(), "match",
         "--engine", spec("negamax", agent_file(tmp_path, "negamax")),
         "--engine", spec("random", agent_file(tmp_path, "random")),
         "--games", "10", "--concurrency", "2", "--log", str(log),
         # Kaggle's negamax takes up to a second a move in Python.
         "--time-margin", UNHURRIED_MARGIN_MS],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    games = [json.loads(l) for l in log.read_text().splitlines()]
    assert len(games) == 10
    assert all(g["reason"] in ("line", "full board") for g in games), games
    negamax_wins = sum(
        1 for g in games
        if (g["first"] == "negamax" and g["result"] == "1-0")
        or (g["second"] == "negamax" and g["result"] == "0-1")
    )
    assert negamax_wins >= 8, out.stdout


def test_observation_and_configuration_as_kaggle_gives_them(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(
        "import sys\n"
        "def agent(obs, config):\n"
        "    assert obs.board == obs['board'] and config.columns == config['columns']\n"
        "    print(obs.mark, obs.step, len(obs.board), config.rows, config.inarow,\n"
        "          config.actTimeout, obs.board[-7:], file=sys.stderr)\n"
        "    return 0\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "c4bridge.kaggle", str(path)],
        input='{"cmd":"position","moves":"45"}\n{"cmd":"go","movetime_ms":500,"id":1}\n',
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == {"type": "bestmove", "move": 1, "id": 1}
    # Mark 1 moves (two stones down), 42 cells, bottom row 0 0 0 1 2 0 0.
    assert "1 2 42 6 4 0.5 [0, 0, 0, 1, 2, 0, 0]" in proc.stderr


def test_an_agent_imports_from_the_folders_given_with_path(tmp_path):
    helpers = tmp_path / "course"
    helpers.mkdir()
    (helpers / "course_helpers.py").write_text("def first_free(board):\n"
                                               "    return [c for c in range(7) if board[c] == 0][0]\n")
    agent = tmp_path / "agent.py"
    agent.write_text("from course_helpers import first_free\n\n\n"
                     "def agent(obs, config):\n    return first_free(obs.board)\n")
    request = '{"id":1,"cmd":"hello"}\n{"id":2,"cmd":"go","movetime_ms":1000}\n'
    out = subprocess.run(
        [sys.executable, "-m", "c4bridge.kaggle", str(agent), "--path", str(helpers)],
        input=request, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    replies = [json.loads(l) for l in out.stdout.splitlines()]
    assert replies[-1]["type"] == "bestmove" and replies[-1]["move"] == 1, replies


def test_an_agent_of_one_parameter_gets_the_observation_alone(tmp_path):
    path = tmp_path / "one.py"
    path.write_text(
        "import numpy\n\n\n"
        "def agent(obs):\n"
        "    return numpy.int64([c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0][0])\n"
    )
    out, games = run_match(tmp_path, spec("one", path),
                           "name=random,cmd=self,option.agent='random:seed=2'", games=2)
    assert out.returncode == 0, out.stderr
    assert all(g["reason"] in ("line", "full board") for g in games), games
