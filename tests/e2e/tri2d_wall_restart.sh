#!/usr/bin/env bash
# A block breaking on a wall (cases/examples/tri2d_wall_fragmentation.yaml on
# a finer mesh: walls together with insertion), killed with SIGKILL after a
# checkpoint taken once facets had broken and continued with
# `shard run --restart DIR`, ends bit for bit like the uninterrupted run
# (history.csv and summary, wall times aside): the checkpoint holds, besides
# the copies and the crack rows, the wall rows the copies on the cracks got
# (their wall, copy and penalty weight, in the rows' order), under NSN (LCP
# impulses) and explicit Newmark + penalty (the rows' weights).
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/examples/tri2d_wall_fragmentation.yaml"
for run in nsn:300 explicit_newmark:3000; do
  integ=${run%%:*} every=${run##*:}
  restart_matches "$case" "$integ" --set integrator.plugin=$integ --set model.mesh.nx=32 --set model.mesh.ny=16 \
    --set time.checkpoint_every=$every --no-progress
  n=$(grep -m1 '^  insertions:' "$tmp/full_$integ/summary.yaml" | awk '{print $2}')
  [ "${n:-0}" -gt 0 ] || { echo "FAIL: $integ: no facet broke"; exit 1; }
  echo "tri2d wall restart ($integ): bit-for-bit identical ($(grep -m1 '^steps:' "$tmp/full_$integ/summary.yaml"), $n insertions)"
done
