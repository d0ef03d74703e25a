#!/usr/bin/env bash
# Fills the layer of one ply of the shipped book in SHARDS shards, WORKERS
# processes at nice 19 taking them from a queue in order (docs/book.md,
# "Layers"). Each shard is built into DIR/qI.c4book, a copy of the shipped
# book (the build skips what the book knows and saves every minute, so a
# stopped shard resumes where it was), then merged into DIR/merged.c4book.
# Runs until every shard is done or it is stopped (Ctrl-C stops the workers
# too); run it again to carry on. Ship what is done with:
#
#   connect4 book merge --out NEW book/7x6x4.c4book DIR/merged.c4book DIR/q*.c4book
#
#   scripts/layer-queue.sh PLY DIR [WORKERS] [SHARDS]
set -euo pipefail
ply=${1:?usage: scripts/layer-queue.sh PLY DIR [WORKERS] [SHARDS]}
dir=${2:?usage: scripts/layer-queue.sh PLY DIR [WORKERS] [SHARDS]}
workers=${3:-2}
shards=${4:-256}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/target/release/connect4" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# The workers' own copies: a rebuild of the repository does not change them.
[ -x "$dir/connect4" ] || cp "$repo/target/release/connect4" "$dir/connect4"
[ -f "$dir/base.c4book" ] || cp "$repo/book/7x6x4.c4book" "$dir/base.c4book"
# Claims left by workers that were stopped are given back.
for claim in "$dir"/claim.*; do
    [ -d "$claim" ] || continue
    [ -f "$dir/done.${claim##*.}" ] || rmdir "$claim"
done

# Builds shard $1 and merges it into merged.c4book.
build_shard() {
    local n=$1 book="$dir/q$1.c4book"
    [ -f "$book" ] || cp "$dir/base.c4book" "$book"
    "$dir/connect4" book build --out "$book" --layer "$ply" --shard "$n/$shards" \
        --checkpoint 60 > "$dir/log.$n" 2>&1
    (
        flock 9
        if [ -f "$dir/merged.c4book" ]; then
            "$dir/connect4" book merge --out "$dir/merged.new" "$dir/merged.c4book" "$book" \
                >> "$dir/merge.log"
            mv "$dir/merged.new" "$dir/merged.c4book"
        else
            cp "$book" "$dir/merged.c4book"
        fi
    ) 9> "$dir/merge.lock"
    touch "$dir/done.$n"
}

# Takes shards in order until none is left.
worker() {
    for n in $(seq "$shards"); do
        mkdir "$dir/claim.$n" 2> /dev/null || continue
        build_shard "$n" || echo "shard $n failed: see $dir/log.$n" >&2
    done
}

# Each worker leads a process group of its own, so that stopping the queue
# stops the builds too.
pids=()
stop() {
    for pid in "${pids[@]}"; do
        kill -- "-$pid" 2> /dev/null || true
    done
}
trap 'stop; exit 130' INT TERM
export dir ply shards
export -f build_shard worker
for _ in $(seq "$workers"); do
    setsid nice -n 19 bash -c worker &
    pids+=($!)
done
wait
done_count=$(find "$dir" -maxdepth 1 -name 'done.*' | wc -l)
echo "$done_count of $shards shards done; merged into $dir/merged.c4book"
