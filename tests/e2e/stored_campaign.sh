#!/usr/bin/env bash
# scripts/stored-campaign.sh end to end, on a machine that "goes away" twice:
# a store pinned to HEAD is built from its commit, its campaign is killed
# after the first checkpoint, saved and the work directory deleted; run again
# from the store alone, run 0 continues from the saved checkpoint, and the
# campaign is stopped (`stop`: SIGTERM, checkpoint, save) during run 1 and run
# once more; both runs end bit for bit like uninterrupted runs of the pinned
# build; saved again and restored on an empty work directory, every run is
# reused.
# usage: stored_campaign.sh SHARD SOURCE_DIR BUILD_DIR (needs git)
set -uo pipefail
src=$(cd "$2" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
. "$src/tests/e2e/lib/kill.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the source tree as it is (uncommitted changes included) in a repository of
# the test's own: the store pins its HEAD, and the worktree the script adds
# stays out of the developer's repository
repo=$T/repo
mkdir -p "$repo"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./out -cf - . | tar -C "$repo" -xf - || fail "copy of $src"
git -C "$repo" init -q && git -C "$repo" add -A &&
  git -C "$repo" -c user.name=shard-test -c user.email=test@shard.invalid commit -qm "tree under test" || fail "git repository of the tree"
commit=$(git -C "$repo" rev-parse HEAD)
export SHARD_PIN_ROOT=$T/pin SHARD_WORK_ROOT=$T/work
sc="$repo/scripts/stored-campaign.sh"
store=$T/results/stored
work=$T/work/stored
strip() { awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="wall_time"||$i=="host"||$i ~ /^wall_time\./||$i ~ /^cpu_time\./||$i=="restarts") d[i]=1}
  {o="";for(i=1;i<=NF;i++) if(!d[i]) o=o (o==""?"":",") $i; print o}' "$1"; }

"$sc" new "$store" tests/cases/fracture/stored_campaign.yaml HEAD >/dev/null || fail "new"
grep -qx "commit: $commit" "$store/pin" && grep -qx "campaign: tests/cases/fracture/stored_campaign.yaml" "$store/pin" ||
  fail "pin: $(cat "$store/pin")"
out=$("$sc" new "$store" tests/cases/fracture/stored_campaign.yaml 2>&1) && fail "a second new over a pin succeeded"
grep -q "pin exists" <<<"$out" || fail "second new: $out"
out=$("$sc" new "$T/results/x" tests/cases/nowhere.yaml 2>&1) && fail "new with a missing campaign succeeded"
grep -q "not in commit" <<<"$out" || fail "missing campaign: $out"

# first machine: killed after the first checkpoint of run 0
kill_after_checkpoint "$work/runs/0000" "$sc" run "$store" -j 1
out=$("$sc" save "$store") || fail "save"
grep -q "^$store: 0 runs ok, 0 failed, 1 to continue from a checkpoint; " <<<"$out" || fail "save says: $out"
[ -f "$store/runs/0000/checkpoint.bin.gz" ] && [ -f "$store/runs/0000/run.key" ] || fail "save kept no checkpoint: $(ls -A "$store/runs/0000")"
[ ! -e "$store/runs/0000/checkpoint.bin" ] || fail "an uncompressed checkpoint in the store"

# second machine: only the store
rm -rf "$T/work"
plan=$("$sc" status "$store") || fail "status"
grep -q "^# .*/runs/0000: continues from its checkpoint at step " <<<"$plan" || fail "status: $plan"
# the session ends while run 1 is going: stop signals the campaign, which
# checkpoints run 1 at its current step, and saves
"$sc" run "$store" -j 1 >/dev/null 2>&1 &
runner=$!
for _ in $(seq 1 12000); do
  [ "$(stat -c %s "$work/runs/0001/.history.csv.partial" 2>/dev/null || echo 0)" -ge 20000 ] && break
  kill -0 "$runner" 2>/dev/null || break
  sleep 0.01
