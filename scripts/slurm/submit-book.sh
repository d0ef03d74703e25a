#!/usr/bin/env bash
# Builds or deepens an opening book on Slurm, one ply at a time: an array of
# tasks solves the ply's positions (task I takes shard I/N), a merge job puts
# the parts into the book and, until the book reaches --depth, submits the
# next ply's array and merge itself.
#
#   scripts/slurm/submit-book.sh --depth D | --layer PLY [--tasks N] [--dir DIR] [--from BOOK]
#                                [--rules CxRxK] [--hash-mb M] [--deviations PLY]
#                                [--connect4 PATH] [--sbatch OPTION]...
#
#   --depth D        build the book down to this ply (as `connect4 book build --depth`)
#   --layer PLY      instead of the trees, fill the book's layer of this ply (as
#                    `connect4 book build --layer`): one array, task I takes the
#                    I-th of N runs of its slots, then one merge
#   --tasks N        array tasks per ply (default 8)
#   --dir DIR        the run folder; its book.c4book is the book being built
#                    (default runs/book-DATE-TIME)
#   --from BOOK      start from this book (say book/7x6x4.c4book) instead of an empty one
#   --rules CxRxK    the board of a new book (default 7x6x4)
#   --hash-mb M      each task's solver table in MiB (default 1024, 16 with --layer; ask Slurm for
#                    that much memory and more, such as --sbatch --mem=2G)
#   --deviations PLY also give the side that loses at a root its tree, down to
#                    this ply (as `connect4 book build --deviations`; default:
#                    the book's own setting)
#   --connect4 PATH  the engine binary (default target/release/connect4, built if missing)
#   --sbatch OPTION  an extra sbatch option for every job (repeat for more)
#
# The merge jobs call sbatch, so compute nodes must be allowed to submit
# (they are on most clusters). Submitting again with the same --dir carries
# on from the book there; scripts/slurm/rerun.sh DIR reruns failed tasks.
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tasks=8 dir="" from="" rules=7x6x4 hash_mb="" depth="" layer="" deviations="" c4="" sbatch_extra=()
while (($#)); do
    case $1 in
    --depth) depth=${2:?--depth needs a ply}; shift 2 ;;
    --layer) layer=${2:?--layer needs a ply}; shift 2 ;;
    --tasks) tasks=${2:?--tasks needs a number}; shift 2 ;;
    --dir) dir=${2:?--dir needs a folder}; shift 2 ;;
    --from) from=${2:?--from needs a book}; shift 2 ;;
    --rules) rules=${2:?--rules needs a board}; shift 2 ;;
    --hash-mb) hash_mb=${2:?--hash-mb needs a size}; shift 2 ;;
    --deviations) deviations=${2:?--deviations needs a ply}; shift 2 ;;
    --connect4) c4=${2:?--connect4 needs a path}; shift 2 ;;
    --sbatch) sbatch_extra+=("${2:?--sbatch needs an option}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
if [[ -n $layer ]]; then
    [[ -z $depth && -z $deviations ]] || die "--layer fills one layer: leave out --depth and --deviations"
    [[ $layer =~ ^[1-9][0-9]*$ ]] || die "--layer '$layer': expected the ply of the layer, such as --layer 11"
else
    [[ $depth =~ ^[0-9]+$ ]] || die "--depth '${depth}': expected the ply to build the book to, such as --depth 12 (or --layer PLY)"
fi
[[ $tasks =~ ^[1-9][0-9]*$ ]] || die "--tasks '$tasks': expected a positive whole number"
if [[ -z $hash_mb ]]; then
    if [[ -n $layer ]]; then hash_mb=16; else hash_mb=1024; fi
fi
[[ $hash_mb =~ ^[1-9][0-9]*$ ]] || die "--hash-mb '$hash_mb': expected a positive whole number of MiB"
[[ -z $deviations || $deviations =~ ^[0-9]+$ ]] ||
    die "--deviations '$deviations': expected the ply the losing side's trees go to, such as --deviations 10"
need_slurm

root=$(repo_root)
if [[ -z $c4 ]]; then
    c4=$root/target/release/connect4
    [[ -x $c4 ]] || (cd "$root" && cargo build --release -p connect4) || die "could not build $c4"
fi
[[ -x $c4 ]] || die "--connect4 '$c4': no such program"
c4=$(realpath "$c4")

dir=${dir:-runs/book-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir/done"
dir=$(realpath "$dir")
book=$dir/book.c4book
if [[ -n $from ]]; then
    [[ ! -e $book ]] || die "$dir already holds a book; leave out --from to carry on with it"
    "$c4" book stats "$from" >/dev/null || die "--from '$from' is not a readable book"
    cp "$from" "$book"
elif [[ ! -e $book ]]; then
    "$c4" book build --out "$book" --rules "$rules" --depth 0 --hash-mb 1 >/dev/null ||
        die "could not start a book for the board '$rules'"
fi
if [[ -n $deviations ]]; then
    # Recorded in the book, so every task and merge follows it.
    "$c4" book build --out "$book" --depth 0 --deviations "$deviations" --hash-mb 16 >/dev/null ||
        die "could not set --deviations $deviations on $book"
fi
if [[ -n $layer ]]; then
    # An empty layer in the book first: it refuses a ply the board cannot have.
    "$c4" book build --out "$book" --layer "$layer" --time 0.001 --hash-mb 16 >/dev/null 2>"$dir/start.txt" ||
        die "could not start the layer of ply $layer in $book: $(tail -n 1 "$dir/start.txt")"
    work="filling the layer of ply $layer"
else
    complete=$("$c4" book stats "$book" | sed -n 's/^complete to ply //p')
    if ((complete >= depth)); then
        echo "$book is complete to ply $complete already (--depth $depth): nothing to submit"
        exit 0
    fi
    work="complete to ply $complete; building ply $((complete + 1)) of $depth"
fi

write_args "$dir/sbatch-args" "${sbatch_extra[@]}"
write_env "$dir/run.env" KIND book TASKS "$tasks" CPUS 1 C4 "$c4" DEPTH "$depth" LAYER "$layer" \
    HASH_MB "$hash_mb" REPO "$root" TASK_SCRIPT "$root/scripts/slurm/book-task.sbatch" \
    MERGE_SCRIPT "$root/scripts/slurm/book-merge.sbatch"
rm -f "$dir"/done/*
echo "book $book: $work with $tasks tasks"
submit_tasks_and_merge "$dir" "1-$tasks"
