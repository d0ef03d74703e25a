#!/usr/bin/env python3
"""Speed of `connect4-arena serve` (issue #28's figures), in one run:

- the first board drawn after the page is requested (headless Chromium
  through Playwright, when installed; the page marks the moment with
  `performance.mark`, counted from the navigation's start), median of 20
  loads;
- `GET /api/analyze` over random positions of 0 to 14 plies: median, 99th
  percentile and worst, one request at a time; then the proof of a sample
  of the columns that first answer left unproven;
- a log of 1,000 games (alphabeta:depth=3 against mcts:simulations=300,
  the match's 49 openings): the time until `serve` has judged every move
  of every game, then the time to fetch every game with its verdicts, and
  the time `report --html` takes on it.

Usage: scripts/bench-web.py [ARENA] [POSITIONS]  (release build by default)
"""

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ARENA = "target/release/connect4-arena"
COUNT = 300
DEEP_SAMPLE = 40


def random_position(rng, plies):
    """A move string of `plies` random legal moves that ends no game."""
    while True:
        heights, moves, board = [0] * 7, "", {}
        for i in range(plies):
            free = [c for c in range(7) if heights[c] < 6]
            c = rng.choice(free)
            board[(c, heights[c])] = i % 2
            heights[c] += 1
            moves += str(c + 1)
            if wins(board, c, heights[c] - 1):
                break
        else:
            return moves


def wins(board, c, r):
    who = board[(c, r)]
    for dc, dr in [(1, 0), (0, 1), (1, 1), (1, -1)]:
        n = 1
        for s in (1, -1):
            k = 1
            while board.get((c + s * k * dc, r + s * k * dr)) == who:
                n, k = n + 1, k + 1
        if n >= 4:
            return True
    return False


def first_board_ms(url):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        # The page's policy forbids evaluated scripts; this context may
        # read the page's own mark of when it drew the board.
        context = browser.new_context(bypass_csp=True)
        for _ in range(20):
            page = context.new_page()
            page.goto(url + "?pos=4453")
            page.wait_for_selector("#board .cell[data-stone='1']")
            # Milliseconds from the navigation's start (the request).
            times.append(page.evaluate("performance.getEntriesByName('board-drawn')[0].startTime"))
            page.close()
        browser.close()
    return statistics.median(times)


def proofs(url, sample):
    """How long the page waits for the proof of a column the first answer
    left unproven (`&column=N&deep=1`, as the page asks), over a sample."""
    times, proven = [], 0
    for moves, column in sample:
        start = time.perf_counter()
        body = urllib.request.urlopen(f"{url}api/analyze?moves={moves}&column={column}&deep=1").read()
        times.append(time.perf_counter() - start)
        proven += json.loads(body)["columns"][0]["exact"]
    if times:
        times.sort()
        print(f"the proof of an unproven column, {len(times)} of them at random: "
              f"median {statistics.median(times):.2f} s, worst {times[-1]:.2f} s; "
              f"{proven} proven within the deep cap")


def log_of_1000(folder):
    """A match log of 1,000 games, played for the benchmark."""
    log = f"{folder}/games.jsonl"
    subprocess.run([ARENA, "match", "--engine", "name=ab3,cmd=self,option.agent='alphabeta:depth=3'",
                    "--engine", "name=mcts,cmd=self,option.agent='mcts:simulations=300'",
                    "--games", "1000", "--log", log], check=True, capture_output=True)
    return log


def judging(log, folder):
    """How long `serve` takes to judge a log, and to hand out every game."""
    server = subprocess.Popen([ARENA, "serve", "--port", "0", "--log", log],
                              stdout=subprocess.PIPE, text=True)
    try:
        start = time.perf_counter()
        url = server.stdout.readline().split()[2]
        while True:
            logs = json.loads(urllib.request.urlopen(f"{url}api/games").read())["logs"]
            if logs[0]["judged"] >= len(logs[0]["games"]):
                break
            time.sleep(0.05)
        first = time.perf_counter() - start
        start = time.perf_counter()
        for g in logs[0]["games"]:
            urllib.request.urlopen(f"{url}api/game?log=1&game={g['game']}").read()
        after = time.perf_counter() - start
        print(f"a log of {len(logs[0]['games'])} games: every move judged {first:.2f} s after "
              f"serve started; then every game with its verdicts fetched in {after:.2f} s")
    finally:
        server.kill()
        server.wait()
    start = time.perf_counter()
    subprocess.run([ARENA, "report", log, "--html", f"{folder}/report.html"], check=True,
                   capture_output=True)
    print(f"report --html on it: {time.perf_counter() - start:.2f} s")


def main():
    server = subprocess.Popen([ARENA, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().split()[2]
        drawn = first_board_ms(url)
        if drawn is not None:
            print(f"first board drawn: {drawn:.0f} ms after the page was requested "
                  f"(the page's own mark, median of 20 loads)")
        rng = random.Random(28)
        times, exact, playable, unproven = [], 0, 0, []
        for _ in range(COUNT):
            moves = random_position(rng, rng.randint(0, 14))
            start = time.perf_counter()
            body = urllib.request.urlopen(f"{url}api/analyze?moves={moves}").read()
            times.append(1000 * (time.perf_counter() - start))
            columns = [c for c in json.loads(body)["columns"] if c["playable"]]
            playable += len(columns)
            exact += sum(c["exact"] for c in columns)
            unproven += [(moves, c["column"]) for c in columns if not c["exact"]]
        times.sort()
        p99 = times[max(0, int(0.99 * len(times)) - 1)]
        print(f"/api/analyze, {COUNT} random positions of 0 to 14 plies: "
              f"median {statistics.median(times):.1f} ms, 99th percentile {p99:.1f} ms, "
              f"worst {times[-1]:.1f} ms; {exact} of {playable} columns exact in that answer "
              f"({100 * exact / max(1, playable):.1f}%), the others estimates")
        proofs(url, rng.sample(unproven, min(DEEP_SAMPLE, len(unproven))))
    finally:
        server.kill()
        server.wait()
    with tempfile.TemporaryDirectory() as folder:
        judging(log_of_1000(folder), folder)


if __name__ == "__main__":
    ARENA = sys.argv[1] if len(sys.argv) > 1 else ARENA
    COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else COUNT
    main()
