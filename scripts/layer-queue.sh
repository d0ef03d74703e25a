#!/usr/bin/env bash
# Fills the layer of one ply of the shipped book on this machine, in SHARDS
# shards, WORKERS processes at nice 19 taking them from a queue in order
# (docs/book.md, "Layers"). DIR is a run folder of the Slurm scripts
# (scripts/slurm/submit-book.sh --layer) and each shard is one of their
# array tasks, scripts/slurm/book-task.sbatch: it builds into
# DIR/layer-PLY/part-I.c4book, a copy of the book, saving every minute, so
# a stopped shard resumes where it was. Runs until every shard is done or
# it is stopped (SIGINT or SIGTERM stops the builds too); run it again to
# carry on. Ship what is done, finished shards or not, with:
#
#   connect4 book merge --out NEW book/7x6x4.c4book DIR/layer-PLY/part-*.c4book
#
#   scripts/layer-queue.sh PLY DIR [WORKERS] [SHARDS]
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm/lib.sh"
usage="usage: scripts/layer-queue.sh PLY DIR [WORKERS] [SHARDS]"
ply=${1:?$usage}
dir=${2:?$usage}
workers=${3:-2}
shards=${4:-256}
root=$(repo_root)
[ -x "$root/target/release/connect4" ] || die "build it first: cargo build --release"
mkdir -p "$dir/done" "$dir/out"
dir=$(cd "$dir" && pwd)
# The run's own copies: a rebuild of the repository does not change them.
[ -x "$dir/connect4" ] || cp "$root/target/release/connect4" "$dir/connect4"
[ -f "$dir/book.c4book" ] || cp "$root/book/7x6x4.c4book" "$dir/book.c4book"
write_env "$dir/run.env" KIND book TASKS "$shards" CPUS 1 C4 "$dir/connect4" DEPTH "" \
    LAYER "$ply" HASH_MB 16 REPO "$root" TASK_SCRIPT "$root/scripts/slurm/book-task.sbatch" \
    MERGE_SCRIPT "$root/scripts/slurm/book-merge.sbatch"
# Claims left by workers that were stopped are given back.
for claim in "$dir"/claim.*; do
    [ -d "$claim" ] || continue
    [ -f "$dir/done/${claim##*.}" ] || rmdir "$claim"
done

# Takes shards in order until none is left, each as a Slurm array task.
# A worker leads a session of its own, and where the kernel groups
# sessions for scheduling (autogroup), nice ranks processes only within
# their group: the group's own nice (/proc/self/autogroup) is what makes
# the build give way to the machine's other work.
worker() {
    if [ -w /proc/self/autogroup ]; then
        echo 19 >/proc/self/autogroup || true
    fi
    for n in $(seq "$shards"); do
        mkdir "$dir/claim.$n" 2> /dev/null || continue
        SLURM_ARRAY_TASK_ID=$n bash "$root/scripts/slurm/book-task.sbatch" "$dir" \
            > "$dir/out/task-$n.txt" 2>&1 || echo "shard $n failed: see $dir/out/task-$n.txt" >&2
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
export dir root shards
export -f worker
for _ in $(seq "$workers"); do
    setsid nice -n 19 bash -c worker &
    pids+=($!)
done
wait
done_count=$(find "$dir/done" -type f | wc -l)
echo "$done_count of $shards shards done; ship them with:"
echo "  connect4 book merge --out NEW book/7x6x4.c4book $dir/layer-$ply/part-*.c4book"
