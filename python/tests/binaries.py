"""Where the tests find the binaries cargo built."""

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent.parent


def cargo_binary(name, override, build):
    """The `name` binary under target/ (release first), or the path in the
    environment variable `override`; skips the test with `build` as the hint
    when there is none."""
    if os.environ.get(override):
        return os.environ[override]
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / name
        if path.exists():
            return str(path)
    pytest.skip(f"build it first: {build}")


def maturin():
    """The maturin that builds the kit's c4engine extension: the test
    venv's (beside this Python), else the one on the PATH."""
    beside = Path(sys.executable).parent / "maturin"
    if beside.exists():
        return str(beside)
    return shutil.which("maturin") or "maturin"
