#!/usr/bin/env python3
"""Measures a class league of 60 hidden-style submissions (issue #47).

    python3 scripts/league-measure.py OUT [--rounds N] [--kill-at ROUND]

Makes OUT/drop (60 student folders: random, greedy, minimax, alphabeta at
depths 1 to 6, expectimax, mcts at several sizes, engines that fail now
and then, and broken ones the intake must refuse), then runs
`connect4-arena league` one round at a time on it, recording after each
round the games played, the time, the league's peak memory and every
student's rating (OUT/rounds.csv, OUT/ratings.csv). In round --kill-at it
kills the league with SIGKILL part way and runs the round again, and
checks that the ratings are still the ladder's games replayed once each.
Then it plays the final round robin and prints, per round, the Spearman
rank correlation of the ladder's ranking with the final one: how many
games until the ranking settles.

Resumable: run it again with the same OUT and it carries on from the
round it reached (the league's own database says where it is).
"""

import argparse
import csv
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(os.environ.get("CONNECT4_ARENA", ROOT / "target/release/connect4-arena"))
ENGINE = Path(os.environ.get("CONNECT4", ROOT / "target/release/connect4"))
FAKE = ROOT / "target/release/examples/fake_engine"
MOVE_MS = 200

# (how many, what the engine script runs): 60 students in all.
KINDS = (
    [(6, f"{ENGINE} --agent random")]
    + [(6, f"{ENGINE} --agent greedy")]
    + [(2, f"{ENGINE} --agent minimax:depth={d}") for d in (2, 3)]
    + [(4, f"{ENGINE} --agent alphabeta:depth={d}") for d in (1, 2, 3, 4, 5, 6)]
    + [(2, f"{ENGINE} --agent expectimax")]
    + [(2, f"{ENGINE} --agent mcts:simulations={s}") for s in (100, 500, 2000, 8000)]
    + [(6, f"{FAKE} chaos")]
    + [(2, f"{FAKE} illegal"), (2, f"{FAKE} crash-at=3")]
)


def make_drop(drop: Path) -> None:
    """One folder per student, each with an `engine` script."""
    n = 0
    for count, command in KINDS:
        for _ in range(count):
            n += 1
            folder = drop / f"student{n:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            script = folder / "engine"
            text = f"#!/bin/sh\nexec {command}\n"
            if not script.exists() or script.read_text() != text:
                script.write_text(text)
                script.chmod(0o755)
    assert n == 60, n


def league(out: Path, *extra: str) -> list:
    return [
        str(ARENA), "league", "--dir", str(out / "league"),
        "--submissions", str(out / "drop"), "--config", str(out / "league.toml"),
        "--concurrency", "2", *extra,
    ]


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def recorded(out: Path) -> int:
    """Games recorded so far, of every kind."""
    try:
        with db(out) as c:
            return c.execute("SELECT COUNT(*) FROM games WHERE result IS NOT NULL").fetchone()[0]
    except sqlite3.Error:
        return 0


def run_round(out: Path, kill_after: int | None) -> tuple[float, int, bool]:
    """One ladder round: (seconds, peak KiB of the league, whether killed).
    With `kill_after`, the league is killed (SIGKILL) once that many more
    games are recorded."""
    start = time.monotonic()
    at_start = recorded(out)
    with open(out / "league.out", "a") as log:
        child = subprocess.Popen(league(out, "--rounds", "1"), stdout=log, stderr=log)
        peak, killed = 0, False
        while child.poll() is None:
            peak = max(peak, peak_kib(child.pid))
            if kill_after is not None and not killed and recorded(out) >= at_start + kill_after:
                child.send_signal(signal.SIGKILL)
                killed = True
            time.sleep(0.1)
        if child.returncode != 0 and not killed:
            sys.exit(f"the league failed: see {out / 'league.out'}")
    return time.monotonic() - start, peak, killed


def db(out: Path):
    return sqlite3.connect(f"file:{out / 'league/league.db'}?mode=ro", uri=True)


def snapshot(out: Path) -> tuple[int, int, dict]:
    """(ladder games, rounds, {student: ordinal}) of the active students."""
    with db(out) as c:
        games = c.execute(
            "SELECT COUNT(*) FROM games WHERE kind = 'ladder' AND result IS NOT NULL"
        ).fetchone()[0]
        rounds = c.execute("SELECT value FROM meta WHERE key = 'rounds'").fetchone()
        rows = c.execute(
            "SELECT student, mu - 3 * sigma FROM players WHERE anchor = 0 AND state = 'active'"
        ).fetchall()
    return games, int(rounds[0]) if rounds else 0, dict(rows)


