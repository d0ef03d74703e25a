"""The fixtures every module of the tests shares, built once a run: the
c4engine package (`package`, `c4`) the module's tests import.

Here and not in one test module, so that pytest builds the students' kit
once a run and not once for each module that imports the fixtures. The
markers `kit` and `release` say which tests need the kit or the release
build, so that scripts/test can run the others while those build."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from binaries import cargo_binary, maturin

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="session")
def package(tmp_path_factory):
    """A folder holding the c4engine package: with C4ENGINE_FROM_KIT=1 (as
    scripts/test sets it) the students' kit's wheel, built by
    `connect4-arena kit` and installed there by pip, so that every test of
    the module runs what students install; else assembled from
    python/src/c4engine and the extension cargo built."""
    root = tmp_path_factory.mktemp("c4engine")
    if os.environ.get("C4ENGINE_FROM_KIT"):
        from test_policy import arena_binary

        kit = root / "kit"
        built = subprocess.run([arena_binary(), "kit", "--out", str(kit), "--source", str(REPO),
                                "--maturin", maturin()],
                               capture_output=True, text=True, timeout=1800)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        wheel = next(kit.glob("connect4_kit-*.whl"))
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(root / "site"), str(wheel)], check=True)
        return root / "site"
    native = cargo_binary("libc4engine_native.so", "C4ENGINE_NATIVE",
                          "cargo build --release -p connect4-python")
    shutil.copytree(REPO / "python" / "src" / "c4engine", root / "c4engine")
    shutil.copy(native, root / "c4engine" / "_native.abi3.so")
    return root


@pytest.fixture(scope="session")
def c4(package):
    sys.path.insert(0, str(package))
    import c4engine
    return c4engine


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "kit: needs the students' kit built (scripts/test runs these once it is)")
    config.addinivalue_line(
        "markers", "release: needs the release build (scripts/test runs these once it is)")
    config.addinivalue_line(
        "markers", "clock: checks a clock, not behaviour alone (scripts/test runs these last, "
        "on their own)")


def pytest_collection_modifyitems(config, items):
    """Marks `kit` every test that imports c4engine through the fixtures
    above (the kit's wheel, under scripts/test), so that scripts/test can
    run the others while the kit still builds."""
    for item in items:
        if {"package", "c4"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.kit)
