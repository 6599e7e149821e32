#!/bin/bash
# e2e: --slice K/N runs deterministic slices (index mod N == K-1) and
# `shard campaign merge` joins them into the table of a single -j run,
# identical in every column but wall time and host; merge refuses a run
# present twice.
# usage: campaign_slices.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"

cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.crash_at: 1}
sweep:
  integrator.run: [0, 1, 2]
  time.dt: {logspace: [-4, -3, 3]}
derived:
  var.steps: round(0.01 / time_dt)
YAML
run() { "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" --no-progress "$@"; }
run -o "$T/all" -j 2 >/dev/null 2>&1
[ $? -eq 1 ] || fail "the -j run should report its failed runs"
[ "$(wc -l <"$T/all/campaign.csv")" -eq 10 ] || fail "9 rows expected"
for k in 1 2 3 4; do run -o "$T/s$k" --slice $k/4 >/dev/null 2>&1; done
[ -f "$T/s2/campaign.slice-2-of-4.csv" ] || fail "slice table name"
[ "$(cut -d, -f1 "$T/s2/campaign.slice-2-of-4.csv" | tr '\n' ' ')" = "index 1 5 " ] || fail "slice 2/4 holds $(cut -d, -f1 "$T/s2/campaign.slice-2-of-4.csv")"
[ ! -e "$T/s2/campaign.csv" ] || fail "a slice wrote campaign.csv"
out=$("$SHARD" campaign merge "$T/merged" "$T/s1" "$T/s2" "$T/s3" "$T/s4") || fail "merge: $out"
grep -q "merged 4 tables, 9 runs -> $T/merged/campaign.csv" <<<"$out" || fail "merge output: $out"
diff <(strip "$T/all/campaign.csv") <(strip "$T/merged/campaign.csv") || fail "merged slices differ from the -j run"
grep -q '"path": "campaign.csv"' "$T/merged/datapackage.json" || fail "merge wrote no datapackage.json describing campaign.csv"
# plots from a merged table
printf 'plots:\n  - {file: steps, x: time.dt, y: steps, series: integrator.run, logx: true, logy: true}\n' >>"$T/c.yaml"
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/merged" --plots-only >/dev/null || fail "--plots-only"
[ -s "$T/merged/plots/steps.gp" ] && [ -s "$T/merged/plots/steps.dat" ] || fail "no plot from the merged table"
# 0.01 / dt steps: slope -1 for both ok series
[ "$(cut -d, -f4 "$T/merged/plots/steps.slopes.csv" | tr '\n' ' ')" = "slope -1.0000 -1.0000 " ] ||
  fail "slopes: $(cat "$T/merged/plots/steps.slopes.csv")"
