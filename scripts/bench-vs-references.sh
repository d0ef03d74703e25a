#!/usr/bin/env bash
# The solver against the two references (issues #30 and #45), each built
# here from its own repository at its commit:
#   - Pascal Pons' c4solver, commit d6ba50d8 of PascalPons/connect4, with
#     its own Makefile, run where no 7x6.book is;
#   - Christophe Steininger's c4, commit 80baa53 of ChristopheSteininger/c4,
#     its solver's sources compiled as its CMakeLists compiles them (g++,
#     C++20, -O3 -flto, NDEBUG) with its settings.h set to one thread (its
#     default 1 GB table), driven by scripts/steininger-driver.cpp (one
#     position a line: as published, it solves one position fixed in its
#     source).
# On x86-64 both are compiled with -mpopcnt, the one instruction beyond
# the baseline that ours is built with (.cargo/config.toml), so that the
# three count bits with the same instruction.
# For each public set, and for the empty board (ours and Steininger's, as
# issue #45 compares them), the whole-process wall time of
# each on the same input, the median of RUNS interleaved runs, and our time
# over each reference's; every score is checked against the set's labels
# (the empty board's against +1). No book on any side. Run it on a quiet
# machine; it prints the machine first.
#
#   scripts/bench-vs-references.sh PONS-REPO STEININGER-REPO [THREADS] [RUNS]
#
# A REPO is a clone or a mirror (git -C REPO archive COMMIT must work);
# `fetch` brings both. The builds are kept in target/references/.
set -euo pipefail
usage="usage: scripts/bench-vs-references.sh PONS-REPO STEININGER-REPO [THREADS] [RUNS]"
pons_repo=$(realpath "${1:?$usage}")
steininger_repo=$(realpath "${2:?$usage}")
threads=${3:-1}
runs=${4:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$repo/scripts/bench-lib.sh"
ours="$repo/target/release/connect4"
bench="$repo/../shared/bench"
[ -x "$ours" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
built="$repo/target/references"
mkdir -p "$built"

# The reference at COMMIT of REPO, unpacked into target/references/NAME.
unpack() {
    local name=$1 source=$2 commit=$3
    if [ ! -e "$built/$name/.unpacked" ]; then
        rm -rf "${built:?}/$name"
        mkdir -p "$built/$name"
        git -C "$source" archive "$commit" | tar -x -C "$built/$name"
        touch "$built/$name/.unpacked"
    fi
}
# The instruction set ours is built with beyond the baseline, for both.
extra_flags=""
[ "$(uname -m)" = x86_64 ] && extra_flags="-mpopcnt"
# Whether the build in target/references/NAME was made with these flags
# (a build from before is made again).
built_with_flags() {
    [ "$(cat "$built/$1/.flags" 2>/dev/null)" = "flags: $extra_flags" ]
}
unpack pons "$pons_repo" d6ba50d8aaf2308c769d9bf2abd42d90f34baf41
if ! built_with_flags pons || [ ! -x "$built/pons/c4solver" ]; then
    make -s -C "$built/pons" clean >&2
    make -s -C "$built/pons" c4solver CXXFLAGS="--std=c++11 -W -Wall -O3 -DNDEBUG $extra_flags" >&2
    echo "flags: $extra_flags" > "$built/pons/.flags"
fi
unpack steininger "$steininger_repo" 80baa53
st="$built/steininger"
if ! built_with_flags steininger || [ ! -x "$st/c4-lines" ]; then
    sed -i 's/^inline constexpr int NUM_THREADS = .*;/inline constexpr int NUM_THREADS = 1;/' \
        "$st/src/solver/settings.h"
    grep -q "NUM_THREADS = 1;" "$st/src/solver/settings.h" || { echo "settings.h: NUM_THREADS not set" >&2; exit 1; }
    cp "$repo/scripts/steininger-driver.cpp" "$st/src/lines.cpp"
    mapfile -t sources < <(cd "$st" && find src/solver -name '*.cpp' | sort)
    # shellcheck disable=SC2086 # the flags are words
    (cd "$st" && g++ -std=c++20 -O3 -flto $extra_flags -Wall -DNDEBUG -pthread -I src \
        src/lines.cpp "${sources[@]}" -o c4-lines)
    echo "flags: $extra_flags" > "$st/.flags"
fi
pons="$built/pons/c4solver"
steininger="$st/c4-lines"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
    "$(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%FT%TZ); ours with $threads thread(s)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"   # no 7x6.book here: Pons' solver solves without its book

# Seconds to run "${@:2}" < input > $1.
timed() {
    local output=$1 start end
    shift
    start=$(date +%s.%N)
    "$@" < input > "$output" 2>/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

# One row: the labelled positions in ./labelled, timed for each solver
# named, every score checked.
row() {
    local title=$1 who
    shift
    cut -d" " -f1 labelled > input
    for who in "$@"; do : > "$who.times"; done
    for _ in $(seq "$runs"); do
        for who in "$@"; do
            case $who in
            ours) timed ours.out "$ours" solve --no-book --threads "$threads" >> ours.times ;;
            pons) timed pons.out "$pons" >> pons.times ;;
            steininger) timed steininger.out "$steininger" >> steininger.times ;;
            esac
        done
    done
    for who in "$@"; do
        if ! cmp -s <(awk '{print $1, $2}' "$who.out") <(awk '{print $1, $2}' labelled); then
            echo "$title: $who's scores differ from the labels" >&2
            exit 1
        fi
    done
    local a c pons_time="-" pons_ratio="-"
    a=$(median < ours.times)
    c=$(median < steininger.times)
    if [[ " $* " == *" pons "* ]]; then
        pons_time=$(printf '%.3f' "$(median < pons.times)")
        pons_ratio=$(printf '%.2fx' "$(echo "$a / $pons_time" | bc -l)")
    fi
    printf '| %s | %.3f | %s | %.3f | %s | %.2fx |\n' "$title" "$a" "$pons_time" "$c" \
        "$pons_ratio" "$(echo "$a / $c" | bc -l)"
}

echo "| work | ours (s) | Pons (s) | Steininger (s) | ours / Pons | ours / Steininger |"
echo "|---|---|---|---|---|---|"
for set in "${BENCH_SETS[@]}"; do
    name=${set%%:*}
    lines=${set##*:}
    head -n "$lines" "$bench/$name" > labelled
    row "$name ($lines)" ours pons steininger
done
printf ' 1\n' > labelled
row "empty board" ours steininger
