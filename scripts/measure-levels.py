#!/usr/bin/env python3
"""Measures c4engine's difficulty levels: a round robin between the levels'
players (colour-swapped pairs from random two-move openings, every seed
fixed), printed as the markdown table docs/python.md shows (each level's
score against each other level, and in all).

    python3 scripts/measure-levels.py [GAMES-PER-PAIRING]

It runs c4engine from this repository (see c4engine_dev.py)."""

import sys
import time

from c4engine_dev import load


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    c4 = load()
    levels = c4.LEVELS
    n = len(levels)
    score = [[None] * n for _ in range(n)]
    started = time.monotonic()
    for i in range(n):
        for j in range(i + 1, n):
            match = c4.play_match(levels[i], levels[j], games=games, seed=1000 * i + j)
            score[i][j] = match["score"]
            score[j][i] = 1 - match["score"]
            print(f"level {i + 1} v {j + 1}: {match['wins']}-{match['draws']}-{match['losses']}",
                  file=sys.stderr, flush=True)
    print(f"| level | player | " + " | ".join(f"v {k + 1}" for k in range(n)) + " | in all |")
    print("|---" * (n + 3) + "|")
    for i in range(n):
        cells = ["" if i == j else f"{100 * score[i][j]:.0f}%" for j in range(n)]
        total = sum(score[i][j] for j in range(n) if j != i) / (n - 1)
        print(f"| {i + 1} | `{levels[i]}` | " + " | ".join(cells) + f" | {100 * total:.0f}% |")
    print(f"\n{games} games per pairing, {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
