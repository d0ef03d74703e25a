#!/usr/bin/env bash
# Reruns the tasks of a run folder that did not finish (killed, failed, out
# of time), or the ones named, and submits a new merge job after them. Each
# task carries on from where it stopped: a match shard from its log, a book
# shard from its part file.
#
#   scripts/slurm/rerun.sh RUN-FOLDER [TASK...]
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ ${1:-} && $1 != -h && $1 != --help ]] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
dir=$(realpath "$1")
shift
[[ -e $dir/run.env ]] || die "'$dir' is not a run folder (no run.env): give the --dir of a submission"
need_slurm
# shellcheck disable=SC1091
source "$dir/run.env"

tasks=("$@")
if ((${#tasks[@]} == 0)); then
    for ((i = 1; i <= TASKS; i++)); do
        [[ -e $dir/done/$i ]] || tasks+=("$i")
    done
    ((${#tasks[@]})) || { echo "every task of $dir is done; nothing to rerun"; exit 0; }
fi
for t in "${tasks[@]}"; do
    if ! [[ $t =~ ^[0-9]+$ ]] || ((t < 1 || t > TASKS)); then
        die "task '$t': expected a number from 1 to $TASKS"
    fi
done

last=$(tail -n 1 "$dir/jobs")
array=$(sed -n 's/.* array=\([0-9]*\) .*/\1/p' <<<"$last")
merge=$(sed -n 's/.* merge=\([0-9]*\)$/\1/p' <<<"$last")
if [[ -n $(squeue -h -j "$array" -t PENDING,RUNNING,SUSPENDED,REQUEUED 2>/dev/null) ]]; then
    die "tasks of array job $array are still queued or running; wait for them to end, or scancel $array first"
fi
# The old merge job would only fail for the missing shards; the new one
# replaces it.
scancel "$merge" 2>/dev/null || true

list=$(IFS=,; echo "${tasks[*]}")
echo "rerunning tasks $list of $dir"
submit_tasks_and_merge "$dir" "$list"
