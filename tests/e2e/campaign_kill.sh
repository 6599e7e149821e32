#!/bin/bash
# e2e: a campaign killed outright (SIGKILL to the campaign process alone)
# takes its runs with it — none survives to go on writing its directory —
# and an immediate --resume continues them from their checkpoints to the
# end, every history.csv with its steps strictly increasing (one writer).
# usage: campaign_kill.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"
trap 'kill -KILL -- -$pid 2>/dev/null; rm -rf "$T"' EXIT
pid=0

# four runs of 60 steps, 0.1 s each, a checkpoint every 5 steps; two at a time
cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.step_sleep: 0.1, time.end: 0.06, time.checkpoint_every: 5}
sweep:
  integrator.run: [0, 1, 2, 3]
YAML
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/k" -j 2 --no-progress >"$T/k.log" 2>&1 &
pid=$!
wait_for "$T/k/runs/0001/checkpoint.bin"
sleep 0.3
pgrep -f -- "-o $T/k/runs/" >/dev/null || fail "no run process to kill"
{ kill -KILL $pid; wait $pid; } 2>/dev/null
# the runs die with the campaign: within 2 s, not when they end (6 s each)
for _ in $(seq 20); do pgrep -f -- "-o $T/k/runs/" >/dev/null || break; sleep 0.1; done
left=$(pgrep -af -- "-o $T/k/runs/")
[ -z "$left" ] || fail "runs survived the campaign's SIGKILL: $left"
[ ! -e "$T/k/runs/0000/result.yaml" ] || fail "run 0 finished before the kill (the runs are too fast)"
# an immediate resume: each run continues from its checkpoint, one writer per directory
out=$("$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/k" -j 2 --resume --no-progress 2>&1) ||
  fail "resume after the kill: $out"
grep -q "campaign c: 4 ok, 0 failed of 4 runs" <<<"$out" || fail "resume: $out"
grep -q "continued from the checkpoint at step" "$T/k/runs/0000/stdout.txt" || fail "run 0 did not continue: $(cat "$T/k/runs/0000/stdout.txt")"
for i in 0 1 2 3; do
  h=$T/k/runs/000$i/history.csv
  [ -s "$h" ] || fail "run $i: no history.csv"
  bad=$(awk -F, 'NR > 1 && NR > 2 && $1 <= prev {print NR": step "$1" after "prev} NR > 1 {prev = $1}' "$h")
  [ -z "$bad" ] || fail "run $i: steps not increasing in history.csv: $bad"
  [ "$(tail -n +2 "$h" | wc -l)" -eq 61 ] || fail "run $i: $(tail -n +2 "$h" | wc -l) history rows, expected 61 (steps 0-60)"
  [ "$(cell "$T/k/campaign.csv" $i steps)" = 60 ] || fail "run $i: steps $(cell "$T/k/campaign.csv" $i steps)"
done

# SIGTERM to the campaign: its runs stop at the step they are in, write a
# checkpoint there, and the table says so for each
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/t" -j 2 --no-progress >"$T/t.log" 2>&1 &
pid=$!
wait_for "$T/t/runs/0001/checkpoint.bin"
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 1 ] || fail "exit code $rc after SIGTERM, expected 1"
left=$(pgrep -af -- "-o $T/t/runs/")
[ -z "$left" ] || fail "runs survived the campaign's SIGTERM: $left"
grep -q "interrupted; 0 of 4 runs finished, 2 stopped part-way (resume with --resume)" "$T/t.log" || fail "log: $(cat "$T/t.log")"
for i in 0 1; do
  [ "$(cell "$T/t/campaign.csv" $i status)" = interrupted ] || fail "run $i after SIGTERM: $(cell "$T/t/campaign.csv" $i status)"
  grep -q "^stopped with the campaign (SIGTERM); --resume continues it from its checkpoint at step [1-9][0-9]*$" \
    <<<"$(cell "$T/t/campaign.csv" $i message)" || fail "run $i message: $(cell "$T/t/campaign.csv" $i message)"
done
[ "$(tail -n +2 "$T/t/campaign.csv" | wc -l)" -eq 2 ] || fail "rows after SIGTERM: $(cut -d, -f1,3 "$T/t/campaign.csv")"
echo PASS
