"""The training example of docs/python.md (python/examples/train_policy.py)
at a small size: it trains, promotes the learner a level once its score
allows, and writes its progress table, its plot and its network. Needs
PyTorch, which the tests' environment does not install (a CPU build from
PyPI pulls in 5 GB of CUDA libraries): without it the test is skipped,
with that reason. Its full run is a benchmark, in docs/measurements.md."""

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_policy.py"


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="needs PyTorch (pip install torch)")
def test_the_training_example_trains_and_writes_its_progress(package, tmp_path):
    out = tmp_path / "training"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--updates", "4", "--envs", "16", "--steps", "4",
         "--eval-every", "2", "--eval-games", "8", "--accuracy-games", "2",
         "--promote", "0", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        env={"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    with open(out / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["update"]) for r in rows] == [2, 4]
    assert [int(r["moves"]) for r in rows] == [128, 256]
    # --promote 0: every row moves the learner up a level.
    assert [int(r["level"]) for r in rows] == [1, 2]
    for row in rows:
        for key in ("score_1", "score_2", "score_3", "accuracy"):
            assert 0.0 <= float(row[key]) <= 1.0, row
    assert (out / "progress.svg").read_text().startswith("<svg")
    assert (out / "policy.pt").stat().st_size > 0
