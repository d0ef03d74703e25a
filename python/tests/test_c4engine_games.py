"""c4engine's players and games: every agent of the project as a Player,
games and matches against course Policies, Kaggle agents and functions,
forfeits with their reasons, and the solver's verdict on every move; the
perfect player checked against the public solved sets."""

import subprocess

import pytest

from binaries import cargo_binary
from test_c4engine import labelled


def test_every_agent_chooses_a_legal_move(c4, tmp_path):
    engine = cargo_binary("connect4", "CONNECT4_ENGINE", "cargo build --release")
    model = tmp_path / "q.json"
    subprocess.run([engine, "train", "qlearning", "--episodes", "50", "--out", str(model)],
                   check=True, capture_output=True)
    p = c4.Position("4453")
    for spec in ["random", "greedy", "minimax:depth=2", "alphabeta:depth=3,eval=windows",
                 "expectimax:depth=2", "mcts:simulations=200", "perfect",
                 f"qlearning:model={model}"]:
        player = c4.Player(spec, seed=1)
        assert player.choose(p) in p.legal(), spec
    with pytest.raises(ValueError, match="unknown agent 'oracle'; agents: solver, random"):
        c4.Player("oracle")
    with pytest.raises(c4.PositionError, match="the game is over"):
        c4.Player("random").choose(c4.Position.from_columns([0, 1, 0, 1, 0, 1, 0]))


def test_the_perfect_player_wins_every_won_position(c4):
    won = [(m, s) for m, s in labelled("Test_L2_R1", 60) if s > 0][:10]
    assert won
    for moves, _ in won:
        p = c4.Position(moves)
        game = c4.play_game("perfect", "random", opening=p, seed=7) if p.to_move == 1 else \
            c4.play_game("random", "perfect", opening=p, seed=7)
        assert game["winner"] == p.to_move and game["forfeit"] is None, moves
        assert game["moves"][:game["opening"]] == p.columns


def test_python_players_of_every_kind_play_and_forfeit_with_a_reason(c4):
    mounted = []

    class Policy:
        def mount(self, time_out):
            mounted.append(self)

        def act(self, board):
            assert board.shape == (6, 7)
            return int((board != 0).sum(axis=0).argmin())

    def kaggle_agent(observation, configuration):
        assert observation.mark in (1, 2) and configuration.columns == 7
        return next(c for c in range(7) if observation.board[c] == 0)

    game = c4.play_game(Policy, kaggle_agent, seed=1)
    assert game["forfeit"] is None and len(game["moves"]) >= 7
    assert len(mounted) == 1, "one fresh Policy, mounted once, per game"
    c4.play_game(Policy, "random", seed=2)
    assert len(mounted) == 2 and mounted[0] is not mounted[1]

    game = c4.play_game(lambda p: 9, "random")
    assert game["winner"] == 2
    assert "returned 9, which is not a legal column (legal: [0, 1, 2, 3, 4, 5, 6])" in \
        game["forfeit"]
    with pytest.raises(ZeroDivisionError):
        c4.play_game(lambda p: 1 // 0, "random")
    with pytest.raises(TypeError, match="is not a player"):
        c4.play_game(42, "random")


def test_a_match_is_colour_swapped_counted_and_repeatable(c4):
    match = c4.play_match("greedy", "random", games=20, seed=5)
    assert match["wins"] + match["draws"] + match["losses"] == 20
    assert [g["a_first"] for g in match["games"][:4]] == [True, False, True, False]
    pairs = match["games"]
    assert pairs[0]["moves"][:2] == pairs[1]["moves"][:2], "a pair shares its opening"
    again = c4.play_match("greedy", "random", games=20, seed=5)
    assert [g["moves"] for g in again["games"]] == [g["moves"] for g in pairs]
    assert match["score"] > 0.8, match["score"]


def test_verdicts_name_the_move_that_lost_the_value(c4):
    rank = {"loss": 0, "draw": 1, "win": 2}
    reverse = {"win": "loss", "draw": "draw", "loss": "win"}
    solver = c4.Solver()
    p = c4.Position("44444")
    scores = solver.scores(p)
    sign = lambda s: (s > 0) - (s < 0)  # noqa: E731
    best = max(s for s in scores if s is not None)
    for column in p.legal():
        game = p.play(column)
        last = c4.verdicts(game)[-1]
        assert last["column"] == column and last["ply"] == 5
        assert last["before"] == solver.outcome(p)
        if game.is_over():
            after = "win" if game.winner() else "draw"
        else:
            after = reverse[solver.outcome(game)]
        assert last["after"] == after, column
        assert last["lost"] == (rank[after] < rank[last["before"]])
        assert last["lost"] == (sign(scores[column]) < sign(best)), column
        if last["lost"]:
            assert sign(scores[last["keeping"]]) == sign(best)
    judged = c4.play_game("greedy", "random", seed=3, judge=True)
    assert [v["column"] for v in judged["verdicts"]] == judged["moves"]


def test_accuracy_is_one_for_the_perfect_player_and_names_every_lost_move(c4):
    positions = labelled("Test_L3_R1", 100)
    assert c4.accuracy("perfect", positions)["accuracy"] == 1.0
    assert c4.accuracy("perfect", games=4, opponent="greedy", seed=1)["accuracy"] == 1.0
    solver = c4.Solver()
    rank = {"loss": 0, "draw": 1, "win": 2}

    def value_after(position, column):
        child = position.play(column)
        if child.is_over():
            return 2 if child.winner() else 1
        return 2 - rank[solver.outcome(child)]

    for report in (c4.accuracy("random", positions, keep=100),
                   c4.accuracy("greedy", games=6, seed=2, keep=100)):
        assert report["judged"] == report["kept"] + len(report["lost"]) > 0
        assert report["accuracy"] == report["kept"] / report["judged"]
        for lost in report["lost"]:
            p = lost["position"]
            before = rank[solver.outcome(p)]
            assert value_after(p, lost["column"]) - before == lost["drop"] < 0
            assert value_after(p, lost["keeping"]) == before
    assert c4.accuracy("random", positions)["accuracy"] < 1.0
    with pytest.raises(ValueError, match="which is not a legal column"):
        c4.accuracy(lambda p: 9, positions[:3])


def test_levels_are_players_weakest_first(c4):
    assert len(c4.LEVELS) == 7 and c4.LEVELS[0] == "random" and c4.LEVELS[-1] == "perfect"
    assert c4.level(3).spec.startswith("alphabeta:depth=4")
    with pytest.raises(ValueError, match="level 8: levels are 1 to 7"):
        c4.level(8)
    # The measured ladder (docs/python.md) in small, repeatable matches
    # (no level plays on a clock): each level beats the one below it.
    for n in range(2, 7):
        match = c4.play_match(c4.level(n), c4.level(n - 1), games=20, seed=n)
        assert match["score"] > 0.5, (n, match["wins"], match["draws"], match["losses"])
