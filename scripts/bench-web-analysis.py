#!/usr/bin/env python3
"""Two builds of `connect4-arena serve` side by side on the page's first
answer (`/api/analyze` without `deep`): over the same random positions of
0 to 14 plies, asked of A and B in turn (A B A B, one request at a time),
the time of each answer and how many of the playable columns it gave
exact. For a change to the analysis, in one run on one machine.

Usage: scripts/bench-web-analysis.py ARENA_A ARENA_B [POSITIONS]
"""

import json
import random
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module

random_position = import_module("bench-web").random_position


def serve(arena):
    server = subprocess.Popen([arena, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().split()[2]


def main():
    arenas = sys.argv[1:3]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    servers = [serve(a) for a in arenas]
    rng = random.Random(28)
    times = [[], []]
    exact, playable = [0, 0], [0, 0]
    try:
        for _ in range(count):
            moves = random_position(rng, rng.randint(0, 14))
            for i, (_, url) in enumerate(servers):
                start = time.perf_counter()
                body = urllib.request.urlopen(f"{url}api/analyze?moves={moves}").read()
                times[i].append(1000 * (time.perf_counter() - start))
                columns = [c for c in json.loads(body)["columns"] if c["playable"]]
                playable[i] += len(columns)
                exact[i] += sum(c["exact"] for c in columns)
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    for i, name in enumerate("AB"):
        t = sorted(times[i])
        p99 = t[max(0, int(0.99 * len(t)) - 1)]
        print(f"{name} {arenas[i]}: median {statistics.median(t):.1f} ms, "
              f"99th percentile {p99:.1f} ms, worst {t[-1]:.1f} ms; "
              f"{exact[i]} of {playable[i]} columns exact ({100 * exact[i] / playable[i]:.1f}%)")


if __name__ == "__main__":
    main()
