#!/bin/bash
# e2e: a campaign is validated in full before anything runs — its own keys
# (file:line:col errors, did-you-mean) and every run's overrides as a case;
# a bad point fails with exit 2 and no run directory.
# usage: campaign_validate.sh SHARD SOURCE_DIR BUILD_DIR
set -u
SHARD=$1 SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/base.yaml" <<'YAML'
name: tiny
model: {type: particle, mass: 1.0, position: 1.0}
integrator: {plugin: explicit_newmark}
contact:
  force: {plugin: penalty, stiffness: 1e6}
time: {end: 0.01, dt: 1e-3}
YAML
check() { # FILE_TEXT EXPECTED_LINE...
  printf '%s' "$1" >"$T/c.yaml"
  shift
  err=$(cd "$T" && "$SHARD" campaign c.yaml -o out --no-progress 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] || fail "exit code $rc, expected 2 for:\n$(cat "$T/c.yaml")\n$err"
  [ ! -e "$T/out" ] || fail "something ran"
  for line in "$@"; do grep -qxF -- "$line" <<<"$err" || fail "missing line: $line
got:
$err"; done
}
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3, -1]\n' \
  "c.yaml:2:1: error: run 1 (time.dt=-1) is not a valid case:" \
  "--set 'time.dt=-1':1:9: error: 'time.dt' must be > 0 s, got -1"
check $'base: base.yaml\nsweep:\n  integrator.plugin: [explicit_newmark, nsm]\n' \
  "c.yaml:2:1: error: run 1 (integrator.plugin=nsm) is not a valid case:"
check $'base: base.yaml\nsweeps:\n  time.dt: [1e-3]\ntimeout: 0\n' \
  "c.yaml:1:1: error: missing required top-level key 'sweep'" \
  "c.yaml:2:1: error: unknown top-level key 'sweeps' (did you mean 'sweep'?)" \
  "c.yaml:4:10: error: 'timeout' must be > 0 s, got 0" \
  "3 errors"
check $'base: base.yaml\nsweep:\n  time.dt: {geomspace: [1e-3, 1e-2, 3], integer: maybe}\n' \
  "c.yaml:3:50: error: 'integer' must be true, false, round, floor or ceil, got 'maybe'"
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3]\nstatistics: {over: time.td}\n' \
  "c.yaml:4:20: error: 'statistics.over': 'time.td' is not a swept key of this campaign (did you mean 'time.dt'?)"
# plot columns are checked when the campaign loads, before anything runs:
# campaign.csv, history.csv and statistics.csv columns by name
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\nplots:\n  - {file: a, x: time.dt, y: [energy.kinetic, energy.kinetc]}\n  - {file: h, data: history, x: t, y: kinetik}\n' \
  "c.yaml:5:47: error: plot 'a': y column 'energy.kinetc' is not a column of campaign.csv (did you mean 'energy.kinetic'?)" \
  "c.yaml:6:39: error: plot 'h': y column 'kinetik' is not a column of the runs' history.csv (did you mean 'kinetic'?)" \
  "2 errors"
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3]\n  model.mass: [1, 2]\nstatistics: {over: model.mass}\nplots:\n  - {file: s, table: statistics, x: time.dt, y: energy.kinetic.mea}\n' \
  "c.yaml:7:49: error: plot 's': y column 'energy.kinetic.mea' is not a column of statistics.csv (did you mean 'energy.kinetic.mean'?)" \
  "1 error"
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3]\n  model.mass: [1, 2]\nstatistics: {over: model.mass, columns: [energy.kinetik, steps]}\n' \
  "c.yaml:5:42: error: 'statistics.columns': 'energy.kinetik' is not a numeric column of campaign.csv (did you mean 'energy.kinetic'?)" \
  "1 error"
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3]\nplots:\n  - {file: a, x: time.dtt, y: steps}\n' \
  "c.yaml:5:18: error: plot 'a': x column 'time.dtt' is not a column of campaign.csv (did you mean 'time.dt'?)"
# a misspelt swept key: one error at the key, whether a plot names the key or not
for plots in '' $'plots:\n  - {file: a, x: time.td, y: energy.kinetic}\n' \
  $'plots:\n  - {file: a, x: time.dt, y: energy.kinetic, series: time.dt}\n'; do
  check $'base: base.yaml\nsweep:\n  time.td: [1e-3, 2e-3]\n'"$plots" \
    "c.yaml:3:3: error: swept key 'time.td' is not a key of the case: unknown key 'td' in 'time'" \
    "1 error"
done
check $'base: base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\nderived:\n  time.edn: 10 * time_dt\n' \
  "c.yaml:5:3: error: derived key 'time.edn' is not a key of the case: unknown key 'edn' in 'time'" \
  "1 error"
# the paper campaigns validate, every run as a case (--dry-run lists them)
for spec in ball_convergence:300 bar_convergence:264 bar_dispersion:42 mj_order:140 ball_history:6 bar_history:6 damaged_bar_study:30 \
  damaged_bar_nsn_study:5 free_ring:18 free_ring_penalty:18 free_ring_dt:6 confined_length:30 confined_box:15 \
  restitution:56; do
  f=${spec%%:*} n=${spec##*:}
  "$SHARD" campaign "$SRC/cases/paper/$f.yaml" --dry-run >"$T/runs" 2>"$T/err" ||
    fail "cases/paper/$f.yaml: $(cat "$T/err")"
  [ "$(tail -1 "$T/runs")" = "# $f: $n runs, all valid cases" ] || fail "$f: $(tail -1 "$T/runs")"
  [ "$(grep -c '^shard run ' "$T/runs")" -eq "$n" ] || fail "$f: run lines"
done
echo PASS
