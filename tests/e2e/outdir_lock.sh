#!/usr/bin/env bash
# e2e: a run or campaign holds an exclusive lock on its output directory
# (DIR/.lock). A second run or campaign there exits 2 naming the holder and
# writes nothing; the files are the first one's alone. Slices of one campaign
# may share a directory; a whole campaign may not join them. The lock goes
# with its holder, also when it is killed with SIGKILL. A campaign never
# touches a run directory another process holds.
# usage: outdir_lock.sh SHARD SOURCE_DIR BUILD_DIR
. "$2/tests/e2e/lib/campaign.sh"
run() { "$SHARD" --plugin-path "$PLUGINS" "$@"; }
slow=(--set integrator.sleep_at=0 --set integrator.sleep=3 --no-progress)

# wait until DIR/.lock names a process (its holder has started)
held() {
  for _ in $(seq 1 1000); do
    grep -q '^pid: ' "$1/.lock" 2>/dev/null && return 0
    sleep 0.01
  done
  fail "$1/.lock never named a holder"
}
# COMMAND...: must exit 2 with "'DIR' is in use by process PID ... (WHAT" on stderr
refused() {
  local dir=$1 pid=$2 what=$3; shift 3
  local err code=0
  err=$("$@" 2>&1 >/dev/null) || code=$?
  [ "$code" -eq 2 ] || fail "'$*' into a locked directory exited $code, expected 2: $err"
  grep -qF "'$dir' is in use by process $pid on host " <<<"$err" || fail "holder not named: $err"
  grep -qF "($what" <<<"$err" || fail "holder's command not named ($what): $err"
}
# the step column of a history strictly increases (one run wrote it)
one_history() {
  awk -F, 'NR > 1 { if (NR > 2 && $1 <= last) exit 1; last = $1 } END { exit NR != 12 }' "$1/history.csv" ||
    fail "$1/history.csv is not one run's 11 rows: $(cut -d, -f1 "$1/history.csv" | tr '\n' ' ')"
}

# 1. two runs into one directory: the second is refused and writes nothing
"$SHARD" --plugin-path "$PLUGINS" run "$T/base.yaml" -o "$T/o" "${slow[@]}" >/dev/null 2>&1 &
first=$!
held "$T/o"
refused "$T/o" "$first" "shard run $T/base.yaml -o $T/o" run run "$T/base.yaml" -o "$T/o" --set time.end=0.02 --no-progress
# ... and a campaign into a run's directory too
printf 'base: %s\nsweep:\n  integrator.run: [0, 1]\n' "$T/base.yaml" >"$T/c.yaml"
refused "$T/o" "$first" "shard run" run campaign "$T/c.yaml" -o "$T/o" --no-progress
wait "$first" || fail "the first run failed"
grep -qx 'status: ok' "$T/o/summary.yaml" || fail "first run's summary"
grep -qx 'steps: 10' "$T/o/summary.yaml" || fail "the summary is not the first run's (10 steps)"
grep -q "end: 0.01" "$T/o/case.resolved.yaml" ||
  fail "case.resolved.yaml is not the first run's"
one_history "$T/o"
[ ! -e "$T/o/campaign.csv" ] && [ ! -e "$T/o/runs" ] || fail "the refused campaign wrote into the run's directory"
# the holder's record goes with it; the directory is free again
[ ! -s "$T/o/.lock" ] || fail ".lock still names a holder after the run ended: $(cat "$T/o/.lock")"
run run "$T/base.yaml" -o "$T/o" --no-progress >/dev/null || fail "a run into a released directory"

