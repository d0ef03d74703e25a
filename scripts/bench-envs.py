#!/usr/bin/env python3
"""Random-agent steps per second of c4engine's single environments against
Python ones of the same game, in one run on one machine (the ratios are
the figures; speeds move with the machine's load):

    python3 scripts/bench-envs.py [SECONDS-EACH]
    python3 scripts/bench-envs.py --only LOOP STEPS

The second form runs one loop (pettingzoo-c4engine, pettingzoo-v3,
gymnasium-c4engine or gymnasium-v3) for STEPS steps and prints its rate,
so that farm-bench can time two whole processes A B A B:

    farm-bench -n 3 --timeout 600 --vs 'python3 scripts/bench-envs.py --only pettingzoo-v3 300000' \
        -- python3 scripts/bench-envs.py --only pettingzoo-c4engine 300000

- PettingZoo: `c4engine.pettingzoo_env()` against PettingZoo's own
  `connect_four_v3`, both stepped by PettingZoo's documented loop
  (`agent_iter`, `last`, `step`);
- Gymnasium: `c4engine.gymnasium_env("random")` against the same
  Gymnasium loop over a Python baseline: `connect_four_v3` as one agent's
  environment, its opponent a random column among those its mask allows,
  answered inside `step`.

The agent is the same for all and cheap (a random column among those the
action mask allows, by Python's random), so that the figure is the
environment's cost. Needs pettingzoo and gymnasium (scripts/test installs
them in .venv-test) and c4engine from this repository (see
c4engine_dev.py)."""

import random
import sys
import time
import warnings

import gymnasium

from c4engine_dev import load


def choose(rng, mask):
    """A random column among those `mask` allows."""
    return rng.choice([c for c in range(len(mask)) if mask[c]])


def aec_steps_per_second(env, seconds, most=None):
    rng = random.Random(1)
    steps, game = 0, 0
    started = time.perf_counter()
    while time.perf_counter() < started + seconds and (most is None or steps < most):
        env.reset(seed=game)
        game += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = choose(rng, observation["action_mask"])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - started)


def gym_steps_per_second(env, seconds, most=None):
    rng = random.Random(1)
    steps, game = 0, 0
    started = time.perf_counter()
    while time.perf_counter() < started + seconds and (most is None or steps < most):
        observation, info = env.reset(seed=game)
        game += 1
        done = False
        while not done:
            action = choose(rng, observation["action_mask"])
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            steps += 1
    return steps / (time.perf_counter() - started)


class V3AgainstRandom(gymnasium.Env):
    """The Python baseline: connect_four_v3 as one agent's environment (the
    agent first), a random opponent answering inside `step`."""

    def __init__(self):
        from pettingzoo.classic import connect_four_v3

        self.env = connect_four_v3.env()
        self.rng = random.Random(2)
        self.observation_space = self.env.observation_space("player_0")
        self.action_space = self.env.action_space("player_0")

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        return self.env.observe("player_0"), {}

    def step(self, action):
        self.env.step(action)
        observation, _, terminated, truncated, _ = self.env.last()
        if not (terminated or truncated):
            self.env.step(choose(self.rng, observation["action_mask"]))
            _, _, terminated, truncated, _ = self.env.last()
        reward = float(self.env.rewards["player_0"])
        return self.env.observe("player_0"), reward, terminated, truncated, {}


def only(name, steps):
    """One loop of `steps` steps (whole games: a few more), its rate printed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
        loops = {
            "pettingzoo-c4engine": lambda: aec_steps_per_second(load().pettingzoo_env(), 1e9, steps),
            "pettingzoo-v3": lambda: aec_steps_per_second(connect_four_v3.env(), 1e9, steps),
            "gymnasium-c4engine": lambda: gym_steps_per_second(load().gymnasium_env("random"), 1e9,
                                                               steps),
            "gymnasium-v3": lambda: gym_steps_per_second(V3AgainstRandom(), 1e9, steps),
        }
        if name not in loops:
            sys.exit(f"--only {name}: expected one of {', '.join(loops)}")
        print(f"{name} {loops[name]():,.0f} steps/s")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--only":
        return only(sys.argv[2], int(sys.argv[3]))
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    c4 = load()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
        ours = aec_steps_per_second(c4.pettingzoo_env(), seconds)
        theirs = aec_steps_per_second(connect_four_v3.env(), seconds)
        print(f"PettingZoo: c4engine.pettingzoo_env {ours:,.0f} steps/s; connect_four_v3 "
              f"{theirs:,.0f} steps/s; ratio {ours / theirs:.1f}x")
        ours = gym_steps_per_second(c4.gymnasium_env("random"), seconds)
        theirs = gym_steps_per_second(V3AgainstRandom(), seconds)
        print(f"Gymnasium: c4engine.gymnasium_env('random') {ours:,.0f} steps/s; "
              f"connect_four_v3 against random {theirs:,.0f} steps/s; ratio {ours / theirs:.1f}x")


if __name__ == "__main__":
    main()
