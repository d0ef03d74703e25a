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

# Reads the options the arena's submit scripts share (--tasks, --cpus,
# --dir, --arena, --sbatch, --help) from the arguments into tasks, cpus,
# dir, arena and sbatch_extra, up to the first other word; sets `taken` to
# how many words they were, for the caller to shift. Checks the counts.
arena_options() {
    taken=0
    while (($#)); do
        case $1 in
        --tasks) tasks=${2:?--tasks needs a number} ;;
        --cpus) cpus=${2:?--cpus needs a number} ;;
        --dir) dir=${2:?--dir needs a folder} ;;
        --arena) arena=${2:?--arena needs a path} ;;
        --sbatch) sbatch_extra+=("${2:?--sbatch needs an option}") ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
        esac
        shift 2
        taken=$((taken + 2))
    done
    [[ $tasks =~ ^[1-9][0-9]*$ ]] || die "--tasks '$tasks': expected a positive whole number"
    [[ $cpus =~ ^[1-9][0-9]*$ ]] || die "--cpus '$cpus': expected a positive whole number"
}

# The arena binary, as an absolute path: $1, or target/release/connect4-arena
# of this repository (built if missing).
arena_binary() {
    local arena=$1 root
    root=$(repo_root)
    if [[ -z $arena ]]; then
        arena=$root/target/release/connect4-arena
        [[ -x $arena ]] || (cd "$root" && cargo build --release -p connect4-arena) >&2 ||
            die "could not build $arena"
    fi
    [[ -x $arena ]] || die "--arena '$arena': no such program"
    realpath "$arena"
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
