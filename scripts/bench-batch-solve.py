"""The cost of an exact score a position, in microseconds, over the first
COUNT lines of a public solved set (every score checked against its
label): c4engine's `score`, one call a position; c4engine.BatchSolver, the
whole set in one call (THREADS workers); or bitbully's `BitBully.mtdf`,
one call a position (its boards built before the timing, no opening
book). One line: `NAME SET COUNT SECONDS US_A_POSITION`.

    python scripts/bench-batch-solve.py c4engine-score Test_L3_R1 1000
    python scripts/bench-batch-solve.py c4engine-batch Test_L3_R1 1000 [THREADS]
    python scripts/bench-batch-solve.py bitbully Test_L3_R1 1000    # pip install bitbully
"""

import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"


def lines(name, count):
    rows = [line.split() for line in (BENCH / name).read_text().split("\n")[:count] if line]
    return [m for m, _ in rows], [int(s) for _, s in rows]


def c4engine_score(moves, _threads):
    import c4engine
    positions = [c4engine.Position(m) for m in moves]
    c4engine.score(positions[0])
    start = time.perf_counter()
    got = [c4engine.score(p) for p in positions]
    return time.perf_counter() - start, got


def c4engine_batch(moves, threads):
    import c4engine
    solver = c4engine.BatchSolver(threads=threads)
    positions = [c4engine.Position(m) for m in moves]
    solver.score(positions[:1])
    start = time.perf_counter()
    got = solver.score(positions).tolist()
    return time.perf_counter() - start, got


def bitbully_mtdf(moves, _threads):
    from bitbully import BitBully, Board
    solver = BitBully(opening_book=None)
    boards = [Board.from_moves("".join(str(int(c) - 1) for c in m)) for m in moves]
    solver.mtdf(boards[0])
    start = time.perf_counter()
    got = [solver.mtdf(b) for b in boards]
    return time.perf_counter() - start, got


RUNS = {"c4engine-score": c4engine_score, "c4engine-batch": c4engine_batch,
        "bitbully": bitbully_mtdf}

if __name__ == "__main__":
    name, which, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else None
    moves, truth = lines(which, count)
    seconds, got = RUNS[name](moves, threads)
    wrong = [i for i, (g, t) in enumerate(zip(got, truth)) if g != t]
    if wrong:
        sys.exit(f"{name}: {len(wrong)} scores differ from the labels, the first at line {wrong[0] + 1}")
    print(f"{name} {which} {len(moves)} {seconds:.4f} {seconds / len(moves) * 1e6:.2f}")
