#!/usr/bin/env bash
# The 2D triangle model (model.type tri2d): a block hitting a wall, killed
# with SIGKILL after its first checkpoint and continued with
# `shard run --restart DIR`, ends bit for bit like the uninterrupted run (same
# history.csv and summary, wall times aside), under NSN (LCP impulses in the
# checkpoint) and explicit Newmark + penalty.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/examples/tri2d_block_wall.yaml"
for integ in nsn explicit_newmark; do
  restart_matches "$case" "$integ" --set integrator.plugin=$integ --set model.mesh.nx=200 --set model.mesh.ny=10 \
    --set time.end=3e-4 --set time.checkpoint_every=200 --no-progress
  echo "tri2d restart ($integ): bit-for-bit identical ($(grep -m1 '^steps:' "$tmp/full_$integ/summary.yaml"))"
done
