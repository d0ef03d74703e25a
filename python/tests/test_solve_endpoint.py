"""`connect4-arena serve`'s /solve as the language-model benchmarks' solver
agents use it: TextArena's and SPIN-Bench's ask `GET {url}?pos=<moves,
columns from 1>` and play the column of the highest 'score' (SPIN-Bench
over every column, TextArena over the legal ones). Here such an agent,
written from their code's description, plays PettingZoo's connect_four_v3
against a random player through the real server, with nothing but the
standard library's HTTP."""

import json
import random
import subprocess
import urllib.error
import urllib.request

import pytest

from test_policy import arena_binary


@pytest.fixture(scope="module")
def solve_url():
    proc = subprocess.Popen([arena_binary(), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("serving on http://127.0.0.1:"), line
    yield line.split()[2].rstrip("/") + "/solve"
    proc.kill()
    proc.wait()


def ask(url, pos, **extra):
    query = "&".join([f"pos={pos}"] + [f"{k}={v}" for k, v in extra.items()])
    with urllib.request.urlopen(f"{url}?{query}", timeout=60) as answer:
        return json.loads(answer.read())


def test_an_agent_taking_the_highest_score_never_plays_a_full_column_and_wins(solve_url):
    pettingzoo = pytest.importorskip("pettingzoo.classic")
    for solver_seat, seed in (("player_0", 1), ("player_1", 2)):
        env = pettingzoo.connect_four_v3.env()
        env.reset(seed=seed)
        chooser = random.Random(seed)
        pos = ""
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == solver_seat:
                    assert reward == 1, (solver_seat, pos)
                env.step(None)
                continue
            legal = [c for c, ok in enumerate(observation["action_mask"]) if ok]
            if agent == solver_seat:
                score = ask(solve_url, pos)["score"]
                assert len(score) == 7 and all(s == -1000 for c, s in enumerate(score)
                                               if c not in legal), (pos, score)
                best = max(score)
                move = chooser.choice([c for c, s in enumerate(score) if s == best])
            else:
                move = chooser.choice(legal)
            assert move in legal, (pos, move)
            pos += str(move + 1)
            env.step(move)


def test_a_level_s_move_and_the_errors_in_json(solve_url):
    answer = ask(solve_url, "44", level=7)
    assert answer["pos"] == "44" and answer["player"] == "perfect"
    assert answer["score"][answer["move"]] == max(answer["score"])
    with pytest.raises(urllib.error.HTTPError) as refused:
        ask(solve_url, "4", level=0)
    assert refused.value.code == 400
    assert json.loads(refused.value.read()) == {"error": "level 0: the levels are 1 to 7"}