def ranks(values: dict) -> dict:
    """Each key's rank (1 = best), ties sharing their mean rank."""
    ordered = sorted(values, key=lambda k: -values[k])
    out, i = {}, 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and values[ordered[j + 1]] == values[ordered[i]]:
            j += 1
        for k in ordered[i : j + 1]:
            out[k] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: dict, b: dict) -> float:
    keys = sorted(set(a) & set(b))
    ra, rb = ranks({k: a[k] for k in keys}), ranks({k: b[k] for k in keys})
    n = len(keys)
    ma, mb = sum(ra.values()) / n, sum(rb.values()) / n
    cov = sum((ra[k] - ma) * (rb[k] - mb) for k in keys)
    va = sum((ra[k] - ma) ** 2 for k in keys) ** 0.5
    vb = sum((rb[k] - mb) ** 2 for k in keys) ** 0.5
    return cov / (va * vb)


def final_points(out: Path) -> dict:
    with db(out) as c:
        rows = c.execute(
            "SELECT p.student, SUM(CASE WHEN (g.first = p.id AND g.result = '1-0') "
            "OR (g.second = p.id AND g.result = '0-1') THEN 1.0 "
            "WHEN g.result = '1/2-1/2' THEN 0.5 ELSE 0 END) "
            "FROM games g JOIN players p ON p.id IN (g.first, g.second) "
            "WHERE g.kind = 'final' AND g.result IS NOT NULL GROUP BY p.student"
        ).fetchall()
    return dict(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--kill-at", type=int, default=4)
    args = parser.parse_args()
    out = args.out
    make_drop(out / "drop")
    (out / "league.toml").write_text(
        f'[submission]\nkind = "engine"\n\n[time]\nmove_ms = {MOVE_MS}\n'
    )
    rounds_csv = out / "rounds.csv"
    if not rounds_csv.exists():
        rounds_csv.write_text("round,ladder_games,seconds,peak_kib,killed\n")
    done = snapshot(out)[1] if (out / "league/league.db").exists() else 0
    for _ in range(done, args.rounds):
        before = snapshot(out)[1] if (out / "league/league.db").exists() else 0
        kill = 40 if before + 1 == args.kill_at else None
        seconds, peak, killed = run_round(out, kill)
        if killed:
            print(f"killed with SIGKILL after {recorded(out)} games recorded", flush=True)
            again, peak2, _ = run_round(out, None)
            seconds, peak = seconds + again, max(peak, peak2)
        games, rounds, ratings = snapshot(out)
        with open(rounds_csv, "a") as f:
            f.write(f"{rounds},{games},{seconds:.1f},{peak},{int(killed)}\n")
        with open(out / "ratings.csv", "a") as f:
            w = csv.writer(f)
            for student, ordinal in sorted(ratings.items()):
                w.writerow([rounds, games, student, f"{ordinal:.4f}"])
        print(f"round {rounds}: {games} ladder games, {seconds:.0f} s, peak {peak} KiB"
              + (" (killed once, run again)" if killed else ""), flush=True)
    status = subprocess.run(
        [str(ARENA), "league", "--dir", str(out / "league"), "--status"],
        capture_output=True, text=True, check=True,
    ).stdout
    print(status.splitlines()[-1])
    start = time.monotonic()
    with open(out / "league.out", "a") as log:
        subprocess.run(league(out, "--final"), stdout=log, stderr=log, check=True)
    print(f"final round: {time.monotonic() - start:.0f} s")
    report(out)


def report(out: Path) -> None:
    final = final_points(out)
    by_round: dict = {}
    with open(out / "ratings.csv") as f:
        for rnd, games, student, ordinal in csv.reader(f):
            by_round.setdefault((int(rnd), int(games)), {})[student] = float(ordinal)
    print("round,ladder_games,spearman_with_final")
    for (rnd, games), ratings in sorted(by_round.items()):
        print(f"{rnd},{games},{spearman(ratings, final):.3f}")


if __name__ == "__main__":
    main()
