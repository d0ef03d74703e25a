#!/usr/bin/env bash
# Checks a release folder (scripts/release's) where it will be used, with
# no Rust toolchain anywhere on the PATH:
# - the three wheels installed into a fresh virtual environment of the
#   oldest and of the newest Python the packages claim (3.9 and 3.13, from
#   pyenv; C4_RELEASE_PYTHONS names others), then c4engine's best move, a
#   PettingZoo loop (its api_test and 50 random games) and a
#   connect4-arena match of the solver against a course policy made by
#   connect4-policy, all from the environment's bin/;
# - the tarball unpacked, its programs' glibc checked (objdump -T), and a
#   match between them.
# Prints the wheels' sizes and each install's time.
#   check-release.sh DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
dist=$(cd "$1" && pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheels=("$dist"/c4engine-*.whl "$dist"/connect4_bridges-*.whl "$dist"/connect4_programs-*.whl)
tarball=("$dist"/connect4-*-x86_64-linux-gnu.tar.gz)
for file in "${wheels[@]}" "${tarball[@]}"; do
    [ -f "$file" ] || { echo "check-release: $file is missing" >&2; exit 1; }
    echo "check-release: $(basename "$file"): $(stat -c %s "$file") bytes"
done
if [ -n "${C4_RELEASE_PYTHONS:-}" ]; then
    read -r -a pythons <<<"$C4_RELEASE_PYTHONS"
else
    root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
    pythons=()
    for minor in 3.9 3.13; do
        found=$(find "$root/versions" -maxdepth 1 -name "$minor.*" | sort -V | tail -n 1)
        [ -n "$found" ] || { echo "check-release: no Python $minor under $root/versions (set C4_RELEASE_PYTHONS)" >&2; exit 1; }
        pythons+=("$found/bin/python3")
    done
fi

# Runs a command with no Rust toolchain reachable: a PATH of the system's
# folders and $1 alone, and a home of its own.
bare() {
    local bin=$1
    shift
    env -i HOME="$work/home" LANG=C.UTF-8 PATH="$bin:/usr/bin:/bin" "$@"
}
mkdir -p "$work/home"
if bare /nonexistent sh -c 'command -v cargo || command -v rustc'; then
    echo "check-release: cargo or rustc is on the system's PATH; the check needs a machine without them there" >&2
    exit 1
fi

# The checks of one installed environment (its bin/ at $1), in folder $2.
check_environment() {
    local bin=$1 dir=$2
    mkdir -p "$dir"
    (cd "$dir" && bare "$bin" python - <<'PY'
import random
import c4engine
from pettingzoo.test import api_test

assert c4engine.best_move("4453") == 2, c4engine.best_move("4453")
api_test(c4engine.pettingzoo_env(), num_cycles=200)
env = c4engine.pettingzoo_env()
rng = random.Random(1)
plies = 0
for game in range(50):
    env.reset(seed=game)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        legal = [a for a, ok in enumerate(observation["action_mask"]) if ok]
        env.step(None if termination or truncation else rng.choice(legal))
        plies += 1
print(f"check-release: c4engine {c4engine.__version__}: best_move('4453') = 2, api_test passed, 50 games ({plies} steps)")
PY
    )
    (cd "$dir" && bare "$bin" connect4-policy new policy >/dev/null &&
        bare "$bin" connect4-arena match --engine name=solver,cmd=connect4,movetime=20 \
            --engine name=policy,cmd=connect4-policy,arg=policy --games 4 --seed 1 --log match.jsonl)
    [ "$(wc -l <"$dir/match.jsonl")" -eq 4 ] || { echo "check-release: the match did not log 4 games" >&2; exit 1; }
}

for python in "${pythons[@]}"; do
    venv="$work/venv-$(basename "$(dirname "$(dirname "$python")")")"
    "$python" -m venv "$venv"
    start=$(date +%s.%N)
    bare "$venv/bin" pip install --quiet --disable-pip-version-check "${wheels[@]}"
    took=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
    echo "check-release: $("$venv/bin/python" --version): the three wheels and numpy installed in ${took} s"
    bare "$venv/bin" pip install --quiet --disable-pip-version-check pettingzoo
    check_environment "$venv/bin" "$venv/check"
done

mkdir "$work/tarball"
tar -C "$work/tarball" -xzf "${tarball[0]}"
programs=$(find "$work/tarball" -maxdepth 3 -path '*/bin/*' -type f | sort)
for program in $programs; do
    bash "$here/newest-glibc.sh" "$program" 2.17
done
top=$(dirname "$(dirname "$(echo "$programs" | head -n 1)")")
(cd "$work" && bare "$top/bin" connect4-arena match --engine name=solver,cmd=connect4,movetime=20 \
    --engine name=greedy,cmd=self,option.agent=greedy --games 2 --seed 1)
echo "check-release: every check passed"
