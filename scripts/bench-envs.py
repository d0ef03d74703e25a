#!/usr/bin/env python3
"""Random-agent steps per second of c4engine's PettingZoo environment
against PettingZoo's own connect_four_v3, in one run on one machine (the
ratio is the figure; speeds move with the machine's load):

    python3 scripts/bench-envs.py [SECONDS-EACH]

The agent is the same for both and cheap (a random column among those the
action mask allows, by Python's random), so that the figure is the
environment's cost. Needs pettingzoo (scripts/test installs it in
.venv-test) and c4engine from this repository (see c4engine_dev.py)."""

import random
import sys
import time
import warnings

from c4engine_dev import load


def steps_per_second(env, seconds):
    rng = random.Random(1)
    steps, game = 0, 0
    started = time.perf_counter()
    while time.perf_counter() < started + seconds:
        env.reset(seed=game)
        game += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                mask = observation["action_mask"]
                action = rng.choice([c for c in range(len(mask)) if mask[c]])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - started)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    c4 = load()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
        ours = steps_per_second(c4.pettingzoo_env(), seconds)
        theirs = steps_per_second(connect_four_v3.env(), seconds)
    print(f"c4engine.pettingzoo_env {ours:,.0f} steps/s; connect_four_v3 {theirs:,.0f} steps/s; "
          f"ratio {ours / theirs:.1f}x")


if __name__ == "__main__":
    main()
