#!/usr/bin/env bash
# Tests the Slurm scripts on a one-node cluster started on this machine:
#  1. installs Slurm and MUNGE from the Debian packages when missing, and
#     starts munged, slurmctld and slurmd from selftest/slurm.conf.in, all
#     under a temporary folder;
#  2. submits a 200-game match as an 8-task array, cancels one task midway,
#     checks that the merge job refuses the incomplete run, reruns the task
#     (it resumes from its log), and lets the merge job write the results;
#  3. builds a small book (5x4x4 to ply 7) as 3-task arrays, ply by ply;
#  4. plays the same match and builds the same book without Slurm or shards,
#     and compares: the same games with the same results, the same book;
#  5. stops the cluster and exits non-zero on any difference.
# It needs root (packages, daemons) and takes a few minutes; it is not part
# of CI. KEEP=1 keeps the temporary folder.
#
#   sudo scripts/slurm/selftest.sh
set -euo pipefail
# shellcheck source=scripts/slurm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(repo_root)
started=$SECONDS

say() { echo "selftest [$((SECONDS - started)) s]: $*"; }
fail() {
    say "FAILED: $*"
    exit 1
}
# wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds.
wait_for() {
    local limit=$1 what=$2 t0=$SECONDS
    shift 2
    until "$@"; do
        ((SECONDS - t0 < limit)) || fail "$what did not happen within $limit s"
        sleep 0.2
    done
}

((EUID == 0)) || die "run it as root: it installs packages and starts the Slurm daemons"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
fi
command -v python3 >/dev/null || die "python3 is needed to compare the game logs"
say "building the release binaries"
(cd "$root" && cargo build --release --workspace --locked -q)
arena=$root/target/release/connect4-arena c4=$root/target/release/connect4

tmp=$(mktemp -d /tmp/c4-slurm-selftest.XXXXXX)
chmod 755 "$tmp"
mkdir -p "$tmp"/{munge,state,spool,log}
chmod 700 "$tmp/munge"
stop_cluster() {
    SLURM_CONF=$tmp/slurm.conf scontrol shutdown >/dev/null 2>&1 || true
    sleep 1
    for pid in "$tmp"/slurmctld.pid "$tmp"/slurmd.pid "$tmp"/munge/pid; do
        if [[ -e $pid ]]; then kill "$(cat "$pid")" 2>/dev/null || true; fi
    done
    if [[ ${KEEP:-0} == 1 ]]; then say "kept $tmp"; else rm -rf "$tmp"; fi
}
trap stop_cluster EXIT

# A free TCP port at or after $1.
free_port() {
    local p=$1
    while (echo >/dev/tcp/127.0.0.1/"$p") 2>/dev/null; do p=$((p + 1)); done
    echo "$p"
}

say "starting munged, slurmctld and slurmd in $tmp"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/pid" --seed-file="$tmp/munge/seed" --log-file="$tmp/log/munged.log"
host=$(hostname -s)
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))
sed -e "s|@DIR@|$tmp|g" -e "s|@HOST@|$host|g" -e "s|@CPUS@|$(nproc)|g" \
    -e "s|@CTLD_PORT@|$ctld_port|g" -e "s|@SLURMD_PORT@|$slurmd_port|g" \
    "$root/scripts/slurm/selftest/slurm.conf.in" >"$tmp/slurm.conf"
export SLURM_CONF=$tmp/slurm.conf
slurmctld
slurmd
node_idle() { [[ $(sinfo -h -o %T 2>/dev/null) == idle ]]; }
wait_for 60 "the node coming up (see $tmp/log)" node_idle
say "cluster up: $(sinfo -h -o '%P %D node(s), %c CPUs, %T')"

# Jobs of the last submission in run folder $1.
last_array() { tail -n 1 "$1/jobs" | sed -n 's/.* array=\([0-9]*\) .*/\1/p'; }
last_merge() { tail -n 1 "$1/jobs" | sed -n 's/.* merge=\([0-9]*\)$/\1/p'; }
gone() { [[ -z $(squeue -h -j "$1" 2>/dev/null) ]]; }

# --- the match ---------------------------------------------------------
match=(match --engine "name=ab7,cmd=self,movetime=5000,option.agent='alphabeta:depth=7'"
    --engine "name=mcts,cmd=self,movetime=5000,option.agent='mcts:simulations=40000'"
    --games 200 --seed 7)
