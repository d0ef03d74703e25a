"""What RL code does with c4engine's objects besides playing: pickle and
deep-copy positions, players and environments (MCTS clones them), and give
columns and boards that do not fit, which are refused by name."""

import copy
import pickle

import numpy as np
import pytest


def test_positions_and_players_pickle_and_deep_copy(c4):
    p = c4.Position("4453", rules="7x6x4")
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert q == p and q.moves == "4453" and q.rules == "7x6x4"
    small = pickle.loads(pickle.dumps(c4.Position("33", rules="6x5x4")))
    assert small.rules == "6x5x4" and small.columns == [2, 2]
    greedy = pickle.loads(pickle.dumps(c4.Player("alphabeta:depth=2")))
    assert greedy.spec.startswith("alphabeta") and greedy.choose("4453") in range(7)


def test_an_environment_deep_copied_mid_game_goes_on_as_the_original(c4):
    env = c4.gymnasium_env("greedy")
    env.reset(seed=1)
    env.step(3)
    twin = copy.deepcopy(env)
    for column in (3, 2, 4):
        a, b = env.step(column), twin.step(column)
        assert np.array_equal(a[0]["observation"], b[0]["observation"]) and a[1:4] == b[1:4]
        if a[2]:
            break
    aec = c4.pettingzoo_env()
    aec.reset(seed=0)
    aec.step(3)
    clone = copy.deepcopy(aec)
    assert np.array_equal(aec.observe(aec.agent_selection)["observation"],
                          clone.observe(clone.agent_selection)["observation"])


def test_a_column_too_large_for_any_integer_type_is_a_column_off_the_board(c4):
    with pytest.raises(c4.PositionError, match="column 9223372036854775808 does not exist"):
        c4.Position("").play(2**63)
    with pytest.raises(ValueError, match="move 2: column 1180591620717411303424 does not exist"):
        c4.Position.from_columns([3, 2**70])
    with pytest.raises(ValueError, match="move 1: column 7 does not exist"):
        c4.Position("").play(7)


def test_a_board_of_another_shape_than_its_rules_is_refused(c4):
    with pytest.raises(ValueError, match="a board of 5 rows and 7 columns is not a board of 7x6x4"):
        c4.Position.from_board(np.zeros((5, 7)), rules="7x6x4")
    assert c4.Position.from_board(np.zeros((5, 7))).rules == "7x5x4", "its shape's board"


def test_gymnasium_makes_the_environments_by_their_ids(c4):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("c4engine/ConnectFour-v0", opponent="greedy")
    check_env(env.unwrapped)
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (6, 7, 2)
    batch = gymnasium.make_vec("c4engine/ConnectFour-v0", num_envs=16,
                               vectorization_mode="vector_entry_point", opponent="random")
    obs, _ = batch.reset(seed=0)
    assert obs["observation"].shape == (16, 6, 7, 2)
    assert batch.step(batch.random_actions())[1].shape == (16,)
