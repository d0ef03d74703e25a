# shellcheck shell=bash
# Shared by the submit scripts (sourced, not run): a run folder's settings
# and the two-job shape every run has, an array of shard tasks and a merge
# job that waits for all of them.
#
# A run folder holds run.env (what to run, written with printf %q so it
# sources back exactly), args (the program's arguments, NUL-separated),
# sbatch-args (extra sbatch options, NUL-separated) and out/ (each job's
# output). The task and merge scripts get the folder as their argument:
# sbatch copies a script to its spool before running it, so a script can't
# find the repository from its own path.

die() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

# The repository this script belongs to.
repo_root() {
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd
}

# Writes NAME=VALUE lines, quoted for `source`, to FILE.
write_env() {
    local file=$1
    shift
    : >"$file.tmp"
    while (($#)); do
        printf '%s=%q\n' "$1" "$2" >>"$file.tmp"
        shift 2
    done
    mv "$file.tmp" "$file"
}

# Writes the remaining arguments NUL-separated to FILE.
write_args() {
    local file=$1
    shift
    if (($#)); then printf '%s\0' "$@" >"$file.tmp"; else : >"$file.tmp"; fi
    mv "$file.tmp" "$file"
}

# Reads FILE (NUL-separated) into the array named by $2.
read_args() {
    # shellcheck disable=SC2034
    mapfile -d '' -t "$2" <"$1"
}

# Whether sbatch and squeue are at hand.
need_slurm() {
    if ! command -v sbatch >/dev/null || ! command -v squeue >/dev/null; then
        die "sbatch and squeue are not on PATH: run this on a Slurm login node"
    fi
}

# Submits the array tasks $2 (like 1-8 or 3,5) of run folder $1 and a merge
# job that waits for them; records both job ids in $1/jobs and prints them.
# Reads KIND, TASK_SCRIPT, MERGE_SCRIPT and CPUS from the folder's run.env.
submit_tasks_and_merge() {
    local dir=$1 tasks=$2 extra=() array merge
    # shellcheck disable=SC1091
    source "$dir/run.env"
    read_args "$dir/sbatch-args" extra
    mkdir -p "$dir/out"
    array=$(sbatch --parsable --job-name="c4-$KIND" --array="$tasks" \
        --cpus-per-task="$CPUS" --output="$dir/out/task-%a.txt" --open-mode=append \
        "${extra[@]}" "$TASK_SCRIPT" "$dir") || die "sbatch refused the array job"
    array=${array%%;*}
    merge=$(sbatch --parsable --job-name="c4-$KIND-merge" --dependency="afterany:$array" \
        --cpus-per-task=1 --output="$dir/out/merge.txt" --open-mode=append \
        "${extra[@]}" "$MERGE_SCRIPT" "$dir") || die "sbatch refused the merge job"
    merge=${merge%%;*}
    printf '%s array=%s tasks=%s merge=%s\n' "$(date -u +%FT%TZ)" "$array" "$tasks" "$merge" >>"$dir/jobs"
    echo "submitted: array job $array (tasks $tasks), merge job $merge (after the array)"
    echo "watch:     squeue -j $array,$merge    or    $(repo_root)/scripts/slurm/status.sh $dir"
}