run=$tmp/match
t0=$SECONDS
"$root/scripts/slurm/submit-arena.sh" --tasks 8 --cpus 1 --dir "$run" "${match[@]}"
array=$(last_array "$run")
victim=2
log2=$run/logs/shard-$victim.jsonl
some_games() { [[ -e $log2 ]] && (($(wc -l <"$log2") >= 3)); }
wait_for 300 "task $victim logging 3 games" some_games
scancel "${array}_$victim"
say "cancelled task $victim of array job $array after $(wc -l <"$log2") of its games"
wait_for 600 "the first array and its merge ending" gone "$array,$(last_merge "$run")"
[[ ! -e $run/done/$victim ]] || fail "task $victim finished before it could be cancelled"
grep -q "shards not done: $victim " "$run/out/merge.txt" ||
    fail "the merge job did not refuse the incomplete run: $(tail -n 3 "$run/out/merge.txt")"
say "the merge job refused the incomplete run: $(grep 'shards not done' "$run/out/merge.txt")"
kept=$(wc -l <"$log2")
"$root/scripts/slurm/rerun.sh" "$run"
wait_for 600 "the rerun and its merge ending" gone "$(last_array "$run"),$(last_merge "$run")"
grep -q "resuming: $kept games already in the log" "$run/out/task-$victim.txt" ||
    fail "the rerun of task $victim did not resume from its log"
[[ -e $run/results.txt ]] || fail "no results after the rerun: $(tail -n 5 "$run/out/merge.txt")"
match_wall=$((SECONDS - t0))
say "match on the cluster: 8 tasks, $(cat "$run"/logs/*.jsonl | wc -l) games, ${match_wall} s wall; task $victim resumed from $kept games"

say "the same match without Slurm or shards"
"$arena" "${match[@]}" --log "$tmp/whole.jsonl" --summary "$tmp/whole.json" >"$tmp/whole.txt"
python3 - "$tmp/whole.jsonl" "$run"/logs/*.jsonl <<'PY' || fail "the merged match differs from the unsharded one"
import json, sys
def games(paths):
    out = {}
    for path in paths:
        for line in open(path):
            g = json.loads(line)
            out[g["game"]] = (g["first"], g["second"], g["opening"], g["moves"], g["result"], g["reason"])
    return out
whole, merged = games(sys.argv[1:2]), games(sys.argv[2:])
differ = [n for n in sorted(set(whole) | set(merged)) if whole.get(n) != merged.get(n)]
print(f"{len(whole)} games unsharded, {len(merged)} merged, {len(differ)} differ {differ[:10]}")
sys.exit(1 if differ or len(whole) != 200 else 0)
PY
# The results of the two tables: score, Elo, pairs, and each engine's row
# without its time per move (which differs from run to run).
scores() {
    grep -E '^ab7 vs mcts: [+]|^  (Elo|pairs)' "$1"
    grep -E '^(ab7|mcts) +[0-9]' "$1" | awk '{$5 = ""; print}'
}
diff <(scores "$tmp/whole.txt") <(scores "$run/results.txt") || fail "the score tables differ"

# --- the book ------------------------------------------------------------
book=$tmp/book
t0=$SECONDS
"$root/scripts/slurm/submit-book.sh" --tasks 3 --rules 5x4x4 --depth 7 --hash-mb 16 --dir "$book"
# Each ply's merge job submits the next ply before it ends, so the queue
# stays busy until the book is done (or a job failed).
queue_empty() { [[ -z $(squeue -h) ]]; }
wait_for 600 "the book's jobs ending" queue_empty
book_wall=$((SECONDS - t0))
complete=$("$c4" book stats "$book/book.c4book" | sed -n 's/^complete to ply //p')
((complete == 7)) || fail "the book stopped at ply $complete: $(tail -n 3 "$book/out/merge.txt")"
say "book on the cluster: $(wc -l <"$book/jobs") plies of 3 tasks, ${book_wall} s wall"
"$c4" book build --out "$tmp/whole.c4book" --rules 5x4x4 --depth 7 --hash-mb 16 >/dev/null
cmp "$tmp/whole.c4book" "$book/book.c4book" || fail "the sharded book differs from the unsharded one"

say "merged equals unsharded: yes (200 games, each the same; the book byte for byte)"
say "passed in $((SECONDS - started)) s"
