"""c4engine.vector, the batched games, against the references they
follow: self-play (pgx's functional form) plays move for move as
PettingZoo's connect_four_v3; the Gymnasium vector environment steps as
Gymnasium's own SyncVectorEnv over the single environment does, in each
autoreset mode; seeds repeat games; bad actions are refused by name."""

import warnings

import numpy as np
import pytest


def test_self_play_plays_as_connect_four_v3_move_by_move(c4):
    from c4engine import vector
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.classic import connect_four_v3
    games = 8
    refs = [connect_four_v3.env() for _ in range(games)]
    for env in refs:
        env.reset()
    state = vector.init(games, seed=1)
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(200):
        actions = np.zeros(games, np.int64)
        for g, env in enumerate(refs):
            if state.terminated[g]:
                continue  # this step starts game g again; its action is unused
            obs, *_ = env.last()
            assert np.array_equal(state.observation[g], obs["observation"].astype(bool)), g
            assert np.array_equal(state.legal_action_mask[g], obs["action_mask"].astype(bool))
            assert state.current_player[g] == int(env.agent_selection[-1])
            # Now and then a full column, to check the illegal-move rule.
            full = np.flatnonzero(obs["action_mask"] == 0)
            legal = np.flatnonzero(obs["action_mask"])
            actions[g] = rng.choice(full if len(full) and rng.random() < 0.1 else legal)
        before = state
        state = vector.step(state, actions)
        assert not np.shares_memory(before.observation, state.observation)
        for g, env in enumerate(refs):
            if before.terminated[g]:
                assert not state.terminated[g] and state.observation[g].sum() == 0
                continue
            env.step(int(actions[g]))
            if state.terminated[g]:
                ended += 1
                got = {"player_0": state.rewards[g][0], "player_1": state.rewards[g][1]}
                assert got == {a: float(r) for a, r in env.rewards.items()}, g
                assert all(env.terminations.values())
                env.reset()
            else:
                assert not any(env.terminations.values())
                assert not state.rewards[g].any()
    assert ended > 10


def _learner_moves(obs, step):
    """A fixed learner: the leftmost legal column after a rotation by the
    step number (no randomness, so that two environments compare)."""
    masks = obs["action_mask"]
    order = (np.arange(masks.shape[1]) + step) % masks.shape[1]
    # A full board that ended shows no room: any action starts the next game.
    return np.array([int(order[np.flatnonzero(m[order])[0]]) if m.any() else 0 for m in masks])


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_the_vector_env_steps_as_gymnasium_s_sync_vector_env(c4, mode):
    import gymnasium
    from gymnasium.vector import AutoresetMode, SyncVectorEnv
    from c4engine import vector

    n = 6
    autoreset = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                 "disabled": AutoresetMode.DISABLED}[mode]
    ours = vector.VectorEnv(n, "greedy", autoreset_mode=autoreset)
    theirs = SyncVectorEnv([lambda: c4.gymnasium_env("greedy") for _ in range(n)],
                           autoreset_mode=autoreset)
    assert ours.metadata["autoreset_mode"] == autoreset
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.single_action_space == theirs.single_action_space
    a, _ = ours.reset(seed=3)
    b, _ = theirs.reset(seed=3)
    ended = 0
    for t in range(120):
        assert ours.observation_space.contains(a)
        for key in ("observation", "action_mask"):
            assert np.array_equal(a[key], b[key]), (t, key)
        actions = _learner_moves(b, t)
        a, ra, ta, tra, ia = ours.step(actions)
        b, rb, tb, trb, ib = theirs.step(actions)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(tra, trb), t
        ended += int(ta.sum())
        if mode == "same_step" and ta.any():
            theirs_final = np.stack([o["observation"] for o in ib["final_obs"][ta]])
            assert np.array_equal(ia["final_obs"]["observation"][ta], theirs_final), t
        if mode == "disabled" and ta.any():
            a, _ = ours.reset(options={"reset_mask": ta})
            b, _ = theirs.reset(options={"reset_mask": tb})
    assert ended >= 5
    assert ours.action_masks().dtype == np.bool_


def test_seeds_repeat_games_and_every_seat_plays(c4):
    from c4engine import vector

    def run(seed, seat):
        env = vector.VectorEnv(16, "random", seat=seat)
        obs, _ = env.reset(seed=seed)
        seen = [obs["observation"].copy()]
        for t in range(60):
            obs, rewards, terminated, *_ = env.step(_learner_moves(obs, t))
            seen.append(obs["observation"].copy())
            seen.append(rewards.copy())
        return seen

    first = run(4, "alternate")
    assert all(np.array_equal(x, y) for x, y in zip(first, run(4, "alternate")))
    assert not all(np.array_equal(x, y) for x, y in zip(first, run(5, "alternate")))
    second, _ = vector.VectorEnv(4, "random", seat="second").reset(seed=1)
    assert second["observation"][..., 1].sum() == 4, "the opponent moved first in each game"
    assert second["observation"][..., 0].sum() == 0


def test_bad_actions_and_settings_are_refused_by_name(c4):
    from c4engine import vector

    env = vector.VectorEnv(3, "random")
    env.reset(seed=0)
    for actions, message in [([0, 1, 7], r"actions\[2\] = 7: expected a column from 0 to 6"),
                             ([0, -1, 2], r"actions\[1\] = -1: expected a column from 0 to 6"),
                             (np.array([2**63, 0, 0], np.uint64), r"actions\[0\] = 9223372036854775808"),
                             ([0, 1], r"expected shape \(3,\)"),
                             ([0.5, 1, 2], "expected whole numbers")]:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    with pytest.raises(ValueError, match="opponent 'nobody': unknown agent 'nobody'"):
        vector.VectorEnv(2, "nobody")
    with pytest.raises(ValueError, match="seat 'middle'"):
        vector.VectorEnv(2, "random", seat="middle")
    with pytest.raises(ValueError, match="autoreset_mode 'later'"):
        vector.VectorEnv(2, "random", autoreset_mode="later")
    with pytest.raises(ValueError, match="a batch needs at least one game"):
        vector.init(0)
    disabled = vector.VectorEnv(1, "random", autoreset_mode="disabled")
    disabled.reset(seed=0)
    with pytest.raises(ValueError, match="game 0 is over: reset it"):
        for t in range(30):
            disabled.step([t % 7])


def test_native_random_actions_are_legal_and_repeat_with_the_seed(c4):
    from c4engine import vector

    def run(seed):
        state, seen = vector.init(64, seed=seed), []
        for _ in range(100):
            actions = vector.random_actions(state)
            legal = state.legal_action_mask[np.arange(64), actions]
            assert np.all(legal | ~state.legal_action_mask.any(axis=1))
            seen.append(actions.copy())
            state = vector.step(state, actions)
        return np.array(seen)

    assert np.array_equal(run(2), run(2))
    assert not np.array_equal(run(2), run(3))
    env = vector.VectorEnv(8, "random")
    obs, _ = env.reset(seed=1)
    actions = env.random_actions()
    assert np.all(obs["action_mask"][np.arange(8), actions] == 1)
