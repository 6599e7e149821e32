#!/bin/bash
# e2e: --resume after a kill re-runs only the unfinished runs — after a hard
# kill (SIGKILL of the whole process group) and after a clean stop (SIGTERM:
# children stopped, the table of what finished written, the stopped run a row
# with status interrupted) — and the final table equals a fresh run's in
# every column but wall time and host.
# usage: campaign_resume.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"
trap 'kill -KILL -- -$pid 2>/dev/null; rm -rf "$T"' EXIT
pid=0

cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.sleep_at: 3, integrator.sleep: 3}
sweep:
  integrator.run: [0, 1, 2, 3, 4, 5]
statistics: {over: integrator.run, columns: [steps]}
YAML
run() { "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" --no-progress "$@"; }

# 1. hard kill while run 3 sleeps
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/a" -j 1 --no-progress >"$T/a.log" 2>&1 &
pid=$!
wait_for "$T/a/runs/0002/result.yaml"
sleep 0.5
kill -KILL -- -$pid
wait $pid 2>/dev/null
for i in 0 1 2; do [ -f "$T/a/runs/000$i/result.yaml" ] || fail "run $i unfinished"; done
[ ! -e "$T/a/runs/0003/result.yaml" ] || fail "run 3 finished before the kill"
for i in 0 1 2; do stamp[$i]=$(stat -c %.9Y "$T/a/runs/000$i/result.yaml" "$T/a/runs/000$i/summary.yaml"); done
out=$(run -o "$T/a" -j 1 --resume 2>&1) || fail "resume failed: $out"
echo "$out"
grep -q "campaign c: 6 ok, 0 failed of 6 runs (3 reused)" <<<"$out" || fail "resume did not reuse exactly runs 0-2"
for i in 0 1 2; do
  [ "${stamp[$i]}" = "$(stat -c %.9Y "$T/a/runs/000$i/result.yaml" "$T/a/runs/000$i/summary.yaml")" ] || fail "run $i ran again"
done
[ "$(grep -c ',ok,' "$T/a/campaign.csv")" -eq 6 ] || fail "table after resume"
# statistics over the only swept key: one row, no group column
[ "$(cat "$T/a/statistics.csv")" = "n,failed,steps.mean,steps.std,steps.ci95,steps.min,steps.max
6,0,10,0,0,10,10" ] || fail "statistics.csv after resume: $(cat "$T/a/statistics.csv")"

# 2. a fresh run gives the same table
run -o "$T/b" -j 2 >/dev/null 2>&1 || fail "fresh run"
diff <(strip "$T/a/campaign.csv") <(strip "$T/b/campaign.csv") || fail "resumed table differs from a fresh run"

# 3. SIGTERM stops cleanly: children killed, the finished runs in the table
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/c" -j 1 --no-progress >"$T/c.log" 2>&1 &
pid=$!
wait_for "$T/c/runs/0002/result.yaml"
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
cat "$T/c.log"
[ $rc -eq 1 ] || fail "exit code $rc after SIGTERM, expected 1"
grep -q "interrupted; 3 of 6 runs finished, 1 stopped part-way (resume with --resume)" "$T/c.log" || fail "no interruption message"
# the table says what happened: runs 0-2 finished, run 3 stopped part-way
[ "$(cut -d, -f1,3 "$T/c/campaign.csv" | tr '\n' ' ')" = "index,status 0,ok 1,ok 2,ok 3,interrupted " ] ||
  fail "table after SIGTERM: $(cut -d, -f1,3 "$T/c/campaign.csv")"
[ "$(cell "$T/c/campaign.csv" 3 message)" = "stopped with the campaign (SIGTERM); --resume runs it again" ] ||
  fail "run 3 message after SIGTERM: $(cell "$T/c/campaign.csv" 3 message)"
grep -q "^status: interrupted" "$T/c/runs/0003/result.yaml" || fail "run 3 result.yaml after SIGTERM"
pgrep -f "$T/c/runs" >/dev/null && fail "a run survived the stop"
out=$(run -o "$T/c" -j 2 --resume 2>&1) || fail "resume after SIGTERM: $out"
grep -q "(3 reused)" <<<"$out" || fail "resume after SIGTERM: $out"
diff <(strip "$T/c/campaign.csv") <(strip "$T/b/campaign.csv") || fail "table after SIGTERM + resume differs"

# 3b. Ctrl-C at a terminal reaches the whole process group: the runs it kills
# are interrupted, not crashed rows
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/d" -j 1 --no-progress >"$T/d.log" 2>&1 &
pid=$!
wait_for "$T/d/runs/0002/result.yaml"
sleep 0.5
kill -INT -- -$pid
wait $pid
[ "$(cut -d, -f1,3 "$T/d/campaign.csv" | tr '\n' ' ')" = "index,status 0,ok 1,ok 2,ok 3,interrupted " ] ||
  fail "table after Ctrl-C: $(cat "$T/d/campaign.csv")"
[ "$(cell "$T/d/campaign.csv" 3 message)" = "stopped with the campaign (SIGINT); --resume runs it again" ] ||
  fail "run 3 message after Ctrl-C: $(cell "$T/d/campaign.csv" 3 message)"
grep -q crashed "$T/d/campaign.csv" "$T/d.log" && fail "a run killed by Ctrl-C was recorded as crashed"

# 3c. the table is written as runs finish (runs of a second or more: after
# each), so a hard kill keeps the rows of the runs that finished
cat > "$T/e.yaml" <<'YAML'
base: base.yaml
set: {integrator.sleep_at: 1, integrator.sleep: 1.2, integrator.hang_at: 2}
sweep:
  integrator.run: [0, 1, 2, 3]
YAML
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/e.yaml" -o "$T/e" -j 1 --no-progress >"$T/e.log" 2>&1 &
pid=$!
wait_for "$T/e/runs/0002/run.key"   # run 2 hangs: the campaign has written its table after run 1
sleep 0.3
kill -KILL -- -$pid
wait $pid 2>/dev/null
[ -f "$T/e/campaign.csv" ] || fail "no table after a hard kill of a campaign whose runs take a second"
rows=$(tail -n +2 "$T/e/campaign.csv" | cut -d, -f1 | tr '\n' ' ')
[ "$rows" = "0 1 " ] || fail "table after a hard kill: rows '$rows', expected '0 1 '"

# 4. a changed run is not reused
sed -i 's/sleep: 3/sleep: 0/' "$T/c.yaml"
out=$(run -o "$T/c" -j 2 --resume 2>&1) || fail "resume after an edit: $out"
grep -q "of 6 runs (" <<<"$out" && fail "runs with another --set list were reused: $out"
echo PASS
