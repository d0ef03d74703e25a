"""One distribution per import name: the bridges' package (python/,
`connect4-bridges`) holds `c4bridge` alone; `c4engine` is the
repository's own pyproject's, built by maturin with its extension, so
that installing both never leaves one package's files over the other's."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def test_the_bridges_distribution_holds_the_bridges_alone(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--target", str(site), str(REPO / "python")],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (site / "c4bridge" / "policy.py").is_file()
    assert (site / "c4bridge" / "templates").is_dir()
    assert not (site / "c4engine").exists(), sorted(p.name for p in site.iterdir())