done
kill -0 "$runner" 2>/dev/null || fail "the campaign ended before it could be stopped; make run 1 longer"
out=$("$sc" run "$store" -j 1 2>&1) && fail "a second campaign started on the same work directory: $out"
grep -q "its campaign already runs here (pid $runner); stop it first" <<<"$out" || fail "second run says: $out"
out=$("$sc" stop "$store") || fail "stop: $out"
wait "$runner"
grep -q "^$store: campaign $runner stopped$" <<<"$out" && grep -q "^$store: 1 runs ok, 0 failed, 1 to continue from a checkpoint; " <<<"$out" ||
  fail "stop says: $out"
[ -f "$store/runs/0001/checkpoint.bin.gz" ] && [ ! -e "$work/.campaign.pid" ] || fail "stop: $(ls -A "$store/runs/0001" "$work")"
# the checkpoint is of the step the signal ended: no history row after it and
# no row due before it missing. Rows come every 20 steps (output.every of
# expanding.yaml) and at events; the step the signal ended gets no row of its
# own (the continued history must equal the straight run's, compared below),
# so the last row is that step or up to 19 steps before it.
last=$(gzip -dc "$store/runs/0001/.history.csv.partial.gz" | tail -n1 | cut -d, -f1)
plan=$("$sc" status "$store") || fail "status after stop"
step=$(sed -n 's|^# .*/runs/0001: continues from its checkpoint at step \([0-9][0-9]*\)$|\1|p' <<<"$plan")
[ -n "$step" ] && [ "$last" -ge 0 ] 2>/dev/null && [ "$step" -ge "$last" ] && [ "$step" -lt $((last + 20)) ] ||
  fail "stop: checkpoint at step '$step', last history row at step $last: $plan"
out=$("$sc" stop "$store") || fail "stop with nothing running: $out"
grep -q "^$store: no campaign of this store runs on this machine$" <<<"$out" || fail "stop with nothing running says: $out"
"$sc" run "$store" -j 1 >/dev/null 2>&1 || fail "run from the store"
[ "$(awk -F, 'NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c["status"]=="ok"' "$work/campaign.csv" | wc -l)" -eq 2 ] || fail "table: $(cat "$work/campaign.csv")"
grep -qx 'restarts: 1' "$work/runs/0000/summary.yaml" || fail "run 0 did not continue from the saved checkpoint"
grep -qx 'restarts: 1' "$work/runs/0001/summary.yaml" || fail "run 1 did not continue from the checkpoint of its stop"
# against the pinned build run straight through
pinned="$T/pin/$commit"
"$pinned/install/bin/shard" campaign "$pinned/src/tests/cases/fracture/stored_campaign.yaml" -o "$T/direct" --no-progress >/dev/null ||
  fail "direct campaign"
for r in 0000 0001; do
  for f in history.csv interfaces.csv fragments.csv; do
    cmp "$T/direct/runs/$r/$f" "$work/runs/$r/$f" || fail "$f of the continued run $r differs"
  done
done
diff <(strip "$T/direct/campaign.csv") <(strip "$work/campaign.csv") || fail "table differs from the straight run"

# third machine: everything done, nothing runs again
out=$("$sc" save "$store") || fail "second save"
grep -q "^$store: 2 runs ok, 0 failed, 0 to continue from a checkpoint; " <<<"$out" || fail "second save says: $out"
[ ! -e "$store/runs/0000/checkpoint.bin.gz" ] || fail "a finished run kept its checkpoint in the store"
[ -f "$store/runs/0000/history.csv.gz" ] && [ -f "$store/campaign.csv" ] || fail "store after the end: $(ls -A "$store" "$store/runs/0000")"
rm -rf "$T/work"
plan=$("$sc" status "$store") || fail "status after the end"
grep -q "; --resume: 2 done, 0 to continue from a checkpoint, 0 to start$" <<<"$plan" || fail "final status: $plan"
out=$("$sc" run "$store" -j 1 2>&1) || fail "rerun: $out"
grep -q "(2 reused)" <<<"$out" || fail "rerun: $out"
cmp <(gzip -dc "$store/runs/0001/history.csv.gz") "$work/runs/0001/history.csv" || fail "restored history differs"
echo PASS
