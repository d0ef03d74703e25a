"""c4engine built by maturin (the pyproject.toml at the repository's root):
the wheel holds the pure-Python package and the extension, nothing else,
and, installed on its own, answers as the solver does.

Under scripts/test (C4ENGINE_FROM_KIT=1) the wheel checked is the one the
students' kit's build has just made with maturin from that pyproject.toml
(the `package` fixture builds the kit, in target/kit or the folder
CONNECT4_KIT_TARGET_DIR names); elsewhere maturin
builds one here."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent

# Checks the kit's wheel under scripts/test (see above).
pytestmark = pytest.mark.kit


def maturin():
    found = shutil.which("maturin", path=str(Path(sys.executable).parent)) or shutil.which("maturin")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("maturin is missing (pip install maturin)")
        pytest.skip("maturin is missing (pip install maturin)")
    return found


def built_wheel(request, tmp_path):
    """The c4engine wheel maturin built from the repository's
    pyproject.toml in this run: the kit's (see above), or a new one."""
    if os.environ.get("C4ENGINE_FROM_KIT"):
        request.getfixturevalue("package")
        # The kit's cargo folder: scripts/test names its own.
        target = Path(os.environ.get("CONNECT4_KIT_TARGET_DIR") or REPO / "target" / "kit")
        [wheel] = (target / "maturin-wheels").glob("c4engine-*.whl")
        return wheel
    built = subprocess.run([maturin(), "build", "--release", "--out", str(tmp_path / "dist")],
                           cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (tmp_path / "dist").glob("c4engine-*.whl")
    return wheel


def test_maturin_builds_a_c4engine_wheel_that_works_on_its_own(request, tmp_path):
    wheel = built_wheel(request, tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    package = {n for n in names if not n.startswith("c4engine-")}
    sources = {f"c4engine/{p.name}" for p in (REPO / "python/src/c4engine").iterdir()
               if p.suffix in (".py", ".pyi", ".typed")}
    assert package == sources | {"c4engine/_native.abi3.so"}, sorted(package ^ sources)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(site), str(wheel)], check=True)
    # Away from the repository, so that only the wheel's c4engine is found.
    answer = subprocess.run(
        [sys.executable, "-c", "import c4engine; print(c4engine.__file__); "
         "print(c4engine.score('4453'), c4engine.score(c4engine.Position('', rules='6x5x4')))"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True, text=True, timeout=120)
    assert answer.returncode == 0, answer.stderr
    where, scores = answer.stdout.splitlines()
    assert where.startswith(str(site)), where
    # Pascal Pons' c4solver: -2 for 4453; the 6 x 5 board is a draw.
    assert scores.split() == ["-2", "0"]
