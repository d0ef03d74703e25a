"""The students' kit: `connect4-arena kit` builds the programs once (and
maturin the c4engine extension) and writes one wheel;
installed in a clean venv on a PATH without cargo, it gives the engine, the
arena and the bridges, and grades a template policy with the instructor's
visible tests only."""

import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from binaries import maturin
from test_policy import arena_binary

REPO = Path(__file__).resolve().parent.parent.parent

# Builds the kit (scripts/test runs this once its own build of the kit is done).
pytestmark = pytest.mark.kit

# The instructor's config, kept with the arena's other grading fixtures.
CONFIG = (REPO / "arena" / "tests" / "fixtures" / "kit-policy.toml").read_text()


def test_the_kit_installs_and_grades_without_rust(tmp_path):
    config = tmp_path / "grader.toml"
    config.write_text(CONFIG)
    kit = tmp_path / "kit"
    built = subprocess.run(
        [arena_binary(), "kit", "--config", str(config), "--out", str(kit),
         "--source", str(REPO), "--maturin", maturin()],
        capture_output=True, text=True, timeout=1800,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = list(kit.glob("connect4_kit-*.whl"))
    assert len(wheels) == 1, list(kit.iterdir())
    # Nothing of the build machine in the wheel: not the repository's
    # folder, not cargo's home (issue #42, item 8).
    cargo_home = os.environ.get("CARGO_HOME", str(Path.home() / ".cargo"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        for name in wheel.namelist():
            data = wheel.read(name)
            for path in (str(REPO), cargo_home):
                assert path.encode() not in data, f"{path} in {name}"
    # The students' page is in the kit: a student has nothing else.
    assert (kit / "students.md").read_text() == (REPO / "docs" / "students.md").read_text()
    assert "students.md, beside this file" in (kit / "README.txt").read_text()
    visible = (kit / "visible-tests.toml").read_text()
    assert "Hidden against greedy" not in visible and 'kind = "wins"' in visible

    venv = tmp_path / "student"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    clean = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path),
             "LANG": "C.UTF-8"}
    assert subprocess.run(["bash", "-c", "command -v cargo rustc"], env=clean).returncode != 0
    started = time.monotonic()
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(wheels[0])],
                   check=True, env=clean, timeout=600)
    print(f"wheel {wheels[0].stat().st_size / 1e6:.1f} MB, installed in "
          f"{time.monotonic() - started:.1f} s")

    def run(*command):
        return subprocess.run(list(command), capture_output=True, text=True, env=clean,
                              cwd=tmp_path, timeout=600)

    # The engine inside Python, without Rust: the extension in the wheel.
    solved = run(str(venv / "bin" / "python"), "-c",
                 "import c4engine; print(c4engine.best_move('4453'), c4engine.score('4453'))")
    assert solved.stdout.split() == ["2", "-2"], solved
    version = run("connect4", "--version")
    assert version.stdout.startswith("connect4 "), version
    assert run("connect4-policy", "new", "mine").returncode == 0
    graded = run("connect4-arena", "grade", "--config", str(kit / "visible-tests.toml"),
                 "--submission", "mine", "--results", "results.json")
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert "total " in graded.stdout, graded.stdout
    assert "Hidden" not in graded.stdout
    assert os.path.exists(tmp_path / "results.json")
