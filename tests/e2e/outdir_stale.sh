#!/usr/bin/env bash
# e2e: a run leaves nothing in its directory that claims an earlier run's
# result. A ball run into a fracture run's directory keeps none of its
# fragments.csv, interfaces.csv, fields/; a rerun killed (SIGKILL) in its loop
# leaves no summary.yaml of the earlier run beside its own case; --restart of
# a finished directory without a checkpoint of its own touches nothing.
# usage: outdir_stale.sh SHARD SOURCE_DIR BUILD_DIR
set -euo pipefail
shard=$1 src=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
frac="$src/tests/cases/fracture/expanding.yaml"
ball="$src/cases/paper/ball_e08.yaml"
small=(--set model.elements=200 --no-progress)

# 1. a ball run into a fracture run's directory
"$shard" run "$frac" -o "$T/d" "${small[@]}" --set output.fields_interval=2e-8 >/dev/null
for f in fragments.csv fragment_sizes.csv fragment_histogram.csv interfaces.csv fields.pvd fields/fields_000001.vtu; do
  [ -f "$T/d/$f" ] || fail "the fracture run wrote no $f (the test needs it)"
done
touch "$T/d/.summary.yaml.tmp.12345" "$T/d/notes.txt"   # a killed writer's leftover, a user's file
"$shard" run "$ball" -o "$T/d" --no-progress >/dev/null
for f in fragments.csv fragment_sizes.csv fragment_histogram.csv interfaces.csv fields.pvd fields .summary.yaml.tmp.12345; do
  [ ! -e "$T/d/$f" ] || fail "$f of the earlier fracture run is still beside the ball run's outputs"
done
[ -f "$T/d/notes.txt" ] || fail "a file the run never writes was removed"
grep -q "ball" "$T/d/case.resolved.yaml" && grep -qx 'status: ok' "$T/d/summary.yaml" || fail "the ball run's outputs"
grep -q '^fracture:' "$T/d/summary.yaml" && fail "summary.yaml still describes the fracture run"

# 2. a rerun killed in its loop leaves no summary of the earlier run
"$shard" run "$ball" -o "$T/k" --no-progress >/dev/null
grep -qx 'status: ok' "$T/k/summary.yaml" || fail "first run"
"$shard" run "$frac" -o "$T/k" --set model.elements=4000 --set time.end=1e-5 --no-progress >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  [ "$(stat -c %s "$T/k/.history.csv.partial" 2>/dev/null || echo 0)" -ge 2000 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -0 "$pid" 2>/dev/null || fail "the rerun ended before it could be killed (make it longer)"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
[ ! -e "$T/k/summary.yaml" ] || fail "a killed rerun left the earlier summary.yaml: $(head -1 "$T/k/summary.yaml")"
[ ! -e "$T/k/history.csv" ] || fail "a killed rerun left the earlier history.csv"
grep -q "camacho_ortiz" "$T/k/case.resolved.yaml" || fail "case.resolved.yaml is not the rerun's"

# 3. --restart of a finished directory (no checkpoint of its own) refuses and removes nothing
"$shard" run "$ball" -o "$T/f" --no-progress >/dev/null
code=0
"$shard" run --restart "$T/f" >/dev/null 2>"$T/err" || code=$?
[ "$code" -eq 2 ] || fail "--restart without a checkpoint exited $code: $(cat "$T/err")"
for f in summary.yaml history.csv case.resolved.yaml provenance.yaml; do
  [ -f "$T/f/$f" ] || fail "--restart without a checkpoint removed $f"
done
echo "outdir_stale: earlier results removed at start (fracture -> ball, killed rerun); a refused --restart keeps them"
