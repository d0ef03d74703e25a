#!/usr/bin/env python3
"""c4engine.Solver.score over the lines of a public solved set, in one
process, checked against the set's labels; prints the calls per second.
The comparison is with the command line on the same lines, one run after
the other (farm-bench pairs them):

    cut -d' ' -f1 ../shared/bench/Test_L2_R2 > /tmp/L2R2.moves
    farm-bench --vs "sh -c 'exec target/release/connect4 solve --no-book < /tmp/L2R2.moves'" \\
        -- .venv-test/bin/python scripts/bench-c4engine.py ../shared/bench/Test_L2_R2

Needs c4engine from this repository (see c4engine_dev.py)."""

import sys
import time

from c4engine_dev import load


def main():
    path = sys.argv[1]
    c4 = load()
    solver = c4.Solver(book=False)
    lines = [line.split() for line in open(path).read().split("\n") if line.strip()]
    started = time.perf_counter()
    for moves, score in lines:
        if solver.score(moves) != int(score):
            sys.exit(f"{moves}: c4engine says {solver.score(moves)}, the set says {score}")
    seconds = time.perf_counter() - started
    print(f"{len(lines)} positions in {seconds:.2f} s: {len(lines) / seconds:,.0f} calls/s")


if __name__ == "__main__":
    main()
