#!/usr/bin/env bash
# Tests the Slurm scripts' logic without a cluster, with the stand-ins in
# scripts/slurm/fake/ (sbatch runs each job at once): a 24-game match as 3
# tasks of which one is "killed" (skipped), the merge refusing, rerun.sh
# finishing it, and a 5x4x4 book (the losing sides' trees to ply 5) built
# to ply 6 in 3 shards a ply; both compared with the same work done without
# shards, and a class of 3 submissions graded in 2 tasks with a rerun.
# Part of the tests (scripts/test); selftest.sh
# does the same on a real one-node cluster.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
arena=${CONNECT4_ARENA:-$root/target/debug/connect4-arena}
c4=${CONNECT4:-$root/target/debug/connect4}
for b in "$arena" "$c4"; do
    [[ -x $b ]] || { echo "test-without-slurm: $b is missing: cargo build --workspace first" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/c4-fake-slurm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PATH=$root/scripts/slurm/fake:$PATH FAKE_SLURM_STATE=$tmp/slurm
fail() {
    echo "test-without-slurm: FAILED: $*" >&2
    exit 1
}

match=(match --engine "name=ab3,cmd=self,option.agent='alphabeta:depth=3'"
    --engine "name=mcts,cmd=self,option.agent='mcts:simulations=300'" --games 24 --seed 3)
run=$tmp/match
FAKE_SBATCH_SKIP=2 "$root/scripts/slurm/submit-arena.sh" --tasks 3 --dir "$run" --arena "$arena" \
    "${match[@]}" >"$tmp/submit.txt"
[[ ! -e $run/done/2 && ! -e $run/results.txt ]] || fail "the skipped task 2 counted as done"
grep -q "shards not done: 2 " "$run/out/merge.txt" || fail "the merge did not refuse: $(cat "$run/out/merge.txt")"
"$root/scripts/slurm/rerun.sh" "$run" >"$tmp/rerun.txt"
grep -q "rerunning tasks 2 of" "$tmp/rerun.txt" || fail "rerun.sh did not pick task 2: $(cat "$tmp/rerun.txt")"
[[ -e $run/results.txt ]] || fail "no results after the rerun: $(cat "$run/out/merge.txt")"
# The same command again is a resume; another one in the same folder is refused.
"$root/scripts/slurm/submit-arena.sh" --tasks 3 --dir "$run" --arena "$arena" "${match[@]}" >"$tmp/again.txt"
grep -q "resuming the run" "$tmp/again.txt" || fail "submitting the same command again did not resume"
if "$root/scripts/slurm/submit-arena.sh" --tasks 3 --dir "$run" --arena "$arena" \
    "${match[@]}" --seed 4 2>"$tmp/err.txt"; then
    fail "another command in the same folder was accepted"
fi
grep -q "holds a run of another command" "$tmp/err.txt" || fail "unclear refusal: $(cat "$tmp/err.txt")"
# A bad engine path fails at submission, with the arena's message.
if "$root/scripts/slurm/submit-arena.sh" --tasks 3 --dir "$tmp/bad" --arena "$arena" \
    match --engine name=x,cmd=/no/such/engine --engine name=y,cmd=self 2>"$tmp/err.txt" >/dev/null; then
    fail "a missing engine was submitted"
fi
grep -q "does not start" "$tmp/err.txt" || fail "unclear refusal: $(cat "$tmp/err.txt")"

"$arena" "${match[@]}" --log "$tmp/whole.jsonl" >"$tmp/whole.txt" 2>/dev/null
key() { grep -ho '"game":[0-9]*,.*"reason":"[^"]*"' "$@" | sed 's/"detail":"[^"]*",//' | sort; }
diff <(key "$tmp/whole.jsonl") <(key "$run"/logs/*.jsonl) >/dev/null ||
    fail "the merged games differ from the unsharded run"
[[ $(key "$tmp/whole.jsonl" | wc -l) == 24 ]] || fail "the unsharded run did not play 24 games"

book=$tmp/book
"$root/scripts/slurm/submit-book.sh" --tasks 3 --rules 5x4x4 --depth 6 --hash-mb 16 \
    --deviations 5 --dir "$book" --connect4 "$c4" >"$tmp/book.txt"
grep -q "complete to ply 6: done" "$book/out/merge.txt" || fail "the book did not reach ply 6: $(tail -n 3 "$book/out/merge.txt")"
"$c4" book build --out "$tmp/whole.c4book" --rules 5x4x4 --depth 6 --hash-mb 16 --deviations 5 \
    >/dev/null 2>&1
stats=$("$c4" book stats "$book/book.c4book")
grep -q "losing sides' trees to ply 5" <<<"$stats" ||
    fail "the book does not record its deviations: $(head -n 4 <<<"$stats")"
cmp -s "$tmp/whole.c4book" "$book/book.c4book" || fail "the sharded book differs from the unsharded one"

# A layer in 3 shards: every position known, and a sample re-solved agrees.
layer=$tmp/layer
"$root/scripts/slurm/submit-book.sh" --tasks 3 --rules 5x4x4 --layer 8 --hash-mb 16 \
    --dir "$layer" --connect4 "$c4" >"$tmp/layer.txt"
grep -q "layer of ply 8: done" "$layer/out/merge.txt" || fail "the layer was not merged: $(tail -n 3 "$layer/out/merge.txt")"
line=$("$c4" book stats --coverage "$layer/book.c4book" | grep "^layer of ply 8:")
[[ $line =~ ^layer\ of\ ply\ 8:\ ([0-9]+)\ of\ the\ ([0-9]+)\ positions && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] ||
    fail "the merged layer is not whole: $line"
"$c4" book verify "$layer/book.c4book" --layer 8 --sample 100 --hash-mb 16 | grep -q "100 positions re-solved .*: 0 disagree" ||
    fail "the merged layer disagrees with the solver"
# A class of 3 graded in 2 tasks, one "killed": the last job refuses, the
# rerun grades the rest, and the class's CSV has every student.
class=$tmp/class
for s in alice bob carol; do
    mkdir -p "$class/subs/$s"
    printf '#!/bin/sh\nexec %q engine\n' "$arena" >"$class/subs/$s/engine"
    chmod +x "$class/subs/$s/engine"
done
rm -f "$FAKE_SLURM_STATE/skipped"
FAKE_SBATCH_SKIP=2 "$root/scripts/slurm/submit-grading.sh" --tasks 2 --dir "$class/run" --arena "$arena" \
    --submissions "$class/subs" --games 2 --match-games 2 --tactics 1 --no-isolation >"$tmp/grading.txt"
grep -q "shards not done: 2 " "$class/run/out/merge.txt" || fail "the class's last job did not refuse: $(cat "$class/run/out/merge.txt")"
"$root/scripts/slurm/rerun.sh" "$class/run" >"$tmp/rerun-grading.txt"
[[ $(wc -l <"$class/run/grades/grades.csv") == 4 ]] ||
    fail "the class's CSV does not have its 3 students: $(cat "$class/run/grades/grades.csv" "$class/run/out/merge.txt")"
[[ -e $class/run/grades/index.html ]] || fail "no class page"

# A league on Slurm: the anchors' calibration, then a ladder round, each
# step played in 2 tasks (one "killed" in the round, then rerun) and
# recorded once; the ratings are every game replayed once.
league=$tmp/league
for s in alice bob; do
    mkdir -p "$league/drop/$s"
done
# As root the league's tasks contain each student: their users must pass
# through the scratch folder and run the engine from it (a clone may lie
# in a folder closed to them). Otherwise the league is told so in words.
student_c4=$c4
if [[ $(id -u) == 0 ]]; then
    chmod 711 "$tmp"
    cp "$c4" "$tmp/connect4"
    student_c4=$tmp/connect4
fi
printf '#!/bin/sh\nexec %q --agent greedy\n' "$student_c4" >"$league/drop/alice/engine"
printf '#!/bin/sh\nexec %q --agent random\n' "$student_c4" >"$league/drop/bob/engine"
chmod +x "$league"/drop/*/engine
printf '[submission]\nkind = "engine"\n\n[time]\nmove_ms = 20\n' >"$league/league.toml"
lopts=(--dir "$league/l" --submissions "$league/drop" --config "$league/league.toml" --calibration-pairs 1)
if [[ $(id -u) != 0 ]]; then
    lopts+=(--no-isolation)
fi
"$root/scripts/slurm/submit-league.sh" --tasks 2 --dir "$league/step1" --arena "$arena" -- "${lopts[@]}" >"$tmp/league1.txt"
grep -q "12 game(s) recorded" "$league/step1/out/merge.txt" || fail "the calibration was not recorded: $(cat "$league/step1/out/merge.txt")"
rm -f "$FAKE_SLURM_STATE/skipped"
FAKE_SBATCH_SKIP=2 "$root/scripts/slurm/submit-league.sh" --tasks 2 --dir "$league/step2" --arena "$arena" -- "${lopts[@]}" >"$tmp/league2.txt"
grep -q "shards not done: 2 " "$league/step2/out/merge.txt" || fail "the league's last job did not refuse: $(cat "$league/step2/out/merge.txt")"
"$root/scripts/slurm/rerun.sh" "$league/step2" >"$tmp/rerun-league.txt"
exported=$(wc -l <"$league/step2/games.jsonl")
grep -q "$exported game(s) recorded, 0 left out" "$league/step2/out/merge.txt" ||
    fail "the round was not recorded whole: $(cat "$league/step2/out/merge.txt")"
status=$("$arena" league --dir "$league/l" --status)
grep -q "the ratings are the $exported ladder games replayed in order: each counted once" <<<"$status" ||
    fail "the league's ratings are not its games counted once: $status"
# Recording the same results again counts nothing twice.
"$arena" league "${lopts[@]}" --record "$league"/step2/results/*.jsonl >"$tmp/again.txt"
grep -q "0 game(s) recorded, $exported left out" "$tmp/again.txt" || fail "results recorded twice: $(cat "$tmp/again.txt")"

echo "test-without-slurm: passed (24 games merged = unsharded after a rerun; a 5x4x4 book to ply 6, the losing sides' trees to 5, in shards = unsharded; its layer of ply 8 in shards, whole and agreeing; a class of 3 graded in 2 tasks after a rerun; a league's calibration and round in 2 tasks, recorded once after a rerun)"
