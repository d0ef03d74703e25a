#!/usr/bin/env python3
"""Trains a small neural policy on c4engine's batched environment with
PyTorch on the CPU, against the project's levels, and plots how it learns:
its score against levels 1 to 3 and the solver's accuracy of its moves.

    pip install torch gymnasium          # and c4engine
    python3 python/examples/train_policy.py --minutes 20 --out training

The learner is an actor-critic trained by PPO (clipped steps, generalised
advantage estimation): a two-layer network of the observation (the learner's and
the opponent's planes) to a score a column and a value, the full columns
masked out. It plays `--envs` games at once in `c4engine.vector.VectorEnv`
against the current level, by turns first and second. It starts against
level 1 (random) and moves up a level each time its score against the
current one reaches `--promote` (at most level 3, alphabeta:depth=4).

Every `--eval-every` updates it plays `--eval-games` games against each
of levels 1 to 3 (the network's most likely column, in colour-swapped
pairs from random two-move openings, as the levels are measured) and
has the solver judge its moves in `--accuracy-games` games against
`--accuracy-level` (`c4engine.accuracy`; level 2, greedy, by default). Each row goes to OUT/progress.csv,
and OUT/progress.svg draws the scores and the accuracy against the
learner's moves. OUT/policy.pt holds the network at the end."""

import argparse
import csv
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

import c4engine
from c4engine import vector

ROWS, COLUMNS = 6, 7
LEVELS = (1, 2, 3)


class Policy(nn.Module):
    """The observation (rows x columns x 2 planes) to a score a column
    and a value."""

    def __init__(self, hidden=256):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(ROWS * COLUMNS * 2, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.scores = nn.Linear(hidden, COLUMNS)
        self.value = nn.Linear(hidden, 1)

    def forward(self, planes, mask):
        body = self.body(planes)
        scores = self.scores(body).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=scores), self.value(body).squeeze(-1)


def tensors(obs):
    """An observation batch as the network's inputs."""
    return (torch.as_tensor(obs["observation"], dtype=torch.float32),
            torch.as_tensor(obs["action_mask"], dtype=torch.bool))


def rollout(env, net, obs, steps):
    """`steps` steps of every game, by the network as it is: the inputs,
    actions, their log-probabilities, values, rewards and ends, and the
    observation after them."""
    record = {k: [] for k in ("planes", "mask", "action", "logp", "value", "reward", "done")}
    for _ in range(steps):
        planes, mask = tensors(obs)
        with torch.no_grad():
            dist, value = net(planes, mask)
        action = dist.sample()
        obs, reward, terminated, truncated, _ = env.step(action.numpy())
        for key, item in (("planes", planes), ("mask", mask), ("action", action),
                          ("logp", dist.log_prob(action)), ("value", value)):
            record[key].append(item)
        record["reward"].append(torch.as_tensor(reward, dtype=torch.float32))
        record["done"].append(torch.as_tensor(terminated | truncated, dtype=torch.float32))
    return {k: torch.stack(v) for k, v in record.items()}, obs


def advantages(record, last_value, gamma=0.99, lam=0.95):
    """Generalised advantage estimates and returns of a rollout."""
    values = record["value"]
    out = torch.zeros_like(values)
    running = torch.zeros_like(last_value)
    for t in reversed(range(values.shape[0])):
        going = 1.0 - record["done"][t]
        following = last_value if t == values.shape[0] - 1 else values[t + 1]
        delta = record["reward"][t] + gamma * following * going - values[t]
        running = delta + gamma * lam * going * running
        out[t] = running
    return out, out + values


def update(net, optimiser, record, obs, epochs=4, batches=4, clip=0.2):
    """PPO's clipped steps on a rollout: `epochs` passes over it in
    `batches` shuffled parts."""
    with torch.no_grad():
        _, last_value = net(*tensors(obs))
    advantage, returns = advantages(record, last_value)
    flat = {k: v.flatten(0, 1) for k, v in record.items()}
    flat["advantage"], flat["returns"] = advantage.flatten(), returns.flatten()
    size = flat["advantage"].shape[0]
    for _ in range(epochs):
        for part in torch.randperm(size).chunk(batches):
            dist, value = net(flat["planes"][part], flat["mask"][part])
            adv = flat["advantage"][part]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = (dist.log_prob(flat["action"][part]) - flat["logp"][part]).exp()
            policy = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
            loss = (policy + 0.5 * ((flat["returns"][part] - value) ** 2).mean()
                    - 0.01 * dist.entropy().mean())
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimiser.step()


def greedy(net, obs):
    """The network's most likely column of each game."""
    with torch.no_grad():
        dist, _ = net(*tensors(obs))
    return dist.probs.argmax(-1).numpy()


def score_against(net, level, games, seed):
    """The learner's share of the points in `games` games against `level`
    (its most likely column), in colour-swapped pairs from random
    two-move openings (`c4engine.play_match`, as the levels are measured)."""
    match = c4engine.play_match(as_player(net), c4engine.level(level, seed=seed), games=games,
                                opening_plies=2, seed=seed)
    return match["score"]


