"""c4engine from this repository, for the scripts that measure it: the
package of python/src/c4engine with the extension cargo built
(target/release/libc4engine_native.so: cargo build --release -p
connect4-python), assembled in a temporary folder and imported."""

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def load():
    """The c4engine module, assembled as the kit's wheel assembles it."""
    folder = Path(tempfile.mkdtemp()) / "c4engine"
    shutil.copytree(REPO / "python" / "src" / "c4engine", folder)
    native = REPO / "target" / "release" / "libc4engine_native.so"
    if not native.exists():
        sys.exit(f"{native} is missing: cargo build --release -p connect4-python")
    shutil.copy(native, folder / "_native.abi3.so")
    sys.path.insert(0, str(folder.parent))
    import c4engine
    return c4engine
