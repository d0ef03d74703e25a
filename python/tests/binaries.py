"""Where the tests find the binaries cargo built."""

import os
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
