#!/usr/bin/env bash
# A fragmentation run (NSN, insertions) killed with SIGKILL after its first
# checkpoint and continued with `shard run --restart DIR` ends bit for bit
# like the uninterrupted run: same history.csv, interfaces.csv, fragments.csv
# and summary (wall times aside).
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/tests/cases/fracture/expanding.yaml"
sets=(--set model.elements=2000 --set time.checkpoint_every=400 --no-progress)

"$shard" run "$case" -o "$tmp/full" "${sets[@]}" >/dev/null

kill_after_checkpoint "$tmp/killed" "$shard" run "$case" -o "$tmp/killed" "${sets[@]}"
[ ! -f "$tmp/killed/history.csv" ] || { echo "FAIL: history.csv published by a killed run"; exit 1; }

"$shard" run --restart "$tmp/killed" --no-progress >/dev/null
for f in history.csv interfaces.csv fragments.csv; do
  cmp "$tmp/full/$f" "$tmp/killed/$f" || { echo "FAIL: $f differs after restart"; exit 1; }
done
strip() { grep -vE '^(\s+(total|setup|loop|per_step)|restarts):' "$1"; }
diff <(strip "$tmp/full/summary.yaml") <(strip "$tmp/killed/summary.yaml") || { echo "FAIL: summary differs"; exit 1; }
grep -qx 'restarts: 1' "$tmp/killed/summary.yaml" || { echo "FAIL: summary does not count the restart"; exit 1; }
grep -q '^restarts:' "$tmp/full/summary.yaml" && { echo "FAIL: restarts in an uninterrupted run"; exit 1; }
# the loop's CPU time is not checkpointed: a number in one attempt, ~ after a restart
grep -A2 '^cpu_time:' "$tmp/full/summary.yaml" | grep -Eq '^  loop: [0-9]+\.[0-9]{6}$' ||
  { echo "FAIL: no cpu_time.loop in the uninterrupted run"; exit 1; }
grep -A2 '^cpu_time:' "$tmp/killed/summary.yaml" | grep -qx '  loop: ~' ||
  { echo "FAIL: cpu_time.loop after a restart is not ~"; exit 1; }
steps=$(grep -m1 '^steps:' "$tmp/full/summary.yaml")
echo "restart: bit-for-bit identical ($steps, killed after the first checkpoint)"

# a restart of a directory without a checkpoint is bad input
mkdir -p "$tmp/empty"; cp "$tmp/full/case.resolved.yaml" "$tmp/empty/"
set +e
"$shard" run --restart "$tmp/empty" >/dev/null 2>"$tmp/err"; code=$?
set -e
[ "$code" -eq 2 ] || { echo "FAIL: restart without checkpoint exited $code"; cat "$tmp/err"; exit 1; }
grep -q "no checkpoint in" "$tmp/err" || { echo "FAIL: message"; cat "$tmp/err"; exit 1; }
same_run() { # DIR [REF]: the same outputs as the uninterrupted run REF (default $tmp/full)
  local ref=${2:-$tmp/full}
  for f in history.csv interfaces.csv fragments.csv; do
    cmp "$ref/$f" "$1/$f" || { echo "FAIL: $1/$f differs from the uninterrupted run"; exit 1; }
  done
  diff <(strip "$ref/summary.yaml") <(strip "$1/summary.yaml") || { echo "FAIL: $1 summary differs"; exit 1; }
}
one_run_campaign() { # FILE CHECKPOINT_EVERY: a campaign of the case's one run at seed 3
  printf 'base: %s\nset: {model.elements: 2000, time.checkpoint_every: %s}\nsweep:\n  fracture.strength.seed: [3]\n' "$case" "$2" >"$1"
}

# --resume continues a killed run from its checkpoint (same case and --set)
kill_after_checkpoint "$tmp/r" "$shard" run "$case" -o "$tmp/r" "${sets[@]}"
out=$("$shard" run "$case" -o "$tmp/r" "${sets[@]}" --resume)
same_run "$tmp/r"
grep -qx 'restarts: 1' "$tmp/r/summary.yaml" || { echo "FAIL: --resume did not continue from the checkpoint"; exit 1; }
grep -Eq "^$tmp/r: continued from the checkpoint at step [1-9][0-9]*$" <<<"$out" || { echo "FAIL: message: $out"; exit 1; }
# ... and starts over when there is nothing to continue: an empty directory,
# a finished run (its history is published), or a checkpoint of another run
out=$("$shard" run "$case" -o "$tmp/fresh" "${sets[@]}" --resume)
same_run "$tmp/fresh"
grep -q "^$tmp/fresh: no checkpoint of this run in it, started from the beginning$" <<<"$out" || { echo "FAIL: message: $out"; exit 1; }
"$shard" run "$case" -o "$tmp/r" "${sets[@]}" --resume >/dev/null
same_run "$tmp/r"
grep -q '^restarts:' "$tmp/r/summary.yaml" && { echo "FAIL: --resume continued a finished run"; exit 1; }
kill_after_checkpoint "$tmp/o" "$shard" run "$case" -o "$tmp/o" "${sets[@]}" --set model.perturbation=0.3
"$shard" run "$case" -o "$tmp/o" "${sets[@]}" --resume >/dev/null
same_run "$tmp/o"
grep -q '^restarts:' "$tmp/o/summary.yaml" && { echo "FAIL: --resume continued another run's checkpoint"; exit 1; }
# a fresh start removes an earlier checkpoint: killed before checkpointing
# itself, it leaves nothing that another run's --resume would continue onto
# this run's partial history
kill_after_checkpoint "$tmp/s" "$shard" run "$case" -o "$tmp/s" "${sets[@]}" --set model.perturbation=0.3
"$shard" run "$case" -o "$tmp/s" "${sets[@]}" --set time.checkpoint_every=0 --set time.end=1e-9 >/dev/null
[ ! -e "$tmp/s/checkpoint.bin" ] || { echo "FAIL: a fresh start kept another run's checkpoint"; exit 1; }
echo "run --resume: continues its own checkpoint bit for bit, starts over otherwise"

