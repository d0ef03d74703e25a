"""c4engine.BatchSolver against the public solved sets and the single
calls: every label exact, every column's score and best move as
Solver's, in order whatever the threads; bad positions named by their
index."""

import numpy as np
import pytest

from test_c4engine import labelled


def test_every_label_of_the_public_sets_is_exact_in_one_call(c4):
    lines = labelled("Test_L3_R1", 300) + labelled("Test_L2_R1", 200) + labelled("Test_L1_R1", 100)
    solver = c4.BatchSolver(threads=2, hash_mb=16)
    got = solver.score([moves for moves, _ in lines])
    assert got.dtype == np.int32 and got.shape == (len(lines),)
    assert got.tolist() == [truth for _, truth in lines]
    outcomes = solver.outcome([c4.Position(moves) for moves, _ in lines])
    assert outcomes.tolist() == [int(np.sign(truth)) for _, truth in lines]
    # The same answers from one thread: the order is the positions', not the workers'.
    assert c4.BatchSolver(threads=1, hash_mb=16).score([m for m, _ in lines]).tolist() == got.tolist()


def test_column_scores_and_best_moves_are_the_single_solver_s(c4):
    moves = [m for m, _ in labelled("Test_L2_R1", 30)] + ["4444443"]
    batch = c4.BatchSolver(threads=2, hash_mb=16)
    single = c4.Solver(hash_mb=16)
    scores = batch.scores(moves)
    columns, best = batch.best_move(moves)
    for i, m in enumerate(moves):
        expected = [np.nan if s is None else s for s in single.scores(m)]
        assert np.array_equal(scores[i], np.array(expected, np.float32), equal_nan=True), m
        assert columns[i] == single.best_move(m) and best[i] == single.score(m), m
    assert np.isnan(scores[-1][3]), "the centre of 4444443 is full"
    assert batch.score([]).shape == (0,)


def test_a_bad_position_is_named_by_its_index(c4):
    batch = c4.BatchSolver(threads=1, hash_mb=16)
    with pytest.raises(ValueError, match=r"positions\[1\]: the game is over after '1212121'"):
        batch.score(["44", "1212121"])
    with pytest.raises(ValueError, match=r"positions\[2\]"):
        batch.score(["44", "4", "48"])
    with pytest.raises(ValueError, match=r"positions\[1\]: a board of 6x5x4, where positions\[0\]'s is 7x6x4"):
        batch.score([c4.Position("4"), c4.Position("3", rules="6x5x4")])
    with pytest.raises(ValueError, match="threads: expected at least 1, got 0"):
        c4.BatchSolver(threads=0)