def as_player(net):
    """The network as a function of a Position, for `c4engine.accuracy`."""
    def choose(position):
        planes = np.asarray(position.board("pettingzoo"), dtype=np.float32)[None]
        mask = np.zeros((1, COLUMNS), bool)
        mask[0, position.legal()] = True
        with torch.no_grad():
            dist, _ = net(torch.as_tensor(planes), torch.as_tensor(mask))
        return int(dist.probs.argmax())
    return choose


def plot(rows, path):
    """Scores against each level and accuracy, against the learner's
    moves, as an SVG file (no plotting library needed)."""
    width, height, margin = 640, 360, 48
    most = max(r["moves"] for r in rows) or 1
    lines = [("score_1", "#888", "v level 1"), ("score_2", "#2a6", "v level 2"),
             ("score_3", "#c33", "v level 3"), ("accuracy", "#236", "accuracy")]

    def point(r, key):
        x = margin + (width - 2 * margin) * r["moves"] / most
        y = height - margin - (height - 2 * margin) * r[key]
        return f"{x:.1f},{y:.1f}"

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" '
             f'fill="white"/>',
             f'<text x="{margin}" y="20">score (and solver accuracy) against learner moves '
             f'(0 to {most:,})</text>']
    for share in (0, 0.5, 1):
        y = height - margin - (height - 2 * margin) * share
        parts.append(f'<line x1="{margin}" x2="{width - margin}" y1="{y}" y2="{y}" '
                     f'stroke="#ddd"/><text x="8" y="{y + 4}">{share:.1f}</text>')
    for i, (key, colour, label) in enumerate(lines):
        points = " ".join(point(r, key) for r in rows if r[key] is not None)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"/>')
        parts.append(f'<text x="{width - margin - 90}" y="{height - margin - 60 + 14 * i}" '
                     f'fill="{colour}">{label}</text>')
    Path(path).write_text("\n".join(parts + ["</svg>"]) + "\n")


def evaluate(net, args, rows, level, update_index, moves, started):
    """One row of progress: scores against every level, accuracy."""
    row = {"update": update_index, "moves": moves, "seconds": round(time.time() - started),
           "level": level}
    for n in LEVELS:
        row[f"score_{n}"] = score_against(net, n, args.eval_games, seed=update_index + n)
    judged = c4engine.accuracy(as_player(net), games=args.accuracy_games,
                               opponent=c4engine.LEVELS[args.accuracy_level - 1],
                               seed=update_index)
    row["accuracy"] = judged["accuracy"]
    rows.append(row)
    print(", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in row.items()), flush=True)
    return row


def write(rows, out):
    """progress.csv and progress.svg of `rows`."""
    with open(out / "progress.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, out / "progress.svg")


def opponent_env(args, level, seed):
    """The training games against `level`, and their first observation."""
    env = vector.VectorEnv(args.envs, c4engine.LEVELS[level - 1], seat="alternate",
                           autoreset_mode="same_step", seed=seed)
    return env, env.reset(seed=seed)[0]


def train(args):
    """Trains a network as `args` say; the rows of progress."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    net = Policy(args.hidden)
    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr)
    level, rows, moves, started = 1, [], 0, time.time()
    env, obs = opponent_env(args, level, args.seed)
    updates = 0
    while updates < args.updates and time.time() - started < args.minutes * 60:
        record, obs = rollout(env, net, obs, args.steps)
        update(net, optimiser, record, obs)
        updates += 1
        moves += args.envs * args.steps
        if updates % args.eval_every == 0:
            row = evaluate(net, args, rows, level, updates, moves, started)
            write(rows, out)
            if row[f"score_{level}"] >= args.promote and level < LEVELS[-1]:
                level += 1
                env, obs = opponent_env(args, level, args.seed + updates)
    if not rows or rows[-1]["update"] != updates:
        evaluate(net, args, rows, level, updates, moves, started)
        write(rows, out)
    torch.save(net.state_dict(), out / "policy.pt")
    return rows


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="training time at most")
    parser.add_argument("--updates", type=int, default=100_000, help="updates at most")
    parser.add_argument("--envs", type=int, default=256, help="games played at once")
    parser.add_argument("--steps", type=int, default=16, help="steps of each game an update")
    parser.add_argument("--hidden", type=int, default=256, help="units a hidden layer")
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate")
    parser.add_argument("--promote", type=float, default=0.9,
                        help="score against the current level that moves it up")
    parser.add_argument("--eval-every", type=int, default=200, help="updates between rows")
    parser.add_argument("--eval-games", type=int, default=100, help="games a level a row")
    parser.add_argument("--accuracy-games", type=int, default=20,
                        help="games judged by the solver a row")
    parser.add_argument("--accuracy-level", type=int, default=2, choices=LEVELS,
                        help="the opponent of the games the solver judges")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch's threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="training", help="folder of the outputs")
    return parser.parse_args(argv)


if __name__ == "__main__":
    train(arguments())
