#!/bin/bash
# e2e: a campaign with one run that crashes (SIGSEGV from the test_crash
# plugin) and one that hangs past the per-run time limit completes, with both
# rows marked failed and the others ok; plots are written as gnuplot scripts
# and a message says how to render them when gnuplot is not on PATH.
# usage: campaign_crash.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"

cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.crash_at: 2, integrator.hang_at: 4}
sweep:
  integrator.run: [0, 1, 2, 3, 4]
timeout: 2
plots:
  - {file: energy, x: integrator.run, y: energy.kinetic}
YAML
out=$(PATH=/nonexistent "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/out" -j 2 --no-progress 2>"$T/err")
rc=$?
cat "$T/err"
echo "$out"
[ $rc -eq 1 ] || fail "exit code $rc, expected 1 (some runs failed)"
grep -q "campaign c: 3 ok, 2 failed of 5 runs -> $T/out/campaign.csv" <<<"$out" || fail "summary line"
grep -q "run 2: crashed: killed by signal 11 (Segmentation fault)" "$T/err" || fail "crash not reported"
grep -q "run 4: timeout: exceeded the time limit of 2 s (killed)" "$T/err" || fail "timeout not reported"
csv=$T/out/campaign.csv
[ "$(head -1 "$csv" | cut -d, -f1-11)" = "index,integrator.run,status,exit_code,signal,wall_time,host,steps,message,run_dir,time.end" ] ||
  fail "header: $(head -1 "$csv")"
[ "$(wc -l <"$csv")" -eq 6 ] || fail "expected 5 rows"
for i in 0 1 3; do
  [ "$(cell "$csv" $i status)" = ok ] || fail "run $i not ok"
  [ "$(cell "$csv" $i exit_code)" = 0 ] || fail "run $i exit code"
  [ "$(cell "$csv" $i steps)" = 10 ] || fail "run $i steps"
done
[ "$(cell "$csv" 2 status)" = crashed ] || fail "run 2 status $(cell "$csv" 2 status)"
[ "$(cell "$csv" 2 signal)" = 11 ] || fail "run 2 signal"
[ -z "$(cell "$csv" 2 exit_code)" ] || fail "run 2 has an exit code"
[ "$(cell "$csv" 2 message)" = "killed by signal 11 (Segmentation fault)" ] || fail "run 2 message"
[ -z "$(cell "$csv" 2 steps)" ] || fail "run 2 has steps"
[ "$(cell "$csv" 4 status)" = timeout ] || fail "run 4 status"
[ "$(cell "$csv" 4 signal)" = 9 ] || fail "run 4 signal"
# each run in its own directory with its own output
[ -s "$T/out/runs/0001/summary.yaml" ] || fail "run 1 summary"
[ -f "$T/out/runs/0002/stderr.txt" ] || fail "run 2 stderr"
grep -q "^status: crashed" "$T/out/runs/0002/result.yaml" || fail "run 2 result.yaml"
# plots without gnuplot: scripts, data and a hint
[ -s "$T/out/plots/energy.gp" ] && [ -s "$T/out/plots/energy.dat" ] || fail "plot files"
[ ! -e "$T/out/plots/energy.png" ] || fail "a PNG without gnuplot"
grep -q "gnuplot is not on PATH" <<<"$out" || fail "no render hint"
[ "$(grep -c '^[0-9]' "$T/out/plots/energy.dat")" -eq 3 ] || fail "plot data: the 3 ok runs"
if command -v gnuplot >/dev/null; then
  out=$("$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/out" -j 2 --resume --no-progress 2>/dev/null)
  grep -q "(3 reused)" <<<"$out" || fail "resume: $out"
  [ -s "$T/out/plots/energy.png" ] && [ -s "$T/out/plots/energy.svg" ] || fail "no PNG/SVG with gnuplot on PATH"
else
  echo "note: gnuplot not installed, rendering not checked"
fi
echo PASS