# SIGTERM: the step in progress ends, a checkpoint is written there (none is
# due: checkpoint_every exceeds the run) and --resume continues from it
nock=(--set model.elements=2000 --set time.checkpoint_every=100000 --no-progress)
"$shard" run "$case" -o "$tmp/full2" "${nock[@]}" >/dev/null
signal_after_rows TERM "$tmp/t/.history.csv.partial" "$shard" run "$case" -o "$tmp/t" "${nock[@]}"
[ "$status" -eq 143 ] || { echo "FAIL: SIGTERM: exit status $status, expected 143"; exit 1; }
[ -f "$tmp/t/checkpoint.bin" ] && [ ! -e "$tmp/t/summary.yaml" ] && [ ! -e "$tmp/t/history.csv" ] ||
  { echo "FAIL: SIGTERM left $(ls -A "$tmp/t")"; exit 1; }
out=$("$shard" run "$case" -o "$tmp/t" "${nock[@]}" --resume)
grep -Eq "^$tmp/t: continued from the checkpoint at step [1-9][0-9]*$" <<<"$out" || { echo "FAIL: after SIGTERM: $out"; exit 1; }
same_run "$tmp/t" "$tmp/full2"
# SIGINT on a run without checkpoints: its outputs up to that step, status stopped
signal_after_rows INT "$tmp/i/.history.csv.partial" "$shard" run "$case" -o "$tmp/i" --set model.elements=2000 --no-progress
[ "$status" -eq 130 ] || { echo "FAIL: SIGINT: exit status $status, expected 130"; exit 1; }
grep -qx 'status: stopped' "$tmp/i/summary.yaml" && grep -Eq '^message: "stopped on request after step [1-9][0-9]* ' "$tmp/i/summary.yaml" ||
  { echo "FAIL: SIGINT summary: $(head -3 "$tmp/i/summary.yaml")"; exit 1; }
last=$(tail -1 "$tmp/i/history.csv" | cut -d, -f1)
grep -qx "steps: $last" "$tmp/i/summary.yaml" || { echo "FAIL: SIGINT: history ends at step $last, summary says $(grep '^steps:' "$tmp/i/summary.yaml")"; exit 1; }
cmp <(head -n "$(wc -l <"$tmp/i/history.csv")" "$tmp/full/history.csv" | head -n -1) <(head -n -1 "$tmp/i/history.csv") ||
  { echo "FAIL: SIGINT: the history before the stop differs from the full run's"; exit 1; }
echo "signals: a checkpoint at the step of a SIGTERM, outputs so far on a SIGINT"

# a campaign killed while a run is between checkpoints: --resume continues that run
one_run_campaign "$tmp/c.yaml" 400
kill_after_checkpoint "$tmp/c/runs/0000" "$shard" campaign "$tmp/c.yaml" -o "$tmp/c" -j 1 --no-progress
# --dry-run --resume says what resuming would do
plan=$("$shard" campaign "$tmp/c.yaml" -o "$tmp/c" --dry-run --resume)
grep -Eq "^# $tmp/c/runs/0000: continues from its checkpoint at step [1-9][0-9]*$" <<<"$plan" &&
  grep -q -- "--resume$" <<<"$plan" && grep -q "1 run, all valid cases; --resume: 0 done, 1 to continue from a checkpoint, 0 to start" <<<"$plan" ||
  { echo "FAIL: dry run before resuming:"; echo "$plan"; exit 1; }
"$shard" campaign "$tmp/c.yaml" -o "$tmp/c" -j 1 --no-progress --resume >/dev/null
grep -qx 'restarts: 1' "$tmp/c/runs/0000/summary.yaml" || { echo "FAIL: the campaign run started over"; exit 1; }
same_run "$tmp/c/runs/0000"
plan=$("$shard" campaign "$tmp/c.yaml" -o "$tmp/c" --dry-run --resume)
grep -q "^# $tmp/c/runs/0000: done$" <<<"$plan" && grep -q -- "--resume: 1 done, 0 to continue from a checkpoint, 0 to start" <<<"$plan" ||
  { echo "FAIL: dry run after resuming:"; echo "$plan"; exit 1; }
grep -q ',ok,' "$tmp/c/campaign.csv" || { echo "FAIL: campaign table"; cat "$tmp/c/campaign.csv"; exit 1; }
# a campaign stopped by SIGTERM passes it on: its run checkpoints at the step
# it was in (none was due), and --resume continues from there
one_run_campaign "$tmp/c2.yaml" 100000
signal_after_rows TERM "$tmp/c2/runs/0000/.history.csv.partial" "$shard" campaign "$tmp/c2.yaml" -o "$tmp/c2" -j 1 --no-progress
[ "$status" -eq 1 ] || { echo "FAIL: a campaign stopped by SIGTERM exited $status"; exit 1; }
plan=$("$shard" campaign "$tmp/c2.yaml" -o "$tmp/c2" --dry-run --resume)
grep -Eq "^# $tmp/c2/runs/0000: continues from its checkpoint at step [1-9][0-9]*$" <<<"$plan" ||
  { echo "FAIL: the stopped campaign's run has no checkpoint: $plan"; exit 1; }
"$shard" campaign "$tmp/c2.yaml" -o "$tmp/c2" -j 1 --no-progress --resume >/dev/null
same_run "$tmp/c2/runs/0000" "$tmp/full2"
echo "restart: PASS"
