#!/usr/bin/env bash
# Sends a match or tournament to Slurm as a job array: task I plays shard
# I/N of the schedule into its own log, and a merge job, once every task has
# ended, combines the logs into the final results. The arena options are the
# ones `connect4-arena match|tournament` takes, unchanged.
#
#   scripts/slurm/submit-arena.sh [--tasks N] [--cpus C] [--dir DIR] [--arena PATH]
#                                 [--sbatch OPTION]... match|tournament ARENA-OPTIONS...
#
#   --tasks N        array tasks, one shard each (default 8)
#   --cpus C         CPUs per task = games each task plays at once (default 1)
#   --dir DIR        the run folder: logs, outputs, results (default runs/arena-DATE-TIME)
#   --arena PATH     the arena binary (default target/release/connect4-arena, built if missing)
#   --sbatch OPTION  an extra sbatch option for every job, such as --partition=short
#                    or --time=2:00:00 (repeat for more)
#
# The command is first checked here (`--check`: every engine starts and
# answers), so a wrong path or option fails now and not in eight tasks.
# `--log` and `--shard` belong to the script; `--sprt`, `--summary` and
# `--csv` go to the merge job. Submitting the same command to the same --dir
# again resumes it; scripts/slurm/rerun.sh DIR reruns the tasks that failed.
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tasks=8 cpus=1 dir="" arena="" sbatch_extra=()
arena_options "$@"
shift "$taken"
case ${1:-} in
match | tournament) ;;
"") die "no arena command: give match or tournament and its options (see --help)" ;;
*) die "unknown option '$1' before match|tournament (see --help)" ;;
esac
need_slurm
root=$(repo_root)
arena=$(arena_binary "$arena")

# Split the arena options: the tasks' and the merge's.
task_args=() merge_args=()
while (($#)); do
    case $1 in
    --log | --log=* | --shard | --shard=*)
        die "'$1': the script gives each task its own --log and --shard" ;;
    --sprt | --summary | --csv) merge_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --sprt=* | --summary=* | --csv=*) merge_args+=("$1"); shift ;;
    *) task_args+=("$1"); shift ;;
    esac
done
# The summary and CSV land in the run folder unless given.
[[ " ${merge_args[*]} " == *" --summary"* ]] || merge_args+=(--summary "@DIR@/summary.json")
[[ " ${merge_args[*]} " == *" --csv"* ]] || merge_args+=(--csv "@DIR@/results.csv")

dir=${dir:-runs/arena-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir/logs" "$dir/done"
dir=$(realpath "$dir")
merge_args=("${merge_args[@]//@DIR@/$dir}")

if [[ -e $dir/args ]]; then
    write_args "$dir/args.new" "${task_args[@]}"
    cmp -s "$dir/args" "$dir/args.new" ||
        die "$dir holds a run of another command; give another --dir (or the same command to resume it)"
    rm -f "$dir/args.new"
    echo "resuming the run in $dir: each task carries on from its log"
fi

echo "checking the command before submitting it:"
"$arena" "${task_args[@]}" --shard "1/$tasks" --log "$dir/logs/shard-1.jsonl" --check ||
    die "the arena refused the command above; nothing was submitted"

write_args "$dir/args" "${task_args[@]}"
write_args "$dir/merge-args" "${merge_args[@]}"
write_args "$dir/sbatch-args" "${sbatch_extra[@]}"
write_env "$dir/run.env" KIND arena TASKS "$tasks" CPUS "$cpus" ARENA "$arena" \
    TASK_SCRIPT "$root/scripts/slurm/arena-task.sbatch" \
    MERGE_SCRIPT "$root/scripts/slurm/arena-merge.sbatch"
submit_tasks_and_merge "$dir" "1-$tasks"
echo "results:   $dir/results.txt (and summary.json, results.csv) once the merge job has run"
