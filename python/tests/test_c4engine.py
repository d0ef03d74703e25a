"""c4engine, the engine inside Python: positions in every convention, the
solver's answers against independent ground truth (the public solved sets
and Christophe Steininger's table of every board size), errors in the
caller's counting, the GIL released and Ctrl-C obeyed during a long call.

Under scripts/test the module is the students' kit's wheel, installed
(C4ENGINE_FROM_KIT=1); elsewhere it is assembled from python/src/c4engine
and the extension cargo built (target/release/libc4engine_native.so;
C4ENGINE_NATIVE overrides), as the kit's wheel assembles it."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent.parent
BENCH = REPO.parent / "shared" / "bench"


def labelled(name, count):
    """The first `count` lines of a public solved set: (moves, score)."""
    path = BENCH / name
    if not path.exists():
        pytest.skip(f"{path} is missing: the public sets live in ../shared/bench")
    lines = path.read_text().split("\n")[:count]
    return [(moves, int(score)) for moves, score in (line.split() for line in lines)]


def test_the_module_s_examples_hold(c4):
    import doctest

    failed, tried = doctest.testmod(c4, verbose=False)
    assert tried >= 5 and failed == 0


def test_the_version_is_the_engine_s(c4):
    """`c4engine.__version__` is the workspace's version, which maturin
    names the wheel by."""
    cargo = (REPO / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\]\nversion = "([^"]+)"', cargo).group(1)
    assert c4.__version__ == version


def test_positions_from_a_move_string_columns_and_play(c4):
    p = c4.Position("4453")
    assert p.moves == "4453" and p.columns == [3, 3, 4, 2] and len(p) == 4
    assert p == c4.Position.from_columns([3, 3, 4, 2])
    # A board is equal whatever the order that reached it.
    assert c4.Position("4354") == c4.Position("4453")
    assert hash(c4.Position("4354")) == hash(c4.Position("4453"))
    q = p.play(0)
    assert q.columns == [3, 3, 4, 2, 0] and p.columns == [3, 3, 4, 2], "play is pure"
    assert p.to_move == 1 and q.to_move == 2
    assert repr(p) == "Position('4453')"
    assert str(p).splitlines()[-1] == "0 1 2 3 4 5 6"
    full = c4.Position("444444")
    assert full.legal() == [0, 1, 2, 4, 5, 6]
    assert not full.is_over() and full.winner() is None


def test_a_finished_game_has_a_winner_and_no_moves(c4):
    won = c4.Position.from_columns([0, 1, 0, 1, 0, 1, 0])
    assert won.is_over() and won.winner() == 1 and won.legal() == []
    lost = c4.Position.from_columns([0, 1, 0, 1, 0, 1, 2, 1])
    assert lost.winner() == 2
    with pytest.raises(c4.PositionError, match="the game already ended at move 7"):
        won.play(3)
    with pytest.raises(c4.PositionError, match="the game is over after '1212121'"):
        c4.score(won)


def test_errors_count_columns_as_the_caller_did(c4):
    assert issubclass(c4.PositionError, ValueError)
    # Columns from 0 in lists and in play.
    with pytest.raises(c4.PositionError,
                       match=r"move 3: column 7 does not exist: the board's columns are 0 to 6"):
        c4.Position.from_columns([3, 3, 7])
    with pytest.raises(c4.PositionError, match=r"move 7 \(column 3\): column 3 is full"):
        c4.Position.from_columns([3] * 7)
    with pytest.raises(c4.PositionError, match="column -1 does not exist"):
        c4.Position().play(-1)
    # Columns from 1 in a move string, as the command line says them.
    with pytest.raises(c4.PositionError, match=r"move 3 \('8'\): column 8 does not exist"):
        c4.Position("448")
    with pytest.raises(c4.PositionError, match="rules '9x9x9x9'"):
        c4.Position("", rules="9x9x9x9")
    with pytest.raises(c4.PositionError, match="convention 'gym'"):
        c4.Position.from_board(np.zeros((6, 7)), convention="gym")
    with pytest.raises(c4.PositionError, match="tie_break 'middle'"):
        c4.best_move("4", tie_break="middle")
    with pytest.raises(c4.PositionError, match="expected a Position or a move string"):
        c4.score(42)


def test_the_course_board_reads_and_writes(c4):
    p = c4.Position("4453")
    board = p.board()
    assert board.shape == (6, 7)
    assert board[5].tolist() == [0, 0, 1, -1, -1, 0, 0] and board[4, 3] == 1
    assert c4.Position.from_board(board) == p
    # Float boards (np.zeros((6, 7))) read too.
    assert c4.Position.from_board(board.astype(float)) == p
    bad = board.copy()
    bad[0, 2] = 1
    with pytest.raises(c4.PositionError, match="row 0, column 2: a piece floats"):
        c4.Position.from_board(bad)
    bad = board.copy()
    bad[5, 6] = 2
    with pytest.raises(c4.PositionError,
                       match=r"row 5, column 6: value 2(\.0)? is not 0 \(empty\), -1"):
        c4.Position.from_board(bad)
    with pytest.raises(c4.PositionError, match="not a 2-D array of rows"):
        c4.Position.from_board("4453")
    wide = np.zeros((6, 9), dtype=int)
    assert c4.Position.from_board(wide).rules == "9x6x4"


def test_kaggle_boards_and_observations_read_and_write(c4):
    from kaggle_environments import make

    env = make("connectx", debug=True)
    env.reset()
    for column in (3, 3, 4, 2):
        env.step([column, None] if env.state[0].status == "ACTIVE" else [None, column])
    observation = env.state[0].observation
    p = c4.Position.from_board(observation, convention="kaggle")
    assert p == c4.Position.from_columns([3, 3, 4, 2])
    assert p.board("kaggle") == list(observation.board)
    assert c4.Position.from_board({"board": list(observation.board)}, convention="kaggle") == p


def test_pettingzoo_planes_read_and_write(c4):
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    env.reset(seed=1)
    for column in (3, 3, 4):
        env.step(column)
    observation, *_ = env.last()
    p = c4.Position.from_board(observation, convention="pettingzoo")
    assert p == c4.Position.from_columns([3, 3, 4]) and p.to_move == 2
    assert np.array_equal(p.board("pettingzoo"), observation["observation"])
    assert p.legal() == [c for c, ok in enumerate(observation["action_mask"]) if ok]
    planes = observation["observation"].copy()
    planes[5, 0] = [1, 1]
    with pytest.raises(c4.PositionError, match="row 5, column 0: planes"):
        c4.Position.from_board(planes, convention="pettingzoo")


@pytest.mark.parametrize("book", [True, False])
def test_scores_match_the_public_solved_sets(c4, book):
    solver = c4.Solver(book=book)
    for moves, truth in labelled("Test_L2_R1", 40) + labelled("Test_L1_R1", 40):
        assert solver.score(moves) == truth, moves
        assert solver.outcome(moves) == ("win" if truth > 0 else "loss" if truth < 0 else "draw")


def test_every_column_s_score_and_the_best_move_agree(c4):
    solver = c4.Solver()
    for moves, truth in labelled("Test_L2_R2", 10):
        p = c4.Position(moves)
        scores = solver.scores(p)
        assert max(s for s in scores if s is not None) == truth, moves
        assert [c for c, s in enumerate(scores) if s is None] == \
            [c for c in range(7) if c not in p.legal()]
        best = solver.best_move(p)
        assert scores[best] == truth
        left = solver.best_move(p, tie_break="left")
        assert left == min(c for c, s in enumerate(scores) if s == truth)
        assert scores[solver.best_move(p, tie_break="random")] == truth


def test_the_principal_variation_reaches_the_end_the_score_says(c4):
    for moves, truth in labelled("Test_L3_R1", 5):
        p = c4.Position(moves)
        line = c4.principal_variation(p)
        end = p
        for column in line:
            end = end.play(column)
        assert end.is_over(), moves
        if truth == 0:
            assert end.winner() is None
        else:
            # The side to move wins (a positive score) or loses, with its
            # stones at the end as the score says.
            mover = p.to_move
            assert end.winner() == (mover if truth > 0 else 3 - mover), moves
            cells = 42
            stones = (len(end) + (1 if end.winner() == 1 else 0)) // 2
            assert abs(truth) == cells // 2 + 1 - stones, moves


@pytest.mark.parametrize("width,height,outcome,last", [
    (4, 4, 0, 16), (5, 4, 0, 20), (6, 4, 2, 24), (7, 4, 0, 28), (8, 4, 2, 32),
    (4, 5, 0, 20), (5, 5, 0, 25), (6, 5, 0, 30), (4, 6, 0, 24), (5, 6, 0, 30),
    (6, 6, 2, 36),
])
def test_every_small_board_ends_as_steininger_s_table_says(c4, width, height, outcome, last):
    """Outcome (0 a draw, 1 or 2 the winner) and the move the game ends on
    with perfect play, from the table in Christophe Steininger's readme."""
    solver = c4.Solver(book=False)
    score = solver.score(c4.Position("", rules=f"{width}x{height}x4"))
    cells = width * height
    if outcome == 0:
        assert score == 0
    else:
        winner_stones = (last + 1) // 2 if outcome == 1 else last // 2
        expected = cells // 2 + 1 - winner_stones
        assert score == (expected if outcome == 1 else -expected)


