"""c4engine's type stubs (`__init__.pyi`, `vector.pyi`) against the module
at run time: `python -m mypy.stubtest` finds every name, signature and
class the stubs give differently from what the module has (a constructor
written as `__init__` where the extension's is `__new__`, a function the
stubs forget). The names the stubs have for annotations alone are in
python/stubtest-allowlist.txt, each with why."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def test_the_type_stubs_match_the_module(package, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "c4engine",
         "--mypy-config-file", str(REPO / "pyproject.toml"),
         "--allowlist", str(REPO / "python" / "stubtest-allowlist.txt")],
        # Not from the repository: there python/src's c4engine would be a
        # second copy of the package beside the one tested.
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(package)),
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "Success" in done.stdout, done.stdout
