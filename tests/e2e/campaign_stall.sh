#!/bin/bash
# e2e: the stall watchdog — a run that makes no step for `stall_timeout`
# seconds is killed and marked failed ("stalled: ..."), while a slow run that
# keeps making steps, longer in all than the stall time, finishes ok;
# --stall-timeout overrides the file (0: no watchdog, the time limit then
# ends the hung run), a campaign stopped (Ctrl-Z) and continued is no stall,
# and a negative stall_timeout is refused at validation.
# usage: campaign_stall.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"

# run 1 hangs in its first step; run 2 takes 10 steps of 0.5 s (5 s in all)
cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.hang_at: 1}
sweep:
  zip:
    integrator.run: [0, 1, 2]
    integrator.step_sleep: [0, 0, 0.5]
stall_timeout: 3
YAML
start=$(date +%s.%N)
out=$("$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/s" -j 3 --no-progress 2>"$T/err")
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')
cat "$T/err"
[ $rc -eq 1 ] || fail "exit code $rc, expected 1 (a run failed)"
grep -q "campaign c: 2 ok, 1 failed of 3 runs" <<<"$out" || fail "summary: $out"
awk -v t="$took" 'BEGIN{exit !(t < 30)}' || fail "the campaign took $took s: the hung run was not stopped"
csv=$T/s/campaign.csv
[ "$(cell "$csv" 1 status)" = failed ] || fail "run 1 status $(cell "$csv" 1 status)"
[ "$(cell "$csv" 1 message)" = "stalled: no step for 3 s (stall_timeout; killed)" ] || fail "run 1 message: $(cell "$csv" 1 message)"
[ "$(cell "$csv" 1 signal)" = 9 ] || fail "run 1 signal $(cell "$csv" 1 signal)"
grep -q "run 1: failed: stalled: no step for 3 s (stall_timeout; killed)" "$T/err" || fail "stall not reported"
grep -q '^status: failed' "$T/s/runs/0001/result.yaml" && grep -q 'stalled' "$T/s/runs/0001/result.yaml" ||
  fail "run 1 result.yaml: $(cat "$T/s/runs/0001/result.yaml")"
for i in 0 2; do
  [ "$(cell "$csv" $i status)" = ok ] || fail "run $i: $(cell "$csv" $i status) $(cell "$csv" $i message)"
  [ "$(cell "$csv" $i steps)" = 10 ] || fail "run $i steps"
done
awk -v w="$(cell "$csv" 2 wall_time)" 'BEGIN{exit !(w > 4)}' || fail "run 2 took $(cell "$csv" 2 wall_time) s, not longer than the stall time"

# --stall-timeout 0: no watchdog; the time limit ends the hung run
out=$("$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/t" --runs 1 --stall-timeout 0 --timeout 3 --no-progress 2>&1)
[ "$(cell "$T/t/campaign.csv" 1 status)" = timeout ] || fail "--stall-timeout 0: run 1 $(cell "$T/t/campaign.csv" 1 status): $out"
# --stall-timeout S overrides the file
out=$("$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/u" --runs 1 --stall-timeout 1 --no-progress 2>&1)
[ "$(cell "$T/u/campaign.csv" 1 message)" = "stalled: no step for 1 s (stall_timeout; killed)" ] || fail "--stall-timeout 1: $out"
err=$("$SHARD" campaign "$T/c.yaml" --stall-timeout -1 2>&1)
[ $? -eq 2 ] && grep -q "shard campaign: --stall-timeout takes seconds >= 0 (0: no watchdog), got '-1'" <<<"$err" ||
  fail "--stall-timeout -1: $err"

# a campaign stopped with its runs (Ctrl-Z: SIGTSTP to the process group) for
# longer than the stall time goes on after SIGCONT: the silence was not a stall
cat > "$T/z.yaml" <<'YAML'
base: base.yaml
set: {integrator.step_sleep: 1, time.end: 0.005}
sweep:
  integrator.run: [0, 1]
stall_timeout: 3
YAML
setsid "$SHARD" --plugin-path "$PLUGINS" campaign "$T/z.yaml" -o "$T/z" -j 2 --no-progress >"$T/z.log" 2>&1 &
pid=$!
sleep 1.6
kill -STOP -- -$pid
sleep 5
kill -CONT -- -$pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { cat "$T/z/campaign.csv" | cut -c1-150; fail "after a stop of 5 s: exit $rc: $(cat "$T/z.log")"; }
[ "$(cut -d, -f3 "$T/z/campaign.csv" | tr '\n' ' ')" = "status ok ok " ] || fail "after a stop of 5 s: $(cat "$T/z/campaign.csv")"

# validation: the key's value is checked with its position
sed -i 's/^stall_timeout: 3$/stall_timeout: -5/' "$T/c.yaml"
err=$("$SHARD" --plugin-path "$PLUGINS" validate "$T/c.yaml" 2>&1)
[ $? -eq 2 ] || fail "stall_timeout: -5 accepted"
grep -q "c.yaml:7:16: error: 'stall_timeout' must be >= 0 s (0: no watchdog), got -5" <<<"$err" || fail "message: $err"
echo PASS
