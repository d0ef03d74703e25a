#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (written by `connect4-arena autograder`). Every path derives from
# AUTOGRADER_ROOT (default /autograder), so it also runs in a test folder.
#
# It installs Python's venv when missing, checks that the bundled binaries
# run here (else builds them from the bundled source), creates the two
# unprivileged users (student code, reference engines), installs the
# bundled Python bridge with numpy into ROOT/venv and checks that both users
# can run it, and closes the config to them.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
STUDENT_USER="${C4_STUDENT_USER:-c4student}"
REFERENCE_USER="${C4_REFERENCE_USER:-c4ref}"
say() { echo "setup: $*"; }

apt_install() {
    say "installing $* with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "$@"
}

# The system's Python: one under root's home (pyenv, say) cannot be run by
# the student's user.
PYTHON=/usr/bin/python3
if ! [ -x "$PYTHON" ] || ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    apt_install python3 python3-venv python3-pip
fi

chmod 755 "$SOURCE/run_autograder" "$SOURCE"/bin/*
if ! "$SOURCE/bin/connect4-arena" --version >/dev/null 2>&1; then
    say "the bundled binaries do not run here (they need glibc 2.34 or newer; this image has $(ldd --version 2>&1 | head -n 1))"
    if [ ! -f "$SOURCE/rust/Cargo.toml" ]; then
        say "and no source is bundled: build the zip on an older system, or with --source" >&2
        exit 1
    fi
    if ! command -v cargo >/dev/null; then
        apt_install build-essential curl ca-certificates
        curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    say "building connect4-arena from the bundled source"
    (cd "$SOURCE/rust" && cargo build --release --locked -p connect4-arena)
    cp "$SOURCE/rust/target/release/connect4-arena" "$SOURCE/bin/connect4-arena"
fi
say "$("$SOURCE/bin/connect4-arena" --version) runs"

for user in "$STUDENT_USER" "$REFERENCE_USER"; do
    if ! id "$user" >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
        say "created user $user"
    fi
done

if [ ! -x "$ROOT/venv/bin/python3" ]; then
    "$PYTHON" -m venv "$ROOT/venv"
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_ROOT_USER_ACTION=ignore
if ! "$ROOT/venv/bin/python3" -c 'import numpy' 2>/dev/null; then
    # A numpy wheel carried in the zip (autograder --wheels) installs
    # without the network; without one, pip fetches numpy.
    if compgen -G "$SOURCE/python/numpy-*.whl" >/dev/null; then
        "$ROOT/venv/bin/pip" install -q --no-index --find-links "$SOURCE/python" numpy
    else
        "$ROOT/venv/bin/pip" install -q --find-links "$SOURCE/python" numpy
    fi
fi
"$ROOT/venv/bin/pip" install -q --no-index --no-deps --force-reinstall "$SOURCE"/python/connect4_bridges-*.whl
chmod -R a+rX "$ROOT/venv"
for user in "$STUDENT_USER" "$REFERENCE_USER"; do
    if ! (cd / && runuser -u "$user" -- "$ROOT/venv/bin/python3" -c 'import c4bridge.policy, c4bridge.kaggle, numpy'); then
        say "user $user cannot run $ROOT/venv/bin/python3 with the bridge and numpy" >&2
        exit 1
    fi
done
say "Python bridge installed in $ROOT/venv"

# Student code may read only what it must import: the venv (the bridge and
# numpy) and the included folders listed in student-readable.txt (those
# holding no reference player). The grader, the perfect player, the config
# (hidden tests), the bundled source and the reference players are root's
# and the reference user's only.
chown -R "root:$REFERENCE_USER" "$SOURCE"
chmod -R u=rwX,g=rX,o= "$SOURCE"
chmod 711 "$SOURCE"
chmod 600 "$SOURCE/config.toml"
if [ -d "$SOURCE/rust" ]; then
    chmod -R go= "$SOURCE/rust"
fi
if [ -d "$SOURCE/include" ]; then
    chmod 755 "$SOURCE/include"
    while IFS= read -r folder; do
        case "$folder" in
            *..*) say "skipping $folder in student-readable.txt: it leaves include/" ;;
            include/*) chmod -R a+rX "$SOURCE/$folder" ;;
        esac
    done < <(cat "$SOURCE/student-readable.txt" 2>/dev/null; echo)
fi
chmod go+x "$ROOT"
say "done"
