#!/usr/bin/env bash
# Sends one step of a class league to Slurm: here, the new submissions are
# taken in and the next games scheduled (`league ... --export`: the
# anchors' calibration the first time, then a ladder round each time), and
# written to the run folder; array task I plays every N-th of them from
# the I-th (`league --play ... --shard I/N`, no database touched), and a
# last job, once every task has ended, records them in the league's
# database (`league --record`), each game once, and prints the ladder.
# The league options, after `--`, are the ones `connect4-arena league`
# takes, unchanged (its --dir is the league's folder).
#
#   scripts/slurm/submit-league.sh [--tasks N] [--cpus C] [--dir RUN] [--arena PATH]
#                                  [--sbatch OPTION]... -- LEAGUE-OPTIONS...
#
#   --tasks N        array tasks (default 8)
#   --cpus C         CPUs per task (default 1): games at once in a task
#   --dir RUN        the run folder of this step: its games, the tasks'
#                    results and output (default runs/league-DATE-TIME)
#   --arena PATH     the arena binary (default target/release/connect4-arena, built if missing)
#   --sbatch OPTION  an extra sbatch option for every job (repeat for more)
#
# Submit it again (by hand, from cron or scrontab) for each round; a step
# whose tasks did not all finish is finished by scripts/slurm/rerun.sh RUN.
# The league's folder (--dir of the league options) must be on a file
# system that the login node and the last job share.
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tasks=8 cpus=1 dir="" arena="" sbatch_extra=()
arena_options "$@"
shift "$taken"
[[ ${1:-} == -- ]] || die "'${1:-}': put -- before the league's options (its --dir is the league's folder, not the run's)"
shift
[[ " $* " == *" --dir "* || " $* " == *" --dir="* ]] ||
    die "no --dir among the league options: give the league's folder (see --help)"
for a in "$@"; do
    case $a in
    --export* | --play* | --shard* | --results* | --record* | --rounds* | --final | --serve* | --status)
        die "'$a': the script schedules, plays and records one step itself" ;;
    esac
done
need_slurm
root=$(repo_root)
arena=$(arena_binary "$arena")

dir=${dir:-runs/league-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir/done" "$dir/results"
dir=$(realpath "$dir")
[[ ! -e $dir/games.jsonl ]] || die "--dir $dir holds a step already: rerun it with scripts/slurm/rerun.sh $dir, or give a new --dir"

"$arena" league "$@" --export "$dir/games.jsonl" || die "the arena refused the command above; nothing was submitted"
games=$(wc -l <"$dir/games.jsonl")
((games > 0)) || { echo "no game to play: no student in the league yet"; exit 0; }
((tasks <= games)) || tasks=$games

write_args "$dir/args" "$@"
write_args "$dir/sbatch-args" "${sbatch_extra[@]}"
write_env "$dir/run.env" KIND league TASKS "$tasks" CPUS "$cpus" ARENA "$arena" \
    TASK_SCRIPT "$root/scripts/slurm/league-task.sbatch" \
    MERGE_SCRIPT "$root/scripts/slurm/league-record.sbatch"
submit_tasks_and_merge "$dir" "1-$tasks"
echo "results:   the ladder in $dir/out/merge.txt once the last job has run"
