#!/usr/bin/env bash
# Two threads against one (issue #30: never slower on any set, also when
# another program holds one of the two cores). For each public set, the
# whole-process wall time of `connect4 solve --no-book` with one thread and
# with two on the same input, the median of RUNS interleaved runs, and the
# ratio two / one; every score is checked against the set's labels. With
# --busy, a busy loop (its own process group, nice 0) holds a core during
# every run. Run it on an otherwise quiet machine.
#
#   scripts/bench-threads.sh [RUNS] [--busy]
set -euo pipefail
runs=${1:-3}
busy=${2:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$repo/scripts/bench-lib.sh"
ours="$repo/target/release/connect4"
bench="$repo/../shared/bench"
[ -x "$ours" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
work=$(mktemp -d)
loop=
cleanup() {
    [ -n "$loop" ] && kill "$loop" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
if [ "$busy" = --busy ]; then
    setsid sh -c 'while :; do :; done' &
    loop=$!
fi

# seconds to solve the input with $1 threads, the scores into out.$1
timed() {
    local start end
    start=$(date +%s.%N)
    "$ours" solve --no-book --threads "$1" < input > "out.$1" 2>/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

echo "connect4 solve --no-book, one thread against two${busy:+, a busy loop holding a core}:"
printf '%-22s %10s %10s %8s\n' set "1 thread" "2 threads" "2 / 1"
for set in "${BENCH_SETS[@]}"; do
    name=${set%%:*}
    lines=${set##*:}
    head -n "$lines" "$bench/$name" > labelled
    cut -d" " -f1 labelled > input
    : > times.1
    : > times.2
    for _ in $(seq "$runs"); do
        timed 1 >> times.1
        timed 2 >> times.2
    done
    for threads in 1 2; do
        if ! cmp -s <(cut -d' ' -f1,2 "out.$threads") labelled; then
            echo "$name: the scores with $threads thread(s) differ from the labels" >&2
            exit 1
        fi
    done
    a=$(median < times.1)
    b=$(median < times.2)
    printf '%-22s %10.3f %10.3f %7.2fx\n' "$name ($lines)" "$a" "$b" "$(echo "$b / $a" | bc -l)"
done
