#!/usr/bin/env bash
# Shows where a run folder stands: each task's Slurm state and work done
# (games in its log, or the book's plies), and the merge job.
#
#   scripts/slurm/status.sh RUN-FOLDER
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ ${1:-} && $1 != -h && $1 != --help ]] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
dir=$(realpath "$1")
[[ -e $dir/run.env ]] || die "'$dir' is not a run folder (no run.env)"
# shellcheck disable=SC1091
source "$dir/run.env"
last=$(tail -n 1 "$dir/jobs")
array=$(sed -n 's/.* array=\([0-9]*\) .*/\1/p' <<<"$last")
merge=$(sed -n 's/.* merge=\([0-9]*\)$/\1/p' <<<"$last")

declare -A state=()
if command -v squeue >/dev/null; then
    while read -r task st; do
        [[ $task =~ ^[0-9]+$ ]] && state[$task]=$st
    done < <(squeue -h -j "$array" -o '%K %T' 2>/dev/null || true)
fi
echo "run $dir: $KIND, $TASKS tasks; last submission: array job $array, merge job $merge"
if [[ $KIND == book && -n ${LAYER:-} ]]; then
    echo "book: $("$C4" book stats "$dir/book.c4book" | grep "^layer of ply $LAYER:" || echo "no layer of ply $LAYER yet")"
elif [[ $KIND == book ]]; then
    echo "book: $("$C4" book stats "$dir/book.c4book" | sed -n 's/^complete to ply /complete to ply /p'), target ply $DEPTH"
fi
printf '%-6s %-10s %s\n' task state work
for ((i = 1; i <= TASKS; i++)); do
    st=${state[$i]:-}
    if [[ -z $st ]]; then
        if [[ -e $dir/done/$i ]]; then st="done"; else st="not done"; fi
    fi
    work=""
    if [[ $KIND == arena && -e $dir/logs/shard-$i.jsonl ]]; then
        work="$(wc -l <"$dir/logs/shard-$i.jsonl") games logged"
    fi
    printf '%-6s %-10s %s\n' "$i" "$st" "$work"
done
mst=$(squeue -h -j "$merge" -o '%T' 2>/dev/null || true)
echo "merge: ${mst:-ended}; its output: $dir/out/merge.txt"