# 2. two campaigns on one directory: the second exits 2 naming the first
printf 'base: %s\nset: {integrator.sleep_at: 0, integrator.sleep: 3}\nsweep:\n  integrator.run: [0, 1]\n' \
  "$T/base.yaml" >"$T/slow.yaml"
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/slow.yaml" -o "$T/c" -j 2 --no-progress >/dev/null 2>&1 &
first=$!
held "$T/c"
refused "$T/c" "$first" "shard campaign $T/slow.yaml -o $T/c" run campaign "$T/slow.yaml" -o "$T/c" --no-progress
refused "$T/c" "$first" "shard campaign" run campaign "$T/slow.yaml" -o "$T/c" --resume --no-progress
refused "$T/c" "$first" "shard campaign" run run "$T/base.yaml" -o "$T/c" --no-progress
wait "$first" || fail "the first campaign failed"
[ "$(cell "$T/c/campaign.csv" 0 status)" = ok ] && [ "$(cell "$T/c/campaign.csv" 1 status)" = ok ] ||
  fail "campaign.csv: $(cat "$T/c/campaign.csv")"
for r in 0000 0001; do
  grep -qx 'status: ok' "$T/c/runs/$r/summary.yaml" || fail "run $r of the campaign: $(cat "$T/c/runs/$r/summary.yaml")"
  one_history "$T/c/runs/$r"
done
[ ! -e "$T/c/summary.yaml" ] || fail "the refused run wrote into the campaign's directory"

# 3. slices share a directory; a whole campaign may not join them, nor the same slice twice
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/slow.yaml" -o "$T/s" --slice 1/2 --no-progress >/dev/null 2>&1 &
first=$!
for _ in $(seq 1 1000); do grep -q '^pid: ' "$T/s/.lock.slice-1-of-2" 2>/dev/null && break; sleep 0.01; done
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/slow.yaml" -o "$T/s" --slice 2/2 --no-progress >/dev/null 2>&1 &
second=$!
refused "$T/s" "$first" "shard campaign $T/slow.yaml -o $T/s --slice 1/2" run campaign "$T/slow.yaml" -o "$T/s" --slice 1/2 --no-progress
err=$(run campaign "$T/slow.yaml" -o "$T/s" --no-progress 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "a whole campaign joined its slices: $err"
grep -qE "'$T/s' is in use by process [0-9]+ on host .*--slice [12]/2\), which holds part 'slice-[12]-of-2'" <<<"$err" ||
  fail "slice holder not named: $err"
wait "$first" || fail "slice 1/2 failed"
wait "$second" || fail "slice 2/2 failed beside slice 1/2"
[ -f "$T/s/campaign.slice-1-of-2.csv" ] && [ -f "$T/s/campaign.slice-2-of-2.csv" ] || fail "slice tables"

# 4. SIGKILL of the holder frees the directory at once
"$SHARD" --plugin-path "$PLUGINS" run "$T/base.yaml" -o "$T/k" "${slow[@]}" >/dev/null 2>&1 &
first=$!
held "$T/k"
kill -9 "$first"
wait "$first" 2>/dev/null || true
run run "$T/base.yaml" -o "$T/k" --no-progress >/dev/null || fail "a run after the holder was killed"
grep -qx 'status: ok' "$T/k/summary.yaml" || fail "run after a killed holder"
# 5. a run directory of a campaign held by a stray run (one a killed campaign left): the campaign
#    stops naming it and touches nothing there
mkdir -p "$T/c5/runs"
"$SHARD" --plugin-path "$PLUGINS" run "$T/base.yaml" -o "$T/c5/runs/0000" "${slow[@]}" >/dev/null 2>&1 &
first=$!
held "$T/c5/runs/0000"
code=0
err=$(run campaign "$T/slow.yaml" -o "$T/c5" --no-progress 2>&1 >/dev/null) || code=$?
[ "$code" -ne 0 ] || fail "a campaign ran beside a stray run in its run directory"
grep -qF "'$T/c5/runs/0000' is in use by process $first on host " <<<"$err" || fail "stray run not named: $err"
for f in run.key stdout.txt stderr.txt result.yaml; do
  [ ! -e "$T/c5/runs/0000/$f" ] || fail "the campaign wrote $f into the stray run's directory"
done
wait "$first" || fail "the stray run failed"
grep -qx 'status: ok' "$T/c5/runs/0000/summary.yaml" || fail "the stray run's summary"
one_history "$T/c5/runs/0000"
echo "outdir_lock: second run, campaign, slice and stray run refused with the holder named; slices share; SIGKILL frees the lock"
