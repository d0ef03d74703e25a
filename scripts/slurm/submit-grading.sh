#!/usr/bin/env bash
# Sends the grading of a whole class to Slurm as a job array: task I grades
# every N-th submission from the I-th (`grade --submissions ... --shard
# I/N`) into the shared --out, and a last job, once every task has ended,
# writes the class's grades.csv and index.html. The grade options are the
# ones `connect4-arena grade --submissions` takes, unchanged.
#
#   scripts/slurm/submit-grading.sh [--tasks N] [--cpus C] [--dir DIR] [--arena PATH]
#                                   [--sbatch OPTION]... GRADE-OPTIONS...
#
#   --tasks N        array tasks (default 8)
#   --cpus C         CPUs per task (default 1): gradings at once in a task are
#                    C over the grading's --concurrency (1 unless given)
#   --dir DIR        the run folder: the tasks' output, and --out unless given
#                    (default runs/grading-DATE-TIME)
#   --arena PATH     the arena binary (default target/release/connect4-arena, built if missing)
#   --sbatch OPTION  an extra sbatch option for every job (repeat for more)
#
# The command is checked here first (`--check`: the folders and the config),
# so a wrong path fails now and not in eight tasks. A submission already
# graded in --out is kept: submitting again grades the rest, and
# scripts/slurm/rerun.sh DIR reruns the tasks that failed.
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tasks=8 cpus=1 dir="" arena="" sbatch_extra=()
arena_options "$@"
shift "$taken"
[[ " $* " == *" --submissions "* || " $* " == *" --submissions="* ]] ||
    die "no --submissions: give the folder of the students' submission folders (see --help)"
for a in "$@"; do
    case $a in
    --shard | --shard=* | --check | --regrade) die "'$a': the script gives each task its own shard, and keeps what is graded" ;;
    esac
done
need_slurm
root=$(repo_root)
arena=$(arena_binary "$arena")

dir=${dir:-runs/grading-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir/done"
dir=$(realpath "$dir")
args=("$@")
[[ " ${args[*]} " == *" --out "* || " ${args[*]} " == *" --out="* ]] || args+=(--out "$dir/grades")

echo "checking the command before submitting it:"
"$arena" grade "${args[@]}" --check || die "the arena refused the command above; nothing was submitted"

write_args "$dir/args" "${args[@]}"
write_args "$dir/sbatch-args" "${sbatch_extra[@]}"
write_env "$dir/run.env" KIND grading TASKS "$tasks" CPUS "$cpus" ARENA "$arena" \
    TASK_SCRIPT "$root/scripts/slurm/grade-task.sbatch" \
    MERGE_SCRIPT "$root/scripts/slurm/grade-merge.sbatch"
submit_tasks_and_merge "$dir" "1-$tasks"
echo "results:   grades.csv and index.html in --out once the last job has run"
