#!/usr/bin/env bash
# The solver against the reference (issue #30): Pascal Pons' c4solver at
# commit d6ba50d8 of PascalPons/connect4, built with its own Makefile
# (`make c4solver`), run where no 7x6.book is. For each public set, the
# whole-process wall time of both on the same input, the median of RUNS
# interleaved runs, and the ratio ours / theirs; every score is checked
# against the set's labels. Run it on a quiet machine.
#
#   scripts/bench-vs-pons.sh PATH/TO/c4solver [THREADS] [RUNS]
set -euo pipefail
pons=$(realpath "${1:?usage: scripts/bench-vs-pons.sh PATH/TO/c4solver [THREADS] [RUNS]}")
threads=${2:-1}
runs=${3:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$repo/scripts/bench-lib.sh"
ours="$repo/target/release/connect4"
bench="$repo/../shared/bench"
[ -x "$ours" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
input=input
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"   # no 7x6.book here: the reference solves without its book

# seconds to run "$@" < $input > $output
timed() {
    local start end
    start=$(date +%s.%N)
    "$@" < "$input" > "$output" 2>/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

printf '%-22s %10s %10s %8s\n' set "ours (s)" "Pons (s)" ratio
for set in "${BENCH_SETS[@]}"; do
    name=${set%%:*}
    lines=${set##*:}
    head -n "$lines" "$bench/$name" > labelled
    cut -d" " -f1 labelled > input
    : > ours.times
    : > pons.times
    for _ in $(seq "$runs"); do
        output=ours.out timed "$ours" solve --no-book --threads "$threads" >> ours.times
        output=pons.out timed "$pons" >> pons.times
    done
    for who in ours pons; do
        if ! cmp -s <(cut -d' ' -f1,2 "$who.out") labelled; then
            echo "$name: $who's scores differ from the labels" >&2
            exit 1
        fi
    done
    a=$(median < ours.times)
    b=$(median < pons.times)
    printf '%-22s %10.3f %10.3f %7.2fx\n' "$name ($lines)" "$a" "$b" "$(echo "$a / $b" | bc -l)"
done
