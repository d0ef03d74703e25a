"""One distribution per import name: the bridges' package (python/,
`connect4-bridges`) holds `c4bridge` alone; `c4engine` is the
repository's own pyproject's, built by maturin with its extension, so
that installing both never leaves one package's files over the other's."""

import subprocess
import sys
from pathlib import Path

import pytest

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


def test_the_python_packages_carry_the_workspace_s_version_and_address():
    """Cargo.toml's workspace.package holds the version and the
    repository's address; c4engine takes its version from there (maturin),
    and what the pyprojects repeat must agree with it."""
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python 3.11's tomllib")
    workspace = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]
    engine = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    bridges = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())["project"]
    assert engine["dynamic"] == ["version"] and "version" not in engine
    assert bridges["version"] == workspace["version"]
    for project in (engine, bridges):
        assert project["urls"]["Repository"] == workspace["repository"], project["name"]