# statistics across a swept key: with --plots-only, and after merge --campaign
# (merge alone does not know the campaign); run 1 crashed in every group
printf 'statistics: {over: time.dt, columns: [steps]}\n' >>"$T/c.yaml"
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/all" --plots-only >/dev/null || fail "--plots-only with statistics"
out=$("$SHARD" campaign merge "$T/merged3" "$T/s1" "$T/s2" --campaign "$T/c.yaml" "$T/s3" "$T/s4") || fail "merge --campaign: $out"
grep -q "statistics over time.dt -> $T/merged3/statistics.csv" <<<"$out" || fail "merge --campaign output: $out"
[ "$(cat "$T/all/statistics.csv")" = "integrator.run,n,failed,steps.mean,steps.std,steps.ci95,steps.min,steps.max
0,3,0,47.333333333333336,46.918368826434424,116.55168937555688,10,100
1,0,3,,,,,
2,3,0,47.333333333333336,46.918368826434424,116.55168937555688,10,100" ] || fail "statistics.csv: $(cat "$T/all/statistics.csv")"
cmp "$T/all/statistics.csv" "$T/merged3/statistics.csv" || fail "statistics of the merged slices differ from the -j run"
err=$("$SHARD" campaign merge "$T/m5" "$T/s1" --campaign "$T/nowhere.yaml" 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "merge --campaign of a missing file: exit status"
# slices sharing one directory (a shared file system)
for k in 1 2; do run -o "$T/shared" --slice $k/2 >/dev/null 2>&1; done
"$SHARD" campaign merge "$T/merged2" "$T/shared" >/dev/null || fail "merge of a shared directory"
diff <(strip "$T/all/campaign.csv") <(strip "$T/merged2/campaign.csv") || fail "merged shared slices differ"
# merge refuses what does not add up to the campaign: exit 2, no table, each
# problem with its file (and line)
refused() { # OUT MESSAGE ARGS...
  local out=$1 want=$2
  shift 2
  err=$("$SHARD" campaign merge "$out" "$@" 2>&1 >/dev/null)
  local rc=$?
  [ $rc -eq 2 ] || fail "merge $*: exit $rc, expected 2: $err"
  [ ! -e "$out/campaign.csv" ] || fail "merge $* wrote a table"
  grep -qF -- "shard campaign merge: $want" <<<"$err" || fail "merge $*: expected '$want', got: $err"
}
[ -s "$T/s2/campaign.slice-2-of-4.yaml" ] && grep -q "^runs: 9$" "$T/s2/campaign.slice-2-of-4.yaml" ||
  fail "slice description: $(cat "$T/s2/campaign.slice-2-of-4.yaml")"
refused "$T/m3" "slice 4 of 4 is missing: no campaign.slice-4-of-4.csv among the tables" "$T/s1" "$T/s2" "$T/s3"
refused "$T/m4" "$T/s1/campaign.slice-1-of-4.csv:2: run 0 appears twice: also at $T/s1/campaign.slice-1-of-4.csv:2" \
  "$T/s1" "$T/s2" "$T/s3" "$T/s4" "$T/s1/campaign.slice-1-of-4.csv"
# hostile copies of the four slices, in one directory
fresh() { rm -rf "$T/h"; mkdir "$T/h"; cp "$T"/s[1-4]/campaign.slice-* "$T/h/"; }
edit() { awk -F, -v OFS=, -v line="$2" -v f="$3" -v val="$4" 'NR == line {$f = val} {print}' "$1" >"$1.new" && mv "$1.new" "$1"; }
h1=$T/h/campaign.slice-1-of-4.csv h2=$T/h/campaign.slice-2-of-4.csv h3=$T/h/campaign.slice-3-of-4.csv
fresh; out=$("$SHARD" campaign merge "$T/m5" "$T/h") || fail "merge of the copied slices: $out"
fresh; head -1 "$h2" >"$h2.new" && mv "$h2.new" "$h2"
refused "$T/m6" "$h2:1: a header and no runs" "$T/h"
fresh; edit "$h1" 4 1 7   # run 8 of slice 1 becomes run 7, slice 4's
refused "$T/m6" "$h1:4: run 7 is not of slice 1 of 4 (index mod 4 = 0): it belongs to slice 4" "$T/h"
fresh; edit "$h2" 3 1 9   # run 5 of slice 2 becomes run 9: of slice 2, but the campaign has 9 runs
refused "$T/m6" "$h2:3: run 9 is beyond the campaign: it has 9 runs, indices 0-8 ($T/h/campaign.slice-2-of-4.yaml)" "$T/h"
rm "$T/h/campaign.slice-2-of-4.yaml"   # without the slice's description, --campaign knows
refused "$T/m6" "$h2:3: run 9 is beyond the campaign: $T/c.yaml has 9 runs, indices 0-8" "$T/h" --campaign "$T/c.yaml"
fresh; edit "$h1" 2 1 99999999999999999999
refused "$T/m6" "$h1:2: index 99999999999999999999 is out of range (a campaign has at most 100000 runs)" "$T/h"
fresh; edit "$h1" 2 1 +0
refused "$T/m6" "$h1:2: index '+0' is not a run number" "$T/h"
fresh; edit "$h3" 2 2 7   # run 2's integrator.run
refused "$T/m6" "$h3:2: run 2 has integrator.run = 7, but run 2 of $T/c.yaml has 0" "$T/h" --campaign "$T/c.yaml"
fresh; sed -i 's/^runs: 9$/runs: 12/' "$T/h/campaign.slice-3-of-4.yaml"
refused "$T/m6" "$T/h/campaign.slice-3-of-4.yaml: a slice of another campaign than $T/h/campaign.slice-1-of-4.yaml" "$T/h"
fresh; cp "$h1" "$T/h/campaign.slice-1-of-3.csv"
refused "$T/m6" "$T/h/campaign.slice-1-of-4.csv: a slice of 4, the others of 3: they cannot be merged" "$T/h"
fresh; cp "$h1" "$T/h/campaign.slice-5-of-4.csv"
refused "$T/m6" "$T/h/campaign.slice-5-of-4.csv: not a slice table name: campaign.slice-K-of-N.csv with 1 <= K <= N <= 100000" "$T/h"
refused "$T/m6" "$T/nowhere: No such file or directory" "$T/s1" "$T/nowhere"
err=$(run --slice 3/2 2>&1)
[ $? -eq 2 ] || fail "--slice 3/2 accepted"
grep -q "shard campaign: --slice takes K/N with 1 <= K <= N, got '3/2'" <<<"$err" || fail "slice message: $err"
# --runs A-B: a range of run indices, alone or within a slice; rows as in the -j run
run -o "$T/range" --runs 1-3 >/dev/null 2>&1
[ "$(cut -d, -f1 "$T/range/campaign.csv" | tr '\n' ' ')" = "index 1 2 3 " ] || fail "--runs 1-3 holds $(cut -d, -f1 "$T/range/campaign.csv")"
diff <(strip "$T/all/campaign.csv" | sed -n '1p;3,5p') <(strip "$T/range/campaign.csv") || fail "--runs rows differ from the -j run"
plan=$(run -o "$T/range" --runs 1-3 --slice 2/2 --resume --dry-run)
[ "$(grep -c '^# .*: done$' <<<"$plan")" -eq 1 ] && grep -q "^# c: 2 runs selected, all valid cases; --resume: 1 done, 0 to continue from a checkpoint, 1 to start$" <<<"$plan" ||
  fail "--runs with --slice: $plan"
err=$(run -o "$T/range" --runs 2-9 2>&1)
[ $? -eq 2 ] || fail "--runs beyond the campaign accepted"
grep -q "shard campaign: .*c.yaml: --runs 2-9: the campaign has 9 runs, indices 0-8" <<<"$err" || fail "--runs message: $err"
err=$(run --runs 5-3 2>&1)
[ $? -eq 2 ] && grep -q "shard campaign: --runs takes run indices A-B with A <= B (or one index), got '5-3'" <<<"$err" || fail "--runs 5-3: $err"
# an inline base case runs from DIR/case.yaml, resumable like a base file
cat > "$T/inline.yaml" <<'YAML'
name: inline
case:
  model: {type: particle, mass: 1.0, position: 1.0}
  integrator: {plugin: explicit_newmark}
  contact:
    force: {plugin: penalty, stiffness: 1e6}
  time: {end: 0.01, dt: 1e-3}
sweep:
  time.dt: [1e-3, 2e-3]
YAML
"$SHARD" campaign "$T/inline.yaml" -o "$T/inline" -j 2 --no-progress >/dev/null 2>&1 || fail "inline campaign"
grep -q "^  model: {type: particle" "$T/inline/case.yaml" || fail "inline case not written"
for i in 0 1; do # by column name
  got="$(cell "$T/inline/campaign.csv" $i time.dt),$(cell "$T/inline/campaign.csv" $i status),$(cell "$T/inline/campaign.csv" $i steps),$(cell "$T/inline/campaign.csv" $i run_dir)"
  [ "$got" = "$([ $i = 0 ] && echo 1e-3,ok,10,runs/0000 || echo 2e-3,ok,5,runs/0001)" ] || fail "inline table, run $i: $got"
done
out=$("$SHARD" campaign "$T/inline.yaml" -o "$T/inline" --resume --no-progress 2>&1)
grep -q "(2 reused)" <<<"$out" || fail "inline resume: $out"
echo PASS
