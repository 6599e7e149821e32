#!/usr/bin/env bash
# The 2D triangle model with a cohesive crack (cases/examples/tri2d_crack_pull.yaml
# on a finer mesh), killed with SIGKILL after its first checkpoint and
# continued with `shard run --restart DIR`, ends bit for bit like the
# uninterrupted run (history.csv and summary, wall times aside): the
# cohesive points' history, committed openings, tractions and work are in
# the checkpoint.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/examples/tri2d_crack_pull.yaml"
strip() { grep -vE '^(\s+(total|setup|loop|per_step)|restarts):' "$1"; }
sets=(--set model.mesh.nx=40 --set model.mesh.ny=40 --set time.checkpoint_every=300 --no-progress)
"$shard" run "$case" -o "$tmp/full" "${sets[@]}" >/dev/null
kill_after_checkpoint "$tmp/killed" "$shard" run "$case" -o "$tmp/killed" "${sets[@]}"
"$shard" run --restart "$tmp/killed" --no-progress >/dev/null
cmp "$tmp/full/history.csv" "$tmp/killed/history.csv" || { echo "FAIL: history.csv differs after restart"; exit 1; }
diff <(strip "$tmp/full/summary.yaml") <(strip "$tmp/killed/summary.yaml") ||
  { echo "FAIL: summary differs after restart"; exit 1; }
grep -qx 'restarts: 1' "$tmp/killed/summary.yaml" || { echo "FAIL: no restart counted"; exit 1; }
grep -q '^  broken: 40$' "$tmp/full/summary.yaml" || { echo "FAIL: the crack did not break"; exit 1; }
echo "tri2d crack restart: bit-for-bit identical ($(grep -m1 '^steps:' "$tmp/full/summary.yaml"))"