def test_think_answers_a_legal_column_with_its_search(c4):
    answer = c4.think("", 100)
    assert answer["column"] == 3 and answer["outcome"] == "win"
    answer = c4.Solver(book=False).think(c4.Position("4453"), 50)
    assert answer["column"] in range(7) and answer["pv"][0] == answer["column"]
    assert set(answer) == {"column", "score", "exact", "outcome", "depth", "nodes", "pv"}


def test_a_long_call_lets_other_threads_run(c4):
    solver = c4.Solver(book=False)
    hard = labelled("Test_L1_R3", 1)[0][0]
    inside = threading.Event()
    result = []

    def solve():
        inside.set()
        result.append(solver.score(hard))

    thread = threading.Thread(target=solve)
    thread.start()
    inside.wait()
    ticks = 0
    while thread.is_alive():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    assert result == [labelled("Test_L1_R3", 1)[0][1]]
    # With the GIL held for the whole solve, this thread would not have run.
    assert ticks > 10, ticks


def test_ctrl_c_stops_a_long_solve(package):
    # Python's own Ctrl-C handler, as at a terminal: a test run started in
    # the background inherits SIGINT ignored, and Python keeps that.
    script = (
        "import signal, sys, c4engine\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "solver = c4engine.Solver(book=False)\n"
        "print('solving', flush=True)\n"
        "try:\n"
        "    solver.score(c4engine.Position(''))\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(package))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env=env)
    assert child.stdout.readline().strip() == "solving"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    try:
        out, _ = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 3 and "interrupted" in out


def test_every_call_is_safe_from_many_threads(c4):
    # Issue #69, item 8: the module's functions share one Solver whose
    # calls release the GIL; 8 threads got "RuntimeError: Already
    # borrowed" on 280 of 320 calls, and a shared Player on 60 of 80.
    positions = [moves for moves, _ in labelled("Test_L3_R1", 40)]
    expected = {m: c4.score(m) for m in positions}
    player = c4.Player("alphabeta:depth=3")
    errors, answers = [], []

    def work(i):
        try:
            for moves in positions[i::8]:
                answers.append((moves, c4.score(moves)))
                c4.best_move(moves)
                player.choose(moves)
        except Exception as e:  # noqa: BLE001 - every failure is the finding
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(answers) == len(positions)
    assert all(score == expected[moves] for moves, score in answers)
