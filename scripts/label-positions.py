"""Labels random positions with their exact scores, in one call of
c4engine.BatchSolver: COUNT positions, each the end of a game of
uniformly random legal moves stopped at a ply drawn from LOW to HIGH (a
position already over is drawn again), written to OUT as the public
sets' lines (`MOVES SCORE`, columns from 1), through a temporary file
renamed at the end. Prints how long the drawing and the solving took.

    python scripts/label-positions.py 1000000 30-38 labels.txt [--seed 1] [--threads N]
"""

import argparse
import os
import tempfile
import time

import numpy as np

import c4engine


def draw(count, low, high, seed):
    """`count` move strings of random games stopped at plies LOW-HIGH."""
    rng = np.random.default_rng(seed)
    empty = c4engine.Position("")
    out = []
    while len(out) < count:
        p, ply = empty, int(rng.integers(low, high + 1))
        while len(p.moves) < ply and not p.is_over():
            legal = p.legal()
            p = p.play(legal[int(rng.integers(len(legal)))])
        if not p.is_over():
            out.append(p.moves)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int)
    parser.add_argument("plies", help="LOW-HIGH, plies from the empty board")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    low, high = (int(x) for x in args.plies.split("-"))
    start = time.perf_counter()
    positions = draw(args.count, low, high, args.seed)
    drawn = time.perf_counter()
    solver = c4engine.BatchSolver(threads=args.threads)
    scores = solver.score(positions)
    solved = time.perf_counter()
    folder = os.path.dirname(os.path.abspath(args.out))
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, suffix=".part") as f:
        f.writelines(f"{m} {s}\n" for m, s in zip(positions, scores.tolist()))
    os.replace(f.name, args.out)
    print(f"{len(positions)} positions of plies {low}-{high}: drawn in {drawn - start:.1f} s, "
          f"solved in {solved - drawn:.1f} s on {solver.threads} threads "
          f"({(solved - drawn) / len(positions) * 1e6:.2f} us a position)")


if __name__ == "__main__":
    main()
